// im2col encoding, CKKSVector::conv2d_im2col and pack_vectors (the layout is
// described in heft/tensor/images.hpp).
#include "heft/tensor/images.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"
#include "tensor/weighted_sums.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

// Rows x columns of a rectangular, finite, non-empty matrix; InvalidArgument
// naming `what` otherwise.
std::pair<std::size_t, std::size_t> require_matrix_shape(const Matrix& matrix, const char* what,
                                                         const char* operation) {
  const std::string where = std::string(operation) + ": the " + what;
  if (matrix.empty() || matrix[0].empty()) throw InvalidArgument(where + " is empty");
  for (const auto& row : matrix) {
    if (row.size() != matrix[0].size()) throw InvalidArgument(where + "'s rows differ in length");
    for (const double value : row)
      if (!std::isfinite(value)) throw InvalidArgument(where + " has a value that is not finite");
  }
  return {matrix.size(), matrix[0].size()};
}

}  // namespace

Im2colLayout im2col_layout(const Matrix& image, std::size_t kernel_rows, std::size_t kernel_cols,
                           std::size_t stride) {
  constexpr const char* op = "im2col_encoding";
  const auto [rows, cols] = require_matrix_shape(image, "image", op);
  if (kernel_rows == 0 || kernel_cols == 0 || kernel_rows > rows || kernel_cols > cols)
    throw InvalidArgument(std::string(op) + ": a " + std::to_string(kernel_rows) + "x" +
                          std::to_string(kernel_cols) + " kernel does not fit a " +
                          std::to_string(rows) + "x" + std::to_string(cols) + " image");
  if (stride == 0) throw InvalidArgument(std::string(op) + ": the stride is 0");
  const std::size_t out_rows = (rows - kernel_rows) / stride + 1;
  const std::size_t out_cols = (cols - kernel_cols) / stride + 1;
  const std::size_t windows = out_rows * out_cols, padded = std::bit_ceil(windows);
  Im2colLayout layout;
  layout.windows = windows;
  layout.values.assign(kernel_rows * kernel_cols * padded, 0.0);
  for (std::size_t i = 0; i < kernel_rows; ++i)
    for (std::size_t j = 0; j < kernel_cols; ++j)
      for (std::size_t r = 0; r < out_rows; ++r)
        for (std::size_t c = 0; c < out_cols; ++c)
          layout.values[(i * kernel_cols + j) * padded + r * out_cols + c] =
              image[r * stride + i][c * stride + j];
  return layout;
}

Im2colEncoding im2col_encoding(TensorContext::Ptr context, const Matrix& image,
                               std::size_t kernel_rows, std::size_t kernel_cols,
                               std::size_t stride) {
  constexpr const char* op = "im2col_encoding";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  auto layout = im2col_layout(image, kernel_rows, kernel_cols, stride);
  // Longer than one ciphertext's slots, it spans several: W and the slot
  // count are powers of two, so every ciphertext holds whole blocks or every
  // block whole ciphertexts (conv2d_im2col relies on it).
  return {CKKSVector::encrypt(std::move(context), layout.values), layout.windows};
}

CKKSVector CKKSVector::conv2d_im2col(const std::vector<std::vector<double>>& kernel,
                                     std::size_t windows) const {
  constexpr const char* op = "CKKSVector::conv2d_im2col";
  require_valid(op);
  const auto [kernel_rows, kernel_cols] = require_matrix_shape(kernel, "kernel", op);
  if (windows == 0) throw InvalidArgument(std::string(op) + ": no window");
  const std::size_t elements = kernel_rows * kernel_cols, padded = std::bit_ceil(windows);
  if (size_ != elements * padded)
    throw MismatchError(std::string(op) + ": the vector holds " + std::to_string(size_) +
                        " values, an im2col encoding for a " + std::to_string(kernel_rows) + "x" +
                        std::to_string(kernel_cols) + " kernel over " + std::to_string(windows) +
                        " windows holds " + std::to_string(elements * padded) +
                        " (im2col_encoding with the kernel's shape)");
  if (auto refreshed = refreshed_if_short(1)) return refreshed->conv2d_im2col(kernel, windows);
  detail::require_levels(1, level(), op);
  const std::size_t slots = context_->slot_count();
  // A copy: clang before 16 cannot capture a structured binding.
  const std::size_t columns = kernel_cols;
  const auto weight = [&](std::size_t k) { return kernel[k / columns][k % columns]; };
  if (padded >= slots) {
    // Each block of W slots spans W / slots whole ciphertexts: output
    // ciphertext c is the kernel-weighted sum of ciphertext c of every block,
    // constant products and no rotation.
    const std::size_t per_block = padded / slots, outputs = detail::chunk_count(windows, slots);
    std::vector<std::vector<detail::WeightedTerm>> sums(outputs);
    for (std::size_t c = 0; c < outputs; ++c)
      for (std::size_t k = 0; k < elements; ++k)
        sums[c].push_back({k * per_block + c, weight(k)});
    return {context_, detail::weighted_sums(*context_, chunks_, sums, op), windows, false};
  }
  // Each ciphertext holds slots / W whole blocks. Every ciphertext times its
  // blocks' kernel elements, the products added, then the blocks summed by
  // doubling: W, 2W, ... below min(slots, W bit_ceil(K)), which never wraps
  // into the block it started from.
  std::vector<int64_t> steps;
  for (std::size_t step = padded; step < std::min(slots, padded * std::bit_ceil(elements));
       step *= 2)
    steps.push_back(static_cast<int64_t>(step));
  context_->require_rotations(steps, false, op);
  auto products = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    std::vector<double> replicated(slots, 0.0);
    for (std::size_t slot = 0; slot < slots && c * slots + slot < size_; ++slot)
      replicated[slot] = weight((c * slots + slot) / padded);
    return CKKSVectorOps::plain_product(*context_, chunks_[c], replicated);
  });
  const auto& evaluator = context_->ckks_evaluator();
  Ciphertext sum = std::move(products[0]);
  for (std::size_t c = 1; c < products.size(); ++c)
    evaluator.add_inplace(sum, products[c]);
  const rlwe::GaloisKeys* keys = steps.empty() ? nullptr : &context_->galois_keys(op);
  for (const int64_t step : steps)
    evaluator.add_inplace(sum, evaluator.rotate(sum, step, *keys));
  std::vector<Ciphertext> chunks;
  chunks.push_back(std::move(sum));
  // Slots past the windows hold partial sums.
  return {context_, std::move(chunks), windows, false};
}

CKKSVector pack_vectors(std::span<const CKKSVector> vectors) {
  constexpr const char* op = "pack_vectors";
  if (vectors.empty()) throw InvalidArgument(std::string(op) + ": no vector");
  const TensorContext::Ptr& context = vectors[0].context();
  if (!context) throw InvalidArgument(std::string(op) + ": an empty CKKSVector");
  const std::size_t slots = context->slot_count();
  std::vector<std::size_t> offsets;
  std::vector<int64_t> steps;
  std::size_t total = 0;
  for (const auto& v : vectors) {
    if (v.ciphertexts().empty())
      throw InvalidArgument(std::string(op) + ": an empty CKKSVector (encrypt one first)");
    detail::require_same_context(context, v.context(), op);
    offsets.push_back(total);
    if (total) steps.push_back(-static_cast<int64_t>(total));
    total += v.size();
    if (!v.padding_is_zero()) detail::require_levels(1, v.level(), op);
  }
  if (total > slots)
    throw InvalidArgument(std::string(op) + ": " + std::to_string(total) +
                          " values do not fit one ciphertext of " + std::to_string(slots) +
                          " slots");
  context->require_rotations(steps, false, op);
  const auto& evaluator = context->ckks_evaluator();
  const rlwe::GaloisKeys* keys = steps.empty() ? nullptr : &context->galois_keys(op);
  // Each vector masked (when needed) and moved to its offset, in parallel.
  auto placed = detail::map_chunks(vectors.size(), [&](std::size_t i) {
    CKKSVector clean = CKKSVectorOps::with_zero_padding(vectors[i], op);
    Ciphertext ct = std::move(CKKSVectorOps::chunks(clean)[0]);
    if (offsets[i]) ct = evaluator.rotate(ct, -static_cast<int64_t>(offsets[i]), *keys);
    return ct;
  });
  Ciphertext sum = std::move(placed[0]);
  for (std::size_t i = 1; i < placed.size(); ++i) {
    CKKSVectorOps::align_levels(*context, sum, placed[i]);
    evaluator.add_inplace(sum, placed[i]);
  }
  std::vector<Ciphertext> chunks;
  chunks.push_back(std::move(sum));
  return CKKSVectorOps::make(context, std::move(chunks), total, true);
}

}  // namespace heft::tensor
