// PlainTensor against values worked out by hand: reshape, transpose (2-D
// and a 3-D permutation), numpy's broadcasting, sums along each axis, and
// the typed errors.
#include <gtest/gtest.h>

#include <vector>

#include "heft/tensor/plain_tensor.hpp"
#include "heft/util/error.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

TEST(PlainTensor, ShapeOperations) {
  const PlainTensor m({1, 2, 3, 4, 5, 6}, {2, 3});
  const std::vector<std::size_t> index = {1, 2};
  EXPECT_EQ(m.at(index), 6);
  EXPECT_EQ(m.reshape({3, 2}).shape(), (Shape{3, 2}));
  EXPECT_EQ(m.transpose().data(), (Reals{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(m.transpose().shape(), (Shape{3, 2}));
  // [2, 2, 2] with axes (2, 0, 1): out[i][j][k] = in[j][k][i].
  const PlainTensor t({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  const std::vector<std::size_t> permutation = {2, 0, 1};
  EXPECT_EQ(t.transpose(permutation).data(), (Reals{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(m.sum(0).data(), (Reals{5, 7, 9}));
  EXPECT_EQ(m.sum(1).data(), (Reals{6, 15}));
  EXPECT_EQ(t.sum(1).data(), (Reals{2, 4, 10, 12}));
  EXPECT_EQ(PlainTensor({1, 2, 3}).sum(0).data(), (Reals{6}));
}

TEST(PlainTensor, Broadcasting) {
  EXPECT_EQ(PlainTensor::broadcast_shape({4, 1, 3}, {2, 1}, "test"), (Shape{4, 2, 3}));
  EXPECT_EQ(PlainTensor({10, 20}, {2, 1}).broadcast_to({2, 3}).data(),
            (Reals{10, 10, 10, 20, 20, 20}));
  EXPECT_EQ(PlainTensor({1, 2, 3}).broadcast_to({2, 3}).data(), (Reals{1, 2, 3, 1, 2, 3}));
  EXPECT_THROW((void)PlainTensor::broadcast_shape({2, 3}, {4}, "test"), MismatchError);
  EXPECT_THROW((void)PlainTensor({1, 2, 3}, {3}).broadcast_to({1}), MismatchError);
}

TEST(PlainTensor, ErrorsAreTyped) {
  EXPECT_THROW(PlainTensor({1, 2, 3}, {2, 2}), InvalidArgument);
  EXPECT_THROW(PlainTensor({}, {0}), InvalidArgument);
  const PlainTensor m({1, 2, 3, 4}, {2, 2});
  EXPECT_THROW((void)m.reshape({3}), MismatchError);
  const std::vector<std::size_t> bad = {0, 0};
  EXPECT_THROW((void)m.transpose(bad), InvalidArgument);
  EXPECT_THROW((void)m.sum(2), InvalidArgument);
  const std::vector<std::size_t> past = {2, 0};
  EXPECT_THROW((void)m.at(past), InvalidArgument);
}

}  // namespace
}  // namespace heft::tensor
