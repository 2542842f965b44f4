// The negacyclic NTT schedule shared by the avx512 and ifma kernel files, on
// 8 x 64-bit lanes. The two levels differ only in their butterfly arithmetic
// (64-bit Shoup products against 52-bit IFMA ones), so the schedule is written
// once here as templates over an arithmetic policy, and each ntt.cpp supplies
// its policy and the two exported functions.
//
// The transform is the one of scalar/ntt.cpp, organised for vectors:
//  - Stages whose half-length t is at least 64 run two at a time (radix-4
//    passes): four vectors are loaded, go through two butterfly levels and are
//    stored, which halves the memory traffic for large N. When their count is
//    odd, the one left over (t = 64) joins the superblock pass below, which
//    processes superblocks in pairs: a 128-value group's two halves are both
//    in registers there (one pass over memory fewer than a radix-2 pass).
//  - The six smallest stages (t = 32 down to 1) run on superblocks of 64
//    values, eight vectors held in registers as the rows of an 8 x 8 matrix.
//    Stages t = 32, 16, 8 pair whole rows. The matrix is then transposed, so
//    that row k holds position k of each 8-value group and t = 4, 2, 1 pair
//    whole rows too, with twiddles that vary per lane (one lane per group);
//    then it is transposed back. The twiddles of t = 2 and t = 1 come from
//    copies of the tables kept in the order the lanes need
//    (NttTableData::last_roots), one load per vector. Two 24-permute
//    transposes per 64 values replace one permute per vector and stage plus
//    the twiddle permutes of in-vector stages, and the six stages take one
//    pass over memory instead of two (a radix-4 pass, then a four-stage
//    in-vector pass).
//  - N < 64 goes to the scalar kernels.
//  - Out of place: the first pass reads the input array and writes the
//    output, the later ones work in the output (input == output is in place).
//    The shifted forward transform (ntt_forward_shifted_from) adds its
//    constant to each value as that first pass loads it (ShiftedLoad).
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
//    the second stage of every pair (radix-4 passes; t = 16, 4 and 1), always
//    after a forward_butterfly stage, so a policy may leave its input
//    unreduced there (the same function where it does not);
//  - reduce_forward_output: the forward lazy range -> [0, q).
// The butterflies must be declared HEFT_BUTTERFLY (forced inline), as
// transpose8 is here: when GCC once left the t = 64 stage's butterflies out
// of line (after a third policy was instantiated in avx512/ntt.cpp), the 16
// vectors of a superblock pair had to live in memory across the calls and
// the transform got much slower at every N; a semantically identical build
// with them forced inline did not (docs/performance-notes.md, NTT).
// Inlining decisions can move with any change to these files.
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
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {
namespace {

#define HEFT_BUTTERFLY [[gnu::always_inline]] static inline

inline __m512i permute2(__m512i a, __m512i index, __m512i b) {
  return _mm512_permutex2var_epi64(a, index, b);
}

// A root table with the Shoup table the policy reads beside it, and the same
// two for the last two stages in superblock order (NttTableData::last_roots).
struct TwiddleTable {
  const uint64_t* roots;
  const uint64_t* shoup;
  const uint64_t* last_roots;
  const uint64_t* last_shoup;
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

// Lane permutations for 8 x 8 transposes (lane_index lists the source lane of
// each output lane, 0-7 from the first operand and 8-15 from the second).
struct Permutes {
  __m512i low_halves, high_halves;    // {a0-a3, b0-b3}, {a4-a7, b4-b7}
  __m512i pairs_first, pairs_second;  // {a0,a1,b0,b1,a4,a5,b4,b5}, {a2,a3,b2,b3,a6,a7,b6,b7}
};

inline Permutes make_permutes() {
  return {lane_index(0, 1, 2, 3, 8, 9, 10, 11), lane_index(4, 5, 6, 7, 12, 13, 14, 15),
          lane_index(0, 1, 8, 9, 4, 5, 12, 13), lane_index(2, 3, 10, 11, 6, 7, 14, 15)};
}

// Transposes the 8 x 8 matrix of 64-bit values held in r[0..8) (row k in
// r[k]): three rounds of eight two-source permutes. Its own inverse.
[[gnu::always_inline]] inline void transpose8(__m512i r[8], const Permutes& p) {
  __m512i t[8], u[8];
  for (int k = 0; k < 4; ++k) {  // t[2k]: columns 0,2,4,6 of rows 2k, 2k+1; t[2k+1]: 1,3,5,7
    t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
  }
  for (int b = 0; b < 8; b += 4) {                            // rows b..b+3 of two columns each
    u[b] = permute2(t[b], p.pairs_first, t[b + 2]);           // columns 0, 4
    u[b + 1] = permute2(t[b], p.pairs_second, t[b + 2]);      // columns 2, 6
    u[b + 2] = permute2(t[b + 1], p.pairs_first, t[b + 3]);   // columns 1, 5
    u[b + 3] = permute2(t[b + 1], p.pairs_second, t[b + 3]);  // columns 3, 7
  }
  constexpr int kHolding[4] = {0, 2, 1, 3};  // u[kHolding[c]] holds columns c, c + 4
  for (int col = 0; col < 4; ++col) {
    const int k = kHolding[col];
    r[col] = permute2(u[k], p.low_halves, u[4 + k]);
    r[col + 4] = permute2(u[k], p.high_halves, u[4 + k]);
  }
}

// The twiddles of the stages t = 4, 2, 1 of transposed superblock s, where
// lane m of each vector serves the 8-value group 8s + m:
//  - t = 4: one twiddle for the row pairs (k, k + 4), roots[N/8 + 8s + m];
//  - t = 2: w[0] for the pairs (0, 2), (1, 3) and w[1] for (4, 6), (5, 7);
//  - t = 1: w[j] for the pair (2j, 2j + 1).
// The last two come from the tables in superblock order, one load each.
template <class Arith>
inline typename Arith::Twiddle transposed_twiddle_t4(const TwiddleTable& table, uint64_t n,
                                                     uint64_t s) {
  const uint64_t i4 = n / 8 + 8 * s;
  return Arith::make_twiddle(load(table.roots + i4), load(table.shoup + i4));
}

template <class Arith>
inline void transposed_twiddles_t2(const TwiddleTable& table, uint64_t s,
                                   typename Arith::Twiddle w[2]) {
  for (uint64_t h = 0; h < 2; ++h) {
    const uint64_t i = 16 * s + 8 * h;
    w[h] = Arith::make_twiddle(load(table.last_roots + i), load(table.last_shoup + i));
  }
}

template <class Arith>
inline void transposed_twiddles_t1(const TwiddleTable& table, uint64_t n, uint64_t s,
                                   typename Arith::Twiddle w[4]) {
  for (uint64_t j = 0; j < 4; ++j) {
    const uint64_t i = n / 4 + 32 * s + 8 * j;
    w[j] = Arith::make_twiddle(load(table.last_roots + i), load(table.last_shoup + i));
  }
}

// How a pass loads its input: as it is, or with a constant added to every
// coefficient (the first pass of a shifted forward transform).
struct PlainLoad {
  __m512i operator()(const uint64_t* p) const { return load(p); }
};
struct ShiftedLoad {
  __m512i shift;
  __m512i operator()(const uint64_t* p) const { return _mm512_add_epi64(load(p), shift); }
};

// The six smallest forward stages (t = 32 down to 1) on kSuper consecutive
// superblocks starting at superblock s (64 values each, read at in and
// written at v), then the final reduction to [0, q). Each stage runs over all
// the superblocks before the next: one superblock is a chain of dependent
// butterflies, and two independent chains keep the core busier (one at a time
// waits on its chain's latency; four at a time spill registers).
template <class Arith, int kSuper, bool kWithT64, class Load>
inline void forward_superblocks(uint64_t* v, const uint64_t* in, uint64_t n, uint64_t s,
                                const TwiddleTable& table, const Permutes& p,
                                const typename Arith::Constants& c, const Load& load_input) {
  static_assert(!kWithT64 || kSuper == 2, "t = 64 pairs the rows of two superblocks");
  __m512i r[kSuper][8];
  for (int b = 0; b < kSuper; ++b) {
    for (int k = 0; k < 8; ++k)
      r[b][k] = load_input(in + 64 * b + 8 * k);
  }
  if constexpr (kWithT64) {  // t = 64: group s / 2 of N / 128, row k of one with row k of the other
    const auto w = broadcast_at<Arith>(table, n / 128 + s / 2);
    for (int k = 0; k < 8; ++k)
      Arith::forward_butterfly(r[0][k], r[1][k], w, c);
  }
  for (int b = 0; b < kSuper; ++b) {  // t = 32: one group, rows (k, k + 4)
    const auto w = broadcast_at<Arith>(table, n / 64 + s + b);
    for (int k = 0; k < 4; ++k)
      Arith::forward_butterfly(r[b][k], r[b][k + 4], w, c);
  }
  for (int b = 0; b < kSuper; ++b) {  // t = 16: groups of rows 0-3, 4-7
    for (int g = 0; g < 2; ++g) {
      const auto w = broadcast_at<Arith>(table, n / 32 + 2 * (s + b) + g);
      Arith::forward_butterfly_second(r[b][4 * g], r[b][4 * g + 2], w, c);
      Arith::forward_butterfly_second(r[b][4 * g + 1], r[b][4 * g + 3], w, c);
    }
  }
  for (int b = 0; b < kSuper; ++b) {  // t = 8: groups of rows (2g, 2g + 1)
    for (int g = 0; g < 4; ++g) {
      const auto w = broadcast_at<Arith>(table, n / 16 + 4 * (s + b) + g);
      Arith::forward_butterfly(r[b][2 * g], r[b][2 * g + 1], w, c);
    }
  }
  for (int b = 0; b < kSuper; ++b)  // t = 4, 2, 1 on the transpose
    transpose8(r[b], p);
  for (int b = 0; b < kSuper; ++b) {
    const auto w = transposed_twiddle_t4<Arith>(table, n, s + b);
    for (int k = 0; k < 4; ++k)
      Arith::forward_butterfly_second(r[b][k], r[b][k + 4], w, c);
  }
  for (int b = 0; b < kSuper; ++b) {
    typename Arith::Twiddle w[2];
    transposed_twiddles_t2<Arith>(table, s + b, w);
    for (int k = 0; k < 8; k += 4) {
      Arith::forward_butterfly(r[b][k], r[b][k + 2], w[k / 4], c);
      Arith::forward_butterfly(r[b][k + 1], r[b][k + 3], w[k / 4], c);
    }
  }
  for (int b = 0; b < kSuper; ++b) {
    typename Arith::Twiddle w[4];
    transposed_twiddles_t1<Arith>(table, n, s + b, w);
    for (int j = 0; j < 4; ++j)
      Arith::forward_butterfly_second(r[b][2 * j], r[b][2 * j + 1], w[j], c);
  }
  for (int b = 0; b < kSuper; ++b) {
    for (int k = 0; k < 8; ++k)
      r[b][k] = Arith::reduce_forward_output(r[b][k], c);
    transpose8(r[b], p);
    for (int k = 0; k < 8; ++k)
      store(v + 64 * b + 8 * k, r[b][k]);
  }
}

// The six smallest inverse stages (t = 1 up to 32) on kSuper consecutive
// superblocks starting at superblock s, interleaved as in forward_superblocks,
// and with kWithT64 (kSuper = 2) the stage t = 64 after them. The last of
// these stages takes the 1/N factor when it is the transform's last (kLast:
// N = 64, or N = 128 with t = 64).
template <class Arith, int kSuper, bool kLast, bool kWithT64 = false>
inline void inverse_superblocks(uint64_t* v, const uint64_t* in, uint64_t n, uint64_t s,
                                const TwiddleTable& table, const InverseScale<Arith>& scale,
                                const Permutes& p, const typename Arith::Constants& c) {
  __m512i r[kSuper][8];
  for (int b = 0; b < kSuper; ++b) {  // t = 1, 2, 4 on the transpose
    for (int k = 0; k < 8; ++k)
      r[b][k] = load(in + 64 * b + 8 * k);
    transpose8(r[b], p);
  }
  for (int b = 0; b < kSuper; ++b) {
    typename Arith::Twiddle w[4];
    transposed_twiddles_t1<Arith>(table, n, s + b, w);
    for (int j = 0; j < 4; ++j)
      Arith::inverse_butterfly(r[b][2 * j], r[b][2 * j + 1], w[j], c);
  }
  for (int b = 0; b < kSuper; ++b) {
    typename Arith::Twiddle w[2];
    transposed_twiddles_t2<Arith>(table, s + b, w);
    for (int k = 0; k < 8; k += 4) {
      Arith::inverse_butterfly(r[b][k], r[b][k + 2], w[k / 4], c);
      Arith::inverse_butterfly(r[b][k + 1], r[b][k + 3], w[k / 4], c);
    }
  }
  for (int b = 0; b < kSuper; ++b) {
    const auto w = transposed_twiddle_t4<Arith>(table, n, s + b);
    for (int k = 0; k < 4; ++k)
      Arith::inverse_butterfly(r[b][k], r[b][k + 4], w, c);
  }
  for (int b = 0; b < kSuper; ++b)
    transpose8(r[b], p);
  for (int b = 0; b < kSuper; ++b) {  // t = 8
    for (int g = 0; g < 4; ++g) {
      const auto w = broadcast_at<Arith>(table, n / 16 + 4 * (s + b) + g);
      Arith::inverse_butterfly(r[b][2 * g], r[b][2 * g + 1], w, c);
    }
  }
  for (int b = 0; b < kSuper; ++b) {  // t = 16
    for (int g = 0; g < 2; ++g) {
      const auto w = broadcast_at<Arith>(table, n / 32 + 2 * (s + b) + g);
      Arith::inverse_butterfly(r[b][4 * g], r[b][4 * g + 2], w, c);
      Arith::inverse_butterfly(r[b][4 * g + 1], r[b][4 * g + 3], w, c);
    }
  }
  static_assert(!kWithT64 || kSuper == 2, "t = 64 pairs the rows of two superblocks");
  for (int b = 0; b < kSuper; ++b) {  // t = 32
    const auto w = broadcast_at<Arith>(table, n / 64 + s + b);
    for (int k = 0; k < 4; ++k) {
      if constexpr (kLast && !kWithT64) {
        Arith::inverse_butterfly_last(r[b][k], r[b][k + 4], scale.inv_n, scale.inv_n_root, c);
      } else {
        Arith::inverse_butterfly(r[b][k], r[b][k + 4], w, c);
      }
    }
  }
  if constexpr (kWithT64) {  // t = 64: group s / 2 of N / 128, row k of one with row k of the other
    const auto w = broadcast_at<Arith>(table, n / 128 + s / 2);
    for (int k = 0; k < 8; ++k) {
      if constexpr (kLast) {
        Arith::inverse_butterfly_last(r[0][k], r[1][k], scale.inv_n, scale.inv_n_root, c);
      } else {
        Arith::inverse_butterfly(r[0][k], r[1][k], w, c);
      }
    }
  }
  for (int b = 0; b < kSuper; ++b) {
    for (int k = 0; k < 8; ++k)
      store(v + 64 * b + 8 * k, r[b][k]);
  }
}

// Runs butterflies(x0, x1, x2, x3) over the vectors of four consecutive
// quarters p0 + k h [0, h), k < 4, one vector of each per step, reading them
// from the same places in `in`.
template <class Butterflies, class Load = PlainLoad>
inline void for_each_quad(uint64_t* p0, const uint64_t* in, uint64_t h,
                          const Butterflies& butterflies, const Load& load_input = Load{}) {
  uint64_t* p1 = p0 + h;
  uint64_t* p2 = p1 + h;
  uint64_t* p3 = p2 + h;
  for (uint64_t j = 0; j < h; j += 16) {
    __m512i x0 = load_input(in + j), x1 = load_input(in + h + j), x2 = load_input(in + 2 * h + j),
            x3 = load_input(in + 3 * h + j);
    __m512i y0 = load_input(in + j + 8), y1 = load_input(in + h + j + 8),
            y2 = load_input(in + 2 * h + j + 8), y3 = load_input(in + 3 * h + j + 8);
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

// Forward stages (m, t) and (2m, t/2) in one pass, t >= 32: each group of 2t
// values is split in quarters q0..q3; stage one pairs (q0, q2), (q1, q3), stage
// two (q0, q1), (q2, q3). Reads `input`.
template <class Arith, class Load = PlainLoad>
void forward_radix4(uint64_t* values, const uint64_t* input, uint64_t m, uint64_t t,
                    const TwiddleTable& table, const typename Arith::Constants& c,
                    const Load& load_input = Load{}) {
  const uint64_t h = t / 2;
  for (uint64_t i = 0; i < m; ++i) {
    const auto w1 = broadcast_at<Arith>(table, m + i);
    const auto w2 = broadcast_at<Arith>(table, 2 * m + 2 * i);
    const auto w3 = broadcast_at<Arith>(table, 2 * m + 2 * i + 1);
    for_each_quad(
        values + 2 * i * t, input + 2 * i * t, h,
        [&](__m512i& x0, __m512i& x1, __m512i& x2, __m512i& x3) {
          Arith::forward_butterfly(x0, x2, w1, c);
          Arith::forward_butterfly(x1, x3, w1, c);
          Arith::forward_butterfly_second(x0, x1, w2, c);
          Arith::forward_butterfly_second(x2, x3, w3, c);
        },
        load_input);
  }
}

// The six smallest forward stages over all superblocks (seven with kWithT64:
// t = 64 too, N >= 128), reading `input`.
template <class Arith, bool kWithT64, class Load = PlainLoad>
void forward_last_stages(uint64_t* values, const uint64_t* input, uint64_t n,
                         const TwiddleTable& table, const typename Arith::Constants& c,
                         const Load& load_input = Load{}) {
  const Permutes p = make_permutes();
  if (n == 64) {
    forward_superblocks<Arith, 1, false>(values, input, n, 0, table, p, c, load_input);
    return;
  }
  for (uint64_t s = 0; s < n / 64; s += 2) {
    forward_superblocks<Arith, 2, kWithT64>(values + 64 * s, input + 64 * s, n, s, table, p, c,
                                            load_input);
  }
}

// The six smallest inverse stages over all superblocks (seven with kWithT64:
// t = 64 too, N >= 128), reading `input`.
template <class Arith, bool kWithT64>
void inverse_first_stages(uint64_t* values, const uint64_t* input, uint64_t n,
                          const TwiddleTable& table, const InverseScale<Arith>& scale,
                          const typename Arith::Constants& c) {
  const Permutes p = make_permutes();
  if (n == 64) {
    inverse_superblocks<Arith, 1, true>(values, input, n, 0, table, scale, p, c);
    return;
  }
  if (kWithT64 && n == 128) {  // t = 64 is the last stage
    inverse_superblocks<Arith, 2, true, true>(values, input, n, 0, table, scale, p, c);
    return;
  }
  for (uint64_t s = 0; s < n / 64; s += 2) {
    inverse_superblocks<Arith, 2, false, kWithT64>(values + 64 * s, input + 64 * s, n, s, table,
                                                   scale, p, c);
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

// N < 64: the scalar transform, on a copy of the input (plus `shift`, added to
// every value) when out of place or shifted.
inline void copy_values(uint64_t* out, const uint64_t* in, uint64_t n, uint64_t shift = 0) {
  if (out == in && shift == 0) return;
  for (uint64_t i = 0; i < n; ++i)
    out[i] = in[i] + shift;
}

// The passes of the forward NTT (N >= 64) of `input` into `values`:
// whichever pass comes first reads `input` through first_load.
template <class Arith, class Load>
void forward_passes(uint64_t* values, const uint64_t* input, const NttTableData& table,
                    const TwiddleTable& roots, const typename Arith::Constants& c,
                    const Load& first_load) {
  const uint64_t n = table.degree;
  bool first = true;
  // Stages with t >= 64 (log2(N) - 6 of them) run in pairs; when their count
  // is odd, the one left over (t = 64) joins the superblock pass, which holds
  // both halves of each 128-value group (a pass over memory fewer).
  const bool odd = ((table.log_degree - 6) & 1) != 0;
  uint64_t m = 1, t = n / 2;
  for (; t > (odd ? 64 : 32); m *= 4, t /= 4) {
    if (first) {
      forward_radix4<Arith>(values, input, m, t, roots, c, first_load);
      first = false;
    } else {
      forward_radix4<Arith>(values, values, m, t, roots, c);
    }
  }
  const auto last_stages = [&](const uint64_t* from, const auto& load) {
    if (odd) {
      forward_last_stages<Arith, true>(values, from, n, roots, c, load);
    } else {
      forward_last_stages<Arith, false>(values, from, n, roots, c, load);
    }
  };
  if (first) {
    last_stages(input, first_load);
  } else {
    last_stages(values, PlainLoad{});
  }
}

// The forward NTT (see kernel_api.hpp) of `input` plus `shift` (added to
// every coefficient as the first pass loads it; 0 for the plain transform)
// into `values` with the arithmetic of Arith.
template <class Arith>
void forward_ntt(uint64_t* values, const uint64_t* input, const NttTableData& table,
                 uint64_t shift = 0) {
  const uint64_t n = table.degree;
  if (n < 64) {
    copy_values(values, input, n, shift);
    scalar::ntt_forward(values, table);
    return;
  }
  const typename Arith::Constants c = Arith::make_constants(table.modulus.value);
  const TwiddleTable roots = Arith::forward_table(table);
  if (shift == 0) {
    forward_passes<Arith>(values, input, table, roots, c, PlainLoad{});
  } else {
    forward_passes<Arith>(values, input, table, roots, c, ShiftedLoad{set1(shift)});
  }
}

// The inverse NTT (see kernel_api.hpp) of `input` into `values` with the
// arithmetic of Arith.
template <class Arith>
void inverse_ntt(uint64_t* values, const uint64_t* input, const NttTableData& table) {
  const uint64_t n = table.degree;
  if (n < 64) {
    copy_values(values, input, n);
    scalar::ntt_inverse(values, table);
    return;
  }
  const typename Arith::Constants c = Arith::make_constants(table.modulus.value);
  const TwiddleTable roots = Arith::inverse_table(table);
  const InverseScale<Arith> scale = Arith::inverse_scale(table);
  // Stages with t >= 64 (stage t has m = N / 2t groups) run in pairs; when
  // their count is odd, the one left over (t = 64) joins the superblock pass
  // (as in forward_passes). Whichever pass contains m = 1 applies 1/N.
  uint64_t m = n / 128, t = 64;
  if (((table.log_degree - 6) & 1) != 0) {
    inverse_first_stages<Arith, true>(values, input, n, roots, scale, c);
    m /= 2;
    t *= 2;
  } else {
    inverse_first_stages<Arith, false>(values, input, n, roots, scale, c);
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
