// Scheme-independent RLWE parameters: ring degree, ciphertext primes, special
// primes and digits for hybrid key switching, secret distribution and the
// security level they must meet.
//
// Levels: with L ciphertext primes q_0 .. q_{L-1}, a ciphertext at level l
// lives modulo q_0 * ... * q_l. Fresh ciphertexts are at level L - 1; rescaling
// or modulus switching drops the last prime. q_0 is never dropped.
//
// Hybrid key switching (Han-Ki; the scheme SEAL, OpenFHE and Lattigo use):
// the ciphertext primes are split into dnum digits of alpha = ceil(L / dnum)
// consecutive primes; each digit is raised to Q*P, where P is the product of
// the K special primes. dnum = L with one special prime is SEAL's setting;
// fewer digits mean fewer NTTs per key switch but need more special primes
// (P must be about as large as one digit for the noise to stay small).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/security.hpp"

namespace heft::rlwe {

// The ring degrees heft's parameter sets use: the HE Standard table starts at
// N = 1024 and the NTT stops at 2^17. validate() and make_parameters() both
// check N against these (require_ring_degree), so they refuse the same N with
// the same words.
inline constexpr uint64_t kMinRingDegree = 1024;
inline constexpr uint64_t kMaxRingDegree = uint64_t{1} << 17;
// Throws InvalidArgument, naming `operation`, unless N is a power of two in
// [kMinRingDegree, kMaxRingDegree].
HEFT_EXPORT void require_ring_degree(uint64_t degree, const char* operation);

// Ciphertext plus special primes a parameter set may have: far above any
// secure set (N = 2^17 allows about 3500 bits, under 180 primes of 20 bits or
// more), and what the serialization format holds. validate() refuses more, so
// every valid set can be saved.
inline constexpr std::size_t kMaxPrimeCount = 256;

enum class SecretKind {
  uniform_ternary,  // coefficients uniform in {-1, 0, 1}
  sparse_ternary,   // exactly hamming_weight nonzero coefficients in {-1, 1}
};

struct HEFT_EXPORT SecretDistribution {
  SecretKind kind = SecretKind::uniform_ternary;
  std::size_t hamming_weight = 0;  // sparse_ternary only
};

struct HEFT_EXPORT Parameters {
  uint64_t degree = 0;                      // N, a power of two
  std::vector<uint64_t> ciphertext_moduli;  // q_0 .. q_{L-1}
  std::vector<uint64_t> special_moduli;     // p_0 .. p_{K-1} (may be empty: no key switching)
  std::size_t dnum = 0;                     // key-switching digits; 0 = ceil(L / K)
  SecretDistribution secret{};
  SecurityLevel security = SecurityLevel::classic128;
  double scale = 0.0;          // CKKS: nominal scale of fresh ciphertexts (0 for BFV/BGV)
  uint64_t plain_modulus = 0;  // BFV/BGV: t >= 2, coprime to every prime (0 for CKKS)

  // Sum of the bit sizes of all primes: heft's measure of log2(QP).
  [[nodiscard]] int total_bits() const;
  // The effective number of digits (resolves dnum = 0) and primes per digit.
  [[nodiscard]] std::size_t digit_count() const;
  [[nodiscard]] std::size_t digit_size() const;

  // Throws InvalidArgument with the reason: N not a power of two in range,
  // no ciphertext primes, more than kMaxPrimeCount primes, a modulus that is
  // not an NTT prime for N, repeated primes, dnum outside [1, L], a bad
  // Hamming weight, a plaintext modulus out of range or sharing a factor with
  // a prime, a CKKS scale that cannot survive the first multiplication (see
  // below), or a set that exceeds the HE Standard bound for its security level.
  //
  // CKKS scale (scale > 0): with two or more ciphertext primes, the product of
  // two fresh ciphertexts, at scale^2, must fit the top modulus before it is
  // rescaled: 2 log2(scale) < log2(q_0 * ... * q_{L-1}) - 1, the evaluator's
  // own test (ckks::Evaluator refuses any product that breaks it). With one
  // prime there is nothing to rescale by, and a fresh value must fit:
  // log2(scale) < log2(q_0) - 1. So a scale of 2^40 over 40- to 60-bit primes
  // passes, and 2^70 over three 40-bit primes (a product of 2^140 over 2^120)
  // is refused here instead of at the first square.
  void validate() const;
};

// Parameters with freshly generated distinct NTT primes of the given bit sizes
// (ciphertext primes in order q_0, q_1, ...; then special primes). N must be
// a power of two from kMinRingDegree to kMaxRingDegree, as validate() says.
HEFT_EXPORT Parameters make_parameters(uint64_t degree, const std::vector<int>& ciphertext_bits,
                                       const std::vector<int>& special_bits, std::size_t dnum = 0,
                                       SecurityLevel security = SecurityLevel::classic128);

// A human-readable one-line summary ("N=16384, L=8 (48..49 bits), K=1, dnum=8, 128-bit").
HEFT_EXPORT std::string describe(const Parameters& parameters);

}  // namespace heft::rlwe
