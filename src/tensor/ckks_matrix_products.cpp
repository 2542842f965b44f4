// Products with encrypted matrices: CKKSMatrix::matmul (encrypted x
// encrypted, Jiang-Kim-Lauter-Song over replicated b x b blocks; the
// derivation is in heft/tensor/ckks_matrix.hpp) and CKKSVector::matmul(
// CKKSMatrix) (encrypted vector x encrypted matrix), both built from
// slot permutations given by their diagonals (tensor/slot_diagonals.hpp).
//
// Vector x matrix, per b x b block M of the matrix and the b values v of
// the vector that meet it: the row-rotated replication
//   V[i][j] = v[(i + j) mod b]   (one block, one linear map of v: 2b diagonals)
// times tau(M)[i][j] = M[(i + j) mod b][j] holds v[i'] M[i'][j] with i' =
// (i + j) mod b running over every row as i does, so the sum of the rows
// (rotations by b, 2b, 4b, ...) leaves (v M)[j] in slot j. Two levels; a
// result of several column blocks masks each block into place (a third).
#include <algorithm>
#include <bit>
#include <optional>
#include <set>
#include <string>

#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/messages.hpp"
#include "tensor/slot_diagonals.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

// CKKSMatrix's private constructor, for this file's free functions.
class CKKSMatrixOps {
 public:
  static CKKSMatrix make(TensorContext::Ptr context, std::vector<Ciphertext> blocks,
                         std::size_t rows, std::size_t cols, std::size_t block) {
    return {std::move(context), std::move(blocks), rows, cols, block};
  }
  static void require_valid(const CKKSMatrix& m, const char* operation) {
    m.require_valid(operation);
  }
};

namespace {

// A replicated block's element at slot s: s mod b^2 = i b + j.
struct BlockSlot {
  std::size_t i, j;
  BlockSlot(std::size_t slot, std::size_t b) : i(slot % (b * b) / b), j(slot % b) {}
};

// A permutation of every copy of a replicated block: output element (i, j)
// takes element source(i, j) of the same block. On a replicated input a
// rotation by any d congruent to (source - target) mod b^2 reads it, so the
// diagonals are indexed by that difference mod b^2.
template <class Source>
detail::SlotDiagonals block_permutation(std::size_t slots, std::size_t b, const Source& source) {
  detail::SlotDiagonals diagonals;
  const std::size_t area = b * b;
  for (std::size_t s = 0; s < slots; ++s) {
    const BlockSlot at(s, b);
    const std::size_t target = at.i * b + at.j;
    const std::size_t d = (source(at.i, at.j) + area - target) % area;
    auto& diagonal = diagonals[d];
    if (diagonal.empty()) diagonal.assign(slots, 0.0);
    diagonal[s] = 1.0;
  }
  return diagonals;
}

// sigma(A)[i][j] = A[i][(i + j) mod b].
detail::SlotDiagonals sigma_diagonals(std::size_t slots, std::size_t b) {
  return block_permutation(slots, b,
                           [b](std::size_t i, std::size_t j) { return i * b + (i + j) % b; });
}

// tau(B)[i][j] = B[(i + j) mod b][j].
detail::SlotDiagonals tau_diagonals(std::size_t slots, std::size_t b) {
  return block_permutation(slots, b,
                           [b](std::size_t i, std::size_t j) { return (i + j) % b * b + j; });
}

// The b values of a vector block at slot `offset` of its ciphertext (those
// below `valid`) laid out in the first b^2 slots as V[i][j] = v[(i + j) mod b];
// zero elsewhere.
detail::SlotDiagonals row_rotated_replication(std::size_t slots, std::size_t b, std::size_t offset,
                                              std::size_t valid) {
  detail::SlotDiagonals diagonals;
  for (std::size_t p = 0; p < b * b; ++p) {
    const BlockSlot at(p, b);
    const std::size_t value = (at.i + at.j) % b;
    if (value >= valid) continue;
    auto& diagonal = diagonals[(offset + value + slots - p) % slots];
    if (diagonal.empty()) diagonal.assign(slots, 0.0);
    diagonal[p] = 1.0;
  }
  return diagonals;
}

// Slots [0, count) of x moved to [offset, offset + count), all else zero.
detail::SlotDiagonals masked_shift(std::size_t slots, std::size_t offset, std::size_t count) {
  std::vector<double> diagonal(slots, 0.0);
  for (std::size_t p = offset; p < offset + count; ++p)
    diagonal[p] = 1.0;
  return {{(slots - offset) % slots, std::move(diagonal)}};
}

// Column-shift masks of phi^k: slot (i, j) takes rotate(x, k) when j < b - k
// and rotate(x, k - b) otherwise.
std::vector<double> column_mask(std::size_t slots, std::size_t b, std::size_t k, bool wrapped) {
  std::vector<double> mask(slots);
  for (std::size_t s = 0; s < slots; ++s)
    mask[s] = (s % b >= b - k) == wrapped ? 1.0 : 0.0;
  return mask;
}

// x with no rescale pending.
Ciphertext settled(const TensorContext& context, const Ciphertext& x) {
  return x.needs_rescale && x.level() > 0 ? context.ckks_evaluator().rescale(x) : x.clone();
}

// A linear map by diagonals, rescaled as the context's flags ask.
Ciphertext apply(const TensorContext& context, const Ciphertext& x,
                 const detail::SlotDiagonals& diagonals, const char* operation) {
  const Ciphertext ready = settled(context, x);
  const bool rotates = diagonals.size() > 1 || diagonals.begin()->first != 0;
  return CKKSVectorOps::finish_product(
      context, detail::apply_slot_diagonals(context, ready, diagonals,
                                            rotates ? &context.galois_keys(operation) : nullptr));
}

// phi^k(x) for k = 0 .. b - 1: the columns of every block shifted left by k.
std::vector<Ciphertext> column_shifts(const TensorContext& context, const Ciphertext& x,
                                      std::size_t b, const char* operation) {
  const auto& evaluator = context.ckks_evaluator();
  const std::size_t slots = context.slot_count();
  std::vector<int64_t> steps;
  for (std::size_t k = 1; k < b; ++k)
    steps.push_back(static_cast<int64_t>(k));
  std::vector<Ciphertext> ahead, wrapped;
  if (!steps.empty()) {
    const auto& keys = context.galois_keys(operation);
    // rotate(x, k - b) = rotate(rotate(x, -b), k): one set of steps for both.
    const Ciphertext back = evaluator.rotate(x, -static_cast<int64_t>(b), keys);
    ahead = evaluator.rotate_hoisted(x, steps, keys);
    wrapped = evaluator.rotate_hoisted(back, steps, keys);
  }
  std::vector<Ciphertext> out(b);
  parallel_for(0, b, [&](std::size_t k) {
    if (k == 0) {  // through a mask of ones, to share the others' level and scale
      out[0] = CKKSVectorOps::plain_product(context, x, std::vector<double>(slots, 1.0));
      return;
    }
    auto shifted =
        CKKSVectorOps::plain_product(context, ahead[k - 1], column_mask(slots, b, k, false));
    evaluator.add_inplace(shifted, CKKSVectorOps::plain_product(context, wrapped[k - 1],
                                                                column_mask(slots, b, k, true)));
    out[k] = std::move(shifted);
  });
  return out;
}

// psi^k(x) for k = 0 .. b - 1: the rows of every block shifted up by k.
std::vector<Ciphertext> row_shifts(const TensorContext& context, const Ciphertext& x, std::size_t b,
                                   const char* operation) {
  std::vector<int64_t> steps;
  for (std::size_t k = 1; k < b; ++k)
    steps.push_back(static_cast<int64_t>(k * b));
  std::vector<Ciphertext> out;
  out.push_back(x.clone());
  if (!steps.empty())
    for (auto& ct :
         context.ckks_evaluator().rotate_hoisted(x, steps, context.galois_keys(operation)))
      out.push_back(std::move(ct));
  return out;
}

// A sum of tensor products relinearized and rescaled (as the flags ask).
Ciphertext finish_sum(const TensorContext& context, Ciphertext sum, const char* operation) {
  const auto& evaluator = context.ckks_evaluator();
  if (!context.auto_relin()) return CKKSVectorOps::finish_product(context, std::move(sum));
  const auto& relin = context.relin_key(operation);
  if (context.auto_rescale()) return evaluator.relinearize_rescale(sum, relin);
  return evaluator.relinearize(sum, relin);
}

// a b (a tensor product) with the higher operand first dropped to the
// other's level.
Ciphertext multiply_aligned(const TensorContext& context, const Ciphertext& a,
                            const Ciphertext& b) {
  const auto& evaluator = context.ckks_evaluator();
  if (a.level() > b.level()) return evaluator.multiply(evaluator.drop_to_level(a, b.level()), b);
  if (b.level() > a.level()) return evaluator.multiply(a, evaluator.drop_to_level(b, a.level()));
  return evaluator.multiply(a, b);
}

void accumulate(const TensorContext& context, std::optional<Ciphertext>& total, Ciphertext term) {
  if (total) {
    context.ckks_evaluator().add_inplace(*total, term);
  } else {
    total = std::move(term);
  }
}

}  // namespace

std::vector<int64_t> CKKSMatrix::galois_steps(const TensorContext& context, std::size_t block) {
  const std::size_t slots = context.slot_count();
  const std::size_t b = block;
  std::set<int64_t> steps;
  const auto add_plan = [&](const detail::SlotDiagonals& diagonals) {
    const detail::SlotDiagonalPlan plan(detail::diagonal_keys(diagonals), slots);
    for (const int64_t step : plan.rotation_steps())
      steps.insert(step);
  };
  add_plan(sigma_diagonals(slots, b));
  add_plan(tau_diagonals(slots, b));
  add_plan(row_rotated_replication(slots, b, 0, b));
  steps.insert(static_cast<int64_t>(slots - b));  // rotate(x, -b)
  for (std::size_t k = 1; k < b; ++k) {
    steps.insert(static_cast<int64_t>(k));
    steps.insert(static_cast<int64_t>(k * b));
  }
  steps.erase(0);
  return {steps.begin(), steps.end()};
}

CKKSMatrix CKKSMatrix::matmul(const CKKSMatrix& other) const {
  constexpr const char* op = "CKKSMatrix::matmul";
  require_valid(op);
  other.require_valid(op);
  detail::require_same_context(context_, other.context_, op);
  if (cols_ != other.rows_)
    throw MismatchError(std::string(op) + ": a " + std::to_string(rows_) + " x " +
                        std::to_string(cols_) + " matrix times a " + std::to_string(other.rows_) +
                        " x " + std::to_string(other.cols_) + " one");
  if (block_ != other.block_)
    throw MismatchError(std::string(op) + ": blocks of " + std::to_string(block_) + " and " +
                        std::to_string(other.block_) + " (encrypt both with the same block size)");
  detail::require_levels(3, std::min(level(), other.level()), op);
  if (block_ > 1) (void)context_->galois_keys(op);
  if (context_->auto_relin()) (void)context_->relin_key(op);
  const TensorContext& context = *context_;
  const auto& evaluator = context.ckks_evaluator();
  const std::size_t slots = context.slot_count(), b = block_;
  const std::size_t n = block_rows(), inner = block_cols(), m = other.block_cols();
  const auto sigma = sigma_diagonals(slots, b), tau = tau_diagonals(slots, b);
  // phi^k(sigma(A_rt)) and psi^k(tau(B_tc)), k < b, for every block.
  std::vector<std::vector<Ciphertext>> shifted_a(n * inner), shifted_b(inner * m);
  for (std::size_t index = 0; index < n * inner; ++index)
    shifted_a[index] = column_shifts(context, apply(context, blocks_[index], sigma, op), b, op);
  const std::size_t product_level = evaluator.effective_level(shifted_a[0][0]);
  for (std::size_t index = 0; index < inner * m; ++index) {
    Ciphertext transformed = apply(context, other.blocks_[index], tau, op);
    if (transformed.level() > product_level)  // rotate fewer towers
      transformed = evaluator.drop_to_level(transformed, product_level);
    shifted_b[index] = row_shifts(context, transformed, b, op);
  }
  auto blocks = detail::map_chunks(n * m, [&](std::size_t index) {
    const std::size_t r = index / m, c = index % m;
    std::optional<Ciphertext> total;
    for (std::size_t t = 0; t < inner; ++t)
      for (std::size_t k = 0; k < b; ++k)
        accumulate(context, total,
                   multiply_aligned(context, shifted_a[r * inner + t][k], shifted_b[t * m + c][k]));
    return finish_sum(context, std::move(*total), op);
  });
  return CKKSMatrixOps::make(context_, std::move(blocks), rows_, other.cols_, b);
}

CKKSVector CKKSVector::matmul(const CKKSMatrix& matrix) const {
  constexpr const char* op = "CKKSVector::matmul";
  require_valid(op);
  CKKSMatrixOps::require_valid(matrix, op);
  detail::require_same_context(context_, matrix.context(), op);
  if (size_ != matrix.rows())
    throw MismatchError(std::string(op) + ": a vector of " + std::to_string(size_) +
                        " values times a " + std::to_string(matrix.rows()) + " x " +
                        std::to_string(matrix.cols()) + " matrix");
  const std::size_t b = matrix.block_size(), column_blocks = matrix.block_cols();
  const std::size_t levels = column_blocks > 1 ? 3 : 2;
  if (auto refreshed = refreshed_if_short(levels)) return refreshed->matmul(matrix);
  detail::require_levels(levels, level(), op);
  detail::require_levels(2, matrix.level(), op);
  (void)context_->galois_keys(op);
  if (context_->auto_relin()) (void)context_->relin_key(op);
  const TensorContext& context = *context_;
  const auto& evaluator = context.ckks_evaluator();
  const std::size_t slots = context.slot_count(), row_blocks = matrix.block_rows();
  // V for each block of the vector, and tau of each block of the matrix.
  std::vector<Ciphertext> replicated(row_blocks), transformed(matrix.ciphertexts().size());
  for (std::size_t r = 0; r < row_blocks; ++r) {
    const std::size_t first = r * b;
    replicated[r] = apply(context, chunks_[first / slots],
                          row_rotated_replication(slots, b, first % slots, size_ - first), op);
  }
  const auto tau = tau_diagonals(slots, b);
  for (std::size_t index = 0; index < transformed.size(); ++index)
    transformed[index] = apply(context, matrix.ciphertexts()[index], tau, op);
  const auto& keys = context.galois_keys(op);
  // Column block c: sum over the row blocks, then over the rows of the block.
  auto sums = detail::map_chunks(column_blocks, [&](std::size_t c) {
    std::optional<Ciphertext> total;
    for (std::size_t r = 0; r < row_blocks; ++r)
      accumulate(context, total,
                 multiply_aligned(context, replicated[r], transformed[r * column_blocks + c]));
    Ciphertext sum = finish_sum(context, std::move(*total), op);
    for (std::size_t step = b; step < b * b; step *= 2)
      evaluator.add_inplace(sum, evaluator.rotate(sum, static_cast<int64_t>(step), keys));
    return sum;
  });
  const std::size_t cols = matrix.cols();
  if (column_blocks == 1)  // the values in slots [0, cols), other slots not zero
    return CKKSVectorOps::make(context_, std::move(sums), cols, cols == slots);
  // Each block's b values masked and moved to their place in the output.
  std::vector<std::optional<Ciphertext>> chunks(detail::chunk_count(cols, slots));
  for (std::size_t c = 0; c < column_blocks; ++c) {
    const std::size_t first = c * b, count = std::min(b, cols - first);
    accumulate(context, chunks[first / slots],
               apply(context, sums[c], masked_shift(slots, first % slots, count), op));
  }
  std::vector<Ciphertext> out;
  for (auto& chunk : chunks)
    out.push_back(std::move(*chunk));
  return CKKSVectorOps::make(context_, std::move(out), cols, true);
}

}  // namespace heft::tensor
