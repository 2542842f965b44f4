// BGV key generation, encryption and decryption of IntegerPlaintexts
// (schemes/batch_encoder.hpp) over the RLWE core.
//
// BGV keeps the message in the low bits: a ciphertext decrypts to m + t e
// modulo Q. So every error is multiplied by t: the keys come from an
// rlwe::KeyGenerator with error scale t (make_key_generator), encryption uses
// error scale t, and key switching uses the t-aware mod down. Keys made with
// the default error scale 1 are refused (MismatchError).
#pragma once

#include <memory>
#include <optional>

#include "heft/export.hpp"
#include "heft/ring/base_converter.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/ciphertext.hpp"

namespace heft::bgv {

// The plaintext modulus t of a BGV context; throws InvalidArgument if the
// parameters have none (plain_modulus = 0).
HEFT_EXPORT uint64_t plain_modulus(const rlwe::Context& context);

// A key generator whose keys have errors multiplied by t.
HEFT_EXPORT rlwe::KeyGenerator make_key_generator(std::shared_ptr<const rlwe::Context> context);
HEFT_EXPORT rlwe::KeyGenerator make_key_generator(std::shared_ptr<const rlwe::Context> context,
                                                  const rlwe::SecretKey& secret_key);

// Throws InvalidArgument naming `operation` unless the correction factor is
// invertible mod t: in [1, t) and coprime to t (only a non-prime t has others).
HEFT_EXPORT void require_correction(uint64_t correction, uint64_t t, const char* operation);

// Throws InvalidArgument unless plain has N coefficients below t = its
// modulus, and MismatchError if that t is not the context's.
HEFT_EXPORT void require_plaintext(const rlwe::Context& context,
                                   const schemes::IntegerPlaintext& plain, const char* operation);

// The names require_correction and require_plaintext had before the checks
// took one vocabulary.
[[deprecated("use require_correction")]] inline void check_correction(uint64_t correction,
                                                                      uint64_t t,
                                                                      const char* operation) {
  require_correction(correction, t, operation);
}
[[deprecated("use require_plaintext")]] inline void check_plaintext(
    const rlwe::Context& context, const schemes::IntegerPlaintext& plain, const char* operation) {
  require_plaintext(context, plain, operation);
}

// m lifted to Q_level: coefficients taken centered in (-t/2, t/2] (smallest
// norm, so least noise in products), NTT form, level + 1 towers.
// Checks plain first (require_plaintext, named "lift_plaintext").
HEFT_EXPORT ring::RnsPoly lift_plaintext(const rlwe::Context& context,
                                         const schemes::IntegerPlaintext& plain, std::size_t level);

class HEFT_EXPORT Encryptor {
 public:
  // Public-key encryption; the key must come from make_key_generator.
  explicit Encryptor(const rlwe::PublicKey& public_key);
  // Secret-key encryption.
  explicit Encryptor(const rlwe::SecretKey& secret_key);

  // (b u + t e0 + m, a u + t e1), or (-a s + t e + m, a) with the secret key,
  // at `level` (default: the top level), with the noise estimate of a fresh
  // ciphertext (noise_model.hpp). Throws InvalidArgument for a bad
  // plaintext or level.
  [[nodiscard]] Ciphertext encrypt(const schemes::IntegerPlaintext& plain,
                                   std::optional<std::size_t> level = std::nullopt) const;

 private:
  std::shared_ptr<const rlwe::Context> context_;
  rlwe::Encryptor encryptor_;
  double fresh_noise_log2_ = 0;
};

class HEFT_EXPORT Decryptor {
 public:
  explicit Decryptor(const rlwe::SecretKey& secret_key);

  // m = [[c0 + c1 s + ...]_Q centered]_t * correction mod t. Throws
  // MismatchError for a ciphertext of another context.
  [[nodiscard]] schemes::IntegerPlaintext decrypt(const Ciphertext& ct) const;

  // Invariant noise budget in bits: floor(log2(Q_l / 2) - log2 ||c0 + c1 s||),
  // with c0 + c1 s (+ ...) centered modulo Q_l, or 0 when that is negative.
  // Decryption is correct while it is positive.
  //
  // SECURITY: this uses the secret key on the ciphertext. Computed on
  // ciphertexts that others made or modified and revealed to them, it leaks
  // information about the key (the error is a function of s); use it only to
  // size parameters on one's own ciphertexts. Evaluator::estimated_noise_budget
  // bounds it from below without the key.
  [[nodiscard]] int invariant_noise_budget(const Ciphertext& ct) const;

 private:
  // c0 + c1 s + ... in coefficient form, each coefficient composed to a
  // multi-word integer in [0, Q_l), calling f(index, words, Q_l).
  template <typename F>
  void for_each_composed(const Ciphertext& ct, F&& f) const;

  std::shared_ptr<const rlwe::Context> context_;
  rlwe::Decryptor decryptor_;
  std::vector<ring::RnsBase> level_bases_;  // Q_0 .. Q_{L-1}
  // Exact centered conversion Q_l -> {t} per level: decryption without
  // composing multi-word integers.
  std::vector<std::unique_ptr<ring::BaseConverter>> to_plain_;
};

}  // namespace heft::bgv
