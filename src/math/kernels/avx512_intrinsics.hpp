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

#else
#include <immintrin.h>
#define HEFT_AVX512_NAMESPACE avx512
#define HEFT_IFMA_NAMESPACE ifma
#endif
