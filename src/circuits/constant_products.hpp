// Products of CKKS ciphertexts with constants at a scale the caller picks,
// added into an accumulator without a rescale: the leaves of polynomial
// evaluation (sum c_j T_j, each constant encoded at acc.scale / T_j.scale so
// every term lands on the accumulator's scale) and the alignment of a term
// to a product's scale (c = 1 at scale s_P / s_x, an integer multiple).
// Internal to src/circuits.
//
// Why not Evaluator::multiply_scalar: it picks the constant's scale itself
// and returns a new ciphertext; here the scale is dictated by the sum the
// term joins, and the term is added in the same pass as the product.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/plaintext.hpp"

namespace heft::circuits::detail {

class ConstantProducts {
 public:
  explicit ConstantProducts(std::shared_ptr<const rlwe::Context> context);

  // A ciphertext of zero with `parts` parts at `level`, labelled `scale`,
  // `slots` slots (the accumulator a sum starts from).
  [[nodiscard]] rlwe::Ciphertext zero(std::size_t level, double scale, std::size_t slots,
                                      std::size_t parts = 2) const;

  // x at `level` (<= x.level()): only the towers kept are copied, spread
  // over the threads (a clone and a drop would copy them all, serially).
  [[nodiscard]] rlwe::Ciphertext copy_at_level(const rlwe::Ciphertext& x, std::size_t level) const;

  // acc += c * x with c encoded as round(c * acc.scale / x.scale), exactly
  // reduced into every tower of acc (x may be at a higher level: its first
  // towers are used). acc grows parts if x has more. InvalidArgument naming
  // `operation` if the rounded constant does not fit acc's modulus or its
  // scale acc.scale / x.scale is below 2^8 (too coarse to encode c).
  void multiply_accumulate(rlwe::Ciphertext& acc, const rlwe::Ciphertext& x, std::complex<double> c,
                           const char* operation) const;

  // A term of a linear combination: c * x.
  struct Term {
    const rlwe::Ciphertext* x;
    std::complex<double> c;
  };
  // sum_j c_j * x_j at `level` with scale `scale` (each c_j encoded as
  // multiply_accumulate encodes it) and `slots` slots.
  struct Combination {
    std::size_t level;
    double scale;
    std::size_t slots;
    std::vector<Term> terms;
  };
  // Every combination, in one pass over the terms' towers in blocks of
  // coefficients that stay in cache while each combination takes its sum
  // (math::weighted_sum_mod): the leaves of polynomial evaluation share
  // their powers, and taking them leaf by leaf, term by term, read every
  // power from memory once per leaf. Zero constants are skipped; a
  // combination without terms is zero. Throws as multiply_accumulate does,
  // before any work.
  [[nodiscard]] std::vector<rlwe::Ciphertext> linear_combinations(
      std::span<const Combination> combinations, const char* operation) const;

  // acc += c (the constant at acc's scale, added to part 0 only).
  void add_constant(rlwe::Ciphertext& acc, std::complex<double> c, const char* operation) const;

  // acc += x * plain (plain at acc's level or above, NTT form); the caller
  // encoded plain at acc.scale / x.scale.
  void multiply_plain_accumulate(rlwe::Ciphertext& acc, const rlwe::Ciphertext& x,
                                 const rlwe::Plaintext& plain) const;

 private:
  // (re + im i) * scale rounded, per tower of the first `towers`: the value
  // in the first half of the NTT slots (re + im I) and in the second half
  // (re - im I), I = X^(N/2) in the first half (a fourth root of unity).
  void constant_residues(std::complex<double> c, double scale, std::size_t towers,
                         const char* operation, std::vector<uint64_t>& first_half,
                         std::vector<uint64_t>& second_half) const;

  // The scale of a constant that lands c * x on a sum at `sum_scale` with
  // `towers` towers; InvalidArgument if it is too coarse (below 2^8) or x
  // is below the sum's level.
  [[nodiscard]] static double checked_constant_scale(double sum_scale, std::size_t towers,
                                                     const rlwe::Ciphertext& x,
                                                     const char* operation);
  // A ciphertext with `parts` parts at `level`, its values unset.
  [[nodiscard]] rlwe::Ciphertext uninitialized(std::size_t level, double scale, std::size_t slots,
                                               std::size_t parts) const;

  std::shared_ptr<const rlwe::Context> context_;
  std::vector<uint64_t> imaginary_unit_;  // per tower of Q: X^(N/2) at NTT slot 0
  std::vector<double> log2_modulus_;      // log2(Q_l) per level
};

}  // namespace heft::circuits::detail
