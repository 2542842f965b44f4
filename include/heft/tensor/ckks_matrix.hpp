// CKKSMatrix: an encrypted rows x cols matrix of reals, for products where
// both operands are encrypted (encrypted x encrypted matrix, encrypted
// vector x encrypted matrix), which TenSEAL's users asked for and TenSEAL
// only offers element by element.
//
// Layout: the matrix is cut into b x b blocks (b a power of two, b^2 at most
// the slot count), each block one ciphertext holding it row-major (entry
// (i, j) in slot i b + j) and repeated over the slots every b^2, so that a
// rotation of the ciphertext rotates every copy cyclically mod b^2: the
// shifts the product below needs. Entries past the matrix's edge are zero.
//
// matmul is Jiang, Kim, Lauter and Song's product (CCS 2018, "E2DM"): for
// square blocks A and B,
//   A B = sum_(k < b) phi^k(sigma(A)) (.) psi^k(tau(B)),
// sigma(A)[i][j] = A[i][i + j], tau(B)[i][j] = B[i + j][j] (linear
// transforms of 2b - 1 and b diagonals, baby-step giant-step with hoisted
// rotations), phi^k a shift of the columns by k (two rotations and two
// masks) and psi^k a shift of the rows by k (one rotation by k b). The b
// products of each output block (and of every inner block) are summed and
// relinearized and rescaled once. Three levels.
//
// Rotations are composed from the Galois keys present (the default powers
// of two suffice); galois_steps(b) lists the steps that make each rotation
// one key switch, for generate_galois_keys(steps).
//
// Errors: MismatchError for inner sizes, block sizes or contexts that
// differ; InvalidArgument for a BFV context, an empty, ragged or non-finite
// matrix, a block size that is not a power of two or does not fit, missing
// keys or too few levels. A failed call leaves its operands unchanged.
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

class HEFT_EXPORT CKKSMatrix {
 public:
  using Rows = std::vector<std::vector<double>>;

  CKKSMatrix() = default;
  CKKSMatrix(CKKSMatrix&&) noexcept = default;
  CKKSMatrix& operator=(CKKSMatrix&&) noexcept = default;
  CKKSMatrix(const CKKSMatrix&) = delete;
  CKKSMatrix& operator=(const CKKSMatrix&) = delete;
  [[nodiscard]] CKKSMatrix copy() const;

  // The matrix in blocks of `block` (0: default_block_size). Encrypted at
  // the context's encryption level and global scale.
  [[nodiscard]] static CKKSMatrix encrypt(TensorContext::Ptr context, const Rows& matrix,
                                          std::size_t block = 0);
  // The smallest power of two at least max(rows, cols), capped at the
  // largest b with b^2 <= slots: one block when the matrix fits.
  [[nodiscard]] static std::size_t default_block_size(const TensorContext& context,
                                                      std::size_t rows, std::size_t cols);
  // The steps of every rotation matmul and CKKSVector::matmul(CKKSMatrix)
  // make on blocks of b (each then one key switch).
  [[nodiscard]] static std::vector<int64_t> galois_steps(const TensorContext& context,
                                                         std::size_t block);

  // Needs the secret key (InvalidArgument on a public context).
  [[nodiscard]] Rows decrypt() const;

  [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] std::size_t block_size() const noexcept { return block_; }
  [[nodiscard]] std::size_t block_rows() const noexcept { return (rows_ + block_ - 1) / block_; }
  [[nodiscard]] std::size_t block_cols() const noexcept { return (cols_ + block_ - 1) / block_; }
  // Block (r, c) is ciphertexts()[r * block_cols() + c].
  [[nodiscard]] const std::vector<rlwe::Ciphertext>& ciphertexts() const noexcept {
    return blocks_;
  }
  [[nodiscard]] const TensorContext::Ptr& context() const noexcept { return context_; }
  // Levels left (the lowest of its blocks').
  [[nodiscard]] std::size_t level() const;

  // This (n x k) times other (k x m): n x m, three levels. Both in blocks
  // of one size; needs the relinearization key.
  [[nodiscard]] CKKSMatrix matmul(const CKKSMatrix& other) const;
  [[nodiscard]] CKKSMatrix add(const CKKSMatrix& other) const;
  [[nodiscard]] CKKSMatrix sub(const CKKSMatrix& other) const;

  // ---- serialization (docs/format.md, "Tensor objects") ----
  [[nodiscard]] rlwe::Bytes serialize(const rlwe::SaveOptions& options = {}) const;
  // FormatError for malformed bytes (a block size or shape that does not fit
  // the context or the bytes, ciphertexts at different levels or not of 2
  // parts), and what rlwe's loaders throw.
  [[nodiscard]] static CKKSMatrix load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options = {});

 private:
  friend class CKKSMatrixOps;
  CKKSMatrix(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> blocks, std::size_t rows,
             std::size_t cols, std::size_t block);
  void require_valid(const char* operation) const;
  [[nodiscard]] CKKSMatrix add_or_sub(const CKKSMatrix& other, bool subtract,
                                      const char* operation) const;

  TensorContext::Ptr context_;
  std::vector<rlwe::Ciphertext> blocks_;
  std::size_t rows_ = 0, cols_ = 0, block_ = 1;
};

}  // namespace heft::tensor
