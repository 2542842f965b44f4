// The key-switching noise estimate and the rule built on it (see
// heft/rlwe/key_switching_noise.hpp for the formula and why).
#include "heft/rlwe/key_switching_noise.hpp"

#include <algorithm>
#include <cmath>

#include "heft/ring/samplers.hpp"
#include "heft/util/error.hpp"
#include "util/power_of_two_text.hpp"

namespace heft::rlwe {
namespace {

double sum_of_log2(const std::vector<uint64_t>& moduli, std::size_t begin, std::size_t end) {
  double bits = 0;
  for (std::size_t i = begin; i < end; ++i)
    bits += std::log2(static_cast<double>(moduli[i]));
  return bits;
}

std::string bits_text(double bits) {
  return heft::detail::power_of_two_text(bits, 1);
}

}  // namespace

KeySwitchingNoise estimate_key_switching_noise(const Parameters& parameters) {
  if (parameters.special_moduli.empty()) {
    throw InvalidArgument("estimate_key_switching_noise: these parameters have no special primes");
  }
  const std::size_t levels = parameters.ciphertext_moduli.size();
  const std::size_t digit_size = parameters.digit_size();
  const std::size_t digits = parameters.digit_count();
  KeySwitchingNoise out;
  for (std::size_t begin = 0; begin < levels; begin += digit_size) {
    out.digit_bits = std::max(out.digit_bits, sum_of_log2(parameters.ciphertext_moduli, begin,
                                                          std::min(levels, begin + digit_size)));
  }
  out.special_bits = sum_of_log2(parameters.special_moduli, 0, parameters.special_moduli.size());
  const double n = static_cast<double>(parameters.degree);
  const double sigma = ring::kGaussianSigma;
  const double nonzero_secret = parameters.secret.kind == SecretKind::sparse_ternary
                                    ? static_cast<double>(parameters.secret.hamming_weight)
                                    : 2.0 * n / 3.0;
  // log2 of the digit term's variance, kept in logarithms: D / P may be
  // far beyond a double's range for absurd sets.
  const double digit_term_bits = std::log2(static_cast<double>(digits) * n * sigma * sigma / 12.0) +
                                 2.0 * (out.digit_bits - out.special_bits);
  const double rounding_term =
      static_cast<double>(parameters.special_moduli.size()) / 12.0 * (1.0 + nonzero_secret);
  // log2(2^a + b) without overflow for large a.
  const double variance_bits = digit_term_bits > 1000
                                   ? digit_term_bits
                                   : std::log2(std::exp2(digit_term_bits) + rounding_term);
  out.bound_bits = std::log2(6.0) + variance_bits / 2.0;
  if (parameters.scale > 0) {
    out.capacity_bits = std::log2(parameters.scale);
  } else {
    const uint64_t t = std::max<uint64_t>(parameters.plain_modulus, 1);
    out.capacity_bits = sum_of_log2(parameters.ciphertext_moduli, 0, levels) -
                        std::log2(2.0 * static_cast<double>(t));
  }
  return out;
}

std::string key_switching_noise_problem(const Parameters& parameters) {
  if (parameters.special_moduli.empty()) return {};
  const KeySwitchingNoise noise = estimate_key_switching_noise(parameters);
  if (noise.bound_bits + kKeySwitchingMarginBits <= noise.capacity_bits) return {};
  const char* capacity = parameters.scale > 0 ? "the nominal scale" : "Q / (2t)";
  return "key switching cannot work with these parameters: the largest digit " +
         bits_text(noise.digit_bits) +
         " over the special primes' product P = " + bits_text(noise.special_bits) +
         " gives a key-switching noise bound of " + bits_text(noise.bound_bits) +
         " (6 sigma, heft/rlwe/key_switching_noise.hpp), which " + "leaves fewer than " +
         std::to_string(static_cast<int>(kKeySwitchingMarginBits)) + " bits below " + capacity +
         " (" + bits_text(noise.capacity_bits) +
         "): use larger or more special primes (P at least about the largest digit), or more " +
         "digits (dnum)";
}

}  // namespace heft::rlwe
