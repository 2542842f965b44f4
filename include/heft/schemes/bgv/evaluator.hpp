// BGV evaluator: exact arithmetic on integer plaintexts mod t, with modulus
// switching to keep the noise in check.
//
// Modulus switching drops the last prime q_l of a ciphertext at level l:
//   c' = (c - delta) / q_l,  delta = t * [c * t^-1]_{q_l} (centered),
// which divides the noise by about q_l and multiplies the plaintext by
// q_l^-1 mod t; the ciphertext's correction factor absorbs that
// (ciphertext.hpp).
//
// Modes: in ModSwitchMode::automatic (the default) every ciphertext product
// is switched down one level right after the tensor product, so one level is
// one multiplicative depth; a product at level 0 is refused (depth
// exhausted). Operands at different levels are brought to the lower one. In
// ModSwitchMode::manual the caller switches with mod_switch(), operands at
// different levels are refused, and products at level 0 are allowed.
// Operands with different correction factors c_a, c_b are reconciled in both
// modes by adding x a + y b with small x, y such that x / c_a = y / c_b mod t
// (about sqrt(t) each, chosen by the extended Euclidean algorithm and weighed
// by the operands' noise; src/schemes/bgv/reconciliation.hpp): it costs about
// half of log2 t bits of noise, where multiplying one operand by c_b / c_a
// cost up to log2 t.
//
// Noise estimate: every result carries a bound on its noise
// (Ciphertext::noise_log2, noise_model.hpp), and an operation whose result
// the bound says would not decrypt, or whose operand has no estimate, is
// refused with NoiseBudgetError naming the operation and the estimate,
// before anything is computed. In automatic mode a product that would be
// refused at the operands' level is made a level lower (or more) when
// switching both operands down first brings it under the limit; switching
// never helps additions, plaintext products or rotations (it divides noise
// and modulus alike), so those are refused.
//
// Every operation validates its operands (MismatchError for another context,
// other levels in manual mode, or keys not made with error scale t;
// InvalidArgument for bad plaintexts, missing keys, exhausted depth;
// NoiseBudgetError, a kind of InvalidArgument, for exhausted noise budget)
// and leaves them unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "heft/export.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/ciphertext.hpp"
#include "heft/schemes/bgv/noise_model.hpp"

namespace heft::bgv {

enum class ModSwitchMode { automatic, manual };

// Results whose mask cancels (a product by zero, x - x) are refused: see
// rlwe::TransparentResults.
class HEFT_EXPORT Evaluator : public rlwe::TransparentResults {
 public:
  // Throws InvalidArgument for a null context or one without t.
  explicit Evaluator(std::shared_ptr<const rlwe::Context> context,
                     ModSwitchMode mode = ModSwitchMode::automatic);

  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }
  [[nodiscard]] ModSwitchMode mode() const noexcept { return mode_; }
  [[nodiscard]] const NoiseModel& noise_model() const noexcept { return noise_; }

  // log2(Q_level / 2) - a.noise_log2: bits of noise budget the estimate
  // leaves (at most the measured Decryptor::invariant_noise_budget, in
  // practice; kUnknownNoise gives -infinity). Needs no secret key.
  [[nodiscard]] double estimated_noise_budget(const Ciphertext& a) const;

  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const schemes::IntegerPlaintext& p) const;
  // The constant polynomial `value` (< t); InvalidArgument otherwise.
  [[nodiscard]] Ciphertext add_scalar(const Ciphertext& a, uint64_t value) const;
  [[nodiscard]] Ciphertext multiply_scalar(const Ciphertext& a, uint64_t value) const;
  // Product with a plaintext polynomial (slot-wise with batching); no level
  // is consumed.
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a,
                                          const schemes::IntegerPlaintext& p) const;

  // Tensor product: three parts (relinearize to get back to two).
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a, const rlwe::RelinKey& key) const;
  // Product then relinearization.
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b,
                                    const rlwe::RelinKey& key) const;
  [[nodiscard]] Ciphertext square(const Ciphertext& a, const rlwe::RelinKey& key) const;

  // Batched slots (2 x N/2 matrix): rows rotated left by `step` columns
  // (negative: right), and the two rows swapped. Keys from
  // KeyGenerator::create_galois_keys (steps; include_conjugation for columns).
  // A step without its own key is composed from the fewest keys present
  // whose steps sum to it (rlwe::plan_rotation, as in CKKS and BFV);
  // InvalidArgument naming the step and the keys present when none does.
  [[nodiscard]] Ciphertext rotate_rows(const Ciphertext& a, int64_t step,
                                       const rlwe::GaloisKeys& keys) const;
  [[nodiscard]] Ciphertext rotate_columns(const Ciphertext& a, const rlwe::GaloisKeys& keys) const;
  // X -> X^g for any Galois element with a key (1: a copy).
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, uint64_t galois_element,
                                        const rlwe::GaloisKeys& keys) const;

  // Drops the last prime (see the file comment); InvalidArgument at level 0.
  [[nodiscard]] Ciphertext mod_switch(const Ciphertext& a) const;
  // Drops primes down to `level` (InvalidArgument if above a's level).
  [[nodiscard]] Ciphertext mod_switch_to(const Ciphertext& a, std::size_t level) const;

 private:
  // a is a ciphertext of this context (rlwe::require_ciphertext) with a
  // correction factor invertible mod t; errors name `operation`.
  void require_operand(const Ciphertext& a, const char* operation) const;
  // add_plain, with errors naming `operation` (sub_plain, add_scalar use it).
  [[nodiscard]] Ciphertext add_plain_as(const Ciphertext& a, const schemes::IntegerPlaintext& p,
                                        const char* operation) const;
  // MismatchError unless `key` is of this context and made with error scale
  // t (bgv::make_key_generator).
  void require_t_scaled_key(const rlwe::KeySwitchKey& key, const char* operation) const;
  // MismatchError in manual mode if a and b are at different levels.
  void require_alignable(const Ciphertext& a, const Ciphertext& b, const char* operation) const;
  // Switches the higher of a and b down to the other's level (automatic mode).
  void align(Ciphertext& a, Ciphertext& b, const char* operation) const;
  // a and b switched down to `level` (at or below both), without copying
  // one already there: the pair points at it or at its switched copy, held
  // in `storage`.
  std::pair<const Ciphertext*, const Ciphertext*> at_level(
      const Ciphertext& a, const Ciphertext& b, std::size_t level,
      std::array<std::optional<Ciphertext>, 2>& storage) const;
  // x + y (own copies), brought to one level and one correction factor;
  // errors name `operation` (add, sub).
  [[nodiscard]] Ciphertext sum(Ciphertext x, Ciphertext y, const char* operation) const;
  // The level at which multiply makes the tensor product of a and b: their
  // common level, or in automatic mode a lower one where the noise estimate
  // accepts it (see the file comment); NoiseBudgetError if none.
  std::size_t product_level(const Ciphertext& a, const Ciphertext& b, bool relinearize,
                            const char* operation) const;
  // multiply / square, with errors naming `operation`.
  [[nodiscard]] Ciphertext product(const Ciphertext& a, const Ciphertext& b,
                                   const char* operation) const;
  [[nodiscard]] Ciphertext relinearized_product(const Ciphertext& a, const Ciphertext& b,
                                                const rlwe::RelinKey& key,
                                                const char* operation) const;
  // NoiseBudgetError naming `operation` unless `noise` is below what `level`
  // can decrypt; `what` names the estimated ciphertext in the message.
  void require_budget(double noise, std::size_t level, const char* operation,
                      const char* what = "the result") const;
  [[nodiscard]] std::string budget_message(double noise, std::size_t level, const char* operation,
                                           const char* what) const;
  // Sum of the centered magnitudes of p's coefficients (at least 1): a bound
  // on its canonical norm.
  [[nodiscard]] double centered_l1_norm(const schemes::IntegerPlaintext& p) const;
  void mod_switch_inplace(Ciphertext& a) const;
  void multiply_by_constant(Ciphertext& a, uint64_t value) const;
  // rlwe::apply_galois_sequence with BGV's checks first: every key made with
  // error scale t, and the noise estimate after the last key switch within
  // the budget. Errors name `operation`.
  [[nodiscard]] Ciphertext galois_sequence(const Ciphertext& a, std::span<const uint64_t> sequence,
                                           const rlwe::GaloisKeys& keys,
                                           const char* operation) const;

  std::shared_ptr<const rlwe::Context> context_;
  ModSwitchMode mode_;
  math::Modulus t_;
  NoiseModel noise_;
};

}  // namespace heft::bgv
