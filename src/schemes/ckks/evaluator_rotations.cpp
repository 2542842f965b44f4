// CKKS evaluator, rotations: single, composed from the keys present
// (rlwe::plan_rotation), hoisted, conjugation, the sum of rotations times
// plaintexts (dot_rotations_plain) and the sum of all slots.
#include "heft/schemes/ckks/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/modulus_switching.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/key_checks.hpp"
#include "schemes/ckks/scale_rules.hpp"

namespace heft::ckks {

namespace {

// Rotations whose inner products share one pass over a decomposition
// (rlwe::inner_products). More share the digits' reads more widely but hold
// more products at once (two polynomials over Q*P each).
constexpr std::size_t kKeysPerInnerProductPass = 8;

// The keys of the group of terms keyed[first ...] (at most
// kKeysPerInnerProductPass of them); elements[j]: term j's Galois element.
std::vector<const rlwe::KeySwitchKey*> key_group(std::span<const std::size_t> keyed,
                                                 std::size_t first,
                                                 std::span<const uint64_t> elements,
                                                 const rlwe::GaloisKeys& keys) {
  std::vector<const rlwe::KeySwitchKey*> group;
  for (std::size_t k = first; k < keyed.size() && group.size() < kKeysPerInnerProductPass; ++k)
    group.push_back(&keys.at(elements[keyed[k]]));
  return group;
}

// The ciphertext (c0, c1) with a's scale, slots and rescale state.
Ciphertext with_parts(const Ciphertext& a, std::array<ring::RnsPoly, 2> parts) {
  Ciphertext out;
  out.scale = a.scale;
  out.slots = a.slots;
  out.needs_rescale = a.needs_rescale;
  out.parts.push_back(std::move(parts[0]));
  out.parts.push_back(std::move(parts[1]));
  return out;
}

}  // namespace

Ciphertext Evaluator::rotate_single(const Ciphertext& a, uint64_t galois_element,
                                    const rlwe::GaloisKeys& keys) const {
  return with_parts(a,
                    rlwe::apply_galois(*context_, a.parts[0], a.parts[1], keys.at(galois_element)));
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, uint64_t galois_element,
                                   const rlwe::GaloisKeys& keys) const {
  check(a, "apply_galois");
  check_keys(keys, "apply_galois");
  if (a.size() != 2) throw InvalidArgument("apply_galois: relinearize the ciphertext first");
  if (galois_element == 1) return a.clone();  // the identity, as in BFV/BGV
  (void)keys.at(galois_element, "apply_galois");
  return rotate_single(a, galois_element, keys);
}

Ciphertext Evaluator::rotate_by_plan(const Ciphertext& a, std::span<const uint64_t> plan,
                                     const rlwe::GaloisKeys& keys) const {
  if (plan.empty()) return a.clone();
  Ciphertext out = rotate_single(a, plan[0], keys);
  for (std::size_t i = 1; i < plan.size(); ++i)
    out = rotate_single(out, plan[i], keys);
  return out;
}

Ciphertext Evaluator::rotate(const Ciphertext& a, int64_t step,
                             const rlwe::GaloisKeys& keys) const {
  check(a, "rotate");
  check_keys(keys, "rotate");
  if (a.size() != 2) throw InvalidArgument("rotate: relinearize the ciphertext first");
  // The key of the step, or the fewest keys that compose it; every one is
  // known present before any work.
  const auto plan = rlwe::plan_rotation(*context_, keys, step, slot_count(a), "rotate");
  return rotate_by_plan(a, plan, keys);
}

std::size_t Evaluator::slot_count(const Ciphertext& a) const {
  return a.slots != 0 ? a.slots : context_->degree() / 2;
}

Ciphertext Evaluator::conjugate(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  check(a, "conjugate");
  check_keys(keys, "conjugate");
  if (a.size() != 2) throw InvalidArgument("conjugate: relinearize the ciphertext first");
  const uint64_t g = context_->conjugation_galois_element();
  if (!keys.has(g)) {
    throw InvalidArgument(
        "conjugate: no conjugation key (Galois element " + std::to_string(g) +
        "); generate it with KeyGenerator::create_galois_keys(steps, include_conjugation = true)");
  }
  return rotate_single(a, g, keys);
}

std::vector<Ciphertext> Evaluator::rotate_hoisted(const Ciphertext& a,
                                                  std::span<const int64_t> steps,
                                                  const rlwe::GaloisKeys& keys) const {
  check(a, "rotate_hoisted");
  check_keys(keys, "rotate_hoisted");
  if (a.size() != 2) throw InvalidArgument("rotate_hoisted: relinearize the ciphertext first");
  // Each step's plan, every key known present before any work. The first key
  // switch of each plan shares the decomposition; a composed step takes the
  // rest of its plan one rotation at a time.
  std::vector<std::vector<uint64_t>> plans;
  std::vector<uint64_t> elements;
  for (const int64_t step : steps) {
    plans.push_back(rlwe::plan_rotation(*context_, keys, step, slot_count(a), "rotate_hoisted"));
    elements.push_back(plans.back().empty() ? 1 : plans.back().front());
  }
  const rlwe::DecomposedPoly digits = rlwe::decompose(*context_, a.parts[1]);
  std::vector<Ciphertext> out(steps.size());
  std::vector<std::size_t> keyed;  // the rotations that take a key switch
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (elements[i] == 1) {
      out[i] = a.clone();
    } else {
      keyed.push_back(i);
    }
  }
  // The inner products of a group of rotations in one pass over the digits
  // (rlwe::inner_products), then each one's division by P and automorphism:
  // independent, the coarsest grain to spread over threads.
  for (std::size_t first = 0; first < keyed.size(); first += kKeysPerInnerProductPass) {
    const auto group = key_group(keyed, first, elements, keys);
    const std::size_t count = group.size();
    auto products = rlwe::inner_products(*context_, digits, group);
    parallel_for(0, count, [&](std::size_t k) {
      out[keyed[first + k]] = with_parts(
          a,
          rlwe::apply_galois_to_products(*context_, a.parts[0], std::move(products[k]), *group[k]));
    });
  }
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (plans[i].size() > 1)
      out[i] = rotate_by_plan(out[i], std::span<const uint64_t>(plans[i]).subspan(1), keys);
  }
  return out;
}

Ciphertext Evaluator::dot_rotations_plain(const Ciphertext& a, std::span<const int64_t> steps,
                                          std::span<const ExtendedPlaintext> diagonals,
                                          const rlwe::GaloisKeys& keys) const {
  constexpr const char* kOperation = "dot_rotations_plain";
  check(a, kOperation);
  check_keys(keys, kOperation);
  if (a.size() != 2) throw InvalidArgument("dot_rotations_plain: relinearize the ciphertext first");
  if (steps.empty() || steps.size() != diagonals.size()) {
    throw InvalidArgument(
        "dot_rotations_plain: needs one diagonal per step and at least one step (" +
        std::to_string(steps.size()) + " steps, " + std::to_string(diagonals.size()) +
        " diagonals)");
  }
  const ExtendedPlaintext& first = diagonals[0];
  for (const ExtendedPlaintext& d : diagonals) {
    if (d.poly.q.empty() || d.poly.q.context() != context_->ciphertext_ring() || d.poly.p.empty() ||
        d.poly.p.context() != context_->special_ring() ||
        d.poly.p.tower_count() != context_->special_count() || !d.poly.q.is_ntt() ||
        !d.poly.p.is_ntt()) {
      throw MismatchError(
          "dot_rotations_plain: a diagonal is not an encode_extended plaintext of this context");
    }
    check_scale_and_slots(d.scale, d.slots, "diagonal", kOperation);
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
  check_scale_fits(scale, level, kOperation);
  // Every key present before any work; no composition here, since all terms
  // share one decomposition of x.
  const std::size_t slots = slot_count(*x);
  std::vector<uint64_t> elements;
  for (const int64_t step : steps) {
    const int64_t n = static_cast<int64_t>(slots);
    if (step % n == 0) {
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

  const rlwe::DecomposedPoly digits = rlwe::decompose(*context_, x->parts[1]);
  std::array<rlwe::ExtendedPoly, 2> sum;
  for (auto& part : sum) {
    part.q = ring::RnsPoly(context_->ciphertext_ring(), level + 1, ring::Form::ntt);
    part.p = ring::RnsPoly(context_->special_ring(), context_->special_count(), ring::Form::ntt);
  }
  // A copy of a diagonal's Q part cut to the ciphertext's towers, only when
  // it has more.
  const auto at_level = [&](const ExtendedPlaintext& d,
                            ring::RnsPoly& cut) -> const ring::RnsPoly& {
    if (d.poly.q.tower_count() <= level + 1) return d.poly.q;
    cut = d.poly.q.clone();
    cut.drop_last_towers(cut.tower_count() - level - 1);
    return cut;
  };
  // (P c0, P c1): the identity's term, and P c0 is also what every rotation's
  // products take before their automorphism. With the Galois keys stored as
  // sigma^-1(k), a rotation's image in QP is sigma(products + (P c0, 0))
  // (rlwe::apply_galois_extended), and the automorphism is taken in the same
  // pass as the product with the diagonal, so no image is stored. The inner
  // products come a group of terms at a time, from one pass over the digits
  // (rlwe::inner_products).
  const auto lifted = rlwe::lift_to_extended(*context_, x->parts[0], x->parts[1]);
  std::size_t combined = x->slots;
  std::vector<std::size_t> keyed;  // the terms that take a key switch
  for (std::size_t j = 0; j < elements.size(); ++j) {
    combined = combined_slots(combined, diagonals[j].slots);
    if (elements[j] != 1) {
      keyed.push_back(j);
      continue;
    }
    ring::RnsPoly cut;
    const ring::RnsPoly& d_q = at_level(diagonals[j], cut);
    for (std::size_t k = 0; k < 2; ++k) {
      sum[k].q.add_product(lifted[k].q, d_q);
      sum[k].p.add_product(lifted[k].p, diagonals[j].poly.p);
    }
  }
  for (std::size_t first = 0; first < keyed.size(); first += kKeysPerInnerProductPass) {
    const auto group = key_group(keyed, first, elements, keys);
    const std::size_t count = group.size();
    auto products = rlwe::inner_products(*context_, digits, group);
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t j = keyed[first + k];
      ring::RnsPoly cut;
      const ring::RnsPoly& d_q = at_level(diagonals[j], cut);
      products[k][0].q += lifted[0].q;
      for (std::size_t part = 0; part < 2; ++part) {
        sum[part].q.add_product_automorphism(d_q, products[k][part].q, elements[j]);
        sum[part].p.add_product_automorphism(diagonals[j].poly.p, products[k][part].p, elements[j]);
      }
    }
  }
  Ciphertext out;
  out.parts.push_back(rlwe::mod_down(*context_, std::move(sum[0])));
  out.parts.push_back(rlwe::mod_down(*context_, std::move(sum[1])));
  out.scale = scale;
  out.slots = combined;
  out.needs_rescale = level > 0;
  return out;
}

Ciphertext Evaluator::sum_slots(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  check(a, "sum_slots");
  check_keys(keys, "sum_slots");
  if (a.size() != 2) throw InvalidArgument("sum_slots: relinearize the ciphertext first");
  const std::size_t slots = slot_count(a);
  // The plans of the power-of-two steps, every key present before any work.
  std::vector<std::vector<uint64_t>> plans;
  for (std::size_t step = 1; step < slots; step <<= 1)
    plans.push_back(
        rlwe::plan_rotation(*context_, keys, static_cast<int64_t>(step), slots, "sum_slots"));
  Ciphertext out = a.clone();
  for (const auto& plan : plans)
    add_inplace(out, rotate_by_plan(out, plan, keys));
  return out;
}

}  // namespace heft::ckks
