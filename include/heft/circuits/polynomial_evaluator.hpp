// Polynomial evaluation on CKKS ciphertexts, in optimal depth and with an
// exact output scale.
//
// The algorithm (baby-step giant-step Paterson–Stockmeyer, after Bossuat et
// al., Eurocrypt 2021, and Lattigo's evaluator):
// - The variable. Chebyshev polynomials on [a, b] are written in
//   y = alpha x + beta: alpha x is an exact integer multiple when alpha is
//   +-2^k and otherwise a product with a constant and a rescale (one level;
//   relabelling the scale instead would be free, but the error in the scale
//   doubles with every squaring), beta is added as a constant.
// - The basis. T_1 = y, the powers of two T_2, T_4, ... by squaring, and the
//   baby steps T_j, j < 2^l, as products T_(2^i) T_(j - 2^i) (Chebyshev:
//   2 T_a T_b - T_(a-b), the T_(a-b) term added at the product's scale by an
//   integer multiple, so it costs no level). T_j sits ceil(log2 j) levels
//   below the input. Odd (even) polynomials compute only the odd (even) T_j.
// - The recursion. A polynomial of degree below 2^l whose terms all sit
//   above the level it must reach is a leaf: sum c_j T_j with each constant
//   encoded at (target scale * q) / scale(T_j), so every term lands on one
//   scale and the sum takes one rescale. Otherwise p = q + r T_(2^m), 2^m
//   the largest power of two up to the degree; r is evaluated one level
//   higher, rescaled, multiplied by T_(2^m), and added to q before the
//   shared rescale. Leaves that would sit too low split further, so the
//   result is always ceil(log2(d + 1)) levels below the input, with about
//   2^l + d / 2^l + log2(d) products; l is chosen by counting them.
// - Laziness. Products are summed before they are relinearized, and each
//   sum is relinearized and rescaled in one step (relinearize_rescale).
// - The scale. Every intermediate target is derived from the caller's, so
//   the result carries exactly the requested scale: a sum with other
//   ciphertexts of that level and scale needs no alignment.
//
// Input: a 2-part ciphertext (a product awaiting its rescale is rescaled
// first, as automatic mode would). Bad input throws InvalidArgument naming
// the operation (too few levels: the message says how many are needed);
// nothing passed in is modified.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "heft/circuits/approximation.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits {

namespace detail {
class ConstantProducts;
}

// Results that come out transparent (a constant polynomial's trivial
// ciphertext, a polynomial whose terms cancel) are refused unless allowed:
// see rlwe::TransparentResults. Intermediate values may be transparent.
class HEFT_EXPORT PolynomialEvaluator : public rlwe::TransparentResults {
 public:
  // Keeps a reference to the relinearization key: it must outlive the
  // evaluator. InvalidArgument / MismatchError if it is not a
  // relinearization key of `context`.
  PolynomialEvaluator(std::shared_ptr<const rlwe::Context> context, const rlwe::RelinKey& key);
  ~PolynomialEvaluator();
  PolynomialEvaluator(PolynomialEvaluator&&) noexcept;
  PolynomialEvaluator& operator=(PolynomialEvaluator&&) noexcept;

  // The levels evaluate() consumes: p.depth() = ceil(log2(degree + 1)).
  [[nodiscard]] static std::size_t depth(const Polynomial& p) { return p.depth(); }

  // p at every slot of x: level x.level() - depth(p), scale exactly
  // target_scale. Without target_scale: the default scale of that level
  // (ckks::Evaluator::scale_at).
  [[nodiscard]] rlwe::Ciphertext evaluate(const rlwe::Ciphertext& x, const Polynomial& p,
                                          double target_scale) const;
  [[nodiscard]] rlwe::Ciphertext evaluate(const rlwe::Ciphertext& x, const Polynomial& p) const;

  // Several polynomials of one variable (same basis and interval) on the
  // same input, sharing its powers. Each result sits at x.level() minus its
  // own depth, at target_scale.
  [[nodiscard]] std::vector<rlwe::Ciphertext> evaluate(const rlwe::Ciphertext& x,
                                                       std::span<const Polynomial> polynomials,
                                                       double target_scale) const;

  // A polynomial per slot group: slot i gets polynomials[slot_group[i]]
  // (and 0 where slot_group[i] is -1). slot_group has one entry per slot of
  // x. Depth: the largest of the polynomials'.
  [[nodiscard]] rlwe::Ciphertext evaluate_slot_groups(const rlwe::Ciphertext& x,
                                                      std::span<const Polynomial> polynomials,
                                                      std::span<const int> slot_group,
                                                      double target_scale) const;

  // A composition: the stages in turn, each landing on the default scale
  // of its level. Depth: f.depth().
  [[nodiscard]] rlwe::Ciphertext evaluate(const rlwe::Ciphertext& x,
                                          const CompositePolynomial& f) const;
  // max(x, 0) for values in [-1, 1]: x h(x) with h = (1 + sign) / 2 from a
  // sign approximation (sign_approximation); exact to its precision where
  // |x| >= its epsilon, within epsilon elsewhere. Depth sign.depth() + 1.
  [[nodiscard]] rlwe::Ciphertext relu(const rlwe::Ciphertext& x,
                                      const CompositePolynomial& sign) const;

  // The ciphertext-ciphertext products evaluate() performs on p (powers and
  // giant steps), for tests and cost estimates.
  [[nodiscard]] std::size_t multiplication_count(const Polynomial& p) const;

 private:
  std::shared_ptr<const rlwe::Context> context_;
  const rlwe::RelinKey* key_;
  ckks::Evaluator evaluator_;
  ckks::Encoder encoder_;
  std::unique_ptr<detail::ConstantProducts> constants_;

  // The results, each through check_transparent.
  std::vector<rlwe::Ciphertext> checked(std::vector<rlwe::Ciphertext> results,
                                        const char* operation) const;
  rlwe::Ciphertext checked(rlwe::Ciphertext result, const char* operation) const;
};

}  // namespace heft::circuits
