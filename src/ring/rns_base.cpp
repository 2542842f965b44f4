// RnsBase: validation (distinct, pairwise coprime) and CRT precomputation.
#include "heft/ring/rns_base.hpp"

#include <numeric>
#include <string>
#include <utility>

#include "ring/multiword.hpp"

namespace heft::ring {

RnsBase::RnsBase(std::vector<math::Modulus> moduli) : moduli_(std::move(moduli)) {
  const std::size_t count = moduli_.size();
  if (count == 0) throw InvalidArgument("RnsBase needs at least one modulus");
  for (std::size_t i = 0; i < count; ++i) {
    if (moduli_[i].empty()) {
      throw InvalidArgument("RnsBase: modulus " + std::to_string(i) +
                            " is empty (default-constructed)");
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t j = i + 1; j < count; ++j) {
      const uint64_t a = moduli_[i].value(), b = moduli_[j].value();
      if (a == b) {
        throw InvalidArgument("RnsBase: modulus " + std::to_string(a) +
                              " appears twice (positions " + std::to_string(i) + " and " +
                              std::to_string(j) + ")");
      }
      if (std::gcd(a, b) != 1) {
        throw InvalidArgument("RnsBase: moduli " + std::to_string(a) + " and " + std::to_string(b) +
                              " share the factor " + std::to_string(std::gcd(a, b)) +
                              "; CRT needs pairwise coprime moduli");
      }
    }
  }

  // Q/q_i is the product of the other moduli, built word by word.
  punctured_products_.resize(count);
  punctured_inverses_.resize(count);
  punctured_inverse_shoups_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    detail::Words punctured{1};
    for (std::size_t j = 0; j < count; ++j) {
      if (j != i) punctured = detail::multiply_word(punctured, moduli_[j].value());
    }
    detail::trim(punctured);
    const math::Modulus& q = moduli_[i];
    punctured_inverses_[i] = q.inverse(detail::mod_word(punctured, q));
    punctured_inverse_shoups_[i] = q.shoup(punctured_inverses_[i]);
    punctured_products_[i] = std::move(punctured);
  }
  product_ = detail::multiply_word(punctured_products_[0], moduli_[0].value());
  detail::trim(product_);
}

RnsBase RnsBase::from_values(std::span<const uint64_t> values) {
  std::vector<math::Modulus> moduli;
  moduli.reserve(values.size());
  for (uint64_t value : values)
    moduli.emplace_back(value);
  return RnsBase(std::move(moduli));
}

void RnsBase::require_index(std::size_t i) const {
  if (i >= moduli_.size()) {
    throw InvalidArgument("RnsBase: index " + std::to_string(i) + " out of range for a base of " +
                          std::to_string(moduli_.size()) + " moduli");
  }
}

std::vector<uint64_t> RnsBase::compose(std::span<const uint64_t> residues) const {
  if (empty()) throw InvalidArgument("RnsBase::compose: the base is empty");
  if (residues.size() != size()) {
    throw MismatchError("RnsBase::compose: got " + std::to_string(residues.size()) +
                        " residues for a base of " + std::to_string(size()) + " moduli");
  }
  for (std::size_t i = 0; i < size(); ++i) {
    if (residues[i] >= moduli_[i].value()) {
      throw InvalidArgument("RnsBase::compose: residue " + std::to_string(residues[i]) +
                            " is not reduced modulo " + std::to_string(moduli_[i].value()));
    }
  }
  // Each term [x_i * (Q/q_i)^-1]_{q_i} * (Q/q_i) is below Q, so the sum is
  // below L*Q: one spare word holds it, and at most L-1 subtractions of Q
  // bring it into [0, Q).
  detail::Words sum(product_.size() + 1, 0);
  for (std::size_t i = 0; i < size(); ++i) {
    const uint64_t scaled =
        moduli_[i].mul_shoup(residues[i], punctured_inverses_[i], punctured_inverse_shoups_[i]);
    detail::mul_add_word(sum, punctured_products_[i], scaled);
  }
  while (detail::compare(sum, product_) >= 0)
    detail::sub_in_place(sum, product_);
  sum.resize(product_.size());
  return sum;
}

std::vector<uint64_t> RnsBase::decompose(std::span<const uint64_t> value) const {
  if (empty()) throw InvalidArgument("RnsBase::decompose: the base is empty");
  std::vector<uint64_t> residues(size());
  for (std::size_t i = 0; i < size(); ++i)
    residues[i] = detail::mod_word(value, moduli_[i]);
  return residues;
}

RnsBase RnsBase::drop_last(std::size_t count) const {
  if (count >= size()) {
    throw InvalidArgument("RnsBase::drop_last: cannot drop " + std::to_string(count) +
                          " moduli from a base of " + std::to_string(size()) +
                          " (at least one must remain)");
  }
  return RnsBase(std::vector<math::Modulus>(moduli_.begin(), moduli_.end() - count));
}

RnsBase RnsBase::concat(const RnsBase& other) const {
  std::vector<math::Modulus> joined = moduli_;
  joined.insert(joined.end(), other.moduli_.begin(), other.moduli_.end());
  return RnsBase(std::move(joined));
}

}  // namespace heft::ring
