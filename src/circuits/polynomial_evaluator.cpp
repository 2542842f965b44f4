// PolynomialEvaluator: input checks, the change of variable, the choice of
// the baby-step size, and the calls into the recursion (see the header).
#include "heft/circuits/polynomial_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "constant_products.hpp"
#include "heft/util/error.hpp"
#include "paterson_stockmeyer.hpp"
#include "power_basis.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::circuits {

namespace {

detail::Coefficients uniform_coefficients(const Polynomial& p) {
  detail::Coefficients out;
  out.reserve(p.degree() + 1);
  for (std::size_t j = 0; j <= p.degree(); ++j)
    out.push_back({p.coefficients()[j]});
  return out;
}

bool same_variable(const Polynomial& a, const Polynomial& b) {
  return a.basis() == b.basis() && a.variable_scale() == b.variable_scale() &&
         a.variable_shift() == b.variable_shift();
}

// The baby-step size (leaves take degrees below 2^l) with the fewest
// products over all the polynomials, each landing `depth` levels down.
std::size_t choose_baby_log(Basis basis, std::size_t input_level,
                            const std::vector<detail::Coefficients>& polynomials,
                            const std::vector<std::size_t>& target_levels) {
  std::size_t max_depth = 1;
  for (const auto& p : polynomials)
    max_depth = std::max<std::size_t>(max_depth, std::bit_width(detail::degree_of(p)));
  std::size_t best = 1, best_count = std::numeric_limits<std::size_t>::max();
  for (std::size_t l = 1; l <= max_depth; ++l) {
    detail::EvaluationPlan plan;
    const detail::PatersonStockmeyer recursion(basis, input_level, l);
    for (std::size_t i = 0; i < polynomials.size(); ++i)
      recursion.plan(polynomials[i], target_levels[i], plan);
    if (plan.multiplications() < best_count) {
      best_count = plan.multiplications();
      best = l;
    }
  }
  return best;
}

}  // namespace

PolynomialEvaluator::PolynomialEvaluator(std::shared_ptr<const rlwe::Context> context,
                                         const rlwe::RelinKey& key)
    : context_(std::move(context)),
      key_(&key),
      evaluator_(context_, ckks::ScaleMode::manual),
      encoder_(context_),
      constants_(std::make_unique<detail::ConstantProducts>(context_)) {
  // Accumulators start from zero and constants are trivial ciphertexts: the
  // results alone are checked (checked()).
  evaluator_.allow_transparent_results(true);
  rlwe::require_relin_key(*context_, key, "PolynomialEvaluator");
}

PolynomialEvaluator::~PolynomialEvaluator() = default;
PolynomialEvaluator::PolynomialEvaluator(PolynomialEvaluator&&) noexcept = default;

std::vector<rlwe::Ciphertext> PolynomialEvaluator::checked(std::vector<rlwe::Ciphertext> results,
                                                           const char* operation) const {
  for (const auto& result : results)
    check_transparent(result, operation);
  return results;
}

rlwe::Ciphertext PolynomialEvaluator::checked(rlwe::Ciphertext result,
                                              const char* operation) const {
  check_transparent(result, operation);
  return result;
}
PolynomialEvaluator& PolynomialEvaluator::operator=(PolynomialEvaluator&&) noexcept = default;

// The shared part of every entry point: checks, the variable, the plan, the
// powers, then one recursion per polynomial.
static std::vector<rlwe::Ciphertext> evaluate_all(
    const rlwe::Ciphertext& x, const std::vector<detail::Coefficients>& polynomials,
    const Polynomial& variable, double target_scale, const ckks::Evaluator& evaluator,
    const ckks::Encoder& encoder, const detail::ConstantProducts& constants,
    const rlwe::RelinKey& key, const char* operation) {
  rlwe::detail::require_relinearized(x, operation);
  rlwe::Ciphertext y = x.needs_rescale && x.level() > 0 ? evaluator.rescale(x) : x.clone();
  std::size_t max_depth = 0;
  for (const auto& p : polynomials)
    max_depth = std::max<std::size_t>(max_depth, std::bit_width(detail::degree_of(p)));
  const auto& primes = evaluator.context()->parameters().ciphertext_moduli;
  // The change of variable takes a level when alpha is not +-2^k, or when
  // the input's scale is so far from the prime its first square divides by
  // that the powers' scales would drift away (the mismatch doubles with
  // every squaring): that level then also brings the scale onto the prime.
  const double drift =
      y.level() > 0 ? std::abs(std::log2(y.scale / static_cast<double>(primes[y.level()]))) : 0;
  const bool costs_level =
      max_depth > 0 && (variable.change_of_variable_uses_level() ||
                        drift * std::ldexp(1.0, static_cast<int>(max_depth) - 1) > 8);
  const std::size_t needed = max_depth + (costs_level ? 1 : 0);
  if (needed > y.level()) {
    throw InvalidArgument(std::string(operation) + ": the polynomial needs " +
                          std::to_string(needed) + " levels; the input has " +
                          std::to_string(y.level()));
  }
  if (!(target_scale > 0) || !std::isfinite(target_scale)) {
    throw InvalidArgument(std::string(operation) +
                          ": the target scale must be positive and finite");
  }
  const std::size_t input_level = y.level() - (costs_level ? 1 : 0);
  std::vector<std::size_t> target_levels;
  for (const auto& p : polynomials)
    target_levels.push_back(input_level - std::bit_width(detail::degree_of(p)));
  // y = alpha x + beta.
  const double alpha = variable.variable_scale(), beta = variable.variable_shift();
  if (costs_level) {
    // Lands on scale q_(input_level): the first square divides by that prime.
    const double landing = static_cast<double>(primes[input_level]);
    rlwe::Ciphertext mapped =
        constants.zero(y.level(), landing * static_cast<double>(primes[y.level()]), y.slots);
    constants.multiply_accumulate(mapped, y, alpha, operation);
    constants.add_constant(mapped, beta, operation);
    y = evaluator.rescale(mapped);
    y.scale = landing;
  } else {
    if (alpha != 1.0) y = evaluator.multiply_integer(y, static_cast<int64_t>(alpha));
    constants.add_constant(y, beta, operation);
  }
  y.needs_rescale = false;

  const Basis basis = variable.basis();
  const std::size_t baby_log = choose_baby_log(basis, input_level, polynomials, target_levels);
  const detail::PatersonStockmeyer recursion(basis, input_level, baby_log);
  detail::EvaluationPlan plan;
  for (std::size_t i = 0; i < polynomials.size(); ++i)
    recursion.plan(polynomials[i], target_levels[i], plan);
  const std::size_t slots = y.slots;
  detail::PowerBasis powers(basis, std::move(y), evaluator, constants, key);
  powers.compute(plan.powers);

  const detail::PatersonStockmeyer::Tools tools{evaluator, encoder, constants, key, powers, slots};
  std::vector<rlwe::Ciphertext> results;
  for (std::size_t i = 0; i < polynomials.size(); ++i) {
    const std::size_t depth = input_level - target_levels[i];
    if (depth == 0) {  // a constant: a trivial ciphertext at the input's level
      rlwe::Ciphertext constant = constants.zero(input_level, target_scale, slots);
      constant.needs_rescale = false;
      const auto& c = polynomials[i][0];
      if (c.size() == 1) {
        constants.add_constant(constant, c[0], operation);
      } else {
        constant.parts[0] += encoder.encode(c, target_scale, input_level, slots).poly;
      }
      results.push_back(std::move(constant));
      continue;
    }
    rlwe::Ciphertext out = evaluator.relinearize_rescale(
        recursion.evaluate_pending(polynomials[i], target_levels[i], target_scale, tools), key);
    out.scale = target_scale;
    out.needs_rescale = false;
    results.push_back(std::move(out));
  }
  return results;
}

rlwe::Ciphertext PolynomialEvaluator::evaluate(const rlwe::Ciphertext& x, const Polynomial& p,
                                               double target_scale) const {
  auto results = evaluate_all(x, {uniform_coefficients(p)}, p, target_scale, evaluator_, encoder_,
                              *constants_, *key_, "evaluate");
  return checked(std::move(results.front()), "PolynomialEvaluator::evaluate");
}

rlwe::Ciphertext PolynomialEvaluator::evaluate(const rlwe::Ciphertext& x,
                                               const Polynomial& p) const {
  const std::size_t level = x.needs_rescale && x.level() > 0 ? x.level() - 1 : x.level();
  // Default target: the scale of the level the result lands on.
  const std::size_t out_level = level >= p.depth() ? level - p.depth() : 0;
  return evaluate(x, p, evaluator_.scale_at(out_level));
}

std::vector<rlwe::Ciphertext> PolynomialEvaluator::evaluate(const rlwe::Ciphertext& x,
                                                            std::span<const Polynomial> polynomials,
                                                            double target_scale) const {
  if (polynomials.empty()) return {};
  std::vector<detail::Coefficients> all;
  for (const auto& p : polynomials) {
    if (!same_variable(p, polynomials[0])) {
      throw InvalidArgument(
          "evaluate: the polynomials must share their basis and interval (one variable)");
    }
    all.push_back(uniform_coefficients(p));
  }
  return checked(evaluate_all(x, all, polynomials[0], target_scale, evaluator_, encoder_,
                              *constants_, *key_, "evaluate"),
                 "PolynomialEvaluator::evaluate");
}

rlwe::Ciphertext PolynomialEvaluator::evaluate_slot_groups(const rlwe::Ciphertext& x,
                                                           std::span<const Polynomial> polynomials,
                                                           std::span<const int> slot_group,
                                                           double target_scale) const {
  const char* operation = "evaluate_slot_groups";
  if (polynomials.empty()) throw InvalidArgument("evaluate_slot_groups: no polynomials");
  const std::size_t slots = x.slots == 0 ? context_->degree() / 2 : x.slots;
  if (slot_group.size() != slots) {
    throw InvalidArgument("evaluate_slot_groups: slot_group has " +
                          std::to_string(slot_group.size()) + " entries for " +
                          std::to_string(slots) + " slots");
  }
  std::size_t degree = 0;
  for (const auto& p : polynomials) {
    if (!same_variable(p, polynomials[0])) {
      throw InvalidArgument(std::string(operation) +
                            ": the polynomials must share their basis and interval");
    }
    degree = std::max(degree, p.degree());
  }
  for (std::size_t i = 0; i < slots; ++i) {
    if (slot_group[i] < -1 || slot_group[i] >= static_cast<int>(polynomials.size())) {
      throw InvalidArgument(std::string(operation) + ": slot " + std::to_string(i) +
                            " names polynomial " + std::to_string(slot_group[i]) + " of " +
                            std::to_string(polynomials.size()));
    }
  }
  detail::Coefficients merged(degree + 1, detail::CoefficientVector(slots, 0.0));
  for (std::size_t j = 0; j <= degree; ++j) {
    for (std::size_t i = 0; i < slots; ++i) {
      if (slot_group[i] < 0) continue;
      const auto& c = polynomials[static_cast<std::size_t>(slot_group[i])].coefficients();
      if (j < c.size()) merged[j][i] = c[j];
    }
  }
  auto results = evaluate_all(x, {std::move(merged)}, polynomials[0], target_scale, evaluator_,
                              encoder_, *constants_, *key_, operation);
  return checked(std::move(results.front()), "PolynomialEvaluator::evaluate_slot_groups");
}

std::size_t PolynomialEvaluator::multiplication_count(const Polynomial& p) const {
  const std::size_t depth = std::bit_width(p.degree());
  // The count depends on the input level only through which leaves fit:
  // take the tightest case, an input with exactly depth levels.
  const std::vector<detail::Coefficients> one{uniform_coefficients(p)};
  const std::vector<std::size_t> target{0};
  const std::size_t baby_log = choose_baby_log(p.basis(), depth, one, target);
  detail::EvaluationPlan plan;
  detail::PatersonStockmeyer(p.basis(), depth, baby_log).plan(one[0], 0, plan);
  return plan.multiplications();
}

}  // namespace heft::circuits
