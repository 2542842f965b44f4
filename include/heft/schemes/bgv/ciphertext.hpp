// BGV ciphertext: an RLWE ciphertext whose decryption c0 + c1 s (+ c2 s^2)
// is m' + t e modulo Q_level, plus the correction factor that turns m' into
// the message: m = m' * correction (mod t).
//
// Why a correction factor: modulus switching divides the ciphertext by the
// dropped prime q, and keeping the error a multiple of t forces the plaintext
// to be multiplied by q^-1 mod t. Rather than multiply it back (which costs
// noise), the factor is tracked here and applied once at decryption.
#pragma once

#include <cstdint>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"

namespace heft::bgv {

struct HEFT_EXPORT Ciphertext {
  rlwe::Ciphertext ct;      // parts in NTT form
  uint64_t correction = 1;  // in [1, t), invertible mod t

  [[nodiscard]] std::size_t size() const noexcept { return ct.size(); }
  [[nodiscard]] std::size_t level() const noexcept { return ct.level(); }
  [[nodiscard]] Ciphertext clone() const { return {ct.clone(), correction}; }
};

}  // namespace heft::bgv
