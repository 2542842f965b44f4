// Plain values for BFV/BGV tests: random values mod t, and oracles for the
// batched slots as a 2 x N/2 matrix (the BatchEncoder layout): row
// rotations and the row swap. Header-only test support.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace heft::testing {

// n values uniform in [0, t).
inline std::vector<uint64_t> random_values_mod(std::mt19937_64& rng, std::size_t n, uint64_t t) {
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = rng() % t;
  return v;
}

// new[r][c] = old[r][(c + step) mod N/2]: each row rotated left by step.
inline std::vector<uint64_t> rotate_slot_rows(const std::vector<uint64_t>& x, int64_t step) {
  const int64_t half = static_cast<int64_t>(x.size() / 2);
  std::vector<uint64_t> out(x.size());
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < half; ++c)
      out[r * half + c] = x[r * half + ((c + step) % half + half) % half];
  return out;
}

// The two rows exchanged.
inline std::vector<uint64_t> swap_slot_rows(const std::vector<uint64_t>& x) {
  std::vector<uint64_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = x[(i + x.size() / 2) % x.size()];
  return out;
}

}  // namespace heft::testing
