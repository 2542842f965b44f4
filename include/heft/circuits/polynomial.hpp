// A polynomial to evaluate on CKKS ciphertexts: its coefficients in the power
// basis (p(x) = sum c_k x^k) or in the Chebyshev basis on an interval [a, b]
// (p(x) = sum c_k T_k(y), y = (2x - a - b) / (b - a), which maps [a, b] onto
// [-1, 1]), real or complex. Also evaluates itself in the clear (Horner or
// Clenshaw), the reference that tests and users compare the encrypted
// result with.
//
// Parity is read from the coefficients: a polynomial whose even (odd)
// coefficients are all zero is odd (even) in its variable (x, or y for the
// Chebyshev basis), and the evaluator then computes only the odd (even)
// powers.
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

#include "heft/export.hpp"

namespace heft::circuits {

enum class Basis { power, chebyshev };

class HEFT_EXPORT Polynomial {
 public:
  Polynomial() = default;

  // InvalidArgument on no coefficients or a coefficient that is not finite.
  [[nodiscard]] static Polynomial power(std::vector<std::complex<double>> coefficients);
  [[nodiscard]] static Polynomial power(std::span<const double> coefficients);
  // Also InvalidArgument unless a < b, both finite.
  [[nodiscard]] static Polynomial chebyshev(std::vector<std::complex<double>> coefficients,
                                            double a = -1.0, double b = 1.0);
  [[nodiscard]] static Polynomial chebyshev(std::span<const double> coefficients, double a = -1.0,
                                            double b = 1.0);

  [[nodiscard]] Basis basis() const noexcept { return basis_; }
  [[nodiscard]] double lower() const noexcept { return lower_; }
  [[nodiscard]] double upper() const noexcept { return upper_; }
  [[nodiscard]] const std::vector<std::complex<double>>& coefficients() const noexcept {
    return coefficients_;
  }
  // The index of the last nonzero coefficient (0 for a constant, also 0).
  [[nodiscard]] std::size_t degree() const noexcept;
  [[nodiscard]] bool is_odd() const noexcept;   // every even coefficient is zero
  [[nodiscard]] bool is_even() const noexcept;  // every odd coefficient is zero
  [[nodiscard]] bool is_real() const noexcept;  // every coefficient is real

  // The levels an evaluation consumes: ceil(log2(degree + 1)) (0 for a
  // constant), plus one for the change of variable y = alpha x + beta when
  // it needs a real multiplication: a Chebyshev interval whose alpha is not
  // +-2^k (k >= 0). An interval of width 2 / 2^k costs nothing more (an
  // exact integer multiple and a constant added).
  [[nodiscard]] std::size_t depth() const noexcept;
  // Whether the change of variable takes a level (see depth()).
  [[nodiscard]] bool change_of_variable_uses_level() const noexcept;

  // p(x) in complex doubles: Horner in the power basis, Clenshaw's
  // recurrence in the Chebyshev basis.
  [[nodiscard]] std::complex<double> operator()(std::complex<double> x) const;

  // The variable the basis is written in: x for the power basis, y for the
  // Chebyshev basis (y = alpha x + beta, alpha = 2 / (b - a),
  // beta = -(a + b) / (b - a)).
  [[nodiscard]] double variable_scale() const noexcept;
  [[nodiscard]] double variable_shift() const noexcept;

 private:
  Polynomial(Basis basis, std::vector<std::complex<double>> coefficients, double a, double b);

  Basis basis_ = Basis::power;
  std::vector<std::complex<double>> coefficients_{0.0};
  double lower_ = -1.0;
  double upper_ = 1.0;
};

}  // namespace heft::circuits
