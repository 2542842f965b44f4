// BaseConverter (approximate, exact, exact centered) against big-integer CRT
// reconstruction with GMP, including the inputs on rounding boundaries that
// floating-point HPS conversion gets wrong, and bases large enough to need
// the lazy 128-bit reductions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "heft/math/kernels.hpp"
#include "heft/ring/base_converter.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/util/parallel.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::BigInt;
using testing::GmpRandom;
using testing::product_of;

struct Case {
  RnsBase from, to;
  std::vector<BigInt> values;  // x in [0, Q), one per coefficient
};

// Values that sit on the rounding points of exact conversion (0 and Q for
// floor, +-Q/2 for centered), the value with every y_i = q_i - 1 (largest
// accumulator sums, alpha = L - 1), then uniform ones, `degree` in all.
std::vector<BigInt> test_values(const RnsBase& base, std::size_t degree, GmpRandom& random) {
  const BigInt q = product_of(base);
  std::vector<BigInt> values;
  // x = -sum_j Q/q_j mod Q has x_i = -(Q/q_i) mod q_i, so y_i = -1 mod q_i.
  BigInt all_maximal(0);
  for (std::size_t j = 0; j < base.size(); ++j) {
    BigInt qj(base[j].value()), punctured;
    mpz_divexact(punctured.get(), q.get(), qj.get());
    mpz_sub(all_maximal.get(), all_maximal.get(), punctured.get());
  }
  mpz_mod(all_maximal.get(), all_maximal.get(), q.get());
  values.push_back(all_maximal);
  BigInt half;
  mpz_fdiv_q_2exp(half.get(), q.get(), 1);
  for (long offset : {0L, 1L, 2L, 3L, 1000L}) {
    BigInt low(static_cast<uint64_t>(offset)), high, mid_plus, mid_minus;
    mpz_sub_ui(high.get(), q.get(), static_cast<unsigned long>(offset + 1));
    mpz_add_ui(mid_plus.get(), half.get(), static_cast<unsigned long>(offset));
    mpz_sub_ui(mid_minus.get(), half.get(), static_cast<unsigned long>(offset));
    for (const BigInt* v : {&low, &high, &mid_plus, &mid_minus}) {
      if (mpz_sgn(v->get()) >= 0 && mpz_cmp(v->get(), q.get()) < 0) values.push_back(*v);
    }
  }
  values.resize(std::min(values.size(), degree));
  while (values.size() < degree)
    values.push_back(random.below(q));
  return values;
}

std::vector<uint64_t> to_towers(const RnsBase& base, const std::vector<BigInt>& values) {
  const std::size_t n = values.size();
  std::vector<uint64_t> towers(base.size() * n);
  for (std::size_t i = 0; i < base.size(); ++i) {
    for (std::size_t c = 0; c < n; ++c)
      towers[i * n + c] = values[c].mod(base[i].value());
  }
  return towers;
}

// Z = sum_i [x_i * (Q/q_i)^-1]_{q_i} * (Q/q_i), computed independently with
// GMP; `centred`: each [.]_{q_i} taken in [-floor(q_i/2), q_i - floor(q_i/2)).
BigInt fast_conversion_sum(const RnsBase& base, const BigInt& x, bool centred = false) {
  const BigInt q = product_of(base);
  BigInt sum(0);
  for (std::size_t i = 0; i < base.size(); ++i) {
    BigInt qi(base[i].value()), punctured, inverse, y;
    mpz_divexact(punctured.get(), q.get(), qi.get());
    mpz_invert(inverse.get(), punctured.get(), qi.get());
    BigInt xi(x.mod(base[i].value()));
    mpz_mul(y.get(), xi.get(), inverse.get());
    mpz_mod(y.get(), y.get(), qi.get());
    if (centred && mpz_cmp_ui(y.get(), base[i].value() - (base[i].value() >> 1)) >= 0) {
      mpz_sub(y.get(), y.get(), qi.get());
    }
    mpz_addmul(sum.get(), y.get(), punctured.get());
  }
  return sum;
}

// The input converted in each of the four modes.
struct AllModes {
  std::vector<uint64_t> approximate, exact, centered, approximate_centered;
};

AllModes convert_all_modes(const BaseConverter& converter, const std::vector<uint64_t>& input,
                           std::size_t n) {
  const std::size_t size = converter.to().size() * n;
  AllModes out{std::vector<uint64_t>(size), std::vector<uint64_t>(size),
               std::vector<uint64_t>(size), std::vector<uint64_t>(size)};
  converter.convert_approximate(input, out.approximate, n);
  converter.convert_approximate_centered(input, out.approximate_centered, n);
  converter.convert_exact(input, out.exact, n);
  converter.convert_exact_centered(input, out.centered, n);
  return out;
}

void check_all_modes(const RnsBase& from, const RnsBase& to, const std::vector<BigInt>& values) {
  const std::size_t n = values.size();
  const BigInt q = product_of(from);
  BigInt half;
  mpz_fdiv_q_2exp(half.get(), q.get(), 1);
  const BaseConverter converter(from, to);
  const auto [approximate, exact, centered, approximate_centered] =
      convert_all_modes(converter, to_towers(from, values), n);

  for (std::size_t c = 0; c < n; ++c) {
    const BigInt& x = values[c];
    // Approximate: the output is (x + alpha Q) mod p_j for one alpha in [0, L).
    const BigInt z = fast_conversion_sum(from, x);
    BigInt alpha, remainder;
    mpz_fdiv_qr(alpha.get(), remainder.get(), z.get(), q.get());
    ASSERT_EQ(mpz_cmp(remainder.get(), x.get()), 0);
    ASSERT_GE(mpz_sgn(alpha.get()), 0);
    ASSERT_LT(mpz_cmp_ui(alpha.get(), from.size()), 0);
    // Centered representative: x - Q if x > Q/2 (with Q odd, (-Q/2, Q/2]).
    BigInt signed_x = x;
    if (mpz_cmp(x.get(), half.get()) > 0) mpz_sub(signed_x.get(), x.get(), q.get());
    // Approximate centred: Z' = x + beta Q with |beta| <= L / 2, output
    // Z' + C, C = sum_i floor(q_i / 2) (Q/q_i) (the offset it reports).
    const BigInt z_centred = fast_conversion_sum(from, x, true);
    BigInt beta, excess;
    mpz_sub(excess.get(), z_centred.get(), x.get());
    ASSERT_TRUE(mpz_divisible_p(excess.get(), q.get()));
    mpz_divexact(beta.get(), excess.get(), q.get());
    ASSERT_LE(2 * std::abs(mpz_get_si(beta.get())), static_cast<long>(from.size()) + 1);
    for (std::size_t j = 0; j < to.size(); ++j) {
      const uint64_t p = to[j].value();
      BigInt shifted;
      mpz_addmul(shifted.get(), alpha.get(), q.get());
      mpz_add(shifted.get(), shifted.get(), x.get());
      ASSERT_EQ(approximate[j * n + c], shifted.mod(p)) << "coefficient " << c << " tower " << j;
      ASSERT_EQ(exact[j * n + c], x.mod(p)) << "coefficient " << c << " tower " << j;
      ASSERT_EQ(centered[j * n + c], signed_x.mod(p)) << "coefficient " << c << " tower " << j;
      ASSERT_EQ(to[j].sub(approximate_centered[j * n + c], converter.centering_offsets()[j]),
                z_centred.mod(p))
          << "coefficient " << c << " tower " << j;
    }
  }
}

TEST(BaseConverter, AllModesMatchGmpForManyBaseShapes) {
  GmpRandom random(10);
  for (std::size_t from_count = 1; from_count <= 8; ++from_count) {
    for (std::size_t to_count : {1, 3, 8}) {
      for (int bits : {30, 45, 60}) {
        std::vector<uint64_t> from_values = random.primes(bits, from_count);
        const std::set<uint64_t> used(from_values.begin(), from_values.end());
        const int to_bits = bits == 60 ? 31 : 60;  // also mix sizes across the bases
        const RnsBase from = RnsBase::from_values(from_values);
        const RnsBase to = RnsBase::from_values(random.primes(to_bits, to_count, used));
        SCOPED_TRACE("L=" + std::to_string(from_count) + " K=" + std::to_string(to_count) +
                     " bits=" + std::to_string(bits));
        check_all_modes(from, to, test_values(from, 50, random));  // 50: a partial group of four
      }
    }
  }
}

TEST(BaseConverter, TargetMayShareModuliWithSource) {
  GmpRandom random(11);
  const std::vector<uint64_t> source = random.primes(50, 4);
  std::vector<uint64_t> target = random.primes(40, 2, {source.begin(), source.end()});
  target.push_back(source[2]);
  target.push_back(source[0]);
  const RnsBase from = RnsBase::from_values(source);
  check_all_modes(from, RnsBase::from_values(target), test_values(from, 64, random));
}

// A scaled converter (input factor f, output factors s_j) against GMP:
// exact and centered outputs are s_j [f x]_Q mod p_j, the approximate ones
// s_j ([f x]_Q + alpha Q) mod p_j for the alpha of [f x]_Q's own sum. Factors
// include 0, 1, a multiple of a source prime and full 64-bit words.
// A scaled converter's three modes against [f x]_Q (and its centred and
// alpha-shifted forms) times s_j, computed with GMP.
void check_scaled(const BaseConverter& converter, const BigInt& factor,
                  const std::vector<uint64_t>& output_factors, GmpRandom& random) {
  const RnsBase& from = converter.from();
  const RnsBase& to = converter.to();
  const BigInt q = product_of(from);
  BigInt half;
  mpz_fdiv_q_2exp(half.get(), q.get(), 1);
  const std::vector<BigInt> values = test_values(from, 40, random);
  const std::size_t n = values.size();
  const auto [approximate, exact, centered, approximate_centered] =
      convert_all_modes(converter, to_towers(from, values), n);
  for (std::size_t c = 0; c < n; ++c) {
    BigInt x;
    mpz_mul(x.get(), values[c].get(), factor.get());
    mpz_mod(x.get(), x.get(), q.get());  // [f x]_Q
    BigInt signed_x = x;
    if (mpz_cmp(x.get(), half.get()) > 0) mpz_sub(signed_x.get(), x.get(), q.get());
    const BigInt z = fast_conversion_sum(from, x);  // x + alpha Q
    const BigInt z_centred = fast_conversion_sum(from, x, true);
    for (std::size_t j = 0; j < to.size(); ++j) {
      const math::Modulus& p = to[j];
      const uint64_t s = p.reduce(output_factors[j]);
      SCOPED_TRACE("c=" + std::to_string(c) + " j=" + std::to_string(j));
      ASSERT_EQ(exact[j * n + c], p.mul(s, x.mod(p.value())));
      ASSERT_EQ(centered[j * n + c], p.mul(s, signed_x.mod(p.value())));
      ASSERT_EQ(approximate[j * n + c], p.mul(s, z.mod(p.value())));
      ASSERT_EQ(p.sub(approximate_centered[j * n + c], converter.centering_offsets()[j]),
                p.mul(s, z_centred.mod(p.value())));
    }
  }
}

TEST(BaseConverter, ScaledConversionFoldsBothFactors) {
  GmpRandom random(14);
  for (int bits : {45, 60}) {
    const std::vector<uint64_t> source = random.primes(bits, 5);
    const RnsBase from = RnsBase::from_values(source);
    const RnsBase to = RnsBase::from_values(random.primes(50, 3, {source.begin(), source.end()}));
    for (uint64_t factor : {uint64_t{1}, uint64_t{65537}, source[1] * 3, ~uint64_t{0}}) {
      SCOPED_TRACE("bits=" + std::to_string(bits) + " f=" + std::to_string(factor));
      const BaseConverter::Scaling scaling{factor, {0, 1, 0xfedcba9876543210ULL}};
      check_scaled(BaseConverter(from, to, scaling), BigInt(factor), scaling.output_factors,
                   random);
    }
  }
  EXPECT_THROW(BaseConverter(RnsBase::from_values(random.primes(40, 2)),
                             RnsBase::from_values(random.primes(41, 2)), {1, {1, 2, 3}}),
               MismatchError);
}

TEST(BaseConverter, ScaledConversionTakesAWideFactorByItsResidues) {
  // f = the target base's product, as BFV's multiplication scales by R / Q.
  GmpRandom random(15);
  const std::vector<uint64_t> source = random.primes(55, 6);
  const RnsBase from = RnsBase::from_values(source);
  const RnsBase to = RnsBase::from_values(random.primes(50, 7, {source.begin(), source.end()}));
  const BigInt factor = product_of(to);
  BaseConverter::Scaling scaling{1, {3, 0, 1, 5, 7, 11, 13}, {}};
  for (const uint64_t q : source)
    scaling.input_factors.push_back(factor.mod(q));
  check_scaled(BaseConverter(from, to, scaling), factor, scaling.output_factors, random);
  scaling.input_factors.pop_back();
  EXPECT_THROW(BaseConverter(from, to, scaling), MismatchError);
}

TEST(BaseConverter, ManyModuliExerciseLazyReduction) {
  // 300 moduli of 61 bits: only 2^128 / (2^61 * 2^61) = 64 worst-case
  // products fit in an accumulator, and 300 typical ones (about 2^120 each)
  // overflow it, so the sum over the source base must be reduced part way.
  GmpRandom random(12);
  const RnsBase from = RnsBase::from_values(random.primes(61, 300));
  const RnsBase to = RnsBase::from_values(random.primes(61, 2));
  check_all_modes(from, to, test_values(from, 26, random));
}

TEST(BaseConverter, SameResultAtEveryIsaAndThreadCount) {
  GmpRandom random(13);
  const RnsBase from = RnsBase::from_values(random.primes(50, 6));
  const RnsBase to = RnsBase::from_values(random.primes(49, 5));
  const std::size_t n = 4096;  // big enough to take the parallel path
  const std::vector<uint64_t> input = to_towers(from, test_values(from, n, random));
  const BaseConverter converter(from, to);
  std::vector<uint64_t> reference(to.size() * n);
  const math::Isa original_isa = math::active_isa();
  const std::size_t original_threads = num_threads();
  set_num_threads(1);
  math::set_isa(math::Isa::scalar);
  converter.convert_exact_centered(input, reference, n);
  for (math::Isa isa : math::supported_isas()) {
    for (std::size_t threads : {1, 2, 3}) {
      math::set_isa(isa);
      set_num_threads(threads);
      std::vector<uint64_t> output(to.size() * n);
      converter.convert_exact_centered(input, output, n);
      EXPECT_EQ(output, reference) << math::to_string(isa) << " threads " << threads;
    }
  }
  math::set_isa(original_isa);
  set_num_threads(original_threads);
}

TEST(BaseConverter, ConvertsIntoScatteredTowers) {
  // Output towers at their own addresses, in reverse memory order and with
  // gaps: each must equal the contiguous conversion's tower.
  GmpRandom random(15);
  const RnsBase from = RnsBase::from_values(random.primes(50, 3));
  const RnsBase to = RnsBase::from_values(random.primes(45, 4));
  const std::size_t n = 300;
  const std::vector<uint64_t> input = to_towers(from, test_values(from, n, random));
  const BaseConverter converter(from, to);
  std::vector<uint64_t> contiguous(to.size() * n);
  converter.convert_approximate(input, contiguous, n);
  std::vector<uint64_t> storage(2 * to.size() * n, 0);
  std::vector<uint64_t*> towers;
  for (std::size_t j = 0; j < to.size(); ++j)
    towers.push_back(storage.data() + (2 * (to.size() - 1 - j) + 1) * n);
  converter.convert_approximate(input, towers, n);
  for (std::size_t j = 0; j < to.size(); ++j) {
    EXPECT_TRUE(std::equal(towers[j], towers[j] + n, contiguous.begin() + j * n)) << "tower " << j;
    const uint64_t* gap = towers[j] - n;
    EXPECT_TRUE(std::all_of(gap, gap + n, [](uint64_t v) { return v == 0; })) << "gap " << j;
  }
  // A tower count that differs from the target base, a null or an
  // overlapping tower: refused.
  EXPECT_THROW(converter.convert_approximate(input, std::span(towers).first(3), n), MismatchError);
  std::vector<uint64_t*> bad = towers;
  bad[1] = nullptr;
  EXPECT_THROW(converter.convert_approximate(input, bad, n), InvalidArgument);
  std::vector<uint64_t> shared = input;
  bad = towers;
  bad[2] = shared.data() + n;
  EXPECT_THROW(converter.convert_approximate(shared, bad, n), InvalidArgument);
}

TEST(BaseConverter, RejectsBadSpansWithoutWriting) {
  const std::vector<uint64_t> from_values = {97, 113}, to_values = {193};
  const BaseConverter converter(RnsBase::from_values(from_values), RnsBase::from_values(to_values));
  std::vector<uint64_t> input(2 * 8, 1), output(8, 7);
  const std::vector<uint64_t> untouched = output;
  EXPECT_THROW(converter.convert_exact(std::span(input).first(15), output, 8), MismatchError);
  EXPECT_THROW(converter.convert_exact(input, std::span(output).first(7), 8), MismatchError);
  EXPECT_THROW(converter.convert_approximate(input, output, 0), InvalidArgument);
  // A degree for which towers * degree wraps to the span sizes used to pass
  // the size checks and overrun both spans.
  const std::vector<uint64_t> two_targets = {193, 257};
  const BaseConverter wide(RnsBase::from_values(from_values), RnsBase::from_values(two_targets));
  std::vector<uint64_t> output8(8, 7);
  EXPECT_THROW(wide.convert_exact(std::span(input).first(8), output8, (std::size_t{1} << 63) + 4),
               MismatchError);
  EXPECT_EQ(output8, std::vector<uint64_t>(8, 7));
  // Output towers that overlap each other.
  std::vector<uint64_t> towers_storage(12, 7);
  uint64_t* const overlapping[] = {towers_storage.data(), towers_storage.data() + 4};
  EXPECT_THROW(wide.convert_approximate(input, overlapping, 8), InvalidArgument);
  EXPECT_EQ(towers_storage, std::vector<uint64_t>(12, 7));
  EXPECT_EQ(output, untouched);
  std::vector<uint64_t> shared(3 * 8, 1);
  EXPECT_THROW(
      converter.convert_exact(std::span(shared).first(16), std::span(shared).subspan(8, 8), 8),
      InvalidArgument);
}

TEST(BaseConverter, ConvertsPolynomialsBetweenContexts) {
  const uint64_t n = 64;
  const std::vector<math::Modulus> all = math::generate_ntt_primes(45, n, 5);
  const auto source = PolyContext::create(n, RnsBase({all[0], all[1], all[2]}));
  const auto target = PolyContext::create(n, RnsBase({all[3], all[4]}));
  GmpRandom random(14);
  const std::vector<BigInt> values = test_values(source->base(), n, random);
  RnsPoly input(source, 3);
  const std::vector<uint64_t> towers = to_towers(source->base(), values);
  std::copy(towers.begin(), towers.end(), input.data().begin());
  RnsPoly output(target, 2, Form::ntt);
  const BaseConverter converter(source->base(), target->base());
  converter.convert_exact(input, output);
  EXPECT_EQ(output.form(), Form::coefficient);
  for (std::size_t j = 0; j < 2; ++j) {
    for (std::size_t c = 0; c < n; ++c) {
      ASSERT_EQ(output.tower(j)[c], values[c].mod(all[3 + j].value()));
    }
  }

  // Wrong towers, wrong form, wrong direction: MismatchError, output untouched.
  const RnsPoly before = output.clone();
  RnsPoly short_input(source, 2);
  EXPECT_THROW(converter.convert_exact(short_input, output), MismatchError);
  EXPECT_THROW(converter.convert_exact(output, input), MismatchError);
  input.ntt();
  EXPECT_THROW(converter.convert_exact(input, output), MismatchError);
  EXPECT_TRUE(output == before);
}

}  // namespace
}  // namespace heft::ring
