// CKKSVector::bootstrap / refresh_for (each ciphertext through the context's
// bootstrapper) and CKKSVector::linear_transform (a prepared
// circuits::LinearTransform: what convolutions over channels packed in
// blocks of slots are built from, with no im2col).
#include <string>

#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

CKKSVector CKKSVector::bootstrap() const {
  constexpr const char* op = "CKKSVector::bootstrap";
  require_valid(op);
  auto chunks = detail::map_chunks(
      chunks_.size(), [&](std::size_t c) { return context_->bootstrap(chunks_[c], op); });
  // Bootstrapping refreshes every slot: a padding of zeros stays zeros
  // within the precision, but only approximately.
  return {context_, std::move(chunks), size_, false};
}

std::optional<CKKSVector> CKKSVector::refreshed_if_short(std::size_t levels) const {
  if (!context_ || chunks_.empty() || !context_->auto_bootstrap()) return std::nullopt;
  if (level() >= levels || levels > context_->encryption_level()) return std::nullopt;
  return bootstrap();
}

CKKSVector CKKSVector::refresh_for(std::size_t levels) const {
  constexpr const char* op = "CKKSVector::refresh_for";
  require_valid(op);
  if (levels <= level()) return copy();
  detail::require_refreshable(levels, level(), context_->is_bootstrappable(),
                              context_->encryption_level(), op);
  return bootstrap();
}

CKKSVector CKKSVector::linear_transform(const circuits::LinearTransform& m) const {
  constexpr const char* op = "CKKSVector::linear_transform";
  require_valid(op);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->linear_transform(m);
  if (chunks_.size() != 1)
    throw InvalidArgument(std::string(op) + ": the vector spans " + std::to_string(chunks_.size()) +
                          " ciphertexts; a linear transform takes one");
  if (m.context() != context_->rlwe_context())
    throw MismatchError(std::string(op) + ": the transform was built for other parameters");
  if (m.slots() != context_->slot_count())
    throw InvalidArgument(std::string(op) + ": the transform acts on " + std::to_string(m.slots()) +
                          " slots, the context's ciphertexts hold " +
                          std::to_string(context_->slot_count()));
  const auto& evaluator = context_->ckks_evaluator();
  const rlwe::Ciphertext& ct = chunks_[0];
  rlwe::Ciphertext settled =
      ct.needs_rescale && ct.level() > 0 ? evaluator.rescale(ct) : ct.clone();
  if (settled.level() < 1)
    throw InvalidArgument(std::string(op) + ": no level left for the transform's product");
  if (settled.level() > m.level()) settled = evaluator.drop_to_level(settled, m.level());
  const auto steps = m.rotation_steps();
  const rlwe::GaloisKeys empty(context_->rlwe_context());
  const rlwe::GaloisKeys& keys = steps.empty() ? empty : context_->galois_keys(op);
  circuits::LinearTransformEvaluator transforms(context_->rlwe_context());
  transforms.allow_transparent_results(true);  // re-randomised as the result is made
  std::vector<rlwe::Ciphertext> chunks;
  chunks.push_back(CKKSVectorOps::finish_product(*context_, transforms.evaluate(settled, m, keys)));
  return {context_, std::move(chunks), size_, size_ == context_->slot_count()};
}

}  // namespace heft::tensor
