// CKKS homomorphic operations on rlwe ciphertexts.
//
// Scale bookkeeping is exact: every ciphertext carries its true scale (a
// double), products multiply scales, rescaling divides by the actual prime
// dropped. In ScaleMode::automatic (the default, like OpenFHE's FLEXIBLEAUTO)
// operands are aligned for you: a product is rescaled lazily before it is
// multiplied again or combined with an operand of another level or scale
// (operands of equal level and scale are added as they are); an operand at a
// higher level is brought down, and if its scale differs it is multiplied by
// an integer k and rescaled, so that its true scale is within 1/(2k) of the
// target (about 1/(2q) when the scales are about a prime apart, as the
// default scales are; alignment that would mislabel the scale by more than
// the encoding's precision is refused). Dropping to a lower level checks
// that the scale still fits. Plaintext operands align the same way, except
// that only the ciphertext moves (a plaintext can lose towers but not change
// its scale): add_plain and sub_plain bring the ciphertext to the
// plaintext's scale, spending a level when the scales differ. In
// ScaleMode::manual nothing happens behind your back: operands of different
// levels or scales are refused, and align_to does by hand what automatic
// mode does.
//
// Effective level: a product awaiting its rescale (automatic mode,
// needs_rescale set, level() > 0) still holds the towers of its level, so
// level() and scale are those of the product; effective_level() and
// effective_scale() say what it counts as: level() - 1 and scale / q_level,
// what its rescale will make it. The next multiplication starts from there,
// and so does any alignment that changes its scale (add or sub with an
// operand of another level or scale, add_plain, align_to). Combined with an
// operand of its own level and scale (another pending product, a plaintext
// at the product's scale) it is not rescaled: the sum stays pending.
//
// Default scales per level follow the prime chain: scale_at(top) is the
// parameters' nominal scale and scale_at(l - 1) = scale_at(l)^2 / q_l, which is
// exactly what multiply-then-rescale produces, so ciphertexts that reach the
// same level by the usual path have identical scales.
//
// Every operation validates its operands before writing anything: on error
// the inputs are unchanged.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/plaintext.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::ckks {

using rlwe::Ciphertext;
using rlwe::Plaintext;

enum class ScaleMode { automatic, manual };

// Results whose mask cancels (a product by zero, x - x, dot_rotations_plain
// of all-zero diagonals) are refused: see rlwe::TransparentResults.
class HEFT_EXPORT Evaluator : public rlwe::TransparentResults {
 public:
  explicit Evaluator(std::shared_ptr<const rlwe::Context> context,
                     ScaleMode mode = ScaleMode::automatic);

  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }
  [[nodiscard]] ScaleMode mode() const noexcept { return mode_; }
  // The default scale of a fresh or rescaled ciphertext at `level`.
  [[nodiscard]] double scale_at(std::size_t level) const;

  // ---- addition and subtraction ----
  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  void add_inplace(Ciphertext& a, const Ciphertext& b) const;
  void sub_inplace(Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const Plaintext& p) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const Plaintext& p) const;
  [[nodiscard]] Ciphertext add_scalar(const Ciphertext& a, std::complex<double> value) const;
  [[nodiscard]] Ciphertext sub_scalar(const Ciphertext& a, std::complex<double> value) const;

  // ---- multiplication ----
  // Tensor product: a 3-part ciphertext (relinearize it before rotating).
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const;
  // multiply + relinearize.
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b,
                                    const rlwe::RelinKey& key) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a, const rlwe::RelinKey& key) const;
  // relinearize then rescale in one step: key switching's division by P and
  // the division by q_l share one base conversion and one set of forward
  // NTTs (rlwe::mod_down_to_next), about half the transforms of the two
  // calls. Same level and scale as rescale(relinearize(a)), and as precise:
  // one exact rounding by P q_l (tests/rlwe/test_key_switching_noise.cpp compares
  // the two). A 2-part a is rescaled.
  // Throws at level 0.
  [[nodiscard]] Ciphertext relinearize_rescale(const Ciphertext& a,
                                               const rlwe::RelinKey& key) const;
  // multiply + relinearize + rescale, through relinearize_rescale.
  [[nodiscard]] Ciphertext multiply_rescale(const Ciphertext& a, const Ciphertext& b,
                                            const rlwe::RelinKey& key) const;
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a, const Plaintext& p) const;
  // By a real or complex constant in every slot (uses a level once rescaled).
  [[nodiscard]] Ciphertext multiply_scalar(const Ciphertext& a, std::complex<double> value) const;
  // By an integer: exact, no scale change, no level used.
  [[nodiscard]] Ciphertext multiply_integer(const Ciphertext& a, int64_t value) const;
  // By the monomial X^k (k in [0, 2N)): a negacyclic shift of the coefficients.
  [[nodiscard]] Ciphertext multiply_monomial(const Ciphertext& a, uint64_t k) const;

  // ---- levels ----
  // Divides by the last prime q_l: level - 1, scale / q_l. Throws at level 0.
  [[nodiscard]] Ciphertext rescale(const Ciphertext& a) const;
  void rescale_inplace(Ciphertext& a) const;
  // Drops primes without dividing (scale unchanged).
  [[nodiscard]] Ciphertext drop_to_level(const Ciphertext& a, std::size_t level) const;
  // `a` brought to `level` with scale `scale`, as automatic mode aligns
  // operands (and usable in either mode): with the scale already `scale`
  // (within 1e-10 relative), primes are dropped; otherwise a, dropped to
  // level + 1, is multiplied by the integer k nearest scale * q / a.scale and
  // rescaled by q = q_(level+1), so its true scale is within 1/(2k) of
  // `scale`, which it is labelled with. Changing the scale therefore spends
  // a level: the target must be below a's level (below its effective level
  // for a pending product in automatic mode, which is rescaled first).
  // InvalidArgument naming align_to if the level is above a's, if `scale` is
  // not positive and finite or does not fit the modulus left at `level`, and
  // if k would be too small for an exact label (a's scale much larger than
  // `scale`, as a product's before its rescale: 1/(2k) would exceed the
  // encoding's precision).
  [[nodiscard]] Ciphertext align_to(const Ciphertext& a, std::size_t level, double scale) const;
  // The level and scale a counts as (see "Effective level" above): for a
  // product awaiting its rescale in automatic mode, level() - 1 and
  // scale / q_level; otherwise a.level() and a.scale.
  [[nodiscard]] std::size_t effective_level(const Ciphertext& a) const;
  [[nodiscard]] double effective_scale(const Ciphertext& a) const;

  // ---- rotations ----
  // Left rotation of the slots by `step` (negative: right; steps are taken
  // modulo the slot count). Uses the key for that step or, if absent, the
  // fewest keys present whose steps sum to it (rlwe::plan_rotation: -3 with
  // keys for +-1, +-2, +-4, 8 is -4 + 1, two key switches). InvalidArgument
  // naming the step and the keys present when no composition exists.
  [[nodiscard]] Ciphertext rotate(const Ciphertext& a, int64_t step,
                                  const rlwe::GaloisKeys& keys) const;
  [[nodiscard]] Ciphertext conjugate(const Ciphertext& a, const rlwe::GaloisKeys& keys) const;
  // Many rotations of one ciphertext sharing a single key-switching
  // decomposition. A step without its own key is composed as rotate does:
  // the first key switch of its plan shares the decomposition, the others
  // are plain rotations (give each step its own key to hoist all the work).
  [[nodiscard]] std::vector<Ciphertext> rotate_hoisted(const Ciphertext& a,
                                                       std::span<const int64_t> steps,
                                                       const rlwe::GaloisKeys& keys) const;
  // sum_j diagonals[j] * rotate(a, steps[j]), with one key-switching
  // decomposition of a and one division by P for the whole sum: the inner
  // sum of a baby-step / giant-step linear transform ("reduce once per giant
  // step"; rlwe::apply_galois_extended). Each nonzero step needs its own key
  // (no composition); the diagonals come from Encoder::encode_extended, all
  // with one scale, at a's level or above (automatic mode: a is first brought
  // down to theirs if they are lower). The result has a's level and scale
  // times the diagonals', a product to rescale, and the error of one key
  // switch rather than one per rotation.
  [[nodiscard]] Ciphertext dot_rotations_plain(const Ciphertext& a, std::span<const int64_t> steps,
                                               std::span<const ExtendedPlaintext> diagonals,
                                               const rlwe::GaloisKeys& keys) const;
  // Every slot becomes the sum of all slots: log2(slots) rotations by the
  // powers of two, each by its key or composed (keys for them are fastest).
  [[nodiscard]] Ciphertext sum_slots(const Ciphertext& a, const rlwe::GaloisKeys& keys) const;
  // The automorphism X -> X^g with its key (g = 5^step or 2N - 1).
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, uint64_t galois_element,
                                        const rlwe::GaloisKeys& keys) const;

 private:
  // a is a ciphertext of this context (rlwe::require_ciphertext) whose scale
  // and slot count are ones CKKS makes; errors name `operation`.
  void require_operand(const Ciphertext& a, const char* operation) const;
  // p is an NTT-form plaintext of this context with such a scale and slots.
  void require_plaintext(const Plaintext& p, const char* operation) const;
  // Drops a to `level` (no-op if there); InvalidArgument naming `operation`
  // if a's scale does not fit the modulus left there.
  void drop_ciphertext_to(Ciphertext& a, std::size_t level, const char* operation) const;
  // a's slot count, 0 (all) spelled out as N/2: the cycle its rotations take.
  [[nodiscard]] std::size_t slot_count(const Ciphertext& a) const;
  // The slot count of a result of two operands with these slot counts.
  std::size_t combined_slots(std::size_t a_slots, std::size_t b_slots) const;
  // Brings a and b (copies) to a common level and scale, or throws in manual mode.
  void align(Ciphertext& a, Ciphertext& b, const char* operation) const;
  // Lowers a to `level` with scale `scale` (see the class comment).
  void bring_to(Ciphertext& a, std::size_t level, double scale, const char* operation) const;
  void add_or_sub(Ciphertext& a, const Ciphertext& b, bool subtract, const char* operation) const;
  // a + b (or a - b) as a new ciphertext: one pass when aligned.
  [[nodiscard]] Ciphertext sum_or_difference(const Ciphertext& a, const Ciphertext& b,
                                             bool subtract, const char* operation) const;
  // Brings a to p's level (or below) and scale in automatic mode; in either
  // mode MismatchError unless they then match.
  void align_to_plain(Ciphertext& a, const Plaintext& p, const char* operation) const;
  [[nodiscard]] Ciphertext add_or_sub_plain(const Ciphertext& a, const Plaintext& p, bool subtract,
                                            const char* operation) const;
  // A product's operand with any pending rescale done (automatic mode): a
  // itself, or its rescaled copy, held in `storage`.
  [[nodiscard]] const Ciphertext& settled_operand(const Ciphertext& a,
                                                  std::optional<Ciphertext>& storage) const;
  // a at `level`: a itself when there, else a dropped copy held in `storage`
  // (dropped in place when a is that copy already).
  [[nodiscard]] const Ciphertext& operand_at_level(const Ciphertext& a, std::size_t level,
                                                   std::optional<Ciphertext>& storage,
                                                   const char* operation) const;
  // The constant polynomial value * scale (NTT form) at the first `towers` towers.
  [[nodiscard]] ring::RnsPoly constant_poly(std::complex<double> value, double scale,
                                            std::size_t towers, const char* operation) const;
  [[nodiscard]] Ciphertext add_constant(const Ciphertext& a, std::complex<double> value,
                                        const char* operation) const;
  // InvalidArgument naming `operation` unless `scale` is positive, finite and
  // leaves values of magnitude max(1, factor) below Q_l / 2 (factor: what a
  // multiplication by a constant makes the values grow by).
  void require_scale_fits(double scale, std::size_t level, const char* operation,
                          double factor = 1.0) const;
  // InvalidArgument unless rlwe::detail::scale_and_slots_problem finds
  // nothing (`what`: "ciphertext", "plaintext", "diagonal").
  void require_scale_and_slots(double scale, std::size_t slots, const char* what,
                               const char* operation) const;
  // Rescales a into out: out may be a itself (in place) or an empty
  // ciphertext, which then gets fresh parts without a copy of a's.
  void rescale_into(const Ciphertext& a, Ciphertext& out) const;

  std::shared_ptr<const rlwe::Context> context_;
  ScaleMode mode_;
  std::vector<double> level_scales_;
  std::vector<double> log2_modulus_at_level_;  // log2(Q_l)
};

}  // namespace heft::ckks
