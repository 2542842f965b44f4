// Small AVX2 helpers shared by the avx2 NTT and element-wise kernels.
//
// Included only by the avx2 kernel files (compiled with AVX2 flags). Every
// definition sits in an anonymous namespace, so each kernel file gets its own
// internal copy and no AVX2 code can be picked by the linker for baseline
// callers (see kernel_api.hpp).
#pragma once

#include <immintrin.h>

#include <cstdint>

#define HEFT_AVX2_INLINE inline __attribute__((always_inline))

namespace heft::math::kernels::avx2 {
namespace {

// The double-precision paths need q < 2^50 and the default rounding mode
// (round to nearest: MXCSR bits 13-14 clear).
constexpr uint64_t kDoubleModulusBound = uint64_t{1} << 50;
constexpr uint64_t kTwo52Bits = 0x4330000000000000ULL;  // 2^52 as a double's bits

inline bool rounds_to_nearest() {
  return (_mm_getcsr() & 0x6000) == 0;
}

HEFT_AVX2_INLINE __m256i loadu(const uint64_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

HEFT_AVX2_INLINE void storeu(uint64_t* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

HEFT_AVX2_INLINE __m256i set1(uint64_t x) {
  return _mm256_set1_epi64x(static_cast<long long>(x));
}

// Picks b where the top bit of mask is set, a elsewhere.
HEFT_AVX2_INLINE __m256i select_by_sign(__m256i a, __m256i b, __m256i mask) {
  return _mm256_castpd_si256(
      _mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b), _mm256_castsi256_pd(mask)));
}

// x >= bound ? x - bound : x, for x and bound below 2^63.
HEFT_AVX2_INLINE __m256i reduce_once(__m256i x, __m256i bound) {
  const __m256i d = _mm256_sub_epi64(x, bound);
  return select_by_sign(d, x, d);
}

}  // namespace
}  // namespace heft::math::kernels::avx2
