// BFVTensor (heft/tensor/bfv_tensor.hpp): the batch in the slots, one
// ciphertext per element of the other axes. Each element's arithmetic is
// BFVVector's on a vector of the batch's length (so flags, key checks and
// errors are the same), mapped over the elements on the pool; the index
// arithmetic of shapes is the tensor layer's (tensor_layout.hpp).
#include "heft/tensor/bfv_tensor.hpp"

#include <cmath>
#include <string>

#include "heft/tensor/bfv_vector.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/bfv_vector_ops.hpp"
#include "tensor/chunks.hpp"
#include "tensor/messages.hpp"
#include "tensor/tensor_layout.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

enum Kind { kAdd = 0, kSub = 1, kMul = 2 };

// The ciphertext of a one-ciphertext vector.
Ciphertext take(BFVVector&& v) {
  return std::move(BFVVectorOps::chunks(v)[0]);
}

// An integer plain value; InvalidArgument naming `operation` otherwise.
int64_t integer(double v, const char* operation) {
  if (!std::isfinite(v) || v != std::floor(v) || std::abs(v) > 9.007199254740992e15)
    throw InvalidArgument(std::string(operation) + ": a value is not an integer");
  return static_cast<int64_t>(v);
}

BFVVector apply(const BFVVector& x, int kind, const BFVVector& y) {
  return kind == kAdd ? x.add(y) : kind == kSub ? x.sub(y) : x.mul(y);
}

BFVVector apply(const BFVVector& x, int kind, std::span<const int64_t> y) {
  return kind == kAdd ? x.add(y) : kind == kSub ? x.sub(y) : x.mul(y);
}

}  // namespace

BFVTensor::BFVTensor(TensorContext::Ptr context, std::vector<Ciphertext> elements, Shape shape,
                     bool clean_padding)
    : context_(std::move(context)),
      elements_(std::move(elements)),
      shape_(std::move(shape)),
      clean_padding_(clean_padding) {
  if (context_) context_->rerandomize_transparent(elements_);  // docs/security.md
}

BFVTensor BFVTensor::copy() const {
  std::vector<Ciphertext> elements;
  for (const auto& ct : elements_)
    elements.push_back(ct.clone());
  return {context_, std::move(elements), shape_, clean_padding_};
}

void BFVTensor::require_valid(const char* operation) const {
  if (!context_ || elements_.empty())
    throw InvalidArgument(std::string(operation) + ": an empty BFVTensor (encrypt one first)");
}

BFVVector BFVTensor::element(std::size_t e) const {
  std::vector<Ciphertext> chunk;
  chunk.push_back(elements_[e].clone());
  return BFVVectorOps::make(context_, std::move(chunk), batch_size(), clean_padding_);
}

BFVTensor BFVTensor::encrypt(TensorContext::Ptr context, const PlainTensor& plain) {
  constexpr const char* op = "BFVTensor::encrypt";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  if (plain.size() == 0) throw InvalidArgument(std::string(op) + ": an empty tensor");
  (void)context->batch_encoder();  // a BFV context
  const std::size_t batch = plain.shape()[0], inner = plain.size() / batch;
  if (batch > context->slot_count())
    throw InvalidArgument(std::string(op) + ": a batch of " + std::to_string(batch) +
                          " does not fit the " + std::to_string(context->slot_count()) + " slots");
  std::vector<int64_t> values(plain.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = integer(plain.data()[i], op);
  auto elements = detail::map_chunks(inner, [&](std::size_t e) {
    std::vector<int64_t> column(batch);
    for (std::size_t b = 0; b < batch; ++b)
      column[b] = values[b * inner + e];
    return take(BFVVector::encrypt(context, column));
  });
  return {std::move(context), std::move(elements), plain.shape(), true};
}

PlainTensor BFVTensor::decrypt() const {
  return decrypt_with(nullptr);
}

PlainTensor BFVTensor::decrypt(const rlwe::SecretKey& secret_key) const {
  return decrypt_with(&secret_key);
}

PlainTensor BFVTensor::decrypt_with(const rlwe::SecretKey* secret_key) const {
  require_valid("BFVTensor::decrypt");
  const std::size_t batch = batch_size(), inner = elements_.size();
  std::vector<double> data(batch * inner);
  parallel_for(0, inner, [&](std::size_t e) {
    const BFVVector v = element(e);
    const auto values = secret_key ? v.decrypt(*secret_key) : v.decrypt();
    for (std::size_t b = 0; b < batch; ++b)
      data[b * inner + e] = static_cast<double>(values[b]);
  });
  return {std::move(data), shape_};
}

BFVTensor BFVTensor::combine(const BFVTensor& other, int kind, const char* operation) const {
  require_valid(operation);
  other.require_valid(operation);
  detail::require_same_context(context_, other.context_, operation);
  if (batch_size() != other.batch_size())
    throw MismatchError(std::string(operation) + ": batch sizes differ (" +
                        std::to_string(batch_size()) + " and " +
                        std::to_string(other.batch_size()) + ")");
  const Shape mine_inner = detail::inner_shape_of(shape_);
  const Shape theirs_inner = detail::inner_shape_of(other.shape_);
  const Shape inner = PlainTensor::broadcast_shape(mine_inner, theirs_inner, operation);
  const auto mine = detail::broadcast_sources(mine_inner, inner);
  const auto theirs = detail::broadcast_sources(theirs_inner, inner);
  auto elements = detail::map_chunks(mine.size(), [&](std::size_t e) {
    return take(apply(element(mine[e]), kind, other.element(theirs[e])));
  });
  const bool clean = kind == kMul ? clean_padding_ || other.clean_padding_
                                  : clean_padding_ && other.clean_padding_;
  return {context_, std::move(elements),
          detail::combined_shape(batch_size(), inner, shape_, other.shape_), clean};
}

BFVTensor BFVTensor::combine(const PlainTensor& plain, int kind, const char* operation) const {
  require_valid(operation);
  if (PlainTensor::broadcast_shape(shape_, plain.shape(), operation) != shape_)
    throw MismatchError(std::string(operation) +
                        ": the plain tensor does not broadcast to the "
                        "encrypted one's shape");
  const auto stretched = plain.broadcast_to(shape_);
  const std::size_t batch = batch_size(), inner = elements_.size();
  std::vector<int64_t> values(stretched.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = integer(stretched.data()[i], operation);
  auto elements = detail::map_chunks(inner, [&](std::size_t e) {
    std::vector<int64_t> column(batch);
    for (std::size_t b = 0; b < batch; ++b)
      column[b] = values[b * inner + e];
    return take(apply(element(e), kind, column));
  });
  return {context_, std::move(elements), shape_, clean_padding_ || kind == kMul};
}

BFVTensor BFVTensor::add(const BFVTensor& other) const {
  return combine(other, kAdd, "BFVTensor::add");
}
BFVTensor BFVTensor::sub(const BFVTensor& other) const {
  return combine(other, kSub, "BFVTensor::sub");
}
BFVTensor BFVTensor::mul(const BFVTensor& other) const {
  return combine(other, kMul, "BFVTensor::mul");
}
BFVTensor BFVTensor::add(const PlainTensor& plain) const {
  return combine(plain, kAdd, "BFVTensor::add");
}
BFVTensor BFVTensor::sub(const PlainTensor& plain) const {
  return combine(plain, kSub, "BFVTensor::sub");
}
BFVTensor BFVTensor::mul(const PlainTensor& plain) const {
  return combine(plain, kMul, "BFVTensor::mul");
}
// Scalars as plain tensors of one value: written into the batch's slots
// only, so the padding keeps its zeros.
BFVTensor BFVTensor::add(int64_t scalar) const {
  return combine(PlainTensor({static_cast<double>(scalar)}, {1}), kAdd, "BFVTensor::add");
}
BFVTensor BFVTensor::sub(int64_t scalar) const {
  return combine(PlainTensor({static_cast<double>(scalar)}, {1}), kSub, "BFVTensor::sub");
}
BFVTensor BFVTensor::mul(int64_t scalar) const {
  return combine(PlainTensor({static_cast<double>(scalar)}, {1}), kMul, "BFVTensor::mul");
}

BFVTensor BFVTensor::negate() const {
  require_valid("BFVTensor::negate");
  auto elements = detail::map_chunks(elements_.size(),
                                     [&](std::size_t e) { return take(element(e).negate()); });
  return {context_, std::move(elements), shape_, clean_padding_};
}

BFVTensor BFVTensor::square() const {
  return combine(*this, kMul, "BFVTensor::square");
}

BFVTensor BFVTensor::polyval(std::span<const int64_t> coefficients) const {
  require_valid("BFVTensor::polyval");
  auto elements = detail::map_chunks(
      elements_.size(), [&](std::size_t e) { return take(element(e).polyval(coefficients)); });
  // BFVVector adds the constant into the batch's own slots only.
  return {context_, std::move(elements), shape_, clean_padding_};
}

BFVTensor BFVTensor::sum(std::size_t axis) const {
  constexpr const char* op = "BFVTensor::sum";
  require_valid(op);
  detail::require_axis(shape_, axis, op);
  if (axis == 0) {
    if (batch_size() == 1) return copy();
    // BFVVector's sum over the batch (it masks a padding that is not zero).
    auto elements =
        detail::map_chunks(elements_.size(), [&](std::size_t e) { return take(element(e).sum()); });
    Shape shape = shape_;
    shape[0] = 1;
    return {context_, std::move(elements), std::move(shape), false};
  }
  // Along an inner axis: add the ciphertexts of each line.
  const detail::AxisSum sum = detail::axis_sum(shape_, axis);
  auto elements = detail::map_chunks(sum.sources.size(), [&](std::size_t r) {
    BFVVector total = element(sum.sources[r][0]);
    for (std::size_t k = 1; k < sum.sources[r].size(); ++k)
      total.add_inplace(element(sum.sources[r][k]));
    return take(std::move(total));
  });
  return {context_, std::move(elements), sum.shape, clean_padding_};
}

BFVTensor BFVTensor::reshape(const Shape& shape) const {
  constexpr const char* op = "BFVTensor::reshape";
  require_valid(op);
  detail::require_reshape(shape_, shape, op);
  return {context_, copy().elements_, shape, clean_padding_};
}

BFVTensor BFVTensor::broadcast_to(const Shape& shape) const {
  constexpr const char* op = "BFVTensor::broadcast_to";
  require_valid(op);
  // Each element of the result is a copy of the ciphertext it reads.
  const auto sources = detail::broadcast_to_sources(shape_, shape, op);
  return {context_, detail::picked(elements_, sources), shape, clean_padding_};
}

BFVTensor BFVTensor::transpose() const {
  require_valid("BFVTensor::transpose");
  const detail::Transposed moved = detail::transposed(shape_);
  return {context_, detail::picked(elements_, moved.sources), moved.shape, clean_padding_};
}

}  // namespace heft::tensor
