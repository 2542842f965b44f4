// Bootstrapping presets: a parameter set and its BootstrapParameters chosen
// together, so that the prime chain has room for the bootstrapping circuit
// and leaves a stated number of levels for computation.
//
// The chain, from q_0 up (levels are spent from the top):
//   q_0 (60 bits) | computation primes (40 bits) | SlotsToCoeffs (39) |
//   EvalMod (60) | CoeffsToSlots (55)
// and the scale chain (ckks::Evaluator::scale_at) is fitted so that every
// computation level, from the bootstrapper's output level down to level 0,
// has a default scale of at least 2^40 (params.scale, the top level's scale,
// follows from that). EvalMod gets the largest primes: its rounding errors
// grow with the sine's degree (each doubling of a Chebyshev index can
// quadruple an error), and it works at the scale of its primes.
//
// Presets (names for bootstrap_preset()):
//  "n16"   N = 2^16, 2^15 slots, dense uniform ternary secret, 128-bit secure
//          by the HE Standard table (log2 QP = 1747 of the 1747 allowed):
//          28 ciphertext primes + 5 special primes of 61 bits, dnum 6.
//          CoeffsToSlots 3 levels, EvalMod 13 (K = 512, a degree-4095 sine
//          interpolant on [-1025, 1025] plus its change of variable),
//          SlotsToCoeffs 3. Left for computation: 8 levels at scale >= 2^40,
//          380 bits of modulus (q_0 and eight 40-bit primes).
//          EvalMod fails where some coefficient of I has |I| > K: with I about
//          normal of standard deviation sqrt((2N/3 + 1)/12) = 60.3, K = 8.5
//          standard deviations, a probability of about 2^-39 per bootstrap
//          (failure_log2).
//  "small" N = 2^12, 2^11 slots, dense uniform ternary secret, NOT secure
//          (SecurityLevel::none; for tests and the example's quick run):
//          19 ciphertext primes + 3 special. CoeffsToSlots 2, EvalMod 11
//          (K = 128 = 8.5 standard deviations, degree 1023), SlotsToCoeffs 2;
//          3 levels left at scale >= 2^40 (180 bits).
//
// Precision (max error over all slots, inputs uniform in [-1, 1]): about 8
// bits for "small" (2^-8.3 measured; bootstrap_refined: about twice that).
// It is low: CoeffsToSlots and EvalMod each leave about 2^-34 per slot (in
// units of q_0) at N = 2^12, SlotsToCoeffs sums n of them into 2^-28.6, and
// q_0 / scale = 2^20 at level 0 magnifies that (docs/architecture.md has the
// measurements and the remedies). "n16" has not run on a 23 GiB machine:
// by count its transforms are 3.7 GiB (316 diagonals, each once over
// Q_l * P) and its 84 keys (82 rotations, conjugation, relinearization)
// 16.2 GiB at 0.193 GiB each (docs/architecture.md has the accounting).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::circuits {

struct HEFT_EXPORT BootstrapPreset {
  std::string name;
  rlwe::Parameters parameters;    // fresh primes, validated for their security level
  BootstrapParameters bootstrap;  // the bootstrapper's settings for them
  std::size_t output_level = 0;   // levels left for computation after bootstrapping
  int output_bits = 0;            // log2 of q_0 ... q_output_level (bit sizes summed)
  int output_scale_bits = 0;      // every level <= output_level has scale >= 2^this
  // log2 of the probability that EvalMod fails in one bootstrap: that some
  // of the N coefficients of I is beyond mod_range (normal approximation).
  double failure_log2 = 0;
};

// The preset named `name` ("n16", "small"); InvalidArgument naming the
// presets otherwise.
[[nodiscard]] HEFT_EXPORT BootstrapPreset bootstrap_preset(std::string_view name);
[[nodiscard]] HEFT_EXPORT std::vector<std::string> bootstrap_preset_names();

// log2 of N * P(|Z| > K / sigma), sigma = sqrt((h + 1) / 12) the standard
// deviation of I's coefficients for a secret of Hamming weight h (see
// bootstrapper.hpp).
[[nodiscard]] HEFT_EXPORT double eval_mod_failure_log2(std::size_t degree, double hamming_weight,
                                                       std::size_t mod_range);

// Bytes of a key-switching key's polynomials (every digit's b and a, over
// their ciphertext and special towers): what each bootstrapping key costs.
[[nodiscard]] HEFT_EXPORT double key_switch_key_bytes(const rlwe::KeySwitchKey& key);

}  // namespace heft::circuits
