// Intrinsics for the avx512 and ifma kernel files, real or emulated.
//
// Normally this is <immintrin.h> and the files are compiled with AVX-512
// flags. For the test-only emulated build (HEFT_EMULATE_AVX512) the same
// sources are compiled for baseline x86-64 on top of SIMDe, which implements
// the _mm512_* intrinsics in portable code; the kernels then land in the
// namespaces avx512_emulated / ifma_emulated so both builds can be linked into
// one test binary and compared with scalar on any CPU.
#pragma once

#if defined(HEFT_EMULATE_AVX512)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include <cstdint>

// SIMDe names the mask type simde__mmask8 and does not alias it.
typedef simde__mmask8 __mmask8;

#define HEFT_AVX512_NAMESPACE avx512_emulated
#define HEFT_IFMA_NAMESPACE ifma_emulated

// SIMDe 0.7 has no AVX512-IFMA: portable versions of the two instructions.
// madd52lo/hi(a, b, c): a + low/high 52 bits of the 104-bit product of the
// low 52 bits of b and c, per 64-bit lane.
namespace heft_emulation {
static inline __m512i madd52(__m512i a, __m512i b, __m512i c, bool high) {
  alignas(64) uint64_t va[8], vb[8], vc[8];
  _mm512_store_si512(reinterpret_cast<void*>(va), a);
  _mm512_store_si512(reinterpret_cast<void*>(vb), b);
  _mm512_store_si512(reinterpret_cast<void*>(vc), c);
  const uint64_t mask52 = (uint64_t{1} << 52) - 1;
  for (int i = 0; i < 8; ++i) {
    const unsigned __int128 product =
        static_cast<unsigned __int128>(vb[i] & mask52) * (vc[i] & mask52);
    va[i] += high ? static_cast<uint64_t>(product >> 52) : static_cast<uint64_t>(product) & mask52;
  }
  return _mm512_load_si512(reinterpret_cast<const void*>(va));
}
}  // namespace heft_emulation
#define _mm512_madd52lo_epu64(a, b, c) heft_emulation::madd52((a), (b), (c), false)
#define _mm512_madd52hi_epu64(a, b, c) heft_emulation::madd52((a), (b), (c), true)

// SIMDe 0.7 also lacks the masked 64-bit loads and stores used for the tails of
// element-wise loops. Like the hardware, these touch only the selected lanes, so
// a tail never reads or writes past the end of an array.
namespace heft_emulation {
static inline __m512i maskz_loadu_epi64(__mmask8 k, const void* p) {
  const uint64_t* src = static_cast<const uint64_t*>(p);
  alignas(64) uint64_t v[8];
  for (int i = 0; i < 8; ++i)
    v[i] = ((k >> i) & 1) != 0 ? src[i] : 0;
  return _mm512_load_si512(reinterpret_cast<const void*>(v));
}
static inline void mask_storeu_epi64(void* p, __mmask8 k, __m512i a) {
  uint64_t* dst = static_cast<uint64_t*>(p);
  alignas(64) uint64_t v[8];
  _mm512_store_si512(reinterpret_cast<void*>(v), a);
  for (int i = 0; i < 8; ++i) {
    if (((k >> i) & 1) != 0) dst[i] = v[i];
  }
}
// Nor the zero-extension of eight 32-bit lanes to 64 bits.
static inline __m512i cvtepu32_epi64(__m256i a) {
  alignas(32) uint32_t narrow[8];
  alignas(64) uint64_t wide[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(narrow), a);
  for (int i = 0; i < 8; ++i)
    wide[i] = narrow[i];
  return _mm512_load_si512(reinterpret_cast<const void*>(wide));
}
}  // namespace heft_emulation
#define _mm512_cvtepu32_epi64(a) heft_emulation::cvtepu32_epi64((a))
// Nor the conversions of 64-bit integer lanes to doubles (AVX512DQ); like
// the instructions, these round as the current rounding mode does.
namespace heft_emulation {
template <class Lane>
static inline __m512d cvt_to_pd(__m512i a) {
  alignas(64) Lane in[8];
  alignas(64) double out[8];
  _mm512_store_si512(reinterpret_cast<void*>(in), a);
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<double>(in[i]);
  return _mm512_load_pd(out);
}
}  // namespace heft_emulation
#define _mm512_cvtepu64_pd(a) heft_emulation::cvt_to_pd<uint64_t>((a))
#define _mm512_cvtepi64_pd(a) heft_emulation::cvt_to_pd<int64_t>((a))
// Nor the forms with the rounding mode in the encoding: here they round as
// the current mode does (to nearest unless a test changes it).
#ifndef _MM_FROUND_TO_NEAREST_INT
#define _MM_FROUND_TO_NEAREST_INT SIMDE_MM_FROUND_TO_NEAREST_INT
#endif
#ifndef _MM_FROUND_NO_EXC
#define _MM_FROUND_NO_EXC SIMDE_MM_FROUND_NO_EXC
#endif
#define _mm512_cvt_roundepu64_pd(a, rounding) _mm512_cvtepu64_pd((a))
#define _mm512_cvt_roundepi64_pd(a, rounding) _mm512_cvtepi64_pd((a))
#define _mm512_mul_round_pd(a, b, rounding) _mm512_mul_pd((a), (b))
#define _mm512_fmadd_round_pd(a, b, c, rounding) _mm512_fmadd_pd((a), (b), (c))
// SIMDe's portable 64-bit lane add, sub and mullo compute on signed lanes, so
// the wrap-arounds the kernels rely on (defined for the instructions, which
// work modulo 2^64) are signed overflow in C++: undefined behaviour, and
// UBSan stops the HEFT_SANITIZE build on them. These versions use unsigned
// lanes (GCC/Clang vector extensions, as SIMDe itself does).
namespace heft_emulation {
typedef uint64_t U64x8 __attribute__((vector_size(64)));
static inline U64x8 to_unsigned(__m512i a) {
  U64x8 r;
  __builtin_memcpy(&r, &a, sizeof(r));
  return r;
}
static inline __m512i from_unsigned(U64x8 a) {
  __m512i r;
  __builtin_memcpy(&r, &a, sizeof(r));
  return r;
}
static inline __m512i add_epi64(__m512i a, __m512i b) {
  return from_unsigned(to_unsigned(a) + to_unsigned(b));
}
static inline __m512i sub_epi64(__m512i a, __m512i b) {
  return from_unsigned(to_unsigned(a) - to_unsigned(b));
}
static inline __m512i mullo_epi64(__m512i a, __m512i b) {
  return from_unsigned(to_unsigned(a) * to_unsigned(b));
}
}  // namespace heft_emulation
#undef _mm512_add_epi64
#undef _mm512_sub_epi64
#undef _mm512_mullo_epi64
#undef _mm512_mask_add_epi64
#undef _mm512_maskz_sub_epi64
#define _mm512_add_epi64(a, b) heft_emulation::add_epi64((a), (b))
#define _mm512_sub_epi64(a, b) heft_emulation::sub_epi64((a), (b))
#define _mm512_mullo_epi64(a, b) heft_emulation::mullo_epi64((a), (b))
#define _mm512_mask_add_epi64(src, k, a, b) \
  _mm512_mask_mov_epi64((src), (k), heft_emulation::add_epi64((a), (b)))
#define _mm512_maskz_sub_epi64(k, a, b) \
  _mm512_maskz_mov_epi64((k), heft_emulation::sub_epi64((a), (b)))

// Nor the in-lane permute of doubles (vpermilpd with an immediate): bit i
// of imm picks the upper (1) or lower (0) double of lane i's 128-bit pair.
namespace heft_emulation {
static inline __m512d permute_pd(__m512d a, int imm) {
  alignas(64) double in[8], out[8];
  _mm512_store_pd(in, a);
  for (int i = 0; i < 8; ++i)
    out[i] = in[(i & ~1) | ((imm >> i) & 1)];
  return _mm512_load_pd(out);
}
}  // namespace heft_emulation
#define _mm512_permute_pd(a, imm) heft_emulation::permute_pd((a), (imm))
// Nor the 512-bit shuffle of 128-bit lanes: result lanes 0 and 1 are lanes
// imm[1:0] and imm[3:2] of a, lanes 2 and 3 are imm[5:4] and imm[7:6] of b.
namespace heft_emulation {
static inline __m512d shuffle_f64x2(__m512d a, __m512d b, int imm) {
  alignas(64) double in_a[8], in_b[8], out[8];
  _mm512_store_pd(in_a, a);
  _mm512_store_pd(in_b, b);
  for (int lane = 0; lane < 4; ++lane) {
    const double* source = lane < 2 ? in_a : in_b;
    const int pick = (imm >> (2 * lane)) & 3;
    out[2 * lane] = source[2 * pick];
    out[2 * lane + 1] = source[2 * pick + 1];
  }
  return _mm512_load_pd(out);
}
}  // namespace heft_emulation
#define _mm512_shuffle_f64x2(a, b, imm) heft_emulation::shuffle_f64x2((a), (b), (imm))

#define _mm512_maskz_loadu_epi64(k, p) heft_emulation::maskz_loadu_epi64((k), (p))
#define _mm512_mask_storeu_epi64(p, k, a) heft_emulation::mask_storeu_epi64((p), (k), (a))

#else
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*() (a
// self-initialised variable), which -Wmaybe-uninitialized, and depending on
// inlining -Wuninitialized, report once they are inlined (GCC bug 105593);
// the diagnostic is located in the header.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
#define HEFT_AVX512_NAMESPACE avx512
#define HEFT_IFMA_NAMESPACE ifma
#endif
