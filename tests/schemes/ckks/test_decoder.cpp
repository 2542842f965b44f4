// The CKKS decoder (schemes/ckks/decoder.cpp) on hand-made coefficients
// against GMP: every centered integer reconstructed exactly (beyond 2^63,
// near +-q_0/2, near +-Q/2), mixed magnitudes, and large coefficients in the
// positions a sparse plaintext does not use.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "ckks_encoder_test_support.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::ckks {
namespace {

using namespace testing;

// Decoding reconstructs each coefficient as the double nearest to the
// centered integer. With one slot and scale 1 the decoded value is exactly
// coefficient 0 + i coefficient N/2, so each can be checked against GMP.
TEST(CkksEncoder, DecodingReconstructsEveryCenteredIntegerExactly) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const Encoder encoder(context);
  const auto& ring = context->ciphertext_ring();
  std::mt19937_64 rng(6);
  gmp_randstate_t state;
  gmp_randinit_default(state);
  gmp_randseed_ui(state, 6);
  for (std::size_t towers = 1; towers <= context->level_count(); ++towers) {
    const Mpz q = modulus_product(*ring, towers);
    Mpz half;  // (Q - 1) / 2, the largest centered value
    mpz_fdiv_q_2exp(half.v, q.v, 1);
    std::vector<Mpz> interesting;
    const auto add = [&](const Mpz& x) {
      Mpz negative;
      mpz_neg(negative.v, x.v);
      interesting.push_back(x);
      interesting.push_back(negative);
    };
    add(Mpz(0));
    add(Mpz(1));
    add(half);
    Mpz x;
    mpz_sub_ui(x.v, half.v, 1);
    add(x);
    for (std::size_t prefix = 1; prefix <= towers; ++prefix) {
      const Mpz p = modulus_product(*ring, prefix);
      mpz_fdiv_q_2exp(x.v, p.v, 1);  // (P - 1)/2 and (P + 1)/2: where candidates flip sign
      add(x);
      mpz_add_ui(x.v, x.v, 1);
      if (mpz_cmp(x.v, half.v) <= 0) add(x);
    }
    for (int bits : {52, 53, 54, 62, 63, 64, 65, 124, 125, 126, 127, 128, 129, 200}) {
      mpz_setbit((x = Mpz(0)).v, bits);
      if (mpz_cmp(x.v, half.v) <= 0) add(x);
      mpz_sub_ui(x.v, x.v, 1);
      if (mpz_cmp(x.v, half.v) <= 0) add(x);
    }
    for (int trial = 0; trial < 200; ++trial) {
      mpz_urandomb(x.v, state, std::uniform_int_distribution<int>(1, 400)(rng));
      mpz_mod(x.v, x.v, half.v);
      add(x);
    }
    for (std::size_t t = 0; t + 1 < interesting.size(); t += 2) {
      std::vector<Mpz> coefficients(degree);
      coefficients[0] = interesting[t];
      coefficients[degree / 2] = interesting[(t * 7 + 3) % interesting.size()];
      rlwe::Plaintext plain{poly_from_integers(ring, towers, coefficients), 1.0, 1};
      if (t % 4 == 0) plain.poly.ntt();  // both forms are accepted
      const auto decoded = encoder.decode(plain);
      ASSERT_EQ(decoded.size(), 1u);
      for (const auto& [value, expected] :
           {std::pair{decoded[0].real(), &coefficients[0]},
            std::pair{decoded[0].imag(), &coefficients[degree / 2]}}) {
        // Nearest double: |value - x| <= 2^-53 |x|, checked exactly.
        Mpz got, difference, limit;
        mpz_set_d(got.v, value);
        mpz_sub(difference.v, got.v, expected->v);
        mpz_abs(difference.v, difference.v);
        mpz_mul_2exp(difference.v, difference.v, 53);
        mpz_abs(limit.v, expected->v);
        ASSERT_LE(mpz_cmp(difference.v, limit.v), 0)
            << "towers=" << towers << " x=" << mpz_get_str(nullptr, 10, expected->v)
            << " decoded=" << value;
      }
    }
  }
  gmp_randclear(state);
}

// Full packing with coefficients of every size (all decoding paths mixed in
// one polynomial), against SpecialFft of the GMP-reconstructed values.
TEST(CkksEncoder, DecodingMixedMagnitudesMatchesGmp) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const Encoder encoder(context);
  const auto& ring = context->ciphertext_ring();
  std::mt19937_64 rng(7);
  gmp_randstate_t state;
  gmp_randinit_default(state);
  gmp_randseed_ui(state, 7);
  const std::size_t towers = context->level_count();
  const Mpz q = modulus_product(*ring, towers);
  std::vector<Mpz> coefficients(degree);
  for (auto& c : coefficients) {
    mpz_urandomb(c.v, state, std::uniform_int_distribution<int>(1, 295)(rng));
    if (rng() & 1) mpz_neg(c.v, c.v);
  }
  const double scale = std::ldexp(1.0, 200);
  for (std::size_t slots : {std::size_t{512}, std::size_t{4}}) {
    const std::size_t gap = degree / (2 * slots);
    std::vector<cd> expected(slots);
    for (std::size_t k = 0; k < slots; ++k) {
      expected[k] = {static_cast<double>(to_long_double(coefficients[k * gap]) / scale),
                     static_cast<double>(to_long_double(coefficients[(k + slots) * gap]) / scale)};
    }
    SpecialFft(slots).forward(expected);
    rlwe::Plaintext plain{poly_from_integers(ring, towers, coefficients), scale, slots};
    plain.poly.ntt();
    const auto decoded = encoder.decode(plain);
    double largest = 0;
    for (const auto& v : expected)
      largest = std::max(largest, std::abs(v));
    EXPECT_LE(max_error(decoded, expected), 1e-13 * largest * std::sqrt(2.0 * slots));
  }
  gmp_randclear(state);
}

// Sparse packing reads only coefficients at multiples of the gap. Large
// values elsewhere make the guess wrong there, so the fast test rejects it
// and decoding falls back to the exact tests, which still return the values.
TEST(CkksEncoder, DecodingIgnoresLargeUnusedCoefficients) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const Encoder encoder(context);
  const auto& ring = context->ciphertext_ring();
  const std::size_t towers = ring->tower_count();
  const std::size_t slots = 8, gap = degree / (2 * slots);
  std::mt19937_64 rng(13);
  const std::vector<cd> values = random_complex(slots, rng);
  rlwe::Plaintext plain = encoder.encode(values, std::ldexp(1.0, 40), towers - 1, slots);
  // Add 2^150 + k to every coefficient off the multiples of the gap.
  plain.poly.intt();
  std::vector<Mpz> coefficients(degree);
  for (std::size_t k = 0; k < degree; ++k) {
    // The plaintext's own coefficient, centered (it is small).
    const uint64_t r0 = plain.poly.tower(0)[k];
    const uint64_t q0 = ring->modulus(0).value();
    mpz_set_si(coefficients[k].v,
               r0 > q0 / 2 ? -static_cast<long>(q0 - r0) : static_cast<long>(r0));
    if (k % gap != 0) {
      Mpz big(0);
      mpz_setbit(big.v, 150);
      mpz_add_ui(big.v, big.v, k);
      mpz_add(coefficients[k].v, coefficients[k].v, big.v);
    }
  }
  rlwe::Plaintext altered{poly_from_integers(ring, towers, coefficients), plain.scale, slots};
  altered.poly.ntt();
  const auto decoded = encoder.decode(altered);
  ASSERT_EQ(decoded.size(), slots);
  EXPECT_LT(max_error(decoded, values), 1e-9);
}

}  // namespace
}  // namespace heft::ckks
