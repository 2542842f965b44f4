// Samplers: the statistical shape of every distribution, determinism per
// seed, how uniform sampling consumes the stream, and consistent reduction of
// one integer polynomial into every tower.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "heft/ring/samplers.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::counting_seed;
using testing::make_context;

// Pearson chi-square statistic of observed counts against equal expectations.
double chi_square_uniform(const std::vector<int>& counts) {
  double total = 0;
  for (int c : counts)
    total += c;
  const double expected = total / static_cast<double>(counts.size());
  double statistic = 0;
  for (int c : counts)
    statistic += (c - expected) * (c - expected) / expected;
  return statistic;
}

TEST(Samplers, UniformIsUniformInEveryTower) {
  // A 17-element field (N = 8, 17 = 1 mod 16) shows rejection bias directly:
  // values are 5-bit draws, 15 of 32 rejected. Plus 50-bit moduli, bucketed.
  {
    const auto context = PolyContext::create(8, RnsBase::from_values(std::vector<uint64_t>{17}));
    Prng prng(counting_seed(2));
    std::vector<int> counts(17, 0);
    RnsPoly poly(context, 1);
    for (int round = 0; round < 8192; ++round) {
      sample_uniform(prng, poly);
      for (uint64_t v : poly.tower(0))
        counts[v]++;
    }
    // 16 degrees of freedom: the 99.99th percentile is about 42.
    EXPECT_LT(chi_square_uniform(counts), 42.0);
  }
  const auto context = make_context(4096, 3, 50);
  Prng prng(counting_seed(3));
  RnsPoly poly(context, 3, Form::ntt);
  std::vector<std::vector<int>> counts(3, std::vector<int>(64, 0));
  for (int round = 0; round < 16; ++round) {
    sample_uniform(prng, poly);
    for (std::size_t i = 0; i < 3; ++i) {
      const double q = static_cast<double>(context->modulus(i).value());
      for (uint64_t v : poly.tower(i)) {
        ASSERT_LT(v, context->modulus(i).value());
        counts[i][static_cast<std::size_t>(static_cast<double>(v) / q * 64)]++;
      }
    }
  }
  EXPECT_EQ(poly.form(), Form::ntt);
  EXPECT_FALSE(poly.is_secret());
  // 63 degrees of freedom: the 99.99th percentile is about 113.
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_LT(chi_square_uniform(counts[i]), 113.0);
  // Towers are sampled independently, not from one integer.
  EXPECT_FALSE(std::equal(poly.tower(0).begin(), poly.tower(0).end(), poly.tower(1).begin()));
}

// The definition serialized seeds rely on: each value is the first
// next_u64() draw (masked to the prime's bit width) below q, towers in order,
// and the stream is left exactly after the last accepted draw. The 17-element
// prime 65537 (17-bit draws) rejects almost half of them, so blocks and
// rejections interleave.
TEST(Samplers, UniformConsumesTheStreamOneWordPerDraw) {
  for (const uint64_t q : {uint64_t{65537}, uint64_t{40961}}) {
    const auto context = PolyContext::create(
        4096, RnsBase::from_values(std::vector<uint64_t>{q, q == 65537 ? 40961u : 65537u}));
    Prng bulk(counting_seed(9)), reference(counting_seed(9));
    RnsPoly poly(context, 2);
    sample_uniform(bulk, poly);
    for (std::size_t i = 0; i < 2; ++i) {
      const uint64_t qi = context->modulus(i).value();
      const uint64_t mask = (uint64_t{1} << context->modulus(i).bit_count()) - 1;
      for (uint64_t v : poly.tower(i)) {
        uint64_t draw = reference.next_u64() & mask;
        while (draw >= qi)
          draw = reference.next_u64() & mask;
        ASSERT_EQ(v, draw);
      }
    }
    EXPECT_EQ(bulk.next_u64(), reference.next_u64());
  }
}

TEST(Samplers, TernaryIsOneThirdEach) {
  Prng prng(counting_seed(4));
  std::vector<int64_t> values(1 << 16);
  sample_ternary(prng, values);
  std::vector<int> counts(3, 0);
  for (int64_t v : values) {
    ASSERT_GE(v, -1);
    ASSERT_LE(v, 1);
    counts[v + 1]++;
  }
  EXPECT_LT(chi_square_uniform(counts), 18.0);  // 2 degrees of freedom, p ~ 1e-4
}

TEST(Samplers, SparseTernaryHasExactHammingWeight) {
  Prng prng(counting_seed(5));
  const std::size_t n = 1024;
  std::vector<int64_t> values(n, 42);
  std::vector<int> position_hits(n, 0);
  int plus = 0, minus = 0;
  for (std::size_t weight : {0, 1, 64, 192, 1024}) {
    for (int round = 0; round < 20; ++round) {
      sample_sparse_ternary(prng, weight, values);
      std::size_t nonzero = 0;
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_GE(values[k], -1);
        ASSERT_LE(values[k], 1);
        if (values[k] != 0) {
          ++nonzero;
          position_hits[k]++;
          (values[k] > 0 ? plus : minus)++;
        }
      }
      ASSERT_EQ(nonzero, weight);
    }
  }
  // Signs balanced, every position reachable.
  EXPECT_NEAR(plus, minus, 5 * std::sqrt(plus + minus));
  EXPECT_TRUE(std::all_of(position_hits.begin(), position_hits.end(), [](int h) { return h > 0; }));
  EXPECT_THROW(sample_sparse_ternary(prng, n + 1, values), InvalidArgument);
}

// The positions of the nonzero values are uniform (chi-square over positions,
// fixed seed) and each sign is equally likely there, also for lengths that
// are not powers of two (padding of the sorting network).
TEST(Samplers, SparseTernaryPositionsAreUniform) {
  Prng prng(counting_seed(15));
  for (std::size_t n : {64, 100}) {
    const std::size_t weight = 8, rounds = 4000;
    std::vector<int64_t> values(n);
    std::vector<double> hits(n, 0.0);
    double plus = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
      sample_sparse_ternary(prng, weight, values);
      for (std::size_t k = 0; k < n; ++k) {
        if (values[k] != 0) hits[k] += 1;
        if (values[k] > 0) plus += 1;
      }
    }
    const double expected = static_cast<double>(rounds * weight) / static_cast<double>(n);
    double chi_square = 0;
    for (double h : hits)
      chi_square += (h - expected) * (h - expected) / expected;
    // n - 1 degrees of freedom; the bound is far in the tail (p < 1e-6).
    const double dof = static_cast<double>(n - 1);
    EXPECT_LT(chi_square, dof + 7 * std::sqrt(2 * dof)) << "n=" << n;
    EXPECT_NEAR(plus / static_cast<double>(rounds * weight), 0.5, 0.02) << "n=" << n;
  }
}

TEST(Samplers, GaussianHasSigma319AndBound19) {
  Prng prng(counting_seed(6));
  const std::size_t count = 1 << 16;
  std::vector<int64_t> values(count);
  sample_gaussian(prng, values);
  double sum = 0, sum_squares = 0;
  int64_t largest = 0;
  std::map<int64_t, int> histogram;
  for (int64_t v : values) {
    sum += static_cast<double>(v);
    sum_squares += static_cast<double>(v * v);
    largest = std::max<int64_t>(largest, v < 0 ? -v : v);
    histogram[v]++;
  }
  const double mean = sum / count;
  const double variance = sum_squares / count - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5 * kGaussianSigma / std::sqrt(count));
  // The truncated distribution's variance is 10.1761 (= 3.19^2 to 4 digits);
  // the sample variance's standard deviation is about 0.06 here.
  EXPECT_NEAR(variance, 10.1761, 0.3);
  EXPECT_LE(largest, kGaussianBound);
  EXPECT_GE(largest, 10);  // tails are actually drawn
  // P(0) = 0.1250 and symmetry.
  EXPECT_NEAR(histogram[0] / static_cast<double>(count), 0.1250, 0.005);
  for (int64_t v = 1; v <= 5; ++v) {
    EXPECT_NEAR(histogram[v], histogram[-v], 5 * std::sqrt(histogram[v] + histogram[-v]));
  }
}

TEST(Samplers, SameSeedSameSamplesDifferentSeedDifferentSamples) {
  const auto context = make_context(256, 2, 40);
  const auto sample_all = [&](uint8_t seed_start) {
    Prng prng(counting_seed(seed_start));
    std::vector<RnsPoly> polys;
    for (int i = 0; i < 4; ++i)
      polys.emplace_back(context, 2);
    sample_uniform(prng, polys[0]);
    sample_ternary(prng, polys[1]);
    sample_sparse_ternary(prng, 64, polys[2]);
    sample_gaussian(prng, polys[3]);
    return polys;
  };
  const std::vector<RnsPoly> a = sample_all(9), b = sample_all(9), c = sample_all(10);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(a[i] == b[i]) << "sampler " << i;
    EXPECT_FALSE(a[i] == c[i]) << "sampler " << i;
  }
}

TEST(Samplers, IntegerSamplesAreReducedConsistentlyIntoEveryTower) {
  const auto context = make_context(1024, 4, 45);
  const auto check = [&](const RnsPoly& poly, int64_t bound) {
    EXPECT_EQ(poly.form(), Form::coefficient);
    EXPECT_TRUE(poly.is_secret());
    for (std::size_t k = 0; k < poly.degree(); ++k) {
      // Recover the integer from tower 0 (centered), then check every tower.
      const uint64_t q0 = poly.modulus(0).value();
      const uint64_t r0 = poly.tower(0)[k];
      const int64_t value = r0 > q0 / 2 ? -static_cast<int64_t>(q0 - r0) : static_cast<int64_t>(r0);
      ASSERT_LE(std::abs(value), bound);
      for (std::size_t i = 1; i < poly.tower_count(); ++i) {
        const uint64_t q = poly.modulus(i).value();
        const uint64_t expected = value < 0 ? q - static_cast<uint64_t>(-value) : value;
        ASSERT_EQ(poly.tower(i)[k], expected) << "tower " << i << " coefficient " << k;
      }
    }
  };
  Prng prng(counting_seed(11));
  RnsPoly poly(context, 4, Form::ntt);
  sample_ternary(prng, poly);
  check(poly, 1);
  sample_sparse_ternary(prng, 100, poly);
  check(poly, 1);
  sample_gaussian(prng, poly);
  check(poly, kGaussianBound);
  RnsPoly empty;
  EXPECT_THROW(sample_gaussian(prng, empty), InvalidArgument);
  EXPECT_THROW(sample_uniform(prng, empty), InvalidArgument);
}

}  // namespace
}  // namespace heft::ring
