// Lane helpers every AVX-512 kernel file uses (the avx512 and ifma levels):
// a broadcast, unaligned loads and stores, the conditional subtraction that
// every lazy reduction is built from, and the approximate high half of a
// 64 x 64-bit product that Shoup quotients take. Defined once here so that
// the transforms and the element-wise kernels cannot drift apart.
//
// Included only by files compiled with AVX-512 flags; everything is in an
// anonymous namespace (internal linkage, see kernel_api.hpp), and the
// functions are small enough that the compiler inlines them everywhere.
#pragma once

#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"

namespace heft::math::kernels {
namespace {

inline __m512i set1(uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}
inline __m512i load(const uint64_t* p) {
  return _mm512_loadu_si512(p);
}
inline void store(uint64_t* p, __m512i v) {
  _mm512_storeu_si512(p, v);
}

// x in [0, 2 bound) -> [0, bound): if x < bound, x - bound wraps above x
// (unsigned), so the minimum picks x.
inline __m512i reduce_once(__m512i x, __m512i bound) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, bound));
}

// floor(a * b / 2^64) - e with e in {0, 1, 2}: the three upper 32 x 32-bit
// partial products, without the carry out of ((a*b)_lo32x32 >> 32) plus the
// two middle halves. b_hi is b >> 32, which callers hoist out of their loops.
inline __m512i mulhi_approx(__m512i a, __m512i b, __m512i b_hi) {
  const __m512i a_hi = _mm512_srli_epi64(a, 32);
  const __m512i hh = _mm512_mul_epu32(a_hi, b_hi);
  const __m512i hl = _mm512_mul_epu32(a_hi, b);
  const __m512i lh = _mm512_mul_epu32(a, b_hi);
  return _mm512_add_epi64(hh,
                          _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(lh, 32)));
}

}  // namespace
}  // namespace heft::math::kernels
