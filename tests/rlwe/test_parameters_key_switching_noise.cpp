// Parameters whose key switching cannot work are refused by validate(), and
// the estimate behind that rule bounds the noise key switching really adds:
// measured on the coefficients of rotated encryptions of zero (the oracle:
// the exact decrypted polynomial, centred mod q_0), within a few bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching_noise.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

Parameters ckks_set(uint64_t n, const std::vector<int>& q_bits, const std::vector<int>& p_bits,
                    std::size_t dnum, double scale_bits) {
  Parameters params = make_parameters(n, q_bits, p_bits, dnum, SecurityLevel::none);
  params.scale = std::ldexp(1.0, static_cast<int>(scale_bits));
  return params;
}

// The set an earlier review found decrypting to garbage with no error: three
// 60-bit digits over one 30-bit special prime, scale 2^40.
TEST(KeySwitchingNoiseRule, SpecialPrimesFarBelowTheDigitsAreRefused) {
  const Parameters bad = ckks_set(8192, {60, 60, 60}, {30}, 3, 40);
  const KeySwitchingNoise noise = estimate_key_switching_noise(bad);
  EXPECT_NEAR(noise.digit_bits, 60, 0.1);
  EXPECT_NEAR(noise.special_bits, 30, 0.1);
  EXPECT_GT(noise.bound_bits, 38);
  for (const char* text :
       {"key switching cannot work", "2^60.0", "2^30.0", "nominal scale", "special primes"}) {
    testing::expect_error<InvalidArgument>([&] { bad.validate(); }, text);
  }
  // The same digits over a special prime as large as a digit: accepted.
  EXPECT_NO_THROW(ckks_set(8192, {60, 60, 60}, {60}, 3, 40).validate());
  // A BFV set whose P is 18 bits short of its digit, with a 14-bit t: the
  // bound leaves no noise budget even at the top level.
  Parameters bfv = make_parameters(2048, {36}, {18}, 0, SecurityLevel::none);
  bfv.plain_modulus = 12289;
  testing::expect_error<InvalidArgument>([&] { bfv.validate(); }, "Q / (2t)");
  // No special primes: no key switching, nothing to refuse.
  EXPECT_NO_THROW(make_parameters(8192, {60, 60, 60}, {}, 0, SecurityLevel::none).validate());
}

// The helpers' sets and TenSEAL's MNIST set (scale 2^21 over 21-bit primes,
// one 40-bit special prime) pass.
TEST(KeySwitchingNoiseRule, TheHelpersAndTenSealsSetsPass) {
  for (std::size_t depth : {1, 4, 12}) {
    ckks::ParameterRequest request;
    request.depth = depth;
    EXPECT_NO_THROW(ckks::suggest_parameters(request).validate()) << "depth " << depth;
  }
  EXPECT_NO_THROW(ckks_set(8192, {40, 21, 21, 21, 21, 21, 21}, {40}, 0, 21).validate());
  schemes::IntegerParameterRequest bfv;
  bfv.depth = 2;
  EXPECT_NO_THROW(schemes::suggest_integer_parameters(bfv).validate());
}

// The bound against the noise a rotation really adds, with special primes
// 30 bits short of the largest digit so that the digit term dominates.
TEST(KeySwitchingNoiseRule, TheBoundHoldsAndIsTight) {
  const Parameters params = ckks_set(4096, {60, 50, 50}, {30}, 3, 50);
  ASSERT_NO_THROW(params.validate());
  const double bound_bits = estimate_key_switching_noise(params).bound_bits;
  const auto context = Context::create(params);
  KeyGenerator keygen(context);
  const int64_t step[] = {1};
  const GaloisKeys keys = keygen.create_galois_keys(step);
  const ckks::Encoder encoder(context);
  const ckks::Evaluator eval(context, ckks::ScaleMode::manual);
  const Encryptor encryptor(keygen.secret_key());
  const Decryptor decryptor(keygen.secret_key());
  const std::size_t top = context->max_level();
  const std::vector<double> zeros(context->degree() / 2, 0.0);
  double worst = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const Ciphertext zero = encryptor.encrypt(encoder.encode(zeros, eval.scale_at(top), top));
    const Plaintext noise = decryptor.decrypt(eval.rotate(zero, 1, keys));
    const ring::RnsPoly coefficients = noise.poly.coefficient_form();
    const uint64_t q0 = context->ciphertext_ring()->modulus(0).value();
    for (uint64_t v : coefficients.tower(0)) {
      const double centred = v > q0 / 2 ? -static_cast<double>(q0 - v) : static_cast<double>(v);
      worst = std::max(worst, std::abs(centred));
    }
  }
  std::printf("bound 2^%.1f, largest measured 2^%.1f\n", bound_bits, std::log2(worst));
  EXPECT_LT(std::log2(worst), bound_bits);
  EXPECT_GT(std::log2(worst), bound_bits - 3);  // the bound is not a gross overestimate
}

}  // namespace
}  // namespace heft::rlwe
