// The long sums (checked_sums.cpp and each level's sums.cpp) at every
// supported level: the key-switching inner product dot_product_pair (whole and
// in lazy parts) against __int128 sums, base conversion's weighted_sum_mod
// against __int128 and scaled_sum_double against long double, and bad shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/error.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

// The key-switching inner product: every level against sums of __int128
// products, for term counts around the lazy-reduction intervals (the scalar
// level reduces every 32 terms, avx2's double path folds every 4, ifma every
// 8, the avx2 and avx512 split sums after 8 terms at 60 bits, 16 at 59 and
// 256 at 55), lengths around its blocks, and all-maximal inputs (the largest sums).
TEST(Eltwise, DotProductPairMatchesInt128AtEveryLevel) {
  std::mt19937_64 rng(16);
  for (Isa isa : supported_isas()) {
    for (int bits : {20, 49, 50, 55, 59, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      const uint64_t qv = q.value();
      // 300 crosses the split sums' first chunk at 55 bits (256 terms).
      std::vector<std::size_t> term_counts = {0, 1, 3, 4, 5, 8, 9, 16, 17, 33, 70};
      if (bits == 55) term_counts.push_back(300);
      for (std::size_t terms : term_counts) {
        for (std::size_t n :
             {std::size_t{0}, std::size_t{3}, std::size_t{257}, std::size_t{1029}}) {
          for (const bool maximal : {false, true}) {
            // The plain form, the accumulating one, and the lazy form of each.
            for (const auto [accumulate, lazy] :
                 {std::pair{false, false}, {true, false}, {false, true}, {true, true}}) {
              std::vector<std::vector<uint64_t>> x(terms), b(terms), a(terms);
              for (std::size_t j = 0; j < terms; ++j) {
                x[j] = maximal ? std::vector<uint64_t>(n, qv - 1) : random_values(n, qv, rng);
                b[j] = maximal ? std::vector<uint64_t>(n, qv - 1) : random_values(n, qv, rng);
                a[j] = random_values(n, qv, rng);
              }
              const auto spans = [](const std::vector<std::vector<uint64_t>>& v) {
                return std::vector<std::span<const uint64_t>>(v.begin(), v.end());
              };
              // dot_product_pair overwrites its outputs; the accumulating forms
              // start from them, anywhere below 8q (a lazy part's output):
              // here the largest values, or random ones.
              const std::vector<uint64_t> start0 =
                  maximal ? std::vector<uint64_t>(n, 8 * qv - 1) : random_values(n, 8 * qv, rng);
              const std::vector<uint64_t> start1 = random_values(n, 8 * qv, rng);
              std::vector<uint64_t> out0 = start0, out1 = start1;
              if (lazy) {
                dot_product_pair_lazy(spans(x), spans(b), spans(a), out0, out1, q, accumulate, isa);
              } else if (accumulate) {
                dot_product_pair_accumulate(spans(x), spans(b), spans(a), out0, out1, q, isa);
              } else {
                dot_product_pair(spans(x), spans(b), spans(a), out0, out1, q, isa);
              }
              for (std::size_t i = 0; i < n; ++i) {
                u128 sum0 = accumulate ? start0[i] : 0, sum1 = accumulate ? start1[i] : 0;
                for (std::size_t j = 0; j < terms; ++j) {
                  sum0 = (sum0 + static_cast<u128>(x[j][i]) * b[j][i]) % qv;
                  sum1 = (sum1 + static_cast<u128>(x[j][i]) * a[j][i]) % qv;
                }
                sum0 %= qv;
                sum1 %= qv;
                // Lazy outputs: below 8q and congruent; otherwise the sums.
                const uint64_t bound = lazy ? 8 * qv : qv;
                ASSERT_LT(out0[i], bound) << to_string(isa) << " bits=" << bits << " k=" << terms
                                          << " accumulate=" << accumulate << " lazy=" << lazy;
                ASSERT_LT(out1[i], bound) << to_string(isa) << " bits=" << bits << " k=" << terms
                                          << " accumulate=" << accumulate << " lazy=" << lazy;
                ASSERT_EQ(out0[i] % qv, static_cast<uint64_t>(sum0))
                    << to_string(isa) << " bits=" << bits << " k=" << terms
                    << " accumulate=" << accumulate << " lazy=" << lazy << " i=" << i;
                ASSERT_EQ(out1[i] % qv, static_cast<uint64_t>(sum1))
                    << to_string(isa) << " bits=" << bits << " k=" << terms
                    << " accumulate=" << accumulate << " lazy=" << lazy << " i=" << i;
              }
            }
          }
        }
      }
    }
  }
}

// A long inner product taken two terms at a time, as key switching does:
// lazy parts, then an accumulating last part, equal the sum taken at once
// (and the __int128 sums the test above checks that against).
TEST(Eltwise, DotProductPairInLazyPartsEqualsTheWholeSum) {
  std::mt19937_64 rng(61);
  for (Isa isa : supported_isas()) {
    for (int bits : {36, 49, 55, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      const std::size_t n = 1029, terms = 15;
      std::vector<std::vector<uint64_t>> x(terms), b(terms), a(terms);
      for (std::size_t j = 0; j < terms; ++j) {
        x[j] = random_values(n, q.value(), rng);
        b[j] = random_values(n, q.value(), rng);
        a[j] = random_values(n, q.value(), rng);
      }
      const auto spans = [](const std::vector<std::vector<uint64_t>>& v, std::size_t first,
                            std::size_t count) {
        return std::vector<std::span<const uint64_t>>(v.begin() + first, v.begin() + first + count);
      };
      std::vector<uint64_t> whole0(n), whole1(n), parts0(n), parts1(n);
      dot_product_pair(spans(x, 0, terms), spans(b, 0, terms), spans(a, 0, terms), whole0, whole1,
                       q, isa);
      for (std::size_t first = 0; first < terms; first += 2) {
        const std::size_t count = std::min<std::size_t>(2, terms - first);
        const auto xs = spans(x, first, count), bs = spans(b, first, count),
                   as = spans(a, first, count);
        if (first + count < terms) {
          dot_product_pair_lazy(xs, bs, as, parts0, parts1, q, first != 0, isa);
        } else {
          dot_product_pair_accumulate(xs, bs, as, parts0, parts1, q, isa);
        }
      }
      EXPECT_EQ(parts0, whole0) << to_string(isa) << " bits=" << bits;
      EXPECT_EQ(parts1, whole1) << to_string(isa) << " bits=" << bits;
    }
  }
}

TEST(Eltwise, DotProductPairRefusesBadShapesWithoutWriting) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  std::vector<uint64_t> x(8, 1), b(8, 2), a(8, 3), short_one(7, 1), out0(8, 5), out1(8, 5);
  using Spans = std::vector<std::span<const uint64_t>>;
  EXPECT_THROW(dot_product_pair(Spans{x}, Spans{b, b}, Spans{a}, out0, out1, q), MismatchError);
  EXPECT_THROW(dot_product_pair(Spans{x}, Spans{short_one}, Spans{a}, out0, out1, q),
               MismatchError);
  EXPECT_THROW(dot_product_pair(Spans{x}, Spans{b}, Spans{a}, out0, std::span(out1).first(7), q),
               MismatchError);
  EXPECT_THROW(dot_product_pair(Spans{out0}, Spans{b}, Spans{a}, out0, out1, q), InvalidArgument);
  EXPECT_THROW(dot_product_pair(Spans{x}, Spans{b}, Spans{a}, out0, out0, q), InvalidArgument);
  EXPECT_THROW(dot_product_pair_accumulate(Spans{x}, Spans{b, b}, Spans{a}, out0, out1, q),
               MismatchError);
  EXPECT_THROW(dot_product_pair_accumulate(Spans{out1}, Spans{b}, Spans{a}, out0, out1, q),
               InvalidArgument);
  EXPECT_THROW(dot_product_pair_lazy(Spans{x}, Spans{b}, Spans{a, a}, out0, out1, q, true),
               MismatchError);
  EXPECT_THROW(dot_product_pair_lazy(Spans{x}, Spans{b}, Spans{a}, out1, out1, q, false),
               InvalidArgument);
  EXPECT_EQ(out0, std::vector<uint64_t>(8, 5));
  EXPECT_EQ(out1, std::vector<uint64_t>(8, 5));
}

// Base conversion's weighted sum: every level against __int128 sums, with
// inputs up to 2^input_bits (beyond q, as residues of other primes are), term
// counts around the lazy intervals, lengths that leave tails, and all-maximal
// inputs (the largest sums).
TEST(Eltwise, WeightedSumMatchesInt128AtEveryLevel) {
  std::mt19937_64 rng(17);
  for (Isa isa : supported_isas()) {
    for (int bits : {20, 49, 50, 55, 59, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      for (int input_bits : {bits, 50, 55, 60, 61}) {
        std::vector<std::size_t> term_counts = {0, 1, 4, 5, 8, 9, 16, 17, 25, 40};
        if (bits == 55 && input_bits == 55) term_counts.push_back(300);
        for (std::size_t terms : term_counts) {
          for (std::size_t n : {std::size_t{1}, std::size_t{13}, std::size_t{256}}) {
            for (bool maximal : {false, true}) {
              const std::size_t stride = n + 3;
              const uint64_t bound = uint64_t{1} << input_bits;
              std::vector<uint64_t> rows =
                  maximal ? std::vector<uint64_t>(terms * stride + 1, bound - 1)
                          : random_values(terms * stride + 1, bound, rng);
              if (!rows.empty()) rows[0] = bound - 1;
              std::vector<uint64_t> weights = maximal ? std::vector<uint64_t>(terms, q.value() - 1)
                                                      : random_values(terms, q.value(), rng);
              if (!weights.empty()) weights[0] = q.value() - 1;
              const FixedWeights fixed(weights, q);
              std::vector<uint64_t> out(n, 7);
              weighted_sum_mod(rows, stride, fixed, out, input_bits, isa);
              for (std::size_t c = 0; c < n; ++c) {
                u128 sum = 0;
                for (std::size_t i = 0; i < terms; ++i)
                  sum = (sum + static_cast<u128>(rows[i * stride + c]) * weights[i]) % q.value();
                ASSERT_EQ(out[c], static_cast<uint64_t>(sum))
                    << to_string(isa) << " bits=" << bits << " input_bits=" << input_bits
                    << " k=" << terms << " c=" << c << " maximal=" << maximal;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Eltwise, WeightedSumRefusesBadInput) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  EXPECT_THROW(FixedWeights({1, q.value()}, q), InvalidArgument);
  const FixedWeights weights({1, 2}, q);
  std::vector<uint64_t> rows(16, 1), out(8, 5);
  EXPECT_THROW(weighted_sum_mod(rows, 8, weights, out, 0), InvalidArgument);
  EXPECT_THROW(weighted_sum_mod(rows, 8, weights, out, 62), InvalidArgument);
  EXPECT_THROW(weighted_sum_mod(rows, 4, weights, out, 40), MismatchError);  // stride < length
  EXPECT_THROW(weighted_sum_mod(std::span(rows).first(15), 8, weights, out, 40), MismatchError);
  EXPECT_THROW(weighted_sum_mod(rows, 8, weights, std::span(rows).subspan(8), 40), InvalidArgument);
  // A stride so large that (terms - 1) * stride + length wraps to 4 used to pass.
  EXPECT_THROW(weighted_sum_mod(rows, SIZE_MAX - 3, weights, out, 40), MismatchError);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 5));
  const FixedWeights one({3}, q);  // one term: any stride, one row read
  weighted_sum_mod(std::span(rows).first(8), SIZE_MAX, one, out, 40);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 3));
}

// Polynomial evaluation's sum of constants times separate powers: every
// level against __int128 sums, with sums long enough for several groups and
// chunks of the floating-point path (7 terms a group at 55 bits, 64 a
// chunk), all-maximal inputs, and lengths that leave tails.
TEST(Eltwise, WeightedSumOfSeparateRowsMatchesInt128AtEveryLevel) {
  std::mt19937_64 rng(23);
  for (Isa isa : supported_isas()) {
    for (int bits : {30, 50, 55, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      for (std::size_t terms : {1, 7, 8, 63, 64, 65, 200}) {
        for (std::size_t n : {std::size_t{13}, std::size_t{256}}) {
          for (bool maximal : {false, true}) {
            std::vector<std::vector<uint64_t>> rows;
            std::vector<std::span<const uint64_t>> row_spans;
            for (std::size_t i = 0; i < terms; ++i) {
              rows.push_back(maximal ? std::vector<uint64_t>(n, q.value() - 1)
                                     : random_values(n, q.value(), rng));
            }
            for (const auto& row : rows)
              row_spans.emplace_back(row);
            std::vector<uint64_t> weights = maximal ? std::vector<uint64_t>(terms, q.value() - 1)
                                                    : random_values(terms, q.value(), rng);
            const FixedWeights fixed(weights, q);
            std::vector<uint64_t> out(n, 7);
            weighted_sum_mod(row_spans, fixed, out, bits, isa);
            for (std::size_t c = 0; c < n; ++c) {
              u128 sum = 0;
              for (std::size_t i = 0; i < terms; ++i)
                sum = (sum + static_cast<u128>(rows[i][c]) * weights[i]) % q.value();
              ASSERT_EQ(out[c], static_cast<uint64_t>(sum))
                  << to_string(isa) << " bits=" << bits << " k=" << terms << " n=" << n
                  << " c=" << c << " maximal=" << maximal;
            }
          }
        }
      }
    }
  }
}

TEST(Eltwise, WeightedSumOfSeparateRowsRefusesBadInput) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  const FixedWeights weights({1, 2}, q);
  std::vector<uint64_t> a(8, 1), b(8, 2), short_row(7, 1), out(8, 5);
  using Rows = std::vector<std::span<const uint64_t>>;
  EXPECT_THROW(weighted_sum_mod(Rows{a}, weights, out, 40), MismatchError);  // one row, two weights
  EXPECT_THROW(weighted_sum_mod(Rows{a, short_row}, weights, out, 40), MismatchError);
  EXPECT_THROW(weighted_sum_mod(Rows{a, b}, weights, out, 0), InvalidArgument);
  EXPECT_THROW(weighted_sum_mod(Rows{a, b}, weights, out, 62), InvalidArgument);
  EXPECT_THROW(weighted_sum_mod(Rows{a, out}, weights, out, 40), InvalidArgument);  // overlap
  EXPECT_EQ(out, std::vector<uint64_t>(8, 5));                                      // untouched
  weighted_sum_mod(Rows{a, b}, weights, out, 40);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 1 * 1 + 2 * 2));
  std::fill(b.begin(), b.end(), 3);
  weighted_sum_mod(Rows{a, b}, weights, out, 40);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 1 * 1 + 2 * 3));  // written, not left as it was
}

// Base conversion's alpha estimate: every level against long double sums of
// the same terms (rows up to 2^input_bits, factors 1/q as the converter's),
// within the documented bound, and its bad input refused.
TEST(Eltwise, ScaledSumDoubleMatchesLongDoubleAtEveryLevel) {
  std::mt19937_64 rng(23);
  for (Isa isa : supported_isas()) {
    for (int input_bits : {20, 50, 52, 53, 55, 61}) {
      for (std::size_t terms : {0, 1, 5, 17, 40}) {
        for (std::size_t n : {std::size_t{1}, std::size_t{13}, std::size_t{256}}) {
          const std::size_t stride = n + 3;
          const uint64_t bound = uint64_t{1} << input_bits;
          std::vector<uint64_t> rows = random_values(terms * stride + 1, bound, rng);
          rows[0] = bound - 1;
          std::vector<double> factors;
          for (std::size_t i = 0; i < terms; ++i)
            factors.push_back(1.0 / static_cast<double>(bound - 1 - 2 * i));
          std::vector<double> sums(n, -1.0);
          scaled_sum_double(rows, stride, factors, sums, input_bits, isa);
          const double k = static_cast<double>(terms);
          for (std::size_t c = 0; c < n; ++c) {
            // Every term is positive, so the exact sum is also the terms'
            // magnitude that the error bound scales with.
            long double exact = 0;
            for (std::size_t i = 0; i < terms; ++i)
              exact += static_cast<long double>(rows[i * stride + c]) * factors[i];
            const long double bound_error = (3 * k + k * k) * 0x1p-53 * (exact + 1e-300L);
            ASSERT_LE(std::fabs(static_cast<long double>(sums[c]) - exact), bound_error)
                << to_string(isa) << " input_bits=" << input_bits << " k=" << terms << " c=" << c;
          }
        }
      }
    }
  }
  std::vector<uint64_t> rows(16, 1);
  std::vector<double> factors = {0.5, 0.25}, sums(8, 5.0);
  EXPECT_THROW(scaled_sum_double(rows, 8, factors, sums, 0), InvalidArgument);
  EXPECT_THROW(scaled_sum_double(rows, 8, factors, sums, 62), InvalidArgument);
  EXPECT_THROW(scaled_sum_double(rows, 4, factors, sums, 40), MismatchError);
  EXPECT_THROW(scaled_sum_double(std::span(rows).first(15), 8, factors, sums, 40), MismatchError);
  std::span<double> aliased(reinterpret_cast<double*>(rows.data() + 8), 8);
  EXPECT_THROW(scaled_sum_double(rows, 8, factors, aliased, 40), InvalidArgument);
  EXPECT_EQ(sums, std::vector<double>(8, 5.0));
  scaled_sum_double(rows, 8, factors, sums, 40);
  EXPECT_EQ(sums, std::vector<double>(8, 0.75));
}

// Runs check(isa, bits, tables) at every level this CPU supports, for 30-,
// 49- and 60-bit primes (those a level can take) and N = 8, 64 and 4096,
// restoring the active level afterwards.

}  // namespace
}  // namespace heft::math
