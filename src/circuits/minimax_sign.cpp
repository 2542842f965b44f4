// Odd minimax approximations of sign(x) by the Remez exchange algorithm,
// and their composition (see heft/circuits/approximation.hpp).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "heft/circuits/approximation.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// T_n(x) for |x| <= 1.
double chebyshev_t(std::size_t n, double x) {
  return std::cos(static_cast<double>(n) * std::acos(x));
}

// Solves a x = b (n x n, row-major) by Gaussian elimination with partial
// pivoting; a and b are overwritten.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
    for (std::size_t c = 0; c < n; ++c)
      std::swap(a[col * n + c], a[pivot * n + c]);
    std::swap(b[col], b[pivot]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double factor = a[r * n + col] / a[col * n + col];
      for (std::size_t c = col; c < n; ++c)
        a[r * n + c] -= factor * a[col * n + c];
      b[r] -= factor * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t r = n; r-- > 0;) {
    double sum = b[r];
    for (std::size_t c = r + 1; c < n; ++c)
      sum -= a[r * n + c] * x[c];
    x[r] = sum / a[r * n + r];
  }
  return x;
}

// sum_i c_i T_(2i+1)(x).
double odd_series(const std::vector<double>& c, double x) {
  double sum = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    sum += c[i] * chebyshev_t(2 * i + 1, x);
  return sum;
}

}  // namespace

Polynomial minimax_sign(double epsilon, std::size_t degree, double* error) {
  if (!(epsilon > 0 && epsilon < 1)) {
    throw InvalidArgument("minimax_sign: epsilon must be in (0, 1)");
  }
  if (degree % 2 == 0 || degree > 255) {
    throw InvalidArgument("minimax_sign: the degree must be odd and at most 255");
  }
  const std::size_t k = (degree + 1) / 2;  // unknowns: c_0 .. c_(k-1) and the level E
  // A grid dense near both ends of [epsilon, 1], where the error peaks.
  constexpr std::size_t kGrid = 20000;
  std::vector<double> grid(kGrid);
  for (std::size_t i = 0; i < kGrid; ++i) {
    const double t = static_cast<double>(i) / (kGrid - 1);
    grid[i] = epsilon + (1 - epsilon) * (1 - std::cos(std::numbers::pi * t)) / 2;
  }
  std::vector<double> reference(k + 1);
  for (std::size_t j = 0; j <= k; ++j)
    reference[j] =
        epsilon +
        (1 - epsilon) *
            (1 - std::cos(std::numbers::pi * static_cast<double>(j) / static_cast<double>(k))) / 2;
  std::vector<double> c(k, 0.0);
  double worst = 1;
  for (int iteration = 0; iteration < 100; ++iteration) {
    // p(x_j) + (-1)^j E = 1 at the reference points.
    std::vector<double> a((k + 1) * (k + 1)), rhs(k + 1, 1.0);
    for (std::size_t j = 0; j <= k; ++j) {
      for (std::size_t i = 0; i < k; ++i)
        a[j * (k + 1) + i] = chebyshev_t(2 * i + 1, reference[j]);
      a[j * (k + 1) + k] = j % 2 ? -1.0 : 1.0;
    }
    const auto solution = solve(a, rhs);
    c.assign(solution.begin(), solution.begin() + static_cast<std::ptrdiff_t>(k));
    // The extrema of the error, one per run of constant sign.
    std::vector<double> extrema_x, extrema_e;
    double run_best_x = grid[0], run_best_e = odd_series(c, grid[0]) - 1;
    worst = 0;
    for (std::size_t i = 1; i <= kGrid; ++i) {
      const double e = i < kGrid ? odd_series(c, grid[i]) - 1 : 0;
      if (i == kGrid || (e > 0) != (run_best_e > 0)) {
        extrema_x.push_back(run_best_x);
        extrema_e.push_back(run_best_e);
        worst = std::max(worst, std::abs(run_best_e));
        if (i == kGrid) break;
        run_best_x = grid[i];
        run_best_e = e;
      } else if (std::abs(e) > std::abs(run_best_e)) {
        run_best_x = grid[i];
        run_best_e = e;
      }
    }
    while (extrema_x.size() > k + 1) {
      const bool drop_front = std::abs(extrema_e.front()) < std::abs(extrema_e.back());
      extrema_x.erase(drop_front ? extrema_x.begin() : extrema_x.end() - 1);
      extrema_e.erase(drop_front ? extrema_e.begin() : extrema_e.end() - 1);
    }
    if (extrema_x.size() < k + 1) break;  // no full alternation: keep the last solution
    double smallest = worst;
    for (const double e : extrema_e)
      smallest = std::min(smallest, std::abs(e));
    reference = extrema_x;
    if (worst - smallest <= 1e-9 * worst) break;
  }
  if (error) *error = worst;
  std::vector<double> coefficients(degree + 1, 0.0);
  for (std::size_t i = 0; i < k; ++i)
    coefficients[2 * i + 1] = c[i];
  return Polynomial::chebyshev(coefficients);
}

std::size_t CompositePolynomial::depth() const noexcept {
  std::size_t total = 0;
  for (const auto& p : stages)
    total += p.depth();
  return total;
}

double CompositePolynomial::operator()(double x) const {
  for (const auto& p : stages)
    x = p(x).real();
  return x;
}

CompositePolynomial sign_approximation(double epsilon, double precision_bits,
                                       std::size_t stage_degree) {
  if (!(epsilon > 0 && epsilon < 1)) {
    throw InvalidArgument("sign_approximation: epsilon must be in (0, 1)");
  }
  if (!(precision_bits >= 1 && precision_bits <= 40)) {
    throw InvalidArgument("sign_approximation: precision_bits must be in [1, 40]");
  }
  if (stage_degree % 2 == 0 || stage_degree < 3 || stage_degree > 63) {
    throw InvalidArgument("sign_approximation: stage_degree must be odd, in [3, 63]");
  }
  const double target = std::ldexp(1.0, -static_cast<int>(std::ceil(precision_bits)));
  CompositePolynomial out;
  double lower = epsilon;
  for (int stage = 0; stage < 30; ++stage) {
    double error = 0;
    Polynomial p = minimax_sign(lower, stage_degree, &error);
    if (error <= target) {
      out.stages.push_back(std::move(p));
      return out;
    }
    // Divide by 1 + error: the next stage sees [lower', 1] with
    // lower' = (1 - error) / (1 + error), and inputs never exceed 1.
    std::vector<std::complex<double>> scaled = p.coefficients();
    for (auto& v : scaled)
      v /= 1 + error;
    out.stages.push_back(Polynomial::chebyshev(std::move(scaled)));
    lower = (1 - error) / (1 + error);
  }
  throw InvalidArgument("sign_approximation: no convergence (epsilon too small for the degree)");
}

}  // namespace heft::circuits
