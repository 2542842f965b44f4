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

void PatersonStockmeyer::collect_leaves(const Coefficients& p, std::size_t target_level,
                                        double target_scale, const Tools& tools,
                                        std::vector<LeafRequest>& out) const {
  const auto& primes = tools.evaluator.context()->parameters().ciphertext_moduli;
  const double pending_scale = target_scale * static_cast<double>(primes.at(target_level + 1));
  if (is_leaf(p, target_level)) {
    out.push_back({p, target_level + 1, pending_scale});
    return;
  }
  const std::size_t m = static_cast<std::size_t>(std::bit_width(degree_of(p))) - 1;
  auto [q, r] = split(p, m);
  collect_leaves(q, target_level, target_scale, tools, out);
  if (degree_of(r) > 0) {
    collect_leaves(r, target_level + 1, pending_scale / tools.powers.at(std::size_t{1} << m).scale,
                   tools, out);
  }
}

std::vector<rlwe::Ciphertext> PatersonStockmeyer::leaves(std::span<const LeafRequest> requests,
                                                         const Tools& tools) {
  // The terms with one constant for every slot, all leaves in one pass over
  // the powers; then each leaf's constant term and terms with a value per
  // slot.
  std::vector<ConstantProducts::Combination> combinations;
  for (const LeafRequest& request : requests) {
    ConstantProducts::Combination combination{request.level, request.scale, tools.slots, {}};
    for (std::size_t j = 1; j < request.p.size(); ++j) {
      if (request.p[j].size() == 1 && request.p[j][0] != 0.0)
        combination.terms.push_back({&tools.powers.at(j), request.p[j][0]});
    }
    combinations.push_back(std::move(combination));
  }
  std::vector<rlwe::Ciphertext> sums =
      tools.constants.linear_combinations(combinations, "polynomial evaluation");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const LeafRequest& request = requests[i];
    rlwe::Ciphertext& acc = sums[i];
    const auto add_slotwise_term = [&](const rlwe::Ciphertext* x, const CoefficientVector& c) {
      // One value per slot: a plaintext at the scale that lands the term on acc's.
      const double scale = x ? request.scale / x->scale : request.scale;
      const rlwe::Plaintext plain = tools.encoder.encode(c, scale, request.level, tools.slots);
      if (x) {
        tools.constants.multiply_plain_accumulate(acc, *x, plain);
      } else {
        acc.parts[0] += plain.poly;
      }
    };
    const CoefficientVector& constant = request.p[0];
    if (constant.size() == 1) {
      tools.constants.add_constant(acc, constant[0], "polynomial evaluation");
    } else if (!is_zero(constant)) {
      add_slotwise_term(nullptr, constant);
    }
    for (std::size_t j = 1; j < request.p.size(); ++j) {
      if (request.p[j].size() > 1 && !is_zero(request.p[j]))
        add_slotwise_term(&tools.powers.at(j), request.p[j]);
    }
  }
  return sums;
}

// The leaves in the recursion's order, computed a batch at a time: as many
// as fit kBatchWords words and at most kBatchLeaves leaves (bounding the
// memory they hold at once; at N = 2^16 the words bind first, near 50
// leaves), so that each batch reads the powers once.
class PatersonStockmeyer::LeafSource {
 public:
  LeafSource(std::vector<LeafRequest> requests, const Tools& tools, std::size_t degree)
      : requests_(std::move(requests)), tools_(tools), degree_(degree) {}

  rlwe::Ciphertext next() {
    if (ready_next_ == ready_.size()) {
      ready_.clear();
      ready_next_ = 0;
      std::size_t last = requested_, words = 0;
      while (last < requests_.size() &&
             (last == requested_ || (words < kBatchWords && last - requested_ < kBatchLeaves))) {
        words += 2 * (requests_[last].level + 1) * degree_;
        ++last;
      }
      ready_ = leaves(std::span(requests_).subspan(requested_, last - requested_), tools_);
      requested_ = last;
    }
    return std::move(ready_[ready_next_++]);
  }

 private:
  static constexpr std::size_t kBatchWords = std::size_t{1} << 26;  // 512 MiB
  static constexpr std::size_t kBatchLeaves = 64;
  std::vector<LeafRequest> requests_;
  const Tools& tools_;
  std::size_t degree_;
  std::size_t requested_ = 0;  // requests_[0, requested_) computed
  std::vector<rlwe::Ciphertext> ready_;
  std::size_t ready_next_ = 0;
};

rlwe::Ciphertext PatersonStockmeyer::evaluate_pending(const Coefficients& p,
                                                      std::size_t target_level, double target_scale,
                                                      const Tools& tools) const {
  std::vector<LeafRequest> requests;
  collect_leaves(p, target_level, target_scale, tools, requests);
  LeafSource leaves(std::move(requests), tools, tools.evaluator.context()->degree());
  return evaluate_node(p, target_level, target_scale, tools, leaves);
}

rlwe::Ciphertext PatersonStockmeyer::evaluate_node(const Coefficients& p, std::size_t target_level,
                                                   double target_scale, const Tools& tools,
                                                   LeafSource& leaves) const {
  const auto& primes = tools.evaluator.context()->parameters().ciphertext_moduli;
  const double pending_scale = target_scale * static_cast<double>(primes.at(target_level + 1));
  if (is_leaf(p, target_level)) return leaves.next();

  const std::size_t m = static_cast<std::size_t>(std::bit_width(degree_of(p))) - 1;
  const rlwe::Ciphertext& giant = tools.powers.at(std::size_t{1} << m);
  auto [q, r] = split(p, m);
  rlwe::Ciphertext sum = evaluate_node(q, target_level, target_scale, tools, leaves);
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
      evaluate_node(r, target_level + 1, r_scale, tools, leaves), tools.key);
  r_ct.scale = r_scale;
  const rlwe::Ciphertext giant_here = tools.constants.copy_at_level(giant, target_level + 1);
  rlwe::Ciphertext product = tools.evaluator.multiply(r_ct, giant_here);
  product.scale = pending_scale;
  sum.scale = pending_scale;
  tools.evaluator.add_inplace(product, sum);
  return product;
}

}  // namespace heft::circuits::detail
