// TenSEAL's encrypted MNIST tutorial network, in C++ on heft::tensor:
//   conv 7x7 stride 3, 4 channels (+ bias) -> square -> fully connected
//   256 -> 64 (+ bias) -> square -> fully connected 64 -> 10 (+ bias)
// on a 28x28 image, with the input path of the tutorial (im2col encoding,
// one conv2d_im2col per channel, pack_vectors) and its context (N = 8192,
// primes [40, 21 x 6, 40], scale 2^21, 128-bit secure, power-of-two Galois
// keys). The same network in doubles is the oracle of the tests and of the
// demo. Weights are the plain network's (fully connected matrices in
// TenSEAL's mm orientation: input x output); random() makes seeded weights
// of the magnitude of PyTorch's default initialisation.
//
// Depth: conv (1), the mask of pack_vectors (1), square, fc1, square, fc2
// (1 each): the six levels of the context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/images.hpp"

namespace heft::tensor {

struct HEFT_EXPORT MnistNetwork {
  static constexpr std::size_t image_side = 28, kernel_side = 7, stride = 3, channels = 4;
  static constexpr std::size_t windows = 64;  // 8 x 8 outputs per channel
  static constexpr std::size_t features = channels * windows, hidden = 64, classes = 10;

  std::vector<Matrix> conv_kernels;  // channels kernels, kernel_side x kernel_side
  std::vector<double> conv_bias;     // channels
  Matrix fc1;                        // features x hidden
  std::vector<double> fc1_bias;      // hidden
  Matrix fc2;                        // hidden x classes
  std::vector<double> fc2_bias;      // classes

  // Weights drawn uniformly in +-1/sqrt(fan_in) (PyTorch's default for
  // Conv2d and Linear), from `seed`.
  [[nodiscard]] static MnistNetwork random(uint64_t seed);
  // TenSEAL's MNIST tutorial context, with relinearization and power-of-two
  // Galois keys. `security` none only for tests that want it.
  [[nodiscard]] static TensorContext::Ptr make_context(
      rlwe::SecurityLevel security = rlwe::SecurityLevel::classic128);

  // InvalidArgument naming the part whose shape is wrong.
  void validate() const;

  // The network in doubles: the 10 logits of a 28x28 image (row-major
  // flattening of the conv output, channel by channel, as PyTorch's view).
  [[nodiscard]] std::vector<double> evaluate_plain(const Matrix& image) const;

  // The encrypted input: im2col_encoding(context, image, 7, 7, 3).
  [[nodiscard]] static CKKSVector encrypt(const TensorContext::Ptr& context, const Matrix& image);
  // The stages (the benchmark times them one by one): conv + bias on each
  // channel, in parallel, packed into one vector of `features` values; then
  // x^2; then the fully connected layers with their bias.
  [[nodiscard]] CKKSVector convolve(const CKKSVector& encoded_image) const;
  [[nodiscard]] CKKSVector fully_connected1(const CKKSVector& x) const;
  [[nodiscard]] CKKSVector fully_connected2(const CKKSVector& x) const;
  // All of it: the 10 encrypted logits.
  [[nodiscard]] CKKSVector evaluate(const CKKSVector& encoded_image) const;

  // Throughput mode (CryptoNets' packing): up to N/2 images, one per slot,
  // as a [batch, 28, 28] CKKSTensor; the same network through
  // CKKSTensor::conv2d and mm, five levels, no rotation: [batch, 10] logits.
  [[nodiscard]] static CKKSTensor encrypt_batch(const TensorContext::Ptr& context,
                                                const std::vector<Matrix>& images);
  [[nodiscard]] CKKSTensor evaluate_batch(const CKKSTensor& images) const;
};

}  // namespace heft::tensor
