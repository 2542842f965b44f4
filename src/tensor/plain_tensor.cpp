// PlainTensor: row-major N-D arrays, their shape operations and numpy's
// broadcasting.
#include "heft/tensor/plain_tensor.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "heft/util/error.hpp"

namespace heft::tensor {

namespace {

std::string shape_text(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::size_t element_count(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

}  // namespace

PlainTensor::PlainTensor(std::vector<double> data, Shape shape)
    : data_(std::move(data)), shape_(std::move(shape)) {
  if (shape_.empty() || std::find(shape_.begin(), shape_.end(), 0) != shape_.end() ||
      element_count(shape_) != data_.size())
    throw InvalidArgument("PlainTensor: shape " + shape_text(shape_) + " does not hold " +
                          std::to_string(data_.size()) + " values");
}

PlainTensor::PlainTensor(std::vector<double> data) : PlainTensor(data, Shape{data.size()}) {}

Shape PlainTensor::strides(const Shape& shape) {
  Shape out(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;)
    out[i - 1] = out[i] * shape[i];
  return out;
}

double PlainTensor::at(std::span<const std::size_t> index) const {
  if (index.size() != shape_.size())
    throw InvalidArgument("PlainTensor::at: " + std::to_string(index.size()) +
                          " indices for a tensor of " + std::to_string(shape_.size()) + " axes");
  const Shape stride = strides(shape_);
  std::size_t flat = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] >= shape_[i])
      throw InvalidArgument("PlainTensor::at: index " + std::to_string(index[i]) +
                            " is past axis " + std::to_string(i) + " of shape " +
                            shape_text(shape_));
    flat += index[i] * stride[i];
  }
  return data_[flat];
}

PlainTensor PlainTensor::reshape(const Shape& shape) const {
  if (element_count(shape) != size() || shape.empty())
    throw MismatchError("PlainTensor::reshape: " + shape_text(shape_) + " cannot become " +
                        shape_text(shape));
  return {data_, shape};
}

PlainTensor PlainTensor::transpose() const {
  Shape permutation(shape_.size());
  for (std::size_t i = 0; i < permutation.size(); ++i)
    permutation[i] = permutation.size() - 1 - i;
  return transpose(permutation);
}

PlainTensor PlainTensor::transpose(std::span<const std::size_t> permutation) const {
  Shape sorted(permutation.begin(), permutation.end());
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted.size() != shape_.size() || sorted[i] != i)
      throw InvalidArgument("PlainTensor::transpose: not a permutation of the " +
                            std::to_string(shape_.size()) + " axes");
  Shape shape(shape_.size());
  for (std::size_t i = 0; i < shape.size(); ++i)
    shape[i] = shape_[permutation[i]];
  const Shape from = strides(shape_), to = strides(shape);
  std::vector<double> data(size());
  for (std::size_t flat = 0; flat < size(); ++flat) {
    // Output index (flat in `shape`) -> input offset.
    std::size_t offset = 0;
    for (std::size_t i = 0; i < shape.size(); ++i)
      offset += flat / to[i] % shape[i] * from[permutation[i]];
    data[flat] = data_[offset];
  }
  return {std::move(data), std::move(shape)};
}

Shape PlainTensor::broadcast_shape(const Shape& a, const Shape& b, const char* operation) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::size_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      throw MismatchError(std::string(operation) + ": shapes " + shape_text(a) + " and " +
                          shape_text(b) + " do not broadcast");
    out[out.size() - 1 - i] = std::max(x, y);
  }
  return out;
}

PlainTensor PlainTensor::broadcast_to(const Shape& shape) const {
  constexpr const char* op = "PlainTensor::broadcast_to";
  if (broadcast_shape(shape_, shape, op) != shape)
    throw MismatchError(std::string(op) + ": " + shape_text(shape_) + " does not stretch to " +
                        shape_text(shape));
  const std::size_t lead = shape.size() - shape_.size();
  const Shape from = strides(shape_), to = strides(shape);
  std::vector<double> data(element_count(shape));
  for (std::size_t flat = 0; flat < data.size(); ++flat) {
    std::size_t offset = 0;
    for (std::size_t i = lead; i < shape.size(); ++i)
      if (shape_[i - lead] != 1) offset += flat / to[i] % shape[i] * from[i - lead];
    data[flat] = data_[offset];
  }
  return {std::move(data), shape};
}

PlainTensor PlainTensor::sum(std::size_t axis) const {
  if (axis >= shape_.size())
    throw InvalidArgument("PlainTensor::sum: axis " + std::to_string(axis) + " of a tensor of " +
                          std::to_string(shape_.size()) + " axes");
  Shape shape = shape_;
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  if (shape.empty()) shape = {1};
  const Shape stride = strides(shape_);
  const std::size_t outer = size() / (shape_[axis] * stride[axis]), inner = stride[axis];
  std::vector<double> data(outer * inner, 0.0);
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < shape_[axis]; ++k)
      for (std::size_t i = 0; i < inner; ++i)
        data[o * inner + i] += data_[(o * shape_[axis] + k) * inner + i];
  return {std::move(data), std::move(shape)};
}

}  // namespace heft::tensor
