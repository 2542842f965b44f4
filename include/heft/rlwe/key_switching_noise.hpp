// The noise that hybrid key switching adds, estimated from the parameters
// alone, and the rule that refuses parameters whose key switching cannot
// work (Parameters::validate calls it).
//
// Key switching a polynomial c multiplies each centred digit d_j (|d_j| <=
// D / 2 for the largest digit D, the product of its primes) by the key's
// error e_j (discrete Gaussian, sigma = 3.19) and divides by the product P
// of the special primes, then rounds: one coefficient of the added noise
// has, under the usual independence heuristic, the variance
//
//   V = dnum * N * (D^2 / 12) * sigma^2 / P^2  +  (K / 12) * (1 + w)
//
// (the second term is the rounding r0 + r1 s of mod down: K special primes,
// w the expected number of nonzero secret coefficients, 2N/3 for a uniform
// ternary secret). The bound is B = 6 sqrt(V). With D much larger than P the first term
// grows as D / P: special primes far smaller than a digit make every key
// switch add noise that no circuit can absorb.
//
// The rule: refuse when B leaves fewer than kKeySwitchingMarginBits bits
//   - CKKS (scale > 0): below the nominal scale, so that a rotation keeps at
//     least that many bits of precision;
//   - BFV / BGV (t > 0): below Q / (2t) at the top level, the whole noise
//     budget (the same condition for both: BFV's keys add B to a noise
//     measured against Q / t, BGV's add t B against Q).
// Sets with no special primes have no key switching and pass.
#pragma once

#include <string>

#include "heft/export.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::rlwe {

inline constexpr double kKeySwitchingMarginBits = 4.0;

struct HEFT_EXPORT KeySwitchingNoise {
  double digit_bits = 0;     // log2 D, the largest digit at the top level
  double special_bits = 0;   // log2 P
  double bound_bits = 0;     // log2 B
  double capacity_bits = 0;  // log2 of the scale (CKKS) or of Q / (2t)
};

// The estimate for a set with special primes (InvalidArgument otherwise).
[[nodiscard]] HEFT_EXPORT KeySwitchingNoise
estimate_key_switching_noise(const Parameters& parameters);

// An empty string if key switching can work with these parameters, else
// the reason, naming P, the largest digit, the bound and the capacity.
[[nodiscard]] HEFT_EXPORT std::string key_switching_noise_problem(const Parameters& parameters);

}  // namespace heft::rlwe
