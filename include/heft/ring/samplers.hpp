// Samplers for keys, errors and uniform masks, all driven by a Prng so that a
// seed reproduces every sample.
//
// Two shapes of output:
// - std::span<int64_t>: one signed integer polynomial (ternary, sparse ternary,
//   Gaussian), the form in which a secret or error is defined;
// - RnsPoly: that integer polynomial reduced into every tower
//   (RnsPoly::set_coefficients), or, for sample_uniform, independent uniform
//   residues per tower. The RnsPoly samplers of secret distributions mark
//   their output secret and wipe their temporary integer buffers.
//
// Side channels: the Gaussian sampler scans its whole cumulative table with
// arithmetic comparisons, so neither branches nor memory addresses depend on
// the sample. Rejection loops (uniform, ternary) only branch on rejected draws,
// which are independent of the accepted values. The sparse-ternary sampler
// places its nonzero values with a bitonic sorting network over random tags,
// whose branches and memory accesses depend only on the length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "heft/export.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/rns_poly.hpp"

namespace heft::ring {

// The error distribution: discrete Gaussian of parameter sigma = 3.19
// (probability of x proportional to exp(-x^2 / (2 sigma^2))), truncated to
// |x| <= 19 (6 sigma, rounded down).
inline constexpr double kGaussianSigma = 3.19;
inline constexpr int kGaussianBound = 19;

// Each value uniform in {-1, 0, 1}.
HEFT_EXPORT void sample_ternary(Prng& prng, std::span<int64_t> out);
// Exactly hamming_weight nonzero values (each +-1 with probability 1/2), at
// positions uniform over all subsets of that size (constant-time; about
// n log2(n)^2 / 4 comparisons). Throws InvalidArgument if
// hamming_weight > out.size().
HEFT_EXPORT void sample_sparse_ternary(Prng& prng, std::size_t hamming_weight,
                                       std::span<int64_t> out);
// Each value from the truncated discrete Gaussian above (constant-time).
HEFT_EXPORT void sample_gaussian(Prng& prng, std::span<int64_t> out);

// Every tower of out: each coefficient uniform in [0, q_i), sampled per tower
// (draw bit_count(q_i) bits, reject values >= q_i). out keeps its form (a
// uniform polynomial is uniform in either form); throws InvalidArgument if
// out is empty.
HEFT_EXPORT void sample_uniform(Prng& prng, RnsPoly& out);
// One integer polynomial from the distribution, reduced into every tower of
// out, which becomes coefficient form and secret.
HEFT_EXPORT void sample_ternary(Prng& prng, RnsPoly& out);
HEFT_EXPORT void sample_sparse_ternary(Prng& prng, std::size_t hamming_weight, RnsPoly& out);
HEFT_EXPORT void sample_gaussian(Prng& prng, RnsPoly& out);

}  // namespace heft::ring
