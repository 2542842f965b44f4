// The CKKS encoder against independent oracles: encode/decode round trips
// with a stated error bound; the encoded polynomial, rebuilt with GMP and
// evaluated directly at zeta_2N^(5^j) in long double (O(N^2)); large
// scales; constant encoding against vector encoding; results independent of
// the thread count; every documented error case, with the inputs left as
// they were. Decoding of hand-made coefficients is in test_decoder.cpp.
#include <gmp.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "ckks_encoder_test_support.hpp"
#include "error_test_support.hpp"
#include "heft/math/kernels.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::ckks {
namespace {

using namespace testing;
using cld = std::complex<long double>;

std::vector<double> random_real(std::size_t n, std::mt19937_64& rng, double bound = 1) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<double> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// The centered integers of a coefficient-form polynomial, by textbook CRT.
std::vector<Mpz> centered_coefficients(const ring::RnsPoly& poly) {
  const auto& ring = *poly.context();
  const std::size_t towers = poly.tower_count();
  const Mpz q = modulus_product(ring, towers);
  Mpz half;
  mpz_fdiv_q_2exp(half.v, q.v, 1);
  std::vector<Mpz> result(poly.degree());
  for (std::size_t i = 0; i < towers; ++i) {
    const uint64_t qi = ring.modulus(i).value();
    Mpz hat, qi_z, inv, term;
    mpz_divexact_ui(hat.v, q.v, qi);
    mpz_set_ui(qi_z.v, qi);
    mpz_invert(inv.v, hat.v, qi_z.v);
    mpz_mul(term.v, hat.v, inv.v);  // = 1 mod q_i, 0 mod the others
    for (std::size_t k = 0; k < poly.degree(); ++k)
      mpz_addmul_ui(result[k].v, term.v, poly.tower(i)[k]);
  }
  for (auto& x : result) {
    mpz_mod(x.v, x.v, q.v);
    if (mpz_cmp(x.v, half.v) > 0) mpz_sub(x.v, x.v, q.v);
  }
  return result;
}

std::vector<cd> padded(const std::vector<cd>& values, std::size_t n) {
  std::vector<cd> v = values;
  v.resize(n);
  return v;
}

// Rounding moves each of the 2n used coefficients by at most 1/2, so a slot
// moves by at most n / scale; the FFTs add a relative error far below 1e-12.
double round_trip_bound(std::size_t slots, double scale, double magnitude = 1) {
  return static_cast<double>(slots) / scale + 1e-12 * magnitude;
}

TEST(CkksEncoder, RoundTripAcrossDegreesScalesLevelsAndSlots) {
  std::mt19937_64 rng(1);
  for (uint64_t degree : {1024, 2048, 4096, 8192, 16384}) {
    const auto context = context_for(degree, {60, 50, 50});
    const Encoder encoder(context);
    double worst_ratio = 0;
    for (double log_scale : {20.0, 30.0, 40.0, 55.0}) {
      const double scale = std::ldexp(1.0, static_cast<int>(log_scale));
      for (std::size_t level : {context->max_level(), std::size_t{0}}) {
        for (std::size_t slots : {std::size_t{1}, std::size_t{2}, std::size_t{8}, degree / 2}) {
          const auto values = random_complex(slots, rng);
          const auto plain = encoder.encode(values, scale, level, slots);
          EXPECT_EQ(plain.slots, slots);
          EXPECT_EQ(plain.scale, scale);
          EXPECT_EQ(plain.level(), level);
          EXPECT_TRUE(plain.poly.is_ntt());
          const double error = max_error(encoder.decode(plain), values);
          const double bound = round_trip_bound(slots, scale);
          EXPECT_LE(error, bound) << "N=" << degree << " scale=2^" << log_scale
                                  << " level=" << level << " slots=" << slots;
          worst_ratio = std::max(worst_ratio, error / bound);

          const auto reals = random_real(slots, rng);
          const auto decoded = encoder.decode_real(encoder.encode(reals, scale, level, slots));
          ASSERT_EQ(decoded.size(), slots);
          double real_error = 0;
          for (std::size_t k = 0; k < slots; ++k)
            real_error = std::max(real_error, std::abs(decoded[k] - reals[k]));
          EXPECT_LE(real_error, bound);
          if (slots == degree / 2 && level == 0) {
            std::printf("N=%5llu scale=2^%.0f full slots: log2 max error complex %.1f, real %.1f\n",
                        static_cast<unsigned long long>(degree), log_scale, std::log2(error),
                        std::log2(real_error));
          }
        }
      }
    }
    std::printf("N=%5llu: worst error / bound = %.3g\n", static_cast<unsigned long long>(degree),
                worst_ratio);
  }
}

TEST(CkksEncoder, FewerValuesThanSlotsArePaddedWithZeros) {
  std::mt19937_64 rng(2);
  const auto context = context_for(1024, {60, 50, 50});
  const Encoder encoder(context);
  const auto values = random_complex(5, rng);
  const auto decoded = encoder.decode(encoder.encode(values, std::ldexp(1.0, 40), 1, 16));
  ASSERT_EQ(decoded.size(), 16u);
  EXPECT_LE(max_error(decoded, padded(values, 16)), round_trip_bound(16, std::ldexp(1.0, 40)));
  // Default slot count: N/2.
  EXPECT_EQ(encoder.encode(values, std::ldexp(1.0, 40), 1).slots, 512u);
}

// Precision at SEAL's usual setting: scale 2^40, N = 8192, values in [-1, 1].
TEST(CkksEncoder, PrecisionAtScale40MatchesSeal) {
  std::mt19937_64 rng(3);
  const auto context = context_for(8192, {60, 40, 40, 60});
  const Encoder encoder(context);
  const double scale = std::ldexp(1.0, 40);
  const auto values = random_complex(4096, rng);
  const double complex_error = max_error(encoder.decode(encoder.encode(values, scale, 3)), values);
  const auto reals = random_real(4096, rng);
  const auto decoded = encoder.decode_real(encoder.encode(reals, scale, 3));
  double real_error = 0;
  for (std::size_t k = 0; k < reals.size(); ++k)
    real_error = std::max(real_error, std::abs(decoded[k] - reals[k]));
  std::printf("scale 2^40, N=8192: log2 max round-trip error complex %.2f, real %.2f\n",
              std::log2(complex_error), std::log2(real_error));
  EXPECT_LT(complex_error, std::ldexp(1.0, -30));
  EXPECT_LT(real_error, std::ldexp(1.0, -30));
}

// The encoded polynomial, rebuilt exactly with GMP, evaluated at the
// primitive 2N-th roots zeta^(5^j): slot j must be values[j] * scale.
void check_against_definition(const std::vector<int>& bits, double scale, double bound_values) {
  std::mt19937_64 rng(4);
  const uint64_t degree = 1024;
  const auto context = context_for(degree, bits);
  const Encoder encoder(context);
  const uint64_t order = 2 * degree;
  std::vector<cld> zeta(order);
  for (uint64_t e = 0; e < order; ++e) {
    const long double angle = std::numbers::pi_v<long double> * e / degree;
    zeta[e] = {std::cos(angle), std::sin(angle)};
  }
  for (std::size_t slots = 1; slots <= degree / 2; slots *= 2) {
    const auto values = random_complex(slots, rng, bound_values);
    auto plain = encoder.encode(values, scale, context->max_level(), slots);
    plain.poly.intt();
    const auto coefficients = centered_coefficients(plain.poly);
    const std::size_t gap = degree / (2 * slots);
    for (std::size_t k = 0; k < degree; ++k) {
      if (k % gap != 0) ASSERT_EQ(mpz_sgn(coefficients[k].v), 0) << "k=" << k;
    }
    long double worst = 0;
    uint64_t five_j = 1;
    for (std::size_t j = 0; j < slots; ++j) {
      cld sum = 0;
      for (std::size_t k = 0; k < degree; k += gap)
        sum += to_long_double(coefficients[k]) * zeta[five_j * k % order];
      const cld expected(values[j].real() * static_cast<long double>(scale),
                         values[j].imag() * static_cast<long double>(scale));
      worst = std::max(worst, std::abs(sum - expected));
      five_j = five_j * 5 % order;
    }
    // Rounding: at most n in coefficient units; FFT and the long-double sum:
    // far below 1e-12 of the largest slot value times the scale.
    const long double bound = slots + 1e-12L * scale * bound_values;
    EXPECT_LE(worst, bound) << "slots=" << slots << " scale=" << scale;
  }
}

TEST(CkksEncoder, EncodingMatchesTheCanonicalEmbeddingDefinition) {
  check_against_definition({60, 40, 40}, std::ldexp(1.0, 30), 1);
  check_against_definition({60, 40, 40}, std::ldexp(1.0, 40), 1000);
}

TEST(CkksEncoder, EncodingBeyondTwoTo63MatchesTheDefinition) {
  check_against_definition({60, 60, 60}, std::ldexp(1.0, 70), 1);
  check_against_definition({60, 60, 60}, std::ldexp(1.0, 150), 4);
}

// Coefficients far above 2^63 take every decoding path: the candidate from
// tower 0 fails, the 128-bit prefix (scale 2^70, 2^100) or the full
// mixed-radix reconstruction (scale 2^150, 2^250) takes over.
TEST(CkksEncoder, LargeScalesRoundTrip) {
  std::mt19937_64 rng(5);
  const struct {
    std::vector<int> bits;
    int log_scale;
  } cases[] = {{{60, 60, 60}, 70},
               {{60, 60, 60}, 100},
               {{60, 60, 60}, 150},
               {{60, 60, 60, 60, 60}, 250},
               {{30, 30, 30, 30, 30, 30, 30, 30}, 100}};
  for (const auto& c : cases) {
    const auto context = context_for(4096, c.bits);
    const Encoder encoder(context);
    const double scale = std::ldexp(1.0, c.log_scale);
    const auto values = random_complex(2048, rng);
    const double error =
        max_error(encoder.decode(encoder.encode(values, scale, context->max_level())), values);
    std::printf("scale 2^%d over %zu primes: log2 max error %.1f\n", c.log_scale, c.bits.size(),
                std::log2(error));
    EXPECT_LE(error, round_trip_bound(2048, scale)) << "scale 2^" << c.log_scale;
  }
}

// Encoding cuts the coefficients into slices (of 4096) to convert them to
// integers, and each slice finds its own largest value and whether any lies
// beyond 2^63. Here the first half of the coefficients (the real parts of
// u = inverse FFT of the slots) stay small and only the second half (the
// imaginary parts) is large: beyond 2^63 (scale 2^70), or below 2^63 but
// above the 30-bit primes (scale 2^45). The slices must pool what they found.
TEST(CkksEncoder, SlicesWithAndWithoutLargeCoefficientsEncodeTogether) {
  std::mt19937_64 rng(9);
  const std::size_t degree = 16384, slots = degree / 2;
  SpecialFft fft(slots);
  const struct {
    std::vector<int> bits;
    int log_scale;
  } cases[] = {{{60, 60, 60}, 70}, {{30, 30, 30, 30, 30, 30, 30, 30}, 45}};
  for (const auto& c : cases) {
    const auto context = context_for(degree, c.bits);
    const Encoder encoder(context);
    const double scale = std::ldexp(1.0, c.log_scale);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<cd> u(slots);
    for (auto& x : u)
      x = {std::ldexp(dist(rng), -20), dist(rng)};
    std::vector<cd> values = u;
    fft.forward(values);
    const auto plain = encoder.encode(values, scale, context->max_level());
    auto coefficients_poly = plain.poly.clone();
    coefficients_poly.intt();
    const auto coefficients = centered_coefficients(coefficients_poly);
    long double worst = 0;
    for (std::size_t k = 0; k < slots; ++k) {
      worst = std::max(worst, std::fabs(to_long_double(coefficients[k]) -
                                        static_cast<long double>(u[k].real()) * scale));
      worst = std::max(worst, std::fabs(to_long_double(coefficients[k + slots]) -
                                        static_cast<long double>(u[k].imag()) * scale));
    }
    // Rounding (1/2) plus the two FFTs' relative error on values up to the scale.
    EXPECT_LE(worst, 0.5L + 1e-12L * scale)
        << "scale 2^" << c.log_scale << ": log2 worst coefficient error " << std::log2(worst);
    double largest = 0;
    for (const cd& v : values)
      largest = std::max(largest, std::abs(v));
    EXPECT_LE(max_error(encoder.decode(plain), values), round_trip_bound(slots, scale, largest))
        << "scale 2^" << c.log_scale;
  }
}

TEST(CkksEncoder, ConstantEncodingMatchesVectorEncoding) {
  const auto context = context_for(2048, {60, 50, 50});
  const Encoder encoder(context);
  for (const cd value : {cd(0.75, 0), cd(-3.25, 0.5), cd(0, -1.5), cd(0, 0)}) {
    for (std::size_t slots : {std::size_t{1}, std::size_t{8}, std::size_t{1024}}) {
      for (std::size_t level : {std::size_t{0}, std::size_t{2}}) {
        for (double scale : {std::ldexp(1.0, 40), std::ldexp(1.0, 100)}) {
          if (level == 0 && scale > 1e20) continue;  // would not fit q_0
          const auto constant = encoder.encode_constant(value, scale, level, slots);
          const auto vector = encoder.encode(std::vector<cd>(slots, value), scale, level, slots);
          EXPECT_EQ(constant.scale, scale);
          EXPECT_EQ(constant.slots, slots);
          EXPECT_TRUE(constant.poly.is_ntt());
          EXPECT_TRUE(constant.poly == vector.poly) << value << " slots=" << slots;
          const auto decoded = encoder.decode(constant);
          EXPECT_LE(max_error(decoded, std::vector<cd>(slots, value)), 1 / scale + 1e-12);
        }
      }
    }
  }
  // Non-representable constants round like vector encoding does.
  const cd third(1.0 / 3, -2.0 / 7);
  const auto decoded = encoder.decode(encoder.encode_constant(third, std::ldexp(1.0, 30), 1));
  EXPECT_LE(max_error(decoded, std::vector<cd>(1024, third)), std::ldexp(1.0, -30));
}

TEST(CkksEncoder, ResultsDoNotDependOnTheThreadCount) {
  std::mt19937_64 rng(8);
  const auto context = context_for(16384, {60, 50, 50, 50, 50, 50, 50, 60});
  const Encoder encoder(context);
  const auto values = random_complex(8192, rng);
  const std::size_t saved = num_threads();
  for (double scale : {std::ldexp(1.0, 40), std::ldexp(1.0, 150)}) {
    set_num_threads(1);
    const auto serial = encoder.encode(values, scale, 7);
    const auto serial_decoded = encoder.decode(serial);
    set_num_threads(4);
    const auto parallel = encoder.encode(values, scale, 7);
    const auto parallel_decoded = encoder.decode(parallel);
    EXPECT_TRUE(serial.poly == parallel.poly);
    EXPECT_EQ(serial_decoded, parallel_decoded);
    EXPECT_LE(max_error(serial_decoded, values), round_trip_bound(8192, scale));
  }
  set_num_threads(saved);
}

TEST(CkksEncoder, BadInputThrowsAndChangesNothing) {
  const auto context = context_for(1024, {60, 50});
  const Encoder encoder(context);
  const double scale = std::ldexp(1.0, 40);
  std::vector<cd> values(8, cd(0.5, -0.25));
  const std::vector<cd> values_before = values;
  std::vector<double> reals(8, 0.5);
  const std::vector<double> reals_before = reals;

  // More values than slots; bad slot counts; level; scales.
  EXPECT_THROW((void)encoder.encode(values, scale, 1, 4), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(reals, scale, 1, 4), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(values, scale, 1, 12), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(values, scale, 1, 1024), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(values, scale, 2), InvalidArgument);
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    EXPECT_THROW((void)encoder.encode(values, bad, 1), InvalidArgument);
    EXPECT_THROW((void)encoder.encode_constant(1.0, bad, 1), InvalidArgument);
  }
  // NaN and infinite values.
  for (double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    std::vector<cd> with_bad = values;
    with_bad[3] = {0, bad};
    EXPECT_THROW((void)encoder.encode(with_bad, scale, 1), InvalidArgument);
    std::vector<double> real_bad = reals;
    real_bad[5] = bad;
    EXPECT_THROW((void)encoder.encode(real_bad, scale, 1), InvalidArgument);
    EXPECT_THROW((void)encoder.encode_constant(cd(bad, 0), scale, 1), InvalidArgument);
  }
  // Coefficients that would wrap modulo Q_l: scale too large for the level,
  // or values so large that values * scale overflows.
  // (Eight equal values in eight slots encode as the constant polynomial.)
  EXPECT_THROW((void)encoder.encode(values, std::ldexp(1.0, 60), 0, 8), InvalidArgument);
  EXPECT_NO_THROW((void)encoder.encode(values, std::ldexp(1.0, 57), 0, 8));
  EXPECT_THROW((void)encoder.encode(values, std::ldexp(1.0, 110), 1, 8), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(std::vector<double>{1e300}, std::ldexp(1.0, 40), 1),
               InvalidArgument);
  EXPECT_THROW((void)encoder.encode(std::vector<double>{1e300}, 1e300, 1), InvalidArgument);
  EXPECT_THROW((void)encoder.encode_constant(1.0, std::ldexp(1.0, 60), 0), InvalidArgument);
  EXPECT_THROW((void)encoder.encode_constant(cd(0, 1e200), scale, 1), InvalidArgument);
  EXPECT_THROW((void)encoder.encode_constant(1.0, scale, 1, 3), InvalidArgument);
  EXPECT_THROW((void)encoder.encode_constant(1.0, scale, 5), InvalidArgument);
  // The boundary is exact: |c| must stay below q_0 / 2.
  const double q0 = static_cast<double>(context->ciphertext_ring()->modulus(0).value());
  EXPECT_THROW((void)encoder.encode_constant(std::ldexp(1.0, 60), 1.0, 0), InvalidArgument);
  EXPECT_NO_THROW((void)encoder.encode_constant(std::floor(q0 / 2) - 4096, 1.0, 0));
  heft::testing::expect_error<InvalidArgument>(
      [&] { (void)encoder.encode(values, std::ldexp(1.0, 60), 0, 8); }, "scale is too large");
  EXPECT_EQ(values, values_before);
  EXPECT_EQ(reals, reals_before);

  // Decoding: another context, empty plaintext, bad slot count or scale.
  const auto other = rlwe::Context::create(context->parameters());
  const Encoder other_encoder(other);
  const auto foreign = other_encoder.encode(values, scale, 1);
  EXPECT_THROW((void)encoder.decode(foreign), MismatchError);
  EXPECT_THROW((void)encoder.decode_real(foreign), MismatchError);
  EXPECT_THROW((void)encoder.decode(rlwe::Plaintext{}), InvalidArgument);
  const auto good = encoder.encode(values, scale, 1);
  for (std::size_t bad_slots : {std::size_t{3}, std::size_t{1024}}) {
    rlwe::Plaintext bad = good.clone();
    bad.slots = bad_slots;
    EXPECT_THROW((void)encoder.decode(bad), InvalidArgument);
  }
  // A slot count of 0 means all N/2 slots, as it does for encode and the
  // evaluator (good has all of them).
  ASSERT_EQ(good.slots, context->degree() / 2);
  rlwe::Plaintext all_slots = good.clone();
  all_slots.slots = 0;
  EXPECT_EQ(encoder.decode(all_slots), encoder.decode(good));
  for (double bad_scale : {0.0, -2.0, std::nan("")}) {
    rlwe::Plaintext bad = good.clone();
    bad.scale = bad_scale;
    EXPECT_THROW((void)encoder.decode(bad), InvalidArgument);
  }
  // A decoded value beyond the double range (scale far too small) is refused.
  rlwe::Plaintext tiny = good.clone();
  tiny.scale = 1e-300;
  EXPECT_THROW((void)encoder.decode(tiny), InvalidArgument);
  const rlwe::Plaintext before = good.clone();
  (void)encoder.decode(good);
  EXPECT_TRUE(good.poly == before.poly);
  EXPECT_THROW(Encoder(nullptr), InvalidArgument);
}

}  // namespace
}  // namespace heft::ckks
