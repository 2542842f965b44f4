// Access to BFVVector's private constructor for the files that implement it.
#pragma once

#include <vector>

#include "heft/tensor/bfv_vector.hpp"

namespace heft::tensor {

class BFVVectorOps {
 public:
  static BFVVector make(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> chunks,
                        std::size_t size, bool clean_padding) {
    return BFVVector(std::move(context), std::move(chunks), size, clean_padding);
  }
  // The ciphertexts, to move out of a vector that is done with.
  static std::vector<rlwe::Ciphertext>& chunks(BFVVector& x) { return x.chunks_; }
};

}  // namespace heft::tensor
