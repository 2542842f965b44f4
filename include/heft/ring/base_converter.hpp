// BaseConverter: fast RNS base conversion of polynomials from a base
// Q = {q_0..q_{L-1}} to a base P = {p_0..p_{K-1}} (the hot path of key
// switching, BFV multiplication and rescaling).
//
// Inputs and outputs are coefficient-form polynomials of N coefficients stored
// tower-major: tower i occupies words [i*N, (i+1)*N). Input residues must be
// reduced (tower i below q_i); this is the caller's contract and is not
// checked per coefficient. With y_i = [x_i * (Q/q_i)^-1]_{q_i}:
//
// - convert_approximate (the HPS/BEHZ "fast base conversion") outputs
//     z_j = sum_i y_i * (Q/q_i)  mod p_j,
//   which equals (x + alpha*Q) mod p_j for the x in [0, Q) with residues x_i and
//   an integer 0 <= alpha < L (the same alpha for every j; alpha =
//   floor(sum_i y_i / q_i)). Cheapest; callers absorb the alpha*Q error.
//
// - convert_approximate_centered takes each y_i centred, as the integer
//   y_i' in [-h_i, q_i - h_i) with h_i = floor(q_i / 2), so that its error
//   alpha*Q is symmetric about 0 instead of always non-negative: the sum
//   sum_i y_i' (Q/q_i) is x' + alpha*Q for the x' in [-Q/2, Q/2) congruent to
//   x, with |alpha| <= L/2 and a mean of about 0. Callers that divide by Q
//   (key switching's mod down) thereby round without bias. It outputs that
//   sum plus the constant C = sum_i h_i (Q/q_i), the same for every
//   coefficient (y_i + h_i is what it sums, all non-negative), and leaves C
//   for the caller to subtract (centering_offsets()[j] = C mod p_j) in a pass
//   it makes anyway, such as a shifted forward NTT.
//
// - convert_exact outputs x mod p_j exactly, x in [0, Q); it subtracts
//   alpha*Q with alpha = floor(sum_i y_i / q_i) computed per coefficient.
//
// - convert_exact_centered outputs x mod p_j exactly for the representative x
//   in (-Q/2, Q/2] (negative x gives p_j - |x| mod p_j); alpha is the integer
//   with sum_i y_i/q_i - alpha in (-1/2, 1/2].
//
// How alpha is computed, and why it is always exact: HPS evaluate
// v = sum_i y_i / q_i in double precision, which is right only while the
// fractional part of v stays away from the rounding point by more than the
// floating-point error; it silently fails for x near 0 or Q (floor) or near
// +-Q/2 (centered). heft bounds its error instead and never trusts v near
// the rounding point:
//   - for L <= 64 it also sums in double precision, which is within 2^-40 of
//     the true v; a coefficient whose v lies within 2^-30 of the rounding
//     point is resolved exactly (below);
//   - for larger bases it evaluates v in 64.64 fixed point,
//     t_i = floor(y_i * floor(2^128 / q_i) / 2^64) (two 64x64-bit products
//     per term), which under-estimates v * 2^64 by less than 1.125 units per
//     term: v * 2^64 lies in [S, S + 2L) for S = sum_i t_i, and alpha is read
//     off S unless that interval straddles the rounding point.
// The exact resolution forms sum_i y_i * (Q/q_i) as a multi-word integer and
// compares it with alpha*Q, so the result is exact for EVERY input, with no
// precision condition on L or the bit sizes beyond what RnsBase already
// guarantees (moduli below 2^61, plus L < 2^32, which BaseConverter's
// constructor enforces). Inputs that sit on a rounding boundary (x within
// about 2^-30 * Q of 0 or Q for convert_exact, of +-Q/2 for the centered
// variant) take that slower, O(L * words(Q)) path, so e.g. small
// non-negative x are best converted with the centered variant.
//
// Scaled conversions: a converter may be built with an input factor f and
// per-target output factors s_j. It then converts [f x]_Q instead of x (the
// input residues are taken as x_i, and f x mod q_i is what is converted) and
// multiplies output j by s_j mod p_j. Both are folded into the constants
// (y_i's multipliers, the weights), so they cost nothing per coefficient:
// callers that would otherwise scale before and after (BFV's t/Q rounding)
// save those passes.
//
// Cost: one vectorised mul_scalar_mod per input tower, then for each target
// modulus one lazy weighted sum (math::weighted_sum_mod) of the input towers,
// on blocks of coefficients that stay in cache. Work is spread
// over blocks with parallel_for; every output is independent of the thread
// count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/kernels.hpp"
#include "heft/ring/rns_base.hpp"

namespace heft::ring {

class RnsPoly;

class HEFT_EXPORT BaseConverter {
 public:
  // The factors of a scaled converter (see the file comment): input_factor
  // any 64-bit value, output_factors empty (all 1) or one per target modulus.
  // A factor wider than 64 bits is given by its residues instead:
  // input_factors, one per source modulus (f mod q_i), replaces input_factor
  // when not empty.
  struct Scaling {
    uint64_t input_factor = 1;
    std::vector<uint64_t> output_factors;
    std::vector<uint64_t> input_factors;
  };

  // Throws InvalidArgument if either base is empty or from has 2^32 or more
  // moduli, MismatchError if output_factors is neither empty nor one per
  // target, or input_factors neither empty nor one per source modulus.
  BaseConverter(RnsBase from, RnsBase to);
  BaseConverter(RnsBase from, RnsBase to, const Scaling& scaling);

  [[nodiscard]] const RnsBase& from() const noexcept { return from_; }
  [[nodiscard]] const RnsBase& to() const noexcept { return to_; }

  // input: from().size() * degree words; output: to().size() * degree words;
  // the two must not overlap. Throws MismatchError on wrong sizes and
  // InvalidArgument on overlapping spans or degree == 0.
  void convert_approximate(std::span<const uint64_t> input, std::span<uint64_t> output,
                           std::size_t degree) const;
  void convert_approximate_centered(std::span<const uint64_t> input, std::span<uint64_t> output,
                                    std::size_t degree) const;
  void convert_exact(std::span<const uint64_t> input, std::span<uint64_t> output,
                     std::size_t degree) const;
  void convert_exact_centered(std::span<const uint64_t> input, std::span<uint64_t> output,
                              std::size_t degree) const;

  // The same with every output tower at its own address (output_towers[j]
  // holds `degree` words of the residues mod to()[j]), so a caller can convert
  // straight into the towers of a larger polynomial (key switching's mod up)
  // instead of converting into scratch and copying. Same checks; no output
  // tower may overlap the input.
  void convert_approximate(std::span<const uint64_t> input,
                           std::span<uint64_t* const> output_towers, std::size_t degree) const;
  void convert_approximate_centered(std::span<const uint64_t> input,
                                    std::span<uint64_t* const> output_towers,
                                    std::size_t degree) const;

  // C mod p_j for each target p_j: what convert_approximate_centered's
  // output j holds on top of the centred sum (see the file comment).
  [[nodiscard]] const std::vector<uint64_t>& centering_offsets() const noexcept {
    return centering_offsets_;
  }

  // The same on polynomials: input must be in coefficient form with exactly
  // the moduli of from(); output must have the same degree and exactly the
  // moduli of to() (its form becomes coefficient). Throws MismatchError.
  void convert_approximate(const RnsPoly& input, RnsPoly& output) const;
  void convert_exact(const RnsPoly& input, RnsPoly& output) const;
  void convert_exact_centered(const RnsPoly& input, RnsPoly& output) const;

 private:
  enum class Mode { approximate, approximate_centered, exact_floor, exact_centered };
  void convert(std::span<const uint64_t> input, std::span<uint64_t> output, std::size_t degree,
               Mode mode) const;
  void convert_towers(std::span<const uint64_t> input, std::span<uint64_t* const> output_towers,
                      std::size_t degree, Mode mode) const;
  void convert_poly(const RnsPoly& input, RnsPoly& output, Mode mode) const;
  void convert_block(const uint64_t* input, uint64_t* const* output_towers, std::size_t degree,
                     std::size_t begin, std::size_t count, Mode mode, uint64_t* scaled) const;
  void compute_alphas_double(uint64_t* scaled, std::size_t count, Mode mode) const;
  uint64_t resolve_alpha_exactly(const uint64_t* scaled, std::size_t stride, uint64_t low_candidate,
                                 Mode mode) const;

  RnsBase from_;
  RnsBase to_;
  // y_i = x_i * source_multipliers_[i] mod q_i: (Q/q_i)^-1, times the input
  // factor in a scaled converter.
  std::vector<uint64_t> source_multipliers_;
  bool scaled_ = false;
  // punctured_mod_target_[j * L + i] = (Q/q_i) mod p_j: row j is contiguous
  // because the inner loop runs over i for a fixed target.
  std::vector<uint64_t> punctured_mod_target_;
  // (-Q) mod p_j, to subtract alpha*Q.
  std::vector<uint64_t> neg_product_mod_target_;
  // floor(q_i / 2), added to y_i by the centred conversion, and
  // sum_i floor(q_i / 2) (Q/q_i) mod p_j, what that adds to output j.
  std::vector<uint64_t> source_halves_;
  std::vector<uint64_t> centering_offsets_;
  // Row j of punctured_mod_target_ as weights mod p_j, and the same with
  // (-Q) mod p_j appended for the alpha row; the source moduli's widest bit size.
  std::vector<math::FixedWeights> weights_, weights_with_alpha_;
  int input_bits_ = 0;
  // floor(2^128 / q_i) as (high, low): the fixed-point reciprocals for alpha.
  std::vector<uint64_t> reciprocal_hi_;
  std::vector<uint64_t> reciprocal_lo_;
  // fl(1/q_i), for the double-precision alpha (L <= 64).
  std::vector<double> inverse_double_;
};

}  // namespace heft::ring
