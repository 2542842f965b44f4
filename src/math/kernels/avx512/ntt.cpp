// AVX-512 (F/DQ/VL/BW) negacyclic NTT on 8 x 64-bit lanes, for any q < 2^61.
//
// The same transform as scalar/ntt.cpp (Harvey's lazy butterflies with Shoup
// twiddles), organised for vectors:
//  - Stages whose half-length t is at least 16 run two at a time (radix-4
//    passes): four vectors are loaded, go through two butterfly levels and are
//    stored, which halves the memory traffic for large N. An odd stage out runs
//    as a plain radix-2 pass.
//  - The four smallest stages (t = 8, 4, 2, 1) run on blocks of 16 values kept
//    in two registers: t = 8 pairs the two registers directly, the others pair
//    lanes after one two-source permute per register and stage. Twiddles of
//    t = 1 are read straight from the table in the order their lanes need.
//
// Shoup products take an approximate high half of the 64 x 64-bit product:
// the three upper 32 x 32-bit partial products without the carry out of the
// low half, which saves a multiply and four other instructions. That high
// half can be 2 short, so the Shoup quotient is up to 3 (instead of 1) short
// and W*Y mod q lands in [0, 4q) instead of [0, 2q); the lazy ranges are
// twice the scalar ones:
//  - forward: values stay in [0, 8q) (< 2^64 since q < 2^61). X is brought to
//    [0, 4q), T = W*Y in [0, 4q), so X + T and X - T + 4q are in [0, 8q).
//  - inverse: values stay in [0, 4q). X + Y is brought back to [0, 4q) and
//    W*(X - Y + 4q) is in [0, 4q).
// Outputs are fully reduced to [0, q), so they equal the scalar ones bit for bit.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

inline __m512i set1(uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}
inline __m512i load(const uint64_t* p) {
  return _mm512_loadu_si512(p);
}
inline void store(uint64_t* p, __m512i v) {
  _mm512_storeu_si512(p, v);
}
inline __m512i permute2(__m512i a, __m512i index, __m512i b) {
  return _mm512_permutex2var_epi64(a, index, b);
}

// A twiddle W (per lane) with its Shoup constant floor(W 2^64 / q): the low
// half is read by _mm512_mul_epu32 directly, the high half is pre-shifted.
struct Twiddle {
  __m512i w;
  __m512i shoup;
  __m512i shoup_hi;
};

inline Twiddle make_twiddle(__m512i w, __m512i shoup) {
  return {w, shoup, _mm512_srli_epi64(shoup, 32)};
}
inline Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) {
  return {set1(w), set1(shoup), set1(shoup >> 32)};
}

struct Constants {
  __m512i q, two_q, four_q;
};

// floor(a * b / 2^64) - e with e in {0, 1, 2}: the carry of
// ((a*b)_lo32x32 >> 32) + two 32-bit middle halves is dropped.
inline __m512i mulhi_approx(__m512i a, __m512i b, __m512i b_hi) {
  const __m512i a_hi = _mm512_srli_epi64(a, 32);
  const __m512i hh = _mm512_mul_epu32(a_hi, b_hi);
  const __m512i hl = _mm512_mul_epu32(a_hi, b);
  const __m512i lh = _mm512_mul_epu32(a, b_hi);
  return _mm512_add_epi64(hh,
                          _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(lh, 32)));
}

// W*y mod q in [0, 4q) for any y < 2^64: the exact Shoup quotient is at most
// 1 short, the approximate one at most 3, and the difference W*y - Q*q (< 4q)
// is exact in 64-bit arithmetic.
inline __m512i mul_shoup_lazy(__m512i y, const Twiddle& w, __m512i q) {
  const __m512i quotient = mulhi_approx(y, w.shoup, w.shoup_hi);
  return _mm512_sub_epi64(_mm512_mullo_epi64(y, w.w), _mm512_mullo_epi64(quotient, q));
}

// x in [0, 2 bound) -> [0, bound): if x < bound, x - bound wraps above x.
inline __m512i reduce_once(__m512i x, __m512i bound) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, bound));
}

// [0, 8q) -> [0, q).
inline __m512i reduce_from_8q(__m512i x, const Constants& c) {
  return reduce_once(reduce_once(reduce_once(x, c.four_q), c.two_q), c.q);
}

// [0, 4q) -> [0, q).
inline __m512i reduce_from_4q(__m512i x, const Constants& c) {
  return reduce_once(reduce_once(x, c.two_q), c.q);
}

// Forward (Cooley-Tukey) butterfly: x, y in [0, 8q) -> x + W y, x - W y in [0, 8q).
inline void forward_butterfly(__m512i& x, __m512i& y, const Twiddle& w, const Constants& c) {
  const __m512i xr = reduce_once(x, c.four_q);  // [0, 4q)
  const __m512i t = mul_shoup_lazy(y, w, c.q);  // [0, 4q)
  x = _mm512_add_epi64(xr, t);
  y = _mm512_sub_epi64(_mm512_add_epi64(xr, c.four_q), t);
}

// Inverse (Gentleman-Sande) butterfly: x, y in [0, 4q) -> x + y, W (x - y) in [0, 4q).
inline void inverse_butterfly(__m512i& x, __m512i& y, const Twiddle& w, const Constants& c) {
  const __m512i sum = _mm512_add_epi64(x, y);                               // [0, 8q)
  const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.four_q), y);  // (0, 8q)
  x = reduce_once(sum, c.four_q);
  y = mul_shoup_lazy(diff, w, c.q);
}

// Last inverse stage (m = 1) with 1/N folded in: the Shoup products take the
// unreduced sum and difference (< 8q) and the outputs are reduced to [0, q).
inline void inverse_butterfly_last(__m512i& x, __m512i& y, const Twiddle& inv_n,
                                   const Twiddle& inv_n_root, const Constants& c) {
  const __m512i sum = _mm512_add_epi64(x, y);
  const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.four_q), y);
  x = reduce_from_4q(mul_shoup_lazy(sum, inv_n, c.q), c);
  y = reduce_from_4q(mul_shoup_lazy(diff, inv_n_root, c.q), c);
}

inline __m512i lane_index(long long i0, long long i1, long long i2, long long i3, long long i4,
                          long long i5, long long i6, long long i7) {
  return _mm512_setr_epi64(i0, i1, i2, i3, i4, i5, i6, i7);
}

// Lane permutations of the 16-value blocks. Writing e0..e15 for the block:
//  natural:  {e0..e7}, {e8..e15}
//  t = 4:    {e0-e3, e8-e11}, {e4-e7, e12-e15}           (pairs e_k, e_k+4)
//  t = 2:    {e0,e1,e4,e5,e8,e9,e12,e13}, {e2,e3,e6,e7,...} (pairs e_k, e_k+2)
//  t = 1:    {e0,e2,...,e14}, {e1,e3,...,e15}            (pairs e_k, e_k+1)
// t = 2 <-> t = 1 is unpacklo/unpackhi; the other steps use vpermt2q.
struct Permutes {
  __m512i low_halves, high_halves;          // natural <-> t = 4 (both directions)
  __m512i t4_t2_first, t4_t2_second;        // t = 4 <-> t = 2 (an involution)
  __m512i interleave_low, interleave_high;  // t = 1 -> natural
  __m512i evens, odds;                      // natural -> t = 1
  __m512i dup4_first, dup4_second;          // {w0 x4, w1 x4}, {w2 x4, w3 x4}
  __m512i dup2_first, dup2_second;          // {w0,w0,w1,w1,w2,w2,w3,w3}, {w4,w4,...,w7,w7}
};

inline Permutes make_permutes() {
  return {lane_index(0, 1, 2, 3, 8, 9, 10, 11),  lane_index(4, 5, 6, 7, 12, 13, 14, 15),
          lane_index(0, 1, 8, 9, 4, 5, 12, 13),  lane_index(2, 3, 10, 11, 6, 7, 14, 15),
          lane_index(0, 8, 1, 9, 2, 10, 3, 11),  lane_index(4, 12, 5, 13, 6, 14, 7, 15),
          lane_index(0, 2, 4, 6, 8, 10, 12, 14), lane_index(1, 3, 5, 7, 9, 11, 13, 15),
          lane_index(0, 0, 0, 0, 1, 1, 1, 1),    lane_index(2, 2, 2, 2, 3, 3, 3, 3),
          lane_index(0, 0, 1, 1, 2, 2, 3, 3),    lane_index(4, 4, 5, 5, 6, 6, 7, 7)};
}

// Twiddles of the four in-register stages for one block of 16 values.
struct BlockTwiddles {
  Twiddle t8, t4, t2, t1;
};

// Twiddles for blocks b and b + 1 (b even, or b = 0 when N = 16) of the
// table `roots` / `shoup` (forward or inverse). Reads stay inside the table:
// the furthest is roots[N/2 + 8b + 15] <= roots[N - 1] (N >= 32), or
// roots[15] for N = 16 (single block).
inline void block_twiddles(const uint64_t* roots, const uint64_t* shoup, uint64_t n, uint64_t b,
                           const Permutes& p, bool two_blocks, BlockTwiddles& first,
                           BlockTwiddles& second) {
  const uint64_t i8 = n / 16 + b, i4 = n / 8 + 2 * b, i2 = n / 4 + 4 * b, i1 = n / 2 + 8 * b;
  const __m512i w4 = load(roots + i4), s4 = load(shoup + i4);
  const __m512i w2 = load(roots + i2), s2 = load(shoup + i2);
  first.t8 = broadcast_twiddle(roots[i8], shoup[i8]);
  first.t4 = make_twiddle(_mm512_permutexvar_epi64(p.dup4_first, w4),
                          _mm512_permutexvar_epi64(p.dup4_first, s4));
  first.t2 = make_twiddle(_mm512_permutexvar_epi64(p.dup2_first, w2),
                          _mm512_permutexvar_epi64(p.dup2_first, s2));
  first.t1 = make_twiddle(load(roots + i1), load(shoup + i1));
  if (two_blocks) {
    second.t8 = broadcast_twiddle(roots[i8 + 1], shoup[i8 + 1]);
    second.t4 = make_twiddle(_mm512_permutexvar_epi64(p.dup4_second, w4),
                             _mm512_permutexvar_epi64(p.dup4_second, s4));
    second.t2 = make_twiddle(_mm512_permutexvar_epi64(p.dup2_second, w2),
                             _mm512_permutexvar_epi64(p.dup2_second, s2));
    second.t1 = make_twiddle(load(roots + i1 + 8), load(shoup + i1 + 8));
  }
}

// Forward stages t = 8, 4, 2, 1 on 16 values, then the final reduction to [0, q).
inline void forward_block(uint64_t* v, const BlockTwiddles& w, const Permutes& p,
                          const Constants& c) {
  __m512i a = load(v);
  __m512i b = load(v + 8);
  forward_butterfly(a, b, w.t8, c);
  __m512i x = permute2(a, p.low_halves, b);
  __m512i y = permute2(a, p.high_halves, b);
  forward_butterfly(x, y, w.t4, c);
  a = permute2(x, p.t4_t2_first, y);
  b = permute2(x, p.t4_t2_second, y);
  forward_butterfly(a, b, w.t2, c);
  x = _mm512_unpacklo_epi64(a, b);
  y = _mm512_unpackhi_epi64(a, b);
  forward_butterfly(x, y, w.t1, c);
  x = reduce_from_8q(x, c);
  y = reduce_from_8q(y, c);
  store(v, permute2(x, p.interleave_low, y));
  store(v + 8, permute2(x, p.interleave_high, y));
}

// Inverse stages t = 1, 2, 4, 8 on 16 values. When N = 16 the t = 8 stage is
// the last one and takes the 1/N factor (kLast).
template <bool kLast>
inline void inverse_block(uint64_t* v, const BlockTwiddles& w, const Twiddle& inv_n,
                          const Twiddle& inv_n_root, const Permutes& p, const Constants& c) {
  __m512i a = load(v);
  __m512i b = load(v + 8);
  __m512i x = permute2(a, p.evens, b);
  __m512i y = permute2(a, p.odds, b);
  inverse_butterfly(x, y, w.t1, c);
  a = _mm512_unpacklo_epi64(x, y);
  b = _mm512_unpackhi_epi64(x, y);
  inverse_butterfly(a, b, w.t2, c);
  x = permute2(a, p.t4_t2_first, b);
  y = permute2(a, p.t4_t2_second, b);
  inverse_butterfly(x, y, w.t4, c);
  a = permute2(x, p.low_halves, y);
  b = permute2(x, p.high_halves, y);
  if constexpr (kLast) {
    inverse_butterfly_last(a, b, inv_n, inv_n_root, c);
  } else {
    inverse_butterfly(a, b, w.t8, c);
  }
  store(v, a);
  store(v + 8, b);
}

// One forward stage (m groups of half-length t >= 16), two vectors per step.
void forward_radix2(uint64_t* values, uint64_t m, uint64_t t, const NttTableData& table,
                    const Constants& c) {
  for (uint64_t i = 0; i < m; ++i) {
    const Twiddle w = broadcast_twiddle(table.roots[m + i], table.roots_shoup[m + i]);
    uint64_t* x = values + 2 * i * t;
    uint64_t* y = x + t;
    for (uint64_t j = 0; j < t; j += 16) {
      __m512i x0 = load(x + j), x1 = load(x + j + 8);
      __m512i y0 = load(y + j), y1 = load(y + j + 8);
      forward_butterfly(x0, y0, w, c);
      forward_butterfly(x1, y1, w, c);
      store(x + j, x0);
      store(x + j + 8, x1);
      store(y + j, y0);
      store(y + j + 8, y1);
    }
  }
}

// Forward stages (m, t) and (2m, t/2) in one pass, t >= 32: each group of 2t
// values is split in quarters q0..q3; stage one pairs (q0, q2), (q1, q3), stage
// two (q0, q1), (q2, q3).
void forward_radix4(uint64_t* values, uint64_t m, uint64_t t, const NttTableData& table,
                    const Constants& c) {
  const uint64_t h = t / 2;
  for (uint64_t i = 0; i < m; ++i) {
    const Twiddle w1 = broadcast_twiddle(table.roots[m + i], table.roots_shoup[m + i]);
    const Twiddle w2 =
        broadcast_twiddle(table.roots[2 * m + 2 * i], table.roots_shoup[2 * m + 2 * i]);
    const Twiddle w3 =
        broadcast_twiddle(table.roots[2 * m + 2 * i + 1], table.roots_shoup[2 * m + 2 * i + 1]);
    uint64_t* p0 = values + 2 * i * t;
    uint64_t* p1 = p0 + h;
    uint64_t* p2 = p0 + t;
    uint64_t* p3 = p2 + h;
    for (uint64_t j = 0; j < h; j += 8) {
      __m512i x0 = load(p0 + j), x1 = load(p1 + j), x2 = load(p2 + j), x3 = load(p3 + j);
      forward_butterfly(x0, x2, w1, c);
      forward_butterfly(x1, x3, w1, c);
      forward_butterfly(x0, x1, w2, c);
      forward_butterfly(x2, x3, w3, c);
      store(p0 + j, x0);
      store(p1 + j, x1);
      store(p2 + j, x2);
      store(p3 + j, x3);
    }
  }
}

// The four smallest forward stages over all blocks, two blocks per step.
void forward_last4(uint64_t* values, const NttTableData& table, const Constants& c) {
  const uint64_t n = table.degree;
  const Permutes p = make_permutes();
  BlockTwiddles first, second;
  if (n == 16) {
    block_twiddles(table.roots, table.roots_shoup, n, 0, p, false, first, second);
    forward_block(values, first, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 2) {
    block_twiddles(table.roots, table.roots_shoup, n, b, p, true, first, second);
    forward_block(values + 16 * b, first, p, c);
    forward_block(values + 16 * b + 16, second, p, c);
  }
}

// The four smallest inverse stages over all blocks, two blocks per step.
void inverse_first4(uint64_t* values, const NttTableData& table, const Twiddle& inv_n,
                    const Twiddle& inv_n_root, const Constants& c) {
  const uint64_t n = table.degree;
  const Permutes p = make_permutes();
  BlockTwiddles first, second;
  if (n == 16) {
    block_twiddles(table.inv_roots, table.inv_roots_shoup, n, 0, p, false, first, second);
    inverse_block<true>(values, first, inv_n, inv_n_root, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 2) {
    block_twiddles(table.inv_roots, table.inv_roots_shoup, n, b, p, true, first, second);
    inverse_block<false>(values + 16 * b, first, inv_n, inv_n_root, p, c);
    inverse_block<false>(values + 16 * b + 16, second, inv_n, inv_n_root, p, c);
  }
}

// One inverse stage (m groups of half-length t >= 16); kLast: m = 1, with 1/N.
template <bool kLast>
void inverse_radix2(uint64_t* values, uint64_t m, uint64_t t, const NttTableData& table,
                    const Twiddle& inv_n, const Twiddle& inv_n_root, const Constants& c) {
  for (uint64_t i = 0; i < m; ++i) {
    const Twiddle w = broadcast_twiddle(table.inv_roots[m + i], table.inv_roots_shoup[m + i]);
    uint64_t* x = values + 2 * i * t;
    uint64_t* y = x + t;
    for (uint64_t j = 0; j < t; j += 16) {
      __m512i x0 = load(x + j), x1 = load(x + j + 8);
      __m512i y0 = load(y + j), y1 = load(y + j + 8);
      if constexpr (kLast) {
        inverse_butterfly_last(x0, y0, inv_n, inv_n_root, c);
        inverse_butterfly_last(x1, y1, inv_n, inv_n_root, c);
      } else {
        inverse_butterfly(x0, y0, w, c);
        inverse_butterfly(x1, y1, w, c);
      }
      store(x + j, x0);
      store(x + j + 8, x1);
      store(y + j, y0);
      store(y + j + 8, y1);
    }
  }
}

// Inverse stages (m, t) and (m/2, 2t) in one pass, t >= 16: each group of 4t
// values is split in quarters q0..q3; stage one pairs (q0, q1), (q2, q3), stage
// two (q0, q2), (q1, q3). kLast: m = 2, and the second stage takes 1/N.
template <bool kLast>
void inverse_radix4(uint64_t* values, uint64_t m, uint64_t t, const NttTableData& table,
                    const Twiddle& inv_n, const Twiddle& inv_n_root, const Constants& c) {
  for (uint64_t i = 0; i < m / 2; ++i) {
    const Twiddle w0 =
        broadcast_twiddle(table.inv_roots[m + 2 * i], table.inv_roots_shoup[m + 2 * i]);
    const Twiddle w1 =
        broadcast_twiddle(table.inv_roots[m + 2 * i + 1], table.inv_roots_shoup[m + 2 * i + 1]);
    const Twiddle w2 =
        broadcast_twiddle(table.inv_roots[m / 2 + i], table.inv_roots_shoup[m / 2 + i]);
    uint64_t* p0 = values + 4 * i * t;
    uint64_t* p1 = p0 + t;
    uint64_t* p2 = p1 + t;
    uint64_t* p3 = p2 + t;
    for (uint64_t j = 0; j < t; j += 8) {
      __m512i x0 = load(p0 + j), x1 = load(p1 + j), x2 = load(p2 + j), x3 = load(p3 + j);
      inverse_butterfly(x0, x1, w0, c);
      inverse_butterfly(x2, x3, w1, c);
      if constexpr (kLast) {
        inverse_butterfly_last(x0, x2, inv_n, inv_n_root, c);
        inverse_butterfly_last(x1, x3, inv_n, inv_n_root, c);
      } else {
        inverse_butterfly(x0, x2, w2, c);
        inverse_butterfly(x1, x3, w2, c);
      }
      store(p0 + j, x0);
      store(p1 + j, x1);
      store(p2 + j, x2);
      store(p3 + j, x3);
    }
  }
}

Constants make_constants(uint64_t q) {
  return {set1(q), set1(2 * q), set1(4 * q)};
}

}  // namespace

void ntt_forward(uint64_t* values, const NttTableData& table) {
  const uint64_t n = table.degree;
  if (n < 16) {
    scalar::ntt_forward(values, table);
    return;
  }
  const Constants c = make_constants(table.modulus.value);
  // Stages with t >= 16 (log2(N) - 4 of them): an odd one out first, then pairs.
  uint64_t m = 1, t = n / 2;
  if (((table.log_degree - 4) & 1) != 0) {
    forward_radix2(values, m, t, table, c);
    m = 2;
    t = n / 4;
  }
  for (; t > 8; m *= 4, t /= 4)
    forward_radix4(values, m, t, table, c);
  forward_last4(values, table, c);
}

void ntt_inverse(uint64_t* values, const NttTableData& table) {
  const uint64_t n = table.degree;
  if (n < 16) {
    scalar::ntt_inverse(values, table);
    return;
  }
  const Constants c = make_constants(table.modulus.value);
  const Twiddle inv_n = broadcast_twiddle(table.inv_degree, table.inv_degree_shoup);
  const Twiddle inv_n_root = broadcast_twiddle(table.inv_degree_root, table.inv_degree_root_shoup);
  inverse_first4(values, table, inv_n, inv_n_root, c);
  // Stages with t >= 16 (stage t has m = N / 2t groups): an odd one out first,
  // then pairs; whichever pass contains m = 1 applies 1/N.
  uint64_t m = n / 32, t = 16;
  if (((table.log_degree - 4) & 1) != 0) {
    if (m == 1) {
      inverse_radix2<true>(values, m, t, table, inv_n, inv_n_root, c);
    } else {
      inverse_radix2<false>(values, m, t, table, inv_n, inv_n_root, c);
    }
    m /= 2;
    t *= 2;
  }
  for (; m > 1; m /= 4, t *= 4) {
    if (m == 2) {
      inverse_radix4<true>(values, m, t, table, inv_n, inv_n_root, c);
    } else {
      inverse_radix4<false>(values, m, t, table, inv_n, inv_n_root, c);
    }
  }
}

}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
