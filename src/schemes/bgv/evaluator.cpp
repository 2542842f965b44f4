// BGV evaluator: arithmetic, relinearization and rotations over the RLWE
// core with t-scaled keys, and modulus switching with correction factors.
#include "heft/schemes/bgv/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/modulus_switching.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/util/error.hpp"
#include "rlwe/ciphertext_arithmetic.hpp"
#include "rlwe/galois.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/relinearization.hpp"
#include "schemes/bgv/reconciliation.hpp"
#include "schemes/common/plaintext_lift.hpp"
#include "util/power_of_two_text.hpp"

namespace heft::bgv {

Evaluator::Evaluator(std::shared_ptr<const rlwe::Context> context, ModSwitchMode mode)
    : context_(std::move(context)),
      mode_(mode),
      t_(context_ ? plain_modulus(*context_)
                  : throw InvalidArgument("bgv::Evaluator needs a context")),
      noise_(*context_) {
  // An enum value cast from an integer the enum does not name would take
  // the automatic path in some operations and the manual one in others.
  if (mode_ != ModSwitchMode::automatic && mode_ != ModSwitchMode::manual) {
    throw InvalidArgument("bgv::Evaluator: unknown ModSwitchMode " +
                          std::to_string(static_cast<int>(mode_)) + ": use automatic or manual");
  }
}

void Evaluator::require_operand(const Ciphertext& a, const char* operation) const {
  rlwe::require_ciphertext(*context_, a, operation);
  require_correction(a.correction, t_.value(), operation);
}

namespace {

// A number of bits, to one decimal.
std::string bits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

double Evaluator::estimated_noise_budget(const Ciphertext& a) const {
  require_operand(a, "estimated_noise_budget");
  return noise_.budget(a.noise_log2, a.level());
}

std::string Evaluator::budget_message(double noise, std::size_t level, const char* operation,
                                      const char* what) const {
  if (!(noise < kUnknownNoise)) {
    return std::string(operation) +
           ": an operand has no noise estimate (a ciphertext built by hand or loaded from "
           "format version 1); set its noise_log2 (noise_model.hpp)";
  }
  return std::string(operation) + ": " + what + "'s estimated noise, " +
         heft::detail::power_of_two_text(noise, 1) + ", reaches what level " +
         std::to_string(level) + " can decrypt, " +
         heft::detail::power_of_two_text(noise_.limit(level), 1) + " (estimated budget " +
         bits(noise_.budget(noise, level)) +
         " bits): it would decrypt wrongly; use larger parameters or a shallower circuit";
}

void Evaluator::require_budget(double noise, std::size_t level, const char* operation,
                               const char* what) const {
  if (!(noise < noise_.limit(level))) {
    throw NoiseBudgetError(budget_message(noise, level, operation, what));
  }
}

void Evaluator::require_t_scaled_key(const rlwe::KeySwitchKey& key, const char* operation) const {
  rlwe::detail::require_same_context(*context_, key.context.get(), operation, "the key");
  if (key.error_scale != t_.value()) {
    throw MismatchError(std::string(operation) +
                        ": the key's errors are not scaled by t; make it with "
                        "bgv::make_key_generator");
  }
}

void Evaluator::multiply_by_constant(Ciphertext& a, uint64_t value) const {
  // The centered representative: the noise grows by |value| <= t/2.
  const bool negative = value > t_.value() / 2;
  const uint64_t magnitude = negative ? t_.value() - value : value;
  for (auto& part : a.parts) {
    part.multiply_scalar(magnitude);
    if (negative) part.negate();
  }
  a.noise_log2 += std::log2(static_cast<double>(std::max<uint64_t>(magnitude, 1)));
}

void Evaluator::mod_switch_inplace(Ciphertext& a) const {
  const std::size_t level = a.level();
  const math::Modulus& last = context_->ciphertext_ring()->modulus(level);
  // (c - t y) / q_l with y = [c t^-1]_{q_l} centred: t y is c mod q_l, 0 mod
  // t and small, so the plaintext becomes m * q_l^-1 mod t.
  rlwe::divide_by_last_prime(*context_, a.parts, a.parts, t_.value());
  // The correction multiplies the plaintext back.
  a.correction = t_.mul(a.correction, t_.reduce(last.value()));
  a.noise_log2 = noise_.mod_switched(a.noise_log2, level, a.size());
}

void Evaluator::require_alignable(const Ciphertext& a, const Ciphertext& b,
                                  const char* operation) const {
  if (mode_ == ModSwitchMode::manual) {
    rlwe::detail::require_same_level(a.level(), b.level(), operation,
                                     "mod_switch_to the lower one first (manual mode)");
  }
}

void Evaluator::align(Ciphertext& a, Ciphertext& b, const char* operation) const {
  require_alignable(a, b, operation);
  Ciphertext& high = a.level() > b.level() ? a : b;
  const std::size_t target = std::min(a.level(), b.level());
  while (high.level() > target)
    mod_switch_inplace(high);
}

std::pair<const Ciphertext*, const Ciphertext*> Evaluator::at_level(
    const Ciphertext& a, const Ciphertext& b, std::size_t level,
    std::array<std::optional<Ciphertext>, 2>& storage) const {
  const auto lowered = [&](const Ciphertext& x, std::optional<Ciphertext>& slot) {
    if (x.level() == level) return &x;
    Ciphertext& switched = slot.emplace(x.clone());
    while (switched.level() > level)
      mod_switch_inplace(switched);
    return static_cast<const Ciphertext*>(&switched);
  };
  const Ciphertext* low_a = lowered(a, storage[0]);
  return {low_a, &a == &b ? low_a : lowered(b, storage[1])};
}

Ciphertext Evaluator::sum(Ciphertext x, Ciphertext y, const char* operation) const {
  align(x, y, operation);
  // Small factors x, y with x / c_x = y / c_y mod t (reconciliation.hpp):
  // about sqrt(t) each instead of one factor up to t.
  const detail::Reconciliation plan =
      detail::reconcile(t_, x.correction, x.noise_log2, y.correction, y.noise_log2);
  require_budget(plan.noise_log2, x.level(), operation);
  if (plan.x != 1) multiply_by_constant(x, plan.x);
  if (plan.y != 1) multiply_by_constant(y, plan.y);
  x.correction = plan.correction;
  x.noise_log2 = plan.noise_log2;
  if (x.size() < y.size()) std::swap(x.parts, y.parts);
  for (std::size_t i = 0; i < y.size(); ++i)
    x.parts[i] += y.parts[i];
  check_transparent(x, operation);
  return x;
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  require_operand(a, "add");
  require_operand(b, "add");
  return sum(a.clone(), b.clone(), "add");
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  require_operand(a, "negate");
  require_budget(a.noise_log2, a.level(), "negate");
  return rlwe::detail::negated(a);
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  require_operand(a, "sub");
  require_operand(b, "sub");
  return sum(a.clone(), rlwe::detail::negated(b), "sub");
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const {
  return add_plain_as(a, p, "add_plain");
}

Ciphertext Evaluator::add_plain_as(const Ciphertext& a, const schemes::IntegerPlaintext& p,
                                   const char* operation) const {
  require_operand(a, operation);
  require_plaintext(*context_, p, operation);
  // Added under a's correction factor: p * c^-1 decrypts to p.
  schemes::IntegerPlaintext scaled = p;
  const uint64_t inverse = t_.inverse(a.correction);
  for (auto& v : scaled.coefficients)
    v = t_.mul(v, inverse);
  const double noise = log2_sum(a.noise_log2, std::log2(centered_l1_norm(scaled)));
  require_budget(noise, a.level(), operation);
  Ciphertext out = a.clone();
  out.parts[0] += schemes::lift_centered(*context_, scaled, a.level());
  out.noise_log2 = noise;
  return out;
}

double Evaluator::centered_l1_norm(const schemes::IntegerPlaintext& p) const {
  // ||p||^can <= ||p||_1 (noise_model.hpp); at least 1, so that its log2 is
  // finite (a bound may be loose).
  const uint64_t half = t_.value() / 2;
  double norm = 0;
  for (uint64_t v : p.coefficients)
    norm += static_cast<double>(v > half ? t_.value() - v : v);
  return std::max(norm, 1.0);
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const {
  require_plaintext(*context_, p, "sub_plain");
  schemes::IntegerPlaintext negated = p;
  for (auto& v : negated.coefficients)
    v = t_.negate(v);
  return add_plain_as(a, negated, "sub_plain");
}

Ciphertext Evaluator::add_scalar(const Ciphertext& a, uint64_t value) const {
  schemes::require_below_plain_modulus(value, t_.value(), "add_scalar", "the constant");
  schemes::IntegerPlaintext p{std::vector<uint64_t>(context_->degree(), 0), t_.value()};
  p.coefficients[0] = value;
  return add_plain_as(a, p, "add_scalar");
}

Ciphertext Evaluator::multiply_scalar(const Ciphertext& a, uint64_t value) const {
  require_operand(a, "multiply_scalar");
  schemes::require_below_plain_modulus(value, t_.value(), "multiply_scalar", "the constant");
  const uint64_t magnitude = std::min(value, t_.value() - value);
  require_budget(a.noise_log2 + std::log2(static_cast<double>(std::max<uint64_t>(magnitude, 1))),
                 a.level(), "multiply_scalar");
  Ciphertext out = a.clone();
  multiply_by_constant(out, value);
  check_transparent(out, "multiply_scalar");
  return out;
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a,
                                     const schemes::IntegerPlaintext& p) const {
  require_operand(a, "multiply_plain");
  require_plaintext(*context_, p, "multiply_plain");
  const double noise = a.noise_log2 + std::log2(centered_l1_norm(p));
  require_budget(noise, a.level(), "multiply_plain");
  const ring::RnsPoly m = schemes::lift_centered(*context_, p, a.level());
  Ciphertext out = a.clone();
  for (auto& part : out.parts)
    part *= m;
  out.noise_log2 = noise;
  check_transparent(out, "multiply_plain");
  return out;
}

namespace {

// (a0 + a1 s)(b0 + b1 s) = a0 b0 + (a0 b1 + a1 b0) s + a1 b1 s^2.
Ciphertext tensor(const Ciphertext& a, const Ciphertext& b) {
  Ciphertext out;
  for (auto& part : ring::tensor_product(a.parts[0], a.parts[1], b.parts[0], b.parts[1]))
    out.parts.push_back(std::move(part));
  return out;
}

}  // namespace

std::size_t Evaluator::product_level(const Ciphertext& a, const Ciphertext& b, bool relinearize,
                                     const char* operation) const {
  const std::size_t common = std::min(a.level(), b.level());
  if (mode_ == ModSwitchMode::manual) {
    require_budget(a.noise_log2 + b.noise_log2, common, operation, "the product");
    return common;
  }
  // Automatic mode: the product at `level`, switched to level - 1 (fused
  // with relinearization when there is a key). If the estimate refuses it,
  // switching both operands down first lowers their noise to about the
  // switching floor, which can leave the product room a level lower.
  double noise_a = a.noise_log2, noise_b = b.noise_log2;
  for (std::size_t l = a.level(); l > common; --l)
    noise_a = noise_.mod_switched(noise_a, l, a.size());
  for (std::size_t l = b.level(); l > common; --l)
    noise_b = noise_.mod_switched(noise_b, l, b.size());
  const double first_noise_a = noise_a, first_noise_b = noise_b;
  const auto result_noise = [&](double tensor, std::size_t level) {
    return relinearize ? noise_.key_switched_and_divided(tensor, level)
                       : noise_.mod_switched(tensor, level, 3);
  };
  for (std::size_t level = common;; --level) {
    const double tensor = noise_a + noise_b;
    if (tensor < noise_.limit(level) && result_noise(tensor, level) < noise_.limit(level - 1)) {
      return level;
    }
    if (level == 1) break;
    noise_a = noise_.mod_switched(noise_a, level, 2);
    noise_b = noise_.mod_switched(noise_b, level, 2);
  }
  // Refused at every level: name the estimate at the operands' common level.
  const double tensor = first_noise_a + first_noise_b;
  const bool tensor_fits = tensor < noise_.limit(common);
  throw NoiseBudgetError(budget_message(tensor_fits ? result_noise(tensor, common) : tensor,
                                        tensor_fits ? common - 1 : common, operation,
                                        "the product") +
                         " (switching the operands down first does not help either)");
}

Ciphertext Evaluator::product(const Ciphertext& a, const Ciphertext& b,
                              const char* operation) const {
  require_operand(a, operation);
  require_operand(b, operation);
  rlwe::detail::require_relinearized(a, operation);
  rlwe::detail::require_relinearized(b, operation);
  if (mode_ == ModSwitchMode::automatic) {
    // The product is switched down right away: a prime must be left.
    rlwe::detail::require_prime_to_drop(std::min(a.level(), b.level()), operation, "an operand");
  }
  require_alignable(a, b, operation);
  const std::size_t level = product_level(a, b, false, operation);
  std::array<std::optional<Ciphertext>, 2> switched;
  const auto [x, y] = at_level(a, b, level, switched);
  Ciphertext out = tensor(*x, *y);
  out.correction = t_.mul(x->correction, y->correction);
  out.noise_log2 = x->noise_log2 + y->noise_log2;
  if (mode_ == ModSwitchMode::automatic) mod_switch_inplace(out);
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  return product(a, b, "multiply");
}

Ciphertext Evaluator::square(const Ciphertext& a) const {
  return product(a, a, "square");
}

Ciphertext Evaluator::relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const {
  require_operand(a, "relinearize");
  rlwe::require_relinearization_operands(*context_, a, key, "relinearize");
  require_t_scaled_key(key.key, "relinearize");
  const double noise = noise_.key_switched(a.noise_log2, a.level());
  require_budget(noise, a.level(), "relinearize");
  // The t-aware key switch keeps the message: d0 + d1 s = c2 s^2 + t e.
  Ciphertext out = rlwe::relinearize_unchecked(*context_, a, key);
  out.noise_log2 = noise;
  return out;
}

Ciphertext Evaluator::relinearized_product(const Ciphertext& a, const Ciphertext& b,
                                           const rlwe::RelinKey& key, const char* operation) const {
  require_operand(a, operation);
  require_operand(b, operation);
  rlwe::require_relin_key(*context_, key, operation);
  require_t_scaled_key(key.key, operation);
  rlwe::detail::require_relinearized(a, operation);
  rlwe::detail::require_relinearized(b, operation);
  if (mode_ == ModSwitchMode::manual) {
    require_alignable(a, b, operation);
    // Both steps' estimates, before either is computed, under this name.
    const double tensor_noise = a.noise_log2 + b.noise_log2;
    require_budget(tensor_noise, a.level(), operation, "the product");
    require_budget(noise_.key_switched(tensor_noise, a.level()), a.level(), operation,
                   "the product");
    return relinearize(product(a, b, operation), key);
  }
  rlwe::detail::require_prime_to_drop(std::min(a.level(), b.level()), operation, "an operand");
  const std::size_t level = product_level(a, b, true, operation);
  std::array<std::optional<Ciphertext>, 2> switched;
  const auto [x, y] = at_level(a, b, level, switched);
  // Relinearize and switch down in one step (rlwe::switch_key_and_divide,
  // with the key's error scale t), so the key-switching noise is divided too
  // and Q_(l-1) is transformed once: the parts become
  // (c_i P + D_i - delta) / (P q_l) with delta = 0 mod t, that is
  // (c_i + D_i / P) q_l^-1 mod t, as relinearize then mod_switch give.
  const Ciphertext product = tensor(*x, *y);
  const math::Modulus& last = context_->ciphertext_ring()->modulus(product.level());
  Ciphertext out = rlwe::relinearize_and_divide_unchecked(*context_, product, key);
  out.correction = t_.mul(t_.mul(x->correction, y->correction), t_.reduce(last.value()));
  out.noise_log2 = noise_.key_switched_and_divided(x->noise_log2 + y->noise_log2, level);
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b,
                               const rlwe::RelinKey& key) const {
  return relinearized_product(a, b, key, "multiply");
}

Ciphertext Evaluator::square(const Ciphertext& a, const rlwe::RelinKey& key) const {
  return relinearized_product(a, a, key, "square");
}

Ciphertext Evaluator::galois_sequence(const Ciphertext& a, std::span<const uint64_t> sequence,
                                      const rlwe::GaloisKeys& keys, const char* operation) const {
  // Every key present and made for BGV, and the estimate of the last key
  // switch within the budget, before any work. The automorphism keeps the
  // canonical norm; each key switch adds its noise.
  double noise = a.noise_log2;
  for (const uint64_t g : sequence) {
    if (g == 1) continue;
    require_t_scaled_key(keys.at(g, operation), operation);
    noise = noise_.key_switched(noise, a.level());
  }
  require_budget(noise, a.level(), operation);
  Ciphertext out = rlwe::apply_galois_sequence(*context_, a, sequence, keys, operation);
  out.noise_log2 = noise;
  return out;
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, uint64_t galois_element,
                                   const rlwe::GaloisKeys& keys) const {
  require_operand(a, "apply_galois");
  rlwe::require_galois_operands(*context_, a, keys, "apply_galois");
  const uint64_t sequence[] = {galois_element};  // 1, the identity, gives a copy
  return galois_sequence(a, sequence, keys, "apply_galois");
}

Ciphertext Evaluator::rotate_rows(const Ciphertext& a, int64_t step,
                                  const rlwe::GaloisKeys& keys) const {
  require_operand(a, "rotate_rows");
  rlwe::require_galois_operands(*context_, a, keys, "rotate_rows");
  // The key of the step, or the fewest keys that compose it (a cycle of
  // N/2); empty for a multiple of the row length, the identity.
  const auto plan =
      rlwe::plan_rotation(*context_, keys, step, context_->degree() / 2, "rotate_rows");
  return galois_sequence(a, plan, keys, "rotate_rows");
}

Ciphertext Evaluator::rotate_columns(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  require_operand(a, "rotate_columns");
  rlwe::require_galois_operands(*context_, a, keys, "rotate_columns");
  const uint64_t sequence[] = {
      rlwe::conjugation_key(*context_, keys, "rotate_columns").galois_element};
  return galois_sequence(a, sequence, keys, "rotate_columns");
}

Ciphertext Evaluator::mod_switch(const Ciphertext& a) const {
  require_operand(a, "mod_switch");
  rlwe::detail::require_prime_to_drop(a.level(), "mod_switch");
  Ciphertext out = a.clone();
  mod_switch_inplace(out);
  require_budget(out.noise_log2, out.level(), "mod_switch");
  return out;
}

Ciphertext Evaluator::mod_switch_to(const Ciphertext& a, std::size_t level) const {
  require_operand(a, "mod_switch_to");
  rlwe::detail::require_lower_level(level, a.level(), "mod_switch_to");
  Ciphertext out = a.clone();
  while (out.level() > level)
    mod_switch_inplace(out);
  require_budget(out.noise_log2, out.level(), "mod_switch_to");
  return out;
}

}  // namespace heft::bgv
