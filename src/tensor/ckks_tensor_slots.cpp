// CKKSTensor's operations on the slots of each ciphertext
// (heft/tensor/ckks_tensor.hpp): rotations of the batch, one step or several
// hoisted, and bootstrapping. With several inputs packed in blocks of the
// batch (images of 32 x 32 slots, 32 of them per ciphertext), a rotation
// moves every block's values to their neighbours at once: what convolutions
// and pooling over such a batch are made of, with the channels as the
// tensor's elements.
#include <string>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/chunks.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

// InvalidArgument unless the batch fills the slots (a rotation of the
// ciphertext is then a roll of the batch) and the keys cover `steps`.
void require_rotatable(const TensorContext& context, std::size_t batch,
                       std::span<const int64_t> steps, const char* operation) {
  if (batch != context.slot_count())
    throw InvalidArgument(std::string(operation) + ": a batch of " + std::to_string(batch) +
                          " does not fill the " + std::to_string(context.slot_count()) +
                          " slots; rotating the batch needs all of them (pad it)");
  context.require_rotations(steps, false, operation);
}

}  // namespace

CKKSTensor CKKSTensor::rotate(int64_t steps) const {
  constexpr const char* op = "CKKSTensor::rotate";
  require_valid(op);
  const int64_t step[] = {steps};
  require_rotatable(*context_, batch_size(), step, op);
  const auto& evaluator = context_->ckks_evaluator();
  if (steps % static_cast<int64_t>(batch_size()) == 0) return copy();
  const auto& keys = context_->galois_keys(op);
  auto elements = detail::map_chunks(
      elements_.size(), [&](std::size_t e) { return evaluator.rotate(elements_[e], steps, keys); });
  return {context_, std::move(elements), shape_, false};
}

CKKSTensor CKKSTensor::rotate_hoisted(std::span<const int64_t> steps) const {
  constexpr const char* op = "CKKSTensor::rotate_hoisted";
  require_valid(op);
  if (steps.empty()) throw InvalidArgument(std::string(op) + ": no steps");
  require_rotatable(*context_, batch_size(), steps, op);
  const auto& evaluator = context_->ckks_evaluator();
  const auto& keys = context_->galois_keys(op);
  // Element (s, e) of the result sits at s * inner + e.
  const std::size_t inner = elements_.size(), count = steps.size();
  std::vector<Ciphertext> elements(inner * count);
  const auto rotate_one = [&](std::size_t e) {
    auto rotated = evaluator.rotate_hoisted(elements_[e], steps, keys);
    for (std::size_t s = 0; s < count; ++s)
      elements[s * inner + e] = std::move(rotated[s]);
  };
  if (inner == 1) {
    rotate_one(0);  // the hoisted rotations parallelise inside
  } else {
    parallel_for(0, inner, rotate_one);
  }
  Shape shape = shape_.size() == 1 ? Shape{batch_size(), count} : shape_;
  if (shape_.size() > 1) shape.insert(shape.begin() + 1, count);
  return {context_, std::move(elements), std::move(shape), false};
}

CKKSTensor CKKSTensor::bootstrap() const {
  constexpr const char* op = "CKKSTensor::bootstrap";
  require_valid(op);
  auto elements = detail::map_chunks(
      elements_.size(), [&](std::size_t e) { return context_->bootstrap(elements_[e], op); });
  // Slots past the batch come back near zero, not exactly zero.
  return {context_, std::move(elements), shape_, false};
}

std::optional<CKKSTensor> CKKSTensor::refreshed_if_short(std::size_t levels) const {
  if (!context_ || elements_.empty() || !context_->auto_bootstrap()) return std::nullopt;
  if (level() >= levels || levels > context_->encryption_level()) return std::nullopt;
  return bootstrap();
}

CKKSTensor CKKSTensor::refresh_for(std::size_t levels) const {
  constexpr const char* op = "CKKSTensor::refresh_for";
  require_valid(op);
  if (levels <= level()) return copy();
  detail::require_refreshable(levels, level(), context_->is_bootstrappable(),
                              context_->encryption_level(), op);
  return bootstrap();
}

}  // namespace heft::tensor
