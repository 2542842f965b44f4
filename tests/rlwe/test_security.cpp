// The security table (max_log_qp, require_security) row by row, and real
// prime chains at each bound through make_parameters and validate.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/security.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

struct TableRow {
  uint64_t degree;
  int bits[3];
};

const TableRow kTable[] = {{1024, {27, 19, 14}},       {2048, {54, 37, 29}},
                           {4096, {109, 75, 58}},      {8192, {218, 152, 118}},
                           {16384, {438, 305, 237}},   {32768, {881, 611, 476}},
                           {65536, {1747, 1199, 929}}, {131072, {3523, 2411, 1866}}};

// A chain of primes with exactly `total` bits: 60-bit primes and at most two
// smaller ones, none below 30 bits (so that enough NTT primes exist for N).
std::vector<int> bits_summing_to(int total) {
  if (total <= 60) return {total};
  std::vector<int> bits(total / 60, 60);
  const int rest = total % 60;
  if (rest >= 30) {
    bits.push_back(rest);
  } else if (rest > 0) {
    bits.back() = 60 + rest - 30;
    bits.push_back(30);
  }
  return bits;
}

TEST(Security, EveryTableRowAcceptedAtItsBoundAndRefusedAbove) {
  const SecurityLevel levels[] = {SecurityLevel::classic128, SecurityLevel::classic192,
                                  SecurityLevel::classic256};
  for (const TableRow& row : kTable) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(max_log_qp(row.degree, levels[i]), row.bits[i]);
      EXPECT_NO_THROW(require_security(row.degree, row.bits[i], levels[i]));
      EXPECT_THROW(require_security(row.degree, row.bits[i] + 1, levels[i]), InvalidArgument);
    }
  }
  EXPECT_NO_THROW(require_security(1024, 10000, SecurityLevel::none));
  EXPECT_THROW((void)max_log_qp(512, SecurityLevel::classic128), InvalidArgument);
}

TEST(Security, ParameterSetsAtTheBoundValidateAndOneBitMoreIsRefused) {
  // Real prime chains through Parameters::validate, 128-bit rows up to 2^15
  // (the larger rows need hundreds of primes; the table check above covers them).
  for (const TableRow& row : kTable) {
    if (row.degree > 32768) continue;
    const int bound = row.bits[0];
    const auto bits = bits_summing_to(bound);
    Parameters ok = make_parameters(row.degree, bits, {}, 0, SecurityLevel::classic128);
    EXPECT_EQ(ok.total_bits(), bound);
    auto too_many = bits_summing_to(bound + 1);
    SCOPED_TRACE("N=" + std::to_string(row.degree));
    heft::testing::expect_error<InvalidArgument>(
        [&] { (void)make_parameters(row.degree, too_many, {}, 0, SecurityLevel::classic128); },
        std::to_string(bound));
  }
}

}  // namespace
}  // namespace heft::rlwe
