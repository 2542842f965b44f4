// Helpers shared by the CKKS encoder and decoder tests: cached contexts,
// random values, GMP integers (the independent oracle for coefficients beyond
// 64 bits) and plaintext polynomials built from them.
#pragma once

#include <gmp.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::ckks::testing {

using cd = std::complex<double>;

// Contexts are cached: prime generation and NTT tables dominate otherwise.
inline std::shared_ptr<const rlwe::Context> context_for(uint64_t degree,
                                                        const std::vector<int>& bits) {
  static std::map<std::pair<uint64_t, std::vector<int>>, std::shared_ptr<const rlwe::Context>>
      cache;
  auto& slot = cache[{degree, bits}];
  if (!slot) {
    slot = rlwe::Context::create(
        rlwe::make_parameters(degree, bits, {}, 0, rlwe::SecurityLevel::none));
  }
  return slot;
}

inline std::vector<cd> random_complex(std::size_t n, std::mt19937_64& rng, double bound = 1) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  std::vector<cd> v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

// RAII wrapper so the GMP helpers below stay short.
struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  explicit Mpz(long x) { mpz_init_set_si(v, x); }
  Mpz(const Mpz& o) { mpz_init_set(v, o.v); }
  Mpz& operator=(const Mpz& o) {
    mpz_set(v, o.v);
    return *this;
  }
  ~Mpz() { mpz_clear(v); }
};

inline Mpz modulus_product(const ring::PolyContext& ring, std::size_t towers) {
  Mpz q(1);
  for (std::size_t i = 0; i < towers; ++i)
    mpz_mul_ui(q.v, q.v, ring.modulus(i).value());
  return q;
}

// x to long double from its top 64 bits (truncated): relative error < 2^-63.
inline long double to_long_double(const Mpz& x) {
  const std::size_t bits = mpz_sizeinbase(x.v, 2);
  const unsigned long shift = bits > 64 ? bits - 64 : 0;
  Mpz top;
  mpz_tdiv_q_2exp(top.v, x.v, shift);
  const long double magnitude =
      std::ldexp(static_cast<long double>(mpz_get_ui(top.v)), static_cast<int>(shift));
  return mpz_sgn(x.v) < 0 ? -magnitude : magnitude;
}

// A coefficient-form plaintext polynomial with the given integer coefficients.
ring::RnsPoly poly_from_integers(const std::shared_ptr<const ring::PolyContext>& ring,
                                 std::size_t towers, const std::vector<Mpz>& coefficients) {
  ring::RnsPoly poly(ring, towers);
  for (std::size_t i = 0; i < towers; ++i) {
    const uint64_t qi = ring->modulus(i).value();
    for (std::size_t k = 0; k < coefficients.size(); ++k)
      poly.tower(i)[k] = mpz_fdiv_ui(coefficients[k].v, qi);
  }
  return poly;
}

inline double max_error(const std::vector<cd>& a, const std::vector<cd>& b) {
  double e = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    e = std::max(e, std::abs(a[k] - b[k]));
  return e;
}

}  // namespace heft::ckks::testing
