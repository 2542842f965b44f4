// Picks CKKS parameters from what a user knows: multiplicative depth, scale
// bits, first-prime bits, security level and (optionally) slot count.
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
// security budget of log2(QP). The helper takes the smallest N for which some
// dnum fits the HE Standard bound and, at that N, the dnum of least cost.
#pragma once

#include <cstddef>

#include "heft/rlwe/parameters.hpp"

namespace heft::ckks {

struct ParameterRequest {
  std::size_t depth = 1;      // multiplications in sequence (levels to rescale through)
  int scale_bits = 40;        // log2 of the scale; also the size of the rescaling primes
  int first_prime_bits = 60;  // q_0: must hold scale * max |value| at the last level
  rlwe::SecurityLevel security = rlwe::SecurityLevel::classic128;
  std::size_t slots = 0;  // at least this many slots (0: no constraint)
  rlwe::SecretDistribution secret{};
};

// Estimated cost of one key switch (in tower-NTT units) for the model above.
double key_switch_cost(std::size_t levels, std::size_t dnum, uint64_t degree);

// Throws InvalidArgument if the request is impossible (bit sizes out of range,
// first prime not above the scale, depth too large for any N up to 2^17).
rlwe::Parameters suggest_parameters(const ParameterRequest& request);

}  // namespace heft::ckks
