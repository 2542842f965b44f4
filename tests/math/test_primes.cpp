// Prime generation (Miller-Rabin against trial division, NTT-friendly,
// distinct, sized) and primitive roots of unity.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

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

}  // namespace
}  // namespace heft::math
