// CKKS decryption with noise flooding (IND-CPA-D security).
//
// A CKKS decryption returns m + e, and e is a function of the secret key: Li
// and Micciancio (Eurocrypt 2021) recover the key from one ciphertext and its
// shared decoded result (tests/schemes/ckks/test_key_recovery.cpp). A flooded
// decryption adds, before decoding, fresh Gaussian noise much wider than e, so
// that the shared result is statistically close to one that does not depend
// on e (OpenFHE's NOISE_FLOODING_DECRYPT; docs/security.md).
//
// Sizing. With E a bound on the ciphertext's noise (largest coefficient, in
// integer units), lambda the statistical security parameter and t the number
// of flooded decryptions under one key an adversary may see, the flooding
// noise has standard deviation
//     sigma = E * 2^(lambda / 2) * sqrt(64 t)
// (the prior-art bound that Li, Micciancio, Schultz and Sorrell state in
// "Securing Approximate Homomorphic Encryption Using Differential Privacy",
// CRYPTO 2022, as log2 sigma = log2 E + lambda/2 + log2(64 t)/2). OpenFHE's
// guidance, and the default here: lambda = 30, t = 1.
//
// The noise bound E must not come from the ciphertext being decrypted (its
// size is a function of the key): as in OpenFHE's EXEC_NOISE_ESTIMATION mode,
// run the same circuit once on sample inputs whose result is known, measure
// that result's noise with measure_noise_bits(), and use that (plus a margin)
// for the real decryptions.
//
// The price is precision: sigma is lambda/2 + 3 bits above the noise, and
// each decoded real value carries an added error of standard deviation about
// sigma * sqrt(N / 2) / scale (FloodedPlaintext::slot_error). The scale must
// leave room for it.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/plaintext.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::ckks {

struct HEFT_EXPORT FloodingOptions {
  // log2 of E, the bound on the noise of the ciphertexts to be decrypted (from
  // measure_noise_bits on an estimation run); at least 0.
  double noise_bits = 0;
  // lambda: the statistical distance between flooded results of two noises
  // within E is about 2^-lambda. At least 1; OpenFHE's guidance is 30.
  int statistical_security = 30;
  // t: flooded decryptions under one key that an adversary may collect.
  uint64_t decryptions = 1;
};

// log2 of the flooding noise's standard deviation for these options (see the
// file comment). Throws InvalidArgument for noise_bits < 0 or not finite,
// statistical_security < 1 or decryptions = 0.
[[nodiscard]] HEFT_EXPORT double flooding_bits(const FloodingOptions& options);

struct HEFT_EXPORT FloodedPlaintext {
  rlwe::Plaintext plain;     // decode() it as any plaintext
  double flooding_bits = 0;  // log2 of the added noise's standard deviation
  // The standard deviation of the error the flooding adds to each decoded
  // real (and each imaginary) part: sigma * sqrt(N / 2) / scale.
  double slot_error = 0;
};

class HEFT_EXPORT FloodingDecryptor {
 public:
  // Throws what Decryptor's constructor and flooding_bits() throw.
  FloodingDecryptor(const rlwe::SecretKey& secret_key, const FloodingOptions& options);

  [[nodiscard]] const FloodingOptions& options() const noexcept { return options_; }

  // The ciphertext's decryption plus the flooding noise (fresh randomness
  // from the operating system for every call). Throws what
  // Decryptor::decrypt throws, and InvalidArgument when the flooding noise
  // would not fit the ciphertext's modulus (2^(flooding_bits + 6) must stay
  // below Q_level / 2: the result would wrap around and mean nothing).
  [[nodiscard]] FloodedPlaintext decrypt(const rlwe::Ciphertext& ciphertext) const;

 private:
  rlwe::Decryptor decryptor_;
  FloodingOptions options_;
};

// The estimation run's measurement: log2 of the largest coefficient of the
// ciphertext's noise, decrypt(ciphertext) - encode(expected) at the
// ciphertext's scale, level and slots (0 for an exact result). `expected` are
// the values the circuit should produce (exactly, from a plaintext run).
// Throws what decrypt and encode throw, and InvalidArgument when the
// difference is not small noise (a coefficient reaching the scale, or Q_0 / 4:
// the expected values are not this ciphertext's).
[[nodiscard]] HEFT_EXPORT double measure_noise_bits(const rlwe::Decryptor& decryptor,
                                                    const Encoder& encoder,
                                                    const rlwe::Ciphertext& ciphertext,
                                                    std::span<const std::complex<double>> expected);

}  // namespace heft::ckks
