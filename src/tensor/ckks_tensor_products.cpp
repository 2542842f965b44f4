// CKKSTensor::mm of two encrypted tensors (heft/tensor/ckks_tensor.hpp):
// every output a sum of ciphertext products, relinearized and rescaled once
// (a tensor product sum is still a 3-part ciphertext of the same secret).
#include <optional>
#include <string>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

CKKSTensor CKKSTensor::mm(const CKKSTensor& other) const {
  constexpr const char* op = "CKKSTensor::mm";
  require_valid(op);
  other.require_valid(op);
  detail::require_same_context(context_, other.context_, op);
  if (batch_size() != other.batch_size())
    throw MismatchError(std::string(op) + ": batch sizes differ (" + std::to_string(batch_size()) +
                        " and " + std::to_string(other.batch_size()) + ")");
  const bool vector = shape_.size() == 2;
  if ((!vector && shape_.size() != 3) || other.shape_.size() != 3 ||
      shape_.back() != other.shape_[1])
    throw MismatchError(std::string(op) +
                        ": needs [batch, n, k] or [batch, k] times [batch, k, m]");
  if (auto refreshed = refreshed_if_short(1)) return refreshed->mm(other);
  if (auto refreshed = other.refreshed_if_short(1)) return mm(*refreshed);
  detail::require_levels(1, std::min(level(), other.level()), op);
  const std::size_t rows = vector ? 1 : shape_[1], inner = shape_.back(), cols = other.shape_[2];
  const auto& evaluator = context_->ckks_evaluator();
  // One relinearization and rescale per output when the flags ask for both
  // and the operands share one level (the usual case); otherwise each
  // product as element-wise mul makes it.
  bool lazy = context_->auto_relin() && context_->auto_rescale();
  for (const auto& x : elements_)
    lazy = lazy && x.level() == elements_[0].level() && !x.needs_rescale;
  for (const auto& x : other.elements_)
    lazy = lazy && x.level() == elements_[0].level() && !x.needs_rescale;
  const rlwe::RelinKey* relin = context_->auto_relin() ? &context_->relin_key(op) : nullptr;
  auto elements = detail::map_chunks(rows * cols, [&](std::size_t e) {
    const std::size_t i = e / cols, j = e % cols;
    std::optional<Ciphertext> total;
    for (std::size_t l = 0; l < inner; ++l) {
      const Ciphertext& a = elements_[i * inner + l];
      const Ciphertext& b = other.elements_[l * cols + j];
      Ciphertext term =
          lazy ? evaluator.multiply(a, b) : CKKSVectorOps::product(*context_, a, b, op);
      if (total) {
        evaluator.add_inplace(*total, term);
      } else {
        total = std::move(term);
      }
    }
    if (lazy) return evaluator.relinearize_rescale(*total, *relin);
    return std::move(*total);
  });
  Shape shape = {batch_size()};
  if (!vector) shape.push_back(rows);
  shape.push_back(cols);
  return {context_, std::move(elements), std::move(shape), clean_padding_ || other.clean_padding_};
}

}  // namespace heft::tensor
