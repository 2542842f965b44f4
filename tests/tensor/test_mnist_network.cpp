// TenSEAL's MNIST tutorial network, encrypted, on three real images of
// Debian's dataset-fashion-mnist, against the same network in doubles
// (MnistNetwork::evaluate_plain, checked here against a second, direct
// computation of its first layer), on TenSEAL's MNIST context (N = 8192,
// primes [40, 21 x 6, 40], scale 2^21, 128-bit secure).
//
// Tolerances. On a precise twin of the context (the same ring, primes of
// 40 bits, scale 2^40) the encrypted logits match to 1e-5 (observed: under
// 4e-7): the network is right. On TenSEAL's context the scale is only
// about 2^20.4, so the noise of a fresh public-key encryption, about
// sqrt(N) 237 / 2^20.4 ~ 0.015 per pixel, is what the network amplifies
// (the two squares double its relative size each): observed errors are 1% -
// 5% of the largest logit on 10 images; asserted: 15% of the largest
// |logit| (at least 0.1). The argmax must agree: on these three images the
// top two plain logits differ by 4x the observed error or more.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fashion_mnist.hpp"
#include "heft/tensor/mnist_network.hpp"
#include "heft/util/error.hpp"

namespace heft::tensor {
namespace {

// The tutorial's input transform: pixels / 255, normalised by MNIST's mean
// 0.1307 and deviation 0.3081.
Matrix normalise(const std::vector<std::vector<uint8_t>>& image) {
  Matrix out;
  for (const auto& row : image) {
    out.emplace_back();
    for (const uint8_t pixel : row)
      out.back().push_back((pixel / 255.0 - 0.1307) / 0.3081);
  }
  return out;
}

std::size_t argmax(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

std::vector<Matrix> fashion_mnist_images(std::size_t count) {
  std::vector<Matrix> images;
  try {
    for (const auto& pixels :
         heft::testing::read_idx_images(heft::testing::kFashionMnistTestImages, count))
      images.push_back(normalise(pixels));
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  return images;
}

TEST(MnistNetwork, EncryptedLogitsAgreeWithThePlainNetworkOnFashionMnist) {
  const auto images = fashion_mnist_images(3);
  ASSERT_EQ(images.size(), 3u);
  const auto net = MnistNetwork::random(2026);
  const auto context = MnistNetwork::make_context();
  double worst = 0;
  for (const auto& image : images) {
    const auto want = net.evaluate_plain(image);
    const auto encrypted = net.evaluate(MnistNetwork::encrypt(context, image));
    EXPECT_EQ(encrypted.level(), 0u);  // all six levels used
    const auto got = encrypted.decrypt();
    ASSERT_EQ(got.size(), MnistNetwork::classes);
    double largest = 1;
    for (const double v : want)
      largest = std::max(largest, std::abs(v));
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 0.15 * largest) << "logit " << i;
      worst = std::max(worst, std::abs(got[i] - want[i]) / largest);
    }
    EXPECT_EQ(argmax(got), argmax(want));
  }
  std::printf("largest logit error: %.3g of the largest logit\n", worst);
}

TEST(MnistNetwork, EncryptedLogitsAreExactOnAPreciseContext) {
  // The same network and ring with 40-bit primes and scale 2^40 (insecure
  // at N = 8192, but the pipeline is what is checked).
  const auto images = fashion_mnist_images(1);
  ASSERT_EQ(images.size(), 1u);
  TenSEALArguments arguments;
  arguments.poly_modulus_degree = 8192;
  arguments.coeff_mod_bit_sizes = {60, 40, 40, 40, 40, 40, 40, 60};
  arguments.global_scale = std::ldexp(1.0, 40);
  arguments.security = rlwe::SecurityLevel::none;
  const auto context = TensorContext::create(arguments);
  context->generate_galois_keys();
  const auto net = MnistNetwork::random(2026);
  const auto want = net.evaluate_plain(images[0]);
  const auto got = net.evaluate(MnistNetwork::encrypt(context, images[0])).decrypt();
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5) << "logit " << i;
}

TEST(MnistNetwork, ContextKeepsItsScaleNearTwoToThe21AtEveryLevel) {
  // Its 21-bit primes are all below 2^20.8: a chain that starts at 2^21 at
  // the top and squares down would reach 2^41 at level 1 and overflow fc2.
  const auto context = MnistNetwork::make_context(rlwe::SecurityLevel::none);
  const auto& evaluator = context->ckks_evaluator();
  for (std::size_t level = 0; level <= context->rlwe_context()->max_level(); ++level)
    EXPECT_NEAR(std::log2(evaluator.scale_at(level)), 21, 1) << "level " << level;
  EXPECT_EQ(context->global_scale(), evaluator.scale_at(context->rlwe_context()->max_level()));
}

TEST(MnistNetwork, PlainConvolutionIsTheDirectSum) {
  // The plain twin's first layer, on an image with one lit pixel: output
  // (r, c) of channel k sees it only when (5, 9) lies in its window.
  auto net = MnistNetwork::random(1);
  net.fc1.assign(MnistNetwork::features, std::vector<double>(MnistNetwork::hidden, 0.0));
  net.fc1_bias.assign(MnistNetwork::hidden, 0.0);
  net.fc1[2 * 64 + 1 * 8 + 2][0] = 1.0;  // channel 2, window (1, 2)
  net.fc2.assign(MnistNetwork::hidden, std::vector<double>(MnistNetwork::classes, 0.0));
  net.fc2_bias.assign(MnistNetwork::classes, 0.0);
  net.fc2[0][0] = 1.0;
  Matrix image(28, std::vector<double>(28, 0.0));
  image[5][9] = 2.0;
  // Window (1, 2) starts at (3, 6): the pixel is kernel element (2, 3).
  const double conv = net.conv_bias[2] + 2.0 * net.conv_kernels[2][2][3];
  EXPECT_NEAR(net.evaluate_plain(image)[0], std::pow(conv * conv, 2), 1e-12);
}

TEST(MnistNetwork, WrongShapesAreRefused) {
  auto net = MnistNetwork::random(1);
  net.fc1.pop_back();
  EXPECT_THROW(net.validate(), InvalidArgument);
  EXPECT_THROW((void)net.evaluate_plain(Matrix(28, std::vector<double>(28))), InvalidArgument);
  EXPECT_THROW((void)MnistNetwork::random(1).evaluate_plain(Matrix(27, std::vector<double>(28))),
               InvalidArgument);
}

}  // namespace
}  // namespace heft::tensor
