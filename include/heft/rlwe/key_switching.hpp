// Hybrid key switching, in the three stages that linear transforms hoist:
//
//   1. decompose(c): split c (level l, NTT form) into its digits and raise each
//      to Q_l * P ("mod up"). Done once per ciphertext.
//   2. inner_product(digits, key[, g]): sum_j digit_j * (b_j, a_j) over Q_l * P,
//      optionally applying the automorphism X -> X^g to the digits first
//      (hoisted rotations reuse one decomposition for many g).
//   3. mod_down(x): divide by P with rounding, back to Q_l.
//
// switch_key() chains them; relinearization and rotations are built on these
// same functions. All polynomials are in NTT form.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

struct DecomposedPoly {
  std::size_t level = 0;
  std::vector<ExtendedPoly> digits;  // each over Q_level * P, NTT form
};

// Stage 1. Throws InvalidArgument if the context has no special primes,
// MismatchError if c is not an NTT-form polynomial of the context's ring.
DecomposedPoly decompose(const Context& context, const ring::RnsPoly& c);

// Stage 2: (sum_j d_j b_j, sum_j d_j a_j) over Q_l * P. With galois_element
// g != 1 the digits are first mapped by X -> X^g (the key must then be the
// Galois key for g).
std::array<ExtendedPoly, 2> inner_product(const Context& context, const DecomposedPoly& digits,
                                          const KeySwitchKey& key, uint64_t galois_element = 1);

// Stage 3: round(x / P) over Q_l (x's Q part, reusing its storage).
ring::RnsPoly mod_down(const Context& context, ExtendedPoly x);

// (d0, d1) over Q_l with d0 + d1 s = c s' + small error, for the key that
// switches from s' to s.
std::array<ring::RnsPoly, 2> switch_key(const Context& context, const ring::RnsPoly& c,
                                        const KeySwitchKey& key);

}  // namespace heft::rlwe
