// BGV evaluator: arithmetic, relinearization and rotations over the RLWE
// core with t-scaled keys, and modulus switching with correction factors.
#include "heft/schemes/bgv/evaluator.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/modulus_switching.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/plaintext_lift.hpp"
#include "heft/util/error.hpp"

namespace heft::bgv {

Evaluator::Evaluator(std::shared_ptr<const rlwe::Context> context, ModSwitchMode mode)
    : context_(std::move(context)),
      mode_(mode),
      t_(context_ ? plain_modulus(*context_)
                  : throw InvalidArgument("bgv::Evaluator needs a context")) {
  // An enum value cast from an integer the enum does not name would take
  // the automatic path in some operations and the manual one in others.
  if (mode_ != ModSwitchMode::automatic && mode_ != ModSwitchMode::manual) {
    throw InvalidArgument("bgv::Evaluator: unknown ModSwitchMode " +
                          std::to_string(static_cast<int>(mode_)) + ": use automatic or manual");
  }
}

void Evaluator::check(const Ciphertext& a, const char* operation) const {
  rlwe::check_ciphertext(*context_, a.ct, operation);
  check_correction(a.correction, t_.value(), operation);
}

void Evaluator::check_key(const rlwe::KeySwitchKey& key, const char* operation) const {
  if (key.context.get() != context_.get()) {
    throw MismatchError(std::string(operation) + ": the key belongs to a different context");
  }
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
  for (auto& part : a.ct.parts) {
    part.multiply_scalar(magnitude);
    if (negative) part.negate();
  }
}

void Evaluator::mod_switch_inplace(Ciphertext& a) const {
  const std::size_t level = a.level();
  const math::Modulus& last = context_->ciphertext_ring()->modulus(level);
  // (c - t y) / q_l with y = [c t^-1]_{q_l} centred: t y is c mod q_l, 0 mod
  // t and small, so the plaintext becomes m * q_l^-1 mod t.
  rlwe::divide_by_last_prime(*context_, a.ct.parts, a.ct.parts, t_.value());
  // The correction multiplies the plaintext back.
  a.correction = t_.mul(a.correction, t_.reduce(last.value()));
}

void Evaluator::require_alignable(const Ciphertext& a, const Ciphertext& b,
                                  const char* operation) const {
  if (a.level() != b.level() && mode_ == ModSwitchMode::manual) {
    throw MismatchError(std::string(operation) + ": operands at levels " +
                        std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                        "; mod_switch_to the lower one first (manual mode)");
  }
}

void Evaluator::align(Ciphertext& a, Ciphertext& b, const char* operation) const {
  require_alignable(a, b, operation);
  Ciphertext& high = a.level() > b.level() ? a : b;
  const std::size_t target = std::min(a.level(), b.level());
  while (high.level() > target)
    mod_switch_inplace(high);
}

std::pair<const Ciphertext*, const Ciphertext*> Evaluator::at_common_level(
    const Ciphertext& a, const Ciphertext& b, std::optional<Ciphertext>& storage,
    const char* operation) const {
  if (a.level() == b.level()) return {&a, &b};
  require_alignable(a, b, operation);
  const bool a_higher = a.level() > b.level();
  Ciphertext& switched = storage.emplace((a_higher ? a : b).clone());
  while (switched.level() > std::min(a.level(), b.level()))
    mod_switch_inplace(switched);
  const Ciphertext* low = a_higher ? &b : &a;
  return a_higher ? std::pair{static_cast<const Ciphertext*>(&switched), low}
                  : std::pair{low, static_cast<const Ciphertext*>(&switched)};
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "add");
  check(b, "add");
  Ciphertext x = a.clone(), y = b.clone();
  align(x, y, "add");
  if (x.correction != y.correction) {
    // y * (c_y / c_x) carries y's message under x's correction factor.
    multiply_by_constant(y, t_.mul(y.correction, t_.inverse(x.correction)));
  }
  if (x.size() < y.size()) std::swap(x.ct.parts, y.ct.parts);
  for (std::size_t i = 0; i < y.size(); ++i)
    x.ct.parts[i] += y.ct.parts[i];
  return x;
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  check(a, "negate");
  Ciphertext out = a.clone();
  for (auto& part : out.ct.parts)
    part.negate();
  return out;
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "sub");
  check(b, "sub");
  return add(a, negate(b));
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const {
  return add_plain_as(a, p, "add_plain");
}

Ciphertext Evaluator::add_plain_as(const Ciphertext& a, const schemes::IntegerPlaintext& p,
                                   const char* operation) const {
  check(a, operation);
  check_plaintext(*context_, p, operation);
  // Added under a's correction factor: p * c^-1 decrypts to p.
  schemes::IntegerPlaintext scaled = p;
  const uint64_t inverse = t_.inverse(a.correction);
  for (auto& v : scaled.coefficients)
    v = t_.mul(v, inverse);
  Ciphertext out = a.clone();
  out.ct.parts[0] += schemes::lift_centered(*context_, scaled, a.level());
  return out;
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const {
  check_plaintext(*context_, p, "sub_plain");
  schemes::IntegerPlaintext negated = p;
  for (auto& v : negated.coefficients)
    v = t_.negate(v);
  return add_plain_as(a, negated, "sub_plain");
}

Ciphertext Evaluator::add_scalar(const Ciphertext& a, uint64_t value) const {
  if (value >= t_.value()) {
    throw InvalidArgument("add_scalar: " + std::to_string(value) +
                          " is not below t = " + std::to_string(t_.value()));
  }
  schemes::IntegerPlaintext p{std::vector<uint64_t>(context_->degree(), 0), t_.value()};
  p.coefficients[0] = value;
  return add_plain_as(a, p, "add_scalar");
}

Ciphertext Evaluator::multiply_scalar(const Ciphertext& a, uint64_t value) const {
  check(a, "multiply_scalar");
  if (value >= t_.value()) {
    throw InvalidArgument("multiply_scalar: " + std::to_string(value) +
                          " is not below t = " + std::to_string(t_.value()));
  }
  Ciphertext out = a.clone();
  multiply_by_constant(out, value);
  return out;
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a,
                                     const schemes::IntegerPlaintext& p) const {
  check(a, "multiply_plain");
  check_plaintext(*context_, p, "multiply_plain");
  const ring::RnsPoly m = schemes::lift_centered(*context_, p, a.level());
  Ciphertext out = a.clone();
  for (auto& part : out.ct.parts)
    part *= m;
  return out;
}

namespace {

// (a0 + a1 s)(b0 + b1 s) = a0 b0 + (a0 b1 + a1 b0) s + a1 b1 s^2.
rlwe::Ciphertext tensor(const rlwe::Ciphertext& a, const rlwe::Ciphertext& b) {
  rlwe::Ciphertext out;
  for (auto& part : ring::tensor_product(a.parts[0], a.parts[1], b.parts[0], b.parts[1]))
    out.parts.push_back(std::move(part));
  return out;
}

}  // namespace

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "multiply");
  check(b, "multiply");
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidArgument("multiply: operands must have 2 parts; relinearize first");
  }
  if (mode_ == ModSwitchMode::automatic && std::min(a.level(), b.level()) == 0) {
    throw InvalidArgument(
        "multiply: depth exhausted (operand at level 0, no prime left to switch away); use "
        "larger parameters");
  }
  std::optional<Ciphertext> switched;
  const auto [x, y] = at_common_level(a, b, switched, "multiply");
  Ciphertext out{tensor(x->ct, y->ct), t_.mul(x->correction, y->correction)};
  if (mode_ == ModSwitchMode::automatic) mod_switch_inplace(out);
  return out;
}

Ciphertext Evaluator::square(const Ciphertext& a) const {
  return multiply(a, a);
}

Ciphertext Evaluator::relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const {
  check(a, "relinearize");
  rlwe::check_relin_key(*context_, key, "relinearize");
  check_key(key.key, "relinearize");
  if (a.size() != 3) {
    throw InvalidArgument("relinearize: needs a 3-part ciphertext, got " +
                          std::to_string(a.size()));
  }
  // The t-aware key switch keeps the message: d0 + d1 s = c2 s^2 + t e.
  auto d =
      rlwe::switch_key_and_add(*context_, a.ct.parts[2], key.key, a.ct.parts[0], a.ct.parts[1]);
  Ciphertext out;
  out.correction = a.correction;
  out.ct.parts.push_back(std::move(d[0]));
  out.ct.parts.push_back(std::move(d[1]));
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b,
                               const rlwe::RelinKey& key) const {
  check(a, "multiply");
  check(b, "multiply");
  rlwe::check_relin_key(*context_, key, "multiply");
  check_key(key.key, "multiply");
  if (mode_ == ModSwitchMode::manual) return relinearize(multiply(a, b), key);
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidArgument("multiply: operands must have 2 parts; relinearize first");
  }
  if (std::min(a.level(), b.level()) == 0) {
    throw InvalidArgument(
        "multiply: depth exhausted (operand at level 0, no prime left to switch away); use "
        "larger parameters");
  }
  std::optional<Ciphertext> switched;
  const auto [x, y] = at_common_level(a, b, switched, "multiply");
  // Relinearize and switch down in one step (rlwe::switch_key_and_divide,
  // with the key's error scale t), so the key-switching noise is divided too
  // and Q_(l-1) is transformed once: the parts become
  // (c_i P + D_i - delta) / (P q_l) with delta = 0 mod t, that is
  // (c_i + D_i / P) q_l^-1 mod t, as relinearize then mod_switch give.
  const rlwe::Ciphertext product = tensor(x->ct, y->ct);
  const math::Modulus& last = context_->ciphertext_ring()->modulus(product.level());
  auto [c0, c1] = rlwe::switch_key_and_divide(*context_, product.parts[2], key.key,
                                              product.parts[0], product.parts[1]);
  Ciphertext out;
  out.ct.parts.push_back(std::move(c0));
  out.ct.parts.push_back(std::move(c1));
  out.correction = t_.mul(t_.mul(x->correction, y->correction), t_.reduce(last.value()));
  return out;
}

Ciphertext Evaluator::square(const Ciphertext& a, const rlwe::RelinKey& key) const {
  return multiply(a, a, key);
}

void Evaluator::check_galois_operands(const Ciphertext& a, const rlwe::GaloisKeys& keys,
                                      const char* operation) const {
  check(a, operation);
  if (a.size() != 2) {
    throw InvalidArgument(std::string(operation) + ": relinearize the ciphertext first");
  }
  if (keys.context().get() != context_.get()) {
    throw MismatchError(std::string(operation) + ": the keys belong to a different context");
  }
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, uint64_t galois_element,
                                   const rlwe::GaloisKeys& keys, const char* operation,
                                   std::optional<int64_t> step) const {
  check_galois_operands(a, keys, operation);
  if (galois_element == 1) return a.clone();  // the identity, after the same checks
  const rlwe::KeySwitchKey& key = keys.at(galois_element, operation, step);
  check_key(key, operation);
  auto rotated = rlwe::apply_galois(*context_, a.ct.parts[0], a.ct.parts[1], key);
  Ciphertext out;
  out.correction = a.correction;
  out.ct.parts.push_back(std::move(rotated[0]));
  out.ct.parts.push_back(std::move(rotated[1]));
  return out;
}

Ciphertext Evaluator::rotate_rows(const Ciphertext& a, int64_t step,
                                  const rlwe::GaloisKeys& keys) const {
  check_galois_operands(a, keys, "rotate_rows");
  // The key of the step, or the fewest keys that compose it (a cycle of
  // N/2), every one present and made for BGV before any work.
  const auto plan =
      rlwe::plan_rotation(*context_, keys, step, context_->degree() / 2, "rotate_rows");
  for (const uint64_t g : plan)
    check_key(keys.at(g), "rotate_rows");
  if (plan.empty()) return a.clone();
  Ciphertext out = apply_galois(a, plan[0], keys, "rotate_rows", step);
  for (std::size_t i = 1; i < plan.size(); ++i)
    out = apply_galois(out, plan[i], keys, "rotate_rows", step);
  return out;
}

Ciphertext Evaluator::rotate_columns(const Ciphertext& a, const rlwe::GaloisKeys& keys) const {
  return apply_galois(a, context_->conjugation_galois_element(), keys, "rotate_columns");
}

Ciphertext Evaluator::mod_switch(const Ciphertext& a) const {
  check(a, "mod_switch");
  if (a.level() == 0) {
    throw InvalidArgument("mod_switch: the ciphertext is at level 0, no prime left to drop");
  }
  Ciphertext out = a.clone();
  mod_switch_inplace(out);
  return out;
}

Ciphertext Evaluator::mod_switch_to(const Ciphertext& a, std::size_t level) const {
  check(a, "mod_switch_to");
  if (level > a.level()) {
    throw InvalidArgument("mod_switch_to: level " + std::to_string(level) +
                          " is above the ciphertext's level " + std::to_string(a.level()));
  }
  Ciphertext out = a.clone();
  while (out.level() > level)
    mod_switch_inplace(out);
  return out;
}

}  // namespace heft::bgv
