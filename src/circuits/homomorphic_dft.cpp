// The special FFT's stages as diagonal matrices (see the header).
#include "heft/circuits/homomorphic_dft.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <string>

#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

using cd = std::complex<double>;

// The twiddle of butterfly j of the stage of half-length h:
// exp(2 pi i (5^j mod 8h) / 8h), as SpecialFft places them.
cd twiddle(std::size_t h, std::size_t j) {
  const uint64_t order = 8 * h;
  uint64_t power = 1;
  for (std::size_t k = 0; k < j; ++k)
    power = power * 5 % order;
  const long double angle = 2 * std::numbers::pi_v<long double> * static_cast<long double>(power) /
                            static_cast<long double>(order);
  return {static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
}

std::vector<cd>& diagonal(DiagonalMatrix& m, int64_t k, std::size_t n) {
  auto& d = m[k];
  if (d.empty()) d.assign(n, 0.0);
  return d;
}

// A butterfly stage of half-length h as diagonals: rows s+j take
// a x + b y and rows s+j+h take c x + d y, with x, y the values at s+j and
// s+j+h and (a, b, c, d) = entries(j).
template <class Entries>
DiagonalMatrix butterfly_stage(std::size_t n, std::size_t h, Entries entries) {
  DiagonalMatrix m;
  const auto up = static_cast<int64_t>(h), down = static_cast<int64_t>((n - h) % n);
  for (std::size_t s = 0; s < n; s += 2 * h) {
    for (std::size_t j = 0; j < h; ++j) {
      const auto [a, b, c, d] = entries(j);
      diagonal(m, 0, n)[s + j] += a;
      diagonal(m, up, n)[s + j] += b;
      diagonal(m, down, n)[s + j + h] += c;
      diagonal(m, 0, n)[s + j + h] += d;
    }
  }
  return m;
}

// Decimation in time: (x, y) -> (x + w y, x - w y).
DiagonalMatrix time_stage(std::size_t n, std::size_t h) {
  return butterfly_stage(n, h, [h](std::size_t j) {
    const cd w = twiddle(h, j);
    return std::array<cd, 4>{1.0, w, 1.0, -w};
  });
}

// Decimation in frequency: (x, y) -> (x + y, conj(w) (x - y)).
DiagonalMatrix frequency_stage(std::size_t n, std::size_t h) {
  return butterfly_stage(n, h, [h](std::size_t j) {
    const cd w = std::conj(twiddle(h, j));
    return std::array<cd, 4>{1.0, 1.0, w, -w};
  });
}

void require_dft_shape(std::size_t n, std::size_t levels, const char* operation) {
  if (n < 2 || !std::has_single_bit(n)) {
    throw InvalidArgument(std::string(operation) + ": the slot count " + std::to_string(n) +
                          " is not a power of two >= 2");
  }
  const auto stages = static_cast<std::size_t>(std::countr_zero(n));
  if (levels == 0 || levels > stages) {
    throw InvalidArgument(std::string(operation) + ": " + std::to_string(levels) + " levels for " +
                          std::to_string(stages) + " stages");
  }
}

// Stages (in the order they apply) grouped into `levels` products, the
// earlier groups taking the extra stage when they do not divide evenly;
// the first group is multiplied by factor.
std::vector<DiagonalMatrix> group(const std::vector<DiagonalMatrix>& stages, std::size_t n,
                                  std::size_t levels, double factor) {
  std::vector<DiagonalMatrix> out;
  std::size_t next = 0;
  for (std::size_t g = 0; g < levels; ++g) {
    const std::size_t count = stages.size() / levels + (g < stages.size() % levels ? 1 : 0);
    DiagonalMatrix product = stages[next++];
    for (std::size_t k = 1; k < count; ++k)
      product = multiply_diagonal_matrices(stages[next++], product, n);  // later stage on the left
    out.push_back(std::move(product));
  }
  for (auto& [k, d] : out.front())
    for (auto& v : d)
      v *= factor;
  // Diagonals that cancelled out are dropped.
  for (auto& m : out) {
    for (auto it = m.begin(); it != m.end();) {
      bool zero = true;
      for (const auto& v : it->second)
        zero = zero && std::abs(v) < 1e-300;
      it = zero ? m.erase(it) : std::next(it);
    }
  }
  return out;
}

}  // namespace

DiagonalMatrix multiply_diagonal_matrices(const DiagonalMatrix& a, const DiagonalMatrix& b,
                                          std::size_t n) {
  // (A B)[i][i + k + l] += A[i][i + k] B[i + k][i + k + l].
  DiagonalMatrix out;
  for (const auto& [k, da] : a) {
    for (const auto& [l, db] : b) {
      auto& d = diagonal(
          out,
          static_cast<int64_t>((static_cast<std::size_t>(k) + static_cast<std::size_t>(l)) % n), n);
      for (std::size_t i = 0; i < n; ++i)
        d[i] += da[i] * db[(i + static_cast<std::size_t>(k)) % n];
    }
  }
  return out;
}

std::vector<DiagonalMatrix> coeffs_to_slots_matrices(std::size_t n, std::size_t levels,
                                                     double factor) {
  require_dft_shape(n, levels, "coeffs_to_slots_matrices");
  std::vector<DiagonalMatrix> stages;
  for (std::size_t h = n / 2; h >= 1; h /= 2)
    stages.push_back(frequency_stage(n, h));
  return group(stages, n, levels, factor / static_cast<double>(n));
}

std::vector<DiagonalMatrix> slots_to_coeffs_matrices(std::size_t n, std::size_t levels,
                                                     double factor) {
  require_dft_shape(n, levels, "slots_to_coeffs_matrices");
  std::vector<DiagonalMatrix> stages;
  for (std::size_t h = 1; h < n; h *= 2)
    stages.push_back(time_stage(n, h));
  return group(stages, n, levels, factor);
}

std::vector<std::complex<double>> apply_diagonal_matrix(
    const DiagonalMatrix& m, const std::vector<std::complex<double>>& v) {
  const std::size_t n = v.size();
  std::vector<std::complex<double>> out(n, 0.0);
  for (const auto& [k, d] : m)
    for (std::size_t i = 0; i < n; ++i)
      out[i] += d[i] * v[(i + static_cast<std::size_t>(k)) % n];
  return out;
}

}  // namespace heft::circuits
