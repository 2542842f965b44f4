// Li and Micciancio's passive attack on CKKS (Eurocrypt 2021), run for real:
// from one ciphertext and its shared decrypted, decoded result, re-encode the
// result (which gives back m + e exactly), solve c1 * s = (m + e) - c0 in the
// NTT domain of q_0 and compare with the secret key. It must recover the key
// when decryptions are not flooded: the test that documents why sharing raw
// CKKS results is unsafe (docs/security.md, IND-CPA-D).
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <vector>

#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::ckks {
namespace {

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % q);
}

// a^(q-2) mod q: the inverse of a nonzero a modulo the prime q.
uint64_t inverse_mod(uint64_t a, uint64_t q) {
  uint64_t result = 1, base = a % q;
  for (uint64_t e = q - 2; e != 0; e >>= 1) {
    if (e & 1) result = mul_mod(result, base, q);
    base = mul_mod(base, base, q);
  }
  return result;
}

TEST(CkksKeyRecovery, SharedDecryptionRevealsTheSecretKeyWithoutFlooding) {
  constexpr uint64_t kDegree = 2048;
  auto context = rlwe::Context::create(
      rlwe::make_parameters(kDegree, {50, 40}, {50}, 0, rlwe::SecurityLevel::none));
  rlwe::KeyGenerator keygen(context);
  const rlwe::Encryptor encryptor(keygen.create_public_key());
  const rlwe::Decryptor decryptor(keygen.secret_key());
  const Encoder encoder(context);

  std::vector<double> values(encoder.max_slots());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<double>(i % 17) / 17.0 - 0.5;
  const double scale = 0x1p30;
  const rlwe::Ciphertext ct = encryptor.encrypt(encoder.encode(values, scale, 0));
  ASSERT_EQ(ct.size(), 2u);

  // The client's shared result, as an application would see it.
  const std::vector<std::complex<double>> shared = encoder.decode(decryptor.decrypt(ct));

  // The attacker: re-encode the shared values, then s = (m' - c0) / c1 per
  // NTT slot of q_0.
  rlwe::Plaintext reencoded = encoder.encode(shared, ct.scale, ct.level(), ct.slots);
  ASSERT_TRUE(reencoded.poly.is_ntt());
  ASSERT_TRUE(ct.parts[0].is_ntt());
  const uint64_t q = ct.parts[0].modulus(0).value();
  const auto m = reencoded.poly.tower(0);
  const auto c0 = ct.parts[0].tower(0);
  const auto c1 = ct.parts[1].tower(0);
  ring::RnsPoly recovered(context->ciphertext_ring(), 1, ring::Form::ntt);
  auto s = recovered.tower(0);
  std::size_t unsolvable = 0;
  for (std::size_t j = 0; j < kDegree; ++j) {
    if (c1[j] == 0) {  // c1 not invertible here: about N / q of the slots
      ++unsolvable;
      continue;
    }
    s[j] = mul_mod((m[j] + q - c0[j]) % q, inverse_mod(c1[j], q), q);
  }
  ASSERT_EQ(unsolvable, 0u) << "a zero NTT value of c1 (probability ~2^-39); rerun";
  recovered.intt();

  // The oracle: the key's own integer coefficients.
  const std::vector<int64_t> key = keygen.secret_key().coefficients();
  std::size_t matches = 0;
  for (std::size_t i = 0; i < kDegree; ++i) {
    const uint64_t r = recovered.tower(0)[i];
    const int64_t centred = r > q / 2 ? -static_cast<int64_t>(q - r) : static_cast<int64_t>(r);
    matches += centred == key[i] ? 1 : 0;
  }
  EXPECT_EQ(matches, kDegree) << "the attack recovered " << matches << " of " << kDegree
                              << " secret coefficients";
}

}  // namespace
}  // namespace heft::ckks
