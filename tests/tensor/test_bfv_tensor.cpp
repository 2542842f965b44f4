// BFVTensor against exact integer arithmetic modulo t on the same values
// (a numpy-like reference written here): batched [4, 2, 3] and unbatched
// ([1, ...]) tensors, element-wise operations with tensors (broadcast),
// plain tensors and scalars, negation, squares, polynomials, sums along the
// batch and along other axes, reshape, transpose, broadcast_to,
// serialization, and errors with the operands unchanged.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/tensor/bfv_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

constexpr int64_t kT = 1032193;

const TensorContext::Ptr& context() {
  static const auto c = testing::make_bfv_context();
  return c;
}

// x mod t in (-t/2, t/2], as decrypt() returns it.
double centre(__int128 x) {
  auto r = static_cast<int64_t>(x % kT);
  if (r < 0) r += kT;
  return static_cast<double>(r > kT / 2 ? r - kT : r);
}

std::vector<double> random_integers(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> value(-500, 500);
  std::vector<double> out(n);
  for (auto& v : out)
    v = static_cast<double>(value(rng));
  return out;
}

void expect_tensor(const PlainTensor& got, const Shape& shape, const std::vector<double>& want) {
  EXPECT_EQ(got.shape(), shape);
  ASSERT_EQ(got.data().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(got.data()[i], want[i]) << "at " << i;
}

const std::vector<double> a_values = random_integers(24, 1), b_values = random_integers(3, 2);

TEST(BFVTensor, ElementWiseExactWithBroadcasting) {
  const auto a = BFVTensor::encrypt(context(), PlainTensor(a_values, {4, 2, 3}));
  expect_tensor(a.decrypt(), {4, 2, 3}, a_values);
  // [4, 2, 3] with [4, 3] (inner [3] broadcast over [2, 3]).
  std::vector<double> b_batched(12);
  for (std::size_t i = 0; i < 12; ++i)
    b_batched[i] = b_values[i % 3] + static_cast<double>(i / 3);
  const auto b = BFVTensor::encrypt(context(), PlainTensor(b_batched, {4, 3}));
  std::vector<double> sum(24), diff(24), product(24);
  for (std::size_t i = 0; i < 24; ++i) {
    const auto x = static_cast<__int128>(a_values[i]);
    const auto y = static_cast<__int128>(b_batched[(i / 6) * 3 + i % 3]);
    sum[i] = centre(x + y);
    diff[i] = centre(x - y);
    product[i] = centre(x * y);
  }
  expect_tensor(a.add(b).decrypt(), {4, 2, 3}, sum);
  expect_tensor(a.sub(b).decrypt(), {4, 2, 3}, diff);
  expect_tensor(a.mul(b).decrypt(), {4, 2, 3}, product);
  // Plain [2, 3] broadcast over the batch, and scalars.
  const auto plain = PlainTensor(random_integers(6, 3), {2, 3});
  std::vector<double> plain_product(24), shifted(24), scaled(24), negated(24), squared(24),
      poly(24);
  for (std::size_t i = 0; i < 24; ++i) {
    const auto x = static_cast<__int128>(a_values[i]);
    plain_product[i] = centre(x * static_cast<__int128>(plain.data()[i % 6]));
    shifted[i] = centre(x - 7);
    scaled[i] = centre(x * 3);
    negated[i] = centre(-x);
    squared[i] = centre(x * x);
    poly[i] = centre(2 - 3 * x + 5 * x * x * x);
  }
  expect_tensor(a.mul(plain).decrypt(), {4, 2, 3}, plain_product);
  expect_tensor(a.sub(int64_t{7}).decrypt(), {4, 2, 3}, shifted);
  expect_tensor(a.mul(int64_t{3}).decrypt(), {4, 2, 3}, scaled);
  expect_tensor(a.negate().decrypt(), {4, 2, 3}, negated);
  expect_tensor(a.square().decrypt(), {4, 2, 3}, squared);
  const std::vector<int64_t> coefficients = {2, -3, 0, 5};
  expect_tensor(a.polyval(coefficients).decrypt(), {4, 2, 3}, poly);
}

TEST(BFVTensor, SumsAndShapes) {
  const auto a = BFVTensor::encrypt(context(), PlainTensor(a_values, {4, 2, 3}));
  std::vector<double> batch_sum(6, 0.0), axis2(8, 0.0);
  for (std::size_t i = 0; i < 24; ++i) {
    batch_sum[i % 6] += a_values[i];
    axis2[i / 3] += a_values[i];
  }
  expect_tensor(a.sum(0).decrypt(), {1, 2, 3}, batch_sum);
  expect_tensor(a.sum(2).decrypt(), {4, 2}, axis2);
  std::vector<double> transposed(24);
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        transposed[b * 6 + j * 2 + i] = a_values[b * 6 + i * 3 + j];
  expect_tensor(a.transpose().decrypt(), {4, 3, 2}, transposed);
  expect_tensor(a.reshape({4, 6}).decrypt(), {4, 6}, a_values);
  std::vector<double> stretched(48);
  for (std::size_t i = 0; i < 48; ++i)
    stretched[i] = a_values[(i / 12) * 6 + ((i / 3) % 2) * 3 + i % 3];
  expect_tensor(a.reshape({4, 1, 2, 3}).broadcast_to({4, 2, 2, 3}).decrypt(), {4, 2, 2, 3},
                stretched);
  // Unbatched (TenSEAL's default): a batch of one.
  const auto u = BFVTensor::encrypt(context(), PlainTensor(b_values, {1, 3}));
  expect_tensor(u.sum(1).decrypt(), {1}, {b_values[0] + b_values[1] + b_values[2]});
  // Serialization round trip.
  const auto loaded = BFVTensor::load(context(), a.serialize());
  expect_tensor(loaded.decrypt(), {4, 2, 3}, a_values);
}

TEST(BFVTensor, ErrorsAreTypedAndLeaveOperandsUnchanged) {
  const auto a = BFVTensor::encrypt(context(), PlainTensor(a_values, {4, 2, 3}));
  EXPECT_THROW((void)BFVTensor::encrypt(context(), PlainTensor({1.5, 2}, {2})), InvalidArgument);
  EXPECT_THROW((void)a.mul(PlainTensor({0.5}, {1})), InvalidArgument);
  const auto other_batch = BFVTensor::encrypt(context(), PlainTensor({1, 2, 3}, {1, 3}));
  EXPECT_THROW((void)a.add(other_batch), MismatchError);
  EXPECT_THROW((void)a.add(PlainTensor(std::vector<double>(4, 1.0), {2, 2})), MismatchError);
  EXPECT_THROW((void)a.reshape({6, 4}), MismatchError);
  EXPECT_THROW((void)a.broadcast_to({4, 3, 3}), MismatchError);
  EXPECT_THROW((void)a.sum(3), InvalidArgument);
  EXPECT_THROW((void)BFVTensor::encrypt(testing::shared_ckks_context(), PlainTensor({1}, {1})),
               InvalidArgument);
  EXPECT_THROW((void)BFVTensor::load(testing::shared_ckks_context(), a.serialize()),
               InvalidArgument);
  EXPECT_THROW((void)BFVTensor().decrypt(), InvalidArgument);
  expect_tensor(a.decrypt(), {4, 2, 3}, a_values);
}

}  // namespace
}  // namespace heft::tensor
