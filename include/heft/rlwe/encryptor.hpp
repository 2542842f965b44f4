// Encryption with a public key or a secret key, and decryption.
//
// Secret-key encryption can also produce a seeded ciphertext: c_1 is the
// uniform polynomial expanded from a 32-byte seed, so only c_0 and the seed
// need to be stored or sent (about half the size).
//
// Error scale (opt-in, for BGV): every fresh error is multiplied by it, so a
// ciphertext decrypts to m + error_scale * e. Public-key encryption takes it
// from the public key (PublicKey::error_scale); secret-key encryption from the
// constructor. 1 (the default) is exactly the CKKS/BFV encryption.
#pragma once

#include <memory>

#include "heft/export.hpp"
#include "heft/ring/prng.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/plaintext.hpp"

namespace heft::rlwe {

// c_0 of a secret-key encryption plus the seed of its uniform c_1.
struct HEFT_EXPORT SeededCiphertext {
  ring::RnsPoly c0;
  ring::Prng::Seed seed{};
  double scale = 1.0;
  std::size_t slots = 0;
};

class HEFT_EXPORT Encryptor {
 public:
  // Public-key encryption. MismatchError for a malformed key (parts missing,
  // at another level or form), InvalidArgument for an error scale other than
  // 1 or the context's plaintext modulus.
  explicit Encryptor(const PublicKey& public_key);
  // Secret-key encryption (also able to make seeded ciphertexts); errors are
  // multiplied by error_scale, which must be 1 or the context's plaintext
  // modulus t (InvalidArgument otherwise); MismatchError for a malformed key.
  explicit Encryptor(const SecretKey& secret_key, uint64_t error_scale = 1);

  [[nodiscard]] uint64_t error_scale() const noexcept { return error_scale_; }

  // Encrypts at the plaintext's level; the ciphertext takes its scale and
  // slot count. The plaintext may be in either form: one in coefficient form
  // is added to the error before the error's transform, which saves an NTT
  // per tower (BFV and BGV build theirs that way); the ciphertext is in NTT
  // form either way. Throws MismatchError for a plaintext of another context.
  [[nodiscard]] Ciphertext encrypt(const Plaintext& plain) const;
  // Secret-key mode only (throws InvalidArgument otherwise).
  [[nodiscard]] SeededCiphertext encrypt_seeded(const Plaintext& plain) const;

 private:
  std::shared_ptr<const Context> context_;
  // Own copies of the key, so an Encryptor never outlives what it points to.
  std::shared_ptr<const PublicKey> public_key_;
  std::shared_ptr<const SecretKey> secret_key_;
  uint64_t error_scale_ = 1;
};

// Rebuilds the full ciphertext (c_0, c_1) from a seeded one.
[[nodiscard]] HEFT_EXPORT Ciphertext expand_seeded(const Context& context,
                                                   const SeededCiphertext& seeded);

class HEFT_EXPORT Decryptor {
 public:
  explicit Decryptor(const SecretKey& secret_key);
  // c_0 + c_1 s + c_2 s^2 + ... in NTT form at the ciphertext's level, with its
  // scale and slots. Throws MismatchError for a ciphertext of another context.
  [[nodiscard]] Plaintext decrypt(const Ciphertext& ciphertext) const;

 private:
  std::shared_ptr<const SecretKey> secret_key_;  // an own copy
};

// Checks that ct has at least two parts, each a non-empty NTT-form
// polynomial of the context's ciphertext ring at one level; throws
// MismatchError naming `operation` otherwise.
HEFT_EXPORT void require_ciphertext(const Context& context, const Ciphertext& ct,
                                    const char* operation);
// The name require_ciphertext had before the checks took one vocabulary.
[[deprecated("use require_ciphertext")]] inline void check_ciphertext(const Context& context,
                                                                      const Ciphertext& ct,
                                                                      const char* operation) {
  require_ciphertext(context, ct, operation);
}

}  // namespace heft::rlwe
