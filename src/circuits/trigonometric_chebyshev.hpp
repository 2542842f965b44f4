// Chebyshev expansions of trigonometric polynomials, in closed form: what
// functional bootstrapping's tables are (functional_bootstrapper.cpp), at
// degrees far above what sampling-based interpolation reaches (16383 for a
// table of 256 entries).
//
// By the Jacobi-Anger expansion, for u = r x with x in [-1, 1],
//   exp(i w u) = sum_(n >= 0) e_n i^n J_n(w r) T_n(x),   e_0 = 1, e_n = 2,
// so a sum of waves has Chebyshev coefficients that are sums of Bessel
// function values, and the expansion's tail past degree d (the Bessel values
// beyond d, which fall faster than exponentially once n > w r) bounds the
// truncation error. J_n(z) for n = 0 .. count - 1 comes from Miller's
// backward recurrence, J_(n-1) = (2n / z) J_n - J_(n+1), rescaled as it
// grows and normalised by J_0 + 2 sum J_(2m) = 1.
#pragma once

#include <complex>
#include <cstddef>
#include <span>
#include <vector>

namespace heft::circuits::detail {

// J_0(z) .. J_(count-1)(z) for z >= 0.
[[nodiscard]] std::vector<double> bessel_j_sequence(double z, std::size_t count);

// sum_(n > degree) |J_n(z)|: the truncation error of a unit wave of
// frequency z (on [-1, 1]) expanded to `degree`.
[[nodiscard]] double bessel_tail(double z, std::size_t degree);

// The Chebyshev coefficients (on [-1, 1], up to `degree`) of
//   G(x) = Re sum_j c_j exp(i w_j x).
[[nodiscard]] std::vector<double> chebyshev_of_waves(const std::vector<std::complex<double>>& c,
                                                     const std::vector<double>& w,
                                                     std::size_t degree);

// The Chebyshev coefficients (on [-range, range], up to `degree`) of a
// lookup table's trigonometric polynomial
//   G(u) = Re sum_k c_k exp(i pi k u),  k = -floor((p - 1) / 2) .. floor(p / 2),
//   c_k = (-1)^k / p sum_m table[m] exp(-2 pi i k m / p),  p = table.size(),
// whose value at u = 2 (m - p/2) / p + 2I is table[m] for every integer m in
// [0, p) and every integer I: the k form a complete set of residues mod p
// (the lowest frequencies that do), and (-1)^k undoes the shift by p/2
// that centres the phase (functional_bootstrapper.hpp).
[[nodiscard]] std::vector<double> lookup_table_chebyshev(std::span<const double> table,
                                                         double range, std::size_t degree);

}  // namespace heft::circuits::detail
