// PolynomialEvaluator on compositions of polynomials, and ReLU through a
// sign approximation.
#include <string>

#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

rlwe::Ciphertext PolynomialEvaluator::evaluate(const rlwe::Ciphertext& x,
                                               const CompositePolynomial& f) const {
  if (f.stages.empty()) throw InvalidArgument("evaluate: the composition has no stages");
  const std::size_t level = x.needs_rescale && x.level() > 0 ? x.level() - 1 : x.level();
  if (f.depth() > level) {
    throw InvalidArgument("evaluate: the composition needs " + std::to_string(f.depth()) +
                          " levels; the input has " + std::to_string(level));
  }
  rlwe::Ciphertext y = evaluate(x, f.stages.front());
  for (std::size_t i = 1; i < f.stages.size(); ++i)
    y = evaluate(y, f.stages[i]);
  return y;
}

rlwe::Ciphertext PolynomialEvaluator::relu(const rlwe::Ciphertext& x,
                                           const CompositePolynomial& sign) const {
  if (sign.stages.empty()) throw InvalidArgument("relu: the sign approximation has no stages");
  const std::size_t level = x.needs_rescale && x.level() > 0 ? x.level() - 1 : x.level();
  if (sign.depth() + 1 > level) {
    throw InvalidArgument("relu: it needs " + std::to_string(sign.depth() + 1) +
                          " levels; the input has " + std::to_string(level));
  }
  // h = (1 + sign) / 2, folded into the last stage's coefficients.
  CompositePolynomial step = sign;
  const Polynomial& last = sign.stages.back();
  std::vector<std::complex<double>> c = last.coefficients();
  c[0] += 1.0;
  for (auto& v : c)
    v /= 2.0;
  step.stages.back() = last.basis() == Basis::power
                           ? Polynomial::power(std::move(c))
                           : Polynomial::chebyshev(std::move(c), last.lower(), last.upper());
  const rlwe::Ciphertext h = evaluate(x, step);
  rlwe::Ciphertext input = x.needs_rescale && x.level() > 0 ? evaluator_.rescale(x) : x.clone();
  input = evaluator_.drop_to_level(input, h.level());
  return checked(evaluator_.multiply_rescale(input, h, *key_), "PolynomialEvaluator::relu");
}

}  // namespace heft::circuits
