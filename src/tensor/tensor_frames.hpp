// The serialized form shared by CKKSTensor and BFVTensor (docs/format.md,
// "Tensor objects"): a header with the shape, the padding flag and the
// ciphertext count, then one rlwe frame per ciphertext.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/plain_tensor.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor::detail {

struct TensorParts {
  Shape shape;
  std::vector<rlwe::Ciphertext> elements;
  bool clean_padding = true;
};

[[nodiscard]] rlwe::Bytes write_tensor(const Magic& magic, uint16_t version,
                                       const TensorContext& context, const Shape& shape,
                                       bool clean_padding,
                                       const std::vector<rlwe::Ciphertext>& elements,
                                       const rlwe::SaveOptions& options);
// FormatError (naming `what`) for a malformed header, a shape that does
// not fit the context or the bytes, ciphertexts not of 2 parts or at
// different levels; and what rlwe's loaders throw.
[[nodiscard]] TensorParts read_tensor(const Magic& magic, uint16_t version, const char* what,
                                      const TensorContext& context, std::span<const uint8_t> bytes,
                                      const rlwe::LoadOptions& options);

}  // namespace heft::tensor::detail
