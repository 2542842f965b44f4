// PatersonStockmeyer: the leaf / split recursion (see the header).
#include "paterson_stockmeyer.hpp"

#include <bit>
#include <string>

#include "heft/util/error.hpp"

namespace heft::circuits::detail {

bool is_zero(const CoefficientVector& c) {
  for (const auto& v : c) {
    if (v != 0.0) return false;
  }
  return true;
}

std::size_t degree_of(const Coefficients& c) {
  for (std::size_t k = c.size(); k-- > 1;) {
    if (!is_zero(c[k])) return k;
  }
  return 0;
}

std::size_t EvaluationPlan::multiplications() const {
  std::size_t count = products;
  for (const std::size_t j : powers)
    count += j >= 2 ? 1 : 0;
  return count;
}

bool PatersonStockmeyer::is_leaf(const Coefficients& p, std::size_t target_level) const {
  const std::size_t degree = degree_of(p);
  if (degree == 0) return true;
  if (degree >= (std::size_t{1} << baby_log_)) return false;
  // Every term must sit above the level the sum is rescaled from.
  for (std::size_t j = 1; j <= degree; ++j) {
    if (!is_zero(p[j]) && PowerBasis::depth_of(j) + target_level + 1 > input_level_) return false;
  }
  return true;
}

std::pair<Coefficients, Coefficients> PatersonStockmeyer::split(const Coefficients& p,
                                                                std::size_t m) const {
  const std::size_t giant = std::size_t{1} << m;
  const std::size_t degree = degree_of(p);
  const std::size_t width = p[0].size();
  Coefficients q(giant, CoefficientVector(width, 0.0));
  Coefficients r(degree - giant + 1, CoefficientVector(width, 0.0));
  for (std::size_t j = 0; j < giant && j <= degree; ++j)
    q[j] = p[j];
  for (std::size_t j = giant; j <= degree; ++j) {
    if (basis_ == Basis::power || j == giant) {
      r[j - giant] = p[j];
      continue;
    }
    // T_j = 2 T_giant T_(j - giant) - T_(2 giant - j).
    for (std::size_t s = 0; s < width; ++s) {
      r[j - giant][s] = 2.0 * p[j][s];
      q[2 * giant - j][s] -= p[j][s];
    }
  }
  return {std::move(q), std::move(r)};
}

void PatersonStockmeyer::plan(const Coefficients& p, std::size_t target_level,
                              EvaluationPlan& out) const {
  if (is_leaf(p, target_level)) {
    for (std::size_t j = 1; j < p.size(); ++j) {
      if (!is_zero(p[j])) PowerBasis::add_with_dependencies(basis_, j, out.powers);
    }
    return;
  }
  const std::size_t m = static_cast<std::size_t>(std::bit_width(degree_of(p))) - 1;
  PowerBasis::add_with_dependencies(basis_, std::size_t{1} << m, out.powers);
  auto [q, r] = split(p, m);
  plan(q, target_level, out);
  if (degree_of(r) > 0) {
    ++out.products;
    plan(r, target_level + 1, out);
  }
}

rlwe::Ciphertext PatersonStockmeyer::leaf(const Coefficients& p, std::size_t target_level,
                                          double pending_scale, const Tools& tools) const {
  const std::size_t level = target_level + 1;
  rlwe::Ciphertext acc = tools.constants.zero(level, pending_scale, tools.slots);
  const auto add_term = [&](const rlwe::Ciphertext* x, const CoefficientVector& c) {
    if (is_zero(c)) return;
    if (c.size() == 1) {
      if (x) {
        tools.constants.multiply_accumulate(acc, *x, c[0], "polynomial evaluation");
      } else {
        tools.constants.add_constant(acc, c[0], "polynomial evaluation");
      }
      return;
    }
    // One value per slot: a plaintext at the scale that lands the term on acc's.
    const double scale = x ? pending_scale / x->scale : pending_scale;
    const rlwe::Plaintext plain = tools.encoder.encode(c, scale, level, tools.slots);
    if (x) {
      tools.constants.multiply_plain_accumulate(acc, *x, plain);
    } else {
      acc.parts[0] += plain.poly;
    }
  };
  add_term(nullptr, p[0]);
  for (std::size_t j = 1; j < p.size(); ++j)
    if (!is_zero(p[j])) add_term(&tools.powers.at(j), p[j]);
  return acc;
}

rlwe::Ciphertext PatersonStockmeyer::evaluate_pending(const Coefficients& p,
                                                      std::size_t target_level, double target_scale,
                                                      const Tools& tools) const {
  const auto& primes = tools.evaluator.context()->parameters().ciphertext_moduli;
  const double pending_scale = target_scale * static_cast<double>(primes.at(target_level + 1));
  if (is_leaf(p, target_level)) return leaf(p, target_level, pending_scale, tools);

  const std::size_t m = static_cast<std::size_t>(std::bit_width(degree_of(p))) - 1;
  const rlwe::Ciphertext& giant = tools.powers.at(std::size_t{1} << m);
  auto [q, r] = split(p, m);
  rlwe::Ciphertext sum = evaluate_pending(q, target_level, target_scale, tools);
  if (degree_of(r) == 0) {  // p = q + c T_(2^m): a constant, no product
    if (r[0].size() == 1) {
      tools.constants.multiply_accumulate(sum, giant, r[0][0], "polynomial evaluation");
    } else {
      const rlwe::Plaintext plain =
          tools.encoder.encode(r[0], pending_scale / giant.scale, target_level + 1, tools.slots);
      tools.constants.multiply_plain_accumulate(sum, giant, plain);
    }
    return sum;
  }
  // r at (target_level + 1, pending_scale / scale(T_(2^m))), then times T_(2^m).
  const double r_scale = pending_scale / giant.scale;
  rlwe::Ciphertext r_ct = tools.evaluator.relinearize_rescale(
      evaluate_pending(r, target_level + 1, r_scale, tools), tools.key);
  r_ct.scale = r_scale;
  const rlwe::Ciphertext giant_here = giant.level() == target_level + 1
                                          ? giant.clone()
                                          : tools.evaluator.drop_to_level(giant, target_level + 1);
  rlwe::Ciphertext product = tools.evaluator.multiply(r_ct, giant_here);
  product.scale = pending_scale;
  sum.scale = pending_scale;
  tools.evaluator.add_inplace(product, sum);
  return product;
}

}  // namespace heft::circuits::detail
