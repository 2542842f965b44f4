// BGV ciphertext: an rlwe::Ciphertext, whose metadata record carries what
// BGV needs beyond the parts: the correction factor (the message is
// m = m' * correction mod t, for the decryption m' + t e) and the noise
// estimate (noise_model.hpp). See heft/rlwe/ciphertext.hpp for both fields
// and for why every scheme shares one ciphertext type.
//
// bgv::Ciphertext was a wrapper ({ct, correction, noise_log2}) until the
// metadata record (which came with format version 3); it is now the same
// type, so code written against the wrapper compiles unchanged except where it
// reached the parts through `.ct` (use the ciphertext itself).
#pragma once

#include "heft/rlwe/ciphertext.hpp"

namespace heft::bgv {

using Ciphertext = rlwe::Ciphertext;
using rlwe::kUnknownNoise;

}  // namespace heft::bgv
