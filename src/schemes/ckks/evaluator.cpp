// CKKS evaluator: construction, operand checks, addition and subtraction
// (ciphertexts, plaintexts, constants) and multiplication (tensor product,
// relinearization, the fused rescale, plaintexts, constants, monomials).
// Scale bookkeeping is in evaluator_scale.cpp, rotations in
// evaluator_rotations.cpp.
#include "heft/schemes/ckks/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/util/error.hpp"
#include "math/integer_double.hpp"
#include "rlwe/ciphertext_arithmetic.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/relinearization.hpp"
#include "schemes/ckks/scale_rules.hpp"

namespace heft::ckks {

using detail::rescale_pending;
using detail::same_scale;
using detail::scale_text;

using math::reduce_integer_double;

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
  rlwe::detail::require_level(*context_, level, "scale_at");
  return level_scales_[level];
}

std::size_t Evaluator::combined_slots(std::size_t a_slots, std::size_t b_slots) const {
  // n sparse slots are the 2n-slot vector repeated twice, so an operation
  // on operands of n and 2n slots is one on 2n slots. 0 means all N/2.
  const std::size_t all = context_->degree() / 2;
  return std::max(a_slots != 0 ? a_slots : all, b_slots != 0 ? b_slots : all);
}

void Evaluator::require_operand(const Ciphertext& a, const char* operation) const {
  rlwe::require_ciphertext(*context_, a, operation);
  require_scale_and_slots(a.scale, a.slots, "ciphertext", operation);
}

void Evaluator::require_scale_and_slots(double scale, std::size_t slots, const char* what,
                                        const char* operation) const {
  // Objects built or loaded by hand can carry any metadata; a NaN or infinite
  // scale would compare equal or unequal to everything, and a slot count the
  // encoder never makes would make rotations meaningless.
  const std::string problem = rlwe::detail::scale_and_slots_problem(*context_, scale, slots);
  if (!problem.empty()) {
    throw InvalidArgument(std::string(operation) + ": the " + what + " is malformed: " + problem);
  }
}

void Evaluator::require_plaintext(const Plaintext& p, const char* operation) const {
  rlwe::detail::require_ciphertext_ring_poly(*context_, p.poly, operation, "the plaintext");
  rlwe::detail::require_ntt_form(p.poly, operation, "the plaintext");
  require_scale_and_slots(p.scale, p.slots, "plaintext", operation);
}

void Evaluator::require_scale_fits(double scale, std::size_t level, const char* operation,
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
    throw InvalidArgument(std::string(operation) + ": " + what + scale_text(scale) +
                          " would overflow the modulus 2^" +
                          std::to_string(static_cast<int>(log2_modulus_at_level_[level])) +
                          " left at level " + std::to_string(level) +
                          (level == 0
                               ? ": multiplicative depth exhausted (bootstrap, or use more primes)"
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
                          scale_text(scale) + " does not fit the modulus left at level " +
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

void Evaluator::add_or_sub(Ciphertext& a, const Ciphertext& b_in, bool subtract,
                           const char* operation) const {
  require_operand(a, operation);
  require_operand(b_in, operation);
  if (a.level() == b_in.level() && same_scale(a.scale, b_in.scale) && a.size() >= b_in.size()) {
    // Already aligned (the common case): work in place, no copies. The checks
    // above guarantee the part operations below cannot fail half-way.
    rlwe::detail::add_parts(a, b_in, subtract);
    if (!allows_transparent_results() && rlwe::is_transparent(a)) {
      rlwe::detail::add_parts(a, b_in, !subtract);  // undone exactly: a is as it was
      rlwe::throw_transparent(operation);
    }
    a.slots = combined_slots(a.slots, b_in.slots);
    a.needs_rescale = a.needs_rescale || b_in.needs_rescale;
    return;
  }
  Ciphertext b = b_in.clone();
  Ciphertext result = a.clone();
  align(result, b, operation);
  rlwe::detail::add_parts(result, b, subtract);
  check_transparent(result, operation);
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

Ciphertext Evaluator::sum_or_difference(const Ciphertext& a, const Ciphertext& b, bool subtract,
                                        const char* operation) const {
  require_operand(a, operation);
  require_operand(b, operation);
  if (a.level() == b.level() && same_scale(a.scale, b.scale)) {
    // Aligned (the common case): one pass into the result, no copy of a.
    Ciphertext out = rlwe::detail::sum_of_parts(a, b, subtract);
    check_transparent(out, operation);
    out.slots = combined_slots(a.slots, b.slots);
    out.needs_rescale = a.needs_rescale || b.needs_rescale;
    return out;
  }
  Ciphertext out = a.clone();
  add_or_sub(out, b, subtract, operation);
  return out;
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  return sum_or_difference(a, b, false, "add");
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  return sum_or_difference(a, b, true, "sub");
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  require_operand(a, "negate");
  return rlwe::detail::negated(a);
}

namespace {
// A plaintext with its towers cut to `towers`.
ring::RnsPoly plain_at(const Plaintext& p, std::size_t towers) {
  ring::RnsPoly poly = p.poly.clone();
  if (poly.tower_count() > towers) poly.drop_last_towers(poly.tower_count() - towers);
  return poly;
}
}  // namespace

Ciphertext Evaluator::add_or_sub_plain(const Ciphertext& a, const Plaintext& p, bool subtract,
                                       const char* operation) const {
  require_operand(a, operation);
  require_plaintext(p, operation);
  if (p.level() >= a.level() && same_scale(a.scale, p.scale) && !rescale_pending(a)) {
    // Aligned (the common case: p encoded at a's level and scale): the first
    // part in one pass from a's and p's towers, the others copied; no copy
    // of a or of p first.
    Ciphertext out = Ciphertext::with_metadata(a);
    const ring::RnsPoly& c0 = a.parts[0];
    ring::RnsPoly first = ring::RnsPoly::uninitialized(c0.context(), c0.tower_count(), c0.form());
    for (std::size_t t = 0; t < c0.tower_count(); ++t) {
      if (subtract) {
        math::sub_mod(c0.tower(t), p.poly.tower(t), first.tower(t), c0.modulus(t));
      } else {
        math::add_mod(c0.tower(t), p.poly.tower(t), first.tower(t), c0.modulus(t));
      }
    }
    out.parts.push_back(std::move(first));
    for (std::size_t i = 1; i < a.parts.size(); ++i)
      out.parts.push_back(a.parts[i].clone());
    out.c1_seed = a.c1_seed;  // c_1 is a's: a seeded save stays seeded
    out.slots = combined_slots(out.slots, p.slots);
    return out;
  }
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
  require_operand(a, operation);
  Ciphertext out = a.clone();
  out.parts[0] += constant_poly(value, out.scale, out.level() + 1, operation);
  return out;
}

Ciphertext Evaluator::multiply(const Ciphertext& a_in, const Ciphertext& b_in) const {
  require_operand(a_in, "multiply");
  require_operand(b_in, "multiply");
  rlwe::detail::require_relinearized(a_in, "multiply");
  rlwe::detail::require_relinearized(b_in, "multiply");
  // Operands are copied only where automatic mode changes them (rescale,
  // then drop to the common level); in the common case both enter the
  // tensor as they are.
  std::optional<Ciphertext> a_storage, b_storage;
  const Ciphertext& a_settled = settled_operand(a_in, a_storage);
  const Ciphertext& b_settled = settled_operand(b_in, b_storage);
  if (mode_ == ScaleMode::manual) {
    rlwe::detail::require_same_level(a_settled.level(), b_settled.level(), "multiply",
                                     "drop one with drop_to_level first");
  }
  const std::size_t level = std::min(a_settled.level(), b_settled.level());
  const Ciphertext& a = operand_at_level(a_settled, level, a_storage, "multiply");
  const Ciphertext& b = operand_at_level(b_settled, level, b_storage, "multiply");
  const double scale = a.scale * b.scale;
  require_scale_fits(scale, a.level(), "multiply");
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
  require_operand(a_in, "square");
  rlwe::detail::require_relinearized(a_in, "square");
  std::optional<Ciphertext> storage;
  const Ciphertext& a = settled_operand(a_in, storage);
  const double scale = a.scale * a.scale;
  require_scale_fits(scale, a.level(), "square");
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
  require_operand(a, "relinearize");
  rlwe::require_relin_key(*context_, key, "relinearize");
  // A 2-part ciphertext is already relinearized: a copy (CKKS has always
  // taken it, so that generic code may relinearize whatever it holds).
  if (a.size() == 2) return a.clone();
  rlwe::detail::require_product(a, "relinearize");
  return rlwe::relinearize_unchecked(*context_, a, key);
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b,
                               const rlwe::RelinKey& key) const {
  rlwe::require_relin_key(*context_, key, "multiply");
  return relinearize(multiply(a, b), key);
}

Ciphertext Evaluator::relinearize_rescale(const Ciphertext& a, const rlwe::RelinKey& key) const {
  constexpr const char* kOperation = "relinearize_rescale";
  require_operand(a, kOperation);
  rlwe::require_relin_key(*context_, key, kOperation);
  const std::size_t level = a.level();
  rlwe::detail::require_prime_to_drop(level, kOperation);
  if (a.size() == 2) return rescale(a);
  rlwe::detail::require_product(a, kOperation);
  Ciphertext out = rlwe::relinearize_and_divide_unchecked(*context_, a, key);
  out.scale = a.scale / static_cast<double>(context_->ciphertext_ring()->modulus(level).value());
  out.needs_rescale = false;
  return out;
}

Ciphertext Evaluator::multiply_rescale(const Ciphertext& a, const Ciphertext& b,
                                       const rlwe::RelinKey& key) const {
  rlwe::require_relin_key(*context_, key, "multiply_rescale");
  return relinearize_rescale(multiply(a, b), key);
}

Ciphertext Evaluator::square(const Ciphertext& a, const rlwe::RelinKey& key) const {
  rlwe::require_relin_key(*context_, key, "square");
  return relinearize(square(a), key);
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const Plaintext& p) const {
  require_operand(a, "multiply_plain");
  require_plaintext(p, "multiply_plain");
  Ciphertext out = a.clone();
  if (mode_ == ScaleMode::automatic) {
    if (rescale_pending(out)) rescale_inplace(out);
    if (p.level() < out.level()) drop_ciphertext_to(out, p.level(), "multiply_plain");
  } else if (p.level() < out.level()) {
    throw MismatchError("multiply_plain: the plaintext is at level " + std::to_string(p.level()) +
                        ", below the ciphertext's level " + std::to_string(out.level()));
  }
  const double scale = out.scale * p.scale;
  require_scale_fits(scale, out.level(), "multiply_plain");
  const ring::RnsPoly poly = plain_at(p, out.level() + 1);
  for (auto& part : out.parts)
    part *= poly;
  out.scale = scale;
  out.slots = combined_slots(out.slots, p.slots);
  out.needs_rescale = out.level() > 0;
  check_transparent(out, "multiply_plain");
  return out;
}

Ciphertext Evaluator::multiply_scalar(const Ciphertext& a, std::complex<double> value) const {
  require_operand(a, "multiply_scalar");
  if (!std::isfinite(value.real()) || !std::isfinite(value.imag())) {
    throw InvalidArgument("multiply_scalar: the scalar is NaN or infinite");
  }
  if (value == std::complex<double>(0) && !allows_transparent_results()) {
    rlwe::throw_transparent("multiply_scalar");  // before any work
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
  require_scale_fits(scale, level, "multiply_scalar", std::abs(value));
  const ring::RnsPoly constant = constant_poly(value, constant_scale, level + 1, "multiply_scalar");
  for (auto& part : out.parts)
    part *= constant;
  out.scale = scale;
  out.needs_rescale = level > 0;  // at level 0 there is no prime left to divide by
  check_transparent(out, "multiply_scalar");
  return out;
}

Ciphertext Evaluator::multiply_integer(const Ciphertext& a, int64_t value) const {
  require_operand(a, "multiply_integer");
  // The scale stays, the values grow by |value|: they must still fit.
  require_scale_fits(a.scale, a.level(), "multiply_integer", std::abs(static_cast<double>(value)));
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
  check_transparent(out, "multiply_integer");
  return out;
}

Ciphertext Evaluator::multiply_monomial(const Ciphertext& a, uint64_t k) const {
  require_operand(a, "multiply_monomial");
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

}  // namespace heft::ckks
