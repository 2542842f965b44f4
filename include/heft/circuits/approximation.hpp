// Polynomial approximations of functions, for evaluation on CKKS ciphertexts
// (PolynomialEvaluator):
// - chebyshev_interpolate: the degree-d interpolant of any function at the
//   Chebyshev nodes of [a, b], within a small factor of the best uniform
//   approximation of that degree for smooth functions;
// - the functions users ask for most (sigmoid, exp, log, sqrt, 1/x, tanh,
//   GELU) on an interval of their choice;
// - sign(x) on [-1, -epsilon] U [epsilon, 1] as a composition of low-degree
//   odd minimax polynomials (found by the Remez exchange algorithm), each
//   mapping the previous one's output range closer to +-1: the way
//   high-precision comparisons, max and ReLU are done in CKKS. A single
//   polynomial would need a degree of about 1/epsilon.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "heft/circuits/polynomial.hpp"
#include "heft/export.hpp"

namespace heft::circuits {

// InvalidArgument unless a < b (finite) and degree <= 4096; f must be finite
// at the nodes (InvalidArgument naming the node otherwise).
[[nodiscard]] HEFT_EXPORT Polynomial chebyshev_interpolate(const std::function<double(double)>& f,
                                                           double a, double b, std::size_t degree);

// The largest |p(x) - f(x)| over `samples` evenly spaced points of [a, b].
[[nodiscard]] HEFT_EXPORT double max_error(const Polynomial& p,
                                           const std::function<double(double)>& f, double a,
                                           double b, std::size_t samples = 4097);

namespace approximations {
[[nodiscard]] HEFT_EXPORT Polynomial sigmoid(double a, double b, std::size_t degree);
[[nodiscard]] HEFT_EXPORT Polynomial exp(double a, double b, std::size_t degree);
// a > 0 (InvalidArgument otherwise).
[[nodiscard]] HEFT_EXPORT Polynomial log(double a, double b, std::size_t degree);
// a >= 0.
[[nodiscard]] HEFT_EXPORT Polynomial sqrt(double a, double b, std::size_t degree);
// 0 outside [a, b].
[[nodiscard]] HEFT_EXPORT Polynomial inverse(double a, double b, std::size_t degree);
[[nodiscard]] HEFT_EXPORT Polynomial tanh(double a, double b, std::size_t degree);
// x Phi(x) = x (1 + erf(x / sqrt 2)) / 2.
[[nodiscard]] HEFT_EXPORT Polynomial gelu(double a, double b, std::size_t degree);
}  // namespace approximations

// p_k( ... p_2(p_1(x))): stages applied first to last.
struct HEFT_EXPORT CompositePolynomial {
  std::vector<Polynomial> stages;
  [[nodiscard]] std::size_t depth() const noexcept;
  [[nodiscard]] double operator()(double x) const;
};

// The odd polynomial of degree `degree` (odd, >= 1) in the Chebyshev basis on
// [-1, 1] that best approximates sign(x) on [epsilon, 1] (and, being odd, on
// [-1, -epsilon]) in the uniform norm; `error` receives that norm.
[[nodiscard]] HEFT_EXPORT Polynomial minimax_sign(double epsilon, std::size_t degree,
                                                  double* error = nullptr);

// A composition of odd minimax polynomials of degree `stage_degree` whose
// value is within 2^-precision_bits of sign(x) for epsilon <= |x| <= 1 (every
// stage but the last is divided by 1 + its error, so the next one's inputs
// stay in [-1, 1]). InvalidArgument unless 0 < epsilon < 1,
// 1 <= precision_bits <= 40 and stage_degree is odd in [3, 63].
[[nodiscard]] HEFT_EXPORT CompositePolynomial sign_approximation(double epsilon,
                                                                 double precision_bits,
                                                                 std::size_t stage_degree = 15);

}  // namespace heft::circuits
