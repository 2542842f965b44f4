// How BGV addition brings two ciphertexts with different correction factors
// c_a and c_b (ciphertext.hpp) under one: it adds x a + y b, whose plaintext
// is x m_a / c_a + y m_b / c_b, with small x, y such that
//   x / c_a = y / c_b (mod t),  i.e.  y = r x (mod t),  r = c_b / c_a,
// so that it is (m_a + m_b) x / c_a: the sum, under correction c_a / x.
//
// The noise becomes |x| B_a + |y| B_b. Multiplying b alone by r (x = 1, the
// old way) or a alone by 1/r costs up to log2 t bits; the pairs (x, y) of the
// lattice {y = r x mod t} met by the extended Euclidean algorithm on (t, r)
// (the remainders y_i = x_i r mod t with their cofactors x_i) run from
// (1, r) to (r^-1, 1) through balanced ones of size about sqrt(t), and
// between two consecutive pairs the cost |x| B_a + |y| B_b is linear, so the
// cheapest of them is the cheapest along that path. Weighing by B_a and B_b
// also puts the large factor on the operand with the smaller noise. About
// 2 log_phi(t) integer steps: nothing beside the polynomial work.
#pragma once

#include <cstdint>

#include "heft/math/modulus.hpp"

namespace heft::bgv::detail {

struct Reconciliation {
  uint64_t x = 1, y = 1;    // the factors of a and b, in [0, t) (applied centered)
  uint64_t correction = 1;  // c_a / x mod t, the sum's correction factor
  double noise_log2 = 0;    // log2(|x| 2^noise_a + |y| 2^noise_b), |.| centered
};

// c_a and c_b invertible mod t; noise_a, noise_b as in Ciphertext::noise_log2.
// With c_a = c_b: x = y = 1. x must be invertible mod t (for the correction
// factor): with a t that is not prime, a pair whose x is not is replaced by
// its sum and difference with the previous pair; (1, r) always qualifies.
// Against a brute-force search over all x, the choice was the cheapest for
// prime t and prime powers (2^16, 3^7), and within 4.5 bits of it for t
// with several small factors (6000, 30030).
Reconciliation reconcile(const math::Modulus& t, uint64_t c_a, double noise_a, uint64_t c_b,
                         double noise_b);

}  // namespace heft::bgv::detail
