// CKKSTensor (batched on the first axis) against the same computation in
// doubles written here: element-wise operations with tensors, broadcast
// tensors, plain tensors and scalars; square, polyval; sums along the batch
// and an inner axis; reshape, transpose; [batch, n] x [n, m] products; and
// the typed errors, operands unchanged.
#include <gtest/gtest.h>

#include <cmath>
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

// [batch 5, 2, 3] values and their element-wise twin.
const Reals a_values = testing::random_reals(30, 1), b_values = testing::random_reals(30, 2);

TEST(CKKSTensor, ElementWiseWithBroadcasting) {
  const auto a = CKKSTensor::encrypt(context(), PlainTensor(a_values, {5, 2, 3}));
  const auto b = CKKSTensor::encrypt(context(), PlainTensor(b_values, {5, 2, 3}));
  EXPECT_EQ(a.ciphertexts().size(), 6u);
  expect_close(a.decrypt(), {5, 2, 3}, a_values, 1e-6);
  Reals sum(30), product(30), poly(30);
  for (std::size_t i = 0; i < 30; ++i) {
    sum[i] = a_values[i] + b_values[i];
    product[i] = a_values[i] * b_values[i];
    poly[i] = 0.5 - a_values[i] + 2 * a_values[i] * a_values[i];
  }
  expect_close(a.add(b).decrypt(), {5, 2, 3}, sum, 1e-6);
  expect_close(a.mul(b).decrypt(), {5, 2, 3}, product, 1e-5);
  expect_close(a.add(PlainTensor(b_values, {5, 2, 3})).decrypt(), {5, 2, 3}, sum, 1e-6);
  expect_close(a.mul(PlainTensor(b_values, {5, 2, 3})).decrypt(), {5, 2, 3}, product, 1e-5);
  const std::vector<double> coefficients = {0.5, -1, 2};
  expect_close(a.polyval(coefficients).decrypt(), {5, 2, 3}, poly, 1e-5);
  Reals squared(30), shifted(30), scaled(30), negated(30);
  for (std::size_t i = 0; i < 30; ++i) {
    squared[i] = a_values[i] * a_values[i];
    shifted[i] = a_values[i] - 0.25;
    scaled[i] = a_values[i] * 1.5;
    negated[i] = -a_values[i];
  }
  expect_close(a.square().decrypt(), {5, 2, 3}, squared, 1e-5);
  expect_close(a.sub(0.25).decrypt(), {5, 2, 3}, shifted, 1e-6);
  expect_close(a.mul(1.5).decrypt(), {5, 2, 3}, scaled, 1e-5);
  expect_close(a.negate().decrypt(), {5, 2, 3}, negated, 1e-6);

  // A row of 3 (the same for every batch entry and row) stretches over
  // [5, 2, 3], as plain and as an encrypted [5, 1, 3] tensor.
  const Reals row = {1, -2, 3};
  Reals row_sum(30), row_product(30);
  for (std::size_t i = 0; i < 30; ++i) {
    row_sum[i] = a_values[i] + row[i % 3];
    row_product[i] = a_values[i] * row[i % 3];
  }
  expect_close(a.add(PlainTensor(row)).decrypt(), {5, 2, 3}, row_sum, 1e-6);
  Reals rows(15);
  for (std::size_t i = 0; i < 15; ++i)
    rows[i] = row[i % 3];
  const auto r = CKKSTensor::encrypt(context(), PlainTensor(rows, {5, 1, 3}));
  expect_close(a.mul(r).decrypt(), {5, 2, 3}, row_product, 1e-5);
  expect_close(
      r.sub(a).decrypt(), {5, 2, 3},
      [&] {
        Reals d(30);
        for (std::size_t i = 0; i < 30; ++i)
          d[i] = row[i % 3] - a_values[i];
        return d;
      }(),
      1e-6);
}

TEST(CKKSTensor, SumsShapesAndProducts) {
  const auto a = CKKSTensor::encrypt(context(), PlainTensor(a_values, {5, 2, 3}));
  // Sum over the batch: [1, 2, 3].
  Reals batch_sum(6, 0.0), axis2(10, 0.0);
  for (std::size_t i = 0; i < 30; ++i) {
    batch_sum[i % 6] += a_values[i];
    axis2[i / 3] += a_values[i];
  }
  expect_close(a.sum(0).decrypt(), {1, 2, 3}, batch_sum, 1e-5);
  expect_close(a.sum(2).decrypt(), {5, 2}, axis2, 1e-6);
  // Transpose of each batch entry's 2x3 matrix.
  Reals transposed(30);
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        transposed[b * 6 + j * 2 + i] = a_values[b * 6 + i * 3 + j];
  expect_close(a.transpose().decrypt(), {5, 3, 2}, transposed, 1e-6);
  const auto flat = a.reshape({5, 6});
  expect_close(flat.decrypt(), {5, 6}, a_values, 1e-6);
  // numpy's broadcast_to over the axes after the batch: [5, 2, 1, 3] -> [5, 2, 4, 3].
  Reals stretched(120);
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t k = 0; k < 4; ++k)
        for (std::size_t j = 0; j < 3; ++j)
          stretched[((b * 2 + i) * 4 + k) * 3 + j] = a_values[(b * 2 + i) * 3 + j];
  expect_close(a.reshape({5, 2, 1, 3}).broadcast_to({5, 2, 4, 3}).decrypt(), {5, 2, 4, 3},
               stretched, 1e-6);
  EXPECT_THROW((void)a.broadcast_to({5, 3, 3}), MismatchError);
  EXPECT_THROW((void)a.broadcast_to({4, 2, 3}), MismatchError);  // the batch cannot change
  // [5, 6] x [6, 4].
  const Reals m = testing::random_reals(24, 3);
  Reals want(20, 0.0);
  for (std::size_t b = 0; b < 5; ++b)
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 4; ++j)
        want[b * 4 + j] += a_values[b * 6 + i] * m[i * 4 + j];
  const auto product = flat.mm(PlainTensor(m, {6, 4}));
  EXPECT_EQ(product.level(), flat.level() - 1);
  expect_close(product.decrypt(), {5, 4}, want, 1e-5);
}

TEST(CKKSTensor, ErrorsAreTypedAndLeaveOperandsUnchanged) {
  auto a = CKKSTensor::encrypt(context(), PlainTensor(a_values, {5, 2, 3}));
  const auto before = a.decrypt().data();
  const auto other_batch = CKKSTensor::encrypt(context(), PlainTensor(Reals(6, 1.0), {1, 2, 3}));
  EXPECT_THROW((void)a.add(other_batch), MismatchError);
  EXPECT_THROW((void)a.add(PlainTensor(Reals(4, 1.0), {2, 2})), MismatchError);
  EXPECT_THROW((void)a.reshape({6, 5}), MismatchError);
  EXPECT_THROW((void)a.mm(PlainTensor(Reals(6, 1.0), {3, 2})), MismatchError);
  EXPECT_THROW((void)a.sum(3), InvalidArgument);
  const auto bare = testing::make_ckks_context(1, false);
  const auto c = CKKSTensor::encrypt(bare, PlainTensor(a_values, {5, 2, 3}));
  EXPECT_THROW((void)a.add(c), MismatchError);
  EXPECT_THROW((void)c.sum(0), InvalidArgument);             // no Galois keys
  EXPECT_THROW((void)c.square().square(), InvalidArgument);  // one level
  EXPECT_THROW((void)CKKSTensor::encrypt(context(), PlainTensor(Reals(4096, 1.0), {4096, 1})),
               InvalidArgument);
  EXPECT_EQ(a.decrypt().data().size(), before.size());
  const auto after = a.decrypt().data();
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_NEAR(after[i], before[i], 1e-9);
}

}  // namespace
}  // namespace heft::tensor
