// Picks CKKS parameters from what a user knows: multiplicative depth, scale
// bits, first-prime bits, security level and (optionally) slot count.
// The smallest secure N and the dnum come from rlwe::choose_ring (its header
// documents the key-switching cost model behind dnum).
#pragma once

#include <cstddef>

#include "heft/export.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::ckks {

struct HEFT_EXPORT ParameterRequest {
  std::size_t depth = 1;      // multiplications in sequence (levels to rescale through)
  int scale_bits = 40;        // log2 of the scale; also the size of the rescaling primes
  int first_prime_bits = 60;  // q_0: must hold scale * max |value| at the last level
  rlwe::SecurityLevel security = rlwe::SecurityLevel::classic128;
  std::size_t slots = 0;  // at least this many slots (0: no constraint)
  rlwe::SecretDistribution secret{};
};

// Throws InvalidArgument if the request is impossible (bit sizes out of range,
// first prime not above the scale, depth too large for any N up to 2^17).
HEFT_EXPORT rlwe::Parameters suggest_parameters(const ParameterRequest& request);

}  // namespace heft::ckks
