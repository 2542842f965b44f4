// The README's C++ examples as a program of their own: CKKS squaring, then the
// serialization round trip. Each result is checked against the plaintext squares
// in double; any mismatch or exception exits non-zero. Built by
// scripts/consumer-check.sh against an installed heft (CMake and pkg-config).
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/util/error.hpp"

namespace {

// Counts the slots farther than 1e-4 from the squares of x (zero past x).
int count_wrong(const std::vector<double>& x, const std::vector<double>& got) {
  int wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double expected = i < x.size() ? x[i] * x[i] : 0.0;
    if (std::abs(got[i] - expected) > 1e-4) ++wrong;
  }
  return wrong;
}

int run() {
  heft::ckks::ParameterRequest request;  // defaults: 40-bit scale, 128-bit security
  request.depth = 2;
  auto context = heft::rlwe::Context::create(heft::ckks::suggest_parameters(request));
  heft::rlwe::KeyGenerator keygen(context);
  auto relin = keygen.create_relin_key();
  heft::ckks::Encoder encoder(context);
  heft::ckks::Evaluator eval(context);  // ScaleMode::automatic by default
  heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  heft::rlwe::Decryptor decryptor(keygen.secret_key());
  std::vector<double> x = {0.5, -1.25, 3.0};
  auto level = context->max_level();
  auto ct = encryptor.encrypt(encoder.encode(x, eval.scale_at(level), level));
  auto sq = eval.square(ct, relin);                          // rescaled automatically when needed
  auto result = encoder.decode_real(decryptor.decrypt(sq));  // ~ {0.25, 1.5625, 9.0, 0, ...}

  // Client: parameters, evaluation keys and a ciphertext, as byte buffers.
  auto context_bytes = heft::rlwe::save(*context);
  auto key_bytes = heft::rlwe::save_key_set(nullptr, &relin, nullptr);  // public, relin, Galois
  auto ct_bytes = heft::rlwe::save(*context, ct, {heft::rlwe::Compression::zstd});
  // Server: rebuild, compute, send back.
  auto server_context = heft::rlwe::load_context(context_bytes);
  auto server_keys = heft::rlwe::load_key_set(server_context, key_bytes);
  heft::ckks::Evaluator server_eval(server_context);
  auto server_sq = server_eval.square(heft::rlwe::load_ciphertext(server_context, ct_bytes),
                                      *server_keys.relin_key);
  auto reply = heft::rlwe::save(*server_context, server_sq);
  // Client: load under its own context (same parameters) and decrypt.
  auto back = encoder.decode_real(decryptor.decrypt(heft::rlwe::load_ciphertext(context, reply)));

  int wrong = 0;
  if (result.size() != context->degree() / 2 || back.size() != result.size()) {
    std::fprintf(stderr, "wrong slot count: %zu and %zu, expected %zu\n", result.size(),
                 back.size(), static_cast<std::size_t>(context->degree() / 2));
    return 1;
  }
  wrong += count_wrong(x, result);
  wrong += count_wrong(x, back);
  // An exception thrown inside the library must be catchable by its type here
  // (in a shared build this needs the exported typeinfo).
  bool caught = false;
  try {
    heft::rlwe::load_context(std::vector<uint8_t>{1, 2, 3});
  } catch (const heft::FormatError&) {
    caught = true;
  }
  std::printf(
      "squares: %.6f %.6f %.6f; after the round trip: %.6f %.6f %.6f; %d wrong slots; "
      "FormatError %s\n",
      result[0], result[1], result[2], back[0], back[1], back[2], wrong,
      caught ? "caught" : "NOT caught");
  return wrong == 0 && caught ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer failed: %s\n", e.what());
    return 1;
  }
}
