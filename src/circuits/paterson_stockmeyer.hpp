// The recursion of baby-step giant-step polynomial evaluation (see
// heft/circuits/polynomial_evaluator.hpp): leaves sum c_j T_j at one scale,
// other nodes split p = q + r T_(2^m). The same recursion runs dry (to plan
// the powers and count the products for a baby-step size) and for real.
// Coefficients are vectors: one value for every slot (slot groups) or a
// single value for all. Internal to src/circuits.
#pragma once

#include <complex>
#include <cstddef>
#include <set>
#include <span>
#include <vector>

#include "constant_products.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "power_basis.hpp"

namespace heft::circuits::detail {

// coefficients[j]: c_j, one entry (every slot alike) or one per slot.
using CoefficientVector = std::vector<std::complex<double>>;
using Coefficients = std::vector<CoefficientVector>;

[[nodiscard]] bool is_zero(const CoefficientVector& c);
// The index of the last nonzero coefficient (0 if none).
[[nodiscard]] std::size_t degree_of(const Coefficients& c);

struct EvaluationPlan {
  std::set<std::size_t> powers;  // T_j to compute, dependencies included
  std::size_t products = 0;      // giant-step products (powers not counted)
  [[nodiscard]] std::size_t multiplications() const;
};

class PatersonStockmeyer {
 public:
  // input_level: the level of T_1; baby_log: leaves take degrees below
  // 2^baby_log.
  PatersonStockmeyer(Basis basis, std::size_t input_level, std::size_t baby_log)
      : basis_(basis), input_level_(input_level), baby_log_(baby_log) {}

  // What evaluating p to land at level `target_level` needs.
  void plan(const Coefficients& p, std::size_t target_level, EvaluationPlan& out) const;

  struct Tools {
    const ckks::Evaluator& evaluator;
    const ckks::Encoder& encoder;
    const ConstantProducts& constants;
    const rlwe::RelinKey& key;
    const PowerBasis& powers;
    std::size_t slots;
  };
  // p at level target_level + 1 with scale target_scale * q_(target_level+1):
  // one relinearize_rescale away from (target_level, target_scale).
  [[nodiscard]] rlwe::Ciphertext evaluate_pending(const Coefficients& p, std::size_t target_level,
                                                  double target_scale, const Tools& tools) const;

 private:
  // A leaf the recursion will take: its sum at `level` with scale `scale`.
  struct LeafRequest {
    Coefficients p;
    std::size_t level;
    double scale;
  };
  class LeafSource;

  [[nodiscard]] bool is_leaf(const Coefficients& p, std::size_t target_level) const;
  // p = q + r T_(2^m): (q, r).
  [[nodiscard]] std::pair<Coefficients, Coefficients> split(const Coefficients& p,
                                                            std::size_t m) const;
  // The leaves of p in the order the recursion takes them.
  void collect_leaves(const Coefficients& p, std::size_t target_level, double target_scale,
                      const Tools& tools, std::vector<LeafRequest>& out) const;
  // The leaves requests[first, last), together (they share the powers).
  [[nodiscard]] static std::vector<rlwe::Ciphertext> leaves(std::span<const LeafRequest> requests,
                                                            const Tools& tools);
  [[nodiscard]] rlwe::Ciphertext evaluate_node(const Coefficients& p, std::size_t target_level,
                                               double target_scale, const Tools& tools,
                                               LeafSource& leaves) const;

  Basis basis_;
  std::size_t input_level_;
  std::size_t baby_log_;
};

}  // namespace heft::circuits::detail
