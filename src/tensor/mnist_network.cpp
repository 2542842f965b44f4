// TenSEAL's MNIST tutorial network (heft/tensor/mnist_network.hpp): the
// encrypted evaluation, its plain twin and TenSEAL's context for it.
#include "heft/tensor/mnist_network.hpp"

#include <cmath>
#include <random>
#include <string>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor {

namespace {

constexpr const char* kValidate = "MnistNetwork";

Matrix uniform_matrix(std::size_t rows, std::size_t cols, double bound, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  Matrix m(rows, std::vector<double>(cols));
  for (auto& row : m)
    for (auto& v : row)
      v = dist(rng);
  return m;
}

void require_shape(const Matrix& m, std::size_t rows, std::size_t cols, const char* what) {
  bool ok = m.size() == rows;
  for (const auto& row : m)
    ok = ok && row.size() == cols;
  if (!ok)
    throw InvalidArgument(std::string(kValidate) + ": " + what + " must be " +
                          std::to_string(rows) + "x" + std::to_string(cols));
}

void require_length(const std::vector<double>& v, std::size_t n, const char* what) {
  if (v.size() != n)
    throw InvalidArgument(std::string(kValidate) + ": " + what + " must have " + std::to_string(n) +
                          " values");
}

std::vector<double> vector_matrix(const std::vector<double>& x, const Matrix& m,
                                  const std::vector<double>& bias) {
  std::vector<double> out = bias;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      out[j] += x[i] * m[i][j];
  return out;
}

}  // namespace

MnistNetwork MnistNetwork::random(uint64_t seed) {
  std::mt19937_64 rng(seed);
  MnistNetwork net;
  const double conv_bound = 1.0 / static_cast<double>(kernel_side);  // fan_in 49
  for (std::size_t c = 0; c < channels; ++c)
    net.conv_kernels.push_back(uniform_matrix(kernel_side, kernel_side, conv_bound, rng));
  net.conv_bias = uniform_matrix(1, channels, conv_bound, rng)[0];
  const double fc1_bound = 1.0 / std::sqrt(static_cast<double>(features));
  net.fc1 = uniform_matrix(features, hidden, fc1_bound, rng);
  net.fc1_bias = uniform_matrix(1, hidden, fc1_bound, rng)[0];
  const double fc2_bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  net.fc2 = uniform_matrix(hidden, classes, fc2_bound, rng);
  net.fc2_bias = uniform_matrix(1, classes, fc2_bound, rng)[0];
  return net;
}

TensorContext::Ptr MnistNetwork::make_context(rlwe::SecurityLevel security) {
  TenSEALArguments arguments;
  arguments.scheme = Scheme::ckks;
  arguments.poly_modulus_degree = 8192;
  arguments.coeff_mod_bit_sizes = {40, 21, 21, 21, 21, 21, 21, 40};
  arguments.global_scale = std::ldexp(1.0, 21);
  arguments.security = security;
  auto context = TensorContext::create(arguments);
  context->generate_galois_keys();
  return context;
}

void MnistNetwork::validate() const {
  if (conv_kernels.size() != channels)
    throw InvalidArgument(std::string(kValidate) + ": conv_kernels must hold " +
                          std::to_string(channels) + " kernels");
  for (const auto& kernel : conv_kernels)
    require_shape(kernel, kernel_side, kernel_side, "each conv kernel");
  require_length(conv_bias, channels, "conv_bias");
  require_shape(fc1, features, hidden, "fc1");
  require_length(fc1_bias, hidden, "fc1_bias");
  require_shape(fc2, hidden, classes, "fc2");
  require_length(fc2_bias, classes, "fc2_bias");
}

std::vector<double> MnistNetwork::evaluate_plain(const Matrix& image) const {
  validate();
  require_shape(image, image_side, image_side, "the image");
  std::vector<double> x;
  for (std::size_t c = 0; c < channels; ++c)
    for (std::size_t r = 0; r + kernel_side <= image_side; r += stride)
      for (std::size_t col = 0; col + kernel_side <= image_side; col += stride) {
        double sum = conv_bias[c];
        for (std::size_t i = 0; i < kernel_side; ++i)
          for (std::size_t j = 0; j < kernel_side; ++j)
            sum += image[r + i][col + j] * conv_kernels[c][i][j];
        x.push_back(sum * sum);
      }
  auto h = vector_matrix(x, fc1, fc1_bias);
  for (auto& v : h)
    v *= v;
  return vector_matrix(h, fc2, fc2_bias);
}

CKKSVector MnistNetwork::encrypt(const TensorContext::Ptr& context, const Matrix& image) {
  require_shape(image, image_side, image_side, "the image");
  return im2col_encoding(context, image, kernel_side, kernel_side, stride).vector;
}

CKKSVector MnistNetwork::convolve(const CKKSVector& encoded_image) const {
  validate();
  // Channels on the pool; each one's operations then run serially inside
  // its worker (no oversubscription).
  std::vector<CKKSVector> outputs(channels);
  parallel_for(0, channels, [&](std::size_t c) {
    outputs[c] = encoded_image.conv2d_im2col(conv_kernels[c], windows).add(conv_bias[c]);
  });
  return pack_vectors(outputs);
}

CKKSVector MnistNetwork::fully_connected1(const CKKSVector& x) const {
  return x.mm(fc1).add(fc1_bias);
}

CKKSVector MnistNetwork::fully_connected2(const CKKSVector& x) const {
  return x.mm(fc2).add(fc2_bias);
}

CKKSVector MnistNetwork::evaluate(const CKKSVector& encoded_image) const {
  return fully_connected2(fully_connected1(convolve(encoded_image).square()).square());
}

}  // namespace heft::tensor
