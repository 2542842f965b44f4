// CKKSTensor: an encrypted N-D tensor of reals, batched on its first axis
// as TenSEAL's CKKSTensor(batch=True): axis 0 (the batch, at most N/2
// values) runs along the slots, and each element of the other axes is one
// ciphertext (row-major), so that one evaluation serves every batch entry.
// A 1-D tensor is one ciphertext of its values.
//
// Element-wise operations take a tensor (the same batch; the other axes
// broadcast by numpy's rules), a PlainTensor (broadcast to this tensor's
// shape, batch axis included) or a scalar. Products take a level, as in
// CKKSVector; polyval its polynomial's depth. sum(0) adds the batch
// (rotations by 1, 2, 4, ... below it), sum(axis > 0) adds ciphertexts;
// reshape and transpose act on the axes after the batch and move only
// ciphertexts. mm multiplies a [batch, n] tensor by a plain n x m matrix and
// conv2d convolves a batch of images with plain kernels (constant products
// summed per output, one level): with one image per slot, a network of
// such layers and polynomial activations classifies N/2 images per
// evaluation (CryptoNets' throughput mode).
//
// Errors are typed as CKKSVector's (MismatchError for shapes that do not
// broadcast or differ, contexts that differ; InvalidArgument for missing
// keys, no level left, bad axes); a failed call leaves its operands as
// they were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "heft/circuits/approximation.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/tensor/context.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::tensor {

class HEFT_EXPORT CKKSTensor {
 public:
  CKKSTensor() = default;
  CKKSTensor(CKKSTensor&&) noexcept = default;
  CKKSTensor& operator=(CKKSTensor&&) noexcept = default;
  CKKSTensor(const CKKSTensor&) = delete;
  CKKSTensor& operator=(const CKKSTensor&) = delete;
  [[nodiscard]] CKKSTensor copy() const;

  // InvalidArgument for a BFV context, a batch longer than N/2, a value
  // that is not finite.
  [[nodiscard]] static CKKSTensor encrypt(TensorContext::Ptr context, const PlainTensor& plain);
  [[nodiscard]] PlainTensor decrypt() const;
  // With a secret key kept aside (TenSEAL's decrypt(secret_key)).
  [[nodiscard]] PlainTensor decrypt(const rlwe::SecretKey& secret_key) const;

  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::size_t batch_size() const noexcept { return shape_.empty() ? 0 : shape_[0]; }
  [[nodiscard]] const std::vector<rlwe::Ciphertext>& ciphertexts() const noexcept {
    return elements_;
  }
  [[nodiscard]] const TensorContext::Ptr& context() const noexcept { return context_; }
  [[nodiscard]] std::size_t level() const;

  [[nodiscard]] CKKSTensor add(const CKKSTensor& other) const;
  [[nodiscard]] CKKSTensor sub(const CKKSTensor& other) const;
  [[nodiscard]] CKKSTensor mul(const CKKSTensor& other) const;
  [[nodiscard]] CKKSTensor add(const PlainTensor& plain) const;
  [[nodiscard]] CKKSTensor sub(const PlainTensor& plain) const;
  [[nodiscard]] CKKSTensor mul(const PlainTensor& plain) const;
  [[nodiscard]] CKKSTensor add(double scalar) const;
  [[nodiscard]] CKKSTensor sub(double scalar) const;
  [[nodiscard]] CKKSTensor mul(double scalar) const;
  [[nodiscard]] CKKSTensor negate() const;
  [[nodiscard]] CKKSTensor square() const;
  // sum_k coefficients[k] x^k, lowest degree first.
  [[nodiscard]] CKKSTensor polyval(std::span<const double> coefficients) const;

  [[nodiscard]] CKKSTensor sum(std::size_t axis) const;
  // A shape whose first axis is the batch (MismatchError otherwise).
  [[nodiscard]] CKKSTensor reshape(const Shape& shape) const;
  // numpy's broadcast_to over the axes after the batch: `shape` keeps the
  // batch first, and each element is a copy of the ciphertext it repeats
  // (no work on them). MismatchError when it does not broadcast.
  [[nodiscard]] CKKSTensor broadcast_to(const Shape& shape) const;
  // The axes after the batch reversed (a batch of matrices transposed).
  [[nodiscard]] CKKSTensor transpose() const;
  // [batch, n] x plain [n, m] -> [batch, m].
  [[nodiscard]] CKKSTensor mm(const PlainTensor& matrix) const;
  // Encrypted by encrypted: [batch, n, k] x [batch, k, m] -> [batch, n, m]
  // (or [batch, k] x [batch, k, m] -> [batch, m]), one matrix product per
  // batch entry; with a batch of 1, TenSEAL's ckks_tensor mm of two
  // encrypted matrices. Each output sums k ciphertext products and, with
  // auto_relin and auto_rescale, relinearizes and rescales once (not k
  // times). One level. MismatchError for shapes or batches that differ,
  // InvalidArgument without a relinearization key or a level.
  [[nodiscard]] CKKSTensor mm(const CKKSTensor& other) const;
  // A 2-D convolution (cross-correlation, as PyTorch's Conv2d) of a batch of
  // images, one image per slot, without im2col: this tensor [batch, H, W]
  // (one input channel) or [batch, C_in, H, W]; kernels [C_out, kh, kw] (one
  // input channel) or [C_out, C_in, kh, kw]; `stride` both ways, no padding.
  // The result is [batch, C_out, (H - kh) / stride + 1, (W - kw) / stride + 1],
  // one level down; no rotation, no key. Several channels and several
  // layers chain (add a bias with add(PlainTensor) of shape [C_out, 1, 1]).
  // MismatchError for shapes that do not fit, InvalidArgument for a stride
  // of 0, a kernel value that is not finite or no level left.
  [[nodiscard]] CKKSTensor conv2d(const PlainTensor& kernels, std::size_t stride = 1) const;
  // Average pooling over `kernel` x `kernel` windows, `stride` apart, of
  // each channel of a [batch, H, W] or [batch, C, H, W] tensor (a
  // depthwise convolution by 1 / kernel^2): one level; errors as conv2d.
  [[nodiscard]] CKKSTensor avg_pool2d(std::size_t kernel, std::size_t stride) const;

  // ---- rotations of the batch, element selection, bootstrapping ----
  // Every ciphertext's slots rotated left by `steps` (negative: right):
  // batch entry b of the result is entry (b + steps) mod batch of this one
  // (numpy's roll(x, -steps, axis=0)). The batch must fill the slots (N/2
  // entries), so that the rotation is the ciphertexts' own: how values
  // packed in blocks of the batch (several images, one per block) reach
  // their neighbours. No level. InvalidArgument for a batch short of the
  // slots or a missing Galois key (naming the step).
  [[nodiscard]] CKKSTensor rotate(int64_t steps) const;
  // Several rotations of every ciphertext sharing one key-switching
  // decomposition each (hoisted): [batch, inner...] -> [batch, S, inner...]
  // with S = steps.size(), element (s, e) the element e rotated by steps[s]
  // (0 is a copy). Errors as rotate; InvalidArgument for no steps.
  [[nodiscard]] CKKSTensor rotate_hoisted(std::span<const int64_t> steps) const;
  // numpy's take(indices, axis) along an axis after the batch (axis >= 1):
  // the chosen elements' ciphertexts, copied, the axis kept with
  // indices.size() entries. What subscripts (x[:, i], x[:, 2:5]) are made
  // of. InvalidArgument for the batch axis, an axis past the rank, no
  // indices or an index out of range.
  [[nodiscard]] CKKSTensor take(std::size_t axis, std::span<const std::size_t> indices) const;
  // Every ciphertext refreshed by bootstrapping (TensorContext::bootstrap),
  // as CKKSVector::bootstrap: values within the bootstrap's precision, at
  // the context's encryption level; values must lie in about [-1, 1].
  // InvalidArgument on a context that cannot bootstrap or lacks the keys.
  [[nodiscard]] CKKSTensor bootstrap() const;
  // A copy when `levels` are left, else bootstrap(); InvalidArgument when
  // bootstrapping cannot give back that many.
  [[nodiscard]] CKKSTensor refresh_for(std::size_t levels) const;

  // ---- comparisons (values in [-1, 1]) ----
  // max(x, 0) element-wise through a sign approximation
  // (circuits::sign_approximation): exact to its precision where |x| is at
  // least its epsilon, within epsilon elsewhere. Depth sign.depth() + 1.
  [[nodiscard]] CKKSTensor relu(const circuits::CompositePolynomial& sign) const;
  // max(this, other) element-wise (same shape), as other + relu(this -
  // other): the difference must stay in [-1, 1]. Depth sign.depth() + 1.
  [[nodiscard]] CKKSTensor max(const CKKSTensor& other,
                               const circuits::CompositePolynomial& sign) const;

  // ---- serialization (docs/format.md, "Tensor objects") ----
  [[nodiscard]] rlwe::Bytes serialize(const rlwe::SaveOptions& options = {}) const;
  // FormatError for malformed bytes (a shape that does not fit the context
  // or the bytes, ciphertexts at different levels or not of 2 parts), and
  // what rlwe's loaders throw.
  [[nodiscard]] static CKKSTensor load(TensorContext::Ptr context, std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options = {});

 private:
  // As CKKSVector's: bootstrapped first when auto_bootstrap is on and fewer
  // than `levels` are left.
  [[nodiscard]] std::optional<CKKSTensor> refreshed_if_short(std::size_t levels) const;
  CKKSTensor(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> elements, Shape shape,
             bool clean_padding);
  void require_valid(const char* operation) const;
  // decrypt() with this key, or the context's (null).
  [[nodiscard]] PlainTensor decrypt_with(const rlwe::SecretKey* secret_key) const;
  // The shape after the batch ({1} for a 1-D tensor).
  [[nodiscard]] Shape inner_shape() const;
  [[nodiscard]] CKKSTensor combine(const CKKSTensor& other, int kind, const char* operation) const;
  [[nodiscard]] CKKSTensor combine(const PlainTensor& plain, int kind, const char* operation) const;

  TensorContext::Ptr context_;
  std::vector<rlwe::Ciphertext> elements_;
  Shape shape_;
  bool clean_padding_ = true;  // slots past the batch hold zeros
};

}  // namespace heft::tensor
