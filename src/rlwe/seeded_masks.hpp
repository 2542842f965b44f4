// The uniform "mask" halves of RLWE objects, expanded from a public 32-byte
// seed: c_1 of a secret-key ciphertext, `a` of a public key, every a_j of a
// key-switching key. Encryption and key generation draw them through these
// functions and serialization regenerates them through the same ones, so the
// expansion order written here is part of the serialized format
// (docs/format.md): change it and old seeded objects no longer load.
//
// Only masks come from these seeds; errors and secrets always come from a
// separate Prng seeded by the operating system, since the seed is published.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/ring/prng.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

// Uniform polynomial over the first `towers` ciphertext primes, NTT form,
// towers sampled in order 0, 1, ... from Prng(seed). A prefix of the towers
// is therefore the expansion for fewer towers, so a ciphertext dropped to a
// lower level keeps a valid seed.
ring::RnsPoly expand_ciphertext_mask(const Context& context, const ring::Prng::Seed& seed,
                                     std::size_t towers);

// The masks a_0 .. a_{d-1} of a key-switching key over the first q_towers
// ciphertext primes (d: the digits of that level): for each digit in order,
// its Q towers then its P towers. For a Galois element g != 1 they are then
// permuted by X -> X^(g^-1), as Galois keys are stored (keys.hpp).
std::vector<ExtendedPoly> expand_switch_key_masks(const Context& context,
                                                  const ring::Prng::Seed& seed,
                                                  uint64_t galois_element, std::size_t q_towers);

}  // namespace heft::rlwe
