// BFVVector: sum, dot products, vector x plain matrix and polynomials.
#include <set>
#include <string>

#include "heft/tensor/bfv_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/diagonal_product.hpp"
#include "tensor/messages.hpp"
#include "tensor/power_tree.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

// Row rotations 1, 2, 4, ... below min(length, row).
std::vector<int64_t> row_sum_steps(std::size_t length, std::size_t row) {
  std::vector<int64_t> steps;
  for (std::size_t step = 1; step < std::min(length, row); step *= 2)
    steps.push_back(static_cast<int64_t>(step));
  return steps;
}

// The BFV operations the diagonal product needs (row rotations).
struct BfvBackend {
  const TensorContext& context;
  const rlwe::GaloisKeys* keys;  // null when the plan has no rotation
  std::vector<Ciphertext> rotations(const Ciphertext& a, std::span<const int64_t> steps) const {
    std::vector<Ciphertext> out;
    for (const int64_t step : steps)
      out.push_back(rotate(a, step));
    return out;
  }
  Ciphertext rotate(const Ciphertext& a, int64_t step) const {
    return context.bfv_evaluator().rotate_rows(a, step, *keys);
  }
  Ciphertext multiply_plain(const Ciphertext& a, const std::vector<uint64_t>& values) const {
    return context.bfv_evaluator().multiply_plain(a, context.batch_encoder().encode(values));
  }
  void add_inplace(Ciphertext& a, const Ciphertext& b) const {
    a = context.bfv_evaluator().add(a, b);
  }
};

}  // namespace

BFVVector BFVVector::with_zero_padding() const {
  const std::size_t slots = context_->slot_count();
  const std::size_t used = size_ - (chunks_.size() - 1) * slots;
  BFVVector out = copy();
  auto& chunks = out.chunks_;
  if (!clean_padding_ && used < slots) {
    const std::vector<uint64_t> mask(used, 1);
    chunks.back() = context_->bfv_evaluator().multiply_plain(
        chunks.back(), context_->batch_encoder().encode(mask));
  }
  out.clean_padding_ = true;
  return out;
}

BFVVector BFVVector::sum() const {
  constexpr const char* op = "BFVVector::sum";
  require_valid(op);
  const std::size_t row = context_->slot_count() / 2;
  const std::size_t length = std::min(size_, context_->slot_count());
  const auto steps = row_sum_steps(length, row);
  const bool swap = length > row;  // values in both rows
  context_->require_rotations(steps, swap, op);
  const BFVVector clean = with_zero_padding();
  const auto& evaluator = context_->bfv_evaluator();
  Ciphertext total = clean.chunks_[0].clone();
  for (std::size_t c = 1; c < clean.chunks_.size(); ++c)
    total = evaluator.add(total, clean.chunks_[c]);
  if (!steps.empty() || swap) {
    const auto& keys = context_->galois_keys(op);
    for (const int64_t step : steps)
      total = evaluator.add(total, evaluator.rotate_rows(total, step, keys));
    if (swap) total = evaluator.add(total, evaluator.rotate_columns(total, keys));
  }
  std::vector<Ciphertext> chunks;
  chunks.push_back(std::move(total));
  return {context_, std::move(chunks), 1, false};  // slot 0 holds the sum
}

BFVVector BFVVector::dot(const BFVVector& other) const {
  constexpr const char* op = "BFVVector::dot";
  require_compatible(other, op);
  const std::size_t length = std::min(size_, context_->slot_count());
  const std::size_t row = context_->slot_count() / 2;
  context_->require_rotations(row_sum_steps(length, row), length > row, op);
  return mul(other).sum();
}

BFVVector BFVVector::dot(std::span<const int64_t> plain) const {
  constexpr const char* op = "BFVVector::dot";
  require_valid(op);
  detail::require_same_size(size_, plain.size(), op);
  const std::size_t length = std::min(size_, context_->slot_count());
  const std::size_t row = context_->slot_count() / 2;
  context_->require_rotations(row_sum_steps(length, row), length > row, op);
  return mul(plain).sum();
}

BFVVector BFVVector::matmul(const std::vector<std::vector<int64_t>>& matrix) const {
  constexpr const char* op = "BFVVector::matmul";
  require_valid(op);
  if (matrix.size() != size_)
    throw MismatchError(std::string(op) + ": the matrix has " + std::to_string(matrix.size()) +
                        " rows, the vector " + std::to_string(size_) + " values");
  const std::size_t m = matrix[0].size();
  if (m == 0) throw InvalidArgument(std::string(op) + ": the matrix has no columns");
  for (const auto& r : matrix)
    if (r.size() != m)
      throw InvalidArgument(std::string(op) + ": the matrix rows differ in length");
  const std::size_t n = size_, width = context_->slot_count(), row = width / 2;
  // Sources 2c and 2c + 1: input ciphertext c and its rows swapped, so that
  // row rotations reach values of the other row too.
  const auto input_index = [n, width, row](std::size_t s, std::size_t q) {
    const std::size_t slot = s % 2 ? (q + row) % width : q;
    const std::size_t in = s / 2 * width + slot;
    return in < n ? in : detail::kNoIndex;
  };
  const std::size_t outputs = detail::chunk_count(m, width), sources = 2 * chunks_.size();
  std::vector<detail::SlotLayout> layouts;
  std::vector<detail::DiagonalPlan> plans;
  std::set<int64_t> all_steps;
  bool swap = false;
  for (std::size_t d = 0; d < outputs; ++d) {
    detail::SlotLayout layout;
    layout.row = row;
    layout.rows = 2;
    layout.input_index = input_index;
    layout.output_index = [m, width, d](std::size_t p) {
      const std::size_t out = d * width + p;
      return out < m ? out : detail::kNoIndex;
    };
    plans.push_back(detail::plan_diagonals(layout, sources));
    layouts.push_back(std::move(layout));
    for (const int64_t step : plans.back().rotation_steps())
      all_steps.insert(step);
    for (std::size_t s = 1; s < sources; s += 2)
      swap = swap || !plans.back().indices[s].empty();
  }
  const std::vector<int64_t> steps(all_steps.begin(), all_steps.end());
  context_->require_rotations(steps, swap, op);
  const auto& evaluator = context_->bfv_evaluator();
  const rlwe::GaloisKeys* keys = steps.empty() && !swap ? nullptr : &context_->galois_keys(op);
  std::vector<Ciphertext> source_cts;
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    source_cts.push_back(chunks_[c].clone());
    source_cts.push_back(swap ? evaluator.rotate_columns(chunks_[c], *keys) : chunks_[c].clone());
  }
  const BfvBackend backend{*context_, keys};
  const auto entry = [&](std::size_t in, std::size_t out) { return reduce(matrix[in][out]); };
  std::vector<Ciphertext> chunks;
  for (std::size_t d = 0; d < outputs; ++d) {
    auto product = detail::diagonal_product<uint64_t>(
        backend, std::span<const Ciphertext>(source_cts), layouts[d], plans[d], entry);
    chunks.push_back(product ? std::move(*product) : evaluator.multiply_scalar(chunks_[0], 0));
  }
  return {context_, std::move(chunks), m, true};
}

BFVVector BFVVector::polyval(std::span<const int64_t> coefficients) const {
  constexpr const char* op = "BFVVector::polyval";
  require_valid(op);
  if (coefficients.empty()) throw InvalidArgument(std::string(op) + ": no coefficients");
  const auto& evaluator = context_->bfv_evaluator();
  // sum_(k >= 1) c_k x^k, each power by its own tree (depth ceil(log2 k)),
  // then the constant into the vector's own slots.
  auto chunks = detail::map_chunks(chunks_.size(), [&](std::size_t c) {
    Ciphertext total = evaluator.multiply_scalar(chunks_[c], 0);
    for (std::size_t k = 1; k < coefficients.size(); ++k) {
      const uint64_t coefficient = reduce(coefficients[k]);
      if (coefficient == 0) continue;
      const Ciphertext term = power(chunks_[c], static_cast<unsigned>(k), op);
      total = evaluator.add(total, evaluator.multiply_scalar(term, coefficient));
    }
    return total;
  });
  BFVVector out(context_, std::move(chunks), size_, clean_padding_);
  if (coefficients[0] == 0) return out;
  return out.add(coefficients[0]);
}

BFVVector BFVVector::pack_vectors(std::span<const BFVVector> vectors) {
  constexpr const char* op = "BFVVector::pack_vectors";
  if (vectors.empty()) throw InvalidArgument(std::string(op) + ": no vector");
  const TensorContext::Ptr& context = vectors[0].context_;
  std::vector<std::size_t> offsets;
  std::vector<int64_t> steps;
  std::size_t total = 0;
  for (const BFVVector& v : vectors) {
    v.require_valid(op);
    detail::require_same_context(context, v.context_, op);
    offsets.push_back(total);
    if (total) steps.push_back(-static_cast<int64_t>(total));
    total += v.size_;
  }
  const std::size_t row = context->slot_count() / 2;
  if (total > row) {
    throw InvalidArgument(std::string(op) + ": " + std::to_string(total) +
                          " values do not fit one row of " + std::to_string(row) + " slots");
  }
  context->require_rotations(steps, false, op);
  const auto& evaluator = context->bfv_evaluator();
  const rlwe::GaloisKeys* keys = steps.empty() ? nullptr : &context->galois_keys(op);
  // Each vector cleaned (its padding zero, so that what a rotation right
  // brings round to the front is zeros) and moved to its offset.
  auto placed = detail::map_chunks(vectors.size(), [&](std::size_t i) {
    Ciphertext ct = std::move(vectors[i].with_zero_padding().chunks_[0]);
    if (offsets[i]) ct = evaluator.rotate_rows(ct, -static_cast<int64_t>(offsets[i]), *keys);
    return ct;
  });
  Ciphertext sum = std::move(placed[0]);
  for (std::size_t i = 1; i < placed.size(); ++i)
    sum = evaluator.add(sum, placed[i]);
  std::vector<Ciphertext> chunks;
  chunks.push_back(std::move(sum));
  return {context, std::move(chunks), total, true};
}

}  // namespace heft::tensor
