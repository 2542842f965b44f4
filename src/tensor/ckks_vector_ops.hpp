// The per-ciphertext steps of CKKSVector's operations, following the
// context's flags (auto_relin, auto_rescale, auto_mod_switch; see
// heft/tensor/context.hpp), and access to CKKSVector's private constructor
// for the files that implement it.
#pragma once

#include <span>
#include <vector>

#include "heft/tensor/ckks_vector.hpp"

namespace heft::tensor {

class CKKSVectorOps {
 public:
  static CKKSVector make(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> chunks,
                         std::size_t size, bool clean_padding) {
    return CKKSVector(std::move(context), std::move(chunks), size, clean_padding);
  }
  static std::vector<rlwe::Ciphertext>& chunks(CKKSVector& x) { return x.chunks_; }
  static CKKSVector with_zero_padding(const CKKSVector& x, const char* operation) {
    return x.with_zero_padding(operation);
  }

  // Whether align_levels does anything under the context's flags.
  static bool aligns_levels(const TensorContext& context);
  // a and b brought to one level when the flags ask the tensor layer to do
  // it (manual scale mode with auto_mod_switch); copies only when needed.
  static void align_levels(const TensorContext& context, rlwe::Ciphertext& a, rlwe::Ciphertext& b);
  // A product rescaled when auto_rescale asks for it.
  static rlwe::Ciphertext finish_product(const TensorContext& context, rlwe::Ciphertext product);
  static rlwe::Ciphertext product(const TensorContext& context, const rlwe::Ciphertext& a,
                                  const rlwe::Ciphertext& b, const char* operation);
  // a times a plain vector of its slot count, encoded at a's level.
  static rlwe::Ciphertext plain_product(const TensorContext& context, const rlwe::Ciphertext& a,
                                        std::span<const double> values);
  // a plus a plain vector, encoded at a's level and scale (no alignment).
  static rlwe::Ciphertext plain_sum(const TensorContext& context, const rlwe::Ciphertext& a,
                                    std::span<const double> values, bool subtract);
};

}  // namespace heft::tensor
