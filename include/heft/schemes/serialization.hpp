// Saving and loading the objects of the exact-integer schemes: integer
// plaintexts (BFV and BGV). Same frame, checks and options as
// heft/rlwe/serialization.hpp. BFV and BGV ciphertexts are rlwe::Ciphertext
// and use rlwe::save / rlwe::load_ciphertext, which keep a BGV ciphertext's
// correction factor and noise estimate (docs/format.md).
#pragma once

#include <span>

#include "heft/export.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/ciphertext.hpp"

namespace heft::schemes {

// The plaintext's modulus and length must be the context's t and N.
HEFT_EXPORT rlwe::Bytes save(const rlwe::Context& context, const IntegerPlaintext& plain,
                             const rlwe::SaveOptions& options = {});
HEFT_EXPORT IntegerPlaintext load_integer_plaintext(const rlwe::ContextPtr& context,
                                                    std::span<const uint8_t> bytes,
                                                    const rlwe::LoadOptions& options = {});

}  // namespace heft::schemes

namespace heft::bgv {

// A BGV ciphertext is an rlwe::Ciphertext whose metadata record carries its
// correction factor and noise estimate, so it is saved and loaded as any
// ciphertext is (format version 3); load_ciphertext also reads the BGV
// ciphertexts of versions 1 and 2 (a version-1 one with its estimate
// unknown). These names keep code written for the BGV wrapper compiling.
using rlwe::load_ciphertext;
using rlwe::save;

}  // namespace heft::bgv
