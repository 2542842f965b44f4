// Parameters::validate: the sets it refuses (ring degree, repeated or
// non-NTT primes, digits, secrets, enum values no enum names).
#include <gtest/gtest.h>

#include "error_test_support.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

TEST(Parameters, ValidationRejectsBadSets) {
  Parameters p = make_parameters(8192, {50, 40}, {50}, 0, SecurityLevel::classic128);
  EXPECT_EQ(p.digit_count(), 2u);
  Parameters bad = p;
  bad.degree = 3000;
  EXPECT_THROW(bad.validate(), InvalidArgument);
  bad = p;
  bad.ciphertext_moduli.push_back(p.ciphertext_moduli[0]);
  EXPECT_THROW(bad.validate(), InvalidArgument);  // repeated prime
  bad = p;
  bad.ciphertext_moduli[1] += 2;
  EXPECT_THROW(bad.validate(), InvalidArgument);  // not an NTT prime
  bad = p;
  bad.dnum = 3;
  EXPECT_THROW(bad.validate(), InvalidArgument);  // more digits than primes
  bad = p;
  bad.secret = {SecretKind::sparse_ternary, 0};
  EXPECT_THROW(bad.validate(), InvalidArgument);
  // Enum values cast from integers the enums do not name: refused by name,
  // not taken as uniform ternary (which could be saved but not loaded back).
  bad = p;
  bad.secret.kind = static_cast<SecretKind>(7);
  heft::testing::expect_error<InvalidArgument>([&] { bad.validate(); },
                                               "unknown secret distribution 7");
  bad = p;
  bad.security = static_cast<SecurityLevel>(99);
  heft::testing::expect_error<InvalidArgument>([&] { bad.validate(); },
                                               "unknown security level 99");
  bad = p;
  bad.ciphertext_moduli.clear();
  EXPECT_THROW(bad.validate(), InvalidArgument);
}

}  // namespace
}  // namespace heft::rlwe
