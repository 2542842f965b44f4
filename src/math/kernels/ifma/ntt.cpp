// AVX512-IFMA52 negacyclic NTT on 8 x 64-bit lanes, for q < 2^50 (the
// dispatcher sends larger moduli to the avx512 level; this file also falls
// back to it when the 52-bit tables are absent).
//
// Same schedule as avx512/ntt.cpp: stages with half-length t >= 16 two at a
// time (radix-4 passes, one radix-2 pass for an odd stage out), then t = 8, 4,
// 2, 1 on 16-value blocks held in two registers, with one two-source permute
// per register between stages. The butterflies use 52-bit Shoup constants
// floor(W 2^52 / q) and the IFMA multiply-adds, which read the low 52 bits of
// their operands, so every lazy value must stay below 2^52:
//  - W*y mod q for y < 2^52: Q = madd52hi(y, W') is at most 1 short, so
//    r = W y - Q q is in [0, 2q) < 2^52 and equals the low 52 bits of
//    lo52(W y) + lo52(Q (2^52 - q)) (one mask drops the carry into bit 52).
//  - forward: values in [0, 4q) (4q < 2^52): X is brought to [0, 2q),
//    X + T and X - T + 2q are in [0, 4q); the scalar ranges.
//  - inverse: values in [0, 2q): X + Y is brought back to [0, 2q) and
//    W*(X - Y + 2q) (an operand below 4q) is in [0, 2q).
// Outputs are fully reduced to [0, q), equal to the scalar ones bit for bit.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_IFMA_NAMESPACE {
namespace {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;

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

// A twiddle W (per lane) with its 52-bit Shoup constant floor(W 2^52 / q).
struct Twiddle {
  __m512i w;
  __m512i shoup;
};

inline Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) {
  return {set1(w), set1(shoup)};
}

struct Constants {
  __m512i q, two_q, neg_q, mask52;  // neg_q = 2^52 - q
};

// W*y mod q in [0, 2q) for y < 2^52 (see the header comment).
inline __m512i mul_shoup_lazy(__m512i y, const Twiddle& w, const Constants& c) {
  const __m512i quotient = _mm512_madd52hi_epu64(_mm512_setzero_si512(), y, w.shoup);
  const __m512i product = _mm512_madd52lo_epu64(_mm512_setzero_si512(), y, w.w);
  return _mm512_and_si512(_mm512_madd52lo_epu64(product, quotient, c.neg_q), c.mask52);
}

// x in [0, 2 bound) -> [0, bound): if x < bound, x - bound wraps above x.
inline __m512i reduce_once(__m512i x, __m512i bound) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, bound));
}

// Forward (Cooley-Tukey) butterfly: x, y in [0, 4q) -> x + W y, x - W y in [0, 4q).
inline void forward_butterfly(__m512i& x, __m512i& y, const Twiddle& w, const Constants& c) {
  const __m512i xr = reduce_once(x, c.two_q);  // [0, 2q)
  const __m512i t = mul_shoup_lazy(y, w, c);   // [0, 2q)
  x = _mm512_add_epi64(xr, t);
  y = _mm512_sub_epi64(_mm512_add_epi64(xr, c.two_q), t);
}

// Inverse (Gentleman-Sande) butterfly: x, y in [0, 2q) -> x + y, W (x - y) in [0, 2q).
inline void inverse_butterfly(__m512i& x, __m512i& y, const Twiddle& w, const Constants& c) {
  const __m512i sum = _mm512_add_epi64(x, y);                              // [0, 4q)
  const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.two_q), y);  // (0, 4q)
  x = reduce_once(sum, c.two_q);
  y = mul_shoup_lazy(diff, w, c);
}

// Last inverse stage (m = 1) with 1/N folded in: the products take the
// unreduced sum and difference (< 4q < 2^52) and land in [0, 2q), then [0, q).
inline void inverse_butterfly_last(__m512i& x, __m512i& y, const Twiddle& inv_n,
                                   const Twiddle& inv_n_root, const Constants& c) {
  const __m512i sum = _mm512_add_epi64(x, y);
  const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.two_q), y);
  x = reduce_once(mul_shoup_lazy(sum, inv_n, c), c.q);
  y = reduce_once(mul_shoup_lazy(diff, inv_n_root, c), c.q);
}

inline __m512i lane_index(long long i0, long long i1, long long i2, long long i3, long long i4,
                          long long i5, long long i6, long long i7) {
  return _mm512_setr_epi64(i0, i1, i2, i3, i4, i5, i6, i7);
}

// Lane permutations of the 16-value blocks. Writing e0..e15 for the block:
//  natural:  {e0..e7}, {e8..e15}
//  t = 4:    {e0-e3, e8-e11}, {e4-e7, e12-e15}               (pairs e_k, e_k+4)
//  t = 2:    {e0,e1,e4,e5,e8,e9,e12,e13}, {e2,e3,e6,e7,...}  (pairs e_k, e_k+2)
//  t = 1:    {e0,e2,...,e14}, {e1,e3,...,e15}                (pairs e_k, e_k+1)
// t = 2 <-> t = 1 is unpacklo/unpackhi; the other steps use vpermt2q.
struct Permutes {
  __m512i low_halves, high_halves;          // natural <-> t = 4 (both directions)
  __m512i t4_t2_first, t4_t2_second;        // t = 4 <-> t = 2 (an involution)
  __m512i interleave_low, interleave_high;  // t = 1 -> natural
  __m512i evens, odds;                      // natural -> t = 1
  __m512i dup4_first, dup4_second;          // {w0 x4, w1 x4}, {w2 x4, w3 x4}
  __m512i dup2_first, dup2_second;          // {w0,w0,...,w3,w3}, {w4,w4,...,w7,w7}
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

// Twiddles for blocks b and b + 1 (b even, or b = 0 when N = 16). Reads stay
// inside the table: the furthest is roots[N/2 + 8b + 15] <= roots[N - 1]
// (N >= 32), or roots[15] for N = 16 (single block).
inline void block_twiddles(const uint64_t* roots, const uint64_t* shoup, uint64_t n, uint64_t b,
                           const Permutes& p, bool two_blocks, BlockTwiddles& first,
                           BlockTwiddles& second) {
  const uint64_t i8 = n / 16 + b, i4 = n / 8 + 2 * b, i2 = n / 4 + 4 * b, i1 = n / 2 + 8 * b;
  const __m512i w4 = load(roots + i4), s4 = load(shoup + i4);
  const __m512i w2 = load(roots + i2), s2 = load(shoup + i2);
  first.t8 = broadcast_twiddle(roots[i8], shoup[i8]);
  first.t4 = {_mm512_permutexvar_epi64(p.dup4_first, w4),
              _mm512_permutexvar_epi64(p.dup4_first, s4)};
  first.t2 = {_mm512_permutexvar_epi64(p.dup2_first, w2),
              _mm512_permutexvar_epi64(p.dup2_first, s2)};
  first.t1 = {load(roots + i1), load(shoup + i1)};
  if (two_blocks) {
    second.t8 = broadcast_twiddle(roots[i8 + 1], shoup[i8 + 1]);
    second.t4 = {_mm512_permutexvar_epi64(p.dup4_second, w4),
                 _mm512_permutexvar_epi64(p.dup4_second, s4)};
    second.t2 = {_mm512_permutexvar_epi64(p.dup2_second, w2),
                 _mm512_permutexvar_epi64(p.dup2_second, s2)};
    second.t1 = {load(roots + i1 + 8), load(shoup + i1 + 8)};
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
  x = reduce_once(reduce_once(x, c.two_q), c.q);
  y = reduce_once(reduce_once(y, c.two_q), c.q);
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
    const Twiddle w = broadcast_twiddle(table.roots[m + i], table.roots_shoup52[m + i]);
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
    const Twiddle w1 = broadcast_twiddle(table.roots[m + i], table.roots_shoup52[m + i]);
    const Twiddle w2 =
        broadcast_twiddle(table.roots[2 * m + 2 * i], table.roots_shoup52[2 * m + 2 * i]);
    const Twiddle w3 =
        broadcast_twiddle(table.roots[2 * m + 2 * i + 1], table.roots_shoup52[2 * m + 2 * i + 1]);
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
    block_twiddles(table.roots, table.roots_shoup52, n, 0, p, false, first, second);
    forward_block(values, first, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 2) {
    block_twiddles(table.roots, table.roots_shoup52, n, b, p, true, first, second);
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
    block_twiddles(table.inv_roots, table.inv_roots_shoup52, n, 0, p, false, first, second);
    inverse_block<true>(values, first, inv_n, inv_n_root, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 2) {
    block_twiddles(table.inv_roots, table.inv_roots_shoup52, n, b, p, true, first, second);
    inverse_block<false>(values + 16 * b, first, inv_n, inv_n_root, p, c);
    inverse_block<false>(values + 16 * b + 16, second, inv_n, inv_n_root, p, c);
  }
}

// One inverse stage (m groups of half-length t >= 16); kLast: m = 1, with 1/N.
template <bool kLast>
void inverse_radix2(uint64_t* values, uint64_t m, uint64_t t, const NttTableData& table,
                    const Twiddle& inv_n, const Twiddle& inv_n_root, const Constants& c) {
  for (uint64_t i = 0; i < m; ++i) {
    const Twiddle w = broadcast_twiddle(table.inv_roots[m + i], table.inv_roots_shoup52[m + i]);
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
        broadcast_twiddle(table.inv_roots[m + 2 * i], table.inv_roots_shoup52[m + 2 * i]);
    const Twiddle w1 =
        broadcast_twiddle(table.inv_roots[m + 2 * i + 1], table.inv_roots_shoup52[m + 2 * i + 1]);
    const Twiddle w2 =
        broadcast_twiddle(table.inv_roots[m / 2 + i], table.inv_roots_shoup52[m / 2 + i]);
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
  return {set1(q), set1(2 * q), set1((uint64_t{1} << 52) - q), set1(kMask52)};
}

}  // namespace

void ntt_forward(uint64_t* values, const NttTableData& table) {
  if (table.roots_shoup52 == nullptr) {  // q >= 2^50: no 52-bit tables
    HEFT_AVX512_NAMESPACE::ntt_forward(values, table);
    return;
  }
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
  if (table.inv_roots_shoup52 == nullptr) {  // q >= 2^50: no 52-bit tables
    HEFT_AVX512_NAMESPACE::ntt_inverse(values, table);
    return;
  }
  const uint64_t n = table.degree;
  if (n < 16) {
    scalar::ntt_inverse(values, table);
    return;
  }
  const Constants c = make_constants(table.modulus.value);
  const Twiddle inv_n = broadcast_twiddle(table.inv_degree, table.inv_degree_shoup52);
  const Twiddle inv_n_root =
      broadcast_twiddle(table.inv_degree_root, table.inv_degree_root_shoup52);
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

}  // namespace heft::math::kernels::HEFT_IFMA_NAMESPACE
