// The part-by-part arithmetic of ciphertexts that every scheme's additions
// share: sums and differences of parts and negation. What a scheme adds
// (aligning levels and scales, reconciling correction factors, noise
// estimates) it does before or after. Internal to heft.
#pragma once

#include "heft/rlwe/ciphertext.hpp"

namespace heft::rlwe::detail {

// a's parts plus (or, with subtract, minus) b's, part by part, in place. a
// takes zero parts where b has more (a 2-part plus a 3-part ciphertext is a
// 3-part one). Unchecked: both at one level, of one context; a keeps its
// metadata.
void add_parts(Ciphertext& a, const Ciphertext& b, bool subtract);

// a's parts plus (or minus) b's into a new ciphertext, in one pass over
// each (no copy of a first: an out-of-place sum reads a and b and writes the
// result once). A part only one of them has is copied (negated for b's when
// subtracting). Unchecked as add_parts; the result keeps a's metadata.
[[nodiscard]] Ciphertext sum_of_parts(const Ciphertext& a, const Ciphertext& b, bool subtract);

// a with every part negated (its metadata kept), in one pass.
[[nodiscard]] Ciphertext negated(const Ciphertext& a);

}  // namespace heft::rlwe::detail
