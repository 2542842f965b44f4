// BFVTensor: an encrypted N-D tensor of integers modulo the plaintext modulus
// t (TenSEAL's BFVTensor), exact, laid out as CKKSTensor: axis 0 (the batch,
// at most N values) runs along the slots, and each element of the other
// axes is one ciphertext (row-major). A 1-D tensor is one ciphertext of its
// values. TenSEAL's unbatched tensor is a batch of one.
//
// Element-wise operations take a tensor (the same batch; the other axes
// broadcast by numpy's rules), a PlainTensor of integers (broadcast to this
// tensor's shape, batch axis included) or a scalar; each element's
// ciphertext goes through BFVVector's operations, so the context's flags,
// the noise-budget check on decryption and the errors are BFVVector's.
// sum(0) adds the batch (row rotations 1, 2, 4, ..., and the row swap for a
// batch over N/2), sum(axis > 0) adds ciphertexts; reshape, transpose and
// broadcast_to act on the axes after the batch and move only ciphertexts.
// Values decrypt into (-t/2, t/2]. BFV has no levels: noise grows with
// each product, and decrypt() raises NoiseBudgetError when it is spent.
//
// Errors are typed (MismatchError for shapes that do not broadcast, batches
// or contexts that differ; InvalidArgument for missing keys, bad axes, a
// value that is not an integer); a failed call leaves its operands as they
// were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::tensor {

class BFVVector;

class HEFT_EXPORT BFVTensor {
 public:
  BFVTensor() = default;
  BFVTensor(BFVTensor&&) noexcept = default;
  BFVTensor& operator=(BFVTensor&&) noexcept = default;
  BFVTensor(const BFVTensor&) = delete;
  BFVTensor& operator=(const BFVTensor&) = delete;
  [[nodiscard]] BFVTensor copy() const;

  // InvalidArgument for a CKKS context, a batch longer than the N slots, a
  // value that is not an integer.
  [[nodiscard]] static BFVTensor encrypt(TensorContext::Ptr context, const PlainTensor& plain);
  [[nodiscard]] PlainTensor decrypt() const;
  // With a secret key kept aside (TenSEAL's decrypt(secret_key)).
  [[nodiscard]] PlainTensor decrypt(const rlwe::SecretKey& secret_key) const;

  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::size_t batch_size() const noexcept { return shape_.empty() ? 0 : shape_[0]; }
  [[nodiscard]] const std::vector<rlwe::Ciphertext>& ciphertexts() const noexcept {
    return elements_;
  }
  [[nodiscard]] const TensorContext::Ptr& context() const noexcept { return context_; }

  [[nodiscard]] BFVTensor add(const BFVTensor& other) const;
  [[nodiscard]] BFVTensor sub(const BFVTensor& other) const;
  [[nodiscard]] BFVTensor mul(const BFVTensor& other) const;
  [[nodiscard]] BFVTensor add(const PlainTensor& plain) const;
  [[nodiscard]] BFVTensor sub(const PlainTensor& plain) const;
  [[nodiscard]] BFVTensor mul(const PlainTensor& plain) const;
  [[nodiscard]] BFVTensor add(int64_t scalar) const;
  [[nodiscard]] BFVTensor sub(int64_t scalar) const;
  [[nodiscard]] BFVTensor mul(int64_t scalar) const;
  [[nodiscard]] BFVTensor negate() const;
  [[nodiscard]] BFVTensor square() const;
  // sum_k coefficients[k] x^k mod t, lowest degree first.
  [[nodiscard]] BFVTensor polyval(std::span<const int64_t> coefficients) const;

  [[nodiscard]] BFVTensor sum(std::size_t axis) const;
  // A shape whose first axis is the batch (MismatchError otherwise).
  [[nodiscard]] BFVTensor reshape(const Shape& shape) const;
  // numpy's broadcast_to over the axes after the batch (ciphertext copies).
  [[nodiscard]] BFVTensor broadcast_to(const Shape& shape) const;
  // The axes after the batch reversed.
  [[nodiscard]] BFVTensor transpose() const;

  // ---- serialization (docs/format.md, "Tensor objects") ----
  [[nodiscard]] rlwe::Bytes serialize(const rlwe::SaveOptions& options = {}) const;
  [[nodiscard]] static BFVTensor load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                                      const rlwe::LoadOptions& options = {});

 private:
  BFVTensor(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> elements, Shape shape,
            bool clean_padding);
  void require_valid(const char* operation) const;
  [[nodiscard]] PlainTensor decrypt_with(const rlwe::SecretKey* secret_key) const;
  // Element e as a BFVVector of the batch (a copy of its ciphertext).
  [[nodiscard]] BFVVector element(std::size_t e) const;
  [[nodiscard]] BFVTensor combine(const BFVTensor& other, int kind, const char* operation) const;
  [[nodiscard]] BFVTensor combine(const PlainTensor& plain, int kind, const char* operation) const;

  TensorContext::Ptr context_;
  std::vector<rlwe::Ciphertext> elements_;
  Shape shape_;
  bool clean_padding_ = true;  // slots past the batch hold zeros
};

}  // namespace heft::tensor
