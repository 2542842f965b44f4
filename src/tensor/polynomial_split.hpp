// The split every CKKS tensor type's polyval makes: p(x) - p(0), which is 0
// at 0 and so keeps zero padding zero, goes through circuits::
// PolynomialEvaluator; the constant p(0) is then added as a plain vector
// over the tensor's own slots.
#pragma once

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "heft/circuits/polynomial.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor::detail {

struct SplitPolynomial {
  circuits::Polynomial rest;  // p(x) - p(0)
  double constant = 0;        // p(0)
};

// InvalidArgument naming `operation` for no coefficient or one that is not
// finite. Coefficients lowest degree first (TenSEAL's polyval).
inline SplitPolynomial split_polynomial(std::span<const double> coefficients,
                                        const char* operation) {
  if (coefficients.empty()) throw InvalidArgument(std::string(operation) + ": no coefficients");
  for (const double c : coefficients)
    if (!std::isfinite(c))
      throw InvalidArgument(std::string(operation) + ": a coefficient is not finite");
  std::vector<double> rest(coefficients.begin(), coefficients.end());
  const double constant = rest[0];
  rest[0] = 0;
  return {circuits::Polynomial::power(std::span<const double>(rest)), constant};
}

// split.rest on every ciphertext (in parallel), whose levels must hold its
// depth: `level` is the lowest of them (InvalidArgument naming `operation`
// otherwise). The caller adds split.constant. A degree-0 rest is not
// evaluated here (the caller multiplies by 0 instead).
inline std::vector<rlwe::Ciphertext> evaluate_rest(const TensorContext& context,
                                                   std::span<const rlwe::Ciphertext> ciphertexts,
                                                   const SplitPolynomial& split, std::size_t level,
                                                   const char* operation) {
  require_levels(split.rest.depth(), level, operation);
  circuits::PolynomialEvaluator evaluator(context.rlwe_context(), context.relin_key(operation));
  evaluator.allow_transparent_results(true);  // re-randomised as the result is made
  return map_chunks(ciphertexts.size(),
                    [&](std::size_t c) { return evaluator.evaluate(ciphertexts[c], split.rest); });
}

}  // namespace heft::tensor::detail
