// The radix-2 stages of a complex FFT on AVX-512 (kernel_api.hpp,
// HEFT_DECLARE_COMPLEX_FFT): four complex values, as interleaved (real,
// imaginary) doubles, per 512-bit vector. The avx512 and ifma levels both run
// these.
//
// The order of the stages (blocks in L1, two stages per pass) is
// complex_fft_schedule.hpp's; this file gives it the vector operations.
// Stages with half-length h >= 4 pair whole vectors. The two shortest pair
// values inside a vector, so they run together on eight values (two vectors)
// at a time, regrouping the 128-bit lanes (one complex value each) so that x
// and y each fill a vector. Transforms of fewer than eight values go to the
// scalar kernels.
//
// Every product and sum is a separate IEEE operation in the scalar kernels'
// order (this file is built with -ffp-contract=off), so results equal them
// bit for bit; AVX-512 has no addsub, so the real parts' differences are a
// masked subtraction.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/complex_fft_schedule.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

// Lanes 0, 2, 4, 6 hold real parts.
constexpr __mmask8 kRealLanes = 0x55;

// y w for four complex values: real = yr wr - yi wi, imag = yi wr + yr wi.
inline __m512d multiply(__m512d y, __m512d w) {
  const __m512d w_real = _mm512_unpacklo_pd(w, w);           // (wr, wr)
  const __m512d w_imag = _mm512_unpackhi_pd(w, w);           // (wi, wi)
  const __m512d y_swapped = _mm512_permute_pd(y, 0x55);      // (yi, yr)
  const __m512d by_real = _mm512_mul_pd(y, w_real);          // (yr wr, yi wr)
  const __m512d by_imag = _mm512_mul_pd(y_swapped, w_imag);  // (yi wi, yr wi)
  return _mm512_mask_sub_pd(_mm512_add_pd(by_real, by_imag), kRealLanes, by_real, by_imag);
}

inline void forward_butterfly(__m512d& x, __m512d& y, __m512d w) {
  const __m512d product = multiply(y, w);
  y = _mm512_sub_pd(x, product);
  x = _mm512_add_pd(x, product);
}

inline void inverse_butterfly(__m512d& x, __m512d& y, __m512d w) {
  const __m512d difference = _mm512_sub_pd(x, y);
  x = _mm512_add_pd(x, y);
  y = multiply(difference, w);
}

// Lane selectors for _mm512_shuffle_f64x2 (a 128-bit lane is one complex
// value): result lanes 0, 1 from the first source, 2, 3 from the second.
constexpr int kLanes0101 = _MM_SHUFFLE(1, 0, 1, 0);  // (a0, a1, b0, b1)
constexpr int kLanes2323 = _MM_SHUFFLE(3, 2, 3, 2);  // (a2, a3, b2, b3)
constexpr int kLanes0202 = _MM_SHUFFLE(2, 0, 2, 0);  // (a0, a2, b0, b2)
constexpr int kLanes1313 = _MM_SHUFFLE(3, 1, 3, 1);  // (a1, a3, b1, b3)

// Complex values picked from two vectors a and b by _mm512_permutex2var_pd
// (doubles 0-7 are a's, 8-15 b's).
inline __m512i pick(int v0, int v1, int v2, int v3) {
  return _mm512_set_epi64(2 * v3 + 1, 2 * v3, 2 * v2 + 1, 2 * v2, 2 * v1 + 1, 2 * v1, 2 * v0 + 1,
                          2 * v0);
}

struct Ops {
  using V = __m512d;
  static constexpr size_t kComplexPerVector = 4;
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static void forward_butterfly(V& x, V& y, V w) {
    HEFT_AVX512_NAMESPACE::forward_butterfly(x, y, w);
  }
  static void inverse_butterfly(V& x, V& y, V w) {
    HEFT_AVX512_NAMESPACE::inverse_butterfly(x, y, w);
  }

  // Stages h = 1 and 2 on n >= 8 values, eight at a time in two vectors
  // p = (p0 .. p3), (p4 .. p7). h = 1 pairs x = (p0, p2, p4, p6) with
  // y = (p1, p3, p5, p7), all with twiddle w1; h = 2 pairs (p0, p1, p4, p5)
  // with (p2, p3, p6, p7), twiddles (w2, w3, w2, w3). From the first
  // grouping to the second is one permute per vector, the same both ways.
  static void forward_short_stages(double* values, size_t n, const double* w) {
    const V twiddle_one = _mm512_broadcast_f64x2(_mm_loadu_pd(w + 2));
    const V twiddles_two = _mm512_broadcast_f64x4(_mm256_loadu_pd(w + 4));
    const __m512i even_halves = pick(0, 4, 2, 6), odd_halves = pick(1, 5, 3, 7);
    for (size_t start = 0; start < n; start += 8) {
      double* first = values + 2 * start;
      double* second = first + 8;
      const V a = load(first), b = load(second);
      V even = _mm512_shuffle_f64x2(a, b, kLanes0202);
      V odd = _mm512_shuffle_f64x2(a, b, kLanes1313);
      HEFT_AVX512_NAMESPACE::forward_butterfly(even, odd, twiddle_one);
      V x = _mm512_permutex2var_pd(even, even_halves, odd);  // (p0, p1, p4, p5)
      V y = _mm512_permutex2var_pd(even, odd_halves, odd);   // (p2, p3, p6, p7)
      HEFT_AVX512_NAMESPACE::forward_butterfly(x, y, twiddles_two);
      store(first, _mm512_shuffle_f64x2(x, y, kLanes0101));
      store(second, _mm512_shuffle_f64x2(x, y, kLanes2323));
    }
  }

  // Stages h = 2 then 1 on n >= 8 values, grouped as above.
  static void inverse_short_stages(double* values, size_t n, const double* w) {
    const V twiddle_one = _mm512_broadcast_f64x2(_mm_loadu_pd(w + 2));
    const V twiddles_two = _mm512_broadcast_f64x4(_mm256_loadu_pd(w + 4));
    const __m512i even_values = pick(0, 4, 2, 6), odd_values = pick(1, 5, 3, 7);
    const __m512i low_interleaved = pick(0, 4, 1, 5), high_interleaved = pick(2, 6, 3, 7);
    for (size_t start = 0; start < n; start += 8) {
      double* first = values + 2 * start;
      double* second = first + 8;
      const V a = load(first), b = load(second);
      V x = _mm512_shuffle_f64x2(a, b, kLanes0101);  // (p0, p1, p4, p5)
      V y = _mm512_shuffle_f64x2(a, b, kLanes2323);  // (p2, p3, p6, p7)
      HEFT_AVX512_NAMESPACE::inverse_butterfly(x, y, twiddles_two);
      V even = _mm512_permutex2var_pd(x, even_values, y);  // (p0, p2, p4, p6)
      V odd = _mm512_permutex2var_pd(x, odd_values, y);    // (p1, p3, p5, p7)
      HEFT_AVX512_NAMESPACE::inverse_butterfly(even, odd, twiddle_one);
      store(first, _mm512_permutex2var_pd(even, low_interleaved, odd));
      store(second, _mm512_permutex2var_pd(even, high_interleaved, odd));
    }
  }
};

}  // namespace

void fft_forward_stages(double* values, size_t n, const double* w) {
  forward_stages<Ops>(values, n, w);
}

void fft_inverse_stages(double* values, size_t n, const double* w) {
  inverse_stages<Ops>(values, n, w);
}

}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
