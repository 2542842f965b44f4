// A linear map of one CKKS ciphertext's slots given by its nonzero
// diagonals, y = sum_d diag_d (.) rotate(x, d), evaluated by baby-step
// giant-step over rotations composed from the Galois keys present (so the
// default power-of-two keys do; a key per step makes each rotation one key
// switch). What the encrypted matrix products (ckks_matrix_products.cpp)
// build their permutations from: few diagonals, each known as a function.
//
// With d = g + b (b < n1, g a multiple of n1),
//   y = sum_g rotate( sum_b rotate(diag_(g + b), -g) (.) rotate(x, b), g ),
// baby rotations hoisted (one decomposition of x), giant steps in parallel.
// The result is a product awaiting its rescale.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/parallel.hpp"
#include "tensor/diagonal_product.hpp"

namespace heft::tensor::detail {

// Diagonal d (0 <= d < slots) -> its slots values.
using SlotDiagonals = std::map<std::size_t, std::vector<double>>;

// The rotations apply_slot_diagonals makes for diagonals at these indices:
// the baby-step count and the nonzero baby and giant steps.
struct SlotDiagonalPlan {
  std::size_t baby_steps = 1;
  std::set<std::size_t> babies, giants;

  SlotDiagonalPlan(const std::vector<std::size_t>& indices, std::size_t slots) {
    baby_steps = choose_baby_steps({indices}, slots);
    for (const std::size_t d : indices) {
      babies.insert(d % baby_steps);
      giants.insert(d - d % baby_steps);
    }
  }
  [[nodiscard]] std::vector<int64_t> rotation_steps() const {
    std::set<int64_t> steps;
    for (const std::size_t b : babies)
      if (b) steps.insert(static_cast<int64_t>(b));
    for (const std::size_t g : giants)
      if (g) steps.insert(static_cast<int64_t>(g));
    return {steps.begin(), steps.end()};
  }
};

inline std::vector<std::size_t> diagonal_keys(const SlotDiagonals& diagonals) {
  std::vector<std::size_t> indices;
  for (const auto& entry : diagonals)
    indices.push_back(entry.first);
  return indices;
}

// x must be settled (no rescale pending) with a level left; `keys` may be
// null when the only diagonal is 0.
inline rlwe::Ciphertext apply_slot_diagonals(const TensorContext& context,
                                             const rlwe::Ciphertext& x,
                                             const SlotDiagonals& diagonals,
                                             const rlwe::GaloisKeys* keys) {
  const auto& evaluator = context.ckks_evaluator();
  const auto& encoder = context.ckks_encoder();
  const std::size_t slots = context.slot_count();
  const SlotDiagonalPlan plan(diagonal_keys(diagonals), slots);
  std::vector<int64_t> baby_steps;
  for (const std::size_t b : plan.babies)
    if (b) baby_steps.push_back(static_cast<int64_t>(b));
  std::vector<rlwe::Ciphertext> rotated;
  if (!baby_steps.empty()) rotated = evaluator.rotate_hoisted(x, baby_steps, *keys);
  const auto baby = [&](std::size_t b) -> const rlwe::Ciphertext& {
    if (b == 0) return x;
    const auto at = std::find(baby_steps.begin(), baby_steps.end(), static_cast<int64_t>(b));
    return rotated[static_cast<std::size_t>(at - baby_steps.begin())];
  };
  const std::vector<std::size_t> giants(plan.giants.begin(), plan.giants.end());
  const std::size_t level = x.level();
  const double scale = evaluator.scale_at(level);
  std::vector<std::optional<rlwe::Ciphertext>> partial(giants.size());
  parallel_for(0, giants.size(), [&](std::size_t gi) {
    const std::size_t giant = giants[gi];
    std::optional<rlwe::Ciphertext> inner;
    std::vector<double> shifted(slots);
    for (std::size_t b = 0; b < plan.baby_steps; ++b) {
      const auto found = diagonals.find(giant + b);
      if (found == diagonals.end()) continue;
      // rotate(diag, -giant): slot p holds diag[p - giant].
      for (std::size_t p = 0; p < slots; ++p)
        shifted[p] = found->second[(p + slots - giant) % slots];
      auto term = evaluator.multiply_plain(baby(b), encoder.encode(shifted, scale, level));
      if (inner) {
        evaluator.add_inplace(*inner, term);
      } else {
        inner = std::move(term);
      }
    }
    if (inner && giant) inner = evaluator.rotate(*inner, static_cast<int64_t>(giant), *keys);
    partial[gi] = std::move(inner);
  });
  std::optional<rlwe::Ciphertext> sum;
  for (auto& part : partial) {
    if (!part) continue;
    if (sum) {
      evaluator.add_inplace(*sum, *part);
    } else {
      sum = std::move(part);
    }
  }
  return std::move(*sum);  // the callers never pass an empty map
}

}  // namespace heft::tensor::detail
