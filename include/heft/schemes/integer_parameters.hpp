// Picks BFV or BGV parameters from what a user knows: multiplicative depth,
// plaintext modulus size (or t itself), batching, security level.
//
// Noise model (calibrated on heft's own noise budgets and checked by
// tests/schemes/common/test_integer_parameters.cpp, which runs a circuit of the requested
// depth on the suggested parameters and asserts the budget stays positive):
// with lt = log2 t and ln = log2 N,
// - BFV: log2 Q >= (lt + ln + 40) for a fresh ciphertext and decryption, plus
//   (lt + ln + 6) per multiplication in sequence; Q is split into equal primes
//   of at most 60 bits.
// - BGV: q_0 of min(60, lt + ln + 32) bits holds the last level; each level
//   dropped by modulus switching after a multiplication is a prime of
//   min(60, lt + 1.5 ln + 12) bits (the product's noise t * N * B^2 divided back
//   to B, with B the switching noise ~ t sqrt(N)).
// The smallest secure N and dnum come from rlwe::choose_ring (cost model in
// its header). t must be coprime to the primes (any odd-free t is: they are odd).
#pragma once

#include <cstddef>
#include <cstdint>

#include "heft/export.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::schemes {

enum class IntegerScheme { bfv, bgv };

struct HEFT_EXPORT IntegerParameterRequest {
  IntegerScheme scheme = IntegerScheme::bfv;
  std::size_t depth = 1;       // ciphertext multiplications in sequence
  int plain_bits = 17;         // size of t when plain_modulus is 0
  uint64_t plain_modulus = 0;  // an explicit t (then plain_bits is ignored)
  bool batching = true;        // t must be a batching prime for the chosen N
  rlwe::SecurityLevel security = rlwe::SecurityLevel::classic128;
};

// Throws InvalidArgument if the request is impossible (t out of range, t not
// a batching prime when batching is asked for, depth too large for 2^17).
HEFT_EXPORT rlwe::Parameters suggest_integer_parameters(const IntegerParameterRequest& request);

}  // namespace heft::schemes
