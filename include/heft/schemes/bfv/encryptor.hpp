// BFV encryption and decryption of integer plaintexts on the rlwe core.
//
// A plaintext m in Z_t[X]/(X^N + 1) is encrypted as an rlwe encryption of
// Delta * m with Delta = floor(Q_l / t), built in RNS from the exact residues
// [Delta]_{q_i}; the rlwe public- and secret-key encryptors do the rest.
// Decryption computes x = c_0 + c_1 s (+ c_2 s^2) with the rlwe decryptor and
// then m = round(t x / Q_l) mod t, exactly: with r = [t x]_{Q_l} centred,
// t x = Q_l * round(t x / Q_l) + r, so m = -r * Q_l^-1 (mod t), and r mod t
// comes from an exact centred base conversion Q_l -> {t}. No floating point,
// so decryption is right for every ciphertext whose noise is in range.
//
// Invariant noise budget (as SEAL's): r / Q_l above is the scaled noise
// t (x - Delta m) / Q_l folded with the rounding of Delta; decryption is
// correct while ||r||_inf < Q_l / 2, and the budget is
// max(0, bits(Q_l) - bits(||r||_inf) - 1), so a positive budget guarantees
// correct decryption.
// SECURITY: the noise of a ciphertext depends on the secret key. Computing the
// budget of ciphertexts that others made or modified, and letting anyone see
// the result (or whether decryption failed), can leak information about the
// key (key-recovery attacks on decryption-failure and noise oracles). Use it
// on your own ciphertexts, for testing and parameter selection.
#pragma once

#include <cstddef>
#include <memory>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"

namespace heft::bfv {

using rlwe::Ciphertext;
using schemes::IntegerPlaintext;

class HEFT_EXPORT Encryptor {
 public:
  // Throws InvalidArgument if the key's parameters have no plaintext modulus.
  explicit Encryptor(const rlwe::PublicKey& public_key);
  explicit Encryptor(const rlwe::SecretKey& secret_key);

  // A fresh ciphertext at the top level, or at `level`. Throws MismatchError /
  // InvalidArgument for a plaintext of another t, of the wrong size or with a
  // coefficient >= t, and InvalidArgument for a level that does not exist.
  [[nodiscard]] Ciphertext encrypt(const IntegerPlaintext& plain) const;
  [[nodiscard]] Ciphertext encrypt(const IntegerPlaintext& plain, std::size_t level) const;

 private:
  std::shared_ptr<const rlwe::Context> context_;
  rlwe::Encryptor encryptor_;
};

class HEFT_EXPORT Decryptor {
 public:
  explicit Decryptor(const rlwe::SecretKey& secret_key);

  // round(t (c_0 + c_1 s + ...) / Q_l) mod t. Throws MismatchError for a
  // ciphertext of another context or a malformed one.
  [[nodiscard]] IntegerPlaintext decrypt(const Ciphertext& ciphertext) const;

  // Bits of noise budget left (0: decryption may be wrong). See the security
  // note above before exposing this value.
  [[nodiscard]] int invariant_noise_budget(const Ciphertext& ciphertext) const;

 private:
  // [t (c_0 + c_1 s + ...)]_{Q_l} in coefficient form.
  [[nodiscard]] ring::RnsPoly scaled_phase(const Ciphertext& ciphertext, const char* op) const;

  std::shared_ptr<const rlwe::Context> context_;
  rlwe::Decryptor decryptor_;
};

}  // namespace heft::bfv
