// Writes format-version-2 objects made by heft at 1431f2c (the last build
// before the metadata record): BGV parameters, a secret key, a fresh BGV
// ciphertext (seeded c1) and a relinearized product switched down one level
// (correction factor != 1), for tests/rlwe/test_serial_ciphertext_codec.cpp.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "heft/math/primes.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/serialization.hpp"

using namespace heft;

void write(const std::string& name, const rlwe::Bytes& bytes) {
  std::ofstream out(name, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::printf("%s: %zu bytes, version %u\n", name.c_str(), bytes.size(), rlwe::inspect(bytes).version);
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const uint64_t n = 1024;
  rlwe::Parameters p = rlwe::make_parameters(n, {50, 40, 40}, {50}, 0, rlwe::SecurityLevel::none);
  p.plain_modulus = math::generate_batching_prime(17, n).value();
  const auto context = rlwe::Context::create(p);
  const uint64_t t = p.plain_modulus;
  const rlwe::KeyGenerator keygen = bgv::make_key_generator(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const bgv::Encryptor encryptor(keygen.secret_key());
  const bgv::Evaluator evaluator(context);
  const schemes::BatchEncoder encoder(n, t);
  // x_i = (7919 i + 3) mod t; the product holds x_i^2 mod t.
  std::vector<uint64_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = (7919 * i + 3) % t;
  const bgv::Ciphertext fresh = encryptor.encrypt(encoder.encode(x));
  const bgv::Ciphertext product = evaluator.multiply(fresh, fresh, relin);
  std::printf("t = %lu, product level %zu, correction %lu, noise %.17g / %.17g\n", t,
              product.level(), product.correction, fresh.noise_log2, product.noise_log2);
  write(dir + "/bgv_parameters.heft", rlwe::save(p));
  write(dir + "/bgv_secret_key.heft", rlwe::save(keygen.secret_key()));
  write(dir + "/bgv_fresh_ciphertext.heft", bgv::save(*context, fresh));
  write(dir + "/bgv_product_ciphertext.heft", bgv::save(*context, product));
  return 0;
}
