// Sparse-secret encapsulation for CKKS bootstrapping (Bossuat, Troncoso-
// Pastoriza, Hubaux, eprint 2022/024): the level-0 ciphertext is switched
// from the dense secret s to an ephemeral sparse secret s' of small Hamming
// weight h', ModRaised under s', and switched back to s at the top level.
//
// Why: ModRaise leaves t = m + q_0 I with |I| <= (h + 1) / 2 for a secret of
// Hamming weight h (each coefficient of c_0 + c_1 s sums h + 1 terms below
// q_0 / 2), standard deviation sqrt((h + 1) / 12). A dense ternary secret at
// N = 2^16 has h ~ 43690: I reaches hundreds, EvalMod needs a sine of
// degree 4095 on [-1025, 1025] (13 levels) and every error of CoeffsToSlots
// grows with I's size. Under h' = 32, |I| <= 16 always (no failure
// probability at all with mod_range 16) and the sine is of degree about 255.
//
// Why the dense-to-sparse key lives in its own small context: that key is
// an RLWE encryption of s under the sparse s', and RLWE with a sparse
// secret is only hard at a small modulus. Over all of Q * P (1700 bits) s'
// would be found by lattice reduction, and s with it. The key here is over
// q_0 and the first special prime only (about 121 bits at N = 2^16, the
// modulus Bossuat et al. give for h' = 32 at 128 bits); it is used where the
// ciphertext has only q_0 left. The sparse-to-dense key encrypts s' under
// the dense s and is an ordinary key over Q * P.
#pragma once

#include <cstddef>
#include <memory>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::circuits {

struct HEFT_EXPORT SparseSecretKeys {
  rlwe::KeySwitchKey to_sparse;  // s -> s', over q_0 * p_0 (the encapsulation context)
  rlwe::KeySwitchKey to_dense;   // s' -> s, over Q * P (the main context)
};

class HEFT_EXPORT SparseSecretEncapsulation {
 public:
  // InvalidArgument unless 1 <= hamming_weight <= N and the context has a
  // special prime.
  SparseSecretEncapsulation(std::shared_ptr<const rlwe::Context> context,
                            std::size_t hamming_weight);

  [[nodiscard]] std::size_t hamming_weight() const noexcept { return hamming_weight_; }
  // The context of the dense-to-sparse key: q_0 and p_0, sparse secret.
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& small_context() const noexcept {
    return small_context_;
  }

  // Samples a fresh sparse secret s' and makes both keys for `dense` (a
  // secret key of the main context); s' is wiped afterwards.
  [[nodiscard]] SparseSecretKeys create_keys(const rlwe::SecretKey& dense) const;

  // A level-0 ciphertext under s to the same message under s' (plus a key
  // switch's noise, a few units). InvalidArgument unless x is at level 0
  // with two parts; MismatchError if the key is not of the small context.
  [[nodiscard]] rlwe::Ciphertext to_sparse(const rlwe::Ciphertext& x,
                                           const SparseSecretKeys& keys) const;
  // A two-part ciphertext under s' (at any level >= 0) to s.
  [[nodiscard]] rlwe::Ciphertext to_dense(const rlwe::Ciphertext& x,
                                          const SparseSecretKeys& keys) const;

 private:
  std::shared_ptr<const rlwe::Context> context_;
  std::shared_ptr<const rlwe::Context> small_context_;
  std::size_t hamming_weight_;
};

}  // namespace heft::circuits
