// AVX2 element-wise modular arithmetic, four 64-bit lanes per __m256i, for
// every modulus q < 2^61. Results are fully reduced to [0, q), hence equal to
// the scalar reference bit for bit. The few elements before the output's
// first 32-byte boundary and the tail after the last whole vector go to scalar.
//
// Two ways to multiply:
//  * Integer (any q < 2^61). AVX2 has only 32 x 32-bit multiplies, so 64-bit
//    products are assembled from _mm256_mul_epu32 partial products; a product
//    by a fixed w uses Shoup's quotient hi64(a * floor(w 2^64 / q)), and a * b
//    uses Barrett with mu = floor(2^(2L) / q) for the bit length L of q.
//  * Double precision (q < 2^50), for mul_mod, fma_mod and the products by a
//    fixed w, several times cheaper: a, b < 2^50 are exact as doubles, and
//    h = fl(a*b), l = a*b - h (one FMA, exact) split the product. A quotient
//    estimate Q = round(h / q) within 1 of a*b / q makes r = (h - Q*q) + l an
//    integer in (-q, q); both steps are exact because every value involved is
//    an integer below 2^53. One conditional add of q finishes. Conversions
//    between uint64 and double use the 2^52 exponent trick. The error bounds
//    assume the default round-to-nearest mode, which is checked per call.
//
// The two sums (dot_product_pair, weighted_sum_mod) add many products before
// reducing. Below 2^50 they use the double path; for operands up to 60 bits
// they split each operand in two halves and keep three plain 64-bit sums of
// the partial products (split_sums.hpp), four multiplies a product;
// 61-bit operands keep 128-bit sums or reduce per product.
//
// Conditional subtractions use the sign bit: for x, bound < 2^63, x >= bound
// exactly when x - bound has its top bit clear.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "math/kernels/avx2/avx2_common.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/split_sums.hpp"

namespace heft::math::kernels::avx2 {
namespace {

// The double-precision path needs q < 2^50 and the default round-to-nearest
// mode (its error bounds assume it); otherwise the integer path runs.
bool use_double(uint64_t q) {
  return q < kDoubleModulusBound && rounds_to_nearest();
}

// ---- Integer path -----------------------------------------------------------

// A fixed multiplier w with w' = floor(w 2^64 / q), split for 32-bit multiplies.
struct ShoupOperand {
  __m256i w, w_swap, ws, ws_hi;
};

HEFT_AVX2_INLINE ShoupOperand make_shoup(uint64_t w, uint64_t w_shoup) {
  const __m256i wv = set1(w), wsv = set1(w_shoup);
  return ShoupOperand{wv, _mm256_shuffle_epi32(wv, 0xB1), wsv, _mm256_srli_epi64(wsv, 32)};
}

struct IntModulus {
  __m256i q, q_swap, hi_mask;
};

HEFT_AVX2_INLINE IntModulus make_int_modulus(uint64_t q) {
  const __m256i qv = set1(q);
  return IntModulus{qv, _mm256_shuffle_epi32(qv, 0xB1), set1(0xffffffff00000000ULL)};
}

// Low 64 bits of a * b (any 64-bit a; b_swap is b with its halves swapped).
HEFT_AVX2_INLINE __m256i mul_low(__m256i a, __m256i b, __m256i b_swap, __m256i hi_mask) {
  const __m256i cross = _mm256_mullo_epi32(a, b_swap);  // lo32(al*bh), lo32(ah*bl)
  return _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32)),
                          _mm256_and_si256(cross, hi_mask));
}

// w*y mod q in [0, 2q) for any 64-bit y (Shoup). The quotient hi64(y w') is
// exact: t1 = yl*sh + (yl*sl >> 32) and t2 = yh*sl + lo32(t1) stay below
// 2^64. The remainder is below 2q < 2^62, so its low 64 bits suffice.
HEFT_AVX2_INLINE __m256i mul_shoup_lazy(__m256i y, const ShoupOperand& w, const IntModulus& m) {
  const __m256i y_hi = _mm256_srli_epi64(y, 32);
  const __m256i ll = _mm256_mul_epu32(y, w.ws);
  const __m256i lh = _mm256_mul_epu32(y, w.ws_hi);
  const __m256i hl = _mm256_mul_epu32(y_hi, w.ws);
  const __m256i hh = _mm256_mul_epu32(y_hi, w.ws_hi);
  const __m256i t1 = _mm256_add_epi64(lh, _mm256_srli_epi64(ll, 32));
  const __m256i t2 = _mm256_add_epi64(hl, _mm256_blend_epi32(t1, _mm256_setzero_si256(), 0xAA));
  const __m256i quotient =
      _mm256_add_epi64(hh, _mm256_add_epi64(_mm256_srli_epi64(t1, 32), _mm256_srli_epi64(t2, 32)));
  const __m256i low = _mm256_sub_epi64(_mm256_mul_epu32(y, w.w), _mm256_mul_epu32(quotient, m.q));
  const __m256i cross =
      _mm256_sub_epi32(_mm256_mullo_epi32(y, w.w_swap), _mm256_mullo_epi32(quotient, m.q_swap));
  return _mm256_add_epi64(_mm256_add_epi64(low, _mm256_slli_epi64(cross, 32)),
                          _mm256_and_si256(cross, m.hi_mask));
}

// Full 128-bit product of a, b < 2^62: the middle sum of the 32-bit partial
// products then stays below 2^63 + 2^32 and cannot overflow.
HEFT_AVX2_INLINE void mul_wide(__m256i a, __m256i b, __m256i& hi, __m256i& lo) {
  const __m256i a_hi = _mm256_srli_epi64(a, 32);
  const __m256i b_hi = _mm256_srli_epi64(b, 32);
  const __m256i ll = _mm256_mul_epu32(a, b);
  const __m256i lh = _mm256_mul_epu32(a, b_hi);
  const __m256i hl = _mm256_mul_epu32(a_hi, b);
  const __m256i hh = _mm256_mul_epu32(a_hi, b_hi);
  const __m256i middle = _mm256_add_epi64(_mm256_add_epi64(lh, hl), _mm256_srli_epi64(ll, 32));
  lo = _mm256_blend_epi32(ll, _mm256_slli_epi64(middle, 32), 0xAA);
  hi = _mm256_add_epi64(hh, _mm256_srli_epi64(middle, 32));
}

// Barrett reduction of x = (hi, lo) < 2^(2L) for q of bit length L <= 61 and
// mu = floor(2^(2L) / q) < 2^(L+1): the quotient estimate
// floor(floor(x / 2^(L-1)) * mu / 2^(L+1)) is short by at most 2, so
// x - estimate*q lies in [0, 3q) and two conditional subtractions finish.
struct BarrettModulus {
  IntModulus m;
  __m256i mu;
  __m128i shift_x_hi, shift_x_lo;  // 65 - L, L - 1
  __m128i shift_p_hi, shift_p_lo;  // 63 - L, L + 1
};

HEFT_AVX2_INLINE BarrettModulus make_barrett(const ModulusData& q) {
  const int bits = 64 - __builtin_clzll(q.value);  // L
  // mu = floor(2^128 / q) >> (128 - 2L), exactly floor(2^(2L) / q).
  const int shift = 128 - 2 * bits;
  const uint64_t mu = shift >= 64 ? q.barrett_hi >> (shift - 64)
                                  : (q.barrett_hi << (64 - shift)) | (q.barrett_lo >> shift);
  BarrettModulus b;
  b.m = make_int_modulus(q.value);
  b.mu = set1(mu);
  b.shift_x_hi = _mm_cvtsi32_si128(65 - bits);
  b.shift_x_lo = _mm_cvtsi32_si128(bits - 1);
  b.shift_p_hi = _mm_cvtsi32_si128(63 - bits);
  b.shift_p_lo = _mm_cvtsi32_si128(bits + 1);
  return b;
}

HEFT_AVX2_INLINE __m256i barrett_reduce(__m256i x_hi, __m256i x_lo, const BarrettModulus& b) {
  const __m256i z = _mm256_or_si256(_mm256_sll_epi64(x_hi, b.shift_x_hi),
                                    _mm256_srl_epi64(x_lo, b.shift_x_lo));  // < 2^(L+1)
  __m256i p_hi, p_lo;
  mul_wide(z, b.mu, p_hi, p_lo);
  const __m256i quotient =
      _mm256_or_si256(_mm256_sll_epi64(p_hi, b.shift_p_hi), _mm256_srl_epi64(p_lo, b.shift_p_lo));
  const __m256i r =
      _mm256_sub_epi64(x_lo, mul_low(quotient, b.m.q, b.m.q_swap, b.m.hi_mask));  // [0, 3q)
  return reduce_once(reduce_once(r, b.m.q), b.m.q);
}

// ---- Double-precision path (q < 2^50) ----------------------------------------

// Bit patterns of 2^52 and 1.5 * 2^52. ORing x < 2^52 into the first gives
// the double 2^52 + x; adding the second to an integer-valued double of
// magnitude below 2^51 leaves that integer, as a two's-complement offset, in
// the low mantissa bits.
constexpr uint64_t kOneAndHalfTwo52Bits = 0x4338000000000000ULL;

struct DoubleModulus {
  __m256d q;      // q as a double
  __m256d q_inv;  // fl(1 / q)
  __m256d two52;  // 2^52
  __m256d round;  // 1.5 * 2^52
  __m256i two52_bits, round_bits, q_int;
};

HEFT_AVX2_INLINE DoubleModulus make_double_modulus(uint64_t q) {
  DoubleModulus d;
  const double qd = static_cast<double>(q);
  d.q = _mm256_set1_pd(qd);
  d.q_inv = _mm256_set1_pd(1.0 / qd);
  d.two52_bits = set1(kTwo52Bits);
  d.round_bits = set1(kOneAndHalfTwo52Bits);
  d.two52 = _mm256_castsi256_pd(d.two52_bits);
  d.round = _mm256_castsi256_pd(d.round_bits);
  d.q_int = set1(q);
  return d;
}

// Exact conversion of x < 2^52 to double.
HEFT_AVX2_INLINE __m256d to_double(__m256i x, const DoubleModulus& d) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, d.two52_bits)), d.two52);
}

HEFT_AVX2_INLINE __m256d round_nearest(__m256d x) {
  return _mm256_round_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// The remainder r = (h - Q q) + l of a product h + l = x*y, plus 1.5 * 2^52.
// h - Q q and l are integers below 2^53 in magnitude, so the FMA is exact;
// l + 1.5 * 2^52 is computed off the critical path and is exact too.
HEFT_AVX2_INLINE __m256d remainder_rounded(__m256d h, __m256d l, __m256d quotient,
                                           const DoubleModulus& d) {
  return _mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h), _mm256_add_pd(l, d.round));
}

// u = r + 1.5 * 2^52 for an integer-valued r in (-q, q) -> r mod q as uint64:
// u's bit pattern minus that of 1.5 * 2^52 is r as a signed 64-bit integer.
HEFT_AVX2_INLINE __m256i finish(__m256d u, const DoubleModulus& d) {
  const __m256i v = _mm256_sub_epi64(_mm256_castpd_si256(u), d.round_bits);
  return select_by_sign(v, _mm256_add_epi64(v, d.q_int), v);
}

// a*b mod q for a, b in [0, q), q < 2^50. h = ab(1+e1), fl(1/q) = (1+e2)/q and
// the product rounds once more, so the estimate is within 3 * 2^-53 * ab/q < 3/8
// of ab/q (as ab/q < 2^50): Q is within 7/8 and r = ab - Q q lies in (-q, q).
HEFT_AVX2_INLINE __m256i mul_mod_double(__m256i a, __m256i b, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d), bd = to_double(b, d);
  const __m256d h = _mm256_mul_pd(ad, bd);
  const __m256d l = _mm256_fmsub_pd(ad, bd, h);  // ab - h, exactly
  const __m256d quotient = round_nearest(_mm256_mul_pd(h, d.q_inv));
  return finish(remainder_rounded(h, l, quotient, d), d);
}

// a*b + c mod q. The estimate fl(h + c) * fl(1/q), rounded once to an integer
// by the FMA that adds 1.5 * 2^52, is within 3 * 2^-53 * (ab + c)/q < 3/8 of
// (ab + c)/q < 2^50, so r = ab + c - Q q again lies in (-q, q).
HEFT_AVX2_INLINE __m256i fma_mod_double(__m256i a, __m256i b, __m256i c, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d), bd = to_double(b, d), cd = to_double(c, d);
  const __m256d h = _mm256_mul_pd(ad, bd);
  const __m256d l = _mm256_fmsub_pd(ad, bd, h);
  const __m256d quotient =
      _mm256_sub_pd(_mm256_fmadd_pd(_mm256_add_pd(h, cd), d.q_inv, d.round), d.round);
  // (l + 1.5 * 2^52) + c is exact (|l + c| < 2^51), as is the final sum.
  return finish(_mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h),
                              _mm256_add_pd(_mm256_add_pd(l, d.round), cd)),
                d);
}

// A fixed multiplier w < q with w_over_q = fl(w / q), within 2^-53 relative of
// w/q: the estimate fl(a * w_over_q) is within 2 * 2^-53 * aw/q < 1/4 of aw/q,
// so Q is within 3/4 and r = aw - Q q lies in (-q, q).
struct DoubleFixed {
  __m256d w, w_over_q;
};

HEFT_AVX2_INLINE DoubleFixed make_double_fixed(uint64_t w, uint64_t q) {
  const double wd = static_cast<double>(static_cast<int64_t>(w));
  return DoubleFixed{_mm256_set1_pd(wd),
                     _mm256_set1_pd(wd / static_cast<double>(static_cast<int64_t>(q)))};
}

HEFT_AVX2_INLINE __m256i mul_fixed_double(__m256i a, const DoubleFixed& w, const DoubleModulus& d) {
  const __m256d ad = to_double(a, d);
  const __m256d h = _mm256_mul_pd(ad, w.w);
  const __m256d l = _mm256_fmsub_pd(ad, w.w, h);
  const __m256d quotient = round_nearest(_mm256_mul_pd(ad, w.w_over_q));
  return finish(remainder_rounded(h, l, quotient, d), d);
}

// Stores compute(i) for the 4-element chunks of [0, n) and hands the rest to
// scalar(i, count): a head that brings out to a 32-byte boundary (so that
// stores, and loads from arrays with the same alignment, do not straddle
// cache lines; std::vector memory is only 16-byte aligned), and the tail.
// kUnroll chunks are computed before they are stored, which is valid because
// out may alias an input only exactly.
template <int kUnroll, typename Compute, typename Scalar>
HEFT_AVX2_INLINE void for_each_chunk(uint64_t* out, size_t n, Compute compute, Scalar scalar) {
  size_t head = (4 - reinterpret_cast<uintptr_t>(out) / sizeof(uint64_t) % 4) % 4;
  if (head > n) head = n;
  scalar(0, head);
  size_t i = head;
  for (; i + 4 * kUnroll <= n; i += 4 * kUnroll) {
    __m256i r[kUnroll];
    for (int k = 0; k < kUnroll; ++k)
      r[k] = compute(i + 4 * k);
    for (int k = 0; k < kUnroll; ++k)
      storeu(out + i + 4 * k, r[k]);
  }
  for (; i + 4 <= n; i += 4)
    storeu(out + i, compute(i));
  scalar(i, n - i);
}

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) { return reduce_once(_mm256_add_epi64(loadu(a + i), loadu(b + i)), qv); },
      [&](size_t i, size_t count) { scalar::add_mod(out + i, a + i, b + i, count, q); });
}

void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i d = _mm256_sub_epi64(loadu(a + i), loadu(b + i));  // negative iff a < b
        return select_by_sign(d, _mm256_add_epi64(d, qv), d);
      },
      [&](size_t i, size_t count) { scalar::sub_mod(out + i, a + i, b + i, count, q); });
}

void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i x = loadu(a + i);
        const __m256i zero = _mm256_cmpeq_epi64(x, _mm256_setzero_si256());
        return _mm256_andnot_si256(zero, _mm256_sub_epi64(qv, x));
      },
      [&](size_t i, size_t count) { scalar::negate_mod(out + i, a + i, count, q); });
}

void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::mul_mod(out + i, a + i, b + i, count, q);
  };
  if (use_double(q.value)) {
    const DoubleModulus d = make_double_modulus(q.value);
    for_each_chunk<4>(
        out, n, [&](size_t i) { return mul_mod_double(loadu(a + i), loadu(b + i), d); },
        scalar_part);
  } else {
    const BarrettModulus bm = make_barrett(q);
    for_each_chunk<1>(
        out, n,
        [&](size_t i) {
          __m256i hi, lo;
          mul_wide(loadu(a + i), loadu(b + i), hi, lo);
          return barrett_reduce(hi, lo, bm);
        },
        scalar_part);
  }
}

void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,
                    uint64_t q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::mul_scalar_mod(out + i, a + i, w, w_shoup, count, q);
  };
  if (use_double(q)) {
    const DoubleModulus d = make_double_modulus(q);
    const DoubleFixed wd = make_double_fixed(w, q);
    for_each_chunk<4>(
        out, n, [&](size_t i) { return mul_fixed_double(loadu(a + i), wd, d); }, scalar_part);
  } else {
    const IntModulus m = make_int_modulus(q);
    const ShoupOperand wv = make_shoup(w, w_shoup);
    for_each_chunk<2>(
        out, n, [&](size_t i) { return reduce_once(mul_shoup_lazy(loadu(a + i), wv, m), m.q); },
        scalar_part);
  }
}

void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n,
             const ModulusData& q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::fma_mod(out + i, a + i, b + i, c + i, count, q);
  };
  if (use_double(q.value)) {
    const DoubleModulus d = make_double_modulus(q.value);
    for_each_chunk<2>(
        out, n,
        [&](size_t i) { return fma_mod_double(loadu(a + i), loadu(b + i), loadu(c + i), d); },
        scalar_part);
  } else {
    const BarrettModulus bm = make_barrett(q);
    const __m256i lo_mask = set1(0xffffffffULL);
    for_each_chunk<1>(
        out, n,
        [&](size_t i) {
          // a*b + c < q^2 <= 2^(2L): c's halves join the partial products
          // (ll + lo32(c) < 2^64, and the middle sum keeps its headroom).
          const __m256i av = loadu(a + i), bv = loadu(b + i), cv = loadu(c + i);
          const __m256i a_hi = _mm256_srli_epi64(av, 32);
          const __m256i b_hi = _mm256_srli_epi64(bv, 32);
          const __m256i ll =
              _mm256_add_epi64(_mm256_mul_epu32(av, bv), _mm256_and_si256(cv, lo_mask));
          const __m256i lh = _mm256_mul_epu32(av, b_hi);
          const __m256i hl = _mm256_mul_epu32(a_hi, bv);
          const __m256i hh = _mm256_mul_epu32(a_hi, b_hi);
          const __m256i middle = _mm256_add_epi64(
              _mm256_add_epi64(lh, hl),
              _mm256_add_epi64(_mm256_srli_epi64(ll, 32), _mm256_srli_epi64(cv, 32)));
          const __m256i lo = _mm256_blend_epi32(ll, _mm256_slli_epi64(middle, 32), 0xAA);
          const __m256i hi = _mm256_add_epi64(hh, _mm256_srli_epi64(middle, 32));
          return barrett_reduce(hi, lo, bm);
        },
        scalar_part);
  }
}

void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,
                    const uint64_t* c, size_t n, uint64_t q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::fma_scalar_mod(out + i, a + i, w, w_shoup, c + i, count, q);
  };
  if (use_double(q)) {
    const DoubleModulus d = make_double_modulus(q);
    const DoubleFixed wd = make_double_fixed(w, q);
    for_each_chunk<4>(
        out, n,
        [&](size_t i) {
          const __m256i product = mul_fixed_double(loadu(a + i), wd, d);
          return reduce_once(_mm256_add_epi64(product, loadu(c + i)), d.q_int);
        },
        scalar_part);
  } else {
    const IntModulus m = make_int_modulus(q);
    const ShoupOperand wv = make_shoup(w, w_shoup);
    for_each_chunk<2>(
        out, n,
        [&](size_t i) {
          const __m256i product = reduce_once(mul_shoup_lazy(loadu(a + i), wv, m), m.q);
          return reduce_once(_mm256_add_epi64(product, loadu(c + i)), m.q);
        },
        scalar_part);
  }
}

namespace {

// dot_product_pair on the double-precision path (q < 2^50), for one block of
// `count` coefficients starting at `first`. Each product x*b is split exactly
// as in mul_mod_double, but its remainder r in (-q, q) is left as a double and
// added to a double accumulator: integer-valued doubles are exact below 2^53,
// so up to kTermsPerFold remainders can be summed before the accumulator is
// folded back below q in magnitude. The digit x is converted to double once
// for both products, and only the final sums are turned back into integers.
// The accumulators live in two small L1-resident arrays, so each term streams
// through x[j], b[j] and a[j] once.
constexpr size_t kDotBlock = 1024;
constexpr size_t kTermsPerFold = 4;  // |acc| < q + 4q < 2^53 for q < 2^50

HEFT_AVX2_INLINE __m256d product_remainder(__m256d x, __m256d y, const DoubleModulus& d) {
  const __m256d h = _mm256_mul_pd(x, y);
  const __m256d l = _mm256_fmsub_pd(x, y, h);  // xy - h, exactly
  const __m256d quotient = round_nearest(_mm256_mul_pd(h, d.q_inv));
  return _mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h), l);  // xy - Q q, in (-q, q)
}

// The same for a fixed w with w_over_q = fl(w / q) (see mul_fixed_double).
HEFT_AVX2_INLINE __m256d product_remainder(__m256d x, __m256d w, __m256d w_over_q,
                                           const DoubleModulus& d) {
  const __m256d h = _mm256_mul_pd(x, w);
  const __m256d l = _mm256_fmsub_pd(x, w, h);
  const __m256d quotient = round_nearest(_mm256_mul_pd(x, w_over_q));
  return _mm256_add_pd(_mm256_fnmadd_pd(quotient, d.q, h), l);
}

// acc - q * round(acc / q) for an integer-valued |acc| < 2^53: exact (the
// result is a small integer), and at most q/2 plus a rounding slack far below
// q in magnitude, because fl(acc * fl(1/q)) is within 2^-50 * |acc/q| of acc/q.
HEFT_AVX2_INLINE __m256d fold(__m256d acc, const DoubleModulus& d) {
  return _mm256_fnmadd_pd(round_nearest(_mm256_mul_pd(acc, d.q_inv)), d.q, acc);
}

// A sum |acc| < 5q as a residue in [0, q): fold into (-q, q), then finish()'s
// signed-offset conversion.
HEFT_AVX2_INLINE __m256i finish_sum(__m256d acc, const DoubleModulus& d) {
  return finish(_mm256_add_pd(fold(acc, d), d.round), d);
}

// A carried-in output below 8q (< 2^53) reduced to [0, q).
HEFT_AVX2_INLINE __m256i reduced_carry(__m256i v, const DoubleModulus& d) {
  v = reduce_once(v, _mm256_slli_epi64(d.q_int, 2));
  v = reduce_once(v, _mm256_slli_epi64(d.q_int, 1));
  return reduce_once(v, d.q_int);
}

void dot_product_pair_double_block(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                                   const uint64_t* const* b, const uint64_t* const* a, size_t k,
                                   size_t first, size_t count, const DoubleModulus& d,
                                   bool accumulate) {
  alignas(32) double acc0[kDotBlock], acc1[kDotBlock];
  for (size_t j = 0; j < k; ++j) {
    const uint64_t* xj = x[j] + first;
    const uint64_t* bj = b[j] + first;
    const uint64_t* aj = a[j] + first;
    const bool fold_now = j % kTermsPerFold == kTermsPerFold - 1;
    // The next term's operands live far apart in memory (key towers are
    // megabytes apart), where the hardware prefetchers restart at every
    // block: fetch them one term ahead, one cache line per step.
    const size_t next = j + 1 < k ? j + 1 : j;
    const uint64_t* prefetch[3] = {x[next] + first, b[next] + first, a[next] + first};
    for (size_t i = 0; i < count; i += 4) {
      if (i % 8 == 0) {
        for (const uint64_t* p : prefetch)
          _mm_prefetch(reinterpret_cast<const char*>(p + i), _MM_HINT_T0);
      }
      const __m256d xd = to_double(loadu(xj + i), d);
      __m256d r0 = product_remainder(xd, to_double(loadu(bj + i), d), d);
      __m256d r1 = product_remainder(xd, to_double(loadu(aj + i), d), d);
      if (j != 0) {
        r0 = _mm256_add_pd(r0, _mm256_load_pd(acc0 + i));
        r1 = _mm256_add_pd(r1, _mm256_load_pd(acc1 + i));
      } else if (accumulate) {  // the outputs' values, reduced below q like a folded sum
        r0 = _mm256_add_pd(r0, to_double(reduced_carry(loadu(out0 + first + i), d), d));
        r1 = _mm256_add_pd(r1, to_double(reduced_carry(loadu(out1 + first + i), d), d));
      }
      if (fold_now) {
        r0 = fold(r0, d);
        r1 = fold(r1, d);
      }
      _mm256_store_pd(acc0 + i, r0);
      _mm256_store_pd(acc1 + i, r1);
    }
  }
  for (size_t i = 0; i < count; i += 4) {
    storeu(out0 + first + i, finish_sum(_mm256_load_pd(acc0 + i), d));
    storeu(out1 + first + i, finish_sum(_mm256_load_pd(acc1 + i), d));
  }
}

// ---- dot_product_pair's path for 61-bit q ----
//
// Lane sums of 64 x 64-bit products kept as 128-bit (hi, lo) pairs, reduced
// once per fold instead of once per product. With products below q^2 and at
// most F = floor(2^63 / q) of them on a reduced carry-in, S = hi 2^64 + lo
// has hi < q/2 + 1, and S = hi (2^64 mod q) + lo (mod q) is below
// q^2/2 + q + 2^64 < 2^(2L) for q of L >= 34 bits, the range barrett_reduce
// takes.
struct WideSum {
  __m256i hi, lo;
};

HEFT_AVX2_INLINE void add_wide(WideSum& sum, __m256i hi, __m256i lo) {
  const __m256i sign = set1(uint64_t{1} << 63);
  const __m256i new_lo = _mm256_add_epi64(sum.lo, lo);
  // Carry out of the low words: new_lo < lo as unsigned (compare with the
  // sign bits flipped); the mask is -1 where it carried.
  const __m256i carry =
      _mm256_cmpgt_epi64(_mm256_xor_si256(lo, sign), _mm256_xor_si256(new_lo, sign));
  sum.hi = _mm256_sub_epi64(_mm256_add_epi64(sum.hi, hi), carry);
  sum.lo = new_lo;
}

HEFT_AVX2_INLINE __m256i reduce_wide(const WideSum& sum, __m256i two64_mod_q,
                                     const BarrettModulus& b) {
  WideSum folded{_mm256_setzero_si256(), sum.lo};
  __m256i hi, lo;
  mul_wide(sum.hi, two64_mod_q, hi, lo);  // hi < 2^62 and 2^64 mod q < q
  add_wide(folded, hi, lo);
  return barrett_reduce(folded.hi, folded.lo, b);
}

void dot_product_pair_wide_block(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                                 const uint64_t* const* b, const uint64_t* const* a, size_t k,
                                 size_t first, size_t count, const ModulusData& q,
                                 bool accumulate) {
  constexpr size_t kBlock = 256;  // four 2 KB accumulator arrays stay in L1
  alignas(32) uint64_t hi0[kBlock], lo0[kBlock], hi1[kBlock], lo1[kBlock];
  const BarrettModulus barrett = make_barrett(q);
  const __m256i two64_mod_q = set1(0 - q.barrett64 * q.value);  // 2^64 - floor(2^64/q) q
  const size_t terms_per_fold = (uint64_t{1} << 63) / q.value;  // >= 4 for q < 2^61
  for (size_t start = 0; start < count; start += kBlock) {
    const size_t size = count - start < kBlock ? count - start : kBlock;
    for (size_t j = 0; j < k; ++j) {
      const uint64_t* xj = x[j] + first + start;
      const uint64_t* bj = b[j] + first + start;
      const uint64_t* aj = a[j] + first + start;
      const bool fold_now = (j + 1) % terms_per_fold == 0;
      for (size_t i = 0; i < size; i += 4) {
        WideSum sum0{_mm256_setzero_si256(), _mm256_setzero_si256()}, sum1 = sum0;
        if (j != 0) {
          sum0 = {_mm256_load_si256(reinterpret_cast<const __m256i*>(hi0 + i)),
                  _mm256_load_si256(reinterpret_cast<const __m256i*>(lo0 + i))};
          sum1 = {_mm256_load_si256(reinterpret_cast<const __m256i*>(hi1 + i)),
                  _mm256_load_si256(reinterpret_cast<const __m256i*>(lo1 + i))};
        } else if (accumulate) {  // the outputs' values: a reduced carry-in
          sum0.lo = loadu(out0 + first + start + i);
          sum1.lo = loadu(out1 + first + start + i);
        }
        const __m256i xv = loadu(xj + i);
        __m256i hi, lo;
        mul_wide(xv, loadu(bj + i), hi, lo);
        add_wide(sum0, hi, lo);
        mul_wide(xv, loadu(aj + i), hi, lo);
        add_wide(sum1, hi, lo);
        if (fold_now) {
          sum0 = {_mm256_setzero_si256(), reduce_wide(sum0, two64_mod_q, barrett)};
          sum1 = {_mm256_setzero_si256(), reduce_wide(sum1, two64_mod_q, barrett)};
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(hi0 + i), sum0.hi);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lo0 + i), sum0.lo);
        _mm256_store_si256(reinterpret_cast<__m256i*>(hi1 + i), sum1.hi);
        _mm256_store_si256(reinterpret_cast<__m256i*>(lo1 + i), sum1.lo);
      }
    }
    for (size_t i = 0; i < size; i += 4) {
      const WideSum sum0{_mm256_load_si256(reinterpret_cast<const __m256i*>(hi0 + i)),
                         _mm256_load_si256(reinterpret_cast<const __m256i*>(lo0 + i))};
      const WideSum sum1{_mm256_load_si256(reinterpret_cast<const __m256i*>(hi1 + i)),
                         _mm256_load_si256(reinterpret_cast<const __m256i*>(lo1 + i))};
      storeu(out0 + first + start + i, reduce_wide(sum0, two64_mod_q, barrett));
      storeu(out1 + first + start + i, reduce_wide(sum1, two64_mod_q, barrett));
    }
  }
}

// ---- Split-product sums (integer path for operands below 2^60) ----
//
// The vector policy for split_sums.hpp (see there for the method).
class Avx2SplitOps {
 public:
  using Vec = __m256i;
  static constexpr std::size_t kLanes = 4;
  struct Halves {
    __m256i low, high;  // u0 = u mod 2^s, u1 = u >> s
  };
  struct Sum {
    __m256i low, middle, high;
  };

  // b: the bit bound of both operands (2 <= b <= 60), q < 2^b.
  Avx2SplitOps(const ModulusData& q, int b)
      : plan_(plan_split_sum(q.value, b)),
        m_(make_int_modulus(q.value)),
        shift_(_mm_cvtsi32_si128(plan_.shift)),
        mask_(set1((uint64_t{1} << plan_.shift) - 1)),
        two_2s_(make_shoup(plan_.two_2s_mod_q, shoup_of(plan_.two_2s_mod_q, q.value))),
        one_(make_shoup(1, q.barrett64)),
        two_q_(set1(2 * q.value)) {}

  const SplitSumPlan& plan() const { return plan_; }
  static __m256i load(const uint64_t* p) { return loadu(p); }
  static __m256i load_aligned(const uint64_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(uint64_t* p, __m256i v) { storeu(p, v); }
  static void store_aligned(uint64_t* p, __m256i v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
  }
  static __m256i broadcast(uint64_t w) { return set1(w); }

  Halves split(__m256i u) const {
    return {_mm256_and_si256(u, mask_), _mm256_srl_epi64(u, shift_)};
  }
  static Sum sum_of(__m256i carried_in) {
    return {carried_in, _mm256_setzero_si256(), _mm256_setzero_si256()};
  }
  static void add_product(Sum& sum, const Halves& u, const Halves& v) {
    sum.low = _mm256_add_epi64(sum.low, _mm256_mul_epu32(u.low, v.low));
    sum.middle = _mm256_add_epi64(sum.middle, _mm256_add_epi64(_mm256_mul_epu32(u.low, v.high),
                                                               _mm256_mul_epu32(u.high, v.low)));
    sum.high = _mm256_add_epi64(sum.high, _mm256_mul_epu32(u.high, v.high));
  }

  // The sum's value mod q, in [0, q). Carrying low into middle and middle
  // into high leaves low + middle 2^s below 2^2s and high below 2^64 (its own
  // bound plus 2^(64-s)); high 2^2s mod q is one Shoup product by 2^2s mod q,
  // which takes any 64-bit input, in [0, 2q).
  __m256i finish(Sum sum) const {
    sum.middle = _mm256_add_epi64(sum.middle, _mm256_srl_epi64(sum.low, shift_));
    sum.high = _mm256_add_epi64(sum.high, _mm256_srl_epi64(sum.middle, shift_));
    const __m256i low_part =
        _mm256_or_si256(_mm256_and_si256(sum.low, mask_),
                        _mm256_sll_epi64(_mm256_and_si256(sum.middle, mask_), shift_));  // < 2^2s
    // low_part mod q in [0, q): below 4q two subtractions do it, otherwise
    // (inputs wider than q) a Shoup product by 1 brings it to [0, 2q) first.
    const __m256i low_reduced = plan_.low_part_below_4q
                                    ? reduce_once(low_part, two_q_)
                                    : mul_shoup_lazy(low_part, one_, m_);  // [0, 2q)
    const __m256i total = _mm256_add_epi64(reduce_once(low_reduced, m_.q),
                                           mul_shoup_lazy(sum.high, two_2s_, m_));  // [0, 3q)
    return reduce_once(reduce_once(total, two_q_), m_.q);
  }

  // The same value in [0, 6q), without finish's last reductions: low_part
  // (below 2^2s <= 4q) or its Shoup product by 1 (below 2q), plus high's.
  __m256i finish_lazy(Sum sum) const {
    sum.middle = _mm256_add_epi64(sum.middle, _mm256_srl_epi64(sum.low, shift_));
    sum.high = _mm256_add_epi64(sum.high, _mm256_srl_epi64(sum.middle, shift_));
    const __m256i low_part =
        _mm256_or_si256(_mm256_and_si256(sum.low, mask_),
                        _mm256_sll_epi64(_mm256_and_si256(sum.middle, mask_), shift_));
    const __m256i low = plan_.low_part_below_4q ? low_part : mul_shoup_lazy(low_part, one_, m_);
    return _mm256_add_epi64(low, mul_shoup_lazy(sum.high, two_2s_, m_));
  }

 private:
  static uint64_t shoup_of(uint64_t w, uint64_t q) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / q);
  }

  SplitSumPlan plan_;
  IntModulus m_;
  __m128i shift_;        // s
  __m256i mask_;         // 2^s - 1
  ShoupOperand two_2s_;  // 2^2s mod q, for high
  ShoupOperand one_;     // 1, to reduce a 64-bit value lazily
  __m256i two_q_;
};

}  // namespace

void dot_product_pair(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                      const uint64_t* const* b, const uint64_t* const* a, size_t k, size_t n,
                      const ModulusData& q, bool accumulate, bool lazy_output) {
  if (k == 0) {
    if (accumulate && !lazy_output) {
      reduce_carried(out0, 0, n, q.value);
      reduce_carried(out1, 0, n, q.value);
    } else if (!accumulate) {
      for (size_t i = 0; i < n; ++i)
        out0[i] = out1[i] = 0;
    }
    return;
  }
  size_t first = 0;
  if (use_double(q.value)) {
    const DoubleModulus d = make_double_modulus(q.value);
    for (; first + 4 <= n; first += kDotBlock) {
      const size_t count = n - first < kDotBlock ? (n - first) / 4 * 4 : kDotBlock;
      dot_product_pair_double_block(out0, out1, x, b, a, k, first, count, d, accumulate);
      if (count < kDotBlock) {
        first += count;
        break;
      }
    }
  } else if (64 - __builtin_clzll(q.value) <= kMaxSplitBits) {
    first = n / 4 * 4;
    dot_product_pair_split(Avx2SplitOps(q, 64 - __builtin_clzll(q.value)), out0, out1, x, b, a, k,
                           first, accumulate, lazy_output);
  } else if (q.value >= kDoubleModulusBound) {
    first = n / 4 * 4;
    if (accumulate) {  // the wide sums take a reduced carry-in (a rare modulus size)
      reduce_carried(out0, 0, first, q.value);
      reduce_carried(out1, 0, first, q.value);
    }
    dot_product_pair_wide_block(out0, out1, x, b, a, k, 0, first, q, accumulate);
  }
  // The last n mod 4 coefficients (and small moduli when the rounding mode
  // rules out doubles): this level's products blockwise.
  dot_product_pair_by_products(mul_mod, fma_mod, out0, out1, x, b, a, k, first, n, kDotBlock, q,
                               accumulate);
}

namespace {

// weighted_sum_mod's double path (q < 2^50, inputs below 2^50), coefficients
// [first, first + count) with count a multiple of 16. Each product y*w is
// split as in mul_fixed_double (valid for any y < 2^50, not only y < q: the
// quotient estimate stays within 3/4 of y w / q < 2^50), its remainder kept
// as a double in (-q, q) and summed, folded every kTermsPerFold terms as in
// dot_product_pair.
void weighted_sum_double(uint64_t* out, const uint64_t* y, size_t stride, const uint64_t* w,
                         size_t k, size_t first, size_t count, uint64_t q) {
  const DoubleModulus d = make_double_modulus(q);
  constexpr size_t kMaxCachedWeights = 64;
  DoubleFixed weights[kMaxCachedWeights];
  const size_t cached = k < kMaxCachedWeights ? k : kMaxCachedWeights;
  for (size_t i = 0; i < cached; ++i)
    weights[i] = make_double_fixed(w[i], q);
  // Four vectors (16 coefficients) per step: four independent accumulator
  // chains, so the out-of-order core overlaps their additions.
  constexpr int kVectors = 4;
  for (size_t c = first; c < first + count; c += 4 * kVectors) {
    __m256d acc[kVectors];
    for (int v = 0; v < kVectors; ++v)
      acc[v] = _mm256_setzero_pd();
    for (size_t i = 0; i < k; ++i) {
      const DoubleFixed weight = i < cached ? weights[i] : make_double_fixed(w[i], q);
      const uint64_t* row = y + i * stride + c;
      for (int v = 0; v < kVectors; ++v) {
        acc[v] = _mm256_add_pd(acc[v], product_remainder(to_double(loadu(row + 4 * v), d), weight.w,
                                                         weight.w_over_q, d));
      }
      if (i % kTermsPerFold == kTermsPerFold - 1) {
        for (int v = 0; v < kVectors; ++v)
          acc[v] = fold(acc[v], d);
      }
    }
    for (int v = 0; v < kVectors; ++v)
      storeu(out + c + 4 * v, finish_sum(acc[v], d));
  }
}

}  // namespace

void weighted_sum_mod(uint64_t* out, const uint64_t* y, size_t stride, const uint64_t* w,
                      const uint64_t* w_shoup, size_t k, size_t n, uint32_t input_bits,
                      const ModulusData& q) {
  size_t done = 0;
  if (k == 0) {
    for (size_t c = 0; c < n; ++c)
      out[c] = 0;
    return;
  }
  if (use_double(q.value) && input_bits <= 50) {
    done = n / 16 * 16;
    weighted_sum_double(out, y, stride, w, k, 0, done, q.value);
  } else if (const int bits = std::max<int>(input_bits, 64 - __builtin_clzll(q.value));
             bits <= kMaxSplitBits) {
    done = n / 8 * 8;
    weighted_sum_split(Avx2SplitOps(q, bits), out, y, stride, w, k, done);
  } else {
    // Integer path for 61-bit operands: Shoup products (any 64-bit input)
    // summed with one conditional subtraction each.
    const IntModulus m = make_int_modulus(q.value);
    constexpr size_t kMaxCachedWeights = 64;
    ShoupOperand weights[kMaxCachedWeights];
    const size_t cached = k < kMaxCachedWeights ? k : kMaxCachedWeights;
    for (size_t i = 0; i < cached; ++i)
      weights[i] = make_shoup(w[i], w_shoup[i]);
    for (; done + 4 <= n; done += 4) {
      __m256i acc = _mm256_setzero_si256();
      for (size_t i = 0; i < k; ++i) {
        const ShoupOperand weight = i < cached ? weights[i] : make_shoup(w[i], w_shoup[i]);
        const __m256i product =
            reduce_once(mul_shoup_lazy(loadu(y + i * stride + done), weight, m), m.q);
        acc = reduce_once(_mm256_add_epi64(acc, product), m.q);
      }
      storeu(out + done, acc);
    }
  }
  if (done < n)
    scalar::weighted_sum_mod(out + done, y + done, stride, w, w_shoup, k, n - done, input_bits, q);
}

void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n, [&](size_t i) { return reduce_once(loadu(a + i), qv); },
      [&](size_t i, size_t count) { scalar::reduce_from_2q(out + i, a + i, count, q); });
}

void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q), two_q = set1(2 * q);
  for_each_chunk<4>(
      out, n, [&](size_t i) { return reduce_once(reduce_once(loadu(a + i), two_q), qv); },
      [&](size_t i, size_t count) { scalar::reduce_from_4q(out + i, a + i, count, q); });
}

void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q) {
  // a to [0, q) first, so that every value stays below 2^63 (reduce_once's bound).
  const __m256i qv = set1(q), two_q = set1(2 * q), cv = set1(c);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i reduced = reduce_once(reduce_once(loadu(a + i), two_q), qv);
        return reduce_once(_mm256_add_epi64(reduced, cv), qv);
      },
      [&](size_t i, size_t count) { scalar::add_scalar_mod(out + i, a + i, c, count, q); });
}

void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,
                        uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q) {
  // The difference goes through a small buffer that stays in L1, so the
  // operands are read once; the products are this file's own (double or
  // integer) paths.
  constexpr size_t kChunk = 256;
  alignas(32) uint64_t difference[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t count = std::min(kChunk, n - i);
    sub_mod(difference, a + i, b + i, count, q);
    if (c == nullptr) {
      mul_scalar_mod(out + i, difference, w, w_shoup, count, q);
    } else {
      fma_scalar_mod(out + i, difference, w, w_shoup, c + i, count, q);
    }
  }
}

void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,
                    size_t n) {
  scalar::permute_blocks(out, in, map, count, n);  // AVX2 has no 8-lane 64-bit permute
}

void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q) {
  // Shoup's method with w = 1, whose constant floor(2^64 / q) is barrett64:
  // a - hi64(a * barrett64) * q lies in [0, 2q) for any 64-bit a.
  const IntModulus m = make_int_modulus(q.value);
  const ShoupOperand one = make_shoup(1, q.barrett64);
  for_each_chunk<2>(
      out, n, [&](size_t i) { return reduce_once(mul_shoup_lazy(loadu(a + i), one, m), m.q); },
      [&](size_t i, size_t count) { scalar::reduce_any(out + i, a + i, count, q); });
}

}  // namespace heft::math::kernels::avx2
