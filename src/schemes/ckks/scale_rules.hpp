// What the CKKS evaluator's files share about scales: when two scales count
// as equal, when a product still awaits its rescale, and how scales print in
// error messages (with enough digits that two different scales never print
// alike). Internal to src/schemes/ckks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "heft/schemes/ckks/evaluator.hpp"
#include "util/power_of_two_text.hpp"

namespace heft::ckks::detail {

inline constexpr double kScaleTolerance = 1e-10;  // relative: scales this close count as equal

inline bool same_scale(double a, double b) {
  return std::abs(a - b) <= kScaleTolerance * std::max(a, b);
}

// A product still waiting for its rescale. At level 0 no prime is left to
// divide by, so a product there is final, also one loaded with the flag set.
inline bool rescale_pending(const Ciphertext& a) {
  return a.needs_rescale && a.level() > 0;
}

// A scale as "2^x.xx" (heft's one power-of-two formatter).
inline std::string scale_text(double scale, int decimals = 2) {
  return heft::detail::power_of_two_text(std::log2(scale), decimals);
}

// Two scales as "2^a", "2^b", with as many decimals as it takes for
// different scales to print differently (scales count as equal only within
// kScaleTolerance, so two refused scales can agree in many digits); their
// exact values when even their logarithms agree.
inline std::pair<std::string, std::string> distinct_scale_texts(double a, double b) {
  for (int decimals = 2; decimals <= 15; ++decimals) {
    std::string x = scale_text(a, decimals), y = scale_text(b, decimals);
    if (x != y || a == b) return {std::move(x), std::move(y)};
  }
  char x[40], y[40];
  std::snprintf(x, sizeof x, "%.17g", a);
  std::snprintf(y, sizeof y, "%.17g", b);
  return {x, y};
}

inline std::string two_scales_text(double a, double b) {
  const auto [x, y] = distinct_scale_texts(a, b);
  return x + " and " + y;
}

}  // namespace heft::ckks::detail
