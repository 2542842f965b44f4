// CKKS evaluator, rotations: single, composed from the keys present
// (rlwe::plan_rotation), hoisted, conjugation, the sum of rotations times
// plaintexts (dot_rotations_plain) and the sum of all slots. The key
// switching and its checks are the rlwe core's (rlwe/galois.hpp), shared with
// BFV and BGV; what is CKKS's own here is the slot count a rotation cycles
// over and the scale bookkeeping of the sums.
#include "heft/schemes/ckks/evaluator.hpp"

#include <optional>
#include <string>
#include <utility>

#include "heft/rlwe/rotation_plan.hpp"
#include "heft/util/error.hpp"
#include "rlwe/galois.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::ckks {

Ciphertext Evaluator::apply_galois(const Ciphertext& a, uint64_t galois_element,
                                   const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "apply_galois";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  const uint64_t sequence[] = {galois_element};  // 1, the identity, gives a copy
  return rlwe::apply_galois_sequence(*context_, a, sequence, keys, kOperation);
}

Ciphertext Evaluator::rotate(const Ciphertext& a, int64_t step,
                             const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "rotate";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  // The key of the step, or the fewest keys that compose it; every one is
  // known present before any work.
  const auto plan = rlwe::plan_rotation(*context_, keys, step, slot_count(a), kOperation);
  return rlwe::apply_galois_sequence(*context_, a, plan, keys, kOperation);
}

std::size_t Evaluator::slot_count(const Ciphertext& a) const {
  return a.slots != 0 ? a.slots : context_->degree() / 2;
}

Ciphertext Evaluator::conjugate(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "conjugate";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  const uint64_t sequence[] = {rlwe::conjugation_key(*context_, keys, kOperation).galois_element};
  return rlwe::apply_galois_sequence(*context_, a, sequence, keys, kOperation);
}

std::vector<Ciphertext> Evaluator::rotate_hoisted(const Ciphertext& a,
                                                  std::span<const int64_t> steps,
                                                  const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "rotate_hoisted";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  // Each step's plan, every key known present before any work. The first key
  // switch of each plan shares the decomposition; a composed step takes the
  // rest of its plan one rotation at a time.
  std::vector<std::vector<uint64_t>> plans;
  for (const int64_t step : steps)
    plans.push_back(rlwe::plan_rotation(*context_, keys, step, slot_count(a), kOperation));
  return rlwe::apply_galois_hoisted(*context_, a, plans, keys, kOperation);
}

Ciphertext Evaluator::dot_rotations_plain(const Ciphertext& a, std::span<const int64_t> steps,
                                          std::span<const ExtendedPlaintext> diagonals,
                                          const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "dot_rotations_plain";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  if (steps.empty() || steps.size() != diagonals.size()) {
    throw InvalidArgument(
        "dot_rotations_plain: needs one diagonal per step and at least one step (" +
        std::to_string(steps.size()) + " steps, " + std::to_string(diagonals.size()) +
        " diagonals)");
  }
  const ExtendedPlaintext& first = diagonals[0];
  for (const ExtendedPlaintext& d : diagonals) {
    rlwe::detail::require_extended(*context_, d.poly, d.poly.q.tower_count(), kOperation,
                                   "a diagonal");
    require_scale_and_slots(d.scale, d.slots, "diagonal", kOperation);
    if (d.scale != first.scale || d.level() != first.level()) {
      throw MismatchError("dot_rotations_plain: the diagonals differ in scale or level");
    }
  }
  std::optional<Ciphertext> storage;
  const Ciphertext* x = &settled_operand(a, storage);
  if (first.level() < x->level()) {
    if (mode_ == ScaleMode::manual) {
      throw MismatchError("dot_rotations_plain: the diagonals are at level " +
                          std::to_string(first.level()) + ", below the ciphertext's level " +
                          std::to_string(x->level()));
    }
    x = &operand_at_level(*x, first.level(), storage, kOperation);
  }
  const std::size_t level = x->level();
  const double scale = x->scale * first.scale;
  require_scale_fits(scale, level, kOperation);
  // Every key present before any work; no composition here, since all terms
  // share one decomposition of x.
  const std::size_t slots = slot_count(*x);
  std::vector<uint64_t> elements;
  std::vector<const rlwe::ExtendedPoly*> polys;
  std::size_t combined = x->slots;
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const int64_t step = steps[j];
    polys.push_back(&diagonals[j].poly);
    combined = combined_slots(combined, diagonals[j].slots);
    if (step % static_cast<int64_t>(slots) == 0) {
      elements.push_back(1);
      continue;
    }
    const auto g = rlwe::direct_rotation_element(*context_, keys, step, slots);
    if (!g) {
      throw InvalidArgument("dot_rotations_plain: no Galois key for step " + std::to_string(step) +
                            "; every nonzero step needs its own key here (the terms share one "
                            "decomposition, so none is composed): generate it with "
                            "KeyGenerator::create_galois_keys");
    }
    elements.push_back(*g);
  }
  auto [c0, c1] = rlwe::dot_galois_extended(*context_, *x, elements, polys, keys, kOperation);
  Ciphertext out;
  out.parts.push_back(std::move(c0));
  out.parts.push_back(std::move(c1));
  out.scale = scale;
  out.slots = combined;
  out.needs_rescale = level > 0;
  check_transparent(out, kOperation);
  return out;
}

Ciphertext Evaluator::sum_slots(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "sum_slots";
  require_operand(a, kOperation);
  rlwe::require_galois_operands(*context_, a, keys, kOperation);
  const std::size_t slots = slot_count(a);
  // The plans of the power-of-two steps, every key present before any work.
  std::vector<std::vector<uint64_t>> plans;
  for (std::size_t step = 1; step < slots; step <<= 1)
    plans.push_back(
        rlwe::plan_rotation(*context_, keys, static_cast<int64_t>(step), slots, kOperation));
  Ciphertext out = a.clone();
  for (const auto& plan : plans)
    add_inplace(out, rlwe::apply_galois_sequence(*context_, out, plan, keys, kOperation));
  return out;
}

}  // namespace heft::ckks
