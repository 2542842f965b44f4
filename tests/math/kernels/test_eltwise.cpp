// The element-wise kernels (checked_eltwise.cpp and each level's
// eltwise.cpp) at every supported level against unsigned __int128
// arithmetic, fma_permuted_mod against a gather, and bad shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/automorphism.hpp"
#include "heft/util/error.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

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

}  // namespace
}  // namespace heft::math
