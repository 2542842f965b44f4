// CKKSVector: sum, dot products and polynomial evaluation.
#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"
#include "tensor/polynomial_split.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

// Rotation steps 1, 2, 4, ... below `length` (at least one value summed).
std::vector<int64_t> doubling_steps(std::size_t length) {
  std::vector<int64_t> steps;
  for (std::size_t step = 1; step < length; step *= 2)
    steps.push_back(static_cast<int64_t>(step));
  return steps;
}

}  // namespace

CKKSVector CKKSVector::with_zero_padding(const char* operation) const {
  const std::size_t slots = context_->slot_count();
  const std::size_t used = size_ - (chunks_.size() - 1) * slots;
  if (clean_padding_ || used == slots) return {context_, chunks_copy(), size_, true};
  detail::require_levels(1, level(), operation);
  const auto& evaluator = context_->ckks_evaluator();
  // Mask at scale q_l, so that the rescale restores the scale (to within
  // the rounding of q_l to a double) and the other ciphertexts join it by
  // dropping primes.
  Ciphertext last = chunks_.back().clone();
  if (last.needs_rescale && last.level() > 0) last = evaluator.rescale(last);
  const std::size_t level = last.level();
  std::vector<double> mask(used, 1.0);
  const auto q =
      static_cast<double>(context_->rlwe_context()->parameters().ciphertext_moduli[level]);
  last = evaluator.rescale(
      evaluator.multiply_plain(last, context_->ckks_encoder().encode(mask, q, level)));
  std::vector<Ciphertext> chunks;
  for (std::size_t c = 0; c + 1 < chunks_.size(); ++c) {
    Ciphertext ct = chunks_[c].clone();
    if (ct.needs_rescale && ct.level() > 0) ct = evaluator.rescale(ct);
    chunks.push_back(evaluator.drop_to_level(ct, last.level()));
  }
  chunks.push_back(std::move(last));
  return {context_, std::move(chunks), size_, true};
}

std::vector<Ciphertext> CKKSVector::chunks_copy() const {
  std::vector<Ciphertext> out;
  for (const auto& ct : chunks_)
    out.push_back(ct.clone());
  return out;
}

Ciphertext CKKSVector::sum_slots(Ciphertext ct, std::size_t length, const char* operation) const {
  const auto steps = doubling_steps(std::min(length, context_->slot_count()));
  const auto& evaluator = context_->ckks_evaluator();
  const auto& keys = context_->galois_keys(operation);
  for (const int64_t step : steps)
    evaluator.add_inplace(ct, evaluator.rotate(ct, step, keys));
  return ct;
}

CKKSVector CKKSVector::sum() const {
  constexpr const char* op = "CKKSVector::sum";
  require_valid(op);
  context_->require_rotations(doubling_steps(std::min(size_, context_->slot_count())), false, op);
  const CKKSVector clean = with_zero_padding(op);
  const auto& evaluator = context_->ckks_evaluator();
  Ciphertext total = clean.chunks_[0].clone();
  for (std::size_t c = 1; c < clean.chunks_.size(); ++c)
    evaluator.add_inplace(total, clean.chunks_[c]);
  std::vector<Ciphertext> chunks;
  chunks.push_back(sum_slots(std::move(total), size_, op));
  // Slot 0 holds the sum; the other slots hold partial sums.
  return {context_, std::move(chunks), 1, false};
}

CKKSVector CKKSVector::dot(const CKKSVector& other) const {
  constexpr const char* op = "CKKSVector::dot";
  require_compatible(other, op);
  context_->require_rotations(doubling_steps(std::min(size_, context_->slot_count())), false, op);
  const bool masked = !clean_padding_ && !other.clean_padding_;
  if (auto refreshed = refreshed_if_short(masked ? 2 : 1)) return refreshed->dot(other);
  if (auto refreshed = other.refreshed_if_short(masked ? 2 : 1)) return dot(*refreshed);
  detail::require_levels(masked ? 2 : 1, std::min(level(), other.level()), op);
  return mul(other).sum();
}

CKKSVector CKKSVector::dot(std::span<const double> plain) const {
  constexpr const char* op = "CKKSVector::dot";
  require_valid(op);
  detail::require_same_size(size_, plain.size(), op);
  context_->require_rotations(doubling_steps(std::min(size_, context_->slot_count())), false, op);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->dot(plain);
  detail::require_levels(1, level(), op);
  return mul(plain).sum();
}

CKKSVector CKKSVector::polyval(std::span<const double> coefficients) const {
  constexpr const char* op = "CKKSVector::polyval";
  require_valid(op);
  // The constant goes into the own slots as a plain vector (the padding
  // keeps its zeros); the rest is 0 at 0.
  const detail::SplitPolynomial split = detail::split_polynomial(coefficients, op);
  if (split.rest.degree() == 0) return mul(0.0).add(split.constant);
  if (auto refreshed = refreshed_if_short(split.rest.depth()))
    return refreshed->polyval(coefficients);
  auto chunks = detail::evaluate_rest(*context_, chunks_, split, level(), op);
  CKKSVector out(context_, std::move(chunks), size_, clean_padding_);
  if (split.constant == 0) return out;
  return out.add(split.constant);
}

}  // namespace heft::tensor
