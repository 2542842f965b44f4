// CKKSTensor::conv2d (heft/tensor/ckks_tensor.hpp): a convolution of a
// batch of images held one image per slot. Every output pixel is a weighted
// sum of input ciphertexts (tensor/weighted_sums.hpp), so the layer needs
// no rotation, any number of channels, and chains with further layers.
#include <cmath>
#include <string>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor/messages.hpp"
#include "tensor/weighted_sums.hpp"

namespace heft::tensor {

namespace {

// A batch of images: [batch, H, W] (one channel) or [batch, C, H, W];
// MismatchError naming `operation` for any other rank.
struct ImageShape {
  bool one_channel;
  std::size_t channels, height, width;
};

ImageShape image_shape(const Shape& shape, const char* operation) {
  const bool one_channel = shape.size() == 3;
  if (!one_channel && shape.size() != 4)
    throw MismatchError(std::string(operation) +
                        ": needs a [batch, H, W] or [batch, C, H, W] tensor");
  return {one_channel, one_channel ? 1 : shape[1], shape[shape.size() - 2], shape.back()};
}

}  // namespace

CKKSTensor CKKSTensor::conv2d(const PlainTensor& kernels, std::size_t stride) const {
  constexpr const char* op = "CKKSTensor::conv2d";
  require_valid(op);
  if (stride == 0) throw InvalidArgument(std::string(op) + ": the stride must be at least 1");
  const auto [one_channel, in_channels, height, width] = image_shape(shape_, op);
  const Shape& k = kernels.shape();
  const bool kernels_fit =
      (k.size() == 3 && in_channels == 1) || (k.size() == 4 && k[1] == in_channels);
  if (!kernels_fit)
    throw MismatchError(
        std::string(op) + ": kernels must be [C_out, kh, kw] for one input " +
        "channel or [C_out, C_in, kh, kw] with C_in = " + std::to_string(in_channels));
  const std::size_t out_channels = k[0], kernel_rows = k[k.size() - 2], kernel_cols = k.back();
  if (kernel_rows > height || kernel_cols > width)
    throw MismatchError(std::string(op) + ": a " + std::to_string(kernel_rows) + "x" +
                        std::to_string(kernel_cols) + " kernel is larger than the " +
                        std::to_string(height) + "x" + std::to_string(width) + " image");
  for (const double v : kernels.data())
    if (!std::isfinite(v))
      throw InvalidArgument(std::string(op) + ": a kernel value is not finite");
  if (auto refreshed = refreshed_if_short(1)) return refreshed->conv2d(kernels, stride);
  detail::require_levels(1, level(), op);

  const std::size_t out_rows = (height - kernel_rows) / stride + 1;
  const std::size_t out_cols = (width - kernel_cols) / stride + 1;
  std::vector<std::vector<detail::WeightedTerm>> sums;
  sums.reserve(out_channels * out_rows * out_cols);
  for (std::size_t o = 0; o < out_channels; ++o)
    for (std::size_t r = 0; r < out_rows; ++r)
      for (std::size_t c = 0; c < out_cols; ++c) {
        auto& terms = sums.emplace_back();
        for (std::size_t i = 0; i < in_channels; ++i)
          for (std::size_t kr = 0; kr < kernel_rows; ++kr)
            for (std::size_t kc = 0; kc < kernel_cols; ++kc) {
              const std::size_t input = (i * height + r * stride + kr) * width + c * stride + kc;
              const double weight =
                  kernels.data()[((o * in_channels + i) * kernel_rows + kr) * kernel_cols + kc];
              terms.push_back({input, weight});
            }
      }
  auto elements = detail::weighted_sums(*context_, elements_, sums, op);
  return {context_, std::move(elements), Shape{batch_size(), out_channels, out_rows, out_cols},
          true};
}

CKKSTensor CKKSTensor::avg_pool2d(std::size_t kernel, std::size_t stride) const {
  constexpr const char* op = "CKKSTensor::avg_pool2d";
  require_valid(op);
  if (kernel == 0 || stride == 0)
    throw InvalidArgument(std::string(op) + ": the kernel and the stride must be at least 1");
  const auto [one_channel, channels, height, width] = image_shape(shape_, op);
  if (kernel > height || kernel > width)
    throw MismatchError(std::string(op) + ": a " + std::to_string(kernel) + "x" +
                        std::to_string(kernel) + " window is larger than the " +
                        std::to_string(height) + "x" + std::to_string(width) + " image");
  if (auto refreshed = refreshed_if_short(1)) return refreshed->avg_pool2d(kernel, stride);
  detail::require_levels(1, level(), op);
  const std::size_t out_rows = (height - kernel) / stride + 1;
  const std::size_t out_cols = (width - kernel) / stride + 1;
  const double weight = 1.0 / static_cast<double>(kernel * kernel);
  std::vector<std::vector<detail::WeightedTerm>> sums;
  for (std::size_t ch = 0; ch < channels; ++ch)
    for (std::size_t r = 0; r < out_rows; ++r)
      for (std::size_t c = 0; c < out_cols; ++c) {
        auto& terms = sums.emplace_back();
        for (std::size_t kr = 0; kr < kernel; ++kr)
          for (std::size_t kc = 0; kc < kernel; ++kc)
            terms.push_back({(ch * height + r * stride + kr) * width + c * stride + kc, weight});
      }
  auto elements = detail::weighted_sums(*context_, elements_, sums, op);
  Shape shape = {batch_size()};
  if (!one_channel) shape.push_back(channels);
  shape.push_back(out_rows);
  shape.push_back(out_cols);
  return {context_, std::move(elements), std::move(shape), true};
}

}  // namespace heft::tensor
