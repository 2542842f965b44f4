// Index arithmetic of encrypted tensors (see tensor_layout.hpp): computed on
// index tensors with PlainTensor's own broadcasting and transposition, so
// that the encrypted tensors follow exactly the plain tensors' rules.
#include "tensor/tensor_layout.hpp"

#include <string>

#include "heft/util/error.hpp"

namespace heft::tensor::detail {

namespace {

// The tensor 0, 1, 2, ... of a shape.
PlainTensor indices(const Shape& shape) {
  std::size_t count = 1;
  for (const std::size_t n : shape)
    count *= n;
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i)
    values[i] = static_cast<double>(i);
  return {std::move(values), shape};
}

std::vector<std::size_t> as_indices(const PlainTensor& t) {
  std::vector<std::size_t> out;
  out.reserve(t.size());
  for (const double v : t.data())
    out.push_back(static_cast<std::size_t>(v));
  return out;
}

}  // namespace

Shape inner_shape_of(const Shape& shape) {
  if (shape.size() <= 1) return {1};
  return {shape.begin() + 1, shape.end()};
}

std::vector<std::size_t> broadcast_sources(const Shape& from, const Shape& to) {
  return as_indices(indices(from).broadcast_to(to));
}

Shape combined_shape(std::size_t batch, const Shape& inner, const Shape& a, const Shape& b) {
  Shape shape = {batch};
  if (a.size() > 1 || b.size() > 1) shape.insert(shape.end(), inner.begin(), inner.end());
  return shape;
}

std::vector<std::size_t> broadcast_to_sources(const Shape& shape, const Shape& target,
                                              const char* operation) {
  if (target.empty() || target[0] != shape[0])
    throw MismatchError(std::string(operation) + ": the new shape must keep the batch axis first");
  try {
    return broadcast_sources(inner_shape_of(shape), inner_shape_of(target));
  } catch (const MismatchError&) {
    throw MismatchError(std::string(operation) + ": the tensor does not broadcast to that shape");
  }
}

void require_reshape(const Shape& from, const Shape& to, const char* operation) {
  std::size_t have = 1, want = 1;
  for (const std::size_t n : from)
    have *= n;
  for (const std::size_t n : to)
    want *= n;
  if (to.empty() || to[0] != from[0] || have != want)
    throw MismatchError(std::string(operation) +
                        ": the new shape must keep the batch axis first and "
                        "hold as many elements");
}

Transposed transposed(const Shape& shape) {
  const auto moved = indices(inner_shape_of(shape)).transpose();
  Shape out = {shape[0]};
  if (shape.size() > 1) out.insert(out.end(), moved.shape().begin(), moved.shape().end());
  return {std::move(out), as_indices(moved)};
}

AxisSum axis_sum(const Shape& shape, std::size_t axis) {
  const Shape inner = inner_shape_of(shape), stride = PlainTensor::strides(inner);
  const std::size_t a = axis - 1, count = inner[a] * stride[a];
  std::size_t elements = 1;
  for (const std::size_t n : inner)
    elements *= n;
  const std::size_t outer = elements / count, along = inner[a], step = stride[a];
  AxisSum out;
  out.sources.resize(outer * step);
  for (std::size_t r = 0; r < out.sources.size(); ++r) {
    const std::size_t o = r / step, i = r % step;
    for (std::size_t k = 0; k < along; ++k)
      out.sources[r].push_back((o * along + k) * step + i);
  }
  out.shape = shape;
  out.shape.erase(out.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  return out;
}

std::vector<rlwe::Ciphertext> picked(const std::vector<rlwe::Ciphertext>& elements,
                                     const std::vector<std::size_t>& sources) {
  std::vector<rlwe::Ciphertext> out;
  out.reserve(sources.size());
  for (const std::size_t i : sources)
    out.push_back(elements[i].clone());
  return out;
}

void require_axis(const Shape& shape, std::size_t axis, const char* operation) {
  if (axis >= shape.size())
    throw InvalidArgument(std::string(operation) + ": axis " + std::to_string(axis) +
                          " of a tensor of " + std::to_string(shape.size()) + " axes");
}

}  // namespace heft::tensor::detail
