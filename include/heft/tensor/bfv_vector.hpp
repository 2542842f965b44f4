// BFVVector: an encrypted vector of integers modulo the plaintext modulus t
// (TenSEAL's BFVVector), exact. Values are packed N to a ciphertext (the two
// rows of N/2 slots of BFV batching); a longer vector spans several
// ciphertexts, and every operation runs over them (in parallel) as if they
// were one. Values go in as signed integers (taken mod t) and come out in
// (-t/2, t/2].
//
// As for CKKSVector (heft/tensor/ckks_vector.hpp), the slots past the size
// hold zeros where the operations can keep them so; sum() and dot() mask an
// operand whose padding may hold other values. BFV has no levels to run out
// of: noise grows with each product, and a computation deeper than the
// parameters allow decrypts wrongly (TensorContext::create_bfv sizes them
// for a depth). Errors as CKKSVector's: typed, operands unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/tensor/context.hpp"

namespace heft::tensor {

class HEFT_EXPORT BFVVector {
 public:
  BFVVector() = default;
  // Ciphertexts are explicit to copy (copy()); vectors move.
  BFVVector(BFVVector&&) noexcept = default;
  BFVVector& operator=(BFVVector&&) noexcept = default;
  BFVVector(const BFVVector&) = delete;
  BFVVector& operator=(const BFVVector&) = delete;
  [[nodiscard]] BFVVector copy() const;

  // InvalidArgument for an empty vector or a CKKS context.
  [[nodiscard]] static BFVVector encrypt(TensorContext::Ptr context,
                                         std::span<const int64_t> values);
  // Values in (-t/2, t/2]; needs the secret key. NoiseBudgetError when a
  // ciphertext's noise budget is spent (its values would be wrong).
  [[nodiscard]] std::vector<int64_t> decrypt() const;
  // With a secret key kept aside (TenSEAL's decrypt(secret_key)).
  [[nodiscard]] std::vector<int64_t> decrypt(const rlwe::SecretKey& secret_key) const;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const TensorContext::Ptr& context() const noexcept { return context_; }
  [[nodiscard]] const std::vector<rlwe::Ciphertext>& ciphertexts() const noexcept {
    return chunks_;
  }
  [[nodiscard]] bool padding_is_zero() const noexcept { return clean_padding_; }

  [[nodiscard]] BFVVector add(const BFVVector& other) const;
  [[nodiscard]] BFVVector add(std::span<const int64_t> plain) const;
  [[nodiscard]] BFVVector add(int64_t scalar) const;
  [[nodiscard]] BFVVector sub(const BFVVector& other) const;
  [[nodiscard]] BFVVector sub(std::span<const int64_t> plain) const;
  [[nodiscard]] BFVVector sub(int64_t scalar) const;
  [[nodiscard]] BFVVector mul(const BFVVector& other) const;
  [[nodiscard]] BFVVector mul(std::span<const int64_t> plain) const;
  [[nodiscard]] BFVVector mul(int64_t scalar) const;
  BFVVector& add_inplace(const BFVVector& other);
  BFVVector& add_inplace(std::span<const int64_t> plain);
  BFVVector& add_inplace(int64_t scalar);
  BFVVector& sub_inplace(const BFVVector& other);
  BFVVector& sub_inplace(std::span<const int64_t> plain);
  BFVVector& sub_inplace(int64_t scalar);
  BFVVector& mul_inplace(const BFVVector& other);
  BFVVector& mul_inplace(std::span<const int64_t> plain);
  BFVVector& mul_inplace(int64_t scalar);
  [[nodiscard]] BFVVector negate() const;
  [[nodiscard]] BFVVector square() const;
  // x^k (x^0: ones), ceil(log2 k) products deep.
  [[nodiscard]] BFVVector pow(unsigned k) const;

  // A vector of one value. Needs the row rotations 1, 2, 4, ... below the
  // length, and the row swap when the values fill more than one row.
  [[nodiscard]] BFVVector sum() const;
  [[nodiscard]] BFVVector dot(const BFVVector& other) const;
  [[nodiscard]] BFVVector dot(std::span<const int64_t> plain) const;
  // Vector (n) x plain matrix (n rows of m): baby-step giant-step by
  // diagonals over row rotations composed from the keys present (and the
  // row swap where values cross rows).
  [[nodiscard]] BFVVector matmul(const std::vector<std::vector<int64_t>>& matrix) const;
  [[nodiscard]] BFVVector mm(const std::vector<std::vector<int64_t>>& matrix) const {
    return matmul(matrix);
  }
  // sum_k coefficients[k] x^k mod t (lowest degree first), every power
  // ceil(log2 k) products deep.
  [[nodiscard]] BFVVector polyval(std::span<const int64_t> coefficients) const;

  // The vectors' values one after another in one vector (TenSEAL's
  // BFVVector.pack_vectors): each masked to its own slots where its padding
  // may hold values, moved right by its offset (row rotations: Galois keys
  // for those steps or steps that compose them) and added. The values must
  // fit one row of N/2 slots, as rotations move values within a row.
  // InvalidArgument for no vector, an empty one, or too many values;
  // MismatchError for vectors of different contexts.
  [[nodiscard]] static BFVVector pack_vectors(std::span<const BFVVector> vectors);

  [[nodiscard]] rlwe::Bytes serialize(const rlwe::SaveOptions& options = {}) const;
  [[nodiscard]] static BFVVector load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                                      const rlwe::LoadOptions& options = {});

 private:
  // decrypt() with this key, or the context's (null).
  [[nodiscard]] std::vector<int64_t> decrypt_with(const rlwe::SecretKey* secret_key) const;
  BFVVector(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> chunks, std::size_t size,
            bool clean_padding);
  void require_valid(const char* operation) const;
  void require_compatible(const BFVVector& other, const char* operation) const;
  // Chunk c of a plain vector, reduced mod t (zeros past its end).
  [[nodiscard]] std::vector<uint64_t> chunk_values(std::span<const int64_t> plain,
                                                   std::size_t c) const;
  [[nodiscard]] uint64_t reduce(int64_t value) const;
  [[nodiscard]] rlwe::Ciphertext product(const rlwe::Ciphertext& a, const rlwe::Ciphertext& b,
                                         const char* operation) const;
  [[nodiscard]] rlwe::Ciphertext power(const rlwe::Ciphertext& x, unsigned k,
                                       const char* operation) const;
  [[nodiscard]] BFVVector with_zero_padding() const;
  [[nodiscard]] BFVVector add_or_sub(const BFVVector& other, bool subtract,
                                     const char* operation) const;
  [[nodiscard]] BFVVector add_or_sub(std::span<const int64_t> plain, bool subtract,
                                     const char* operation) const;

  TensorContext::Ptr context_;
  std::vector<rlwe::Ciphertext> chunks_;
  std::size_t size_ = 0;
  bool clean_padding_ = true;

  friend class BFVVectorOps;
};

}  // namespace heft::tensor
