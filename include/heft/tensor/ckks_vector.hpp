// CKKSVector: an encrypted vector of real numbers of any length (TenSEAL's
// CKKSVector). Values are packed N/2 to a ciphertext; a longer vector spans
// several ciphertexts, and every operation runs over them (in parallel,
// heft::parallel_for) as if they were one.
//
// Slots past the vector's size hold zeros after encryption, and the
// operations keep them so where they can (products with anything that has
// them, sums of two that have them, plain operands and scalars written only
// into the vector's own slots). sum() and dot() rely on it; when an operand's
// padding may hold other values (the result of sum(), a polynomial's constant
// added to every slot), they first multiply by a 0/1 mask, which costs a
// level (level() tells what is left).
//
// A 1-sized vector combines with an n-sized one (add, sub, mul) as TenSEAL
// does: its value is replicated into n slots first (log2 n rotations with the
// Galois keys of steps -1, -2, -4, ...).
//
// Levels: each product (by a vector, a plain vector or a non-integer
// scalar) takes one level; pow(k) and polyval take ceil(log2(k + 1)) or the
// polynomial's depth; matmul one. An operation with too few levels left is
// refused before any work with InvalidArgument saying how many it needs.
// Errors are typed (heft/util/error.hpp): MismatchError for sizes that
// differ or operands of different contexts, InvalidArgument for missing keys
// (naming the rotation steps), a public context's decrypt(), or no level
// left. A failed call leaves its operands unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "heft/circuits/linear_transform.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/tensor/context.hpp"

namespace heft::tensor {

class CKKSMatrix;

class HEFT_EXPORT CKKSVector {
 public:
  CKKSVector() = default;
  // Ciphertexts are explicit to copy (copy()); vectors move.
  CKKSVector(CKKSVector&&) noexcept = default;
  CKKSVector& operator=(CKKSVector&&) noexcept = default;
  CKKSVector(const CKKSVector&) = delete;
  CKKSVector& operator=(const CKKSVector&) = delete;
  [[nodiscard]] CKKSVector copy() const;

  // Encrypts `values` (at least one) with the context's public key at its
  // global scale (or `scale`). InvalidArgument for an empty vector, a BFV
  // context, a NaN or infinite value.
  [[nodiscard]] static CKKSVector encrypt(TensorContext::Ptr context,
                                          std::span<const double> values, double scale = 0);
  // The values (size() of them). Needs the secret key: InvalidArgument on a
  // public context.
  [[nodiscard]] std::vector<double> decrypt() const;
  // With a secret key kept aside (TenSEAL's decrypt(secret_key): the client
  // saves context.secret_key(), makes the context public and still decrypts);
  // MismatchError for a key of other parameters.
  [[nodiscard]] std::vector<double> decrypt(const rlwe::SecretKey& secret_key) const;
  // The estimation run of noise flooding (TensorContext::set_noise_flooding):
  // log2 of the largest noise coefficient over the vector's ciphertexts, the
  // vector being the result of a circuit on sample inputs whose exact result
  // is `expected` (size() values; padding slots must hold zeros). Needs the
  // secret key; MismatchError for another count of values, InvalidArgument
  // when the padding may hold values or the vector is not near `expected`.
  [[nodiscard]] double measure_noise_bits(std::span<const double> expected) const;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const TensorContext::Ptr& context() const noexcept { return context_; }
  [[nodiscard]] const std::vector<rlwe::Ciphertext>& ciphertexts() const noexcept {
    return chunks_;
  }
  // Levels left for products (the effective level of its ciphertexts).
  [[nodiscard]] std::size_t level() const;
  [[nodiscard]] double scale() const;
  // Whether the slots past size() are known to hold zeros (see above).
  [[nodiscard]] bool padding_is_zero() const noexcept { return clean_padding_; }

  // ---- element-wise ----
  [[nodiscard]] CKKSVector add(const CKKSVector& other) const;
  [[nodiscard]] CKKSVector add(std::span<const double> plain) const;
  [[nodiscard]] CKKSVector add(double scalar) const;
  [[nodiscard]] CKKSVector sub(const CKKSVector& other) const;
  [[nodiscard]] CKKSVector sub(std::span<const double> plain) const;
  [[nodiscard]] CKKSVector sub(double scalar) const;
  [[nodiscard]] CKKSVector mul(const CKKSVector& other) const;
  [[nodiscard]] CKKSVector mul(std::span<const double> plain) const;
  [[nodiscard]] CKKSVector mul(double scalar) const;
  CKKSVector& add_inplace(const CKKSVector& other);
  CKKSVector& add_inplace(std::span<const double> plain);
  CKKSVector& add_inplace(double scalar);
  CKKSVector& sub_inplace(const CKKSVector& other);
  CKKSVector& sub_inplace(std::span<const double> plain);
  CKKSVector& sub_inplace(double scalar);
  CKKSVector& mul_inplace(const CKKSVector& other);
  CKKSVector& mul_inplace(std::span<const double> plain);
  CKKSVector& mul_inplace(double scalar);
  [[nodiscard]] CKKSVector negate() const;
  [[nodiscard]] CKKSVector square() const;
  // x^k, k >= 0 (x^0: ones), in ceil(log2(k)) levels.
  [[nodiscard]] CKKSVector pow(unsigned k) const;

  // ---- reductions and products ----
  // A vector of one value: the sum of all values. Needs the rotations by
  // 1, 2, 4, ... below the vector's length (composed from the keys present).
  [[nodiscard]] CKKSVector sum() const;
  [[nodiscard]] CKKSVector dot(const CKKSVector& other) const;
  [[nodiscard]] CKKSVector dot(std::span<const double> plain) const;
  // Vector (size n) times a plain matrix (n rows of m values): m values,
  // TenSEAL's matmul / mm. One level. A vector and result of one ciphertext
  // each use circuits::LinearTransform when the context has its Galois keys
  // exactly (matmul_galois_steps); otherwise, and across ciphertexts,
  // baby-step giant-step over rotations composed from the keys present.
  [[nodiscard]] CKKSVector matmul(const std::vector<std::vector<double>>& matrix) const;
  [[nodiscard]] CKKSVector mm(const std::vector<std::vector<double>>& matrix) const {
    return matmul(matrix);
  }
  // Vector (size n) times an encrypted n x m matrix: m values. Two levels
  // (three when the matrix spans several column blocks, whose results are
  // masked into place); rotations as CKKSMatrix::galois_steps. With one
  // column block the result's padding is not zero (see pack_vectors).
  // MismatchError for sizes or contexts that differ, InvalidArgument for
  // missing keys or levels (ckks_matrix_products.cpp).
  [[nodiscard]] CKKSVector matmul(const CKKSMatrix& matrix) const;
  [[nodiscard]] CKKSVector mm(const CKKSMatrix& matrix) const { return matmul(matrix); }
  // The Galois steps matmul's fastest path uses for an n x m matrix on this
  // vector's context and level (generate_galois_keys(steps) to enable it).
  [[nodiscard]] std::vector<int64_t> matmul_galois_steps(std::size_t rows,
                                                         std::size_t columns) const;
  // TenSEAL's conv2d_im2col: this vector must be an im2col encoding
  // (heft/tensor/images.hpp) for a kernel of this shape over `windows`
  // windows; the result holds the convolution, one value per window. One
  // plain multiplication (a level) and at most log2(kernel elements)
  // rotations by multiples of the padded window count (powers of two: the
  // default Galois keys); an encoding of several ciphertexts adds them first
  // (or, with blocks of whole ciphertexts, needs no rotation). MismatchError when the sizes do not
  // fit, InvalidArgument for an empty, ragged or non-finite kernel, missing keys, no level left.
  // The result's padding is not zero (see pack_vectors).
  [[nodiscard]] CKKSVector conv2d_im2col(const std::vector<std::vector<double>>& kernel,
                                         std::size_t windows) const;
  // sum_k coefficients[k] x^k (TenSEAL's polyval: lowest degree first),
  // through circuits::PolynomialEvaluator in ceil(log2(degree + 1)) levels.
  [[nodiscard]] CKKSVector polyval(std::span<const double> coefficients) const;

  // ---- rotations and slices (the values stay encrypted) ----
  // The vector's own values rotated left by `steps` (negative: right),
  // cyclically over size(): value i of the result is value (i + steps) mod
  // size(). Each output ciphertext sums rotations of the input ciphertexts
  // by whole slot steps (Galois keys for them or for steps that compose
  // them: generate_galois_keys() has every power of two), each masked to the
  // output slots it fills: one level, except for a vector that fills its
  // ciphertexts exactly, where a rotation inside each ciphertext needs no
  // mask and no level. InvalidArgument naming the missing steps, or when a
  // mask is needed and no level is left.
  [[nodiscard]] CKKSVector rotate(int64_t steps) const;
  // Values [begin, end) as a new vector (Python's v[begin:end]): rotations
  // and masks as rotate(), one level unless nothing moves within whole
  // ciphertexts. InvalidArgument for an empty or out-of-range slice.
  [[nodiscard]] CKKSVector slice(std::size_t begin, std::size_t end) const;
  // The first `size` values as a vector of that size, with no work and no
  // level: the slots past them keep what they held, so its padding is no
  // longer known to be zero (sum() and dot() mask it first). What a result
  // that is already in place needs (TenSEAL's enc_matmul_plain).
  // InvalidArgument for 0 or more than size().
  [[nodiscard]] CKKSVector truncated(std::size_t size) const;

  // ---- serialization ----
  // ---- bootstrapping and general linear transforms ----
  // Each ciphertext refreshed by bootstrapping (TensorContext::bootstrap):
  // the same values within the bootstrap's precision, at the context's
  // encryption level. Values should be at most about 1 in absolute value
  // (bootstrapping's range; scale them down before). InvalidArgument on a
  // context that cannot bootstrap or lacks the keys.
  [[nodiscard]] CKKSVector bootstrap() const;
  // The same only when fewer than `levels` levels are left: what an
  // operation needing `levels` calls first (levels <= the encryption level).
  [[nodiscard]] CKKSVector refresh_for(std::size_t levels) const;
  // M x for a linear transform built for this context's full slot vector
  // (circuits::LinearTransform at this vector's level or above): one level,
  // baby steps hoisted, the Galois keys of m.rotation_steps() needed. For a
  // vector of one ciphertext; the result keeps this vector's size, its
  // padding slots (if any) whatever M puts there.
  [[nodiscard]] CKKSVector linear_transform(const circuits::LinearTransform& m) const;

  [[nodiscard]] rlwe::Bytes serialize(const rlwe::SaveOptions& options = {}) const;
  // FormatError / MismatchError as rlwe's loaders, and for a vector whose
  // ciphertexts do not fit its size or the context.
  [[nodiscard]] static CKKSVector load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options = {});

 private:
  // With the context's auto_bootstrap on and fewer than `levels` left that
  // bootstrapping gives back: this vector bootstrapped. Otherwise nothing
  // (the operation checks its levels as usual).
  [[nodiscard]] std::optional<CKKSVector> refreshed_if_short(std::size_t levels) const;
  CKKSVector(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> chunks, std::size_t size,
             bool clean_padding);
  void require_valid(const char* operation) const;
  // decrypt() with this key, or the context's (null).
  [[nodiscard]] std::vector<double> decrypt_with(const rlwe::SecretKey* secret_key) const;
  [[nodiscard]] std::vector<rlwe::Ciphertext> chunks_copy() const;
  // out_size values, value p being value (p + offset) mod size() of this
  // vector (ckks_vector_rotation.cpp); errors name `operation`.
  [[nodiscard]] CKKSVector gather(std::size_t out_size, std::size_t offset,
                                  const char* operation) const;
  void require_compatible(const CKKSVector& other, const char* operation) const;
  // The values of chunk c of a plain vector (zeros past its end).
  [[nodiscard]] std::vector<double> chunk_values(std::span<const double> plain,
                                                 std::size_t c) const;
  // A copy whose last ciphertext is masked to its own slots when its
  // padding is not zero (one level), every ciphertext at one level.
  [[nodiscard]] CKKSVector with_zero_padding(const char* operation) const;
  // A vector of `size` copies of this 1-sized vector's value (rotations and
  // sums; the Galois keys for steps -1, -2, -4, ...), for TenSEAL's
  // operations between an n-sized and a 1-sized vector.
  [[nodiscard]] CKKSVector replicated(std::size_t size, const char* operation) const;
  [[nodiscard]] CKKSVector add_or_sub(const CKKSVector& other, bool subtract,
                                      const char* operation) const;
  [[nodiscard]] CKKSVector add_or_sub(std::span<const double> plain, bool subtract,
                                      const char* operation) const;
  // Sums the first slots of `ct` into slot 0 (rotations 1, 2, 4, ... below
  // `length`; the caller has checked the keys).
  [[nodiscard]] rlwe::Ciphertext sum_slots(rlwe::Ciphertext ct, std::size_t length,
                                           const char* operation) const;

  TensorContext::Ptr context_;
  std::vector<rlwe::Ciphertext> chunks_;
  std::size_t size_ = 0;
  bool clean_padding_ = true;

  friend class CKKSVectorOps;
};

}  // namespace heft::tensor
