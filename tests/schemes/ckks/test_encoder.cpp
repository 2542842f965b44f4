// The CKKS encoder against independent oracles: encode/decode round trips
// with a stated error bound; the encoded polynomial, rebuilt with GMP and
// evaluated directly at zeta_2N^(5^j) in long double (O(N^2)); decoding of
// hand-made coefficients (beyond 2^63, near +-q_0/2, near +-Q/2) against GMP;
// the randomized tower agreement test that lets decoding skip inverse NTTs
// (its weights against direct sums, right and wrong guesses);
// constant encoding against vector encoding; every documented error case,
// with the inputs left as they were.
#include <gmp.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/kernels.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "schemes/ckks/tower_agreement_check.hpp"

namespace heft::ckks {
namespace {

using cd = std::complex<double>;
using cld = std::complex<long double>;

// Contexts are cached: prime generation and NTT tables dominate otherwise.
std::shared_ptr<const rlwe::Context> context_for(uint64_t degree, const std::vector<int>& bits) {
  static std::map<std::pair<uint64_t, std::vector<int>>, std::shared_ptr<const rlwe::Context>>
      cache;
  auto& slot = cache[{degree, bits}];
  if (!slot) {
    slot = rlwe::Context::create(
        rlwe::make_parameters(degree, bits, {}, 0, rlwe::SecurityLevel::none));
  }
  return slot;
}

std::vector<cd> random_complex(std::size_t n, std::mt19937_64& rng, double bound = 1) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<cd> v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

std::vector<double> random_real(std::size_t n, std::mt19937_64& rng, double bound = 1) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<double> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// RAII wrapper so the GMP helpers below stay short.
struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  explicit Mpz(long x) { mpz_init_set_si(v, x); }
  Mpz(const Mpz& o) { mpz_init_set(v, o.v); }
  Mpz& operator=(const Mpz& o) {
    mpz_set(v, o.v);
    return *this;
  }
  ~Mpz() { mpz_clear(v); }
};

Mpz modulus_product(const ring::PolyContext& ring, std::size_t towers) {
  Mpz q(1);
  for (std::size_t i = 0; i < towers; ++i)
    mpz_mul_ui(q.v, q.v, ring.modulus(i).value());
  return q;
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

// x to long double from its top 64 bits (truncated): relative error < 2^-63.
long double to_long_double(const Mpz& x) {
  const std::size_t bits = mpz_sizeinbase(x.v, 2);
  const unsigned long shift = bits > 64 ? bits - 64 : 0;
  Mpz top;
  mpz_tdiv_q_2exp(top.v, x.v, shift);
  const long double magnitude =
      std::ldexp(static_cast<long double>(mpz_get_ui(top.v)), static_cast<int>(shift));
  return mpz_sgn(x.v) < 0 ? -magnitude : magnitude;
}

// A coefficient-form plaintext polynomial with the given integer coefficients.
ring::RnsPoly poly_from_integers(const std::shared_ptr<const ring::PolyContext>& ring,
                                 std::size_t towers, const std::vector<Mpz>& coefficients) {
  ring::RnsPoly poly(ring, towers);
  for (std::size_t i = 0; i < towers; ++i) {
    const uint64_t qi = ring->modulus(i).value();
    for (std::size_t k = 0; k < coefficients.size(); ++k)
      poly.tower(i)[k] = mpz_fdiv_ui(coefficients[k].v, qi);
  }
  return poly;
}

double max_error(const std::vector<cd>& a, const std::vector<cd>& b) {
  double e = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    e = std::max(e, std::abs(a[k] - b[k]));
  return e;
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

// The weights of TowerAgreementCheck satisfy their defining identity
// sum_k r_k NTT(x)_k = sum_j c_j x_j (mod q_i) for random x, checked with
// direct 128-bit sums; the pair counts give 2^-64.
TEST(TowerAgreementCheck, WeightsSatisfyTheLinearIdentity) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const auto& ring = context->ciphertext_ring();
  const detail::TowerAgreementCheck check(ring);
  std::mt19937_64 rng(11);
  for (std::size_t i = 1; i < ring->tower_count(); ++i) {
    const math::Modulus& q = ring->modulus(i);
    const int floor_log2 = std::bit_width(q.value()) - 1;
    const int bits_per_pair = q.value() > (uint64_t{1} << 32) ? 32 : floor_log2 - 1;
    EXPECT_GE(static_cast<int>(check.pair_count(i)) * bits_per_pair, 64) << "tower " << i;
    EXPECT_LT((static_cast<int>(check.pair_count(i)) - 1) * bits_per_pair, 64) << "tower " << i;
    for (std::size_t p = 0; p < check.pair_count(i); ++p) {
      const auto c = check.coefficient_weights(p);
      const auto r = check.ntt_weights(i, p);
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<uint64_t> x(degree);
        for (auto& v : x)
          v = rng() % q.value();
        std::vector<uint64_t> transformed = x;
        math::ntt_forward(std::span<uint64_t>(transformed), ring->ntt_tables(i));
        unsigned __int128 left = 0, right = 0;
        for (std::size_t k = 0; k < degree; ++k) {
          ASSERT_LT(r[k], q.value());
          left = (left + static_cast<unsigned __int128>(r[k]) * transformed[k]) % q.value();
          right = (right + static_cast<unsigned __int128>(c[k]) * x[k]) % q.value();
        }
        ASSERT_EQ(static_cast<uint64_t>(left), static_cast<uint64_t>(right))
            << "tower " << i << " pair " << p;
      }
    }
  }
  EXPECT_THROW((void)check.ntt_weights(0, 0), InvalidArgument);
  EXPECT_THROW((void)check.ntt_weights(ring->tower_count(), 0), InvalidArgument);
  EXPECT_THROW((void)check.guess_sums(std::vector<uint64_t>(degree - 1)), InvalidArgument);
}

// A right guess agrees with every tower; a guess that is wrong by a multiple
// of q_0 (a coefficient beyond q_0/2), and a tower changed in one NTT value,
// are caught.
TEST(TowerAgreementCheck, AcceptsTheRightGuessAndCatchesWrongOnes) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const auto& ring = context->ciphertext_ring();
  const std::size_t towers = ring->tower_count();
  const detail::TowerAgreementCheck check(ring);
  const uint64_t q0 = ring->modulus(0).value();
  std::mt19937_64 rng(12);
  std::vector<Mpz> coefficients(degree);
  for (auto& x : coefficients)
    mpz_set_si(x.v, static_cast<long>(rng() % (q0 / 2)) * (rng() % 2 == 0 ? 1 : -1));
  const auto agree_everywhere = [&](const ring::RnsPoly& poly) {
    ring::RnsPoly tower0 = poly.clone();
    tower0.intt();
    const auto sums = check.guess_sums(tower0.tower(0));
    bool all = true;
    for (std::size_t i = 1; i < towers; ++i)
      all = check.agrees(i, poly.tower(i), sums) && all;
    return all;
  };
  ring::RnsPoly right = poly_from_integers(ring, towers, coefficients);
  right.ntt();
  EXPECT_TRUE(agree_everywhere(right));

  for (long shift : {1L, -1L, 3L}) {  // coefficient 7 moved by shift * q_0
    std::vector<Mpz> moved = coefficients;
    Mpz delta;
    mpz_set_ui(delta.v, q0);
    mpz_mul_si(delta.v, delta.v, shift);
    mpz_add(moved[7].v, moved[7].v, delta.v);
    ring::RnsPoly wrong = poly_from_integers(ring, towers, moved);
    wrong.ntt();
    EXPECT_FALSE(agree_everywhere(wrong)) << "shift " << shift;
  }
  for (std::size_t i = 1; i < towers; ++i) {
    ring::RnsPoly changed = right.clone();
    changed.tower(i)[degree / 3] = ring->modulus(i).add(changed.tower(i)[degree / 3], 1);
    ring::RnsPoly tower0 = right.clone();
    tower0.intt();
    EXPECT_FALSE(check.agrees(i, changed.tower(i), check.guess_sums(tower0.tower(0))))
        << "tower " << i;
  }
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
