// CKKS evaluator: arithmetic, exact scale bookkeeping with automatic or manual
// alignment, rescaling, rotations (plain, composed, hoisted), conjugation.
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

namespace heft::ckks {
namespace {

constexpr double kScaleTolerance = 1e-10;  // relative: scales this close count as equal

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

bool same_scale(double a, double b) {
  return std::abs(a - b) <= kScaleTolerance * std::max(a, b);
}

// A product still waiting for its rescale. At level 0 no prime is left to
// divide by, so a product there is final, also one loaded with the flag set.
bool rescale_pending(const Ciphertext& a) {
  return a.needs_rescale && a.level() > 0;
}

std::string log2_text(double x, int decimals = 2) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "2^%.*f", decimals, std::log2(x));
  return buffer;
}

// Two scales as "2^a", "2^b", with as many decimals as it takes for
// different scales to print differently (scales count as equal only within
// kScaleTolerance, so two refused scales can agree in many digits); their
// exact values when even their logarithms agree.
std::pair<std::string, std::string> distinct_scale_texts(double a, double b) {
  for (int decimals = 2; decimals <= 15; ++decimals) {
    std::string x = log2_text(a, decimals), y = log2_text(b, decimals);
    if (x != y || a == b) return {std::move(x), std::move(y)};
  }
  char x[40], y[40];
  std::snprintf(x, sizeof x, "%.17g", a);
  std::snprintf(y, sizeof y, "%.17g", b);
  return {x, y};
}

std::string two_scales_text(double a, double b) {
  const auto [x, y] = distinct_scale_texts(a, b);
  return x + " and " + y;
}

// x (an integer-valued double, any magnitude) modulo q, exactly: a double is
// mantissa * 2^exponent, so reduce both factors.
uint64_t reduce_integer_double(double x, const math::Modulus& q) {
  const bool negative = x < 0;
  const double magnitude = std::abs(x);
  uint64_t r;
  if (magnitude < 9.2e18) {
    r = q.reduce(static_cast<uint64_t>(magnitude));
  } else {
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
    const uint64_t mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
    r = q.mul(q.reduce(mantissa), q.pow(2, static_cast<uint64_t>(exponent - 53)));
  }
  return negative ? q.negate(r) : r;
}

}  // namespace

void Evaluator::drop_ciphertext_to(Ciphertext& a, std::size_t level, const char* operation) const {
  const std::size_t drop = a.level() - level;
  if (drop == 0) return;
  // Dropping keeps the scale: it must still fit the smaller modulus, or the
  // values would wrap (SEAL refuses the same).
  check_scale_fits(a.scale, level, operation);
  for (auto& part : a.parts)
    part.drop_last_towers(drop);
}

Evaluator::Evaluator(std::shared_ptr<const rlwe::Context> context, ScaleMode mode)
    : context_(std::move(context)), mode_(mode) {
  if (!context_) throw InvalidArgument("ckks::Evaluator needs a context");
  const double nominal = context_->parameters().scale;
  if (!(nominal > 0) || !std::isfinite(nominal)) {
    throw InvalidArgument("CKKS parameters need a positive nominal scale (Parameters::scale)");
  }
  const auto& primes = context_->parameters().ciphertext_moduli;
  const std::size_t levels = primes.size();
  level_scales_.resize(levels);
  level_scales_[levels - 1] = nominal;
  for (std::size_t level = levels - 1; level > 0; --level) {
    level_scales_[level - 1] =
        level_scales_[level] * level_scales_[level] / static_cast<double>(primes[level]);
  }
  log2_modulus_at_level_.resize(levels);
  double total = 0;
  for (std::size_t level = 0; level < levels; ++level) {
    total += std::log2(static_cast<double>(primes[level]));
    log2_modulus_at_level_[level] = total;
  }
}

double Evaluator::scale_at(std::size_t level) const {
  if (level >= level_scales_.size()) {
    throw InvalidArgument("level " + std::to_string(level) + " does not exist (top level is " +
                          std::to_string(level_scales_.size() - 1) + ")");
  }
  return level_scales_[level];
}

std::size_t Evaluator::combined_slots(std::size_t a_slots, std::size_t b_slots) const {
  // n sparse slots are the 2n-slot vector repeated twice, so an operation
  // on operands of n and 2n slots is one on 2n slots. 0 means all N/2.
  const std::size_t all = context_->degree() / 2;
  return std::max(a_slots != 0 ? a_slots : all, b_slots != 0 ? b_slots : all);
}

void Evaluator::check(const Ciphertext& a, const char* operation) const {
  rlwe::check_ciphertext(*context_, a, operation);
  check_scale_and_slots(a.scale, a.slots, "ciphertext", operation);
}

void Evaluator::check_scale_and_slots(double scale, std::size_t slots, const char* what,
                                      const char* operation) const {
  // Objects built or loaded by hand can carry any metadata; a NaN or infinite
  // scale would compare equal or unequal to everything, and a slot count the
  // encoder never makes would make rotations meaningless.
  const std::string problem = rlwe::detail::scale_and_slots_problem(*context_, scale, slots);
  if (!problem.empty()) {
    throw InvalidArgument(std::string(operation) + ": the " + what + " is malformed: " + problem);
  }
}

void Evaluator::check_plain(const Plaintext& p, const char* operation) const {
  if (p.poly.empty()) throw InvalidArgument(std::string(operation) + ": the plaintext is empty");
  if (p.poly.context() != context_->ciphertext_ring()) {
    throw MismatchError(std::string(operation) + ": the plaintext belongs to a different context");
  }
  if (!p.poly.is_ntt())
    throw MismatchError(std::string(operation) + ": the plaintext must be in NTT form");
  check_scale_and_slots(p.scale, p.slots, "plaintext", operation);
}

void Evaluator::check_keys(const rlwe::GaloisKeys& keys, const char* operation) const {
  if (keys.context() != context_) {
    throw MismatchError(std::string(operation) + ": the Galois keys belong to a different context");
  }
}

void Evaluator::check_scale_fits(double scale, std::size_t level, const char* operation,
                                 double factor) const {
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw InvalidArgument(std::string(operation) + ": the result's scale " + std::to_string(scale) +
                          " is not a positive finite number (the operands' scales overflow or "
                          "underflow a double)");
  }
  // Values of magnitude max(1, factor) must still be representable below
  // Q_l / 2, as encoding requires.
  const bool grows = factor > 1;
  const double log_magnitude = grows ? std::log2(factor) : 0.0;
  if (!(std::log2(scale) + log_magnitude < log2_modulus_at_level_[level] - 1)) {
    const std::string what = grows ? "values times " + std::to_string(factor) + " at scale "
                                   : std::string("the result's scale ");
    throw InvalidArgument(
        std::string(operation) + ": " + what + log2_text(scale) + " would overflow the modulus 2^" +
        std::to_string(static_cast<int>(log2_modulus_at_level_[level])) + " left at level " +
        std::to_string(level) +
        (level == 0 ? ": multiplicative depth exhausted (bootstrap, or use more primes)"
                    : ": rescale first"));
  }
}

ring::RnsPoly Evaluator::constant_poly(std::complex<double> value, double scale, std::size_t towers,
                                       const char* operation) const {
  if (!std::isfinite(value.real()) || !std::isfinite(value.imag())) {
    throw InvalidArgument(std::string(operation) + ": the constant is NaN or infinite");
  }
  const double re = std::round(value.real() * scale);
  const double im = std::round(value.imag() * scale);
  const double log2_q = log2_modulus_at_level_[towers - 1];
  // Written so that a NaN (from a scale of 0 times an infinity) fails it too.
  if (!(std::max(std::abs(re), std::abs(im)) < std::ldexp(1.0, static_cast<int>(log2_q) - 1))) {
    throw InvalidArgument(std::string(operation) + ": the constant times the scale " +
                          log2_text(scale) + " does not fit the modulus left at level " +
                          std::to_string(towers - 1));
  }
  // A constant c in every slot is Re(c) + Im(c) X^(N/2): X^(N/2) evaluates to i
  // at every slot root, whatever the slot count.
  ring::RnsPoly poly(context_->ciphertext_ring(), towers);
  const std::size_t half = context_->degree() / 2;
  for (std::size_t t = 0; t < towers; ++t) {
    const math::Modulus& q = poly.modulus(t);
    poly.tower(t)[0] = reduce_integer_double(re, q);
    poly.tower(t)[half] = reduce_integer_double(im, q);
  }
  poly.ntt();
  return poly;
}

void Evaluator::rescale_into(const Ciphertext& a, Ciphertext& out) const {
  check(a, "rescale");
  const std::size_t level = a.level();
  if (level == 0) {
    throw InvalidArgument(
        "rescale: the ciphertext is at level 0, no prime left to divide by "
        "(multiplicative depth exhausted)");
  }
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
  check(a, "drop_to_level");
  if (level > a.level()) {
    throw InvalidArgument("drop_to_level: target level " + std::to_string(level) +
                          " is above the ciphertext's level " + std::to_string(a.level()));
  }
  Ciphertext out = a.clone();
  drop_ciphertext_to(out, level, "drop_to_level");
  return out;
}

std::size_t Evaluator::effective_level(const Ciphertext& a) const {
  check(a, "effective_level");
  return mode_ == ScaleMode::automatic && rescale_pending(a) ? a.level() - 1 : a.level();
}

double Evaluator::effective_scale(const Ciphertext& a) const {
  check(a, "effective_scale");
  if (mode_ != ScaleMode::automatic || !rescale_pending(a)) return a.scale;
  return a.scale / static_cast<double>(context_->ciphertext_ring()->modulus(a.level()).value());
}

Ciphertext Evaluator::align_to(const Ciphertext& a, std::size_t level, double scale) const {
  constexpr const char* kOperation = "align_to";
  check(a, kOperation);
  if (level > a.level()) {
    throw InvalidArgument("align_to: the target level " + std::to_string(level) +
                          " is above the ciphertext's level " + std::to_string(a.level()) +
                          " (levels only go down)");
  }
  check_scale_fits(scale, level, kOperation);
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

void Evaluator::add_or_sub(Ciphertext& a, const Ciphertext& b_in, bool subtract,
                           const char* operation) const {
  check(a, operation);
  check(b_in, operation);
  if (a.level() == b_in.level() && same_scale(a.scale, b_in.scale) && a.size() >= b_in.size()) {
    // Already aligned (the common case): work in place, no copies. The checks
    // above guarantee the part operations below cannot fail half-way.
    for (std::size_t i = 0; i < b_in.parts.size(); ++i) {
      if (subtract) {
        a.parts[i] -= b_in.parts[i];
      } else {
        a.parts[i] += b_in.parts[i];
      }
    }
    a.slots = combined_slots(a.slots, b_in.slots);
    a.needs_rescale = a.needs_rescale || b_in.needs_rescale;
    return;
  }
  Ciphertext b = b_in.clone();
  Ciphertext result = a.clone();
  align(result, b, operation);
  while (result.parts.size() < b.parts.size()) {
    result.parts.emplace_back(context_->ciphertext_ring(), result.parts[0].tower_count(),
                              ring::Form::ntt);
  }
  for (std::size_t i = 0; i < b.parts.size(); ++i) {
    if (subtract) {
      result.parts[i] -= b.parts[i];
    } else {
      result.parts[i] += b.parts[i];
    }
  }
  result.slots = combined_slots(result.slots, b.slots);
  result.needs_rescale = result.needs_rescale || b.needs_rescale;
  a = std::move(result);
}

void Evaluator::add_inplace(Ciphertext& a, const Ciphertext& b) const {
  add_or_sub(a, b, false, "add");
}
void Evaluator::sub_inplace(Ciphertext& a, const Ciphertext& b) const {
  add_or_sub(a, b, true, "sub");
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  Ciphertext out = a.clone();
  add_inplace(out, b);
  return out;
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  Ciphertext out = a.clone();
  sub_inplace(out, b);
  return out;
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  check(a, "negate");
  Ciphertext out = a.clone();
  for (auto& part : out.parts)
    part.negate();
  return out;
}

namespace {
// A plaintext with its towers cut to `towers`.
ring::RnsPoly plain_at(const Plaintext& p, std::size_t towers) {
  ring::RnsPoly poly = p.poly.clone();
  if (poly.tower_count() > towers) poly.drop_last_towers(poly.tower_count() - towers);
  return poly;
}
}  // namespace

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

Ciphertext Evaluator::add_or_sub_plain(const Ciphertext& a, const Plaintext& p, bool subtract,
                                       const char* operation) const {
  check(a, operation);
  check_plain(p, operation);
  Ciphertext out = a.clone();
  align_to_plain(out, p, operation);
  const ring::RnsPoly poly = plain_at(p, out.level() + 1);
  if (subtract) {
    out.parts[0] -= poly;
  } else {
    out.parts[0] += poly;
  }
  out.slots = combined_slots(out.slots, p.slots);
  return out;
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const Plaintext& p) const {
  return add_or_sub_plain(a, p, false, "add_plain");
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const Plaintext& p) const {
  return add_or_sub_plain(a, p, true, "sub_plain");
}

Ciphertext Evaluator::add_scalar(const Ciphertext& a, std::complex<double> value) const {
  return add_constant(a, value, "add_scalar");
}

Ciphertext Evaluator::sub_scalar(const Ciphertext& a, std::complex<double> value) const {
  return add_constant(a, -value, "sub_scalar");
}

Ciphertext Evaluator::add_constant(const Ciphertext& a, std::complex<double> value,
                                   const char* operation) const {
  check(a, operation);
  Ciphertext out = a.clone();
  out.parts[0] += constant_poly(value, out.scale, out.level() + 1, operation);
  return out;
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

Ciphertext Evaluator::multiply(const Ciphertext& a_in, const Ciphertext& b_in) const {
  check(a_in, "multiply");
  check(b_in, "multiply");
  if (a_in.size() != 2 || b_in.size() != 2) {
    throw InvalidArgument("multiply: operands must have 2 parts; relinearize first");
  }
  // Operands are copied only where automatic mode changes them (rescale,
  // then drop to the common level); in the common case both enter the
  // tensor as they are.
  std::optional<Ciphertext> a_storage, b_storage;
  const Ciphertext& a_settled = settled_operand(a_in, a_storage);
  const Ciphertext& b_settled = settled_operand(b_in, b_storage);
  if (mode_ == ScaleMode::manual && a_settled.level() != b_settled.level()) {
    throw MismatchError("multiply: operands are at levels " + std::to_string(a_in.level()) +
                        " and " + std::to_string(b_in.level()) +
                        "; drop one with drop_to_level first");
  }
  const std::size_t level = std::min(a_settled.level(), b_settled.level());
  const Ciphertext& a = operand_at_level(a_settled, level, a_storage, "multiply");
  const Ciphertext& b = operand_at_level(b_settled, level, b_storage, "multiply");
  const double scale = a.scale * b.scale;
  check_scale_fits(scale, a.level(), "multiply");
  Ciphertext out;
  out.scale = scale;
  out.slots = combined_slots(a.slots, b.slots);
  out.needs_rescale = a.level() > 0;  // at level 0 there is no prime left to divide by
  auto parts = ring::tensor_product(a.parts[0], a.parts[1], b.parts[0], b.parts[1]);
  for (auto& part : parts)
    out.parts.push_back(std::move(part));
  return out;
}

Ciphertext Evaluator::square(const Ciphertext& a_in) const {
  check(a_in, "square");
  if (a_in.size() != 2)
    throw InvalidArgument("square: operand must have 2 parts; relinearize first");
  std::optional<Ciphertext> storage;
  const Ciphertext& a = settled_operand(a_in, storage);
  const double scale = a.scale * a.scale;
  check_scale_fits(scale, a.level(), "square");
  Ciphertext out;
  out.scale = scale;
  out.slots = a.slots;
  out.needs_rescale = a.level() > 0;
  ring::RnsPoly c1 = a.parts[0] * a.parts[1];
  c1 += c1;
  out.parts.push_back(a.parts[0] * a.parts[0]);
  out.parts.push_back(std::move(c1));
  out.parts.push_back(a.parts[1] * a.parts[1]);
  return out;
}

Ciphertext Evaluator::relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const {
  check(a, "relinearize");
  rlwe::check_relin_key(*context_, key, "relinearize");
  if (a.size() == 2) return a.clone();
  if (a.size() != 3) throw InvalidArgument("relinearize: expects a 3-part ciphertext");
  auto [d0, d1] = rlwe::switch_key_and_add(*context_, a.parts[2], key.key, a.parts[0], a.parts[1]);
  Ciphertext out;
  out.scale = a.scale;
  out.slots = a.slots;
  out.needs_rescale = a.needs_rescale;
  out.parts.push_back(std::move(d0));
  out.parts.push_back(std::move(d1));
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b,
                               const rlwe::RelinKey& key) const {
  rlwe::check_relin_key(*context_, key, "multiply");
  return relinearize(multiply(a, b), key);
}

Ciphertext Evaluator::relinearize_rescale(const Ciphertext& a, const rlwe::RelinKey& key) const {
  check(a, "relinearize_rescale");
  rlwe::check_relin_key(*context_, key, "relinearize_rescale");
  const std::size_t level = a.level();
  if (level == 0) {
    throw InvalidArgument(
        "relinearize_rescale: the ciphertext is at level 0, no prime left to divide by "
        "(multiplicative depth exhausted)");
  }
  if (a.size() == 2) return rescale(a);
  if (a.size() != 3) throw InvalidArgument("relinearize_rescale: expects a 3-part ciphertext");
  auto [c0, c1] =
      rlwe::switch_key_and_divide(*context_, a.parts[2], key.key, a.parts[0], a.parts[1]);
  Ciphertext out;
  out.parts.push_back(std::move(c0));
  out.parts.push_back(std::move(c1));
  out.scale = a.scale / static_cast<double>(context_->ciphertext_ring()->modulus(level).value());
  out.slots = a.slots;
  out.needs_rescale = false;
  return out;
}

Ciphertext Evaluator::multiply_rescale(const Ciphertext& a, const Ciphertext& b,
                                       const rlwe::RelinKey& key) const {
  if (key.key.context != context_) {
    throw MismatchError("multiply_rescale: the relinearization key belongs to a different context");
  }
  return relinearize_rescale(multiply(a, b), key);
}

Ciphertext Evaluator::square(const Ciphertext& a, const rlwe::RelinKey& key) const {
  if (key.key.context != context_) {
    throw MismatchError("square: the relinearization key belongs to a different context");
  }
  return relinearize(square(a), key);
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const Plaintext& p) const {
  check(a, "multiply_plain");
  check_plain(p, "multiply_plain");
  Ciphertext out = a.clone();
  if (mode_ == ScaleMode::automatic) {
    if (rescale_pending(out)) rescale_inplace(out);
    if (p.level() < out.level()) drop_ciphertext_to(out, p.level(), "multiply_plain");
  } else if (p.level() < out.level()) {
    throw MismatchError("multiply_plain: the plaintext is at level " + std::to_string(p.level()) +
                        ", below the ciphertext's level " + std::to_string(out.level()));
  }
  const double scale = out.scale * p.scale;
  check_scale_fits(scale, out.level(), "multiply_plain");
  const ring::RnsPoly poly = plain_at(p, out.level() + 1);
  for (auto& part : out.parts)
    part *= poly;
  out.scale = scale;
  out.slots = combined_slots(out.slots, p.slots);
  out.needs_rescale = out.level() > 0;
  return out;
}

Ciphertext Evaluator::multiply_scalar(const Ciphertext& a, std::complex<double> value) const {
  check(a, "multiply_scalar");
  if (!std::isfinite(value.real()) || !std::isfinite(value.imag())) {
    throw InvalidArgument("multiply_scalar: the scalar is NaN or infinite");
  }
  const double re = value.real();
  if (value.imag() == 0 && std::round(re) == re && std::abs(re) < 4.6e18) {
    return multiply_integer(a, static_cast<int64_t>(re));  // exact, keeps the level
  }
  Ciphertext out = a.clone();
  if (mode_ == ScaleMode::automatic && rescale_pending(out)) rescale_inplace(out);
  // The constant's scale. For a ciphertext at about its level's default
  // scale s_l: s_l^2 / scale, so the product lands on s_l^2, the scale of a
  // product of two such ciphertexts (c x + x^2 then adds with no alignment,
  // as in OpenFHE's FLEXIBLEAUTO). Otherwise q_l, so that rescaling returns
  // exactly to the input's scale. At level 0 (no rescale left): s_0.
  const std::size_t level = out.level();
  const double default_scale = scale_at(level);
  const bool near_default = out.scale > default_scale / 2 && out.scale < default_scale * 2;
  const double constant_scale =
      level == 0     ? scale_at(0)
      : near_default ? default_scale * default_scale / out.scale
                     : static_cast<double>(context_->parameters().ciphertext_moduli[level]);
  const double scale = out.scale * constant_scale;
  check_scale_fits(scale, level, "multiply_scalar", std::abs(value));
  const ring::RnsPoly constant = constant_poly(value, constant_scale, level + 1, "multiply_scalar");
  for (auto& part : out.parts)
    part *= constant;
  out.scale = scale;
  out.needs_rescale = level > 0;  // at level 0 there is no prime left to divide by
  return out;
}

Ciphertext Evaluator::multiply_integer(const Ciphertext& a, int64_t value) const {
  check(a, "multiply_integer");
  // The scale stays, the values grow by |value|: they must still fit.
  check_scale_fits(a.scale, a.level(), "multiply_integer", std::abs(static_cast<double>(value)));
  Ciphertext out = a.clone();
  const std::size_t towers = out.level() + 1;
  // |value| as an unsigned word (also right for INT64_MIN), reduced per tower.
  const uint64_t magnitude =
      value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::vector<uint64_t> residues(towers);
  for (std::size_t t = 0; t < towers; ++t) {
    const math::Modulus& q = out.parts[0].modulus(t);
    const uint64_t r = q.reduce(magnitude);
    residues[t] = value < 0 ? q.negate(r) : r;
  }
  for (auto& part : out.parts)
    part.multiply_scalar(residues);
  return out;
}

Ciphertext Evaluator::multiply_monomial(const Ciphertext& a, uint64_t k) const {
  check(a, "multiply_monomial");
  const uint64_t n = context_->degree();
  if (k >= 2 * n) {
    throw InvalidArgument("multiply_monomial: exponent " + std::to_string(k) +
                          " must be below 2N = " + std::to_string(2 * n) + " (X^(2N) = 1)");
  }
  std::vector<int64_t> monomial(n, 0);
  monomial[k % n] = k < n ? 1 : -1;  // X^N = -1
  ring::RnsPoly poly(context_->ciphertext_ring(), a.level() + 1);
  poly.set_coefficients(monomial);
  poly.ntt();
  Ciphertext out = a.clone();
  for (auto& part : out.parts)
    part *= poly;
  // n sparse slots live on the coefficients at multiples of N / (2n); X^k
  // moves them elsewhere unless k is such a multiple, and then only a full
  // N/2-slot decoding sees the result.
  const uint64_t slots = a.slots != 0 ? a.slots : n / 2;
  if (k % (n / (2 * slots)) != 0) out.slots = n / 2;
  return out;
}

namespace {

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
