// The order in which the vector levels run a complex FFT's stages
// (kernel_api.hpp, HEFT_DECLARE_COMPLEX_FFT), shared by avx2/complex_fft.cpp
// and avx512/complex_fft.cpp. Each passes an Ops class: its vector type V
// with load / store / forward_butterfly / inverse_butterfly, the number of
// complex values per vector (kComplexPerVector), and the short stages
// (half-lengths below kComplexPerVector, which pair values inside a vector)
// as forward_short_stages / inverse_short_stages on whole arrays of at least
// two vectors' worth.
//
// A stage is a pass over all n values, and at the sizes CKKS uses (4096 to
// 32768 values, 64 to 512 KB) one pass from L2 costs more than its
// arithmetic. So:
//   * the stages whose blocks fit in kL1Values values run block by block
//     (all of them on one block while it is in L1, then the next block);
//   * the other stages run two at a time (stages h and 2h in one pass over
//     groups of 4h values, i.e. radix 4), halving the passes over L2.
// Every butterfly is still the radix-2 one with the same twiddle, so the
// results equal the stage-by-stage scalar kernels bit for bit.
//
// Included only by kernel files; everything is in an anonymous namespace.
#pragma once

#include <cstddef>

#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {
namespace {

// Values (16 bytes each) of a block whose stages run together: 16 KB, a third
// of the smallest L1 data cache heft runs on, so that the twiddles fit too.
constexpr size_t kL1Values = 1024;

template <class Ops, bool kForward>
inline void butterfly(typename Ops::V& x, typename Ops::V& y, typename Ops::V w) {
  if constexpr (kForward) {
    Ops::forward_butterfly(x, y, w);
  } else {
    Ops::inverse_butterfly(x, y, w);
  }
}

// The stage of half-length half (a multiple of the vector width).
template <class Ops, bool kForward>
void radix2_pass(double* values, size_t n, size_t half, const double* w) {
  for (size_t start = 0; start < n; start += 2 * half) {
    double* x = values + 2 * start;
    double* y = x + 2 * half;
    for (size_t j = 0; j < half; j += Ops::kComplexPerVector) {
      typename Ops::V xv = Ops::load(x + 2 * j), yv = Ops::load(y + 2 * j);
      butterfly<Ops, kForward>(xv, yv, Ops::load(w + 2 * (half + j)));
      Ops::store(x + 2 * j, xv);
      Ops::store(y + 2 * j, yv);
    }
  }
}

// The stages half and 2 half in one pass: in each group of 4 half values,
// quarters a, b, c, d; stage half pairs (a, b) and (c, d) with twiddle
// w[half + j], stage 2 half pairs (a, c) with w[2 half + j] and (b, d) with
// w[3 half + j]. Forward runs the shorter stage first, inverse the longer.
template <class Ops, bool kForward>
void radix4_pass(double* values, size_t n, size_t half, const double* w) {
  using V = typename Ops::V;
  for (size_t start = 0; start < n; start += 4 * half) {
    double* a = values + 2 * start;
    double* b = a + 2 * half;
    double* c = b + 2 * half;
    double* d = c + 2 * half;
    for (size_t j = 0; j < half; j += Ops::kComplexPerVector) {
      V av = Ops::load(a + 2 * j), bv = Ops::load(b + 2 * j);
      V cv = Ops::load(c + 2 * j), dv = Ops::load(d + 2 * j);
      const V short_twiddle = Ops::load(w + 2 * (half + j));
      const V long_twiddle_a = Ops::load(w + 2 * (2 * half + j));
      const V long_twiddle_b = Ops::load(w + 2 * (3 * half + j));
      if constexpr (kForward) {
        Ops::forward_butterfly(av, bv, short_twiddle);
        Ops::forward_butterfly(cv, dv, short_twiddle);
        Ops::forward_butterfly(av, cv, long_twiddle_a);
        Ops::forward_butterfly(bv, dv, long_twiddle_b);
      } else {
        Ops::inverse_butterfly(av, cv, long_twiddle_a);
        Ops::inverse_butterfly(bv, dv, long_twiddle_b);
        Ops::inverse_butterfly(av, bv, short_twiddle);
        Ops::inverse_butterfly(cv, dv, short_twiddle);
      }
      Ops::store(a + 2 * j, av);
      Ops::store(b + 2 * j, bv);
      Ops::store(c + 2 * j, cv);
      Ops::store(d + 2 * j, dv);
    }
  }
}

// Forward stages with half-lengths in [from, to) on n values (to <= n, both
// powers of two; from is 1 or at least a vector's worth, to at least two
// vectors' worth), shortest first.
template <class Ops>
void forward_stage_range(double* values, size_t n, size_t from, size_t to, const double* w) {
  size_t half = from;
  if (half < Ops::kComplexPerVector) {
    Ops::forward_short_stages(values, n, w);
    half = Ops::kComplexPerVector;
  }
  for (; 2 * half < to; half *= 4)
    radix4_pass<Ops, true>(values, n, half, w);
  if (half < to) radix2_pass<Ops, true>(values, n, half, w);
}

// Inverse stages with half-lengths from top down to bottom (both powers of
// two; bottom is 1 or at least a vector's worth), longest first.
template <class Ops>
void inverse_stage_range(double* values, size_t n, size_t top, size_t bottom, const double* w) {
  const size_t vector_bottom = bottom > Ops::kComplexPerVector ? bottom : Ops::kComplexPerVector;
  size_t half = top;
  for (; half >= 2 * vector_bottom; half /= 4)
    radix4_pass<Ops, false>(values, n, half / 2, w);
  if (half >= vector_bottom) radix2_pass<Ops, false>(values, n, half, w);
  if (bottom < Ops::kComplexPerVector) Ops::inverse_short_stages(values, n, w);
}

// The kernels' entry points; transforms shorter than two vectors go to the
// scalar kernels.
template <class Ops>
void forward_stages(double* values, size_t n, const double* w) {
  if (n < 2 * Ops::kComplexPerVector) {
    scalar::fft_forward_stages(values, n, w);
    return;
  }
  const size_t block = n < kL1Values ? n : kL1Values;
  for (size_t start = 0; start < n; start += block)
    forward_stage_range<Ops>(values + 2 * start, block, 1, block, w);
  if (block < n) forward_stage_range<Ops>(values, n, block, n, w);
}

template <class Ops>
void inverse_stages(double* values, size_t n, const double* w) {
  if (n < 2 * Ops::kComplexPerVector) {
    scalar::fft_inverse_stages(values, n, w);
    return;
  }
  const size_t block = n < kL1Values ? n : kL1Values;
  if (block < n) inverse_stage_range<Ops>(values, n, n / 2, block, w);
  for (size_t start = 0; start < n; start += block)
    inverse_stage_range<Ops>(values + 2 * start, block, block / 2, 1, w);
}

}  // namespace
}  // namespace heft::math::kernels
