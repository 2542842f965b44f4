// The 52-bit modular products of the ifma element-wise kernels and long sums
// (ifma/eltwise.cpp, ifma/sums.cpp), for q < 2^50.
//
// All operands are below q < 2^50 and every lazy value stays below 2^52, the
// width the multiply-adds read. A residue r < 2^52 of w*y - Q*q is recovered
// as the low 52 bits of lo52(w*y) + lo52(Q*(2^52 - q)) (+ an addend), which
// differ from r by 0 or 2^52 before the mask.
//
// Included only by the ifma kernel files (compiled with AVX-512 IFMA flags, or
// on SIMDe emulation for the tests); everything is in an anonymous namespace
// (internal linkage, see kernel_api.hpp).
#pragma once

#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_IFMA_NAMESPACE {
namespace {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;
constexpr uint64_t kModulusBound = uint64_t{1} << 50;

// Barrett for x = a b with a, b < q, q of L <= 50 bits and not a power of two
// (so 2^(L-1) < q < 2^L):
//   x1 = floor(x / 2^(L-1)) = madd52hi(a 2^(52-L), 2b)  (both operands < 2^52)
//   mu = floor(2^(51+L) / q) < 2^52
//   Q  = madd52hi(x1, mu) = floor(x1 mu / 2^52)
// x1 mu / 2^52 > x/q - x/2^(51+L) - 2^(L-1)/q > x/q - 3/2, so Q is at most 2
// short of floor(x / q) and x - Q q is in [0, 3q).
struct Barrett52 {
  __m512i q, two_q, neg_q, mask52, zero, mu, a_shift;

  explicit Barrett52(const ModulusData& m) {
    const int bits = 64 - __builtin_clzll(m.value);
    // floor(2^(51+L) / q) = floor(2^128 / q) >> (77 - L).
    const unsigned __int128 barrett =
        (static_cast<unsigned __int128>(m.barrett_hi) << 64) | m.barrett_lo;
    q = set1(m.value);
    two_q = set1(2 * m.value);
    neg_q = set1((uint64_t{1} << 52) - m.value);
    mask52 = set1(kMask52);
    zero = _mm512_setzero_si512();
    mu = set1(static_cast<uint64_t>(barrett >> (77 - bits)));
    a_shift = set1(static_cast<uint64_t>(52 - bits));
  }

  // a * b + c - Q q with Q from a * b alone: in [0, 3q + c) < 2^52.
  __m512i lazy(__m512i a, __m512i b, __m512i c) const {
    const __m512i x1 =
        _mm512_madd52hi_epu64(zero, _mm512_sllv_epi64(a, a_shift), _mm512_add_epi64(b, b));
    const __m512i quotient = _mm512_madd52hi_epu64(zero, x1, mu);
    const __m512i product = _mm512_madd52lo_epu64(c, a, b);
    return _mm512_and_si512(_mm512_madd52lo_epu64(product, quotient, neg_q), mask52);
  }
};

inline bool barrett52_fits(uint64_t q) {
  return q < kModulusBound && (q & (q - 1)) != 0;
}

// Shoup with the 52-bit constant w' = floor(w 2^52 / q) = floor(w_shoup / 2^12):
// Q = madd52hi(a, w') is at most 1 short of floor(a w / q) (a < 2^52), so
// a w - Q q (+ c) is in [0, 2q) (+ c).
struct ShoupProduct {
  __m512i w, w_shoup52, q, two_q, neg_q, mask52, zero;
  ShoupProduct(uint64_t w_scalar, uint64_t w_shoup_scalar, uint64_t q_scalar)
      : w(set1(w_scalar)),
        w_shoup52(set1(w_shoup_scalar >> 12)),
        q(set1(q_scalar)),
        two_q(set1(2 * q_scalar)),
        neg_q(set1((uint64_t{1} << 52) - q_scalar)),
        mask52(set1(kMask52)),
        zero(_mm512_setzero_si512()) {}
  __m512i lazy(__m512i a, __m512i addend) const {
    const __m512i quotient = _mm512_madd52hi_epu64(zero, a, w_shoup52);
    const __m512i product = _mm512_madd52lo_epu64(addend, a, w);
    return _mm512_and_si512(_mm512_madd52lo_epu64(product, quotient, neg_q), mask52);
  }
};

}  // namespace
}  // namespace heft::math::kernels::HEFT_IFMA_NAMESPACE
