// Bootstrapping for BFV and BGV ciphertexts, through CKKS functional
// bootstrapping: the documented conversion by which the integer schemes
// refresh their noise (and apply a lookup table on the way), which neither
// has of its own. Alexandru, Kim and Polyakov (eprint 2024/1623) do the same
// for OpenFHE's BFV-like ciphertexts.
//
// The messages are coefficient-encoded: a plaintext m in Z_t[X]/(X^N + 1),
// every one of its N coefficients an integer mod t (IntegerPlaintext without
// the batch encoder; t need not be a batching prime). The output holds
// f(m_k) in coefficient k, for a table f: Z_t -> Z_t.
//
// Why it works: a BFV ciphertext decrypts to (Q_l / t) m + e. Switched down
// to level 0 it decrypts to (q_0 / t) m + e' modulo q_0, which is exactly
// what CKKS bootstrapping's ModRaise takes: the coefficients' phases m / t.
// The phases (CoeffsToSlots first, every slot used):
// 1. BFV modulus switching to level 0 (the rounding adds about sqrt(N)
//    in q_0's units, far below q_0 / t), the residues moved into the CKKS
//    context (same primes, same secret).
// 2. ModRaise (under the sparse secret when the parameters encapsulate),
//    CoeffsToSlots: slot j holds (t_k + i t_(k+n)) / q_0 = m_k / t + I_k
//    + i (m_(k+n) / t + I_(k+n)), k = j bit-reversed, I an integer.
// 3. u = 2 Re - 1 and 2 Im - 1 (one conjugation; -i is a monomial), each
//    through the table's trigonometric polynomial G (functional_bootstrapper.hpp),
//    which takes u = 2 (m - t/2) / t + 2I to f(m) whatever I is: two
//    evaluations, as EvalMod's two sines.
// 4. G(Re) + i G(Im) through SlotsToCoeffs (its missing bit reversal undoes
//    CoeffsToSlots'): a CKKS ciphertext whose coefficient k is S f(m_k) + e
//    at scale S.
// 5. Multiplied by the integer K = round(Q_out / (t S)) (RNS residues of a
//    53-bit mantissa times a power of two: K S is Q_out / t to 2^-42), it
//    decrypts to (Q_out / t) f(m) + K e, a BFV ciphertext of f(m) whose
//    invariant noise is e / S, the CKKS precision (about 2^-16 of one).
// BGV in and out: a BGV ciphertext m' + t e (m = m' c, c its correction
// factor) times t^-1 mod Q_l is a BFV ciphertext of m' k, k = -Q_l^-1 mod t
// (t^-1 = (1 + k Q_l) / t); the table is applied to m through that change.
// A BFV ciphertext (Q / t) f + E times t is -(Q mod t) f + t E modulo Q: a
// BGV ciphertext of f with correction (-(Q mod t))^-1 mod t.
//
// What the input must satisfy: its invariant noise (BFV's e t / Q_l) well
// below 1 / (2 pi t), about log2(t) + 5 bits of BFV noise budget: a phase
// that is not within about 1 / (2t) of an integer gives a blend of
// neighbouring table entries (as FunctionalBootstrapper's inputs). What the
// output has: the levels output_level() leaves, and a BFV noise budget of
// about the CKKS precision (15-20 bits), enough for additions, plaintext
// products and, at small t, a product before the next refresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits {

class HEFT_EXPORT BfvBgvBootstrapper {
 public:
  // The integer scheme's parameters that go with a CKKS bootstrapping
  // chain: the same ring, primes, digits and secret distribution, plaintext
  // modulus t, no CKKS scale. A BFV or BGV context made from them shares
  // its secret keys' coefficients with the CKKS context.
  [[nodiscard]] static rlwe::Parameters integer_parameters(const rlwe::Parameters& ckks,
                                                           uint64_t plain_modulus);

  // `ckks_context`: a CKKS chain with room for the bootstrapping and a table
  // of p = t (functional_bootstrap_preset(name, t).parameters);
  // `integer_context`: integer_parameters(ckks, t) (MismatchError for any
  // other ring, primes or secret; InvalidArgument for t outside [2, 4096]);
  // `bootstrap`: the chain's settings; they are used CoeffsToSlots first,
  // every slot (N / 2; InvalidArgument for fewer), no message ratio, EvalMod
  // sized for the table. InvalidArgument when the chain is too short.
  BfvBgvBootstrapper(std::shared_ptr<const rlwe::Context> ckks_context,
                     std::shared_ptr<const rlwe::Context> integer_context,
                     const BootstrapParameters& bootstrap);

  [[nodiscard]] uint64_t plain_modulus() const noexcept { return plain_modulus_; }
  // The level of the refreshed ciphertexts.
  [[nodiscard]] std::size_t output_level() const noexcept;
  [[nodiscard]] std::size_t table_depth() const noexcept { return table_depth_; }
  [[nodiscard]] const Bootstrapper& bootstrapper() const noexcept { return bootstrapper_; }
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& ckks_context() const noexcept {
    return ckks_context_;
  }
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& integer_context() const noexcept {
    return integer_context_;
  }

  // The bootstrapping keys (CKKS keys of the same s) for `secret`, a secret
  // key of the integer context (MismatchError otherwise).
  [[nodiscard]] BootstrapKeys create_keys(const rlwe::SecretKey& secret,
                                          const KeyProgress& progress = {}) const;

  // A BFV ciphertext of f(m), coefficient by coefficient, at output_level(),
  // for a 2-part BFV ciphertext of m (any level) of the integer context.
  // `table`: t entries, each < t. InvalidArgument for a table of another
  // size or an entry >= t, MismatchError for a ciphertext of another
  // context or with more than 2 parts; the input is never modified.
  [[nodiscard]] rlwe::Ciphertext evaluate_bfv(const rlwe::Ciphertext& x,
                                              std::span<const uint64_t> table,
                                              const BootstrapKeys& keys) const;
  // Several tables on one input: one ModRaise and CoeffsToSlots, then each
  // table's combination of the shared powers and its own SlotsToCoeffs.
  [[nodiscard]] std::vector<rlwe::Ciphertext> evaluate_bfv(
      const rlwe::Ciphertext& x, const std::vector<std::vector<uint64_t>>& tables,
      const BootstrapKeys& keys) const;
  // The identity table: the same message, its noise refreshed.
  [[nodiscard]] rlwe::Ciphertext refresh_bfv(const rlwe::Ciphertext& x,
                                             const BootstrapKeys& keys) const;

  // The same for BGV ciphertexts (any correction factor; the output's noise
  // estimate is set from the CKKS precision, kRefreshedPrecisionBits).
  [[nodiscard]] rlwe::Ciphertext evaluate_bgv(const rlwe::Ciphertext& x,
                                              std::span<const uint64_t> table,
                                              const BootstrapKeys& keys) const;
  [[nodiscard]] rlwe::Ciphertext refresh_bgv(const rlwe::Ciphertext& x,
                                             const BootstrapKeys& keys) const;

  // A lower bound, in bits, on the output's precision relative to one
  // (|error| <= 2^-bits before the rounding to integers), measured with
  // margin: the BGV noise estimate of evaluate_bgv's output.
  static constexpr int kRefreshedPrecisionBits = 10;

 private:
  // Steps 1 and 2: CoeffsToSlots' output for a BFV ciphertext of m.
  [[nodiscard]] rlwe::Ciphertext phases(const rlwe::Ciphertext& bfv,
                                        const BootstrapKeys& keys) const;
  // Steps 3 to 5 for each table, on CoeffsToSlots' output.
  [[nodiscard]] std::vector<rlwe::Ciphertext> tables_to_bfv(
      const rlwe::Ciphertext& slots, const std::vector<std::vector<uint64_t>>& tables,
      const BootstrapKeys& keys) const;
  // A ciphertext's parts moved into `ring` (same primes, same residues).
  [[nodiscard]] static rlwe::Ciphertext moved_to(const rlwe::Ciphertext& x,
                                                 const rlwe::Context& context);
  // log2(Q_out / (t S)) at the output level and its default scale.
  [[nodiscard]] double output_level_bits() const;
  void require_table(std::span<const uint64_t> table) const;
  void require_integer_ciphertext(const rlwe::Ciphertext& x, const char* operation) const;

  std::shared_ptr<const rlwe::Context> ckks_context_;
  std::shared_ptr<const rlwe::Context> integer_context_;
  uint64_t plain_modulus_ = 0;
  Bootstrapper bootstrapper_;
  ckks::Evaluator ckks_evaluator_;
  bfv::Evaluator bfv_evaluator_;
  double range_ = 1;  // u lies in [-range_, range_]
  std::size_t table_degree_ = 0, table_depth_ = 0;
};

}  // namespace heft::circuits
