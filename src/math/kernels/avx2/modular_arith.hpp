// The modular arithmetic of the avx2 element-wise kernels and long sums
// (avx2/eltwise.cpp, avx2/sums.cpp), four 64-bit lanes per __m256i.
//
// Two ways to multiply:
//  * Integer (any q < 2^61). AVX2 has only 32 x 32-bit multiplies, so 64-bit
//    products are assembled from _mm256_mul_epu32 partial products; a product
//    by a fixed w uses Shoup's quotient hi64(a * floor(w 2^64 / q)), and a * b
//    uses Barrett with mu = floor(2^(2L) / q) for the bit length L of q.
//  * Double precision (q < 2^50), for mul_mod, fma_mod and the products by a
//    fixed w, several times cheaper: a, b < 2^50 are exact as doubles, and
//    h = fl(a*b), l = a*b - h (one FMA, exact) split the product. A quotient
//    estimate Q = round(h / q) within 1 of a*b / q makes r = (h - Q*q) + l an
//    integer in (-q, q); both steps are exact because every value involved is
//    an integer below 2^53. One conditional add of q finishes. Conversions
//    between uint64 and double use the 2^52 exponent trick. The error bounds
//    assume the default round-to-nearest mode, which is checked per call.
//
// Conditional subtractions use the sign bit: for x, bound < 2^63, x >= bound
// exactly when x - bound has its top bit clear.
//
// Included only by the avx2 kernel files (compiled with AVX2 flags). Every
// definition sits in an anonymous namespace, so each kernel file gets its own
// internal copy and no AVX2 code can be picked by the linker for baseline
// callers (see kernel_api.hpp).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "math/kernels/avx2/avx2_common.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::avx2 {
namespace {

// The double-precision path needs q < 2^50 and the default round-to-nearest
// mode (its error bounds assume it); otherwise the integer path runs.
inline bool use_double(uint64_t q) {
  return q < kDoubleModulusBound && rounds_to_nearest();
}

// ---- Integer path -----------------------------------------------------------

// A fixed multiplier w with w' = floor(w 2^64 / q), split for 32-bit multiplies.
struct ShoupOperand {
  __m256i w, w_swap, ws, ws_hi;
};

HEFT_AVX2_INLINE ShoupOperand make_shoup(uint64_t w, uint64_t w_shoup) {
  const __m256i wv = set1(w), wsv = set1(w_shoup);
  return ShoupOperand{wv, _mm256_shuffle_epi32(wv, 0xB1), wsv, _mm256_srli_epi64(wsv, 32)};
}

struct IntModulus {
  __m256i q, q_swap, hi_mask;
};

HEFT_AVX2_INLINE IntModulus make_int_modulus(uint64_t q) {
  const __m256i qv = set1(q);
  return IntModulus{qv, _mm256_shuffle_epi32(qv, 0xB1), set1(0xffffffff00000000ULL)};
}

// Low 64 bits of a * b (any 64-bit a; b_swap is b with its halves swapped).
HEFT_AVX2_INLINE __m256i mul_low(__m256i a, __m256i b, __m256i b_swap, __m256i hi_mask) {
  const __m256i cross = _mm256_mullo_epi32(a, b_swap);  // lo32(al*bh), lo32(ah*bl)
  return _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32)),
                          _mm256_and_si256(cross, hi_mask));
}

// w*y mod q in [0, 2q) for any 64-bit y (Shoup). The quotient hi64(y w') is
// exact: t1 = yl*sh + (yl*sl >> 32) and t2 = yh*sl + lo32(t1) stay below
// 2^64. The remainder is below 2q < 2^62, so its low 64 bits suffice.
HEFT_AVX2_INLINE __m256i mul_shoup_lazy(__m256i y, const ShoupOperand& w, const IntModulus& m) {
  const __m256i y_hi = _mm256_srli_epi64(y, 32);
  const __m256i ll = _mm256_mul_epu32(y, w.ws);
  const __m256i lh = _mm256_mul_epu32(y, w.ws_hi);
  const __m256i hl = _mm256_mul_epu32(y_hi, w.ws);
  const __m256i hh = _mm256_mul_epu32(y_hi, w.ws_hi);
  const __m256i t1 = _mm256_add_epi64(lh, _mm256_srli_epi64(ll, 32));
  const __m256i t2 = _mm256_add_epi64(hl, _mm256_blend_epi32(t1, _mm256_setzero_si256(), 0xAA));
  const __m256i quotient =
      _mm256_add_epi64(hh, _mm256_add_epi64(_mm256_srli_epi64(t1, 32), _mm256_srli_epi64(t2, 32)));
  const __m256i low = _mm256_sub_epi64(_mm256_mul_epu32(y, w.w), _mm256_mul_epu32(quotient, m.q));
  const __m256i cross =
      _mm256_sub_epi32(_mm256_mullo_epi32(y, w.w_swap), _mm256_mullo_epi32(quotient, m.q_swap));
  return _mm256_add_epi64(_mm256_add_epi64(low, _mm256_slli_epi64(cross, 32)),
                          _mm256_and_si256(cross, m.hi_mask));
}

// Full 128-bit product of a, b < 2^62: the middle sum of the 32-bit partial
// products then stays below 2^63 + 2^32 and cannot overflow.
HEFT_AVX2_INLINE void mul_wide(__m256i a, __m256i b, __m256i& hi, __m256i& lo) {
  const __m256i a_hi = _mm256_srli_epi64(a, 32);
  const __m256i b_hi = _mm256_srli_epi64(b, 32);
  const __m256i ll = _mm256_mul_epu32(a, b);
  const __m256i lh = _mm256_mul_epu32(a, b_hi);
  const __m256i hl = _mm256_mul_epu32(a_hi, b);
  const __m256i hh = _mm256_mul_epu32(a_hi, b_hi);
  const __m256i middle = _mm256_add_epi64(_mm256_add_epi64(lh, hl), _mm256_srli_epi64(ll, 32));
  lo = _mm256_blend_epi32(ll, _mm256_slli_epi64(middle, 32), 0xAA);
  hi = _mm256_add_epi64(hh, _mm256_srli_epi64(middle, 32));
}

// Barrett reduction of x = (hi, lo) < 2^(2L) for q of bit length L <= 61 and
// mu = floor(2^(2L) / q) < 2^(L+1): the quotient estimate
// floor(floor(x / 2^(L-1)) * mu / 2^(L+1)) is short by at most 2, so
// x - estimate*q lies in [0, 3q) and two conditional subtractions finish.
struct BarrettModulus {
  IntModulus m;
  __m256i mu;
  __m128i shift_x_hi, shift_x_lo;  // 65 - L, L - 1
  __m128i shift_p_hi, shift_p_lo;  // 63 - L, L + 1
};

HEFT_AVX2_INLINE BarrettModulus make_barrett(const ModulusData& q) {
  const int bits = 64 - __builtin_clzll(q.value);  // L
  // mu = floor(2^128 / q) >> (128 - 2L), exactly floor(2^(2L) / q).
  const int shift = 128 - 2 * bits;
  const uint64_t mu = shift >= 64 ? q.barrett_hi >> (shift - 64)
                                  : (q.barrett_hi << (64 - shift)) | (q.barrett_lo >> shift);
  BarrettModulus b;
  b.m = make_int_modulus(q.value);
  b.mu = set1(mu);
  b.shift_x_hi = _mm_cvtsi32_si128(65 - bits);
  b.shift_x_lo = _mm_cvtsi32_si128(bits - 1);
  b.shift_p_hi = _mm_cvtsi32_si128(63 - bits);
  b.shift_p_lo = _mm_cvtsi32_si128(bits + 1);
  return b;
}

HEFT_AVX2_INLINE __m256i barrett_reduce(__m256i x_hi, __m256i x_lo, const BarrettModulus& b) {
  const __m256i z = _mm256_or_si256(_mm256_sll_epi64(x_hi, b.shift_x_hi),
                                    _mm256_srl_epi64(x_lo, b.shift_x_lo));  // < 2^(L+1)
  __m256i p_hi, p_lo;
  mul_wide(z, b.mu, p_hi, p_lo);
  const __m256i quotient =
      _mm256_or_si256(_mm256_sll_epi64(p_hi, b.shift_p_hi), _mm256_srl_epi64(p_lo, b.shift_p_lo));
  const __m256i r =
      _mm256_sub_epi64(x_lo, mul_low(quotient, b.m.q, b.m.q_swap, b.m.hi_mask));  // [0, 3q)
  return reduce_once(reduce_once(r, b.m.q), b.m.q);
}

// ---- Double-precision path (q < 2^50) ----------------------------------------

// Bit patterns of 2^52 and 1.5 * 2^52. ORing x < 2^52 into the first gives
// the double 2^52 + x; adding the second to an integer-valued double of
// magnitude below 2^51 leaves that integer, as a two's-complement offset, in
// the low mantissa bits.
constexpr uint64_t kOneAndHalfTwo52Bits = 0x4338000000000000ULL;

struct DoubleModulus {
  __m256d q;      // q as a double
  __m256d q_inv;  // fl(1 / q)
  __m256d two52;  // 2^52
  __m256d round;  // 1.5 * 2^52
  __m256i two52_bits, round_bits, q_int;
};

HEFT_AVX2_INLINE DoubleModulus make_double_modulus(uint64_t q) {
  DoubleModulus d;
  const double qd = static_cast<double>(q);
  d.q = _mm256_set1_pd(qd);
  d.q_inv = _mm256_set1_pd(1.0 / qd);
  d.two52_bits = set1(kTwo52Bits);
  d.round_bits = set1(kOneAndHalfTwo52Bits);
  d.two52 = _mm256_castsi256_pd(d.two52_bits);
  d.round = _mm256_castsi256_pd(d.round_bits);
  d.q_int = set1(q);
  return d;
}

// Exact conversion of x < 2^52 to double.
HEFT_AVX2_INLINE __m256d to_double(__m256i x, const DoubleModulus& d) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, d.two52_bits)), d.two52);
}

HEFT_AVX2_INLINE __m256d round_nearest(__m256d x) {
  return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// The remainder r = (h - Q q) + l of a product h + l = x*y, plus 1.5 * 2^52.
// h - Q q and l are integers below 2^53 in magnitude, so the FMA is exact;
// l + 1.5 * 2^52 is computed off the critical path and is exact too.
HEFT_AVX2_INLINE __m256d remainder_rounded(__m256d h, __m256d l, __m256d quotient,
                                           const DoubleModulus& d) {
  return _mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h), _mm256_add_pd(l, d.round));
}

// u = r + 1.5 * 2^52 for an integer-valued r in (-q, q) -> r mod q as uint64:
// u's bit pattern minus that of 1.5 * 2^52 is r as a signed 64-bit integer.
HEFT_AVX2_INLINE __m256i finish(__m256d u, const DoubleModulus& d) {
  const __m256i v = _mm256_sub_epi64(_mm256_castpd_si256(u), d.round_bits);
  return select_by_sign(v, _mm256_add_epi64(v, d.q_int), v);
}

// a*b mod q for a, b in [0, q), q < 2^50. h = ab(1+e1), fl(1/q) = (1+e2)/q and
// the product rounds once more, so the estimate is within 3 * 2^-53 * ab/q < 3/8
// of ab/q (as ab/q < 2^50): Q is within 7/8 and r = ab - Q q lies in (-q, q).
HEFT_AVX2_INLINE __m256i mul_mod_double(__m256i a, __m256i b, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d), bd = to_double(b, d);
  const __m256d h = _mm256_mul_pd(ad, bd);
  const __m256d l = _mm256_fmsub_pd(ad, bd, h);  // ab - h, exactly
  const __m256d quotient = round_nearest(_mm256_mul_pd(h, d.q_inv));
  return finish(remainder_rounded(h, l, quotient, d), d);
}

// a*b + c mod q. The estimate fl(h + c) * fl(1/q), rounded once to an integer
// by the FMA that adds 1.5 * 2^52, is within 3 * 2^-53 * (ab + c)/q < 3/8 of
// (ab + c)/q < 2^50, so r = ab + c - Q q again lies in (-q, q).
HEFT_AVX2_INLINE __m256i fma_mod_double(__m256i a, __m256i b, __m256i c, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d), bd = to_double(b, d), cd = to_double(c, d);
  const __m256d h = _mm256_mul_pd(ad, bd);
  const __m256d l = _mm256_fmsub_pd(ad, bd, h);
  const __m256d quotient =
      _mm256_sub_pd(_mm256_fmadd_pd(_mm256_add_pd(h, cd), d.q_inv, d.round), d.round);
  // (l + 1.5 * 2^52) + c is exact (|l + c| < 2^51), as is the final sum.
  return finish(_mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h),
                              _mm256_add_pd(_mm256_add_pd(l, d.round), cd)),
                d);
}

// A fixed multiplier w < q with w_over_q = fl(w / q), within 2^-53 relative of
// w/q: the estimate fl(a * w_over_q) is within 2 * 2^-53 * aw/q < 1/4 of aw/q,
// so Q is within 3/4 and r = aw - Q q lies in (-q, q).
struct DoubleFixed {
  __m256d w, w_over_q;
};

HEFT_AVX2_INLINE DoubleFixed make_double_fixed(uint64_t w, uint64_t q) {
  const double wd = static_cast<double>(static_cast<int64_t>(w));
  return DoubleFixed{_mm256_set1_pd(wd),
                     _mm256_set1_pd(wd / static_cast<double>(static_cast<int64_t>(q)))};
}

HEFT_AVX2_INLINE __m256i mul_fixed_double(__m256i a, const DoubleFixed& w, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d);
  const __m256d h = _mm256_mul_pd(ad, w.w);
  const __m256d l = _mm256_fmsub_pd(ad, w.w, h);
  const __m256d quotient = round_nearest(_mm256_mul_pd(ad, w.w_over_q));
  return finish(remainder_rounded(h, l, quotient, d), d);
}

}  // namespace
}  // namespace heft::math::kernels::avx2
