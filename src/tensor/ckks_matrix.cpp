// CKKSMatrix's layout: encryption into replicated b x b blocks, decryption,
// block sizes, and the element-wise add / sub. The products are in
// ckks_matrix_products.cpp.
#include "heft/tensor/ckks_matrix.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_decryption.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

namespace {

// The largest power of two b with b^2 <= slots.
std::size_t largest_block(std::size_t slots) {
  std::size_t b = 1;
  while (4 * b * b <= slots)
    b *= 2;
  return b;
}

// Rows x cols of a non-empty rectangular matrix of finite values.
std::pair<std::size_t, std::size_t> require_matrix(const CKKSMatrix::Rows& matrix,
                                                   const char* operation) {
  if (matrix.empty() || matrix[0].empty())
    throw InvalidArgument(std::string(operation) + ": an empty matrix");
  const std::size_t cols = matrix[0].size();
  for (const auto& row : matrix) {
    if (row.size() != cols)
      throw InvalidArgument(std::string(operation) + ": the matrix rows differ in length");
    for (const double value : row)
      if (!std::isfinite(value))
        throw InvalidArgument(std::string(operation) + ": a matrix entry is not finite");
  }
  return {matrix.size(), cols};
}

}  // namespace

CKKSMatrix::CKKSMatrix(TensorContext::Ptr context, std::vector<rlwe::Ciphertext> blocks,
                       std::size_t rows, std::size_t cols, std::size_t block)
    : context_(std::move(context)),
      blocks_(std::move(blocks)),
      rows_(rows),
      cols_(cols),
      block_(block) {}

std::size_t CKKSMatrix::default_block_size(const TensorContext& context, std::size_t rows,
                                           std::size_t cols) {
  return std::min(largest_block(context.slot_count()), std::bit_ceil(std::max(rows, cols)));
}

CKKSMatrix CKKSMatrix::encrypt(TensorContext::Ptr context, const Rows& matrix, std::size_t block) {
  constexpr const char* op = "CKKSMatrix::encrypt";
  if (!context) throw InvalidArgument(std::string(op) + ": no context");
  if (context->scheme() != Scheme::ckks)
    throw InvalidArgument(std::string(op) + ": needs a CKKS context");
  // Named copies: lambdas cannot capture a structured binding under clang 14.
  const auto shape = require_matrix(matrix, op);
  const std::size_t rows = shape.first, cols = shape.second;
  const std::size_t slots = context->slot_count();
  if (block == 0) block = default_block_size(*context, rows, cols);
  if (!std::has_single_bit(block) || block > largest_block(slots))
    throw InvalidArgument(std::string(op) + ": a block size of " + std::to_string(block) +
                          " is not a power of two whose square fits the " + std::to_string(slots) +
                          " slots");
  const auto& encoder = context->ckks_encoder();
  const auto& encryptor = context->ckks_encryptor(op);
  const std::size_t block_cols = (cols + block - 1) / block;
  const std::size_t count = (rows + block - 1) / block * block_cols;
  const std::size_t area = block * block;
  auto blocks = detail::map_chunks(count, [&](std::size_t index) {
    const std::size_t row0 = index / block_cols * block, col0 = index % block_cols * block;
    std::vector<double> values(slots);
    for (std::size_t s = 0; s < slots; ++s) {  // every b^2 slots a copy of the block
      const std::size_t row = row0 + s % area / block, col = col0 + s % block;
      values[s] = row < rows && col < cols ? matrix[row][col] : 0.0;
    }
    return encryptor.encrypt(
        encoder.encode(values, context->global_scale(), context->encryption_level()));
  });
  return {std::move(context), std::move(blocks), rows, cols, block};
}

CKKSMatrix CKKSMatrix::copy() const {
  std::vector<rlwe::Ciphertext> blocks;
  blocks.reserve(blocks_.size());
  for (const auto& ct : blocks_)
    blocks.push_back(ct.clone());
  return {context_, std::move(blocks), rows_, cols_, block_};
}

void CKKSMatrix::require_valid(const char* operation) const {
  if (!context_ || blocks_.empty())
    throw InvalidArgument(std::string(operation) + ": an empty CKKSMatrix (encrypt one first)");
}

std::size_t CKKSMatrix::level() const {
  require_valid("CKKSMatrix::level");
  return detail::lowest_level(context_->ckks_evaluator(), blocks_);
}

CKKSMatrix::Rows CKKSMatrix::decrypt() const {
  constexpr const char* op = "CKKSMatrix::decrypt";
  require_valid(op);
  const detail::CkksDecryption decryption(*context_, nullptr, op);
  const auto& encoder = context_->ckks_encoder();
  Rows out(rows_, std::vector<double>(cols_));
  const std::size_t columns = block_cols();
  parallel_for(0, blocks_.size(), [&](std::size_t index) {
    const auto values = encoder.decode_real(decryption(blocks_[index]));
    const std::size_t row0 = index / columns * block_, col0 = index % columns * block_;
    for (std::size_t i = 0; i < block_ && row0 + i < rows_; ++i)
      for (std::size_t j = 0; j < block_ && col0 + j < cols_; ++j)
        out[row0 + i][col0 + j] = values[i * block_ + j];
  });
  return out;
}

CKKSMatrix CKKSMatrix::add(const CKKSMatrix& other) const {
  return add_or_sub(other, false, "CKKSMatrix::add");
}

CKKSMatrix CKKSMatrix::sub(const CKKSMatrix& other) const {
  return add_or_sub(other, true, "CKKSMatrix::sub");
}

CKKSMatrix CKKSMatrix::add_or_sub(const CKKSMatrix& other, bool subtract,
                                  const char* operation) const {
  require_valid(operation);
  other.require_valid(operation);
  detail::require_same_context(context_, other.context_, operation);
  if (rows_ != other.rows_ || cols_ != other.cols_ || block_ != other.block_)
    throw MismatchError(
        std::string(operation) + ": a " + std::to_string(rows_) + " x " + std::to_string(cols_) +
        " matrix in blocks of " + std::to_string(block_) + " and a " + std::to_string(other.rows_) +
        " x " + std::to_string(other.cols_) + " one in blocks of " + std::to_string(other.block_));
  const auto& evaluator = context_->ckks_evaluator();
  auto blocks = detail::map_chunks(blocks_.size(), [&](std::size_t index) {
    return subtract ? evaluator.sub(blocks_[index], other.blocks_[index])
                    : evaluator.add(blocks_[index], other.blocks_[index]);
  });
  return {context_, std::move(blocks), rows_, cols_, block_};
}

}  // namespace heft::tensor
