// NttTables: the degrees and moduli it refuses.
#include <gtest/gtest.h>

#include <cstdint>

#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/error.hpp"

namespace heft::math {
namespace {

TEST(NttTables, RejectsBadDegreeAndModulus) {
  const Modulus q = generate_ntt_primes(40, 1024, 1)[0];
  EXPECT_THROW(NttTables(1000, q), InvalidArgument);
  EXPECT_THROW(NttTables(4, q), InvalidArgument);
  EXPECT_THROW(NttTables(uint64_t{1} << 18, q), InvalidArgument);
  EXPECT_THROW(NttTables(1024, Modulus(q.value() + 2)), InvalidArgument);  // not 1 mod 2N / prime
  EXPECT_THROW(NttTables(4096, q), InvalidArgument);  // q = 1 mod 2048 only (checked below)
}

}  // namespace
}  // namespace heft::math
