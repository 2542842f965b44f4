// The NTT-form automorphism index map (formula and derivation in
// heft/ring/automorphism.hpp).
#include "heft/ring/automorphism.hpp"

#include <string>

#include "heft/math/ntt_tables.hpp"
#include "heft/util/error.hpp"

namespace heft::ring {

std::vector<uint32_t> make_ntt_automorphism_map(uint64_t degree, uint64_t galois_element) {
  // O(1) checks: a bad degree or an even element would give a map that is
  // not a permutation (or undefined shifts for N = 0).
  math::require_poly_degree(degree, "make_ntt_automorphism_map");
  if (galois_element % 2 == 0 || galois_element >= 2 * degree) {
    throw InvalidArgument("make_ntt_automorphism_map: Galois element " +
                          std::to_string(galois_element) +
                          " must be odd and below 2N = " + std::to_string(2 * degree));
  }
  const int log_degree = __builtin_ctzll(degree);
  const uint64_t mask = 2 * degree - 1;  // reduction mod 2N
  std::vector<uint32_t> map(degree);
  for (uint64_t k = 0; k < degree; ++k) {
    const uint64_t exponent = 2 * math::reverse_bits(k, log_degree) + 1;
    const uint64_t image = (exponent * galois_element) & mask;  // odd, since g is odd
    map[k] = static_cast<uint32_t>(math::reverse_bits((image - 1) >> 1, log_degree));
  }
  return map;
}

}  // namespace heft::ring
