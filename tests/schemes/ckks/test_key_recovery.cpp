// Li and Micciancio's passive attack on CKKS (Eurocrypt 2021), run for real:
// from one ciphertext and its shared decrypted, decoded result, re-encode the
// result (which gives back m + e exactly), solve c1 * s = (m + e) - c0 in the
// NTT domain of q_0 and compare with the secret key. It must recover the key
// when decryptions are not flooded (the test that documents why sharing raw
// CKKS results is unsafe, docs/security.md, IND-CPA-D) and fail when they are
// (ckks::FloodingDecryptor).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/noise_flooding.hpp"
#include "heft/util/error.hpp"

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

// The attack: from the ciphertext and the shared values, re-encode, solve
// s = (m' - c0) / c1 per NTT slot of q_0, and count the coefficients that
// equal the key's own (the oracle).
std::size_t recovered_key_coefficients(const Encoder& encoder, const rlwe::Ciphertext& ct,
                                       std::span<const std::complex<double>> shared,
                                       const rlwe::SecretKey& key) {
  const auto& context = encoder.context();
  const std::size_t degree = context->degree();
  rlwe::Plaintext reencoded = encoder.encode(shared, ct.scale, ct.level(), ct.slots);
  EXPECT_TRUE(reencoded.poly.is_ntt());
  EXPECT_TRUE(ct.parts[0].is_ntt());
  const uint64_t q = ct.parts[0].modulus(0).value();
  const auto m = reencoded.poly.tower(0);
  const auto c0 = ct.parts[0].tower(0);
  const auto c1 = ct.parts[1].tower(0);
  ring::RnsPoly recovered(context->ciphertext_ring(), 1, ring::Form::ntt);
  auto s = recovered.tower(0);
  for (std::size_t j = 0; j < degree; ++j) {
    // c1 is not invertible where it is zero (probability about N / q: 2^-39).
    s[j] = c1[j] == 0 ? 0 : mul_mod((m[j] + q - c0[j]) % q, inverse_mod(c1[j], q), q);
  }
  recovered.intt();
  const std::vector<int64_t> coefficients = key.coefficients();
  std::size_t matches = 0;
  for (std::size_t i = 0; i < degree; ++i) {
    const uint64_t r = recovered.tower(0)[i];
    const int64_t centred = r > q / 2 ? -static_cast<int64_t>(q - r) : static_cast<int64_t>(r);
    matches += centred == coefficients[i] ? 1 : 0;
  }
  return matches;
}

struct Client {
  Client()
      : context(rlwe::Context::create(
            rlwe::make_parameters(kDegree, {60, 60}, {60}, 0, rlwe::SecurityLevel::none))),
        keygen(context),
        encryptor(keygen.create_public_key()),
        decryptor(keygen.secret_key()),
        encoder(context) {
    values.resize(encoder.max_slots());
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<double>(i % 17) / 17.0 - 0.5;
  }
  static constexpr uint64_t kDegree = 2048;
  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  rlwe::Encryptor encryptor;
  rlwe::Decryptor decryptor;
  Encoder encoder;
  std::vector<std::complex<double>> values;
};

TEST(CkksKeyRecovery, SharedDecryptionRevealsTheSecretKeyWithoutFlooding) {
  const Client client;
  const rlwe::Ciphertext ct =
      client.encryptor.encrypt(client.encoder.encode(client.values, 0x1p30, 0));
  ASSERT_EQ(ct.size(), 2u);
  // The client's shared result, as an application would see it.
  const auto shared = client.encoder.decode(client.decryptor.decrypt(ct));
  EXPECT_EQ(recovered_key_coefficients(client.encoder, ct, shared, client.keygen.secret_key()),
            Client::kDegree);
}

TEST(CkksKeyRecovery, FloodedDecryptionDefeatsTheAttack) {
  const Client client;
  const rlwe::Ciphertext ct =
      client.encryptor.encrypt(client.encoder.encode(client.values, 0x1p50, 1));
  // The estimation run: the same "circuit" (a fresh encryption) on sample
  // values whose result is known, with a margin of 2 bits.
  FloodingOptions options;
  options.noise_bits = measure_noise_bits(client.decryptor, client.encoder, ct, client.values) + 2;
  const FloodingDecryptor flooding(client.keygen.secret_key(), options);
  const FloodedPlaintext flooded = flooding.decrypt(ct);
  EXPECT_DOUBLE_EQ(flooded.flooding_bits, options.noise_bits + 15 + 3);
  const auto shared = client.encoder.decode(flooded.plain);
  // Still the values, within the precision the flooding costs ...
  for (std::size_t i = 0; i < shared.size(); ++i)
    ASSERT_NEAR(shared[i].real(), client.values[i].real(), 8 * flooded.slot_error) << i;
  // ... but the attack now finds (next to) none of the key's coefficients:
  // a wrong guess matches a ternary coefficient with probability about 3 / q.
  EXPECT_LT(recovered_key_coefficients(client.encoder, ct, shared, client.keygen.secret_key()),
            Client::kDegree / 100);
}

TEST(CkksNoiseFlooding, TheFloodedErrorHasTheStatedSpread) {
  const Client client;
  const rlwe::Ciphertext ct =
      client.encryptor.encrypt(client.encoder.encode(client.values, 0x1p55, 1));
  FloodingOptions options;
  options.noise_bits = 10;
  const FloodedPlaintext flooded =
      FloodingDecryptor(client.keygen.secret_key(), options).decrypt(ct);
  const auto exact = client.encoder.decode(client.decryptor.decrypt(ct));
  const auto noisy = client.encoder.decode(flooded.plain);
  // The oracle: each decoded part gets a Gaussian of deviation sigma sqrt(N/2)
  // / scale (the flooding noise dwarfs the ciphertext's own): the sample
  // deviation over 2 x 1024 parts is within 10% of it (about 6 standard
  // errors).
  double sum_squares = 0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const std::complex<double> d = noisy[i] - exact[i];
    sum_squares += d.real() * d.real() + d.imag() * d.imag();
  }
  const double deviation = std::sqrt(sum_squares / (2.0 * static_cast<double>(exact.size())));
  EXPECT_NEAR(deviation / flooded.slot_error, 1.0, 0.1);
  EXPECT_DOUBLE_EQ(flooded.slot_error,
                   std::exp2(10 + 15 + 3) * std::sqrt(Client::kDegree / 2.0) / 0x1p55);
}

TEST(CkksNoiseFlooding, MeasuresTheNoiseOfAKnownDifference) {
  const Client client;
  // A trivial ciphertext (c0, 0) decrypts to c0 exactly: c0 = the encoding
  // plus a known polynomial whose largest coefficient is 2^12 gives a noise
  // of exactly 12 bits.
  const rlwe::Plaintext plain = client.encoder.encode(client.values, 0x1p40, 1);
  ring::RnsPoly known(client.context->ciphertext_ring(), 2, ring::Form::coefficient);
  std::vector<int64_t> coefficients(Client::kDegree, 0);
  coefficients[0] = 5;
  coefficients[7] = -(int64_t{1} << 12);
  coefficients[100] = 1000;
  known.set_coefficients(coefficients);
  known.ntt();
  rlwe::Ciphertext ct;
  ct.parts.push_back(plain.poly.clone());
  ct.parts[0] += known;
  ct.parts.emplace_back(client.context->ciphertext_ring(), 2, ring::Form::ntt);
  ct.scale = plain.scale;
  ct.slots = plain.slots;
  EXPECT_DOUBLE_EQ(measure_noise_bits(client.decryptor, client.encoder, ct, client.values), 12.0);
  // Values that are not the result: refused, not measured.
  std::vector<std::complex<double>> wrong(client.values.size(), 3.0);
  EXPECT_THROW((void)measure_noise_bits(client.decryptor, client.encoder, ct, wrong),
               InvalidArgument);
}

TEST(CkksNoiseFlooding, RefusesOptionsAndNoiseThatDoNotFit) {
  const Client client;
  FloodingOptions options;
  options.noise_bits = -1;
  EXPECT_THROW(FloodingDecryptor(client.keygen.secret_key(), options), InvalidArgument);
  options.noise_bits = 10;
  options.statistical_security = 0;
  EXPECT_THROW(FloodingDecryptor(client.keygen.secret_key(), options), InvalidArgument);
  options.statistical_security = 30;
  options.decryptions = 0;
  EXPECT_THROW(FloodingDecryptor(client.keygen.secret_key(), options), InvalidArgument);
  // 2^(50 + 18) flooding noise in a 60-bit modulus (level 0) would wrap.
  options.decryptions = 1;
  options.noise_bits = 50;
  const rlwe::Ciphertext ct =
      client.encryptor.encrypt(client.encoder.encode(client.values, 0x1p30, 0));
  EXPECT_THROW((void)FloodingDecryptor(client.keygen.secret_key(), options).decrypt(ct),
               InvalidArgument);
}

}  // namespace
}  // namespace heft::ckks
