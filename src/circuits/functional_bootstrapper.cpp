// FunctionalBootstrapper: bootstrapping that applies lookup tables (see the
// header for the phases and the table's polynomial).
#include "heft/circuits/functional_bootstrapper.hpp"

#include <cmath>
#include <complex>
#include <numbers>
#include <string>

#include "circuits/trigonometric_chebyshev.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

constexpr std::size_t kLargestModulus = 4096;
constexpr double kInterpolationBits = 32;  // the interpolant's error, relative to the table

// The settings of the bootstrapper whose phases the tables use: its own
// sine is never evaluated, so it gets the smallest.
BootstrapParameters phases_only(BootstrapParameters parameters) {
  parameters.order = BootstrapOrder::slots_to_coeffs_first;
  parameters.real_slots = true;
  parameters.message_ratio_bits = 0;
  parameters.sine_degree = 15;
  parameters.arcsine_degree = 0;
  return parameters;
}

}  // namespace

std::size_t FunctionalBootstrapper::table_degree(std::size_t modulus, std::size_t mod_range) {
  // Every table's G is a sum of waves of frequency at most pi p / 2 (in u);
  // the highest, with unit amplitude, needs the most terms.
  const double r = 2.0 * static_cast<double>(mod_range) + 1.0;
  const double z = std::numbers::pi * static_cast<double>(modulus) / 2 * r;
  for (std::size_t d = 15; d <= 65535; d = 2 * d + 1)
    if (detail::bessel_tail(z, d) < std::exp2(-kInterpolationBits)) return d;
  throw InvalidArgument(
      "FunctionalBootstrapper: a table of p = " + std::to_string(modulus) +
      " needs a polynomial of degree above 65535 at K = " + std::to_string(mod_range));
}

FunctionalBootstrapper::FunctionalBootstrapper(std::shared_ptr<const rlwe::Context> context,
                                               const BootstrapParameters& bootstrap,
                                               std::size_t modulus)
    : context_(std::move(context)),
      modulus_(modulus),
      bootstrapper_(context_, phases_only(bootstrap)),
      evaluator_(context_) {
  if (modulus < 2 || modulus > kLargestModulus)
    throw InvalidArgument("FunctionalBootstrapper: the modulus p = " + std::to_string(modulus) +
                          " is outside [2, " + std::to_string(kLargestModulus) + "]");
  range_ = 2.0 * static_cast<double>(bootstrap.mod_range) + 1.0;
  table_degree_ = table_degree(modulus, bootstrap.mod_range);
  coeffs_to_slots_levels_ = bootstrap.coeffs_to_slots_levels;
  // EvalMod's levels in a chain: a table in place of its sine takes those
  // of a sine of the table's degree.
  const auto eval_mod_levels = [&](std::size_t sine_degree) {
    BootstrapParameters p = bootstrap;
    p.sine_degree = sine_degree;
    return Bootstrapper::depth_for(p) - p.coeffs_to_slots_levels - p.slots_to_coeffs_levels;
  };
  table_depth_ = eval_mod_levels(table_degree_);
  const std::size_t chain_levels = eval_mod_levels(bootstrap.sine_degree);
  if (table_depth_ > chain_levels) {
    throw InvalidArgument(
        "FunctionalBootstrapper: a table of p = " + std::to_string(modulus) + " takes " +
        std::to_string(table_depth_) + " levels of EvalMod's primes; these parameters have " +
        std::to_string(chain_levels) + " (functional_bootstrap_preset makes parameters for p)");
  }
}

std::size_t FunctionalBootstrapper::entry_level() const noexcept {
  return bootstrapper_.entry_level() + 1;  // one level for the exact scale
}

std::size_t FunctionalBootstrapper::output_level() const noexcept {
  return context_->max_level() - coeffs_to_slots_levels_ - table_depth_;
}

BootstrapKeys FunctionalBootstrapper::create_keys(const rlwe::SecretKey& secret,
                                                  const KeyProgress& progress) const {
  return bootstrapper_.create_keys(secret, progress);
}

Polynomial FunctionalBootstrapper::table_polynomial(std::span<const double> table) const {
  if (table.size() != modulus_)
    throw InvalidArgument("FunctionalBootstrapper: a table of " + std::to_string(table.size()) +
                          " entries for p = " + std::to_string(modulus_));
  for (const double value : table)
    if (!std::isfinite(value))
      throw InvalidArgument("FunctionalBootstrapper: a table entry is not finite");
  return Polynomial::chebyshev(detail::lookup_table_chebyshev(table, range_, table_degree_),
                               -range_, range_);
}

rlwe::Ciphertext FunctionalBootstrapper::phase(const rlwe::Ciphertext& x, const BootstrapKeys& keys,
                                               double unit) const {
  const std::size_t n = bootstrapper_.slots();
  const std::size_t x_slots = x.slots == 0 ? context_->degree() / 2 : x.slots;
  if (x_slots != n)
    throw InvalidArgument("FunctionalBootstrapper: the ciphertext has " + std::to_string(x_slots) +
                          " slots; this bootstrapper is for " + std::to_string(n));
  rlwe::Ciphertext in = x.needs_rescale && x.level() > 0 ? evaluator_.rescale(x) : x.clone();
  const std::size_t stc_level = bootstrapper_.entry_level();
  if (in.level() < stc_level + 1)
    throw InvalidArgument(
        "FunctionalBootstrapper: the input must be at level >= " + std::to_string(stc_level + 1) +
        "; this one is at " + std::to_string(in.level()));
  // Real, and m - p/2: the phase (m - p/2) / p lies in [-1/2, 1/2).
  rlwe::Ciphertext real = evaluator_.add(in, evaluator_.conjugate(in, keys.galois));
  real.scale *= 2;
  real = evaluator_.sub_scalar(real, unit * static_cast<double>(modulus_) / 2);
  // The exact scale q_0 / p: align_to's integer stays below 2^50 (a label
  // exact to 2^-50), the rest is a power of two multiplied in afterwards.
  const auto& q = context_->parameters().ciphertext_moduli;
  const double target = static_cast<double>(q[0]) / (static_cast<double>(modulus_) * unit);
  const double source_level_prime = static_cast<double>(q[stc_level + 1]);
  double power = 1;
  while (target / power * source_level_prime / real.scale > std::exp2(50))
    power *= 2;
  rlwe::Ciphertext exact = evaluator_.align_to(real, stc_level, target / power);
  if (power > 1) {
    exact = evaluator_.multiply_integer(exact, static_cast<int64_t>(power));
    exact.scale *= power;
  }
  // The values become the coefficients; ModRaise adds q_0 I; CoeffsToSlots
  // brings (coefficient / q_0) back to the slots.
  rlwe::Ciphertext coefficients = bootstrapper_.slots_to_coeffs(exact, keys.galois);
  rlwe::Ciphertext raised = bootstrapper_.raise_coefficients(coefficients, keys);
  rlwe::Ciphertext slots = bootstrapper_.coeffs_to_slots(raised, keys.galois);
  return evaluator_.add(slots, evaluator_.conjugate(slots, keys.galois));  // 2 Re
}

rlwe::Ciphertext FunctionalBootstrapper::evaluate(const rlwe::Ciphertext& x,
                                                  std::span<const double> table,
                                                  const BootstrapKeys& keys) const {
  const std::vector<std::vector<double>> tables = {{table.begin(), table.end()}};
  return std::move(evaluate(x, tables, keys)[0]);
}

std::vector<rlwe::Ciphertext> FunctionalBootstrapper::evaluate(
    const rlwe::Ciphertext& x, const std::vector<std::vector<double>>& tables,
    const BootstrapKeys& keys, double unit) const {
  if (tables.empty()) throw InvalidArgument("FunctionalBootstrapper: no table");
  if (!(unit > 0) || !std::isfinite(unit))
    throw InvalidArgument("FunctionalBootstrapper: the unit must be positive and finite");
  std::vector<Polynomial> polynomials;
  for (const auto& table : tables)
    polynomials.push_back(table_polynomial(table));
  const rlwe::Ciphertext u = phase(x, keys, unit);
  PolynomialEvaluator evaluator(context_, keys.relin);
  evaluator.allow_transparent_results(true);  // a constant table
  return evaluator.evaluate(u, polynomials, evaluator_.scale_at(output_level()));
}

}  // namespace heft::circuits
