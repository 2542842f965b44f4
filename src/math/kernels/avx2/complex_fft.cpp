// The radix-2 stages of a complex FFT on AVX2 (kernel_api.hpp,
// HEFT_DECLARE_COMPLEX_FFT): two complex values, as interleaved (real,
// imaginary) doubles, per 256-bit vector.
//
// The order of the stages (blocks in L1, two stages per pass) is
// complex_fft_schedule.hpp's; this file gives it the vector operations.
// Stages with half-length h >= 2 pair whole vectors. The stage h = 1 pairs
// the two values of a vector, so it takes two vectors at a time and swaps
// their 128-bit halves (one complex value each) to put the x values in one
// vector and the y values in the other. Transforms of fewer than four values
// go to the scalar kernels.
//
// Every product and sum is a separate IEEE operation in the scalar kernels'
// order (this file is built with -ffp-contract=off; addsub subtracts in the
// real lanes and adds in the imaginary ones), so results equal them bit for
// bit.
#include <immintrin.h>

#include "math/kernels/complex_fft_schedule.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::avx2 {
namespace {

// y w for two complex values: real = yr wr - yi wi, imag = yi wr + yr wi.
inline __m256d multiply(__m256d y, __m256d w) {
  const __m256d w_real = _mm256_movedup_pd(w);               // (wr, wr)
  const __m256d w_imag = _mm256_permute_pd(w, 0xF);          // (wi, wi)
  const __m256d y_swapped = _mm256_permute_pd(y, 0x5);       // (yi, yr)
  const __m256d by_real = _mm256_mul_pd(y, w_real);          // (yr wr, yi wr)
  const __m256d by_imag = _mm256_mul_pd(y_swapped, w_imag);  // (yi wi, yr wi)
  return _mm256_addsub_pd(by_real, by_imag);
}

template <bool kForward>
inline void butterfly(__m256d& x, __m256d& y, __m256d w) {
  if constexpr (kForward) {
    const __m256d product = multiply(y, w);
    y = _mm256_sub_pd(x, product);
    x = _mm256_add_pd(x, product);
  } else {
    const __m256d difference = _mm256_sub_pd(x, y);
    x = _mm256_add_pd(x, y);
    y = multiply(difference, w);
  }
}

struct Ops {
  using V = __m256d;
  static constexpr size_t kComplexPerVector = 2;
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static void forward_butterfly(V& x, V& y, V w) { butterfly<true>(x, y, w); }
  static void inverse_butterfly(V& x, V& y, V w) { butterfly<false>(x, y, w); }

  // The stage h = 1 on n >= 4 values: vectors (x0, y0) and (x1, y1) become
  // x = (x0, x1) and y = (y0, y1), all with the twiddle w1.
  template <bool kForward>
  static void stage_half_one(double* values, size_t n, const double* w) {
    const V twiddle = _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(w + 2));
    for (size_t start = 0; start < n; start += 2 * kComplexPerVector) {
      double* first = values + 2 * start;
      double* second = first + 2 * kComplexPerVector;
      const V a = load(first), b = load(second);
      V x = _mm256_permute2f128_pd(a, b, 0x20);  // (a low, b low)
      V y = _mm256_permute2f128_pd(a, b, 0x31);  // (a high, b high)
      butterfly<kForward>(x, y, twiddle);
      store(first, _mm256_permute2f128_pd(x, y, 0x20));
      store(second, _mm256_permute2f128_pd(x, y, 0x31));
    }
  }
  static void forward_short_stages(double* values, size_t n, const double* w) {
    stage_half_one<true>(values, n, w);
  }
  static void inverse_short_stages(double* values, size_t n, const double* w) {
    stage_half_one<false>(values, n, w);
  }
};

}  // namespace

void fft_forward_stages(double* values, size_t n, const double* w) {
  forward_stages<Ops>(values, n, w);
}

void fft_inverse_stages(double* values, size_t n, const double* w) {
  inverse_stages<Ops>(values, n, w);
}

}  // namespace heft::math::kernels::avx2
