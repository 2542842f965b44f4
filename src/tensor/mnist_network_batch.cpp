// MnistNetwork's throughput mode (heft/tensor/mnist_network.hpp): a batch of
// images, one per slot, through CKKSTensor's batched convolution and
// products; every layer is constant products and squares, so one
// evaluation classifies as many images as the ring has slots.
#include <string>

#include "heft/tensor/mnist_network.hpp"
#include "heft/util/error.hpp"

namespace heft::tensor {

namespace {

PlainTensor matrix_tensor(const Matrix& m) {
  std::vector<double> data;
  for (const auto& row : m)
    data.insert(data.end(), row.begin(), row.end());
  return {std::move(data), Shape{m.size(), m.empty() ? 0 : m[0].size()}};
}

}  // namespace

CKKSTensor MnistNetwork::encrypt_batch(const TensorContext::Ptr& context,
                                       const std::vector<Matrix>& images) {
  if (images.empty()) throw InvalidArgument("MnistNetwork::encrypt_batch: no image");
  std::vector<double> data;
  data.reserve(images.size() * image_side * image_side);
  for (const auto& image : images) {
    bool square = image.size() == image_side;
    for (const auto& row : image)
      square = square && row.size() == image_side;
    if (!square) throw InvalidArgument("MnistNetwork::encrypt_batch: every image must be 28x28");
    for (const auto& row : image)
      data.insert(data.end(), row.begin(), row.end());
  }
  return CKKSTensor::encrypt(
      context, PlainTensor(std::move(data), Shape{images.size(), image_side, image_side}));
}

CKKSTensor MnistNetwork::evaluate_batch(const CKKSTensor& images) const {
  validate();
  std::vector<double> kernels;
  for (const auto& kernel : conv_kernels)
    for (const auto& row : kernel)
      kernels.insert(kernels.end(), row.begin(), row.end());
  const std::size_t batch = images.batch_size();
  auto x = images
               .conv2d(PlainTensor(std::move(kernels), Shape{channels, kernel_side, kernel_side}),
                       stride)
               .add(PlainTensor(conv_bias, Shape{channels, 1, 1}))
               .square()
               .reshape(Shape{batch, features});  // channel by channel, as PyTorch's view
  x = x.mm(matrix_tensor(fc1)).add(PlainTensor(fc1_bias)).square();
  return x.mm(matrix_tensor(fc2)).add(PlainTensor(fc2_bias));
}

}  // namespace heft::tensor
