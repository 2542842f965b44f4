// ModRaise, the first step of CKKS bootstrapping: a ciphertext at level 0
// (modulus q_0) read as one modulo Q_level. Its coefficients are lifted to
// their centred representatives in (-q_0/2, q_0/2] and reduced into every
// tower, so it decrypts to t = m + q_0 I: the message plus an unknown
// multiple of q_0, with I small (|I| below about the secret's Hamming weight
// over 2, with overwhelming probability about sqrt(h)), which bootstrapping
// then removes.
#pragma once

#include <cstddef>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"

namespace heft::rlwe {

// InvalidArgument unless `ciphertext` is a ciphertext of `context` at level
// 0 and to_level <= the top level. The metadata record is kept; the
// result has no rescale pending.
[[nodiscard]] HEFT_EXPORT Ciphertext mod_raise(const Context& context, const Ciphertext& ciphertext,
                                               std::size_t to_level);

}  // namespace heft::rlwe
