// PowerBasis: the powers T_j of a polynomial's variable (see the header).
#include "power_basis.hpp"

#include <bit>
#include <string>

#include "heft/util/error.hpp"

namespace heft::circuits::detail {

namespace {
// The largest power of two strictly below j (j >= 3, not a power of two:
// the one below j's top bit otherwise).
std::size_t split_point(std::size_t j) {
  return std::bit_floor(j - 1);
}
}  // namespace

PowerBasis::PowerBasis(Basis basis, rlwe::Ciphertext y, const ckks::Evaluator& evaluator,
                       const ConstantProducts& constants, const rlwe::RelinKey& key)
    : basis_(basis),
      input_level_(y.level()),
      evaluator_(evaluator),
      constants_(constants),
      key_(key) {
  powers_.emplace(1, std::move(y));
}

std::size_t PowerBasis::depth_of(std::size_t j) {
  return j <= 1 ? 0 : static_cast<std::size_t>(std::bit_width(j - 1));
}

void PowerBasis::add_with_dependencies(Basis basis, std::size_t j, std::set<std::size_t>& powers) {
  if (j == 0 || !powers.insert(j).second || j == 1) return;
  if (std::has_single_bit(j)) {
    add_with_dependencies(basis, j / 2, powers);
    return;
  }
  const std::size_t high = split_point(j), low = j - high;
  add_with_dependencies(basis, high, powers);
  add_with_dependencies(basis, low, powers);
  if (basis == Basis::chebyshev) add_with_dependencies(basis, high - low, powers);
}

const rlwe::Ciphertext& PowerBasis::at(std::size_t j) const {
  const auto it = powers_.find(j);
  if (it == powers_.end()) {
    throw InvalidArgument("polynomial evaluation: power " + std::to_string(j) +
                          " of the variable was not planned (internal error)");
  }
  return it->second;
}

rlwe::Ciphertext PowerBasis::at_level(std::size_t j, std::size_t level) const {
  const rlwe::Ciphertext& x = at(j);
  return x.level() == level ? x.clone() : evaluator_.drop_to_level(x, level);
}

void PowerBasis::compute(const std::set<std::size_t>& powers) {
  for (const std::size_t j : powers) {
    if (j >= 2 && powers_.count(j) == 0) powers_.emplace(j, product(j));
  }
}

rlwe::Ciphertext PowerBasis::product(std::size_t j) const {
  // T_(2a) = 2 T_a^2 - 1 and T_(a+b) = 2 T_a T_b - T_(a-b) (Chebyshev);
  // y^(a+b) = y^a y^b (power basis).
  const bool power_of_two = std::has_single_bit(j);
  const std::size_t high = power_of_two ? j / 2 : split_point(j);
  const std::size_t low = j - high;
  const std::size_t level = std::min(at(high).level(), at(low).level());
  rlwe::Ciphertext prod;
  if (power_of_two) {
    prod = evaluator_.square(at(high));
  } else {
    prod = evaluator_.multiply(at_level(high, level), at_level(low, level));
  }
  if (basis_ == Basis::chebyshev) {
    prod = evaluator_.multiply_integer(prod, 2);
    if (power_of_two) {
      constants_.add_constant(prod, -1.0, "polynomial evaluation");
    } else {
      constants_.multiply_accumulate(prod, at(high - low), -1.0, "polynomial evaluation");
    }
  }
  return evaluator_.relinearize_rescale(prod, key_);
}

}  // namespace heft::circuits::detail
