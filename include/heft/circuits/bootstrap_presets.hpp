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
// Every preset scales its input up to q_0 / 2^10 before ModRaise
// (message_ratio_bits 10) and, where the chain has room, widens the lowest
// SlotsToCoeffs prime to 52 bits and the CoeffsToSlots primes to 60 (see
// Bootstrapper::slots_to_coeffs_scale_down for why).
//
// Presets (names for bootstrap_preset()):
//  "n16-encaps"  N = 2^16, 2^15 slots, dense uniform ternary secret with
//          sparse-secret encapsulation (h' = 32), 128-bit secure by the HE
//          Standard table (log2 QP = 1718 of 1747): 24 ciphertext primes +
//          8 special primes of 61 bits, dnum 3. CoeffsToSlots 3 levels,
//          EvalMod 9 (K = 16, a degree-255 sine on [-33, 33] plus its change
//          of variable), SlotsToCoeffs 3. Left for computation: 8 levels at
//          scale >= 2^40, 380 bits. EvalMod cannot fail: |I| <= (h' + 1) / 2
//          = 16 always. Measured (2026-12-04, 2 vCPU Zen 5): 6.8 s on one
//          thread, 4.2 s on two (medians of 3); 18.2 bits by max error,
//          20.2 by median; keys 7.8 GiB, peak 15.4-15.8 GiB.
//  "n16"   N = 2^16, 2^15 slots, dense uniform ternary secret, no
//          encapsulation, 128-bit secure (log2 QP = 1747 of 1747): 28
//          ciphertext primes + 5 special primes of 61 bits, dnum 6.
//          CoeffsToSlots 3 levels, EvalMod 13 (K = 512, a degree-4095 sine
//          on [-1025, 1025]), SlotsToCoeffs 3. Left: 8 levels at scale >=
//          2^40, 380 bits. EvalMod fails where some |I| > K: I about normal
//          of standard deviation sqrt((2N/3 + 1)/12) = 60.3, K = 8.5 of
//          them, about 2^-39 per bootstrap. Measured (2026-12-04, 2 vCPU
//          Zen 5): 16.2 s on two threads, 7.6 bits by max error, 10.2 by
//          median (the degree-4095 sine's rounding); keys 11.5 GiB (each at
//          the level it is used at), peak 20.7 GiB.
//  "small-encaps", "small"  N = 2^12, 2^11 slots, NOT secure
//          (SecurityLevel::none; for tests and the example's quick run),
//          with and without encapsulation; 3 levels left at scale >= 2^40
//          (180 bits). Measured: 24.1 and 22.3 bits by max error.
//
// Precision (max error over all slots, inputs uniform in [-1, 1]) is
// bounded at N = 2^16 by EvalMod's rounding: each product in the sine's
// evaluation rounds by about 2^14 per slot under the dense secret (2^-46
// at its 60-bit scale), the degree-255 polynomial amplifies that, and
// SlotsToCoeffs sums n such per-slot errors (sqrt(n) = 2^7.5): about
// 2^-27 in units of q_0, 2^-17 .. 2^-18 on values at the message ratio
// 2^10 (docs/architecture.md has the measurements). precision_bits states
// a lower bound for each preset that was run.
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
  // A lower bound on one bootstrap's precision by max error over all slots
  // (inputs in [-1, 1]), measured with margin: what bootstrap_refined takes.
  int precision_bits = 0;
};

// The preset named `name` (bootstrap_preset_names()), CoeffsToSlots first;
// InvalidArgument naming the presets otherwise.
[[nodiscard]] HEFT_EXPORT BootstrapPreset bootstrap_preset(std::string_view name);
// The same chain with the phases in `order`: SlotsToCoeffs first also
// raises the message ratio to 14 bits (EvalMod then sees the values, not
// their smaller coefficients) and states that order's precision.
[[nodiscard]] HEFT_EXPORT BootstrapPreset bootstrap_preset(std::string_view name,
                                                           BootstrapOrder order);
[[nodiscard]] HEFT_EXPORT std::vector<std::string> bootstrap_preset_names();
// A preset for functional bootstrapping of integers mod `modulus`
// (FunctionalBootstrapper): the chain of "small-encaps" or "n16-encaps" with
// as many EvalMod levels as a table's polynomial takes, SlotsToCoeffs first,
// real slots; at a security level the computation levels give way to them,
// down to one, and then the table's primes narrow from 60 bits to 55 and 50
// (n16-encaps: p = 16 and 64 at 60 bits, p = 256 at 55 bits with one
// computation level). InvalidArgument when nothing fits. output_level is the
// tables' output level (SlotsToCoeffs' levels above the computation levels:
// an output can be a FunctionalBootstrapper's input again).
[[nodiscard]] HEFT_EXPORT BootstrapPreset functional_bootstrap_preset(std::string_view name,
                                                                      std::size_t modulus);

// log2 of N * P(|Z| > K / sigma), sigma = sqrt((h + 1) / 12) the standard
// deviation of I's coefficients for a secret of Hamming weight h (see
// bootstrapper.hpp).
[[nodiscard]] HEFT_EXPORT double eval_mod_failure_log2(std::size_t degree, double hamming_weight,
                                                       std::size_t mod_range);

// Bytes of a key-switching key's polynomials (every digit's b and a, over
// their ciphertext and special towers): what each bootstrapping key costs.
[[nodiscard]] HEFT_EXPORT double key_switch_key_bytes(const rlwe::KeySwitchKey& key);

}  // namespace heft::circuits
