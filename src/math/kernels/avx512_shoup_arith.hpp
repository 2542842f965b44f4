// The butterflies of the 64-bit-lane NTTs (avx512/ntt.cpp, and ifma/ntt.cpp
// for moduli from 2^50 up to 2^55): Harvey's lazy butterflies with Shoup twiddles,
// as scalar/ntt.cpp, as an arithmetic policy for avx512_ntt_schedule.hpp.
// What differs between the levels and moduli is only how the Shoup quotient
// of y W / q is estimated, the Quotient parameter:
//   struct Quotient {
//     struct Twiddle { __m512i w; ... };  // W per lane and its constants
//     static Twiddle make_twiddle(__m512i w, __m512i shoup);  // shoup =
//     static Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup);  // floor(W 2^64 / q)
//     // floor(y W / q) - e, e in {0, 1, 2, 3}, for y < 8q:
//     static __m512i quotient(__m512i y, const Twiddle& w);
//   };
// A quotient up to 3 short puts W*y mod q = W y - Q q in [0, 4q), exact in
// 64-bit arithmetic, so the lazy ranges are twice the scalar ones:
//  - forward: values stay in [0, 8q) (< 2^64 since q < 2^61). X is brought to
//    [0, 4q), T = W*Y in [0, 4q), so X + T and X - T + 4q are in [0, 8q).
//  - inverse: values stay in [0, 4q). X + Y is brought back to [0, 4q) and
//    W*(X - Y + 4q) is in [0, 4q).
// Outputs are fully reduced to [0, q), so they equal the scalar ones bit for bit.
//
// Included only by files compiled with AVX-512 flags; everything is in an
// anonymous namespace (internal linkage, see kernel_api.hpp).
#pragma once

#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/avx512_ntt_schedule.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {
namespace {

template <class Quotient>
struct ShoupArith {
  using Twiddle = typename Quotient::Twiddle;

  struct Constants {
    __m512i q, two_q, four_q;
  };

  static Twiddle make_twiddle(__m512i w, __m512i shoup) { return Quotient::make_twiddle(w, shoup); }
  static Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) {
    return Quotient::broadcast_twiddle(w, shoup);
  }
  static Constants make_constants(uint64_t q) { return {set1(q), set1(2 * q), set1(4 * q)}; }

  static TwiddleTable forward_table(const NttTableData& t) {
    return {t.roots, t.roots_shoup, t.last_roots, t.last_roots_shoup};
  }
  static TwiddleTable inverse_table(const NttTableData& t) {
    return {t.inv_roots, t.inv_roots_shoup, t.last_inv_roots, t.last_inv_roots_shoup};
  }
  static InverseScale<ShoupArith> inverse_scale(const NttTableData& t) {
    return {broadcast_twiddle(t.inv_degree, t.inv_degree_shoup),
            broadcast_twiddle(t.inv_degree_root, t.inv_degree_root_shoup)};
  }

  // W*y mod q in [0, 4q) for y < 8q: the difference W*y - Q*q (< 4q) is exact
  // in 64-bit arithmetic.
  static __m512i mul_shoup_lazy(__m512i y, const Twiddle& w, __m512i q) {
    const __m512i quotient = Quotient::quotient(y, w);
    return _mm512_sub_epi64(_mm512_mullo_epi64(y, w.w), _mm512_mullo_epi64(quotient, q));
  }

  // [0, 4q) -> [0, q).
  static __m512i reduce_from_4q(__m512i x, const Constants& c) {
    return reduce_once(reduce_once(x, c.two_q), c.q);
  }

  // The forward range [0, 8q) -> [0, q).
  static __m512i reduce_forward_output(__m512i x, const Constants& c) {
    return reduce_from_4q(reduce_once(x, c.four_q), c);
  }

  // Forward (Cooley-Tukey) butterfly: x, y in [0, 8q) -> x + W y, x - W y in [0, 8q).
  HEFT_BUTTERFLY void forward_butterfly(__m512i& x, __m512i& y, const Twiddle& w,
                                        const Constants& c) {
    const __m512i xr = reduce_once(x, c.four_q);  // [0, 4q)
    const __m512i t = mul_shoup_lazy(y, w, c.q);  // [0, 4q)
    x = _mm512_add_epi64(xr, t);
    y = _mm512_sub_epi64(_mm512_add_epi64(xr, c.four_q), t);
  }
  HEFT_BUTTERFLY void forward_butterfly_second(__m512i& x, __m512i& y, const Twiddle& w,
                                               const Constants& c) {
    forward_butterfly(x, y, w, c);
  }

  // Inverse (Gentleman-Sande) butterfly: x, y in [0, 4q) -> x + y, W (x - y) in [0, 4q).
  HEFT_BUTTERFLY void inverse_butterfly(__m512i& x, __m512i& y, const Twiddle& w,
                                        const Constants& c) {
    const __m512i sum = _mm512_add_epi64(x, y);                               // [0, 8q)
    const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.four_q), y);  // (0, 8q)
    x = reduce_once(sum, c.four_q);
    y = mul_shoup_lazy(diff, w, c.q);
  }

  // Last inverse stage (m = 1) with 1/N folded in: the Shoup products take the
  // unreduced sum and difference (< 8q) and the outputs are reduced to [0, q).
  HEFT_BUTTERFLY void inverse_butterfly_last(__m512i& x, __m512i& y, const Twiddle& inv_n,
                                             const Twiddle& inv_n_root, const Constants& c) {
    const __m512i sum = _mm512_add_epi64(x, y);
    const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.four_q), y);
    x = reduce_from_4q(mul_shoup_lazy(sum, inv_n, c.q), c);
    y = reduce_from_4q(mul_shoup_lazy(diff, inv_n_root, c.q), c);
  }
};

}  // namespace
}  // namespace heft::math::kernels
