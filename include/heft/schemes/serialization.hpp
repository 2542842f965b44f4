// Saving and loading the objects of the exact-integer schemes: integer
// plaintexts (BFV and BGV) and BGV ciphertexts with their correction factor
// and noise estimate (format version 2; version 1 loads with the estimate
// unknown, docs/format.md).
// Same frame, checks and options as heft/rlwe/serialization.hpp (BFV
// ciphertexts are rlwe::Ciphertext and use rlwe::save / rlwe::load_ciphertext).
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

HEFT_EXPORT rlwe::Bytes save(const rlwe::Context& context, const Ciphertext& ciphertext,
                             const rlwe::SaveOptions& options = {});
HEFT_EXPORT Ciphertext load_ciphertext(const rlwe::ContextPtr& context,
                                       std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options = {});

}  // namespace heft::bgv
