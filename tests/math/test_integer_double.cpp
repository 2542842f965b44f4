// Integer-valued doubles modulo a prime (src/math/integer_double.cpp), against
// exact integer arithmetic: small and huge magnitudes (beyond 2^64, where the
// double is mantissa * 2^exponent), both signs, zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "heft/math/primes.hpp"
#include "math/integer_double.hpp"

namespace heft::math {
namespace {

// (m * 2^e) mod q by repeated doubling: the oracle.
uint64_t oracle(uint64_t m, int e, const Modulus& q) {
  unsigned __int128 r = m % q.value();
  for (int i = 0; i < e; ++i)
    r = (r * 2) % q.value();
  return static_cast<uint64_t>(r);
}

TEST(IntegerDouble, ReducesEveryMagnitudeExactly) {
  std::mt19937_64 rng(5);
  for (const int bits : {30, 50, 60}) {
    const Modulus q = generate_ntt_primes(bits, 1024, 1)[0];
    EXPECT_EQ(reduce_integer_double(0.0, q), 0u);
    EXPECT_EQ(reduce_integer_double(-0.0, q), 0u);
    for (int trial = 0; trial < 200; ++trial) {
      const uint64_t mantissa = (rng() >> 11) | (uint64_t{1} << 52);  // 53 bits
      const int exponent = static_cast<int>(rng() % 200);             // up to 2^252
      const double x = std::ldexp(static_cast<double>(mantissa), exponent);
      const uint64_t want = oracle(mantissa, exponent, q);
      EXPECT_EQ(reduce_integer_double(x, q), want) << "2^" << exponent;
      EXPECT_EQ(reduce_integer_double(-x, q), q.negate(want)) << "-2^" << exponent;
    }
    // Below 2^63 the integer is converted directly.
    EXPECT_EQ(reduce_integer_double(12345.0, q), 12345 % q.value());
    EXPECT_EQ(reduce_integer_double(-12345.0, q), q.negate(12345 % q.value()));
  }
}

}  // namespace
}  // namespace heft::math
