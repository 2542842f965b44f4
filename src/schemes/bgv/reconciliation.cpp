// The cheapest pair of small factors for BGV addition (reconciliation.hpp).
#include "schemes/bgv/reconciliation.hpp"

#include <cmath>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "heft/schemes/bgv/noise_model.hpp"

namespace heft::bgv::detail {
namespace {

// log2 of the centered magnitude of v mod t (multiply_by_constant applies
// the centered representative).
double log2_centered(uint64_t v, uint64_t t) {
  return std::log2(static_cast<double>(v > t / 2 ? t - v : v));
}

// A signed integer of magnitude below 2t as a residue mod t.
uint64_t to_residue(int64_t v, uint64_t t) {
  const uint64_t magnitude = static_cast<uint64_t>(v < 0 ? -v : v) % t;
  return v < 0 && magnitude != 0 ? t - magnitude : magnitude;
}

}  // namespace

Reconciliation reconcile(const math::Modulus& t, uint64_t c_a, double noise_a, uint64_t c_b,
                         double noise_b) {
  const uint64_t q = t.value();
  // The correction factor is filled in once the pair is chosen.
  const auto candidate = [&](uint64_t x, uint64_t y) {
    return Reconciliation{x, y, 0,
                          log2_sum(noise_a + log2_centered(x, q), noise_b + log2_centered(y, q))};
  };
  if (c_a == c_b) return {1, 1, c_a, log2_sum(noise_a, noise_b)};
  const uint64_t r = t.mul(c_b, t.inverse(c_a));
  Reconciliation best = candidate(1, r);
  // Remainders y_i = x_i r (mod t): (y_0, x_0) = (t, 0), (y_1, x_1) = (r, 1).
  const auto consider = [&](int64_t x, int64_t y) {
    const uint64_t x_mod = to_residue(x, q);
    if (x_mod == 0 || std::gcd(x_mod, q) != 1) return false;
    const Reconciliation next = candidate(x_mod, to_residue(y, q));
    if (next.noise_log2 < best.noise_log2) best = next;
    return true;
  };
  int64_t y_prev = static_cast<int64_t>(q), y = static_cast<int64_t>(r);
  int64_t x_prev = 0, x = 1;
  while (y != 0) {
    // With a t that is not prime, x_i may have no inverse: then its sums
    // with the neighbouring pair (also in the lattice, and small) stand in.
    if (!consider(x, y)) {
      consider(x + x_prev, y + y_prev);
      consider(x - x_prev, y - y_prev);
    }
    const int64_t quotient = y_prev / y;
    y_prev = std::exchange(y, y_prev - quotient * y);
    x_prev = std::exchange(x, x_prev - quotient * x);
  }
  best.correction = t.mul(c_a, t.inverse(best.x));
  return best;
}

}  // namespace heft::bgv::detail
