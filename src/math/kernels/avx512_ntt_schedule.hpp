// The negacyclic NTT schedule shared by the avx512 and ifma kernel files, on
// 8 x 64-bit lanes. The two levels differ only in their butterfly arithmetic
// (64-bit Shoup products against 52-bit IFMA ones), so the schedule is written
// once here as templates over an arithmetic policy, and each ntt.cpp supplies
// its policy and the two exported functions.
//
// The transform is the one of scalar/ntt.cpp, organised for vectors:
//  - Stages whose half-length t is at least 16 run two at a time (radix-4
//    passes): four vectors are loaded, go through two butterfly levels and are
//    stored, which halves the memory traffic for large N. An odd stage out runs
//    as a plain radix-2 pass.
//  - The four smallest stages (t = 8, 4, 2, 1) run on blocks of 16 values kept
//    in two registers: t = 8 pairs the two registers directly, the others pair
//    lanes after one two-source permute per register and stage. Twiddles of
//    t = 1 are read straight from the table in the order their lanes need.
//    Four blocks go through these stages together (forward_blocks,
//    inverse_blocks): one block is a chain of dependent butterflies and
//    permutes, and four independent chains made both transforms 10-20%
//    faster on Zen 5 than two blocks one after the other (eight spill
//    registers and are slower).
//  - N < 16 goes to the scalar kernels.
//  - Out of place: the first pass reads the input array and writes the
//    output, the later ones work in the output (input == output is in place).
//
// An arithmetic policy Arith provides:
//  - Twiddle (a per-lane twiddle with its Shoup constant) and Constants (the
//    per-modulus vectors), built by make_twiddle(w, shoup) from vectors,
//    broadcast_twiddle(w, shoup) from scalars and make_constants(q);
//  - forward_table(table) / inverse_table(table): the roots with the Shoup
//    table it reads, and inverse_scale(table): the 1/N twiddles;
//  - forward_butterfly, inverse_butterfly and inverse_butterfly_last (the last
//    inverse stage with 1/N folded in, outputs in [0, q)), which keep their
//    own lazy ranges; forward_butterfly_second, which the schedule calls for
//    the second stage of every pair (radix-4 passes; t = 4 and t = 1), always
//    after a forward_butterfly stage, so a policy may leave its input
//    unreduced there (the same function where it does not);
//  - reduce_forward_output: the forward lazy range -> [0, q).
//
// These files are compiled with AVX-512 flags while the rest of the library
// is baseline x86-64. Everything here is in an anonymous namespace, so it and
// every template instantiated from it have internal linkage: no AVX-512 code
// can be emitted as a weak symbol that the linker might pick for a baseline
// caller. For the same reason this header includes nothing but the two kernel
// headers and <cstdint>.
#pragma once

#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {
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

// x in [0, 2 bound) -> [0, bound): if x < bound, x - bound wraps above x.
inline __m512i reduce_once(__m512i x, __m512i bound) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, bound));
}

// A root table with the Shoup table the policy reads beside it.
struct TwiddleTable {
  const uint64_t* roots;
  const uint64_t* shoup;
};

template <class Arith>
inline typename Arith::Twiddle broadcast_at(const TwiddleTable& table, uint64_t k) {
  return Arith::broadcast_twiddle(table.roots[k], table.shoup[k]);
}

// 1/N and 1/N times inv_roots[1], merged into the last inverse stage.
template <class Arith>
struct InverseScale {
  typename Arith::Twiddle inv_n, inv_n_root;
};

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
template <class Arith>
struct BlockTwiddles {
  typename Arith::Twiddle t8, t4, t2, t1;
};

// Twiddles for blocks b and b + 1 (b even, or b = 0 when N = 16) of the
// forward or inverse table. Reads stay inside the table: the furthest is
// roots[N/2 + 8b + 15] <= roots[N - 1] (N >= 32), or roots[15] for N = 16
// (single block).
template <class Arith>
inline void block_twiddles(const TwiddleTable& table, uint64_t n, uint64_t b, const Permutes& p,
                           bool two_blocks, BlockTwiddles<Arith>& first,
                           BlockTwiddles<Arith>& second) {
  const uint64_t* roots = table.roots;
  const uint64_t* shoup = table.shoup;
  const uint64_t i8 = n / 16 + b, i4 = n / 8 + 2 * b, i2 = n / 4 + 4 * b, i1 = n / 2 + 8 * b;
  const __m512i w4 = load(roots + i4), s4 = load(shoup + i4);
  const __m512i w2 = load(roots + i2), s2 = load(shoup + i2);
  first.t8 = broadcast_at<Arith>(table, i8);
  first.t4 = Arith::make_twiddle(_mm512_permutexvar_epi64(p.dup4_first, w4),
                                 _mm512_permutexvar_epi64(p.dup4_first, s4));
  first.t2 = Arith::make_twiddle(_mm512_permutexvar_epi64(p.dup2_first, w2),
                                 _mm512_permutexvar_epi64(p.dup2_first, s2));
  first.t1 = Arith::make_twiddle(load(roots + i1), load(shoup + i1));
  if (two_blocks) {
    second.t8 = broadcast_at<Arith>(table, i8 + 1);
    second.t4 = Arith::make_twiddle(_mm512_permutexvar_epi64(p.dup4_second, w4),
                                    _mm512_permutexvar_epi64(p.dup4_second, s4));
    second.t2 = Arith::make_twiddle(_mm512_permutexvar_epi64(p.dup2_second, w2),
                                    _mm512_permutexvar_epi64(p.dup2_second, s2));
    second.t1 = Arith::make_twiddle(load(roots + i1 + 8), load(shoup + i1 + 8));
  }
}

// Forward stages t = 8, 4, 2, 1 on kBlocks blocks of 16 values, then the
// final reduction to [0, q). Block k is read at in + 16 k and written at
// v + 16 k. The blocks go through each stage together: a block alone is one
// long dependency chain (four butterflies with permutes between them), and
// interleaving them gives the out-of-order core independent work.
template <class Arith, int kBlocks>
inline void forward_blocks(uint64_t* v, const uint64_t* in, const BlockTwiddles<Arith>* w,
                           const Permutes& p, const typename Arith::Constants& c) {
  __m512i a[kBlocks], b[kBlocks], x[kBlocks], y[kBlocks];
  for (int k = 0; k < kBlocks; ++k) {
    a[k] = load(in + 16 * k);
    b[k] = load(in + 16 * k + 8);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::forward_butterfly(a[k], b[k], w[k].t8, c);
    x[k] = permute2(a[k], p.low_halves, b[k]);
    y[k] = permute2(a[k], p.high_halves, b[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::forward_butterfly_second(x[k], y[k], w[k].t4, c);
    a[k] = permute2(x[k], p.t4_t2_first, y[k]);
    b[k] = permute2(x[k], p.t4_t2_second, y[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::forward_butterfly(a[k], b[k], w[k].t2, c);
    x[k] = _mm512_unpacklo_epi64(a[k], b[k]);
    y[k] = _mm512_unpackhi_epi64(a[k], b[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::forward_butterfly_second(x[k], y[k], w[k].t1, c);
    x[k] = Arith::reduce_forward_output(x[k], c);
    y[k] = Arith::reduce_forward_output(y[k], c);
    store(v + 16 * k, permute2(x[k], p.interleave_low, y[k]));
    store(v + 16 * k + 8, permute2(x[k], p.interleave_high, y[k]));
  }
}

// Inverse stages t = 1, 2, 4, 8 on kBlocks blocks of 16 values, interleaved
// as in forward_blocks. When N = 16 the t = 8 stage is the last one and
// takes the 1/N factor (kLast). Block k is read at in + 16 k and written at
// v + 16 k.
template <class Arith, int kBlocks, bool kLast>
inline void inverse_blocks(uint64_t* v, const uint64_t* in, const BlockTwiddles<Arith>* w,
                           const InverseScale<Arith>& scale, const Permutes& p,
                           const typename Arith::Constants& c) {
  __m512i a[kBlocks], b[kBlocks], x[kBlocks], y[kBlocks];
  for (int k = 0; k < kBlocks; ++k) {
    a[k] = load(in + 16 * k);
    b[k] = load(in + 16 * k + 8);
    x[k] = permute2(a[k], p.evens, b[k]);
    y[k] = permute2(a[k], p.odds, b[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::inverse_butterfly(x[k], y[k], w[k].t1, c);
    a[k] = _mm512_unpacklo_epi64(x[k], y[k]);
    b[k] = _mm512_unpackhi_epi64(x[k], y[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::inverse_butterfly(a[k], b[k], w[k].t2, c);
    x[k] = permute2(a[k], p.t4_t2_first, b[k]);
    y[k] = permute2(a[k], p.t4_t2_second, b[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    Arith::inverse_butterfly(x[k], y[k], w[k].t4, c);
    a[k] = permute2(x[k], p.low_halves, y[k]);
    b[k] = permute2(x[k], p.high_halves, y[k]);
  }
  for (int k = 0; k < kBlocks; ++k) {
    if constexpr (kLast) {
      Arith::inverse_butterfly_last(a[k], b[k], scale.inv_n, scale.inv_n_root, c);
    } else {
      Arith::inverse_butterfly(a[k], b[k], w[k].t8, c);
    }
    store(v + 16 * k, a[k]);
    store(v + 16 * k + 8, b[k]);
  }
}

// Runs butterfly(x, y) over the vectors of two half-groups x[0, t), y[0, t),
// two vectors per step, reading them at x_in, y_in.
template <class Butterfly>
inline void for_each_pair(uint64_t* x, uint64_t* y, const uint64_t* x_in, const uint64_t* y_in,
                          uint64_t t, const Butterfly& butterfly) {
  for (uint64_t j = 0; j < t; j += 16) {
    __m512i x0 = load(x_in + j), x1 = load(x_in + j + 8);
    __m512i y0 = load(y_in + j), y1 = load(y_in + j + 8);
    butterfly(x0, y0);
    butterfly(x1, y1);
    store(x + j, x0);
    store(x + j + 8, x1);
    store(y + j, y0);
    store(y + j + 8, y1);
  }
}

// Runs butterflies(x0, x1, x2, x3) over the vectors of four consecutive
// quarters p0 + k h [0, h), k < 4, one vector of each per step, reading them
// from the same places in `in`.
template <class Butterflies>
inline void for_each_quad(uint64_t* p0, const uint64_t* in, uint64_t h,
                          const Butterflies& butterflies) {
  uint64_t* p1 = p0 + h;
  uint64_t* p2 = p1 + h;
  uint64_t* p3 = p2 + h;
  for (uint64_t j = 0; j < h; j += 16) {
    __m512i x0 = load(in + j), x1 = load(in + h + j), x2 = load(in + 2 * h + j),
            x3 = load(in + 3 * h + j);
    __m512i y0 = load(in + j + 8), y1 = load(in + h + j + 8), y2 = load(in + 2 * h + j + 8),
            y3 = load(in + 3 * h + j + 8);
    butterflies(x0, x1, x2, x3);
    butterflies(y0, y1, y2, y3);
    store(p0 + j, x0);
    store(p1 + j, x1);
    store(p2 + j, x2);
    store(p3 + j, x3);
    store(p0 + j + 8, y0);
    store(p1 + j + 8, y1);
    store(p2 + j + 8, y2);
    store(p3 + j + 8, y3);
  }
}

// One forward stage (m groups of half-length t >= 16), reading `input`.
template <class Arith>
void forward_radix2(uint64_t* values, const uint64_t* input, uint64_t m, uint64_t t,
                    const TwiddleTable& table, const typename Arith::Constants& c) {
  for (uint64_t i = 0; i < m; ++i) {
    const auto w = broadcast_at<Arith>(table, m + i);
    uint64_t* x = values + 2 * i * t;
    const uint64_t* x_in = input + 2 * i * t;
    for_each_pair(x, x + t, x_in, x_in + t, t,
                  [&](__m512i& x0, __m512i& y0) { Arith::forward_butterfly(x0, y0, w, c); });
  }
}

// Forward stages (m, t) and (2m, t/2) in one pass, t >= 32: each group of 2t
// values is split in quarters q0..q3; stage one pairs (q0, q2), (q1, q3), stage
// two (q0, q1), (q2, q3). Reads `input`.
template <class Arith>
void forward_radix4(uint64_t* values, const uint64_t* input, uint64_t m, uint64_t t,
                    const TwiddleTable& table, const typename Arith::Constants& c) {
  const uint64_t h = t / 2;
  for (uint64_t i = 0; i < m; ++i) {
    const auto w1 = broadcast_at<Arith>(table, m + i);
    const auto w2 = broadcast_at<Arith>(table, 2 * m + 2 * i);
    const auto w3 = broadcast_at<Arith>(table, 2 * m + 2 * i + 1);
    for_each_quad(values + 2 * i * t, input + 2 * i * t, h,
                  [&](__m512i& x0, __m512i& x1, __m512i& x2, __m512i& x3) {
                    Arith::forward_butterfly(x0, x2, w1, c);
                    Arith::forward_butterfly(x1, x3, w1, c);
                    Arith::forward_butterfly_second(x0, x1, w2, c);
                    Arith::forward_butterfly_second(x2, x3, w3, c);
                  });
  }
}

// The four smallest forward stages over all blocks, two blocks per step,
// reading `input`.
template <class Arith>
void forward_last4(uint64_t* values, const uint64_t* input, uint64_t n, const TwiddleTable& table,
                   const typename Arith::Constants& c) {
  const Permutes p = make_permutes();
  BlockTwiddles<Arith> w[4];
  if (n == 16) {
    block_twiddles(table, n, 0, p, false, w[0], w[1]);
    forward_blocks<Arith, 1>(values, input, w, p, c);
    return;
  }
  if (n == 32) {
    block_twiddles(table, n, 0, p, true, w[0], w[1]);
    forward_blocks<Arith, 2>(values, input, w, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 4) {
    block_twiddles(table, n, b, p, true, w[0], w[1]);
    block_twiddles(table, n, b + 2, p, true, w[2], w[3]);
    forward_blocks<Arith, 4>(values + 16 * b, input + 16 * b, w, p, c);
  }
}

// The four smallest inverse stages over all blocks, two blocks per step,
// reading `input`.
template <class Arith>
void inverse_first4(uint64_t* values, const uint64_t* input, uint64_t n, const TwiddleTable& table,
                    const InverseScale<Arith>& scale, const typename Arith::Constants& c) {
  const Permutes p = make_permutes();
  BlockTwiddles<Arith> w[4];
  if (n == 16) {
    block_twiddles(table, n, 0, p, false, w[0], w[1]);
    inverse_blocks<Arith, 1, true>(values, input, w, scale, p, c);
    return;
  }
  if (n == 32) {
    block_twiddles(table, n, 0, p, true, w[0], w[1]);
    inverse_blocks<Arith, 2, false>(values, input, w, scale, p, c);
    return;
  }
  for (uint64_t b = 0; b < n / 16; b += 4) {
    block_twiddles(table, n, b, p, true, w[0], w[1]);
    block_twiddles(table, n, b + 2, p, true, w[2], w[3]);
    inverse_blocks<Arith, 4, false>(values + 16 * b, input + 16 * b, w, scale, p, c);
  }
}

// One inverse stage (m groups of half-length t >= 16); kLast: m = 1, with 1/N.
template <class Arith, bool kLast>
void inverse_radix2(uint64_t* values, uint64_t m, uint64_t t, const TwiddleTable& table,
                    const InverseScale<Arith>& scale, const typename Arith::Constants& c) {
  for (uint64_t i = 0; i < m; ++i) {
    const auto w = broadcast_at<Arith>(table, m + i);
    uint64_t* x = values + 2 * i * t;
    for_each_pair(x, x + t, x, x + t, t, [&](__m512i& x0, __m512i& y0) {
      if constexpr (kLast) {
        Arith::inverse_butterfly_last(x0, y0, scale.inv_n, scale.inv_n_root, c);
      } else {
        Arith::inverse_butterfly(x0, y0, w, c);
      }
    });
  }
}

// Inverse stages (m, t) and (m/2, 2t) in one pass, t >= 16: each group of 4t
// values is split in quarters q0..q3; stage one pairs (q0, q1), (q2, q3), stage
// two (q0, q2), (q1, q3). kLast: m = 2, and the second stage takes 1/N.
template <class Arith, bool kLast>
void inverse_radix4(uint64_t* values, uint64_t m, uint64_t t, const TwiddleTable& table,
                    const InverseScale<Arith>& scale, const typename Arith::Constants& c) {
  for (uint64_t i = 0; i < m / 2; ++i) {
    const auto w0 = broadcast_at<Arith>(table, m + 2 * i);
    const auto w1 = broadcast_at<Arith>(table, m + 2 * i + 1);
    const auto w2 = broadcast_at<Arith>(table, m / 2 + i);
    uint64_t* p0 = values + 4 * i * t;
    for_each_quad(p0, p0, t, [&](__m512i& x0, __m512i& x1, __m512i& x2, __m512i& x3) {
      Arith::inverse_butterfly(x0, x1, w0, c);
      Arith::inverse_butterfly(x2, x3, w1, c);
      if constexpr (kLast) {
        Arith::inverse_butterfly_last(x0, x2, scale.inv_n, scale.inv_n_root, c);
        Arith::inverse_butterfly_last(x1, x3, scale.inv_n, scale.inv_n_root, c);
      } else {
        Arith::inverse_butterfly(x0, x2, w2, c);
        Arith::inverse_butterfly(x1, x3, w2, c);
      }
    });
  }
}

// N < 16: the scalar transform, on a copy when out of place.
inline void copy_values(uint64_t* out, const uint64_t* in, uint64_t n) {
  if (out == in) return;
  for (uint64_t i = 0; i < n; ++i)
    out[i] = in[i];
}

// The forward NTT (see kernel_api.hpp) of `input` into `values` with the
// arithmetic of Arith.
template <class Arith>
void forward_ntt(uint64_t* values, const uint64_t* input, const NttTableData& table) {
  const uint64_t n = table.degree;
  if (n < 16) {
    copy_values(values, input, n);
    scalar::ntt_forward(values, table);
    return;
  }
  const typename Arith::Constants c = Arith::make_constants(table.modulus.value);
  const TwiddleTable roots = Arith::forward_table(table);
  // Stages with t >= 16 (log2(N) - 4 of them): an odd one out first, then
  // pairs. Whichever pass comes first reads `input`.
  const uint64_t* source = input;
  uint64_t m = 1, t = n / 2;
  if (((table.log_degree - 4) & 1) != 0) {
    forward_radix2<Arith>(values, source, m, t, roots, c);
    source = values;
    m = 2;
    t = n / 4;
  }
  for (; t > 8; m *= 4, t /= 4) {
    forward_radix4<Arith>(values, source, m, t, roots, c);
    source = values;
  }
  forward_last4<Arith>(values, source, n, roots, c);
}

// The inverse NTT (see kernel_api.hpp) of `input` into `values` with the
// arithmetic of Arith.
template <class Arith>
void inverse_ntt(uint64_t* values, const uint64_t* input, const NttTableData& table) {
  const uint64_t n = table.degree;
  if (n < 16) {
    copy_values(values, input, n);
    scalar::ntt_inverse(values, table);
    return;
  }
  const typename Arith::Constants c = Arith::make_constants(table.modulus.value);
  const TwiddleTable roots = Arith::inverse_table(table);
  const InverseScale<Arith> scale = Arith::inverse_scale(table);
  inverse_first4<Arith>(values, input, n, roots, scale, c);
  // Stages with t >= 16 (stage t has m = N / 2t groups): an odd one out first,
  // then pairs; whichever pass contains m = 1 applies 1/N.
  uint64_t m = n / 32, t = 16;
  if (((table.log_degree - 4) & 1) != 0) {
    if (m == 1) {
      inverse_radix2<Arith, true>(values, m, t, roots, scale, c);
    } else {
      inverse_radix2<Arith, false>(values, m, t, roots, scale, c);
    }
    m /= 2;
    t *= 2;
  }
  for (; m > 1; m /= 4, t *= 4) {
    if (m == 2) {
      inverse_radix4<Arith, true>(values, m, t, roots, scale, c);
    } else {
      inverse_radix4<Arith, false>(values, m, t, roots, scale, c);
    }
  }
}

}  // namespace
}  // namespace heft::math::kernels
