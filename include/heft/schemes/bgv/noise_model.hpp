// BGV noise estimate: an upper bound on each ciphertext's decryption noise,
// kept in log2 on the ciphertext (Ciphertext::noise_log2) and updated by
// every operation, so that the evaluator refuses an operation whose result
// would no longer decrypt (NoiseBudgetError) instead of returning garbage.
// It needs no secret key: unlike Decryptor::invariant_noise_budget, it may be
// computed on anyone's ciphertexts.
//
// What is bounded: v = c0 + c1 s (+ c2 s^2), centered modulo Q_l, which is
// m' + t e (the message under the correction factor plus t times the
// error). Decryption is correct while ||v||_inf < Q_l / 2, so
//   estimated budget = log2(Q_l / 2) - noise_log2,
// the counterpart of the measured invariant noise budget (which is the same
// expression with log2 ||v||_inf, floored).
//
// The bound is on the canonical norm ||v||^can = max |v(zeta)| over the
// primitive 2N-th roots of unity (as in the BGV noise analyses of Gentry,
// Halevi and Smart, and of Costache and Smart): it is at least ||v||_inf, it
// is multiplicative (||a b||^can <= ||a||^can ||b||^can, with no factor N),
// and automorphisms leave it unchanged. Two kinds of terms:
// - rigorous: products and sums of bounds; plaintexts by their l1 norm
//   (||p||^can <= ||p||_1, computed, or N t / 2 for a message);
// - heuristic, for polynomials with independent random coefficients (fresh
//   errors, rounding residues, key-switching digits): a product of such
//   with variance V per coefficient has ||.||^can <= D sqrt(N V), D = 6
//   (a value of the embedding is near Gaussian with variance N V; one
//   beyond 6 standard deviations is rarer than 2^-28).
// Term by term, with sigma the error parameter, V_s the secret's variance
// (2/3 for uniform ternary, h / N for Hamming weight h), K special primes
// of product P:
// - fresh, public key: N t / 2 + t D sqrt(N sigma^2 (1 + N (2/3 + V_s)));
//   secret key: N t / 2 + t D sigma sqrt(N).
// - add / sub: B_a + B_b (after the correction factors are reconciled:
//   |x| B_a + |y| B_b, evaluator.hpp); plaintext / scalar added: its l1 norm.
// - product by a plaintext or scalar: B ||p||_1; tensor product: B_a B_b.
// - modulus switch by q (parts k, residues tau in [-1/2, 1/2]):
//   B / q + t D sqrt(N / 12 sum_{i<k} (N V_s)^i).
// - key switching (relinearization, rotation) at level l, digits of k_j
//   primes and product Q_j: B + t (D N sigma sqrt(sum_j k_j^2 Q_j^2 / 3) / P
//   + N K (1 + D sqrt(V_s / 3))); the last term is the t-aware division by
//   P, whose residues lie in [0, K) (rigorous for the part without s).
//   Fused with the switch by q_l (automatic multiply): everything divided
//   by q_l, and residues in [0, K + 1).
// Against the measured budget the estimate is lower by 5 to 8 bits for
// fresh and switched ciphertexts (N = 4096 to 16384: the canonical norm of a
// random polynomial is ~sqrt(N) times its largest coefficient), up to ~17 in
// a typical automatic-mode circuit, about 7 more per plaintext product not
// followed by a switch (||p||_1 against the ~sqrt(N) ||p||_inf of a random
// p), and ~27 for a product of two fresh ciphertexts left unswitched;
// tests/schemes/bgv/test_noise_model.cpp measures it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/rlwe/context.hpp"
#include "heft/schemes/bgv/ciphertext.hpp"

namespace heft::bgv {

// log2(2^a + 2^b); kUnknownNoise if either is.
[[nodiscard]] HEFT_EXPORT double log2_sum(double a, double b) noexcept;

class HEFT_EXPORT NoiseModel {
 public:
  // The context must have a plaintext modulus t (InvalidArgument otherwise).
  explicit NoiseModel(const rlwe::Context& context);

  // Levels are the context's (0 to max_level, unchecked: callers have a
  // ciphertext at that level); the key-switching terms need special primes.
  //
  // log2(Q_level / 2): a ciphertext decrypts correctly while its noise is
  // below it.
  [[nodiscard]] double limit(std::size_t level) const { return limits_[level]; }
  [[nodiscard]] double budget(double noise_log2, std::size_t level) const {
    return limits_[level] - noise_log2;
  }

  // Fresh encryption, with the public key or with the secret key.
  [[nodiscard]] double fresh(bool public_key) const noexcept {
    return public_key ? fresh_public_ : fresh_secret_;
  }
  // A modulus switch of a ciphertext of `parts` parts from `level` to level - 1.
  [[nodiscard]] double mod_switched(double noise, std::size_t level, std::size_t parts) const;
  // Key switching (relinearization, rotation) at `level`.
  [[nodiscard]] double key_switched(double noise, std::size_t level) const;
  // Relinearization of a tensor product at `level` fused with the switch to
  // level - 1 (rlwe::switch_key_and_divide).
  [[nodiscard]] double key_switched_and_divided(double tensor_noise, std::size_t level) const;

 private:
  double log2_t_ = 0;
  double log2_n_ = 0;
  double secret_variance_ = 0;
  double fresh_public_ = 0, fresh_secret_ = 0;
  std::vector<double> limits_;       // per level
  std::vector<double> log2_primes_;  // log2 q_i
  std::vector<double> key_switch_;   // per level: the term key switching adds
  std::vector<double> key_switch_divided_;
};

}  // namespace heft::bgv
