// The slot-domain matrices of CKKS's special FFT, factored into sparse
// stages for bootstrapping's CoeffsToSlots and SlotsToCoeffs.
//
// ckks::SpecialFft::forward (decoding, u -> slots) is a bit-reversal
// permutation followed by the decimation-in-time stages h = 1, ..., n/2,
// each (x, y) -> (x + w y, x - w y) on slots j and j + h of blocks of 2h:
// three diagonals (0, +h, -h) per stage. inverse() is the
// decimation-in-frequency stages h = n/2, ..., 1 then the bit reversal and
// 1/n. Bootstrapping drops both bit reversals: CoeffsToSlots leaves u in
// bit-reversed order, EvalMod works slot by slot, and SlotsToCoeffs takes u
// in that order. Consecutive stages are merged (multiplied out) into as many
// groups as levels are given for the transform: fewer levels, more diagonals
// per group (up to 2^(r+1) - 1 for r merged stages).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "heft/export.hpp"

namespace heft::circuits {

// A matrix by its nonzero diagonals: d[k][i] = M[i][(i + k) mod n], k in [0, n).
using DiagonalMatrix = std::map<int64_t, std::vector<std::complex<double>>>;

// The product A B of two n x n matrices given by diagonals.
[[nodiscard]] HEFT_EXPORT DiagonalMatrix multiply_diagonal_matrices(const DiagonalMatrix& a,
                                                                    const DiagonalMatrix& b,
                                                                    std::size_t n);

// CoeffsToSlots without its bit reversal: the stages of SpecialFft::inverse,
// 1/n and `factor` included, grouped into `levels` matrices in the order
// they apply (the first applies first). InvalidArgument unless n is a power
// of two >= 2 and 1 <= levels <= log2(n).
[[nodiscard]] HEFT_EXPORT std::vector<DiagonalMatrix> coeffs_to_slots_matrices(std::size_t n,
                                                                               std::size_t levels,
                                                                               double factor);
// SlotsToCoeffs without its bit reversal: the stages of SpecialFft::forward
// and `factor`, grouped the same way.
[[nodiscard]] HEFT_EXPORT std::vector<DiagonalMatrix> slots_to_coeffs_matrices(std::size_t n,
                                                                               std::size_t levels,
                                                                               double factor);

// M v in the clear, for tests.
[[nodiscard]] HEFT_EXPORT std::vector<std::complex<double>> apply_diagonal_matrix(
    const DiagonalMatrix& m, const std::vector<std::complex<double>>& v);

}  // namespace heft::circuits
