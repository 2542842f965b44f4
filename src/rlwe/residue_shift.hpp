// Adding or subtracting one constant modulo q over a row of residues, without
// branches, for the rounding offsets of modulus switching and key switching.
// Written as plain loops over restrict-qualified pointers so that the
// compiler vectorises them (a kernel call per element cost a fifth of a
// rescale).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace heft::rlwe::detail {

// v <- (v + c) mod q for every v in [0, q), with c in [0, q).
inline void add_constant_mod(std::span<uint64_t> values, uint64_t c, uint64_t q) {
  uint64_t* __restrict v = values.data();
  const std::size_t n = values.size();
  for (std::size_t k = 0; k < n; ++k) {
    const uint64_t sum = v[k] + c;
    v[k] = sum - (q & (0 - static_cast<uint64_t>(sum >= q)));
  }
}

// v <- (v - c) mod q for every v in [0, q), with c in [0, q).
inline void sub_constant_mod(std::span<uint64_t> values, uint64_t c, uint64_t q) {
  uint64_t* __restrict v = values.data();
  const std::size_t n = values.size();
  for (std::size_t k = 0; k < n; ++k)
    v[k] = v[k] - c + (q & (0 - static_cast<uint64_t>(v[k] < c)));
}

}  // namespace heft::rlwe::detail
