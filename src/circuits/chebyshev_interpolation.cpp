// Chebyshev interpolation and the common functions built on it.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include "heft/circuits/approximation.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

Polynomial chebyshev_interpolate(const std::function<double(double)>& f, double a, double b,
                                 std::size_t degree) {
  if (!std::isfinite(a) || !std::isfinite(b) || !(a < b)) {
    throw InvalidArgument("chebyshev_interpolate: the interval [a, b] needs finite a < b");
  }
  if (degree > 4096) {
    throw InvalidArgument("chebyshev_interpolate: degree " + std::to_string(degree) +
                          " is above 4096");
  }
  const std::size_t n = degree + 1;
  std::vector<double> values(n);
  for (std::size_t j = 0; j < n; ++j) {
    const double y =
        std::cos(std::numbers::pi * (static_cast<double>(j) + 0.5) / static_cast<double>(n));
    const double x = (b - a) / 2 * y + (a + b) / 2;
    values[j] = f(x);
    if (!std::isfinite(values[j])) {
      throw InvalidArgument("chebyshev_interpolate: the function is not finite at x = " +
                            std::to_string(x));
    }
  }
  // c_k = 2/n sum_j f(x_j) T_k(y_j), c_0 halved (discrete orthogonality of
  // the T_k at the nodes). T_k(y_j) = cos(pi k (2j + 1) / 2n), with the angle
  // reduced modulo 2 pi in integers first: at degree 4095 the unreduced
  // angle reaches 4096 pi, where one rounding of it costs 1e-12 in the
  // cosine and 2^-41 in the interpolant (a bootstrapping sine's precision).
  const uint64_t period = 4 * static_cast<uint64_t>(n);  // 2 pi in units of pi / 2n
  std::vector<double> cosines(period);
  for (uint64_t m = 0; m < period; ++m)
    cosines[m] =
        std::cos(std::numbers::pi * static_cast<double>(m) / (2.0 * static_cast<double>(n)));
  std::vector<double> coefficients(n);
  for (std::size_t k = 0; k < n; ++k) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j)
      sum += values[j] * cosines[(static_cast<uint64_t>(k) * (2 * j + 1)) % period];
    coefficients[k] = 2 * sum / static_cast<double>(n);
  }
  coefficients[0] /= 2;
  return Polynomial::chebyshev(coefficients, a, b);
}

double max_error(const Polynomial& p, const std::function<double(double)>& f, double a, double b,
                 std::size_t samples) {
  double worst = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    const double x =
        a + (b - a) * static_cast<double>(i) / static_cast<double>(samples > 1 ? samples - 1 : 1);
    worst = std::max(worst, std::abs(p(x) - f(x)));
  }
  return worst;
}

namespace approximations {

namespace {
void require(bool ok, const char* operation, const char* what) {
  if (!ok) throw InvalidArgument(std::string(operation) + ": " + what);
}
}  // namespace

Polynomial sigmoid(double a, double b, std::size_t degree) {
  return chebyshev_interpolate([](double x) { return 1 / (1 + std::exp(-x)); }, a, b, degree);
}

Polynomial exp(double a, double b, std::size_t degree) {
  return chebyshev_interpolate([](double x) { return std::exp(x); }, a, b, degree);
}

Polynomial log(double a, double b, std::size_t degree) {
  require(a > 0, "approximations::log", "the interval must lie in (0, inf)");
  return chebyshev_interpolate([](double x) { return std::log(x); }, a, b, degree);
}

Polynomial sqrt(double a, double b, std::size_t degree) {
  require(a >= 0, "approximations::sqrt", "the interval must lie in [0, inf)");
  return chebyshev_interpolate([](double x) { return std::sqrt(x); }, a, b, degree);
}

Polynomial inverse(double a, double b, std::size_t degree) {
  require(a > 0 || b < 0, "approximations::inverse", "the interval must not contain 0");
  return chebyshev_interpolate([](double x) { return 1 / x; }, a, b, degree);
}

Polynomial tanh(double a, double b, std::size_t degree) {
  return chebyshev_interpolate([](double x) { return std::tanh(x); }, a, b, degree);
}

Polynomial gelu(double a, double b, std::size_t degree) {
  return chebyshev_interpolate(
      [](double x) { return x * (1 + std::erf(x / std::numbers::sqrt2)) / 2; }, a, b, degree);
}

}  // namespace approximations

}  // namespace heft::circuits
