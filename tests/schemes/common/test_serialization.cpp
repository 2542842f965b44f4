// Saving and loading the integer schemes' objects (schemes/common/
// serialization.cpp): integer plaintexts, BFV and BGV ciphertexts, with and
// without batching, checked against sums computed here mod t.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/serialization.hpp"
#include "serialization_test_support.hpp"

namespace heft::rlwe {
namespace {

using namespace testing;

// A plaintext modulus that is not a batching prime (a power of two, through
// the coefficient encoder): integer plaintexts and BFV/BGV ciphertexts of a
// sum, checked against the coefficient-wise sum mod t.
TEST(Serialization, IntegerSchemesWithoutBatchingRoundTrip) {
  std::mt19937_64 rng(14);
  const uint64_t t = 256;
  Parameters p = make_parameters(2048, {50, 40}, {50}, 0, SecurityLevel::none);
  p.plain_modulus = t;
  const auto context = Context::create(p);
  std::vector<int64_t> a(p.degree), b(p.degree), sum(p.degree);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int64_t>(rng() % 128) - 64;
    b[i] = static_cast<int64_t>(rng() % 128) - 64;
    sum[i] = a[i] + b[i];  // stays in (-t/2, t/2]
  }
  const auto pa = schemes::encode_coefficients(a, p.degree, t);
  const auto pb = schemes::encode_coefficients(b, p.degree, t);
  EXPECT_EQ(
      schemes::load_integer_plaintext(context, schemes::save(*context, pa, kZstd)).coefficients,
      pa.coefficients);
  // 8 bits a coefficient.
  EXPECT_LE(schemes::save(*context, pa).size(), p.degree + 100);

  KeyGenerator bgv_keygen = bgv::make_key_generator(context);
  const bgv::Encryptor bgv_encryptor(bgv_keygen.secret_key());
  const bgv::Evaluator bgv_evaluator(context);
  const bgv::Ciphertext bgv_sum =
      bgv_evaluator.add(bgv_encryptor.encrypt(pa), bgv_encryptor.encrypt(pb));
  const bgv::Ciphertext bgv_loaded = bgv::load_ciphertext(context, bgv::save(*context, bgv_sum));
  EXPECT_EQ(schemes::decode_coefficients_signed(
                bgv::Decryptor(bgv_keygen.secret_key()).decrypt(bgv_loaded)),
            sum);

  KeyGenerator bfv_keygen(context);
  const bfv::Encryptor bfv_encryptor(bfv_keygen.secret_key());
  Ciphertext bfv_a = bfv_encryptor.encrypt(pa);
  const Ciphertext bfv_loaded = load_ciphertext(context, save(*context, bfv_a, kZstd));
  EXPECT_EQ(schemes::decode_coefficients_signed(
                bfv::Decryptor(bfv_keygen.secret_key()).decrypt(bfv_loaded)),
            a);
}

TEST(Serialization, IntegerSchemesRoundTrip) {
  std::mt19937_64 rng(12);
  const uint64_t t = 65537;
  Parameters p = make_parameters(4096, {50, 40, 40}, {50}, 0, SecurityLevel::none);
  p.plain_modulus = t;
  const auto context = Context::create(p);
  const schemes::BatchEncoder encoder(p.degree, t);
  std::vector<uint64_t> a(p.degree), b(p.degree);
  for (auto& v : a)
    v = rng() % t;
  for (auto& v : b)
    v = rng() % t;

  // Integer plaintexts.
  const schemes::IntegerPlaintext plain = encoder.encode(a);
  for (const SaveOptions& options : {kPlain, kZstd}) {
    const auto loaded =
        schemes::load_integer_plaintext(context, schemes::save(*context, plain, options));
    EXPECT_EQ(loaded.coefficients, plain.coefficients);
    EXPECT_EQ(loaded.modulus, t);
  }
  // 17 bits a coefficient, not 64.
  EXPECT_LT(schemes::save(*context, plain).size(), p.degree * 17 / 8 + 200);

  // BFV ciphertexts are RLWE ciphertexts.
  {
    KeyGenerator keygen(context);
    const bfv::Encryptor encryptor(keygen.secret_key());
    const bfv::Decryptor decryptor(keygen.secret_key());
    const Ciphertext ct = encryptor.encrypt(plain);
    const Bytes bytes = save(*context, ct);
    EXPECT_LE(static_cast<double>(bytes.size()),
              0.55 * static_cast<double>(save(*context, ct, kUnseeded).size()));
    EXPECT_EQ(encoder.decode(decryptor.decrypt(load_ciphertext(context, bytes))), a);
  }
  // BGV ciphertexts keep their correction factor through modulus switching.
  {
    KeyGenerator keygen = bgv::make_key_generator(context);
    const bgv::Encryptor encryptor(keygen.create_public_key());
    const bgv::Decryptor decryptor(keygen.secret_key());
    const RelinKey relin = keygen.create_relin_key();
    const bgv::Evaluator evaluator(context);
    const bgv::Ciphertext product = evaluator.multiply(encryptor.encrypt(encoder.encode(a)),
                                                       encryptor.encrypt(encoder.encode(b)), relin);
    ASSERT_LT(product.level(), context->max_level());  // switched down automatically
    std::vector<uint64_t> want(p.degree);
    for (std::size_t i = 0; i < want.size(); ++i)
      want[i] = a[i] * b[i] % t;
    for (const SaveOptions& options : {kPlain, kZstd}) {
      const bgv::Ciphertext loaded =
          bgv::load_ciphertext(context, bgv::save(*context, product, options));
      EXPECT_EQ(loaded.correction, product.correction);
      expect_same_ciphertext(loaded, product);
      EXPECT_EQ(encoder.decode(decryptor.decrypt(loaded)), want);
    }
    // The BGV public key carries its error scale t.
    const PublicKey pk = keygen.create_public_key();
    EXPECT_EQ(load_public_key(context, save(pk)).error_scale, t);
  }
}

}  // namespace
}  // namespace heft::rlwe
