// Helpers shared by the ring tests: GMP big integers as the independent oracle
// for CRT arithmetic, random primes chosen by GMP (not by heft), and small
// contexts of NTT-friendly primes; fixed Prng seeds.
#pragma once

#include <gmp.h>

#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "heft/math/primes.hpp"
#include "heft/ring/poly_context.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/rns_base.hpp"

namespace heft::ring::testing {

// RAII wrapper over mpz_t, just enough for the tests.
class BigInt {
 public:
  BigInt() { mpz_init(value_); }
  explicit BigInt(uint64_t v) {
    mpz_init(value_);
    mpz_import(value_, 1, -1, sizeof(uint64_t), 0, 0, &v);
  }
  explicit BigInt(std::span<const uint64_t> words) {
    mpz_init(value_);
    if (!words.empty()) mpz_import(value_, words.size(), -1, sizeof(uint64_t), 0, 0, words.data());
  }
  BigInt(const BigInt& other) {
    mpz_init(value_);
    mpz_set(value_, other.value_);
  }
  BigInt& operator=(const BigInt& other) {
    mpz_set(value_, other.value_);
    return *this;
  }
  ~BigInt() { mpz_clear(value_); }

  mpz_ptr get() { return value_; }
  mpz_srcptr get() const { return value_; }

  // Little-endian words, at least `min_words` long.
  std::vector<uint64_t> words(std::size_t min_words = 1) const {
    const std::size_t count = (mpz_sizeinbase(value_, 2) + 63) / 64;
    std::vector<uint64_t> out(std::max(count, min_words), 0);
    std::size_t written = 0;
    if (mpz_sgn(value_) != 0) mpz_export(out.data(), &written, -1, sizeof(uint64_t), 0, 0, value_);
    return out;
  }

  // Non-negative remainder modulo m (also for negative values).
  uint64_t mod(uint64_t m) const {
    BigInt modulus(m), r;
    mpz_mod(r.value_, value_, modulus.value_);
    return r.words()[0];
  }

 private:
  mpz_t value_;
};

inline BigInt product_of(const RnsBase& base) {
  BigInt q(1);
  for (const math::Modulus& m : base.moduli()) {
    BigInt factor(m.value());
    mpz_mul(q.get(), q.get(), factor.get());
  }
  return q;
}

// Deterministic GMP random state.
class GmpRandom {
 public:
  explicit GmpRandom(unsigned long seed) {
    gmp_randinit_mt(state_);
    gmp_randseed_ui(state_, seed);
  }
  ~GmpRandom() { gmp_randclear(state_); }
  GmpRandom(const GmpRandom&) = delete;
  GmpRandom& operator=(const GmpRandom&) = delete;

  // Uniform in [0, bound).
  BigInt below(const BigInt& bound) {
    BigInt r;
    mpz_urandomm(r.get(), state_, bound.get());
    return r;
  }
  uint64_t below(uint64_t bound) { return below(BigInt(bound)).words()[0]; }

  // `count` distinct primes with exactly `bits` bits, chosen by GMP.
  std::vector<uint64_t> primes(int bits, std::size_t count,
                               const std::set<uint64_t>& exclude = {}) {
    std::set<uint64_t> chosen;
    std::vector<uint64_t> out;
    while (out.size() < count) {
      BigInt candidate;
      mpz_urandomb(candidate.get(), state_, bits - 1);
      mpz_setbit(candidate.get(), bits - 1);
      mpz_nextprime(candidate.get(), candidate.get());
      if (mpz_sizeinbase(candidate.get(), 2) != static_cast<std::size_t>(bits)) continue;
      const uint64_t p = candidate.words()[0];
      if (chosen.count(p) != 0 || exclude.count(p) != 0) continue;
      chosen.insert(p);
      out.push_back(p);
    }
    return out;
  }

 private:
  gmp_randstate_t state_;
};

// A context of `towers` NTT-friendly primes of `bits` bits at degree n.
inline std::shared_ptr<const PolyContext> make_context(uint64_t n, std::size_t towers, int bits) {
  return PolyContext::create(n, RnsBase(math::generate_ntt_primes(bits, n, towers)));
}

// The seed start, start + 1, ... (a fixed seed for reproducible streams).
inline Prng::Seed counting_seed(uint8_t start = 0) {
  Prng::Seed seed;
  for (std::size_t i = 0; i < seed.size(); ++i)
    seed[i] = static_cast<uint8_t>(start + i);
  return seed;
}

}  // namespace heft::ring::testing
