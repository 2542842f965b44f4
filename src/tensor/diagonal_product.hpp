// Vector x plain matrix by diagonals with baby-step giant-step, over any
// rotation the scheme composes from the keys present: the general path of
// CKKSVector::matmul (vectors of several ciphertexts, or keys that do not
// cover a circuits::LinearTransform) and the only one of BFVVector::matmul.
//
// A ciphertext holds `rows` rows of `row` slots, and a rotation by k moves
// every row left by k (CKKS: one row of N/2; BFV: two rows of N/2). The
// output ciphertext is
//   y = sum_s sum_k D_(s,k) (.) rotate(source_s, k),
// D_(s,k)[p] = M[in][out] where `in` is the input index that rotation k
// brings to slot p of source s and `out` the output index of slot p. With
// k = g n1 + b this is
//   y = sum_g rotate( sum_(s,b) rotate_plain(D_(s,k), -g n1) (.) rotate(source_s, b), g n1 ),
// so only the baby rotations (n1 per source) and one rotation per giant step
// are key switches. Giant steps run in parallel. The result is a sum of
// plaintext products (for CKKS, a product awaiting its rescale).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor::detail {

inline constexpr std::size_t kNoIndex = std::numeric_limits<std::size_t>::max();

struct SlotLayout {
  std::size_t row = 0;   // the rotation cycle
  std::size_t rows = 1;  // rows per ciphertext
  // The input index held by slot q of source s (kNoIndex for none).
  std::function<std::size_t(std::size_t source, std::size_t slot)> input_index;
  // The output index slot p stands for (kNoIndex for none).
  std::function<std::size_t(std::size_t slot)> output_index;
  [[nodiscard]] std::size_t width() const { return row * rows; }
  // The slot rotation k brings to slot p.
  [[nodiscard]] std::size_t rotated(std::size_t p, std::size_t k) const {
    return p - p % row + (p % row + k) % row;
  }
};

// The nonzero diagonals (s, k) of a layout: those where some slot has both an
// input and an output.
inline std::vector<std::vector<std::size_t>> diagonal_indices(const SlotLayout& layout,
                                                              std::size_t sources) {
  const std::size_t width = layout.width();
  // Only the slots with an output are tried for each k: a small matrix's
  // few outputs make this O(row x outputs), not O(row x width) (which at
  // 4096 slots was 12 ms of every 2 x 1 product).
  std::vector<std::size_t> outputs;
  for (std::size_t p = 0; p < width; ++p)
    if (layout.output_index(p) != kNoIndex) outputs.push_back(p);
  std::vector<std::vector<std::size_t>> indices(sources);
  for (std::size_t s = 0; s < sources; ++s) {
    std::vector<char> has_input(width);
    for (std::size_t q = 0; q < width; ++q)
      has_input[q] = layout.input_index(s, q) != kNoIndex;
    for (std::size_t k = 0; k < layout.row; ++k)
      for (const std::size_t p : outputs)
        if (has_input[layout.rotated(p, k)]) {
          indices[s].push_back(k);
          break;
        }
  }
  return indices;
}

// The baby-step count (a power of two) with the fewest rotations.
inline std::size_t choose_baby_steps(const std::vector<std::vector<std::size_t>>& indices,
                                     std::size_t row) {
  std::size_t best = 1, best_cost = std::numeric_limits<std::size_t>::max();
  for (std::size_t n1 = 1; n1 <= row; n1 *= 2) {
    std::size_t babies = 0;
    std::set<std::size_t> giants;
    for (const auto& ks : indices) {
      std::set<std::size_t> b;
      for (const std::size_t k : ks) {
        if (k % n1) b.insert(k % n1);
        if (k / n1) giants.insert(k / n1);
      }
      babies += b.size();
    }
    if (babies + giants.size() < best_cost) {
      best_cost = babies + giants.size();
      best = n1;
    }
  }
  return best;
}

// What a product by diagonals will do: the nonzero diagonals, the baby-step
// count, the baby steps of each source and the giant steps.
struct DiagonalPlan {
  std::vector<std::vector<std::size_t>> indices;  // per source
  std::size_t baby_steps = 1;                     // n1
  std::vector<std::set<std::size_t>> babies;      // per source, b < n1
  std::set<std::size_t> giants;                   // g n1
  // The key-switched rotations: nonzero baby and giant steps.
  [[nodiscard]] std::vector<int64_t> rotation_steps() const {
    std::set<int64_t> steps;
    for (const auto& b : babies)
      for (const std::size_t step : b)
        if (step) steps.insert(static_cast<int64_t>(step));
    for (const std::size_t giant : giants)
      if (giant) steps.insert(static_cast<int64_t>(giant));
    return {steps.begin(), steps.end()};
  }
};

inline DiagonalPlan plan_diagonals(const SlotLayout& layout, std::size_t sources) {
  DiagonalPlan plan;
  plan.indices = diagonal_indices(layout, sources);
  plan.baby_steps = choose_baby_steps(plan.indices, layout.row);
  plan.babies.resize(sources);
  for (std::size_t s = 0; s < sources; ++s)
    for (const std::size_t k : plan.indices[s]) {
      plan.babies[s].insert(k % plan.baby_steps);
      plan.giants.insert(k / plan.baby_steps * plan.baby_steps);
    }
  return plan;
}

// Backend: std::vector<Ciphertext> rotations(const Ciphertext&,
// std::span<const int64_t>) (one per step), Ciphertext rotate(const
// Ciphertext&, int64_t), Ciphertext multiply_plain(const Ciphertext&, const
// std::vector<Value>&), void add_inplace(Ciphertext&, const Ciphertext&).
// `entry(in, out)` reads the matrix. Returns nullopt when every diagonal is
// zero. The caller checks the keys for plan.rotation_steps() first.
template <class Value, class Backend, class Entry>
std::optional<rlwe::Ciphertext> diagonal_product(const Backend& backend,
                                                 std::span<const rlwe::Ciphertext> sources,
                                                 const SlotLayout& layout, const DiagonalPlan& plan,
                                                 const Entry& entry) {
  const std::size_t n1 = plan.baby_steps;
  // Baby rotations each source needs: babies[s][b], b < n1 (empty if unused).
  std::vector<std::vector<std::optional<rlwe::Ciphertext>>> babies(sources.size());
  for (std::size_t s = 0; s < sources.size(); ++s) {
    std::vector<int64_t> steps;
    for (const std::size_t b : plan.babies[s])
      if (b) steps.push_back(static_cast<int64_t>(b));
    babies[s].resize(n1);
    if (plan.babies[s].count(0)) babies[s][0] = sources[s].clone();
    if (!steps.empty()) {
      auto rotated = backend.rotations(sources[s], steps);
      for (std::size_t i = 0; i < steps.size(); ++i)
        babies[s][static_cast<std::size_t>(steps[i])] = std::move(rotated[i]);
    }
  }
  const std::vector<std::size_t> giants(plan.giants.begin(), plan.giants.end());
  std::vector<std::optional<rlwe::Ciphertext>> partial(giants.size());
  const std::size_t width = layout.width();
  parallel_for(0, giants.size(), [&](std::size_t gi) {
    const std::size_t giant = giants[gi];
    std::optional<rlwe::Ciphertext> inner;
    std::vector<Value> diagonal(width);
    for (std::size_t s = 0; s < sources.size(); ++s) {
      for (std::size_t b = 0; b < n1 && giant + b < layout.row; ++b) {
        if (!babies[s][b]) continue;
        const std::size_t k = giant + b;
        // rotate_plain(D_(s,k), -giant): slot p holds D_(s,k)[p - giant].
        bool nonzero = false;
        for (std::size_t p = 0; p < width; ++p) {
          const std::size_t source_slot = layout.rotated(p, layout.row - giant);
          const std::size_t out = layout.output_index(source_slot);
          const std::size_t in = layout.input_index(s, layout.rotated(source_slot, k));
          diagonal[p] = out == kNoIndex || in == kNoIndex ? Value{} : entry(in, out);
          nonzero = nonzero || diagonal[p] != Value{};
        }
        if (!nonzero) continue;
        auto term = backend.multiply_plain(*babies[s][b], diagonal);
        if (inner) {
          backend.add_inplace(*inner, term);
        } else {
          inner = std::move(term);
        }
      }
    }
    if (inner && giant) inner = backend.rotate(*inner, static_cast<int64_t>(giant));
    partial[gi] = std::move(inner);
  });
  std::optional<rlwe::Ciphertext> sum;
  for (auto& part : partial) {
    if (!part) continue;
    if (sum) {
      backend.add_inplace(*sum, *part);
    } else {
      sum = std::move(part);
    }
  }
  return sum;
}

}  // namespace heft::tensor::detail
