// Choosing the ring degree and the key-switching digits for a prime chain:
// shared by the parameter helpers of CKKS, BFV and BGV.
//
// Cost model for dnum (documented so the choice is explainable): one key
// switch at the top level with L ciphertext primes, dnum digits of alpha =
// ceil(L / dnum) primes and K = alpha special primes costs, in units of one
// tower NTT (the inner products are counted at 2 / log2(N) of an NTT each):
//   L                              inverse NTT of the input
// + dnum * (L + K - alpha)         NTTs of the raised digits
// + 2 * dnum * (L + K) * 2/log2 N  multiply-accumulate with the key
// + 2 * (K + L)                    mod down of both halves
// Fewer digits means fewer NTTs but more special primes, which eat into the
// security budget of log2(QP).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "heft/export.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/security.hpp"

namespace heft::rlwe {

// The deepest circuit the parameter helpers plan for. Every level takes at
// least 20 bits and the largest modulus any security level allows (3523 bits
// at N = 2^17) holds fewer than 180 such levels, so deeper requests are
// refused up front (before any size arithmetic that could overflow).
inline constexpr std::size_t kMaxHelperDepth = 256;

// Estimated cost of one key switch (in tower-NTT units) for the model above.
HEFT_EXPORT double key_switch_cost(std::size_t levels, std::size_t dnum, uint64_t degree);

struct HEFT_EXPORT RingChoice {
  uint64_t degree = 0;
  std::size_t dnum = 0;
  std::size_t special_count = 0;  // alpha = ceil(L / dnum) special primes
};

// The smallest N >= min_degree (a power of two up to 2^17) for which some dnum
// keeps ciphertext_bits + alpha * special_bits within the HE Standard bound of
// `security`, and at that N the dnum of least modelled cost. `ciphertext_bits`
// may depend on N (e.g. BFV/BGV noise grows with log2 N), so it is a callback.
// Empty if no N up to 2^17 fits.
template <typename CiphertextBits>
std::optional<RingChoice> choose_ring(std::size_t levels, int special_bits, SecurityLevel security,
                                      uint64_t min_degree, CiphertextBits ciphertext_bits) {
  for (uint64_t degree = kMinRingDegree; degree <= kMaxRingDegree; degree <<= 1) {
    if (degree < min_degree) continue;
    const int base_bits = ciphertext_bits(degree);
    RingChoice best;
    double best_cost = 0;
    for (std::size_t dnum = 1; dnum <= levels; ++dnum) {
      const std::size_t alpha = (levels + dnum - 1) / dnum;
      const int total = base_bits + static_cast<int>(alpha) * special_bits;
      if (security != SecurityLevel::none && total > max_log_qp(degree, security)) continue;
      const double cost = key_switch_cost(levels, dnum, degree);
      if (best.dnum == 0 || cost < best_cost) {
        best = {degree, dnum, alpha};
        best_cost = cost;
      }
    }
    if (best.dnum != 0) return best;
  }
  return std::nullopt;
}

}  // namespace heft::rlwe
