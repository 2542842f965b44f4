// Weighted sums of ciphertexts by constants (tensor/weighted_sums.hpp).
#include "tensor/weighted_sums.hpp"

#include <algorithm>
#include <string>

#include "circuits/constant_products.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor::detail {

std::vector<rlwe::Ciphertext> weighted_sums(const TensorContext& context,
                                            std::span<const rlwe::Ciphertext> inputs,
                                            const std::vector<std::vector<WeightedTerm>>& sums,
                                            const char* operation) {
  for (const auto& x : inputs) {
    if (x.needs_rescale && x.level() > 0)
      throw InvalidArgument(std::string(operation) +
                            ": an input awaits its rescale (turn auto_rescale on or rescale it)");
    rlwe::detail::require_relinearized(x, operation);
  }
  const auto& evaluator = context.ckks_evaluator();
  const circuits::detail::ConstantProducts products(context.rlwe_context());
  return map_chunks(sums.size(), [&](std::size_t j) {
    const auto& terms = sums[j];
    std::size_t level = inputs[terms.front().input].level();
    for (const auto& term : terms)
      level = std::min(level, inputs[term.input].level());
    require_levels(1, level, operation);
    const rlwe::Ciphertext& first = inputs[terms.front().input];
    // The scale a plaintext product at this level would give, so that the
    // rescale below lands where multiply_plain's would.
    rlwe::Ciphertext total =
        products.zero(level, first.scale * evaluator.scale_at(level), first.slots);
    for (const auto& term : terms)
      products.multiply_accumulate(total, inputs[term.input], term.weight, operation);
    return CKKSVectorOps::finish_product(context, std::move(total));
  });
}

}  // namespace heft::tensor::detail
