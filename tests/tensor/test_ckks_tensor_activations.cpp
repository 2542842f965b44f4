// CKKSTensor::relu and max through a composite sign approximation, against
// max(x, 0) and max(a, b) in doubles, on values away from the approximation's
// blind spot |x| < epsilon (checked within epsilon there), and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "heft/circuits/approximation.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

TEST(CKKSTensorActivations, ReluAndMaxMatchTheirDoubles) {
  const auto sign = circuits::sign_approximation(0.05, 10, 15);
  const auto context = testing::make_ckks_context(sign.depth() + 2, false);
  const Reals a = testing::random_reals(4 * 3, 81, 0.5), b = testing::random_reals(4 * 3, 82, 0.5);
  const auto x = CKKSTensor::encrypt(context, PlainTensor(a, {4, 3}));
  const auto y = CKKSTensor::encrypt(context, PlainTensor(b, {4, 3}));
  const auto relu = x.relu(sign).decrypt();
  const auto largest = x.max(y, sign).decrypt();
  ASSERT_EQ(relu.shape(), (Shape{4, 3}));
  for (std::size_t i = 0; i < a.size(); ++i) {
    // Within 2^-10 where the sign is resolved, within epsilon = 0.05 of the
    // kink otherwise.
    const double relu_tol = std::abs(a[i]) >= 0.05 ? 2e-3 : 0.05;
    EXPECT_NEAR(relu.data()[i], std::max(a[i], 0.0), relu_tol) << "relu at " << i;
    const double max_tol = std::abs(a[i] - b[i]) >= 0.05 ? 2e-3 : 0.05;
    EXPECT_NEAR(largest.data()[i], std::max(a[i], b[i]), max_tol) << "max at " << i;
  }
}

TEST(CKKSTensorActivations, TooFewLevelsOrShapesThatDifferAreRefused) {
  const auto sign = circuits::sign_approximation(0.05, 10, 15);
  const auto& shallow = testing::shared_ckks_context();  // 3 levels
  const auto x = CKKSTensor::encrypt(shallow, PlainTensor(Reals(6, 0.25), {2, 3}));
  EXPECT_THROW((void)x.relu(sign), InvalidArgument);
  const auto y = CKKSTensor::encrypt(shallow, PlainTensor(Reals(4, 0.25), {2, 2}));
  EXPECT_THROW((void)x.max(y, sign), MismatchError);
}

}  // namespace
}  // namespace heft::tensor
