// Weighted sums of ciphertexts by real constants, the core of every plain
// linear layer on batched tensors (CKKSTensor::mm, CKKSTensor::conv2d):
// output j = sum_k w_jk x_(i_jk). Each constant multiplies the ciphertext in
// place of an encoded plaintext (a scalar per tower, fused with the sum:
// circuits' ConstantProducts), so a 256 x 64 layer costs 16384 passes over
// the ciphertexts instead of 16384 encodings. The sum lands where a sum of
// plaintext products would: scale x.scale * scale_at(level), one rescale.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/tensor/context.hpp"

namespace heft::tensor::detail {

struct WeightedTerm {
  std::size_t input;  // index into the inputs
  double weight;
};

// One ciphertext per entry of `sums` (each a non-empty list of terms), in
// parallel over the outputs. Inputs must be settled (no rescale pending):
// InvalidArgument naming `operation` otherwise, and when no level is left.
[[nodiscard]] std::vector<rlwe::Ciphertext> weighted_sums(
    const TensorContext& context, std::span<const rlwe::Ciphertext> inputs,
    const std::vector<std::vector<WeightedTerm>>& sums, const char* operation);

}  // namespace heft::tensor::detail
