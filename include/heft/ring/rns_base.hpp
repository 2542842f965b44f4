// RnsBase: an ordered set of pairwise-coprime word-size moduli q_0..q_{L-1}
// and the CRT constants that every layer above needs.
//
// A value x in [0, Q), Q = q_0 * ... * q_{L-1}, is represented by its residues
// x_i = x mod q_i. Reconstruction uses the "punctured" products Q/q_i and
// their inverses modulo q_i:
//   x = sum_i [x_i * (Q/q_i)^-1]_{q_i} * (Q/q_i)  (mod Q).
// The order of the moduli matters: polynomials keep towers in this order and
// dropping a level removes the last modulus. Multi-word integers (Q, Q/q_i,
// compose/decompose) are little-endian vectors of uint64 words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/modulus.hpp"

namespace heft::ring {

class HEFT_EXPORT RnsBase {
 public:
  RnsBase() = default;
  // Throws InvalidArgument if `moduli` is empty, or two moduli are equal or
  // share a factor.
  explicit RnsBase(std::vector<math::Modulus> moduli);
  // Same, from plain values (each must be a valid Modulus: 2 <= q < 2^61).
  static RnsBase from_values(std::span<const uint64_t> values);

  [[nodiscard]] std::size_t size() const noexcept { return moduli_.size(); }
  [[nodiscard]] bool empty() const noexcept { return moduli_.empty(); }
  // The accessors taking an index throw InvalidArgument if i >= size().
  [[nodiscard]] const math::Modulus& operator[](std::size_t i) const {
    require_index(i);
    return moduli_[i];
  }
  [[nodiscard]] std::span<const math::Modulus> moduli() const noexcept { return moduli_; }

  // Q as a multi-word integer with no high zero words.
  [[nodiscard]] std::span<const uint64_t> product() const noexcept { return product_; }
  // Q / q_i as a multi-word integer.
  [[nodiscard]] std::span<const uint64_t> punctured_product(std::size_t i) const {
    require_index(i);
    return punctured_products_[i];
  }
  // (Q / q_i)^-1 mod q_i and its Shoup constant for q_i.
  [[nodiscard]] uint64_t punctured_inverse(std::size_t i) const {
    require_index(i);
    return punctured_inverses_[i];
  }
  [[nodiscard]] uint64_t punctured_inverse_shoup(std::size_t i) const {
    require_index(i);
    return punctured_inverse_shoups_[i];
  }

  // The x in [0, Q) with x = residues[i] (mod q_i); residues[i] must be below
  // q_i. Returns product().size() words. Throws MismatchError on a wrong count,
  // InvalidArgument on an unreduced residue or an empty base.
  [[nodiscard]] std::vector<uint64_t> compose(std::span<const uint64_t> residues) const;
  // value mod q_i for every i; value may have any number of words (it need
  // not be below Q).
  [[nodiscard]] std::vector<uint64_t> decompose(std::span<const uint64_t> value) const;

  // The first size() - count moduli. Throws InvalidArgument unless count < size().
  [[nodiscard]] RnsBase drop_last(std::size_t count) const;
  // This base's moduli followed by other's; throws InvalidArgument if the
  // union is not pairwise coprime.
  [[nodiscard]] RnsBase concat(const RnsBase& other) const;

  friend bool operator==(const RnsBase& a, const RnsBase& b) noexcept {
    return a.moduli_ == b.moduli_;
  }

 private:
  void require_index(std::size_t i) const;
  std::vector<math::Modulus> moduli_;
  std::vector<uint64_t> product_;
  std::vector<std::vector<uint64_t>> punctured_products_;
  std::vector<uint64_t> punctured_inverses_;
  std::vector<uint64_t> punctured_inverse_shoups_;
};

}  // namespace heft::ring
