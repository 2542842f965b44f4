// AVX-512 (F/DQ/VL/BW) negacyclic NTT on 8 x 64-bit lanes, for any q < 2^61:
// the Shoup quotient for the butterflies of avx512_shoup_arith.hpp, run by
// the schedule in avx512_ntt_schedule.hpp.
//
// Shoup products take an approximate high half of the 64 x 64-bit product:
// the three upper 32 x 32-bit partial products without the carry out of the
// low half, which saves a multiply and four other instructions. That high
// half can be 2 short, so the Shoup quotient is up to 3 (instead of 1) short
// and W*Y mod q lands in [0, 4q) instead of [0, 2q). For q < 2^60 (every
// value then below 8q < 2^63) the quotient takes the Shoup constant at scale
// 2^63 instead of 2^64, W' = floor(W 2^63 / q), whose high half is below
// 2^31: the two middle partial products then add without overflow and take
// one shift instead of two, and the top one, by twice that high half (still
// a 32-bit operand), needs no doubling. One instruction fewer per butterfly,
// the same error bound. The lazy ranges
// that bound gives are in avx512_shoup_arith.hpp.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/avx512_ntt_schedule.hpp"
#include "math/kernels/avx512_shoup_arith.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

// The Shoup quotient floor(y W' / 2^k) - e, e in {0, 1, 2}, of y < 8q, for a
// twiddle's Shoup constant W' = floor(W 2^k / q): k = 64 for any q < 2^61
// (mulhi_approx), or k = 63 for q < 2^60 (kShoupScale63, see above).
template <bool kShoupScale63>
struct ApproximateQuotient {
  // A twiddle W (per lane) with its Shoup constant: shoup is read by
  // _mm512_mul_epu32 for its low half, shoup_hi is its high half, pre-shifted
  // (and shoup_hi_twice twice that, for the 2^63 scale).
  struct Twiddle {
    __m512i w;
    __m512i shoup;
    __m512i shoup_hi;
    __m512i shoup_hi_twice;
  };

  // shoup: floor(W 2^64 / q), as the tables hold it; floor(W 2^63 / q) is
  // that shifted right by one.
  static Twiddle make_twiddle(__m512i w, __m512i shoup) {
    if constexpr (kShoupScale63) {
      const __m512i hi = _mm512_srli_epi64(shoup, 33);
      return {w, _mm512_srli_epi64(shoup, 1), hi, _mm512_add_epi64(hi, hi)};
    } else {
      const __m512i hi = _mm512_srli_epi64(shoup, 32);
      return {w, shoup, hi, hi};  // shoup_hi_twice unread at this scale
    }
  }
  static Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) {
    if constexpr (kShoupScale63) {
      return {set1(w), set1(shoup >> 1), set1(shoup >> 33), set1((shoup >> 33) << 1)};
    } else {
      return {set1(w), set1(shoup), set1(shoup >> 32), set1(shoup >> 32)};
    }
  }

  // At the 2^63 scale, with y = y1 2^32 + y0 and W' = b1 2^32 + b0 (y1 <
  // 2^31 as y < 2^63, b1 < 2^31): y W' / 2^63 = 2 y1 b1 + (y1 b0 + y0 b1) /
  // 2^31 + y0 b0 / 2^63, the middle sum below 2^64 and the dropped last term
  // below 2.
  static __m512i quotient(__m512i y, const Twiddle& w) {
    if constexpr (kShoupScale63) {
      const __m512i y_hi = _mm512_srli_epi64(y, 32);
      const __m512i top = _mm512_mul_epu32(y_hi, w.shoup_hi_twice);
      const __m512i middle =
          _mm512_add_epi64(_mm512_mul_epu32(y_hi, w.shoup), _mm512_mul_epu32(y, w.shoup_hi));
      return _mm512_add_epi64(top, _mm512_srli_epi64(middle, 31));
    } else {
      return mulhi_approx(y, w.shoup, w.shoup_hi);
    }
  }
};

// Runs transform(arith) with the arithmetic q takes: the 2^63 Shoup scale
// when q < 2^60 (every value then stays below 8q < 2^63), else 2^64.
template <class Transform>
void with_arithmetic_for(const NttTableData& table, const Transform& transform) {
  if (table.modulus.value < (uint64_t{1} << 60)) {
    transform(ShoupArith<ApproximateQuotient<true>>{});
  } else {
    transform(ShoupArith<ApproximateQuotient<false>>{});
  }
}

}  // namespace

void ntt_forward_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  with_arithmetic_for(table, [&](auto arith) { forward_ntt<decltype(arith)>(out, in, table); });
}

void ntt_inverse_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  with_arithmetic_for(table, [&](auto arith) { inverse_ntt<decltype(arith)>(out, in, table); });
}

void ntt_forward_shifted_from(uint64_t* out, const uint64_t* in, uint64_t shift,
                              const NttTableData& table) {
  with_arithmetic_for(table,
                      [&](auto arith) { forward_ntt<decltype(arith)>(out, in, table, shift); });
}

void ntt_forward(uint64_t* values, const NttTableData& table) {
  ntt_forward_from(values, values, table);
}

void ntt_inverse(uint64_t* values, const NttTableData& table) {
  ntt_inverse_from(values, values, table);
}

}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
