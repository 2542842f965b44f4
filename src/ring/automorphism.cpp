// The NTT-form automorphism index map (formula and derivation in
// heft/ring/automorphism.hpp).
#include "heft/ring/automorphism.hpp"

#include "heft/math/ntt_tables.hpp"

namespace heft::ring {

std::vector<uint32_t> make_ntt_automorphism_map(uint64_t degree, uint64_t galois_element) {
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
