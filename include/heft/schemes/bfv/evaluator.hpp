// BFV homomorphic operations on rlwe ciphertexts of Delta * m, m mod t.
//
// Multiplication (ct x ct) scales the second operand up rather than the
// product down twice: the "P over Q" variant of Halevi-Polyakov-Shoup (Kim,
// Polyakov and Zucca, 2021; OpenFHE's HPSPOVERQ), with heft's exact
// conversions instead of the floating-point or Shenoy-Kumaresan corrections
// of HPS / BEHZ:
//   1. a = ct1 is extended exactly (centred) from Q_l to an auxiliary base R
//      of NTT primes with R > 2 t N Q_l (built once per level and cached);
//      b = ct2 becomes b' = round(R b / Q_l), computed exactly in R (from
//      [R b]_Q) and converted exactly to Q_l (|b'| < R / 2);
//   2. d = a (x) b' is computed in Q_l and in R, so it is known modulo Q_l R;
//   3. c = round(t d / R) = (t d - [t d]_R) / R mod Q_l, from one exact
//      conversion of [t d]_R out of R and d's own residues in Q_l.
// Step 3 needs d only modulo Q_l R (adding Q_l R to d adds t Q_l to t d / R),
// so the product need not fit in Q_l R. b' is within 1/2 of R b / Q_l per
// coefficient, which moves t d / R by at most t N Q_l / (4 R) < 1/8 from
// HPS's t (a x b) / Q_l: each coefficient of c is within one of HPS's, so the
// added noise is of the size of BFV's own rounding term. Against the plain
// HPS flow (both operands extended, the product scaled in R and converted
// back) this takes one base conversion fewer (nine against ten) and keeps
// the Q_l part of the product in NTT form (15 transforms fewer at L = 15 when
// the product stays in NTT form).
// Every step is exact, so the only noise is BFV's own rounding; we chose this
// over BEHZ because BEHZ needs an extra redundant modulus and a Montgomery
// correction step whose error analysis is subtle, while the exact converters
// already exist (ring::BaseConverter) and make the result deterministic.
//
// Rotations use the rlwe Galois keys (KeyGenerator::create_galois_keys):
// rotate_rows(step) applies 5^step (both rows of the 2 x N/2 slot matrix
// rotate left by step; negative steps rotate right), by the key of the step
// or, without one, by the fewest keys present whose steps sum to it
// (rlwe::plan_rotation; the same rule as CKKS and BGV); rotate_columns
// applies 2N - 1 (the rows swap; create the keys with include_conjugation =
// true).
//
// mod_switch_to_next divides by the last prime q_l with rounding: Delta
// becomes about floor(Q_{l-1} / t) and the ciphertext gets smaller and
// faster. The noise shrinks by q_l, as the modulus does, but the rounding
// adds noise of its own, r_0 + r_1 s with |r_i| <= 1/2 (about sqrt(N) at the
// largest coefficient, for a uniform ternary secret). So the invariant
// noise budget afterwards is about min(B, F), where B is the budget before
// and F the budget of a ciphertext holding only that rounding noise at level
// l - 1:
//   F ~ log2(Q_{l-1}) - log2(t) - log2(N) / 2 - 1 bits.
// A ciphertext whose budget has fallen to F or below (after multiplications)
// keeps it, to within a bit; a fresh one, whose budget is far above F, loses
// the difference. Measured (tests/schemes/bfv/test_evaluator_mod_switch_budget.cpp; primes
// {60, 50, 50}, uniform ternary secret): N = 4096 with a 17-bit t (F = 86
// at level 1, 36 at level 0), fresh 127 -> 86 -> 36, after two squares
// 70 -> 70 -> 36; N = 8192 with a 30-bit t (F = 72, 22), fresh
// 101 -> 72 -> 22, after one square 58 -> 58 -> 22. Switching early costs
// budget and gains speed; switching once the budget is down to F costs
// nothing.
//
// Every operation validates its operands before writing anything: on error the
// inputs are unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "heft/export.hpp"
#include "heft/ring/base_converter.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"

namespace heft::bfv {

using rlwe::Ciphertext;
using schemes::IntegerPlaintext;

// Results whose mask cancels (a product by zero, x - x) are refused: see
// rlwe::TransparentResults.
class HEFT_EXPORT Evaluator : public rlwe::TransparentResults {
 public:
  // Throws InvalidArgument on a null context or one without plaintext modulus.
  explicit Evaluator(std::shared_ptr<const rlwe::Context> context);
  ~Evaluator();

  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }

  // ---- addition and subtraction (operands at the same level; any sizes) ----
  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const IntegerPlaintext& p) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const IntegerPlaintext& p) const;
  // The constant polynomial `value` (< t): in batching terms, every slot.
  [[nodiscard]] Ciphertext add_scalar(const Ciphertext& a, uint64_t value) const;

  // ---- multiplication ----
  // Tensor product of two 2-part ciphertexts at the same level: 3 parts.
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const;
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b,
                                    const rlwe::RelinKey& key) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a, const rlwe::RelinKey& key) const;
  // By a plaintext lifted to (-t/2, t/2] (no scaling: Delta is already in a).
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a, const IntegerPlaintext& p) const;
  // By a constant value < t (centred the same way).
  [[nodiscard]] Ciphertext multiply_scalar(const Ciphertext& a, uint64_t value) const;

  // ---- rotations (2-part ciphertexts) ----
  [[nodiscard]] Ciphertext rotate_rows(const Ciphertext& a, int64_t step,
                                       const rlwe::GaloisKeys& keys) const;
  [[nodiscard]] Ciphertext rotate_columns(const Ciphertext& a, const rlwe::GaloisKeys& keys) const;
  // X -> X^g for any Galois element with a key.
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, uint64_t galois_element,
                                        const rlwe::GaloisKeys& keys) const;

  // ---- levels ----
  // Drops the last prime with rounding; InvalidArgument at level 0. The
  // budget becomes about min(budget, F) (see the top of this file).
  [[nodiscard]] Ciphertext mod_switch_to_next(const Ciphertext& a) const;

 private:
  struct MultiplyTables;
  const MultiplyTables& multiply_tables(std::size_t level) const;
  // a is a ciphertext of this context (rlwe::require_ciphertext).
  void require_operand(const Ciphertext& a, const char* operation) const;
  // Both are, at one level (MismatchError otherwise).
  void require_same_level_operands(const Ciphertext& a, const Ciphertext& b,
                                   const char* operation) const;
  // The tensor product scaled by t/Q (multiply's three parts); the last part
  // stays in coefficient form when last_in_ntt is false, for relinearization
  // to cut its digits from directly. `operation` names the caller in errors.
  Ciphertext scaled_tensor(const Ciphertext& a, const Ciphertext& b, bool last_in_ntt,
                           const char* operation) const;
  Ciphertext add_or_sub(const Ciphertext& a, const Ciphertext& b, bool subtract,
                        const char* operation) const;

  std::shared_ptr<const rlwe::Context> context_;
  uint64_t t_;
  mutable std::mutex tables_mutex_;
  mutable std::vector<std::unique_ptr<MultiplyTables>> tables_;  // by level, built on first use
};

}  // namespace heft::bfv
