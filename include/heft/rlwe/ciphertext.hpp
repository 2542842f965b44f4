// Ciphertext: (c_0, c_1, ...) over Q_level with c_0 + c_1 s + c_2 s^2 + ... =
// message + noise. Two parts after encryption and relinearization, three after
// a tensor product. Parts are kept in NTT form between operations.
//
// One ciphertext type serves every scheme: CKKS, BFV and BGV ciphertexts are
// all rlwe::Ciphertext, and what each scheme needs to know about its parts
// beyond the parts themselves is one metadata record (CiphertextMetadata)
// that every ciphertext carries. Why one record rather than a wrapper type
// per scheme: the layers above (circuits, bootstrapping, the tensor layer)
// are written once over rlwe::Ciphertext; a wrapper per scheme would need
// each generic algorithm templated on the scheme's type, or unwrapped and
// rewrapped at every call (docs/architecture.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "heft/export.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/rns_poly.hpp"

namespace heft::rlwe {

// The noise_log2 of a ciphertext whose noise nobody estimated: a CKKS or BFV
// ciphertext, one built by hand, or a BGV ciphertext loaded from format
// version 1. The BGV evaluator refuses to compute on it (NoiseBudgetError)
// until noise_log2 is set.
inline constexpr double kUnknownNoise = std::numeric_limits<double>::infinity();

// What a ciphertext says about its parts. Each scheme reads its own fields and
// leaves the others at their defaults; every operation that keeps the message
// keeps the record (rotations, relinearization), and serialization stores it
// whole (docs/format.md).
struct HEFT_EXPORT CiphertextMetadata {
  // CKKS: the exact scale of the encrypted values, the number of packed
  // slots (0: all N/2), and whether the ciphertext is a product whose scale
  // has not been divided down yet.
  double scale = 1.0;
  std::size_t slots = 0;
  bool needs_rescale = false;
  // BGV: the decryption c0 + c1 s (+ c2 s^2) is m' + t e modulo Q_level, and
  // the message is m = m' * correction (mod t); the factor is in [1, t),
  // invertible mod t, and stays 1 for CKKS and BFV. Why a factor: modulus
  // switching divides the ciphertext by the dropped prime q, and keeping the
  // error a multiple of t multiplies the plaintext by q^-1 mod t; rather
  // than multiply it back (which costs noise), the factor is tracked and
  // applied once at decryption.
  uint64_t correction = 1;
  // BGV: log2 of a bound on ||c0 + c1 s (+ c2 s^2)|| (bgv/noise_model.hpp),
  // kUnknownNoise when nobody estimated it. The BGV encryptor sets it, every
  // BGV operation updates it and refuses to go past what the level can
  // decrypt.
  double noise_log2 = kUnknownNoise;
};

struct HEFT_EXPORT Ciphertext : CiphertextMetadata {
  std::vector<ring::RnsPoly> parts;
  // Set by secret-key encryption: parts[1] was expanded from this seed. It is
  // only a hint for serialization, which checks that parts[1] still equals
  // the expansion (an operation may have changed it) before storing the
  // 32-byte seed in place of the polynomial.
  std::optional<ring::Prng::Seed> c1_seed;

  [[nodiscard]] std::size_t size() const noexcept { return parts.size(); }
  [[nodiscard]] std::size_t level() const noexcept { return parts.front().tower_count() - 1; }
  [[nodiscard]] bool empty() const noexcept { return parts.empty(); }
  [[nodiscard]] const CiphertextMetadata& metadata() const noexcept { return *this; }

  [[nodiscard]] Ciphertext clone() const {
    Ciphertext copy = with_metadata(*this);
    copy.parts.reserve(parts.size());
    for (const auto& p : parts)
      copy.parts.push_back(p.clone());
    copy.c1_seed = c1_seed;
    return copy;
  }

  // A ciphertext without parts that carries `metadata` (for an operation's
  // result, which then takes its parts).
  [[nodiscard]] static Ciphertext with_metadata(const CiphertextMetadata& metadata) {
    Ciphertext out;
    static_cast<CiphertextMetadata&>(out) = metadata;
    return out;
  }
};

// True when every part after c0 is zero (and there is at least one): the
// ciphertext's mask has cancelled and c0 holds the message plus noise in the
// clear (docs/security.md, "Transparent ciphertexts"). Stops at the first
// nonzero value, so a normal ciphertext costs a few reads.
[[nodiscard]] HEFT_EXPORT bool is_transparent(const Ciphertext& ciphertext) noexcept;

// Throws TransparentCiphertextError naming `operation` when `result` is
// transparent: what the evaluators call on results that could be.
HEFT_EXPORT void refuse_transparent(const Ciphertext& result, const char* operation);
// That error, unconditionally (for a caller that first undoes its work).
[[noreturn]] HEFT_EXPORT void throw_transparent(const char* operation);

// What every scheme's evaluator does with transparent results: refuse them
// (TransparentCiphertextError, the failed call leaving its operands as they
// were), unless allowed by a caller that re-randomises them before they leave
// (the tensor layer adds a fresh encryption of zero). Evaluators derive from it.
class HEFT_EXPORT TransparentResults {
 public:
  void allow_transparent_results(bool allow) noexcept { allow_ = allow; }
  [[nodiscard]] bool allows_transparent_results() const noexcept { return allow_; }

 protected:
  // refuse_transparent(result, operation) unless allowed.
  void check_transparent(const Ciphertext& result, const char* operation) const {
    if (!allow_) refuse_transparent(result, operation);
  }

 private:
  bool allow_ = false;
};

}  // namespace heft::rlwe
