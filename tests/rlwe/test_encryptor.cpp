// Public-key, secret-key and seeded encryption decrypt to the message within
// the stated error bounds (checked coefficient by coefficient, centred), and
// objects of another context are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "error_test_support.hpp"
#include "heft/ring/prng.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

// Centered residue of x mod q as a double.
double centered(uint64_t x, uint64_t q) {
  return x > q / 2 ? -static_cast<double>(q - x) : static_cast<double>(x);
}

TEST(Encryption, PublicAndSecretKeyAndSeededDecryptToTheMessage) {
  auto context = Context::create(make_parameters(2048, {50, 40, 40}, {55}, 0, SecurityLevel::none));
  KeyGenerator keygen(context);
  const PublicKey pk = keygen.create_public_key();
  ring::Prng prng = ring::Prng::from_os_entropy();
  std::vector<int64_t> message(2048);
  for (std::size_t i = 0; i < message.size(); ++i)
    message[i] = static_cast<int64_t>(i * 7919 % 200001) - 100000;
  // Both plaintext forms: one in coefficient form is added to the error
  // before its transform.
  for (const auto& [level, in_ntt] : {std::pair{std::size_t{2}, true},
                                      {std::size_t{0}, true},
                                      {std::size_t{2}, false},
                                      {std::size_t{0}, false}}) {
    Plaintext plain;
    plain.poly = ring::RnsPoly(context->ciphertext_ring(), level + 1);
    plain.poly.set_coefficients(message);
    if (in_ntt) plain.poly.ntt();
    const Encryptor public_encryptor(pk);
    const Encryptor secret_encryptor(keygen.secret_key());
    const Decryptor decryptor(keygen.secret_key());
    const SeededCiphertext seeded = secret_encryptor.encrypt_seeded(plain);
    const Ciphertext ciphertexts[] = {public_encryptor.encrypt(plain),
                                      secret_encryptor.encrypt(plain),
                                      expand_seeded(*context, seeded)};
    for (std::size_t which = 0; which < 3; ++which) {
      const Ciphertext& ct = ciphertexts[which];
      ASSERT_EQ(ct.level(), level);
      Plaintext decrypted = decryptor.decrypt(ct);
      decrypted.poly.intt();
      double worst = 0;
      for (std::size_t t = 0; t <= level; ++t) {
        const uint64_t q = decrypted.poly.modulus(t).value();
        for (std::size_t k = 0; k < message.size(); ++k) {
          worst = std::max(worst, std::abs(centered(decrypted.poly.tower(t)[k], q) - message[k]));
        }
      }
      // Public key: e0 + e u + e1 s, two sums of N products of sigma-3.19
      // errors with ternaries: far below 12 sigma sqrt(N). Secret key: e alone,
      // bounded by the sampler at 19.
      const double bound = which == 0 ? 12 * 3.19 * std::sqrt(2048.0) : 19.0;
      EXPECT_LE(worst, bound) << "encryption mode " << which << " ntt " << in_ntt;
      EXPECT_TRUE(ct.parts[0].is_ntt() && ct.parts[1].is_ntt());
      EXPECT_GT(worst, 0.0);
    }
  }
  // Seeded expansion is deterministic.
  Plaintext plain;
  plain.poly = ring::RnsPoly(context->ciphertext_ring(), 3, ring::Form::ntt);
  const SeededCiphertext seeded = Encryptor(keygen.secret_key()).encrypt_seeded(plain);
  EXPECT_TRUE(expand_seeded(*context, seeded).parts[1] == expand_seeded(*context, seeded).parts[1]);
}

TEST(Encryption, RefusesObjectsOfAnotherContext) {
  auto params = make_parameters(1024, {40, 30}, {50}, 0, SecurityLevel::none);
  auto context_a = Context::create(params);
  auto context_b = Context::create(params);
  KeyGenerator keygen_a(context_a);
  Plaintext plain_b;
  plain_b.poly = ring::RnsPoly(context_b->ciphertext_ring(), 2, ring::Form::ntt);
  EXPECT_THROW((void)Encryptor(keygen_a.secret_key()).encrypt(plain_b), MismatchError);
  KeyGenerator keygen_b(context_b);
  Ciphertext ct_b = Encryptor(keygen_b.secret_key()).encrypt(plain_b);
  EXPECT_THROW((void)Decryptor(keygen_a.secret_key()).decrypt(ct_b), MismatchError);
  EXPECT_THROW(KeyGenerator(context_a, keygen_b.secret_key()), MismatchError);
  // An empty key is not a foreign one: the message says which it is.
  heft::testing::expect_error<InvalidArgument>([&] { KeyGenerator(context_a, SecretKey{}); },
                                               "KeyGenerator: the secret key is empty");
}

}  // namespace
}  // namespace heft::rlwe
