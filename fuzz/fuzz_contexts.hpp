// The fixed, small parameter sets shared by the fuzz targets (fuzz_load.cpp)
// and the seed-corpus generator (make_corpus.cpp). The primes are hard-coded,
// not generated, so that the parameter hash every saved object carries is the
// same in both programs and from one build to the next.
//
// Both sets: N = 1024, two 30-bit ciphertext primes and one 30-bit special
// prime (dnum = 2), SecurityLevel::none (tiny on purpose: inputs stay small
// and loads fast). The CKKS set has a scale and no plaintext modulus; the
// integer set (BFV/BGV) has the batching prime t = 12289 and no scale.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/serialization.hpp"

namespace heft::fuzz {

inline constexpr uint64_t kDegree = 1024;
// The three largest 30-bit primes q = 1 mod 2N, as
// heft::math::generate_ntt_primes(30, 1024, 3) returns them.
inline constexpr std::array<uint64_t, 3> kPrimes = {1073707009, 1073698817, 1073692673};
inline constexpr uint64_t kPlainModulus = 12289;  // prime, = 1 mod 2048: batching
inline constexpr double kScale = 1 << 25;

inline rlwe::Parameters base_parameters() {
  rlwe::Parameters p;
  p.degree = kDegree;
  p.ciphertext_moduli = {kPrimes[0], kPrimes[1]};
  p.special_moduli = {kPrimes[2]};
  p.dnum = 2;
  p.security = rlwe::SecurityLevel::none;
  return p;
}

inline rlwe::Parameters ckks_parameters() {
  rlwe::Parameters p = base_parameters();
  p.scale = kScale;
  return p;
}

inline rlwe::Parameters integer_parameters() {
  rlwe::Parameters p = base_parameters();
  p.plain_modulus = kPlainModulus;
  return p;
}

inline const rlwe::ContextPtr& ckks_context() {
  static const rlwe::ContextPtr context = rlwe::Context::create(ckks_parameters());
  return context;
}

inline const rlwe::ContextPtr& integer_context() {
  static const rlwe::ContextPtr context = rlwe::Context::create(integer_parameters());
  return context;
}

// What every load in the fuzzers accepts at most: 64 MiB of payload, and a
// context of 64 MiB of tables (rlwe::context_bytes), so that a context load
// stays within what scripts/fuzz.sh lets fuzz_load_context spend. Every
// fuzz parameter set is SecurityLevel::none, so insecure sets are allowed.
inline constexpr std::size_t kMaxContextBytes = std::size_t{64} << 20;
inline rlwe::LoadOptions load_options() {
  rlwe::LoadOptions options;
  options.max_bytes = std::size_t{64} << 20;
  options.max_context_bytes = kMaxContextBytes;
  options.allow_insecure_parameters = true;
  return options;
}

// A fixed, public ternary key (never a secret: it lets the fuzzers decrypt
// what make_corpus encrypted, and keeps the corpus reproducible in part).
inline rlwe::SecretKey fixed_secret_key(const rlwe::ContextPtr& context) {
  std::vector<int64_t> coefficients(kDegree);
  for (std::size_t i = 0; i < kDegree; ++i)
    coefficients[i] = static_cast<int64_t>((i * 2654435761u >> 7) % 3) - 1;
  return rlwe::SecretKey::from_coefficients(context, coefficients);
}

}  // namespace heft::fuzz
