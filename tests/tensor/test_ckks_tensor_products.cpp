// CKKSTensor::mm of two encrypted tensors against the matrix products in
// doubles written here, batch entry by batch entry: matrix x matrix,
// vector x matrix, a batch of one (TenSEAL's ckks_tensor mm), the lazy and
// the per-product relinearization, and the typed errors.
#include <gtest/gtest.h>

#include <vector>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using testing::expect_close;
using Reals = std::vector<double>;

// c[b][i][j] = sum_l a[b][i][l] * m[b][l][j].
Reals batched_product(const Reals& a, const Reals& m, std::size_t batch, std::size_t n,
                      std::size_t k, std::size_t cols) {
  Reals c(batch * n * cols, 0.0);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        for (std::size_t l = 0; l < k; ++l)
          c[(b * n + i) * cols + j] += a[(b * n + i) * k + l] * m[(b * k + l) * cols + j];
  return c;
}

TEST(CKKSTensorProducts, MatrixTimesMatrixPerBatchEntry) {
  const auto& context = testing::shared_ckks_context();
  const std::size_t batch = 4, n = 2, k = 5, m = 3;
  const Reals a = testing::random_reals(batch * n * k, 41),
              b = testing::random_reals(batch * k * m, 42);
  const auto x = CKKSTensor::encrypt(context, PlainTensor(a, {batch, n, k}));
  const auto y = CKKSTensor::encrypt(context, PlainTensor(b, {batch, k, m}));
  const auto z = x.mm(y);
  EXPECT_EQ(z.level(), x.level() - 1);
  EXPECT_EQ(z.ciphertexts()[0].size(), 2u);
  expect_close(z.decrypt(), {batch, n, m}, batched_product(a, b, batch, n, k, m), 1e-5);
}

TEST(CKKSTensorProducts, VectorTimesMatrixAndABatchOfOne) {
  const auto& context = testing::shared_ckks_context();
  const Reals v = testing::random_reals(3 * 4, 51), b = testing::random_reals(3 * 4 * 2, 52);
  const auto z = CKKSTensor::encrypt(context, PlainTensor(v, {3, 4}))
                     .mm(CKKSTensor::encrypt(context, PlainTensor(b, {3, 4, 2})));
  expect_close(z.decrypt(), {3, 2}, batched_product(v, b, 3, 1, 4, 2), 1e-5);
  // TenSEAL's enc_a.mm(enc_b) on two encrypted matrices: a batch of one.
  const Reals a1 = testing::random_reals(3 * 2, 53), b1 = testing::random_reals(2 * 4, 54);
  const auto z1 = CKKSTensor::encrypt(context, PlainTensor(a1, {1, 3, 2}))
                      .mm(CKKSTensor::encrypt(context, PlainTensor(b1, {1, 2, 4})));
  expect_close(z1.decrypt(), {1, 3, 4}, batched_product(a1, b1, 1, 3, 2, 4), 1e-5);
}

TEST(CKKSTensorProducts, WithoutAutoRescaleEachProductIsRelinearizedAlone) {
  auto context = testing::make_ckks_context(3);
  context->set_auto_rescale(false);
  const Reals a = testing::random_reals(2 * 3, 61), b = testing::random_reals(2 * 3 * 2, 62);
  const auto z = CKKSTensor::encrypt(context, PlainTensor(a, {2, 3}))
                     .mm(CKKSTensor::encrypt(context, PlainTensor(b, {2, 3, 2})));
  EXPECT_EQ(z.ciphertexts()[0].size(), 2u);
  expect_close(z.decrypt(), {2, 2}, batched_product(a, b, 2, 1, 3, 2), 1e-5);
}

TEST(CKKSTensorProducts, MismatchedShapesAreRefused) {
  const auto& context = testing::shared_ckks_context();
  const auto x = CKKSTensor::encrypt(context, PlainTensor(Reals(2 * 2 * 3, 0.5), {2, 2, 3}));
  const auto wrong_inner =
      CKKSTensor::encrypt(context, PlainTensor(Reals(2 * 2 * 2, 1), {2, 2, 2}));
  const auto wrong_batch =
      CKKSTensor::encrypt(context, PlainTensor(Reals(3 * 3 * 2, 1), {3, 3, 2}));
  EXPECT_THROW((void)x.mm(wrong_inner), MismatchError);
  EXPECT_THROW((void)x.mm(wrong_batch), MismatchError);
  EXPECT_THROW((void)x.mm(x.reshape({2, 6})), MismatchError);
  const auto other = CKKSTensor::encrypt(testing::make_ckks_context(3, false),
                                         PlainTensor(Reals(2 * 3 * 2, 1), {2, 3, 2}));
  EXPECT_THROW((void)x.mm(other), MismatchError);
  expect_close(x.decrypt(), {2, 2, 3}, Reals(12, 0.5), 1e-6);
}

}  // namespace
}  // namespace heft::tensor
