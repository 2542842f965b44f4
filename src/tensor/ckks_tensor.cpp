// CKKSTensor (heft/tensor/ckks_tensor.hpp): the batch in the slots, one
// ciphertext per element of the other axes; every operation maps over the
// ciphertexts on the pool (tensor/chunks.hpp).
#include "heft/tensor/ckks_tensor.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_decryption.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"
#include "tensor/polynomial_split.hpp"
#include "tensor/tensor_layout.hpp"
#include "tensor/weighted_sums.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

enum Kind { kAdd = 0, kSub = 1, kMul = 2 };

}  // namespace

CKKSTensor::CKKSTensor(TensorContext::Ptr context, std::vector<Ciphertext> elements, Shape shape,
                       bool clean_padding)
    : context_(std::move(context)),
      elements_(std::move(elements)),
      shape_(std::move(shape)),
      clean_padding_(clean_padding) {
  if (context_) context_->rerandomize_transparent(elements_);  // docs/security.md
}

CKKSTensor CKKSTensor::copy() const {
  std::vector<Ciphertext> elements;
  for (const auto& ct : elements_)
    elements.push_back(ct.clone());
  return {context_, std::move(elements), shape_, clean_padding_};
}

void CKKSTensor::require_valid(const char* operation) const {
  if (!context_ || elements_.empty())
    throw InvalidArgument(std::string(operation) + ": an empty CKKSTensor (encrypt one first)");
}

Shape CKKSTensor::inner_shape() const {
  return detail::inner_shape_of(shape_);
}

CKKSTensor CKKSTensor::encrypt(TensorContext::Ptr context, const PlainTensor& plain) {
  constexpr const char* op = "CKKSTensor::encrypt";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  if (plain.size() == 0) throw InvalidArgument(std::string(op) + ": an empty tensor");
  const auto& encoder = context->ckks_encoder();
  const auto& encryptor = context->ckks_encryptor(op);
  const std::size_t batch = plain.shape()[0], inner = plain.size() / batch;
  if (batch > context->slot_count())
    throw InvalidArgument(std::string(op) + ": a batch of " + std::to_string(batch) +
                          " does not fit the " + std::to_string(context->slot_count()) + " slots");
  for (const double v : plain.data())
    if (!std::isfinite(v)) throw InvalidArgument(std::string(op) + ": a value is not finite");
  const std::size_t level = context->encryption_level();
  auto elements = detail::map_chunks(inner, [&](std::size_t e) {
    std::vector<double> values(batch);
    for (std::size_t b = 0; b < batch; ++b)
      values[b] = plain.data()[b * inner + e];
    return encryptor.encrypt(encoder.encode(values, context->global_scale(), level));
  });
  return {std::move(context), std::move(elements), plain.shape(), true};
}

PlainTensor CKKSTensor::decrypt() const {
  return decrypt_with(nullptr);
}

PlainTensor CKKSTensor::decrypt(const rlwe::SecretKey& secret_key) const {
  return decrypt_with(&secret_key);
}

PlainTensor CKKSTensor::decrypt_with(const rlwe::SecretKey* secret_key) const {
  constexpr const char* op = "CKKSTensor::decrypt";
  require_valid(op);
  const detail::CkksDecryption decryption(*context_, secret_key, op);
  const auto& encoder = context_->ckks_encoder();
  const std::size_t batch = batch_size(), inner = elements_.size();
  std::vector<double> data(batch * inner);
  parallel_for(0, inner, [&](std::size_t e) {
    const auto values = encoder.decode_real(decryption(elements_[e]));
    for (std::size_t b = 0; b < batch; ++b)
      data[b * inner + e] = values[b];
  });
  return {std::move(data), shape_};
}

std::size_t CKKSTensor::level() const {
  require_valid("CKKSTensor::level");
  return detail::lowest_level(context_->ckks_evaluator(), elements_);
}

CKKSTensor CKKSTensor::combine(const CKKSTensor& other, int kind, const char* operation) const {
  require_valid(operation);
  other.require_valid(operation);
  detail::require_same_context(context_, other.context_, operation);
  if (batch_size() != other.batch_size())
    throw MismatchError(std::string(operation) + ": batch sizes differ (" +
                        std::to_string(batch_size()) + " and " +
                        std::to_string(other.batch_size()) + ")");
  const Shape inner = PlainTensor::broadcast_shape(inner_shape(), other.inner_shape(), operation);
  if (kind == kMul) {
    if (auto refreshed = refreshed_if_short(1)) return refreshed->combine(other, kind, operation);
    if (auto refreshed = other.refreshed_if_short(1)) return combine(*refreshed, kind, operation);
    detail::require_levels(1, std::min(level(), other.level()), operation);
  }
  const auto mine = detail::broadcast_sources(inner_shape(), inner);
  const auto theirs = detail::broadcast_sources(other.inner_shape(), inner);
  const auto& evaluator = context_->ckks_evaluator();
  auto elements = detail::map_chunks(mine.size(), [&](std::size_t e) {
    const Ciphertext &x = elements_[mine[e]], &y = other.elements_[theirs[e]];
    if (kind == kMul) return CKKSVectorOps::product(*context_, x, y, operation);
    if (!CKKSVectorOps::aligns_levels(*context_) || x.level() == y.level())
      return kind == kSub ? evaluator.sub(x, y) : evaluator.add(x, y);
    Ciphertext a = x.clone(), b = y.clone();  // copies only to align them here
    CKKSVectorOps::align_levels(*context_, a, b);
    return kind == kSub ? evaluator.sub(a, b) : evaluator.add(a, b);
  });
  Shape shape = detail::combined_shape(batch_size(), inner, shape_, other.shape_);
  const bool clean = kind == kMul ? clean_padding_ || other.clean_padding_
                                  : clean_padding_ && other.clean_padding_;
  return {context_, std::move(elements), std::move(shape), clean};
}

CKKSTensor CKKSTensor::combine(const PlainTensor& plain, int kind, const char* operation) const {
  require_valid(operation);
  if (PlainTensor::broadcast_shape(shape_, plain.shape(), operation) != shape_)
    throw MismatchError(std::string(operation) +
                        ": the plain tensor does not broadcast to the "
                        "encrypted one's shape");
  if (kind == kMul) {
    if (auto refreshed = refreshed_if_short(1)) return refreshed->combine(plain, kind, operation);
    detail::require_levels(1, level(), operation);
  }
  const auto stretched = plain.broadcast_to(shape_);
  const std::size_t batch = batch_size(), inner = elements_.size();
  auto elements = detail::map_chunks(inner, [&](std::size_t e) {
    std::vector<double> values(batch);
    for (std::size_t b = 0; b < batch; ++b)
      values[b] = stretched.data()[b * inner + e];
    if (kind == kMul) return CKKSVectorOps::plain_product(*context_, elements_[e], values);
    return CKKSVectorOps::plain_sum(*context_, elements_[e], values, kind == kSub);
  });
  return {context_, std::move(elements), shape_, clean_padding_ || kind == kMul};
}

CKKSTensor CKKSTensor::add(const CKKSTensor& other) const {
  return combine(other, kAdd, "CKKSTensor::add");
}
CKKSTensor CKKSTensor::sub(const CKKSTensor& other) const {
  return combine(other, kSub, "CKKSTensor::sub");
}
CKKSTensor CKKSTensor::mul(const CKKSTensor& other) const {
  return combine(other, kMul, "CKKSTensor::mul");
}
CKKSTensor CKKSTensor::add(const PlainTensor& plain) const {
  return combine(plain, kAdd, "CKKSTensor::add");
}
CKKSTensor CKKSTensor::sub(const PlainTensor& plain) const {
  return combine(plain, kSub, "CKKSTensor::sub");
}
CKKSTensor CKKSTensor::mul(const PlainTensor& plain) const {
  return combine(plain, kMul, "CKKSTensor::mul");
}
// Scalars as plain tensors of one value: written into the batch's slots
// only, so the padding keeps its zeros.
CKKSTensor CKKSTensor::add(double scalar) const {
  return combine(PlainTensor({scalar}, {1}), kAdd, "CKKSTensor::add");
}
CKKSTensor CKKSTensor::sub(double scalar) const {
  return combine(PlainTensor({scalar}, {1}), kSub, "CKKSTensor::sub");
}
CKKSTensor CKKSTensor::mul(double scalar) const {
  return combine(PlainTensor({scalar}, {1}), kMul, "CKKSTensor::mul");
}

CKKSTensor CKKSTensor::negate() const {
  require_valid("CKKSTensor::negate");
  const auto& evaluator = context_->ckks_evaluator();
  auto elements = detail::map_chunks(elements_.size(),
                                     [&](std::size_t e) { return evaluator.negate(elements_[e]); });
  return {context_, std::move(elements), shape_, clean_padding_};
}

CKKSTensor CKKSTensor::square() const {
  return combine(*this, kMul, "CKKSTensor::square");
}

CKKSTensor CKKSTensor::polyval(std::span<const double> coefficients) const {
  constexpr const char* op = "CKKSTensor::polyval";
  require_valid(op);
  // The constant goes into the own slots as a plain vector (the padding
  // keeps its zeros); the rest is 0 at 0.
  const detail::SplitPolynomial split = detail::split_polynomial(coefficients, op);
  if (split.rest.degree() == 0) return mul(0.0).add(split.constant);
  if (auto refreshed = refreshed_if_short(split.rest.depth()))
    return refreshed->polyval(coefficients);
  auto elements = detail::evaluate_rest(*context_, elements_, split, level(), op);
  CKKSTensor out(context_, std::move(elements), shape_, clean_padding_);
  if (split.constant == 0) return out;
  return out.add(split.constant);
}

CKKSTensor CKKSTensor::sum(std::size_t axis) const {
  constexpr const char* op = "CKKSTensor::sum";
  require_valid(op);
  detail::require_axis(shape_, axis, op);
  const auto& evaluator = context_->ckks_evaluator();
  if (axis == 0) {
    if (batch_size() == 1) return copy();
    // A batch over 1 came from encryption or element-wise operations that
    // keep the padding zero (only sum(0) leaves it otherwise, with batch 1).
    std::vector<int64_t> steps;
    for (std::size_t step = 1; step < batch_size(); step *= 2)
      steps.push_back(static_cast<int64_t>(step));
    context_->require_rotations(steps, false, op);
    const auto& keys = context_->galois_keys(op);
    auto elements = detail::map_chunks(elements_.size(), [&](std::size_t e) {
      Ciphertext ct = elements_[e].clone();
      for (const int64_t step : steps)
        evaluator.add_inplace(ct, evaluator.rotate(ct, step, keys));
      return ct;
    });
    Shape shape = shape_;
    shape[0] = 1;
    return {context_, std::move(elements), std::move(shape), false};
  }
  // Along an inner axis: add the ciphertexts of each line.
  const detail::AxisSum sum = detail::axis_sum(shape_, axis);
  auto elements = detail::map_chunks(sum.sources.size(), [&](std::size_t r) {
    Ciphertext total = elements_[sum.sources[r][0]].clone();
    for (std::size_t k = 1; k < sum.sources[r].size(); ++k)
      evaluator.add_inplace(total, elements_[sum.sources[r][k]]);
    return total;
  });
  return {context_, std::move(elements), sum.shape, clean_padding_};
}

CKKSTensor CKKSTensor::reshape(const Shape& shape) const {
  constexpr const char* op = "CKKSTensor::reshape";
  require_valid(op);
  detail::require_reshape(shape_, shape, op);
  return {context_, copy().elements_, shape, clean_padding_};
}

CKKSTensor CKKSTensor::broadcast_to(const Shape& shape) const {
  constexpr const char* op = "CKKSTensor::broadcast_to";
  require_valid(op);
  // Each element of the result is a copy of the ciphertext it reads.
  const auto sources = detail::broadcast_to_sources(shape_, shape, op);
  return {context_, detail::picked(elements_, sources), shape, clean_padding_};
}

CKKSTensor CKKSTensor::transpose() const {
  require_valid("CKKSTensor::transpose");
  const detail::Transposed moved = detail::transposed(shape_);
  return {context_, detail::picked(elements_, moved.sources), moved.shape, clean_padding_};
}

CKKSTensor CKKSTensor::take(std::size_t axis, std::span<const std::size_t> indices) const {
  constexpr const char* op = "CKKSTensor::take";
  require_valid(op);
  detail::require_axis(shape_, axis, op);
  if (axis == 0)
    throw InvalidArgument(std::string(op) +
                          ": the batch axis runs along the slots; take along an axis after it "
                          "(rotate the batch to move its values)");
  if (indices.empty()) throw InvalidArgument(std::string(op) + ": no indices");
  for (const std::size_t index : indices)
    if (index >= shape_[axis])
      throw InvalidArgument(std::string(op) + ": index " + std::to_string(index) +
                            " is out of range for axis " + std::to_string(axis) + " of length " +
                            std::to_string(shape_[axis]));
  // Row-major over the axes after the batch: `outer` blocks of the axis,
  // each holding `stride` consecutive elements per entry of the axis.
  std::size_t stride = 1, outer = 1;
  for (std::size_t a = axis + 1; a < shape_.size(); ++a)
    stride *= shape_[a];
  for (std::size_t a = 1; a < axis; ++a)
    outer *= shape_[a];
  std::vector<std::size_t> sources;
  for (std::size_t o = 0; o < outer; ++o)
    for (const std::size_t index : indices)
      for (std::size_t k = 0; k < stride; ++k)
        sources.push_back((o * shape_[axis] + index) * stride + k);
  Shape shape = shape_;
  shape[axis] = indices.size();
  return {context_, detail::picked(elements_, sources), std::move(shape), clean_padding_};
}

CKKSTensor CKKSTensor::mm(const PlainTensor& matrix) const {
  constexpr const char* op = "CKKSTensor::mm";
  require_valid(op);
  if (shape_.size() != 2 || matrix.shape().size() != 2 || matrix.shape()[0] != shape_[1])
    throw MismatchError(std::string(op) + ": needs [batch, n] x [n, m]");
  if (auto refreshed = refreshed_if_short(1)) return refreshed->mm(matrix);
  detail::require_levels(1, level(), op);
  for (const double v : matrix.data())
    if (!std::isfinite(v))
      throw InvalidArgument(std::string(op) + ": a matrix entry is not finite");
  const std::size_t n = shape_[1], m = matrix.shape()[1];
  // Output j = sum_i x_i M[i][j]: constant products summed, one rescale.
  std::vector<std::vector<detail::WeightedTerm>> sums(m);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t i = 0; i < n; ++i)
      sums[j].push_back({i, matrix.data()[i * m + j]});
  auto elements = detail::weighted_sums(*context_, elements_, sums, op);
  return {context_, std::move(elements), Shape{batch_size(), m}, true};
}

}  // namespace heft::tensor
