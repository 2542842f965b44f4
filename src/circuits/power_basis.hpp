// The powers of a polynomial's variable on one ciphertext: T_j(y) (Chebyshev)
// or y^j (power basis), computed on demand from the powers of two and the
// smaller powers, each relinearized and rescaled once. T_j sits
// depth_of(j) = ceil(log2 j) levels below y. Internal to src/circuits.
#pragma once

#include <cstddef>
#include <map>
#include <set>

#include "constant_products.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits::detail {

class PowerBasis {
 public:
  // y: the variable, a 2-part ciphertext with no rescale pending.
  PowerBasis(Basis basis, rlwe::Ciphertext y, const ckks::Evaluator& evaluator,
             const ConstantProducts& constants, const rlwe::RelinKey& key);

  [[nodiscard]] static std::size_t depth_of(std::size_t j);
  // j and every power it is computed from (j >= 1), added to `powers`.
  static void add_with_dependencies(Basis basis, std::size_t j, std::set<std::size_t>& powers);

  [[nodiscard]] std::size_t input_level() const noexcept { return input_level_; }
  [[nodiscard]] std::size_t level_of(std::size_t j) const { return input_level_ - depth_of(j); }
  // Computes every power in `powers` not yet there (in increasing order, so
  // dependencies come first; they must be in the set).
  void compute(const std::set<std::size_t>& powers);
  // InvalidArgument if j was not computed.
  [[nodiscard]] const rlwe::Ciphertext& at(std::size_t j) const;

 private:
  [[nodiscard]] rlwe::Ciphertext at_level(std::size_t j, std::size_t level) const;
  [[nodiscard]] rlwe::Ciphertext product(std::size_t j) const;

  Basis basis_;
  std::size_t input_level_;
  const ckks::Evaluator& evaluator_;
  const ConstantProducts& constants_;
  const rlwe::RelinKey& key_;
  std::map<std::size_t, rlwe::Ciphertext> powers_;
};

}  // namespace heft::circuits::detail
