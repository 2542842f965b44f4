// The C++ example of README.md, verbatim in the body, so the README cannot
// drift from the API; the result is checked against the plaintext squares.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"

TEST(Readme, CkksExampleWorks) {
  // ---- begin README example ----
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
  // ---- end README example ----
  ASSERT_EQ(result.size(), context->degree() / 2);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(result[i], x[i] * x[i], 1e-4);
  for (std::size_t i = x.size(); i < result.size(); ++i)
    EXPECT_NEAR(result[i], 0.0, 1e-4);

  // ---- begin README serialization example ----
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
  // ---- end README serialization example ----
  for (std::size_t i = 0; i < back.size(); ++i)
    EXPECT_NEAR(back[i], result[i], 1e-4);
}
