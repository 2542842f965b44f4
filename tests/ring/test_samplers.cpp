// Prng and samplers: the AES-256-CTR known answer, determinism per seed,
// statistical shape of every distribution, and consistent reduction of one
// integer polynomial into every tower.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "heft/ring/samplers.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::make_context;

Prng::Seed counting_seed(uint8_t start = 0) {
  Prng::Seed seed;
  for (std::size_t i = 0; i < seed.size(); ++i)
    seed[i] = static_cast<uint8_t>(start + i);
  return seed;
}

TEST(Prng, StreamIsTheAes256CtrKeystreamWithZeroCounter) {
  // `head -c 64 /dev/zero | openssl enc -aes-256-ctr -K 000102..1f -iv 0`;
  // the first block is also AES-256_K(0^128) from FIPS-197 style ECB.
  const std::vector<uint8_t> expected = {
      0xf2, 0x90, 0x00, 0xb6, 0x2a, 0x49, 0x9f, 0xd0, 0xa9, 0xf3, 0x9a, 0x6a, 0xdd,
      0x2e, 0x77, 0x80, 0xf0, 0x5d, 0x76, 0xae, 0x4a, 0xb9, 0x9f, 0xe5, 0xa6, 0xf6,
      0x9b, 0x31, 0x48, 0xc2, 0x36, 0x3d, 0x0e, 0xbc, 0xb5, 0xde, 0xb5, 0x2c, 0x83,
      0xbd, 0x08, 0xa8, 0xa9, 0x35, 0x18, 0x2c, 0x91, 0x99, 0xd2, 0x43, 0x56, 0x53,
      0x28, 0x81, 0x60, 0x2f, 0x80, 0x9e, 0xb3, 0x83, 0xc5, 0xff, 0x5d, 0x56};
  Prng prng(counting_seed());
  std::vector<uint8_t> bytes(64);
  prng.fill(bytes);
  EXPECT_EQ(bytes, expected);
  // next_u64 reads the same stream little-endian.
  Prng again(counting_seed());
  EXPECT_EQ(again.next_u64(), 0xd09f492ab60090f2ull);
}

TEST(Prng, SameSeedSameStreamWhateverTheChunking) {
  Prng whole(counting_seed(7)), pieces(counting_seed(7));
  std::vector<uint8_t> a(10000), b(10000);
  whole.fill(a);
  std::size_t done = 0;
  for (std::size_t chunk : {1, 7, 4095, 3, 4097, 1797}) {
    pieces.fill(std::span(b).subspan(done, chunk));
    done += chunk;
  }
  ASSERT_EQ(done, b.size());
  EXPECT_EQ(a, b);
  Prng other(counting_seed(8));
  std::vector<uint8_t> c(10000);
  other.fill(c);
  EXPECT_NE(a, c);
}

TEST(Prng, OsEntropySeedsDiffer) {
  EXPECT_NE(Prng::os_entropy_seed(), Prng::os_entropy_seed());
  Prng a = Prng::from_os_entropy(), b = Prng::from_os_entropy();
  EXPECT_NE(a.next_u64(), b.next_u64());
}

TEST(Prng, UniformBelowIsUnbiased) {
  Prng prng(counting_seed(1));
  EXPECT_THROW((void)prng.uniform_below(0), InvalidArgument);
  EXPECT_EQ(prng.uniform_below(1), 0u);
  // A bound just above 2^63 rejects almost half the draws: a biased
  // "r % bound" would put 2/3 of the mass below 2^64 - bound.
  const uint64_t bound = (uint64_t{1} << 63) + (uint64_t{1} << 61);
  const uint64_t low_region = 0 - bound;  // 2^64 - bound
  int low = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i)
    low += prng.uniform_below(bound) < low_region ? 1 : 0;
  const double expected = draws * static_cast<double>(low_region) / static_cast<double>(bound);
  EXPECT_NEAR(low, expected, 5 * std::sqrt(expected));
}

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
