// Index arithmetic shared by the encrypted tensors (CKKSTensor, BFVTensor).
// Both hold a batch along the slots and one ciphertext per element of the
// axes after it, row-major, so reshaping, transposing, broadcasting and
// summing along those axes only pick, copy and add ciphertexts: these
// functions say which. Errors are MismatchError / InvalidArgument naming
// the caller's operation.
#pragma once

#include <cstddef>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::tensor::detail {

// The axes after the batch ({1} for a 1-D tensor: one ciphertext).
[[nodiscard]] Shape inner_shape_of(const Shape& shape);

// For each element of `to` (row-major), the element of `from` that numpy's
// broadcasting reads (MismatchError when `from` does not stretch to `to`).
[[nodiscard]] std::vector<std::size_t> broadcast_sources(const Shape& from, const Shape& to);

// The shape of an element-wise result: the batch, then the broadcast inner
// shape unless both operands were 1-D.
[[nodiscard]] Shape combined_shape(std::size_t batch, const Shape& inner, const Shape& a,
                                   const Shape& b);

// broadcast_to(shape): the sources of each element of the new shape, which
// must keep the batch first.
[[nodiscard]] std::vector<std::size_t> broadcast_to_sources(const Shape& shape, const Shape& target,
                                                            const char* operation);

// MismatchError unless `to` keeps the batch axis first and holds as many
// elements as `from`.
void require_reshape(const Shape& from, const Shape& to, const char* operation);

struct Transposed {
  Shape shape;                       // the new full shape
  std::vector<std::size_t> sources;  // for each new element, the old one
};
// The axes after the batch reversed.
[[nodiscard]] Transposed transposed(const Shape& shape);

struct AxisSum {
  Shape shape;                                    // the shape without `axis`
  std::vector<std::vector<std::size_t>> sources;  // the elements each output adds
};
// A sum along an axis after the batch (axis >= 1).
[[nodiscard]] AxisSum axis_sum(const Shape& shape, std::size_t axis);

// Copies of elements[sources[0]], elements[sources[1]], ...: what
// broadcasting and transposing a tensor's ciphertexts amount to.
[[nodiscard]] std::vector<rlwe::Ciphertext> picked(const std::vector<rlwe::Ciphertext>& elements,
                                                   const std::vector<std::size_t>& sources);

// InvalidArgument unless axis < the rank.
void require_axis(const Shape& shape, std::size_t axis, const char* operation);

}  // namespace heft::tensor::detail
