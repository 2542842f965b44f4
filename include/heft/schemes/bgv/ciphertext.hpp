// BGV ciphertext: an RLWE ciphertext whose decryption c0 + c1 s (+ c2 s^2)
// is m' + t e modulo Q_level, plus the correction factor that turns m' into
// the message: m = m' * correction (mod t), and the estimate of its noise.
//
// Why a correction factor: modulus switching divides the ciphertext by the
// dropped prime q, and keeping the error a multiple of t forces the plaintext
// to be multiplied by q^-1 mod t. Rather than multiply it back (which costs
// noise), the factor is tracked here and applied once at decryption.
//
// The noise estimate (noise_model.hpp) bounds ||c0 + c1 s (+ c2 s^2)|| in
// log2; the encryptor sets it, every evaluator operation updates it and
// refuses to go past what the level can decrypt. It is metadata, like the
// correction factor: it travels with the ciphertext (format version 2).
#pragma once

#include <cstdint>
#include <limits>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"

namespace heft::bgv {

// The noise_log2 of a ciphertext whose noise nobody estimated: one built by
// hand, or loaded from format version 1. The evaluator refuses to compute on
// it (NoiseBudgetError) until noise_log2 is set.
inline constexpr double kUnknownNoise = std::numeric_limits<double>::infinity();

struct HEFT_EXPORT Ciphertext {
  rlwe::Ciphertext ct;      // parts in NTT form
  uint64_t correction = 1;  // in [1, t), invertible mod t
  // log2 of the bound on the noise; kUnknownNoise when nobody estimated it
  // (the evaluator then refuses to compute on the ciphertext).
  double noise_log2 = kUnknownNoise;

  [[nodiscard]] std::size_t size() const noexcept { return ct.size(); }
  [[nodiscard]] std::size_t level() const noexcept { return ct.level(); }
  [[nodiscard]] Ciphertext clone() const { return {ct.clone(), correction, noise_log2}; }
};

}  // namespace heft::bgv
