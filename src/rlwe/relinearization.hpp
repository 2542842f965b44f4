// Relinearization of ciphertexts, written once for every scheme: a tensor
// product (c0, c1, c2) becomes (c0 + e0, c1 + e1) with e0 + e1 s = c2 s^2 plus
// the key switch's small error, the additions folded into mod down
// (rlwe::switch_key_and_add). The result keeps the ciphertext's metadata
// record, since relinearization keeps the message, its scale and its
// correction factor; what a scheme adds (BGV's noise estimate) it updates
// itself. Internal to heft: the schemes' evaluators are the public face.
#pragma once

#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

// The checks of relinearization, before any work: a is a ciphertext of
// `context` with three parts (a product) and `key` a relinearization key of
// `context`. The errors name `operation`.
void require_relinearization_operands(const Context& context, const Ciphertext& a,
                                      const RelinKey& key, const char* operation);

// a relinearized, with a's metadata (not its seed hint). Unchecked: the
// caller ran require_relinearization_operands, or made `a` itself. a's third
// part may be in either form (BFV hands over its tensor's third part in
// coefficient form, as the scaling leaves it); the result is in NTT form.
[[nodiscard]] Ciphertext relinearize_unchecked(const Context& context, const Ciphertext& a,
                                               const RelinKey& key);

// a relinearized then divided by its last prime q_l in one step (key
// switching's division by P and the division by q_l share one conversion
// and one set of transforms: rlwe::switch_key_and_divide, with the key's
// error scale). The result is at level l - 1 and keeps a's metadata
// unchanged: the caller divides the scale (a CKKS rescale) or multiplies the
// correction factor by q_l (a BGV modulus switch). Unchecked, as above, and
// a must be above level 0.
[[nodiscard]] Ciphertext relinearize_and_divide_unchecked(const Context& context,
                                                          const Ciphertext& a, const RelinKey& key);

}  // namespace heft::rlwe
