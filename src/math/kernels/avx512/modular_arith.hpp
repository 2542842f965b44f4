// The modular products of the avx512 element-wise kernels and long sums
// (avx512/eltwise.cpp, avx512/sums.cpp) on 8 x 64-bit lanes, for any
// q < 2^61.
//
// Reductions use x -> min(x, x - bound) (unsigned): when x < bound the
// subtraction wraps above x. 64 x 64-bit high halves are assembled from
// 32 x 32-bit _mm512_mul_epu32 partial products; where an estimate is enough
// (quotients) the carry out of the low half is dropped, leaving the quotient
// up to 2 short, which costs one extra conditional subtraction of 2q.
//
// Included only by the avx512 kernel files (compiled with AVX-512 flags, or
// on SIMDe emulation for the tests); everything is in an anonymous namespace
// (internal linkage, see kernel_api.hpp).
#pragma once

#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

// floor(a * b / 2^64), exact.
inline __m512i mulhi_exact(__m512i a, __m512i b, __m512i mask32) {
  const __m512i a_hi = _mm512_srli_epi64(a, 32);
  const __m512i b_hi = _mm512_srli_epi64(b, 32);
  const __m512i ll = _mm512_mul_epu32(a, b);
  const __m512i lh = _mm512_mul_epu32(a, b_hi);
  const __m512i hl = _mm512_mul_epu32(a_hi, b);
  const __m512i hh = _mm512_mul_epu32(a_hi, b_hi);
  // Sum the middle column in two steps; neither overflows 64 bits because a
  // 32 x 32-bit product is at most 2^64 - 2^33 + 1.
  const __m512i mid = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32));
  const __m512i mid2 = _mm512_add_epi64(lh, _mm512_and_si512(mid, mask32));
  return _mm512_add_epi64(
      hh, _mm512_add_epi64(_mm512_srli_epi64(mid, 32), _mm512_srli_epi64(mid2, 32)));
}

// Barrett reduction of a 128-bit x < q^2 + q (a product plus an addend below
// q), with L = bit length of q, s = L - 2 and mu = floor(2^(64 + s) / q) < 2^63:
// x1 = floor(x / 2^s) < 2^(L + 2) <= 2^63 and Q = floor(x1 mu / 2^64) is at most
// 1 below floor(x / q) (the truncations cost less than x / 2^(64 + s) < 1/2 and
// 2^s / q <= 1/2); with the approximate high half, at most 3 below. So
// x - Q q is in [0, 4q), and exact in the low 64 bits.
struct Barrett128 {
  __m512i q, two_q, mu, mu_hi, shift_right, shift_left, mask32;

  Barrett128(const ModulusData& m) {
    const uint64_t bits = 64 - static_cast<uint64_t>(__builtin_clzll(m.value));
    const uint64_t s = bits - 2;  // q >= 2, so bits >= 2
    // floor(2^(64+s) / q) = floor(2^128 / q) >> (64 - s).
    const uint64_t mu_scalar =
        s == 0 ? m.barrett_hi : (m.barrett_hi << s) | (m.barrett_lo >> (64 - s));
    q = set1(m.value);
    two_q = set1(2 * m.value);
    mu = set1(mu_scalar);
    mu_hi = set1(mu_scalar >> 32);
    shift_right = set1(s);
    shift_left = set1(64 - s);  // 64 when s = 0: vpsllvq then yields 0
    mask32 = set1(0xffffffffu);
  }

  // (hi, lo) = x -> x mod q.
  __m512i reduce(__m512i hi, __m512i lo) const {
    const __m512i x1 =
        _mm512_or_si512(_mm512_sllv_epi64(hi, shift_left), _mm512_srlv_epi64(lo, shift_right));
    const __m512i quotient = mulhi_approx(x1, mu, mu_hi);
    const __m512i r = _mm512_sub_epi64(lo, _mm512_mullo_epi64(quotient, q));  // [0, 4q)
    return reduce_once(reduce_once(r, two_q), q);
  }
};

// Shoup: a * w - Q q with Q = approximate floor(a w_shoup / 2^64): at most 1
// (exact) + 2 (approximation) short of floor(a w / q), so in [0, 4q), for any
// 64-bit a (4q < 2^63, so the low 64 bits of the difference are exact).
struct ShoupProduct {
  __m512i w, w_shoup, w_shoup_hi, q, two_q;
  ShoupProduct(uint64_t w_scalar, uint64_t w_shoup_scalar, uint64_t q_scalar)
      : w(set1(w_scalar)),
        w_shoup(set1(w_shoup_scalar)),
        w_shoup_hi(set1(w_shoup_scalar >> 32)),
        q(set1(q_scalar)),
        two_q(set1(2 * q_scalar)) {}
  // a * w mod q in [0, 4q).
  __m512i lazy(__m512i a) const {
    const __m512i quotient = mulhi_approx(a, w_shoup, w_shoup_hi);
    return _mm512_sub_epi64(_mm512_mullo_epi64(a, w), _mm512_mullo_epi64(quotient, q));
  }
  // a * w mod q in [0, q).
  __m512i operator()(__m512i a) const { return reduce_once(reduce_once(lazy(a), two_q), q); }
};

}  // namespace
}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
