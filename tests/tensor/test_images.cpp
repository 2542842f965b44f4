// im2col encoding, conv2d_im2col and pack_vectors against a naive
// convolution written here in doubles: square and rectangular kernels and
// strides, several channels packed into one vector and sent through matmul,
// and the typed errors (sizes that do not fit, missing keys, no level).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "error_test_support.hpp"
#include "heft/tensor/images.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

const TensorContext::Ptr& context() {
  return testing::shared_ckks_context();
}

Matrix random_matrix(std::size_t rows, std::size_t cols, uint64_t seed) {
  Matrix m;
  for (std::size_t i = 0; i < rows; ++i)
    m.push_back(testing::random_reals(cols, seed * 1000 + i));
  return m;
}

// The oracle: out[r][c] = sum_(i,j) image[r s + i][c s + j] kernel[i][j],
// flattened row-major.
Reals naive_convolution(const Matrix& image, const Matrix& kernel, std::size_t stride) {
  const std::size_t kr = kernel.size(), kc = kernel[0].size();
  Reals out;
  for (std::size_t r = 0; r + kr <= image.size(); r += stride)
    for (std::size_t c = 0; c + kc <= image[0].size(); c += stride) {
      double sum = 0;
      for (std::size_t i = 0; i < kr; ++i)
        for (std::size_t j = 0; j < kc; ++j)
          sum += image[r + i][c + j] * kernel[i][j];
      out.push_back(sum);
    }
  return out;
}

void expect_close(const Reals& got, const Reals& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
}

struct ConvCase {
  std::size_t rows, cols, kernel_rows, kernel_cols, stride;
};

class Conv2dIm2col : public ::testing::TestWithParam<ConvCase> {};

TEST_P(Conv2dIm2col, MatchesNaiveConvolution) {
  const auto p = GetParam();
  const Matrix image = random_matrix(p.rows, p.cols, 1);
  const Matrix kernel = random_matrix(p.kernel_rows, p.kernel_cols, 2);
  const auto encoded = im2col_encoding(context(), image, p.kernel_rows, p.kernel_cols, p.stride);
  const Reals want = naive_convolution(image, kernel, p.stride);
  EXPECT_EQ(encoded.windows, want.size());
  const auto y = encoded.vector.conv2d_im2col(kernel, encoded.windows);
  EXPECT_EQ(y.size(), want.size());
  EXPECT_EQ(y.level(), encoded.vector.level() - 1);
  expect_close(y.decrypt(), want, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dIm2col,
                         ::testing::Values(ConvCase{16, 16, 4, 4, 2},  // 49 windows, 16 elements
                                           ConvCase{6, 7, 2, 3, 1},    // rectangular
                                           ConvCase{9, 9, 3, 3, 3},    // 9 windows, no overlap
                                           ConvCase{5, 5, 1, 1, 1},    // no rotation at all
                                           ConvCase{4, 6, 4, 6, 1},    // one window
                                           // 400 windows of 49: 13 ciphertexts of 4 blocks
                                           ConvCase{64, 64, 7, 7, 3},
                                           // 3969 windows: each block 2 whole ciphertexts
                                           ConvCase{64, 64, 2, 2, 1}));

TEST(Im2col, LayoutPutsEachWindowsPixelsInItsKernelElementsBlock) {
  // 3x4 image, 2x2 kernel, stride 1: 2x3 windows padded to 8.
  const Matrix image = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
  const auto layout = im2col_layout(image, 2, 2, 1);
  EXPECT_EQ(layout.windows, 6u);
  ASSERT_EQ(layout.values.size(), 4u * 8u);
  // Kernel element (0, 1), window (1, 2): pixel (1, 3) = 7.
  EXPECT_EQ(layout.values[1 * 8 + 1 * 3 + 2], 7);
  // Kernel element (1, 0), window (0, 0): pixel (1, 0) = 4; padding zero.
  EXPECT_EQ(layout.values[2 * 8 + 0], 4);
  EXPECT_EQ(layout.values[2 * 8 + 7], 0);
}

TEST(PackVectors, ChannelsOfAConvolutionIntoOneVectorForMatmul) {
  // TenSEAL's MNIST input path on a smaller image: 3 channels, bias added,
  // packed, squared, then a fully connected layer: four levels.
  static const auto deep = testing::make_ckks_context(4);
  const Matrix image = random_matrix(10, 10, 3);
  const auto encoded = im2col_encoding(deep, image, 3, 3, 2);  // 4x4 windows
  std::vector<CKKSVector> channels;
  Reals packed_want;
  for (uint64_t c = 0; c < 3; ++c) {
    const Matrix kernel = random_matrix(3, 3, 10 + c);
    const double bias = 0.25 * static_cast<double>(c) - 0.3;
    channels.push_back(encoded.vector.conv2d_im2col(kernel, encoded.windows).add(bias));
    for (const double v : naive_convolution(image, kernel, 2))
      packed_want.push_back(v + bias);
  }
  const auto packed = pack_vectors(channels);
  EXPECT_EQ(packed.size(), 48u);
  EXPECT_TRUE(packed.padding_is_zero());
  expect_close(packed.decrypt(), packed_want, 1e-5);
  // Zeros past the packed values: sum() is the plain sum.
  double total = 0;
  for (const double v : packed_want)
    total += v;
  EXPECT_NEAR(packed.sum().decrypt()[0], total, 1e-4);

  const Matrix fc = random_matrix(48, 5, 20);
  Reals fc_want(5, 0.0);
  for (std::size_t i = 0; i < 48; ++i)
    for (std::size_t j = 0; j < 5; ++j)
      fc_want[j] += packed_want[i] * packed_want[i] * fc[i][j];
  expect_close(packed.square().mm(fc).decrypt(), fc_want, 1e-4);
}

TEST(PackVectors, CleanVectorsKeepTheirLevel) {
  const Reals a = testing::random_reals(3, 1), b = testing::random_reals(5, 2);
  std::vector<CKKSVector> parts;
  parts.push_back(CKKSVector::encrypt(context(), a));
  parts.push_back(CKKSVector::encrypt(context(), b));
  const auto packed = pack_vectors(parts);
  EXPECT_EQ(packed.level(), parts[0].level());
  Reals want = a;
  want.insert(want.end(), b.begin(), b.end());
  expect_close(packed.decrypt(), want, 1e-6);
}

TEST(Images, ErrorsAreTyped) {
  using heft::testing::expect_error;
  const Matrix image = random_matrix(8, 8, 4), kernel = random_matrix(3, 3, 5);
  const auto encoded = im2col_encoding(context(), image, 3, 3, 1);  // 36 windows
  const auto before = encoded.vector.decrypt();
  expect_error<MismatchError>([&] { (void)encoded.vector.conv2d_im2col(kernel, 20); },
                              "conv2d_im2col");
  expect_error<MismatchError>(
      [&] { (void)encoded.vector.conv2d_im2col(random_matrix(2, 2, 6), 36); }, "2x2 kernel");
  expect_error<InvalidArgument>([&] { (void)encoded.vector.conv2d_im2col(Matrix{}, 36); },
                                "kernel is empty");
  expect_error<InvalidArgument>([&] { (void)encoded.vector.conv2d_im2col(kernel, 0); },
                                "no window");
  EXPECT_EQ(encoded.vector.decrypt(), before);
  expect_error<InvalidArgument>([&] { (void)im2col_encoding(context(), image, 9, 3, 1); },
                                "does not fit a 8x8 image");
  expect_error<InvalidArgument>([&] { (void)im2col_encoding(context(), image, 3, 3, 0); },
                                "stride is 0");
  expect_error<InvalidArgument>(
      [&] {
        (void)im2col_layout(Matrix{{1, 2}, {3}}, 1, 1, 1);
      },
      "differ in length");

  // Keys: a context without Galois keys names the steps.
  const auto bare = testing::make_ckks_context(3, false);
  const auto unkeyed = im2col_encoding(bare, image, 3, 3, 1);
  expect_error<InvalidArgument>([&] { (void)unkeyed.vector.conv2d_im2col(kernel, 36); }, "64, 128");
  std::vector<CKKSVector> two;
  two.push_back(CKKSVector::encrypt(bare, Reals{1, 2}));
  two.push_back(CKKSVector::encrypt(bare, Reals{3}));
  expect_error<InvalidArgument>([&] { (void)pack_vectors(two); }, "-2");

  // pack_vectors: contexts, sizes, levels.
  std::vector<CKKSVector> mixed;
  mixed.push_back(CKKSVector::encrypt(context(), Reals{1}));
  mixed.push_back(CKKSVector::encrypt(bare, Reals{1}));
  expect_error<MismatchError>([&] { (void)pack_vectors(mixed); }, "belongs to a different context");
  expect_error<InvalidArgument>([&] { (void)pack_vectors({}); }, "no vector");
  std::vector<CKKSVector> large;
  large.push_back(CKKSVector::encrypt(context(), Reals(1500, 0.5)));
  large.push_back(CKKSVector::encrypt(context(), Reals(600, 0.5)));
  expect_error<InvalidArgument>([&] { (void)pack_vectors(large); }, "2100 values");
  const auto shallow = testing::make_ckks_context(1);
  const auto conv = im2col_encoding(shallow, image, 3, 3, 1).vector.conv2d_im2col(kernel, 36);
  EXPECT_EQ(conv.level(), 0u);
  std::vector<CKKSVector> spent;
  spent.push_back(conv.copy());
  expect_error<InvalidArgument>([&] { (void)pack_vectors(spent); }, "needs 1 level");
  expect_error<InvalidArgument>(
      [&] {
        (void)im2col_encoding(shallow, image, 3, 3, 1).vector.mul(0.5).conv2d_im2col(kernel, 36);
      },
      "needs 1 level");
}

}  // namespace
}  // namespace heft::tensor
