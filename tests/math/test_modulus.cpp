// Modulus: arithmetic against unsigned __int128, inverses, and bad input.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

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

}  // namespace
}  // namespace heft::math
