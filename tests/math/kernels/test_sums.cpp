// Tests for math/: Modulus arithmetic, prime generation, roots of unity, the
// scalar NTT against naive negacyclic convolution and direct evaluation, the
// element-wise kernels against unsigned __int128 arithmetic, every supported
// ISA level against scalar through the public dispatcher, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "heft/math/complex_fft.hpp"
#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/automorphism.hpp"
#include "heft/util/cpu_features.hpp"

namespace heft::math {
namespace {

using u128 = unsigned __int128;

uint64_t mulmod_ref(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>(static_cast<u128>(a) * b % q);
}

uint64_t powmod_ref(uint64_t a, uint64_t e, uint64_t q) {
  uint64_t r = 1 % q;
  for (a %= q; e; e >>= 1, a = mulmod_ref(a, a, q))
    if (e & 1) r = mulmod_ref(r, a, q);
  return r;
}

std::vector<uint64_t> random_values(std::size_t n, uint64_t bound, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// Naive O(N^2) product in Z_q[X]/(X^N + 1).
std::vector<uint64_t> negacyclic_product(const std::vector<uint64_t>& a,
                                         const std::vector<uint64_t>& b, uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = mulmod_ref(a[i], b[j], q);
      const std::size_t k = (i + j) % n;
      if (i + j < n) {
        c[k] = (c[k] + p) % q;
      } else {
        c[k] = (c[k] + q - p) % q;
      }
    }
  }
  return c;
}

TEST(Modulus, RejectsOutOfRange) {
  EXPECT_THROW(Modulus(0), InvalidArgument);
  EXPECT_THROW(Modulus(1), InvalidArgument);
  EXPECT_THROW(Modulus(uint64_t{1} << 61), InvalidArgument);
  EXPECT_NO_THROW(Modulus((uint64_t{1} << 61) - 1));
}

TEST(Modulus, ArithmeticMatchesInt128) {
  std::mt19937_64 rng(1);
  for (uint64_t q :
       {uint64_t{2}, uint64_t{3}, uint64_t{65537}, uint64_t{1} << 40, (uint64_t{1} << 50) - 27,
        (uint64_t{1} << 61) - 1, uint64_t{1152921504606830593}}) {
    Modulus m(q);
    std::uniform_int_distribution<uint64_t> any;
    for (int trial = 0; trial < 2000; ++trial) {
      const uint64_t a = any(rng) % q, b = any(rng) % q, x = any(rng), y = any(rng);
      EXPECT_EQ(m.add(a, b), static_cast<uint64_t>((static_cast<u128>(a) + b) % q));
      EXPECT_EQ(m.sub(a, b), static_cast<uint64_t>((static_cast<u128>(a) + q - b) % q));
      EXPECT_EQ(m.negate(a), (q - a) % q);
      EXPECT_EQ(m.reduce(x), x % q);
      EXPECT_EQ(m.mul(x, y), mulmod_ref(x, y, q));
      const u128 wide = (static_cast<u128>(x) << 64) | y;
      EXPECT_EQ(m.reduce128(wide), static_cast<uint64_t>(wide % q));
      EXPECT_EQ(m.mul_shoup(x, a, m.shoup(a)), mulmod_ref(x, a, q));
      EXPECT_EQ(m.pow(a, y), powmod_ref(a, y, q));
    }
    // Extreme 128-bit values.
    const u128 all_ones = ~static_cast<u128>(0);
    EXPECT_EQ(m.reduce128(all_ones), static_cast<uint64_t>(all_ones % q));
    EXPECT_EQ(m.reduce(~uint64_t{0}), ~uint64_t{0} % q);
  }
}

TEST(Modulus, InverseAndItsFailure) {
  Modulus m(1000000007);
  for (uint64_t a : {uint64_t{1}, uint64_t{2}, uint64_t{123456789}, uint64_t{1000000006}}) {
    EXPECT_EQ(mulmod_ref(a, m.inverse(a), m.value()), 1u);
  }
  EXPECT_THROW((void)m.inverse(0), InvalidArgument);
  Modulus composite(1000);
  EXPECT_THROW((void)composite.inverse(10), InvalidArgument);
  EXPECT_EQ(mulmod_ref(7, composite.inverse(7), 1000), 1u);
}

TEST(Primes, MillerRabinAgreesWithTrialDivision) {
  auto trial = [](uint64_t n) {
    if (n < 2) return false;
    for (uint64_t d = 2; d * d <= n; ++d)
      if (n % d == 0) return false;
    return true;
  };
  for (uint64_t n = 0; n < 20000; ++n)
    ASSERT_EQ(is_prime(n), trial(n)) << n;
  // Strong pseudoprimes to several bases and large known values.
  EXPECT_FALSE(is_prime(3215031751ULL));
  EXPECT_FALSE(is_prime(3825123056546413051ULL));
  EXPECT_TRUE(is_prime(18446744073709551557ULL));  // largest 64-bit prime
  EXPECT_TRUE(is_prime((uint64_t{1} << 61) - 1));  // Mersenne prime
  EXPECT_FALSE(is_prime((uint64_t{1} << 62) - 1));
}

TEST(Primes, GeneratedPrimesAreNttFriendlyDistinctAndSized) {
  for (uint64_t n : {uint64_t{1024}, uint64_t{16384}, uint64_t{1} << 17}) {
    for (int bits : {30, 40, 50, 55, 60, 61}) {
      const auto primes = generate_ntt_primes(bits, n, 6);
      ASSERT_EQ(primes.size(), 6u);
      std::set<uint64_t> seen;
      for (const auto& p : primes) {
        EXPECT_TRUE(is_prime(p.value()));
        EXPECT_EQ(p.value() % (2 * n), 1u);
        EXPECT_EQ(p.bit_count(), bits);
        EXPECT_TRUE(seen.insert(p.value()).second);
      }
    }
  }
  const auto first = generate_ntt_primes(50, 4096, 3);
  const auto more = generate_ntt_primes(50, 4096, 2, {first[0].value(), first[1].value()});
  EXPECT_EQ(more[0].value(), first[2].value());
  const Modulus t = generate_batching_prime(17, 8192);
  EXPECT_EQ(t.value() % 16384, 1u);
  EXPECT_TRUE(is_prime(t.value()));
}

TEST(Primes, RejectsBadRequests) {
  // Counts and orders that used to scan for hours are refused at once.
  EXPECT_THROW((void)generate_ntt_primes(61, 1 << 17, std::size_t{1} << 40), InvalidArgument);
  EXPECT_THROW((void)minimal_primitive_root_of_unity(uint64_t{1} << 40, Modulus((1ull << 60) + 1)),
               InvalidArgument);
  EXPECT_THROW(generate_ntt_primes(50, 1000, 1), InvalidArgument);     // not a power of two
  EXPECT_THROW(generate_ntt_primes(62, 1024, 1), InvalidArgument);     // too wide
  EXPECT_THROW(generate_ntt_primes(12, 1024, 1), InvalidArgument);     // too narrow for 2N
  EXPECT_THROW(generate_ntt_primes(20, 4096, 1000), InvalidArgument);  // not enough primes
}

TEST(Primes, RootsOfUnityArePrimitive) {
  for (uint64_t order : {uint64_t{16}, uint64_t{2048}, uint64_t{1} << 18}) {
    const Modulus q = generate_ntt_primes(55, order / 2, 1)[0];
    const uint64_t root = minimal_primitive_root_of_unity(order, q);
    EXPECT_EQ(powmod_ref(root, order, q.value()), 1u);
    EXPECT_EQ(powmod_ref(root, order / 2, q.value()), q.value() - 1);
  }
  EXPECT_THROW(primitive_root_of_unity(64, Modulus(97)), InvalidArgument);  // 64 does not divide 96
  EXPECT_THROW(primitive_root_of_unity(8, Modulus(1000)), InvalidArgument);  // not prime
}

TEST(NttTables, RejectsBadDegreeAndModulus) {
  const Modulus q = generate_ntt_primes(40, 1024, 1)[0];
  EXPECT_THROW(NttTables(1000, q), InvalidArgument);
  EXPECT_THROW(NttTables(4, q), InvalidArgument);
  EXPECT_THROW(NttTables(uint64_t{1} << 18, q), InvalidArgument);
  EXPECT_THROW(NttTables(1024, Modulus(q.value() + 2)), InvalidArgument);  // not 1 mod 2N / prime
  EXPECT_THROW(NttTables(4096, q), InvalidArgument);  // q = 1 mod 2048 only (checked below)
}

// The forward NTT evaluates a at psi^(2 brv(k) + 1) into slot k.
TEST(Ntt, ScalarForwardIsEvaluationAtOddPowers) {
  std::mt19937_64 rng(2);
  for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{256}}) {
    for (int bits : {30, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      auto a = random_values(n, q.value(), rng);
      auto transformed = a;
      ntt_forward(transformed, tables, Isa::scalar);
      const int log_n = tables.log_degree();
      for (uint64_t k = 0; k < n; ++k) {
        const uint64_t point = powmod_ref(tables.root(), 2 * reverse_bits(k, log_n) + 1, q.value());
        uint64_t value = 0;
        for (uint64_t i = n; i-- > 0;)
          value = (mulmod_ref(value, point, q.value()) + a[i]) % q.value();
        ASSERT_EQ(transformed[k], value) << "n=" << n << " k=" << k;
      }
    }
  }
}

TEST(Ntt, ScalarMultiplicationMatchesNaiveConvolution) {
  std::mt19937_64 rng(3);
  for (uint64_t n : {uint64_t{8}, uint64_t{32}, uint64_t{256}, uint64_t{1024}}) {
    for (int bits : {30, 40, 50, 55, 60, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      const auto a = random_values(n, q.value(), rng);
      const auto b = random_values(n, q.value(), rng);
      auto fa = a, fb = b;
      ntt_forward(fa, tables, Isa::scalar);
      ntt_forward(fb, tables, Isa::scalar);
      mul_mod(fa, fb, fa, q, Isa::scalar);
      ntt_inverse(fa, tables, Isa::scalar);
      ASSERT_EQ(fa, negacyclic_product(a, b, q.value())) << "n=" << n << " bits=" << bits;
    }
  }
}

TEST(Ntt, ScalarRoundTripAndLazyInputRanges) {
  std::mt19937_64 rng(4);
  for (int log_n = 3; log_n <= 17; ++log_n) {
    const uint64_t n = uint64_t{1} << log_n;
    for (int bits : {30, 50, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      const auto a = random_values(n, q.value(), rng);
      auto v = a;
      ntt_forward(v, tables, Isa::scalar);
      for (uint64_t x : v)
        ASSERT_LT(x, q.value());
      ntt_inverse(v, tables, Isa::scalar);
      ASSERT_EQ(v, a) << "n=" << n << " bits=" << bits;
      // Forward accepts [0, 4q): a + kq for k in {0..3} must transform like a.
      auto lazy = a;
      for (uint64_t i = 0; i < n; ++i)
        lazy[i] += (i % 4) * q.value();
      auto reference = a;
      ntt_forward(reference, tables, Isa::scalar);
      ntt_forward(lazy, tables, Isa::scalar);
      ASSERT_EQ(lazy, reference);
      // Inverse accepts [0, 2q).
      auto lazy_inverse = reference;
      for (uint64_t i = 0; i < n; i += 2)
        lazy_inverse[i] += q.value();
      ntt_inverse(lazy_inverse, tables, Isa::scalar);
      ASSERT_EQ(lazy_inverse, a);
    }
  }
}

// Every level the CPU supports, through the public dispatcher, equals scalar.
TEST(Dispatch, EverySupportedLevelMatchesScalar) {
  std::mt19937_64 rng(5);
  for (Isa isa : supported_isas()) {
    for (int log_n : {3, 4, 5, 10, 13, 16, 17}) {
      const uint64_t n = uint64_t{1} << log_n;
      for (int bits : {30, 49, 50, 60, 61}) {
        if (isa == Isa::ifma && bits > 50) continue;
        const Modulus q = generate_ntt_primes(bits, n, 1)[0];
        NttTables tables(n, q);
        auto input = random_values(n, 4 * q.value(), rng);
        input[0] = 4 * q.value() - 1;
        auto expected = input, actual = input;
        ntt_forward(expected, tables, Isa::scalar);
        ntt_forward(actual, tables, isa);
        ASSERT_EQ(actual, expected) << to_string(isa) << " forward n=" << n << " bits=" << bits;
        auto inv_input = random_values(n, 2 * q.value(), rng);
        expected = inv_input;
        actual = inv_input;
        ntt_inverse(expected, tables, Isa::scalar);
        ntt_inverse(actual, tables, isa);
        ASSERT_EQ(actual, expected) << to_string(isa) << " inverse n=" << n << " bits=" << bits;
      }
    }
  }
}

TEST(Eltwise, EverySupportedLevelMatchesInt128) {
  std::mt19937_64 rng(6);
  for (Isa isa : supported_isas()) {
    for (int bits : {20, 49, 50, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      const uint64_t qv = q.value();
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8},
                            std::size_t{9}, std::size_t{1000}}) {
        auto a = random_values(n, qv, rng), b = random_values(n, qv, rng),
             c = random_values(n, qv, rng);
        if (n > 0) a[0] = b[0] = c[0] = qv - 1;
        if (n > 1) a[1] = b[1] = 0;
        const uint64_t w = n > 2 ? b[2] : qv - 1;
        std::vector<uint64_t> out(n);
        auto check = [&](auto reference, const char* name) {
          for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(out[i], reference(i))
                << name << " " << to_string(isa) << " bits=" << bits << " i=" << i;
          }
        };
        add_mod(a, b, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>((static_cast<u128>(a[i]) + b[i]) % qv);
            },
            "add");
        sub_mod(a, b, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>((static_cast<u128>(a[i]) + qv - b[i]) % qv);
            },
            "sub");
        negate_mod(a, out, q, isa);
        check([&](std::size_t i) { return (qv - a[i]) % qv; }, "negate");
        mul_mod(a, b, out, q, isa);
        check([&](std::size_t i) { return mulmod_ref(a[i], b[i], qv); }, "mul");
        mul_scalar_mod(a, w, out, q, isa);
        check([&](std::size_t i) { return mulmod_ref(a[i], w, qv); }, "mul_scalar");
        fma_mod(a, b, c, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>((static_cast<u128>(a[i]) * b[i] + c[i]) % qv);
            },
            "fma");
        fma_scalar_mod(a, w, c, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>((static_cast<u128>(a[i]) * w + c[i]) % qv);
            },
            "fma_scalar");
        sub_mul_scalar_mod(a, b, w, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>((static_cast<u128>(a[i]) + qv - b[i]) * w % qv);
            },
            "sub_mul_scalar");
        sub_fma_scalar_mod(a, b, w, c, out, q, isa);
        check(
            [&](std::size_t i) {
              return static_cast<uint64_t>(((static_cast<u128>(a[i]) + qv - b[i]) * w + c[i]) % qv);
            },
            "sub_fma_scalar");
        auto lazy2 = random_values(n, 2 * qv, rng), lazy4 = random_values(n, 4 * qv, rng);
        auto any = random_values(n, ~uint64_t{0}, rng);
        if (n > 0) {
          lazy2[0] = 2 * qv - 1;
          lazy4[0] = 4 * qv - 1;
          any[0] = ~uint64_t{0};
        }
        reduce_from_2q(lazy2, out, q, isa);
        check([&](std::size_t i) { return lazy2[i] % qv; }, "reduce_from_2q");
        add_scalar_mod(lazy4, w, out, q, isa);
        check([&](std::size_t i) { return (lazy4[i] + w) % qv; }, "add_scalar");
        reduce_from_4q(lazy4, out, q, isa);
        check([&](std::size_t i) { return lazy4[i] % qv; }, "reduce_from_4q");
        reduce_any(any, out, q, isa);
        check([&](std::size_t i) { return any[i] % qv; }, "reduce_any");
        // In place: the output aliases the first operand.
        auto in_place = a;
        mul_mod(in_place, b, in_place, q, isa);
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(in_place[i], mulmod_ref(a[i], b[i], qv));
      }
    }
  }
}

// fma_permuted_mod against the gather (for automorphism maps, and by the
// block formula for arbitrary maps) and an exact multiply-add, at lengths
// below, at and above its 1024-value chunk, in place on the addend and on the
// multiplier.
TEST(Eltwise, FmaPermutedMatchesGatherThenInt128AtEveryLevel) {
  std::mt19937_64 rng(17);
  for (Isa isa : supported_isas()) {
    for (int bits : {20, 49, 50, 55, 60, 61}) {
      if (isa == Isa::ifma && bits > 50) continue;
      const Modulus q = generate_ntt_primes(bits, 8, 1)[0];
      const uint64_t qv = q.value();
      for (std::size_t n :
           {std::size_t{8}, std::size_t{64}, std::size_t{1024}, std::size_t{4096}}) {
        const auto in = random_values(n, qv, rng), a = random_values(n, qv, rng),
                   c = random_values(n, qv, rng);
        std::vector<std::vector<uint32_t>> maps;
        for (uint64_t g : {uint64_t{3}, uint64_t{5}, 2 * n - 1})
          maps.push_back(ring::make_ntt_automorphism_map(n, g));
        std::vector<uint32_t> arbitrary(n);
        for (auto& index : arbitrary)
          index = static_cast<uint32_t>(rng());
        maps.push_back(arbitrary);
        for (const auto& map : maps) {
          std::vector<uint64_t> want(n);
          for (std::size_t k = 0; k < n; ++k) {
            const std::size_t block = k & ~std::size_t{7};
            const uint64_t permuted = in[(map[block] / 8 % (n / 8)) * 8 + map[k] % 8];
            want[k] = static_cast<uint64_t>((static_cast<u128>(a[k]) * permuted + c[k]) % qv);
          }
          std::vector<uint64_t> out(n, 0);
          fma_permuted_mod(a, in, map, c, out, q, isa);
          ASSERT_EQ(out, want) << to_string(isa) << " bits=" << bits << " n=" << n;
          out = c;  // accumulating in place, as a linear transform's sum does
          fma_permuted_mod(a, in, map, out, out, q, isa);
          ASSERT_EQ(out, want) << "in place on the addend, " << to_string(isa);
          out = a;
          fma_permuted_mod(out, in, map, c, out, q, isa);
          ASSERT_EQ(out, want) << "in place on the multiplier, " << to_string(isa);
        }
      }
    }
  }
}

TEST(Eltwise, FmaPermutedRefusesBadShapesWithoutWriting) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  std::vector<uint64_t> a(16, 1), in(16, 2), c(16, 3), out(16, 7), short_a(8, 1), odd(12, 1);
  const std::vector<uint32_t> map(16, 0), short_map(8, 0), odd_map(12, 0);
  EXPECT_THROW(fma_permuted_mod(short_a, in, map, c, out, q), MismatchError);
  EXPECT_THROW(fma_permuted_mod(a, in, short_map, c, out, q), MismatchError);
  EXPECT_THROW(fma_permuted_mod(a, in, map, short_a, out, q), MismatchError);
  EXPECT_THROW(fma_permuted_mod(a, in, map, c, short_a, q), MismatchError);
  EXPECT_THROW(fma_permuted_mod(odd, odd, odd_map, odd, odd, q), InvalidArgument);
  EXPECT_EQ(out, std::vector<uint64_t>(16, 7));
  EXPECT_EQ(odd, std::vector<uint64_t>(12, 1));
  // The permuted input may not be the output (it is read while being written).
  EXPECT_THROW(fma_permuted_mod(a, out, map, c, out, q), InvalidArgument);
  EXPECT_THROW(fma_permuted_mod(a, in, map, c, out, Modulus()), InvalidArgument);
  EXPECT_EQ(out, std::vector<uint64_t>(16, 7));
}

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
template <class Check>
void for_each_level_and_table(const Check& check) {
  const Isa before = active_isa();
  for (Isa isa : supported_isas()) {
    set_isa(isa);
    for (int bits : {30, 49, 60}) {
      if (isa == Isa::ifma && bits > 50) continue;
      for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{4096}}) {
        const NttTables tables(n, generate_ntt_primes(bits, n, 1)[0]);
        check(isa, bits, tables);
      }
    }
  }
  set_isa(before);
}

// ntt_forward_shifted at every level against the plain transform of the
// shifted values reduced here; a shift that is not reduced is refused and
// leaves the output as it was.
TEST(Ntt, ShiftedForwardTransformAtEveryLevel) {
  std::mt19937_64 rng(19);
  for_each_level_and_table([&](Isa isa, int bits, const NttTables& tables) {
    const uint64_t n = tables.degree(), q = tables.modulus().value();
    std::vector<uint64_t> input = random_values(n, 3 * q, rng);
    const uint64_t shift = random_values(1, q, rng)[0];
    std::vector<uint64_t> expected(n), output(n, 0);
    for (uint64_t i = 0; i < n; ++i)
      expected[i] = (input[i] % q + shift) % q;
    ntt_forward(expected, tables);
    ntt_forward_shifted(input, shift, output, tables);
    EXPECT_EQ(output, expected) << to_string(isa) << " bits=" << bits << " n=" << n;
  });
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  const NttTables tables(16, q);
  std::vector<uint64_t> input(16, 1), output(16, 7);
  EXPECT_THROW(ntt_forward_shifted(input, q.value(), output, tables), InvalidArgument);
  EXPECT_EQ(output, std::vector<uint64_t>(16, 7));
  std::vector<uint64_t> short_output(15, 7);
  EXPECT_THROW(ntt_forward_shifted(input, 1, short_output, tables), MismatchError);
}

TEST(Ntt, OutOfPlaceTransformsEqualInPlaceAtEveryLevel) {
  std::mt19937_64 rng(18);
  for_each_level_and_table([&](Isa isa, int bits, const NttTables& tables) {
    const uint64_t n = tables.degree(), q = tables.modulus().value();
    std::vector<uint64_t> input = random_values(n, 4 * q, rng);  // lazy range
    input[0] = 4 * q - 1;
    const std::vector<uint64_t> kept = input;
    std::vector<uint64_t> in_place = input, output(n, 0);
    ntt_forward(in_place, tables);
    ntt_forward(input, output, tables);
    EXPECT_EQ(output, in_place) << to_string(isa) << " bits=" << bits << " n=" << n;
    EXPECT_EQ(input, kept);
    ntt_forward(std::span<const uint64_t>(input), input, tables);  // same array: in place
    EXPECT_EQ(input, in_place);
    // Inverse, from the lazy range [0, 2q) of its contract.
    std::vector<uint64_t> spectrum = random_values(n, 2 * q, rng);
    spectrum[1] = 2 * q - 1;
    const std::vector<uint64_t> spectrum_kept = spectrum;
    std::vector<uint64_t> inverse_in_place = spectrum, inverse_output(n, 0);
    ntt_inverse(inverse_in_place, tables);
    ntt_inverse(spectrum, inverse_output, tables);
    EXPECT_EQ(inverse_output, inverse_in_place) << to_string(isa) << " bits=" << bits;
    EXPECT_EQ(spectrum, spectrum_kept);
  });
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  const NttTables tables(16, q);
  std::vector<uint64_t> both(24, 1);
  EXPECT_THROW(ntt_forward(std::span<const uint64_t>(both).first(16),
                           std::span<uint64_t>(both).subspan(8, 16), tables),
               InvalidArgument);
  std::vector<uint64_t> short_input(15, 1), output(16, 0);
  EXPECT_THROW(ntt_forward(short_input, output, tables), MismatchError);
  EXPECT_THROW(ntt_inverse(short_input, output, tables), MismatchError);
  EXPECT_THROW(ntt_inverse(std::span<const uint64_t>(both).first(16),
                           std::span<uint64_t>(both).subspan(8, 16), tables),
               InvalidArgument);
}

// CI runs this under qemu CPU models with HEFT_EXPECT_ISA set to the level that
// model must get (Nehalem: scalar, Haswell: avx2), so a dispatcher that picks
// a level the CPU lacks, or misses one it has, fails here.
TEST(Dispatch, ChoosesTheBestLevelTheCpuHas) {
  std::printf("CPU features: %s; active level: %s\n", cpu_features().summary().c_str(),
              to_string(active_isa()));
  if (std::getenv("HEFT_ISA") == nullptr) EXPECT_EQ(active_isa(), best_supported_isa());
  if (const char* expected = std::getenv("HEFT_EXPECT_ISA")) {
    EXPECT_EQ(to_string(active_isa()), std::string(expected));
  }
}

TEST(Dispatch, LevelSelectionAndErrors) {
  EXPECT_EQ(parse_isa("avx2"), Isa::avx2);
  EXPECT_THROW(parse_isa("sse9"), InvalidArgument);
  EXPECT_TRUE(isa_supported(Isa::scalar));
  const Isa before = active_isa();
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::ifma}) {
    if (isa_supported(isa)) {
      set_isa(isa);
      EXPECT_EQ(active_isa(), isa);
    } else {
      EXPECT_THROW(set_isa(isa), UnsupportedError);
      const Modulus q = generate_ntt_primes(40, 16, 1)[0];
      NttTables tables(16, q);
      std::vector<uint64_t> v(16, 1);
      EXPECT_THROW(ntt_forward(v, tables, isa), UnsupportedError);
      // The other entry points that take a pinned level refuse it with the
      // same error, naming the level, and leave their outputs alone.
      std::vector<uint32_t> identity(16);
      for (uint32_t k = 0; k < 16; ++k)
        identity[k] = k;
      std::vector<uint64_t> out(16, 7);
      try {
        permute_blocks(v, identity, out, isa);
        ADD_FAILURE() << "permute_blocks ran at " << to_string(isa);
      } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find(to_string(isa)), std::string::npos) << e.what();
      }
      EXPECT_EQ(out, std::vector<uint64_t>(16, 7));
      std::vector<std::complex<double>> values(16, {1.0, 0.0}), twiddles(16, {1.0, 0.0});
      EXPECT_THROW(fft_forward_stages(values, twiddles, isa), UnsupportedError);
      EXPECT_THROW(fft_inverse_stages(values, twiddles, isa), UnsupportedError);
      EXPECT_EQ(values, std::vector<std::complex<double>>(16, {1.0, 0.0}));
    }
  }
  set_isa(before);
  // ifma cannot take a 55-bit modulus when pinned explicitly.
  EXPECT_THROW(check_isa_fits(Isa::ifma, generate_ntt_primes(55, 16, 1)[0]), InvalidArgument);
  EXPECT_NO_THROW(check_isa_fits(Isa::ifma, generate_ntt_primes(50, 16, 1)[0]));
}

TEST(Dispatch, MismatchedSizesThrowAndLeaveOutputsAlone) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  NttTables tables(16, q);
  std::vector<uint64_t> short_poly(8, 1);
  EXPECT_THROW(ntt_forward(short_poly, tables), MismatchError);
  EXPECT_EQ(short_poly, std::vector<uint64_t>(8, 1));
  std::vector<uint64_t> a(4, 1), b(5, 2), out(4, 7);
  EXPECT_THROW(add_mod(a, b, out, q), MismatchError);
  EXPECT_THROW(mul_mod(a, a, b, q), MismatchError);
  EXPECT_THROW(mul_scalar_mod(a, q.value(), out, q), InvalidArgument);  // scalar not reduced
  EXPECT_THROW(add_scalar_mod(a, q.value(), out, q), InvalidArgument);
  EXPECT_THROW(sub_mul_scalar_mod(a, b, 3, out, q), MismatchError);
  EXPECT_THROW(sub_mul_scalar_mod(a, a, q.value(), out, q), InvalidArgument);
  EXPECT_THROW(sub_fma_scalar_mod(a, a, 3, b, out, q), MismatchError);
  EXPECT_EQ(out, std::vector<uint64_t>(4, 7));
  // permute_blocks: the map's length, and a length that is no power of two >= 8.
  std::vector<uint64_t> block_in(8, 1), block_out(8, 7), odd_in(12, 1), odd_out(12, 7);
  const std::vector<uint32_t> short_map(4, 0), odd_map(12, 0);
  EXPECT_THROW(permute_blocks(block_in, short_map, block_out), MismatchError);
  EXPECT_THROW(permute_blocks(odd_in, odd_map, odd_out), InvalidArgument);
  EXPECT_THROW(permute_blocks(a, short_map, out), InvalidArgument);
  EXPECT_EQ(block_out, std::vector<uint64_t>(8, 7));
  EXPECT_EQ(odd_out, std::vector<uint64_t>(12, 7));
  EXPECT_THROW(permute_blocks(block_in, std::vector<uint32_t>(8, 0), block_in), InvalidArgument);
}

// Inputs that used to hang, divide by zero, run undefined shifts or give
// level-dependent results are refused with a typed error, outputs untouched.
TEST(Dispatch, EmptyModuliPartialOverlapAndMovedTablesAreRefused) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  std::vector<uint64_t> a(8, 1), b(8, 2), out(8, 7);
  EXPECT_TRUE(Modulus().empty());
  EXPECT_THROW(add_mod(a, b, out, Modulus()), InvalidArgument);
  EXPECT_THROW(mul_mod(a, b, out, Modulus()), InvalidArgument);
  EXPECT_THROW(reduce_any(a, out, Modulus()), InvalidArgument);
  EXPECT_THROW((void)Modulus().inverse(3), InvalidArgument);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 7));
  // An output that overlaps an input without being it (in place is fine).
  std::vector<uint64_t> buffer(9, 1);
  const std::vector<uint64_t> buffer_before = buffer;
  const auto first8 = std::span(buffer).first(8), last8 = std::span(buffer).subspan(1);
  EXPECT_THROW(add_mod(first8, std::span(b), last8, q), InvalidArgument);
  EXPECT_THROW(fma_mod(std::span(a), std::span(b), first8, last8, q), InvalidArgument);
  EXPECT_THROW(negate_mod(first8, last8, q), InvalidArgument);
  EXPECT_EQ(buffer, buffer_before);
  add_mod(first8, std::span(b), first8, q);  // exactly in place
  EXPECT_EQ(buffer[0], 3u);
  // Moved-from tables.
  NttTables tables(16, q);
  const NttTables moved(std::move(tables));
  std::vector<uint64_t> poly(16, 1);
  EXPECT_THROW(ntt_forward(poly, tables), InvalidArgument);
  EXPECT_THROW(ntt_inverse(poly, tables), InvalidArgument);
  EXPECT_EQ(poly, std::vector<uint64_t>(16, 1));
  EXPECT_NO_THROW(ntt_forward(poly, moved));
}

}  // namespace
}  // namespace heft::math
