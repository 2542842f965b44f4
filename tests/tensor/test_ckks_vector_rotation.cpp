// CKKSVector::rotate and slice against the same index arithmetic on plain
// doubles (numpy's roll and slicing), for vectors inside one ciphertext,
// exactly one, and several (N = 4096: 2048 slots each); the level each
// spends; sums after them (their padding must be zeros); errors typed, with
// the operand unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

// numpy.roll(a, -steps): value i is a[(i + steps) mod n].
Reals rolled(const Reals& a, int64_t steps) {
  const auto n = static_cast<int64_t>(a.size());
  Reals out(a.size());
  for (int64_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>((((i + steps) % n) + n) % n)];
  return out;
}

void expect_close(const Reals& got, const Reals& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4) << "at " << i;
}

TEST(CKKSVectorRotation, RotatesCyclicallyOverItsOwnValues) {
  const auto& context = testing::shared_ckks_context();
  for (const std::size_t n : {5, 2048, 3000, 4096}) {
    const Reals a = testing::random_reals(n, n);
    const auto x = CKKSVector::encrypt(context, a);
    for (const int64_t steps : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{3},
                                static_cast<int64_t>(n) - 1, int64_t{2049}, int64_t{-2500}}) {
      SCOPED_TRACE("size " + std::to_string(n) + ", steps " + std::to_string(steps));
      const auto y = x.rotate(steps);
      EXPECT_EQ(y.size(), n);
      expect_close(y.decrypt(), rolled(a, steps));
    }
  }
}

TEST(CKKSVectorRotation, SpendsALevelOnlyForMasks) {
  const auto& context = testing::shared_ckks_context();
  // Exactly one ciphertext: a rotation inside it needs no mask.
  const auto full = CKKSVector::encrypt(context, testing::random_reals(2048, 1));
  EXPECT_EQ(full.rotate(5).level(), full.level());
  // Two full ciphertexts swapped: no mask either.
  const auto two = CKKSVector::encrypt(context, testing::random_reals(4096, 2));
  EXPECT_EQ(two.rotate(2048).level(), two.level());
  // Values that cross a ciphertext boundary or a partial one: one level.
  EXPECT_EQ(two.rotate(5).level() + 1, two.level());
  const auto small = CKKSVector::encrypt(context, testing::random_reals(5, 3));
  EXPECT_EQ(small.rotate(1).level() + 1, small.level());
}

TEST(CKKSVectorRotation, SlicesAndSumsAfterThem) {
  const auto& context = testing::shared_ckks_context();
  const Reals a = testing::random_reals(3000, 4);
  const auto x = CKKSVector::encrypt(context, a);
  for (const auto& [begin, end] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 1}, {2, 5}, {1000, 2500}, {2048, 3000}, {0, 3000}, {2999, 3000}}) {
    SCOPED_TRACE(std::to_string(begin) + ":" + std::to_string(end));
    const auto y = x.slice(begin, end);
    const Reals want(a.begin() + static_cast<std::ptrdiff_t>(begin),
                     a.begin() + static_cast<std::ptrdiff_t>(end));
    expect_close(y.decrypt(), want);
    // sum() reads every slot: the padding past the slice must be zeros.
    EXPECT_NEAR(y.sum().decrypt()[0], std::accumulate(want.begin(), want.end(), 0.0), 1e-3);
  }
  // A rotated vector combines with the original.
  const auto small = CKKSVector::encrypt(context, Reals{1, 2, 3, 4, 5});
  expect_close(small.rotate(2).add(small.slice(0, 5)).decrypt(), {4, 6, 8, 5, 7});
}

TEST(CKKSVectorRotation, TruncationKeepsTheFirstValuesWithNoLevel) {
  const auto& context = testing::shared_ckks_context();
  const Reals a = testing::random_reals(3000, 5);
  const auto x = CKKSVector::encrypt(context, a);
  for (const std::size_t size : {1u, 7u, 2048u, 2500u, 3000u}) {
    SCOPED_TRACE(size);
    const auto y = x.truncated(size);
    EXPECT_EQ(y.size(), size);
    EXPECT_EQ(y.level(), x.level());
    EXPECT_EQ(y.ciphertexts().size(), size > 2048 ? 2u : 1u);
    EXPECT_EQ(y.padding_is_zero(), size == 3000);
    const Reals want(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(size));
    expect_close(y.decrypt(), want);
    // sum() masks the slots past the size, which still hold x's values.
    EXPECT_NEAR(y.sum().decrypt()[0], std::accumulate(want.begin(), want.end(), 0.0), 1e-3);
  }
  EXPECT_THROW((void)x.truncated(0), InvalidArgument);
  EXPECT_THROW((void)x.truncated(3001), InvalidArgument);
}

TEST(CKKSVectorRotation, ErrorsAreTypedAndLeaveTheOperandUnchanged) {
  const Reals a = {1, 2, 3, 4, 5};
  const auto x = CKKSVector::encrypt(testing::shared_ckks_context(), a);
  EXPECT_THROW((void)x.slice(3, 3), InvalidArgument);
  EXPECT_THROW((void)x.slice(0, 6), InvalidArgument);
  EXPECT_THROW((void)CKKSVector().rotate(1), InvalidArgument);
  // No Galois keys: the message names the step.
  const auto no_keys = testing::make_ckks_context(2, false);
  const auto y = CKKSVector::encrypt(no_keys, a);
  try {
    (void)y.rotate(3);
    FAIL() << "a rotation without keys";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("CKKSVector::rotate"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find('3'), std::string::npos) << e.what();
  }
  // No level left for the masks.
  auto spent = CKKSVector::encrypt(testing::make_ckks_context(1, true), a);
  spent.mul_inplace(spent.copy());
  ASSERT_EQ(spent.level(), 0u);
  EXPECT_THROW((void)spent.rotate(1), InvalidArgument);
  expect_close(spent.decrypt(), {1, 4, 9, 16, 25});
  expect_close(x.decrypt(), a);
  expect_close(y.decrypt(), a);
}

}  // namespace
}  // namespace heft::tensor
