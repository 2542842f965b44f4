// Chebyshev expansions of sums of waves through Bessel functions (see the
// header).
#include "circuits/trigonometric_chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace heft::circuits::detail {

std::vector<double> bessel_j_sequence(double z, std::size_t count) {
  std::vector<double> j(count, 0.0);
  if (count == 0) return j;
  if (z == 0) {
    j[0] = 1;
    return j;
  }
  // Start well past both the orders wanted and z, where J_n is negligible;
  // the recurrence downwards is stable (J is its minimal solution).
  const auto start = static_cast<std::size_t>(std::max(static_cast<double>(count), z) + 40 +
                                              4 * std::cbrt(std::max(z, 1.0)));
  constexpr double kHuge = 1e250;
  double above = 0, current = 1e-300;  // J_(n+1), J_n (unnormalised)
  double norm = 0;                     // J_0 + 2 sum J_(2m), unnormalised
  for (std::size_t n = start; n > 0; --n) {
    if (n < count) j[n] = current;
    if (n % 2 == 0) norm += 2 * current;
    const double below = 2.0 * static_cast<double>(n) / z * current - above;
    above = current;
    current = below;
    if (std::abs(current) > kHuge) {  // rescale everything kept so far
      above /= kHuge;
      current /= kHuge;
      norm /= kHuge;
      for (double& value : j)
        value /= kHuge;
    }
  }
  j[0] = current;
  norm += current;
  for (double& value : j)
    value /= norm;
  return j;
}

double bessel_tail(double z, std::size_t degree) {
  const std::size_t count =
      degree + 64 + static_cast<std::size_t>(std::max(0.0, z - static_cast<double>(degree)));
  const auto j = bessel_j_sequence(z, count);
  double tail = 0;
  for (std::size_t n = degree + 1; n < count; ++n)
    tail += std::abs(j[n]);
  return tail;
}

std::vector<double> chebyshev_of_waves(const std::vector<std::complex<double>>& c,
                                       const std::vector<double>& w, std::size_t degree) {
  std::vector<double> coefficients(degree + 1, 0.0);
  // i^n for n mod 4.
  const std::complex<double> i_power[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  for (std::size_t k = 0; k < c.size(); ++k) {
    const auto j = bessel_j_sequence(std::abs(w[k]), degree + 1);
    const double sign = w[k] < 0 ? -1.0 : 1.0;  // J_n(-z) = (-1)^n J_n(z)
    double parity = 1;
    for (std::size_t n = 0; n <= degree; ++n) {
      const double e = n == 0 ? 1.0 : 2.0;
      coefficients[n] += e * parity * j[n] * (c[k] * i_power[n % 4]).real();
      parity *= sign;
    }
  }
  return coefficients;
}

std::vector<double> lookup_table_chebyshev(std::span<const double> table, double range,
                                           std::size_t degree) {
  const auto p = static_cast<int64_t>(table.size());
  std::vector<std::complex<double>> c;
  std::vector<double> frequencies;  // pi k range (u = range x)
  for (int64_t k = -((p - 1) / 2); k <= p / 2; ++k) {
    std::complex<double> sum = 0;
    for (int64_t m = 0; m < p; ++m) {
      // k m reduced mod p first: the angle stays below 2 pi.
      const double angle = -2 * std::numbers::pi * static_cast<double>(((k * m) % p + p) % p) /
                           static_cast<double>(p);
      sum += table[static_cast<std::size_t>(m)] * std::polar(1.0, angle);
    }
    c.push_back(sum * ((k % 2 == 0) ? 1.0 : -1.0) / static_cast<double>(p));
    frequencies.push_back(std::numbers::pi * static_cast<double>(k) * range);
  }
  return chebyshev_of_waves(c, frequencies, degree);
}

}  // namespace heft::circuits::detail
