// Rotations composed from the Galois keys present, one rule for every scheme.
//
// A left rotation of the slots by `step` is the automorphism X -> X^(5^step)
// (CKKS slots, BFV/BGV rows). Rotations compose additively, 5^a * 5^b =
// 5^(a+b), so a step without a key of its own is reached by a sequence of
// steps that have one. Each step of the sequence is a key switch, which costs
// time and adds its error, so plan_rotation picks the shortest sequence: a
// breadth-first search over the cyclic group of steps modulo the slot count,
// exact for any key set (with keys for +-2^i it finds the signed-digit
// decomposition: -7 = -8 + 1, two switches, rather than the eight bits of
// -7 mod 1024 = 1 + 8 + 16 + ... + 512).
// A step with its own key takes a few map look-ups and no search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

// The rotation step of `galois_element`, in [0, N/2), if the element is a
// power of 5 modulo 2N (a rotation); nullopt for every other element
// (conjugation, and conjugation composed with a rotation).
[[nodiscard]] HEFT_EXPORT std::optional<uint64_t> rotation_step_of(const Context& context,
                                                                   uint64_t galois_element);

// The element of a key in `keys` that rotates by `step` on its own over a
// cycle of `slots` positions (a key for step, for step mod slots or for
// step mod slots - slots), or nullopt. The fast path of plan_rotation, for
// operations that cannot compose (they need one key per step).
[[nodiscard]] HEFT_EXPORT std::optional<uint64_t> direct_rotation_element(const Context& context,
                                                                          const GaloisKeys& keys,
                                                                          int64_t step,
                                                                          std::size_t slots);

// The Galois elements, each with a key in `keys`, whose automorphisms applied
// one after the other rotate by `step` over a cycle of `slots` positions:
// N/2 for BFV/BGV rows and fully packed CKKS, the slot count of a sparsely
// packed CKKS ciphertext (where steps congruent modulo slots act alike). As
// few elements as possible; none when step is a multiple of slots; the key
// of the step itself when present. Throws InvalidArgument naming `operation`
// when `slots` is not a power of two dividing N/2, and when no composition
// exists: the message names the step, the steps of the keys present and the
// steps those can reach. MismatchError if the keys belong to another context.
// The search costs O(slots * keys) at worst (a fraction of one key switch).
[[nodiscard]] HEFT_EXPORT std::vector<uint64_t> plan_rotation(
    const Context& context, const GaloisKeys& keys, int64_t step, std::size_t slots,
    std::string_view operation = "plan_rotation");

}  // namespace heft::rlwe
