// Helpers shared by the math tests: modular arithmetic through unsigned
// __int128 (the independent oracle), random residues, and a loop over every
// kernel level this CPU supports.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"

namespace heft::math::testing {

using u128 = unsigned __int128;

inline uint64_t mulmod_ref(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>(static_cast<u128>(a) * b % q);
}

inline uint64_t powmod_ref(uint64_t a, uint64_t e, uint64_t q) {
  uint64_t r = 1 % q;
  for (a %= q; e; e >>= 1, a = mulmod_ref(a, a, q))
    if (e & 1) r = mulmod_ref(r, a, q);
  return r;
}

inline std::vector<uint64_t> random_values(std::size_t n, uint64_t bound, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// Runs check(isa, bits, tables) at every level this CPU supports, for 30-,
// 49- and 60-bit primes (those a level can take) and N = 8, 64 and 4096,
// restoring the active level afterwards.
template <class Check>
void for_each_level_and_table(const Check& check) {
  const Isa before = active_isa();
  for (Isa isa : supported_isas()) {
    set_isa(isa);
    for (int bits : {30, 49, 60}) {
      if (isa == Isa::ifma && bits > 50) continue;
      for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{4096}}) {
        const NttTables tables(n, generate_ntt_primes(bits, n, 1)[0]);
        check(isa, bits, tables);
      }
    }
  }
  set_isa(before);
}

}  // namespace heft::math::testing
