// CKKSTensor::conv2d and the weighted sums under it and under mm, against a
// direct convolution in doubles written here (one and several input
// channels, strides 1 and 2, two layers chained), the typed errors, and
// MnistNetwork's throughput mode on real Fashion-MNIST images against the
// plain network.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fashion_mnist.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/mnist_network.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using testing::expect_close;
using Reals = std::vector<double>;

// out[b][o][r][c] = sum_{i,kr,kc} in[b][i][r*s+kr][c*s+kc] k[o][i][kr][kc].
Reals direct_convolution(const Reals& in, std::size_t batch, std::size_t channels, std::size_t side,
                         const Reals& k, std::size_t outs, std::size_t ks, std::size_t stride) {
  const std::size_t out_side = (side - ks) / stride + 1;
  Reals out(batch * outs * out_side * out_side, 0.0);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t o = 0; o < outs; ++o)
      for (std::size_t r = 0; r < out_side; ++r)
        for (std::size_t c = 0; c < out_side; ++c) {
          double sum = 0;
          for (std::size_t i = 0; i < channels; ++i)
            for (std::size_t kr = 0; kr < ks; ++kr)
              for (std::size_t kc = 0; kc < ks; ++kc)
                sum += in[((b * channels + i) * side + r * stride + kr) * side + c * stride + kc] *
                       k[((o * channels + i) * ks + kr) * ks + kc];
          out[((b * outs + o) * out_side + r) * out_side + c] = sum;
        }
  return out;
}

TEST(CKKSTensorConv, OneChannelStrideTwoMatchesTheDirectSum) {
  const auto& context = testing::shared_ckks_context();
  const std::size_t batch = 6, side = 7, outs = 3, ks = 3, stride = 2;
  const Reals image = testing::random_reals(batch * side * side, 11);
  const Reals kernels = testing::random_reals(outs * ks * ks, 12);
  const auto x = CKKSTensor::encrypt(context, PlainTensor(image, {batch, side, side}));
  const auto y = x.conv2d(PlainTensor(kernels, {outs, ks, ks}), stride);
  EXPECT_EQ(y.level(), x.level() - 1);
  expect_close(y.decrypt(), {batch, outs, 3, 3},
               direct_convolution(image, batch, 1, side, kernels, outs, ks, stride), 1e-5);
}

TEST(CKKSTensorConv, TwoLayersOfSeveralChannelsChain) {
  const auto& context = testing::shared_ckks_context();
  const std::size_t batch = 3, side = 6, in = 2, mid = 3, out = 2, ks = 2;
  const Reals image = testing::random_reals(batch * in * side * side, 21);
  const Reals k1 = testing::random_reals(mid * in * ks * ks, 22);
  const Reals k2 = testing::random_reals(out * mid * ks * ks, 23);
  const auto x = CKKSTensor::encrypt(context, PlainTensor(image, {batch, in, side, side}));
  const auto y =
      x.conv2d(PlainTensor(k1, {mid, in, ks, ks})).conv2d(PlainTensor(k2, {out, mid, ks, ks}));
  const Reals h = direct_convolution(image, batch, in, side, k1, mid, ks, 1);
  expect_close(y.decrypt(), {batch, out, 4, 4},
               direct_convolution(h, batch, mid, side - 1, k2, out, ks, 1), 1e-4);
}

TEST(CKKSTensorConv, BadShapesAreRefusedAndTheOperandKept) {
  const auto& context = testing::shared_ckks_context();
  const Reals image = testing::random_reals(2 * 4 * 4, 31);
  const auto x = CKKSTensor::encrypt(context, PlainTensor(image, {2, 4, 4}));
  EXPECT_THROW((void)x.conv2d(PlainTensor(Reals(2 * 2 * 3 * 3, 1.0), {2, 2, 3, 3})),
               MismatchError);  // two input channels for a one-channel tensor
  EXPECT_THROW((void)x.conv2d(PlainTensor(Reals(25, 1.0), {1, 5, 5})), MismatchError);
  EXPECT_THROW((void)x.conv2d(PlainTensor(Reals(4, 1.0), {1, 2, 2}), 0), InvalidArgument);
  EXPECT_THROW((void)x.conv2d(PlainTensor({1.0, NAN, 1.0, 1.0}, {1, 2, 2})), InvalidArgument);
  EXPECT_THROW((void)CKKSTensor::encrypt(context, PlainTensor(Reals(8, 1.0), {2, 4}))
                   .conv2d(PlainTensor(Reals(4, 1.0), {1, 2, 2})),
               MismatchError);
  expect_close(x.decrypt(), {2, 4, 4}, image, 1e-6);
}

TEST(CKKSTensorConv, AveragePoolingPerChannel) {
  const auto& context = testing::shared_ckks_context();
  const std::size_t batch = 3, channels = 2, side = 6, kernel = 2, stride = 2;
  const Reals image = testing::random_reals(batch * channels * side * side, 71);
  Reals kernels(channels * channels * kernel * kernel, 0.0);  // depthwise: identity across channels
  for (std::size_t c = 0; c < channels; ++c)
    for (std::size_t k = 0; k < kernel * kernel; ++k)
      kernels[(c * channels + c) * kernel * kernel + k] = 0.25;
  const auto x = CKKSTensor::encrypt(context, PlainTensor(image, {batch, channels, side, side}));
  expect_close(x.avg_pool2d(kernel, stride).decrypt(), {batch, channels, 3, 3},
               direct_convolution(image, batch, channels, side, kernels, channels, kernel, stride),
               1e-6);
  EXPECT_THROW((void)x.avg_pool2d(7, 1), MismatchError);
  EXPECT_THROW((void)x.avg_pool2d(2, 0), InvalidArgument);
}

TEST(MnistNetworkBatch, ThroughputModeAgreesWithThePlainNetworkOnFashionMnist) {
  // 16 real images in one evaluation, on the tutorial's context.
  std::vector<Matrix> images;
  for (const auto& pixels :
       heft::testing::read_idx_images(heft::testing::kFashionMnistTestImages, 16)) {
    Matrix image;
    for (const auto& row : pixels) {
      image.emplace_back();
      for (const uint8_t p : row)
        image.back().push_back((p / 255.0 - 0.1307) / 0.3081);
    }
    images.push_back(std::move(image));
  }
  const auto net = MnistNetwork::random(2026);
  const auto context = MnistNetwork::make_context(rlwe::SecurityLevel::none);
  const auto logits = net.evaluate_batch(MnistNetwork::encrypt_batch(context, images)).decrypt();
  ASSERT_EQ(logits.shape(), (Shape{16, MnistNetwork::classes}));
  for (std::size_t b = 0; b < images.size(); ++b) {
    const auto want = net.evaluate_plain(images[b]);
    double largest = 1;
    for (const double v : want)
      largest = std::max(largest, std::abs(v));
    for (std::size_t j = 0; j < want.size(); ++j)
      EXPECT_NEAR(logits.data()[b * MnistNetwork::classes + j], want[j], 0.15 * largest)
          << "image " << b << ", logit " << j;
  }
}

}  // namespace
}  // namespace heft::tensor
