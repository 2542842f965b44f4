// CKKS evaluator, scale bookkeeping: rescaling, dropping levels, and the
// alignment of two operands (or of an operand and a plaintext) to one level
// and scale, automatic or by hand (align_to).
#include "heft/schemes/ckks/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "heft/rlwe/modulus_switching.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "schemes/ckks/scale_rules.hpp"

namespace heft::ckks {

using detail::distinct_scale_texts;
using detail::kScaleTolerance;
using detail::rescale_pending;
using detail::same_scale;
using detail::two_scales_text;

void Evaluator::drop_ciphertext_to(Ciphertext& a, std::size_t level, const char* operation) const {
  const std::size_t drop = a.level() - level;
  if (drop == 0) return;
  // Dropping keeps the scale: it must still fit the smaller modulus, or the
  // values would wrap (SEAL refuses the same).
  require_scale_fits(a.scale, level, operation);
  for (auto& part : a.parts)
    part.drop_last_towers(drop);
}

void Evaluator::rescale_into(const Ciphertext& a, Ciphertext& out) const {
  require_operand(a, "rescale");
  const std::size_t level = a.level();
  rlwe::detail::require_prime_to_drop(level, "rescale");
  const double last = static_cast<double>(context_->ciphertext_ring()->modulus(level).value());
  const bool in_place = &out == &a;
  if (!in_place) out.parts.resize(a.parts.size());
  rlwe::divide_by_last_prime(*context_, a.parts, out.parts);
  if (!in_place) {
    out.scale = a.scale;
    out.slots = a.slots;
  }
  out.scale /= last;
  out.needs_rescale = false;
}

void Evaluator::rescale_inplace(Ciphertext& a) const {
  rescale_into(a, a);
}

Ciphertext Evaluator::rescale(const Ciphertext& a) const {
  Ciphertext out;
  rescale_into(a, out);
  return out;
}

Ciphertext Evaluator::drop_to_level(const Ciphertext& a, std::size_t level) const {
  require_operand(a, "drop_to_level");
  rlwe::detail::require_lower_level(level, a.level(), "drop_to_level");
  Ciphertext out = a.clone();
  drop_ciphertext_to(out, level, "drop_to_level");
  return out;
}

std::size_t Evaluator::effective_level(const Ciphertext& a) const {
  require_operand(a, "effective_level");
  return mode_ == ScaleMode::automatic && rescale_pending(a) ? a.level() - 1 : a.level();
}

double Evaluator::effective_scale(const Ciphertext& a) const {
  require_operand(a, "effective_scale");
  if (mode_ != ScaleMode::automatic || !rescale_pending(a)) return a.scale;
  return a.scale / static_cast<double>(context_->ciphertext_ring()->modulus(a.level()).value());
}

Ciphertext Evaluator::align_to(const Ciphertext& a, std::size_t level, double scale) const {
  constexpr const char* kOperation = "align_to";
  require_operand(a, kOperation);
  rlwe::detail::require_lower_level(level, a.level(), kOperation);
  require_scale_fits(scale, level, kOperation);
  Ciphertext out = a.clone();
  if (level == out.level() && same_scale(out.scale, scale)) return out;
  // Automatic mode: a pending product takes its rescale before its scale
  // changes, as in add_plain and align, so it aligns from its effective
  // level; to keep its scale it is only dropped, and stays pending.
  if (mode_ == ScaleMode::automatic && rescale_pending(out) && !same_scale(out.scale, scale)) {
    if (level == out.level()) {
      throw InvalidArgument(
          "align_to: the ciphertext is a product awaiting its rescale, at "
          "effective level " +
          std::to_string(out.level() - 1) + ", below the target level " + std::to_string(level));
    }
    rescale_inplace(out);
  }
  bring_to(out, level, scale, kOperation);
  return out;
}

void Evaluator::bring_to(Ciphertext& a, std::size_t level, double scale,
                         const char* operation) const {
  if (same_scale(a.scale, scale)) {
    drop_ciphertext_to(a, level, operation);
    return;
  }
  if (a.level() <= level) {
    throw InvalidArgument(std::string(operation) + ": scales " + two_scales_text(a.scale, scale) +
                          " differ and changing a scale takes a level: none is left between the "
                          "ciphertext's level " +
                          std::to_string(a.level()) + " and the target level " +
                          std::to_string(level));
  }
  // Multiply by k = round(scale * q / a.scale) and divide by q: the true
  // scale becomes scale * (1 + d) with |d| <= 1/(2k). The result is labelled
  // with `scale` only when d is below the encoding's own precision (1/scale,
  // or the tolerance at which scales count as equal); a small k, from scales
  // that are not a prime apart, would mislabel it, so that is refused.
  drop_ciphertext_to(a, level + 1, operation);
  const double q = static_cast<double>(context_->parameters().ciphertext_moduli[level + 1]);
  const double k = std::round(scale * q / a.scale);
  const double true_scale = a.scale * k / q;
  const double error = std::abs(true_scale - scale) / scale;
  if (!(k >= 1 && k < 4.6e18) || error > std::max(1.0 / scale, kScaleTolerance)) {
    throw InvalidArgument(std::string(operation) + ": scales " + two_scales_text(a.scale, scale) +
                          " cannot be aligned exactly (they are not about a prime apart); "
                          "rescale or re-encode so that they match");
  }
  a = multiply_integer(a, static_cast<int64_t>(k));
  rescale_inplace(a);
  a.scale = scale;
}

void Evaluator::align(Ciphertext& a, Ciphertext& b, const char* operation) const {
  const bool scales_match = same_scale(a.scale, b.scale);
  if (mode_ == ScaleMode::manual) {
    if (a.level() != b.level() || !scales_match) {
      throw MismatchError(std::string(operation) + ": operands differ (levels " +
                          std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                          ", scales " + two_scales_text(a.scale, b.scale) +
                          "); align them with rescale, drop_to_level or align_to, or use "
                          "ScaleMode::automatic");
    }
    return;
  }
  // Equal levels and scales need nothing, pending rescale or not (the caller
  // marks the result pending if either operand was).
  if (a.level() == b.level() && same_scale(a.scale, b.scale)) return;
  // Otherwise settle every pending product first: its scale is a product of
  // two scales, and aligning it as it stands would drop it (wrapping) or
  // pick a k near 1 (mislabelling the scale).
  if (rescale_pending(a)) rescale_inplace(a);
  if (rescale_pending(b)) rescale_inplace(b);
  if (a.level() == b.level() && same_scale(a.scale, b.scale)) return;
  if (a.level() == b.level()) {
    // Same level, different scales: spend one level on both.
    if (a.level() == 0) {
      throw InvalidArgument(std::string(operation) + ": scales " +
                            two_scales_text(a.scale, b.scale) +
                            " differ at level 0; nothing left to align them");
    }
    // The operand with the smaller scale is dropped and sets the target, so
    // the result does not depend on the order of the operands.
    Ciphertext& target = a.scale < b.scale ? a : b;
    Ciphertext& other = a.scale < b.scale ? b : a;
    drop_ciphertext_to(target, target.level() - 1, operation);
    bring_to(other, target.level(), target.scale, operation);
    return;
  }
  Ciphertext& high = a.level() > b.level() ? a : b;
  const Ciphertext& low = a.level() > b.level() ? b : a;
  bring_to(high, low.level(), low.scale, operation);
}

void Evaluator::align_to_plain(Ciphertext& a, const Plaintext& p, const char* operation) const {
  if (mode_ == ScaleMode::automatic) {
    // As align does for two ciphertexts, except that only the ciphertext can
    // move: a plaintext can lose towers but not change its scale.
    if (rescale_pending(a) && !same_scale(a.scale, p.scale)) rescale_inplace(a);
    if (same_scale(a.scale, p.scale)) {
      if (p.level() < a.level()) drop_ciphertext_to(a, p.level(), operation);
    } else {
      // Changing the scale spends a level (bring_to refuses at level 0).
      const std::size_t below = a.level() > 0 ? a.level() - 1 : 0;
      bring_to(a, std::min(below, p.level()), p.scale, operation);
    }
  }
  if (p.level() < a.level() || !same_scale(a.scale, p.scale)) {
    const auto [p_scale, a_scale] = distinct_scale_texts(p.scale, a.scale);
    throw MismatchError(std::string(operation) + ": the plaintext (level " +
                        std::to_string(p.level()) + ", scale " + p_scale +
                        ") does not match the ciphertext (level " + std::to_string(a.level()) +
                        ", scale " + a_scale +
                        "); encode it at the ciphertext's scale and level, align the ciphertext "
                        "with align_to, or use ScaleMode::automatic");
  }
}

const Ciphertext& Evaluator::settled_operand(const Ciphertext& a,
                                             std::optional<Ciphertext>& storage) const {
  if (mode_ != ScaleMode::automatic || !rescale_pending(a)) return a;
  Ciphertext rescaled;
  rescale_into(a, rescaled);
  storage = std::move(rescaled);
  return *storage;
}

const Ciphertext& Evaluator::operand_at_level(const Ciphertext& a, std::size_t level,
                                              std::optional<Ciphertext>& storage,
                                              const char* operation) const {
  if (a.level() == level) return a;
  // a may already be the copy in storage (a rescaled operand): drop it there.
  if (!storage || &*storage != &a) storage.emplace(a.clone());
  drop_ciphertext_to(*storage, level, operation);
  return *storage;
}

}  // namespace heft::ckks
