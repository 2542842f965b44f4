// CKKSTensor's rotations of the batch (one step, several hoisted) and take
// along an inner axis, against numpy's roll and take written here in
// doubles; the refusals (a batch short of the slots, missing keys naming the
// step, the batch axis, indices out of range), operands unchanged.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using testing::expect_close;
using Reals = std::vector<double>;

const TensorContext::Ptr& context() {
  return testing::shared_ckks_context();
}

// numpy's roll(x, -steps, axis=0) of a [batch, inner] row-major array.
Reals rolled(const Reals& x, std::size_t batch, std::size_t inner, int64_t steps) {
  Reals out(x.size());
  const auto n = static_cast<int64_t>(batch);
  for (std::size_t b = 0; b < batch; ++b) {
    const auto from = static_cast<std::size_t>(((static_cast<int64_t>(b) + steps) % n + n) % n);
    for (std::size_t e = 0; e < inner; ++e)
      out[b * inner + e] = x[from * inner + e];
  }
  return out;
}

TEST(CKKSTensorSlots, RotateRollsTheBatchOfEveryElement) {
  const std::size_t batch = context()->slot_count(), inner = 3;
  const Reals x = testing::random_reals(batch * inner, 11);
  const auto t = CKKSTensor::encrypt(context(), PlainTensor(x, {batch, inner}));
  for (const int64_t steps : {int64_t{1}, int64_t{3}, int64_t{-5}, int64_t{0}}) {
    const CKKSTensor r = t.rotate(steps);
    EXPECT_EQ(r.level(), t.level()) << "a rotation spends no level";
    expect_close(r.decrypt(), {batch, inner}, rolled(x, batch, inner, steps), 1e-5);
  }
}

TEST(CKKSTensorSlots, HoistedRotationsAddAnAxisAfterTheBatch) {
  const std::size_t batch = context()->slot_count();
  const Reals x = testing::random_reals(batch * 2, 12);
  const auto t = CKKSTensor::encrypt(context(), PlainTensor(x, {batch, 2}));
  const std::vector<int64_t> steps = {0, 1, 4, -2, 33};
  const CKKSTensor r = t.rotate_hoisted(steps);
  Reals want(batch * steps.size() * 2);
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Reals one = rolled(x, batch, 2, steps[s]);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t e = 0; e < 2; ++e)
        want[(b * steps.size() + s) * 2 + e] = one[b * 2 + e];
  }
  expect_close(r.decrypt(), {batch, steps.size(), 2}, want, 1e-5);
  // A 1-D tensor (one ciphertext) gets the new axis as its second.
  const Reals y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(batch));
  const auto v = CKKSTensor::encrypt(context(), PlainTensor(y, {batch}));
  const std::vector<int64_t> two = {2, -1};
  Reals want_v(batch * 2);
  for (std::size_t s = 0; s < 2; ++s) {
    const Reals one = rolled(y, batch, 1, two[s]);
    for (std::size_t b = 0; b < batch; ++b)
      want_v[b * 2 + s] = one[b];
  }
  expect_close(v.rotate_hoisted(two).decrypt(), {batch, 2}, want_v, 1e-5);
}

TEST(CKKSTensorSlots, TakePicksElementsAlongAnInnerAxis) {
  const Reals x = testing::random_reals(4 * 2 * 3, 13);
  const auto t = CKKSTensor::encrypt(context(), PlainTensor(x, {4, 2, 3}));
  const std::vector<std::size_t> last = {2, 0, 2}, first = {1};
  Reals want_last, want_first;
  for (std::size_t b = 0; b < 4; ++b) {
    for (std::size_t i = 0; i < 2; ++i)
      for (const std::size_t j : last)
        want_last.push_back(x[(b * 2 + i) * 3 + j]);
    for (std::size_t j = 0; j < 3; ++j)
      want_first.push_back(x[(b * 2 + 1) * 3 + j]);
  }
  expect_close(t.take(2, last).decrypt(), {4, 2, 3}, want_last, 1e-6);
  expect_close(t.take(1, first).decrypt(), {4, 1, 3}, want_first, 1e-6);
}

TEST(CKKSTensorSlots, RefusalsAreTypedAndLeaveTheTensorUnchanged) {
  const Reals x = testing::random_reals(8 * 2, 14);
  const auto short_batch = CKKSTensor::encrypt(context(), PlainTensor(x, {8, 2}));
  EXPECT_THROW((void)short_batch.rotate(1), InvalidArgument);
  const std::vector<std::size_t> none, out_of_range = {2}, zero = {0};
  EXPECT_THROW((void)short_batch.take(0, zero), InvalidArgument);
  EXPECT_THROW((void)short_batch.take(1, out_of_range), InvalidArgument);
  EXPECT_THROW((void)short_batch.take(1, none), InvalidArgument);
  EXPECT_THROW((void)short_batch.take(2, zero), InvalidArgument);
  expect_close(short_batch.decrypt(), {8, 2}, x, 1e-6);

  const auto keyless = testing::make_ckks_context(2, false);
  const std::size_t batch = keyless->slot_count();
  const Reals y = testing::random_reals(batch, 15);
  const auto t = CKKSTensor::encrypt(keyless, PlainTensor(y, {batch}));
  try {
    (void)t.rotate(7);
    FAIL() << "rotated without Galois keys";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("rotation steps 7"), std::string::npos) << e.what();
  }
  const std::vector<int64_t> steps = {1, 2};
  EXPECT_THROW((void)t.rotate_hoisted(steps), InvalidArgument);
  EXPECT_THROW((void)t.rotate_hoisted(std::vector<int64_t>{}), InvalidArgument);
  EXPECT_THROW((void)t.bootstrap(), InvalidArgument);
  EXPECT_THROW((void)t.refresh_for(t.level() + 1), InvalidArgument);
  expect_close(t.decrypt(), {batch}, y, 1e-6);
}

}  // namespace
}  // namespace heft::tensor
