// Galois automorphisms of ciphertexts, written once for every scheme: single
// automorphisms and sequences of them (a rotation composed from the keys
// present, rlwe::plan_rotation), hoisted ones that share one decomposition,
// and the sum of automorphisms times plaintexts over Q*P that is divided by
// P once (the inner sum of a baby-step / giant-step linear transform). X ->
// X^(5^step) rotates CKKS slots and BFV/BGV rows; X -> X^(2N-1) conjugates
// CKKS slots and swaps BFV/BGV rows. The results keep the ciphertext's
// metadata record (an automorphism keeps the scale, the slot count and the
// correction factor); what a scheme adds (BGV's noise estimate) it updates
// itself. Internal to heft: the schemes' evaluators are the public face.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

// The checks every Galois operation makes before any work: a is a
// ciphertext of `context` with two parts (relinearize first), and `keys`
// were made under `context`. The errors name `operation`.
void require_galois_operands(const Context& context, const Ciphertext& a, const GaloisKeys& keys,
                             const char* operation);

// The key for complex conjugation (CKKS) or the row swap (BFV, BGV), the
// element 2N - 1; InvalidArgument naming `operation` and how to make the key
// when `keys` lack it.
[[nodiscard]] const KeySwitchKey& conjugation_key(const Context& context, const GaloisKeys& keys,
                                                  const char* operation);

// a mapped by X -> X^g for each element g of `sequence` in turn, each a key
// switch with the key for g (element 1, the identity, is skipped; an empty
// sequence gives a copy of a), keeping a's metadata. Every key is looked up
// before any work (InvalidArgument naming `operation` for a missing one).
// Operands as require_galois_operands accepts them.
[[nodiscard]] Ciphertext apply_galois_sequence(const Context& context, const Ciphertext& a,
                                               std::span<const uint64_t> sequence,
                                               const GaloisKeys& keys, const char* operation);

// apply_galois_sequence(a, sequences[i]) for every i, hoisted: the first
// automorphism of every sequence shares one decomposition of a's c1, and
// their inner products are taken up to eight keys per pass over it
// (rlwe::inner_products); the rest of a sequence (a composed rotation) goes
// one key switch at a time. Bit for bit the same results.
[[nodiscard]] std::vector<Ciphertext> apply_galois_hoisted(
    const Context& context, const Ciphertext& a, std::span<const std::vector<uint64_t>> sequences,
    const GaloisKeys& keys, const char* operation);

// sum_j diagonals[j] * sigma_j(a), sigma_j: X -> X^elements[j] (1: the
// identity), as the two parts over Q_l of a ciphertext at a's level l, with
// one decomposition of a's c1 and one division by P for the whole sum
// (rlwe::apply_galois_extended): the error of a single key switch instead of
// one per term. Each diagonal is a plaintext over Q_l' * P in NTT form,
// l' >= l (towers beyond l are ignored); its scale and slots are the
// caller's business, as is the result's metadata. Every key is looked up
// before any work (InvalidArgument naming `operation`).
[[nodiscard]] std::array<ring::RnsPoly, 2> dot_galois_extended(
    const Context& context, const Ciphertext& a, std::span<const uint64_t> elements,
    std::span<const ExtendedPoly* const> diagonals, const GaloisKeys& keys, const char* operation);

}  // namespace heft::rlwe
