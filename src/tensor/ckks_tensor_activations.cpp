// CKKSTensor::relu and max (heft/tensor/ckks_tensor.hpp): comparisons of
// encrypted values through circuits' composite sign approximation, the way
// high-precision comparisons are done in CKKS (a single polynomial would
// need a degree of about 1 / epsilon).
#include <string>

#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

CKKSTensor CKKSTensor::relu(const circuits::CompositePolynomial& sign) const {
  constexpr const char* op = "CKKSTensor::relu";
  require_valid(op);
  if (sign.stages.empty()) throw InvalidArgument(std::string(op) + ": an empty sign approximation");
  if (auto refreshed = refreshed_if_short(sign.depth() + 1)) return refreshed->relu(sign);
  detail::require_levels(sign.depth() + 1, level(), op);
  circuits::PolynomialEvaluator evaluator(context_->rlwe_context(), context_->relin_key(op));
  evaluator.allow_transparent_results(true);  // re-randomised as the result is made
  auto elements = detail::map_chunks(
      elements_.size(), [&](std::size_t e) { return evaluator.relu(elements_[e], sign); });
  return {context_, std::move(elements), shape_, clean_padding_};
}

CKKSTensor CKKSTensor::max(const CKKSTensor& other,
                           const circuits::CompositePolynomial& sign) const {
  constexpr const char* op = "CKKSTensor::max";
  require_valid(op);
  other.require_valid(op);
  if (shape_ != other.shape_) throw MismatchError(std::string(op) + ": the shapes differ");
  return other.add(sub(other).relu(sign));
}

}  // namespace heft::tensor
