// Images on CKKSVector, TenSEAL's way: the im2col encoding of one image, so
// that a convolution by one kernel is one plain multiplication and a
// rotation-sum (CKKSVector::conv2d_im2col), and pack_vectors, which joins the
// channels' outputs into one vector for the next layer's matmul.
//
// Layout of an im2col encoding (kernel_rows x kernel_cols = K elements,
// `windows` positions of the kernel, W = windows rounded up to a power of
// two): slot k W + w holds the pixel that kernel element k (row-major) covers
// in window w, windows numbered row-major over the output positions
// (w = out_row * out_cols + out_col). The vector has K W values; longer than
// one ciphertext, it spans several, each holding whole blocks (or each block
// whole ciphertexts: W and the slot count are powers of two). The convolution
// multiplies slot k W + w by kernel[k], adds the ciphertexts, and sums the
// blocks left in one with rotations by W, 2W, 4W, ...: slot w then holds
// output w (a block of several ciphertexts needs no rotation: the output's
// ciphertexts are kernel-weighted sums of the blocks') (the cross-correlation of deep-learning
// frameworks, no padding, output (rows - kernel_rows) / stride + 1 by (cols - kernel_cols) / stride
// + 1).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"

namespace heft::tensor {

// Rows of equal length.
using Matrix = std::vector<std::vector<double>>;

// The plain layout above (K W values) and the number of windows.
struct HEFT_EXPORT Im2colLayout {
  std::vector<double> values;
  std::size_t windows = 0;
};

// InvalidArgument for an empty or ragged image, a non-finite pixel, a kernel
// of no element or larger than the image, a zero stride.
[[nodiscard]] HEFT_EXPORT Im2colLayout im2col_layout(const Matrix& image, std::size_t kernel_rows,
                                                     std::size_t kernel_cols, std::size_t stride);

struct HEFT_EXPORT Im2colEncoding {
  CKKSVector vector;
  std::size_t windows = 0;
};

// TenSEAL's ts.im2col_encoding: the layout above, encrypted (in as many
// ciphertexts as it needs).
[[nodiscard]] HEFT_EXPORT Im2colEncoding im2col_encoding(TensorContext::Ptr context,
                                                         const Matrix& image,
                                                         std::size_t kernel_rows,
                                                         std::size_t kernel_cols,
                                                         std::size_t stride);

// TenSEAL's ts.pack_vectors: one vector holding vectors[0]'s values, then
// vectors[1]'s, and so on (each of one ciphertext, the total fitting one).
// Each vector is rotated to its offset (Galois keys for the steps -offset,
// composed from those present); one whose padding may hold values (the
// output of conv2d_im2col, of sum) is first masked to its own slots, which
// costs it a level. MismatchError for vectors of different contexts,
// InvalidArgument for none, too many values, missing keys or no level left.
[[nodiscard]] HEFT_EXPORT CKKSVector pack_vectors(std::span<const CKKSVector> vectors);

}  // namespace heft::tensor
