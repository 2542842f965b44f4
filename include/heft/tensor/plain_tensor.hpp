// PlainTensor: an N-D array of doubles in row-major order (TenSEAL's
// PlainTensor), the plain operand of CKKSTensor and the form CKKSTensor
// decrypts to. Shape operations (reshape, transpose, broadcast_to) and
// sum along an axis, with numpy's broadcasting rules (shapes aligned on
// their last axes; an axis of 1 stretches).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "heft/export.hpp"

namespace heft::tensor {

using Shape = std::vector<std::size_t>;

class HEFT_EXPORT PlainTensor {
 public:
  PlainTensor() = default;
  // InvalidArgument unless the shape has at least one axis, no axis of 0,
  // and as many elements as `data` has values.
  PlainTensor(std::vector<double> data, Shape shape);
  // A 1-D tensor.
  explicit PlainTensor(std::vector<double> data);

  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] const std::vector<double>& data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }
  // The value at a full index; InvalidArgument when out of range.
  [[nodiscard]] double at(std::span<const std::size_t> index) const;

  // The same values in another shape of as many elements (MismatchError).
  [[nodiscard]] PlainTensor reshape(const Shape& shape) const;
  // Axes reversed (a matrix transposed), or permuted: axis i of the result
  // is axis permutation[i] of this one.
  [[nodiscard]] PlainTensor transpose() const;
  [[nodiscard]] PlainTensor transpose(std::span<const std::size_t> permutation) const;
  // Stretched to `shape` by numpy's rules (MismatchError when it cannot).
  [[nodiscard]] PlainTensor broadcast_to(const Shape& shape) const;
  // Summed along `axis`, which disappears (a 1-D tensor gives one value).
  [[nodiscard]] PlainTensor sum(std::size_t axis) const;

  // The shape two shapes broadcast to; MismatchError naming `operation`.
  [[nodiscard]] static Shape broadcast_shape(const Shape& a, const Shape& b, const char* operation);
  // Row-major strides of a shape.
  [[nodiscard]] static Shape strides(const Shape& shape);

 private:
  std::vector<double> data_;
  Shape shape_;
};

}  // namespace heft::tensor
