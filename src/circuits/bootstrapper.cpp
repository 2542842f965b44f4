// Bootstrapper: the phases of CKKS bootstrapping (see the header).
#include "heft/circuits/bootstrapper.hpp"

#include <bit>
#include <chrono>
#include <cmath>
#include <numbers>
#include <set>
#include <string>

#include "heft/circuits/approximation.hpp"
#include "heft/circuits/homomorphic_dft.hpp"
#include "heft/rlwe/mod_raise.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// sin(pi a) / 2 pi on [-r, r] at the smallest degree 2^k - 1 whose
// interpolant is within 2^-40 (or at `degree` if given).
Polynomial sine_polynomial(double r, std::size_t degree) {
  const auto f = [](double a) { return std::sin(std::numbers::pi * a) / (2 * std::numbers::pi); };
  if (degree != 0) return chebyshev_interpolate(f, -r, r, degree);
  for (std::size_t d = 15; d <= 4095; d = 2 * d + 1) {
    Polynomial p = chebyshev_interpolate(f, -r, r, d);
    if (max_error(p, f, -r, r, 20001) < std::ldexp(1.0, -40)) return p;
  }
  throw InvalidArgument("Bootstrapper: no sine interpolant of degree below 4096 for this range");
}

Polynomial sine_for(const BootstrapParameters& parameters) {
  if (parameters.mod_range == 0) throw InvalidArgument("Bootstrapper: mod_range must be >= 1");
  return sine_polynomial(2.0 * static_cast<double>(parameters.mod_range) + 1.0,
                         parameters.sine_degree);
}

// Seconds since `start`, and `start` moved to now.
double lap(std::chrono::steady_clock::time_point& start) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start).count();
  start = now;
  return seconds;
}

}  // namespace

std::size_t Bootstrapper::depth_for(const BootstrapParameters& parameters) {
  return parameters.coeffs_to_slots_levels + sine_for(parameters).depth() +
         parameters.slots_to_coeffs_levels;
}

Bootstrapper::Bootstrapper(std::shared_ptr<const rlwe::Context> context,
                           const BootstrapParameters& parameters)
    : context_(std::move(context)),
      parameters_(parameters),
      slots_(parameters.slots == 0 ? context_->degree() / 2 : parameters.slots),
      encoder_(context_),
      evaluator_(context_),
      transforms_(context_) {
  const std::size_t n = slots_;
  if (!std::has_single_bit(n) || n < 2 || n > context_->degree() / 2) {
    throw InvalidArgument("Bootstrapper: the slot count " + std::to_string(n) +
                          " is not a power of two in [2, N/2]");
  }
  sine_ = sine_for(parameters);
  const std::size_t needed =
      parameters.coeffs_to_slots_levels + sine_.depth() + parameters.slots_to_coeffs_levels;
  if (needed + 1 > context_->level_count()) {
    throw InvalidArgument("Bootstrapper: it needs " + std::to_string(needed) +
                          " levels above level 0; these parameters have " +
                          std::to_string(context_->max_level()));
  }
  const std::size_t top = context_->max_level();
  // After SubSum the coefficients are N / 2n times the message's.
  const double gap = static_cast<double>(context_->degree()) / (2.0 * static_cast<double>(n));
  const auto to_slots = coeffs_to_slots_matrices(n, parameters.coeffs_to_slots_levels, 1.0 / gap);
  for (std::size_t i = 0; i < to_slots.size(); ++i) {
    LinearTransformOptions options;
    options.level = top - i;
    options.slots = n;
    coeffs_to_slots_.push_back(LinearTransform::from_diagonals(encoder_, to_slots[i], options));
  }
  const std::size_t first_stc = top - parameters.coeffs_to_slots_levels - sine_.depth();
  const auto to_coeffs = slots_to_coeffs_matrices(n, parameters.slots_to_coeffs_levels, 1.0);
  for (std::size_t i = 0; i < to_coeffs.size(); ++i) {
    LinearTransformOptions options;
    options.level = first_stc - i;
    options.slots = n;
    slots_to_coeffs_.push_back(LinearTransform::from_diagonals(encoder_, to_coeffs[i], options));
  }
}

std::size_t Bootstrapper::depth() const noexcept {
  return parameters_.coeffs_to_slots_levels + sine_.depth() + parameters_.slots_to_coeffs_levels;
}

std::size_t Bootstrapper::output_level() const noexcept {
  return context_->max_level() - depth();
}

std::vector<int64_t> Bootstrapper::rotation_steps() const {
  std::set<int64_t> steps;
  for (std::size_t step = slots_; step < context_->degree() / 2; step *= 2)
    steps.insert(static_cast<int64_t>(step));
  for (const auto* group : {&coeffs_to_slots_, &slots_to_coeffs_})
    for (const auto& m : *group)
      for (const int64_t s : m.rotation_steps())
        steps.insert(s);
  return {steps.begin(), steps.end()};
}

rlwe::Ciphertext Bootstrapper::at_level_zero(const rlwe::Ciphertext& x) const {
  const std::size_t x_slots = x.slots == 0 ? context_->degree() / 2 : x.slots;
  if (x_slots != slots_) {
    throw InvalidArgument("bootstrap: the ciphertext has " + std::to_string(x_slots) +
                          " slots; this bootstrapper is for " + std::to_string(slots_));
  }
  rlwe::Ciphertext low = x.needs_rescale && x.level() > 0 ? evaluator_.rescale(x) : x.clone();
  if (low.level() > 0) low = evaluator_.drop_to_level(low, 0);
  return low;
}

rlwe::Ciphertext Bootstrapper::mod_raise(const rlwe::Ciphertext& x,
                                         const rlwe::GaloisKeys& keys) const {
  const std::size_t n = slots_;
  const rlwe::Ciphertext low = at_level_zero(x);
  rlwe::Ciphertext raised = rlwe::mod_raise(*context_, low, context_->max_level());
  raised.scale = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  // SubSum over the full slot cycle: rotations by n, 2n, ..., N/4.
  raised.slots = context_->degree() / 2;
  for (std::size_t step = n; step < context_->degree() / 2; step *= 2)
    evaluator_.add_inplace(raised, evaluator_.rotate(raised, static_cast<int64_t>(step), keys));
  raised.slots = n;
  return raised;
}

rlwe::Ciphertext Bootstrapper::apply_in_turn(const rlwe::Ciphertext& x,
                                             const std::vector<LinearTransform>& transforms,
                                             const rlwe::GaloisKeys& keys) const {
  rlwe::Ciphertext y = x.clone();
  for (const auto& m : transforms)
    y = evaluator_.rescale(transforms_.evaluate(y, m, keys));
  return y;
}

rlwe::Ciphertext Bootstrapper::coeffs_to_slots(const rlwe::Ciphertext& x,
                                               const rlwe::GaloisKeys& keys) const {
  return apply_in_turn(x, coeffs_to_slots_, keys);
}

rlwe::Ciphertext Bootstrapper::eval_mod(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                        const rlwe::GaloisKeys& keys, double target_scale) const {
  const PolynomialEvaluator polynomials(context_, relin);
  const uint64_t half = context_->degree() / 2;
  const rlwe::Ciphertext conjugate = evaluator_.conjugate(x, keys);
  // 2 Re(w) = w + conj(w); 2 Im(w) = -i (w - conj(w)), -i being X^(3N/2).
  const rlwe::Ciphertext real2 = evaluator_.add(x, conjugate);
  const rlwe::Ciphertext imag2 =
      evaluator_.multiply_monomial(evaluator_.sub(x, conjugate), 3 * half);
  const std::size_t level = real2.level() - sine_.depth();
  const double scale = target_scale > 0 ? target_scale : evaluator_.scale_at(level);
  const rlwe::Ciphertext real = polynomials.evaluate(real2, sine_, scale);
  const rlwe::Ciphertext imag = polynomials.evaluate(imag2, sine_, scale);
  return evaluator_.add(real, evaluator_.multiply_monomial(imag, half));
}

rlwe::Ciphertext Bootstrapper::slots_to_coeffs(const rlwe::Ciphertext& x,
                                               const rlwe::GaloisKeys& keys) const {
  return apply_in_turn(x, slots_to_coeffs_, keys);
}

rlwe::Ciphertext Bootstrapper::bootstrap(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                         const rlwe::GaloisKeys& keys,
                                         BootstrapPhaseTimes* times) const {
  const double input_scale =
      x.needs_rescale && x.level() > 0 ? evaluator_.effective_scale(x) : x.scale;
  BootstrapPhaseTimes local;
  BootstrapPhaseTimes& t = times != nullptr ? *times : local;
  auto start = std::chrono::steady_clock::now();
  rlwe::Ciphertext y = mod_raise(x, keys);
  t.mod_raise = lap(start);
  y = coeffs_to_slots(y, keys);
  t.coeffs_to_slots = lap(start);
  // EvalMod's scale, so that the output lands on the output level's default.
  const double q0 = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  y = eval_mod(y, relin, keys, evaluator_.scale_at(output_level()) * q0 / input_scale);
  t.eval_mod = lap(start);
  y = slots_to_coeffs(y, keys);
  t.slots_to_coeffs = lap(start);
  // The slots hold the input's values times Delta / q_0.
  y.scale *= input_scale / q0;
  return y;
}

}  // namespace heft::circuits
