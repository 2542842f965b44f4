// Polynomial: construction checks, parity, depth and evaluation in the clear.
#include "heft/circuits/polynomial.hpp"

#include <bit>
#include <cmath>
#include <string>

#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

void require_finite_coefficients(const std::vector<std::complex<double>>& coefficients,
                                 const char* operation) {
  if (coefficients.empty()) {
    throw InvalidArgument(std::string(operation) + ": a polynomial needs at least one coefficient");
  }
  for (std::size_t k = 0; k < coefficients.size(); ++k) {
    if (!std::isfinite(coefficients[k].real()) || !std::isfinite(coefficients[k].imag())) {
      throw InvalidArgument(std::string(operation) + ": coefficient " + std::to_string(k) +
                            " is not finite");
    }
  }
}

std::vector<std::complex<double>> to_complex(std::span<const double> values) {
  return {values.begin(), values.end()};
}

}  // namespace

Polynomial::Polynomial(Basis basis, std::vector<std::complex<double>> coefficients, double a,
                       double b)
    : basis_(basis), coefficients_(std::move(coefficients)), lower_(a), upper_(b) {}

Polynomial Polynomial::power(std::vector<std::complex<double>> coefficients) {
  require_finite_coefficients(coefficients, "Polynomial::power");
  return Polynomial(Basis::power, std::move(coefficients), -1.0, 1.0);
}

Polynomial Polynomial::power(std::span<const double> coefficients) {
  return power(to_complex(coefficients));
}

Polynomial Polynomial::chebyshev(std::vector<std::complex<double>> coefficients, double a,
                                 double b) {
  require_finite_coefficients(coefficients, "Polynomial::chebyshev");
  if (!std::isfinite(a) || !std::isfinite(b) || !(a < b)) {
    throw InvalidArgument("Polynomial::chebyshev: the interval [a, b] needs finite a < b");
  }
  return Polynomial(Basis::chebyshev, std::move(coefficients), a, b);
}

Polynomial Polynomial::chebyshev(std::span<const double> coefficients, double a, double b) {
  return chebyshev(to_complex(coefficients), a, b);
}

std::size_t Polynomial::degree() const noexcept {
  for (std::size_t k = coefficients_.size(); k-- > 1;) {
    if (coefficients_[k] != 0.0) return k;
  }
  return 0;
}

bool Polynomial::is_odd() const noexcept {
  for (std::size_t k = 0; k < coefficients_.size(); k += 2) {
    if (coefficients_[k] != 0.0) return false;
  }
  return true;
}

bool Polynomial::is_even() const noexcept {
  for (std::size_t k = 1; k < coefficients_.size(); k += 2) {
    if (coefficients_[k] != 0.0) return false;
  }
  return true;
}

bool Polynomial::is_real() const noexcept {
  for (const auto& c : coefficients_) {
    if (c.imag() != 0.0) return false;
  }
  return true;
}

bool Polynomial::change_of_variable_uses_level() const noexcept {
  if (degree() == 0) return false;
  const double magnitude = std::abs(variable_scale());
  int exponent = 0;
  // magnitude = 2^k exactly, k >= 0: frexp gives 0.5 * 2^(k+1).
  return !(std::frexp(magnitude, &exponent) == 0.5 && exponent >= 1 && exponent <= 62);
}

std::size_t Polynomial::depth() const noexcept {
  const auto product_depth = static_cast<std::size_t>(std::bit_width(degree()));
  return product_depth + (change_of_variable_uses_level() ? 1 : 0);
}

double Polynomial::variable_scale() const noexcept {
  return basis_ == Basis::power ? 1.0 : 2.0 / (upper_ - lower_);
}

double Polynomial::variable_shift() const noexcept {
  return basis_ == Basis::power ? 0.0 : -(lower_ + upper_) / (upper_ - lower_);
}

std::complex<double> Polynomial::operator()(std::complex<double> x) const {
  const std::size_t n = degree() + 1;
  if (basis_ == Basis::power) {
    std::complex<double> result = 0.0;
    for (std::size_t k = n; k-- > 0;)
      result = result * x + coefficients_[k];
    return result;
  }
  // Clenshaw: b_k = c_k + 2 y b_(k+1) - b_(k+2); p = c_0 + y b_1 - b_2.
  const std::complex<double> y = variable_scale() * x + variable_shift();
  std::complex<double> next = 0.0, after = 0.0;
  for (std::size_t k = n; k-- > 1;) {
    const std::complex<double> current = coefficients_[k] + 2.0 * y * next - after;
    after = next;
    next = current;
  }
  return coefficients_[0] + y * next - after;
}

}  // namespace heft::circuits
