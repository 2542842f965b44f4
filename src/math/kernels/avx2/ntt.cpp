// AVX2 negacyclic NTT for every modulus q < 2^61, four butterflies per
// 256-bit vector. Outputs are fully reduced, so they equal the scalar
// reference bit for bit; what happens in between differs from scalar.
//
// Two arithmetic back ends share the loop structure (Arith policies below):
//
// * Integer (any q < 2^61): Harvey lazy butterflies with Shoup twiddles, as
//   in scalar. AVX2 has no 64 x 64-bit multiply, so the Shoup product is built
//   from 32 x 32-bit pieces (see mul_shoup_4q). Values are kept lazily in
//   [0, 4q) (forward) and [0, 2q) (inverse) as in scalar when q >= 2^60; for
//   q < 2^60 the ranges are doubled to [0, 8q) and [0, 4q), still below 2^63,
//   which saves one conditional subtraction per butterfly.
//
// * Double precision (q < 2^50, the common case): values are held as
//   integer-valued doubles in a symmetric range around 0, and W*y mod q is
//   computed exactly with FMA: h = fl(y W), l = y W - h (one FMA, exact),
//   Q = round(y * W'') where W'' = roots_shoup52 / 2^52 approximates W/q, and
//   T = (h - Q q) + l. Every intermediate is an integer below 2^53, so both
//   steps are exact; T lies within about q/2 + |y| q / 2^52 of 0. This needs
//   11 vector operations per butterfly against about 23 for the integer path.
//   W and W'' come from the tables' double copies (NttTableData), so no stage
//   spends vector operations converting twiddles.
//   It relies on the default round-to-nearest mode; with any other mode set
//   in MXCSR the integer path is used.
//
// Conditional subtractions use the sign bit: for x, bound < 2^63, x >= bound
// exactly when x - bound has its top bit clear.
//
// Layout: stages with t >= 8 run over whole vectors with a broadcast twiddle.
// The stages t = 4, 2, 1 are fused into one pass over blocks of 8 values held
// in registers and rearranged with in-lane unpacks and 128-bit permutes (four
// blocks at a time, so the core has independent chains to overlap); the
// forward pass ends with the final reduction to [0, q). The inverse
// transform's last stage (t = N/2) carries the factor 1/N.
//
// Speed depends on alignment: 32-byte vectors that straddle cache lines cost
// extra, so values should be 32-byte aligned (heft's AlignedBuffer is).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "math/kernels/avx2/avx2_common.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::avx2 {
namespace {

// Entries k and k+1 of a table as [t_k, t_k, t_{k+1}, t_{k+1}] (stage t = 2).
HEFT_AVX2_INLINE __m256i load_pair_doubled(const uint64_t* p) {
  const __m256i pair =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castpd_si256(_mm256_permute_pd(_mm256_castsi256_pd(pair), 0xC));
}
HEFT_AVX2_INLINE __m256d load_pair_doubled(const double* p) {
  return _mm256_permute_pd(_mm256_broadcast_pd(reinterpret_cast<const __m128d*>(p)), 0xC);
}

// Shuffles, for both element types (the bits are moved, never converted).
HEFT_AVX2_INLINE __m256i unpack_lo(__m256i a, __m256i b) {
  return _mm256_unpacklo_epi64(a, b);
}
HEFT_AVX2_INLINE __m256i unpack_hi(__m256i a, __m256i b) {
  return _mm256_unpackhi_epi64(a, b);
}
HEFT_AVX2_INLINE __m256d unpack_lo(__m256d a, __m256d b) {
  return _mm256_unpacklo_pd(a, b);
}
HEFT_AVX2_INLINE __m256d unpack_hi(__m256d a, __m256d b) {
  return _mm256_unpackhi_pd(a, b);
}
HEFT_AVX2_INLINE __m256i low_halves(__m256i a, __m256i b) {
  return _mm256_permute2x128_si256(a, b, 0x20);
}
HEFT_AVX2_INLINE __m256i high_halves(__m256i a, __m256i b) {
  return _mm256_permute2x128_si256(a, b, 0x31);
}
HEFT_AVX2_INLINE __m256d low_halves(__m256d a, __m256d b) {
  return _mm256_permute2f128_pd(a, b, 0x20);
}
HEFT_AVX2_INLINE __m256d high_halves(__m256d a, __m256d b) {
  return _mm256_permute2f128_pd(a, b, 0x31);
}

// ---- Integer arithmetic ------------------------------------------------------

// Integer butterflies for q < 2^61. kWide (q < 2^60) doubles the lazy ranges.
template <bool kWide>
class IntArith {
 public:
  using Vec = __m256i;

  // A twiddle W in every lane, split for the 32-bit multiplies.
  struct Twiddle {
    __m256i w;       // W (its low half feeds _mm256_mul_epu32)
    __m256i w_swap;  // W with its 32-bit halves swapped, for the cross terms
    __m256i ws;      // W' = floor(W 2^64 / q)
    __m256i ws_hi;   // W' >> 32
  };

  explicit IntArith(const NttTableData& table)
      : q_(set1(table.modulus.value)),
        q_swap_(_mm256_shuffle_epi32(q_, 0xB1)),
        two_q_(set1(2 * table.modulus.value)),
        bound_(set1((kWide ? 4 : 2) * table.modulus.value)),
        hi_mask_(set1(0xffffffff00000000ULL)) {}

  // Where one direction's twiddles are read from.
  struct Twiddles {
    const uint64_t* roots;
    const uint64_t* shoup;
  };
  static Twiddles forward_twiddles(const NttTableData& table) {
    return {table.roots, table.roots_shoup};
  }
  static Twiddles inverse_twiddles(const NttTableData& table) {
    return {table.inv_roots, table.inv_roots_shoup};
  }

  static Twiddle make_twiddle(__m256i w, __m256i ws) {
    return Twiddle{w, _mm256_shuffle_epi32(w, 0xB1), ws, _mm256_srli_epi64(ws, 32)};
  }
  // Twiddle i in every lane; i .. i+3; i, i, i+1, i+1.
  static Twiddle broadcast(const Twiddles& t, uint64_t i) {
    return make_twiddle(set1(t.roots[i]), set1(t.shoup[i]));
  }
  static Twiddle quad(const Twiddles& t, uint64_t i) {
    return make_twiddle(loadu(t.roots + i), loadu(t.shoup + i));
  }
  static Twiddle pair_doubled(const Twiddles& t, uint64_t i) {
    return make_twiddle(load_pair_doubled(t.roots + i), load_pair_doubled(t.shoup + i));
  }

  static Vec load(const uint64_t* p) { return loadu(p); }
  static void store(uint64_t* p, Vec v) { storeu(p, v); }
  static Vec load_forward_input(const uint64_t* p) { return loadu(p); }
  static Vec load_inverse_input(const uint64_t* p) { return loadu(p); }

  // W*y mod q in [0, 4q) for any 64-bit y: Shoup's method with a quotient
  // that may be short by up to 2. With 32-bit halves y = (yh, yl) and
  // W' = (sh, sl), hi64(y W') = yh*sh + floor((yl*sh + yh*sl + (yl*sl >> 32)) / 2^32);
  // dropping yl*sl and the low halves of the two middle products loses less
  // than 3 * 2^32 from that numerator, so yh*sh + (yl*sh >> 32) + (yh*sl >> 32)
  // is at most 2 below the exact Shoup quotient, whose remainder is in
  // [0, 2q). That saves a multiply and a carry chain over the exact quotient.
  Vec mul_shoup_4q(Vec y, const Twiddle& w) const {
    const __m256i y_hi = _mm256_srli_epi64(y, 32);
    const __m256i lh = _mm256_mul_epu32(y, w.ws_hi);
    const __m256i hl = _mm256_mul_epu32(y_hi, w.ws);
    const __m256i hh = _mm256_mul_epu32(y_hi, w.ws_hi);
    const __m256i quotient = _mm256_add_epi64(
        hh, _mm256_add_epi64(_mm256_srli_epi64(lh, 32), _mm256_srli_epi64(hl, 32)));
    // y*W - quotient*q < 4q < 2^63, so its low 64 bits are the result: the
    // low-half products in full, plus the cross terms yl*Wh + yh*Wl - ql*Qh
    // - qh*Ql, needed only mod 2^32, shifted up by 32.
    const __m256i low = _mm256_sub_epi64(_mm256_mul_epu32(y, w.w), _mm256_mul_epu32(quotient, q_));
    const __m256i cross =
        _mm256_sub_epi32(_mm256_mullo_epi32(y, w.w_swap), _mm256_mullo_epi32(quotient, q_swap_));
    return _mm256_add_epi64(_mm256_add_epi64(low, _mm256_slli_epi64(cross, 32)),
                            _mm256_and_si256(cross, hi_mask_));
  }

  // W*y mod q in [0, bound): [0, 4q) when wide, else [0, 2q).
  Vec mul_lazy(Vec y, const Twiddle& w) const {
    const __m256i product = mul_shoup_4q(y, w);
    return kWide ? product : reduce_once(product, two_q_);
  }

  // Cooley-Tukey: x, y in [0, 2 bound) -> x + W y, x - W y in [0, 2 bound).
  void forward(Vec& x, Vec& y, const Twiddle& w) const {
    const __m256i x_red = reduce_once(x, bound_);  // [0, bound)
    const __m256i product = mul_lazy(y, w);        // [0, bound)
    x = _mm256_add_epi64(x_red, product);
    y = _mm256_sub_epi64(_mm256_add_epi64(x_red, bound_), product);
  }

  // Gentleman-Sande: x, y in [0, bound) -> x + y, W (x - y) in [0, bound).
  void inverse(Vec& x, Vec& y, const Twiddle& w) const {
    const __m256i difference = _mm256_sub_epi64(_mm256_add_epi64(x, bound_), y);
    x = reduce_once(_mm256_add_epi64(x, y), bound_);
    y = mul_lazy(difference, w);
  }

  // Forward output: [0, 2 bound) -> [0, q).
  void store_forward_output(uint64_t* p, Vec v) const {
    if (kWide) v = reduce_once(v, bound_);
    storeu(p, reduce_once(reduce_once(v, two_q_), q_));
  }

  // The inverse's last stage (t = N/2) with 1/N merged into both outputs: the
  // sum and difference are below 2 bound < 2^63 and the Shoup product takes
  // any 64-bit input, so neither is reduced first.
  void inverse_last(uint64_t* values, const NttTableData& table) const {
    const Twiddle scale_x = make_twiddle(set1(table.inv_degree), set1(table.inv_degree_shoup));
    const Twiddle scale_y =
        make_twiddle(set1(table.inv_degree_root), set1(table.inv_degree_root_shoup));
    const uint64_t half = table.degree / 2;
    for (uint64_t j = 0; j < half; j += 4) {
      const Vec x = loadu(values + j), y = loadu(values + half + j);
      const __m256i sum = _mm256_add_epi64(x, y);
      const __m256i difference = _mm256_sub_epi64(_mm256_add_epi64(x, bound_), y);
      storeu(values + j, reduce_once(reduce_once(mul_shoup_4q(sum, scale_x), two_q_), q_));
      storeu(values + half + j,
             reduce_once(reduce_once(mul_shoup_4q(difference, scale_y), two_q_), q_));
    }
  }

 private:
  __m256i q_, q_swap_, two_q_, bound_, hi_mask_;
};

// ---- Double-precision arithmetic (q < 2^50) ---------------------------------

// Adding 1.5 * 2^52 to a double of magnitude below 2^51 rounds it to an
// integer (the sum's unit in the last place is 1) and leaves that integer in
// the low mantissa bits.
constexpr uint64_t kRoundBits = 0x4338000000000000ULL;

// Range bookkeeping (q < 2^50, e = q / 2^52 < 1/4). reduce() maps |x| <= 2^51
// to |x| <= q/2 + 1/4 (fl(1/q) is within 2^-53 relative of 1/q).
// mul_lazy(y) returns T with |T| <= q/2 + |y| e, given |y| < 2^51:
// Q = round(y W'') is within 1/2 + |y| 2^-52 of y W / q because
// W/q - 2^-52 < W'' <= W/q. Forward: inputs [0, 4q) are shifted to [-2q, 2q);
// a stage maps |x|, |y| <= B to at most q + 1/4 + B e, so after the first
// stage every value stays within 1.5q + 1/4. Inverse: inputs [0, 2q) are
// shifted to [-q, q), and a stage keeps |x|, |y| < q (|x - y| <= 2q gives
// |T| < q/2 + 2q e < q). |y W| < 2^101, so |l| <= 2^47, and every sum and
// difference above is an integer below 2^53 in magnitude: exact. The roundings
// to an integer add 1.5 * 2^52 inside an FMA, so they round the exact product.
class DoubleArith {
 public:
  using Vec = __m256d;

  struct Twiddle {
    __m256d w;        // W
    __m256d w_ratio;  // W'' = floor(W 2^52 / q) / 2^52
  };

  explicit DoubleArith(const NttTableData& table)
      : q_(_mm256_set1_pd(static_cast<double>(table.modulus.value))),
        q_inv_(_mm256_set1_pd(1.0 / static_cast<double>(table.modulus.value))),
        round_(_mm256_castsi256_pd(set1(kRoundBits))),
        two52_bits_(set1(kTwo52Bits)),
        round_bits_(set1(kRoundBits)),
        q_int_(set1(table.modulus.value)),
        forward_offset_(_mm256_set1_pd(0x1p52 + 2.0 * static_cast<double>(table.modulus.value))),
        inverse_offset_(_mm256_set1_pd(0x1p52 + static_cast<double>(table.modulus.value))) {}

  // x < 2^52 as a double, minus offset - 2^52.
  Vec to_double(__m256i x, __m256d offset) const {
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, two52_bits_)), offset);
  }
  // The twiddles already as doubles (NttTableData's double tables), so no
  // stage spends vector operations converting them.
  struct Twiddles {
    const double* roots;   // W
    const double* ratios;  // W''
  };
  static Twiddles forward_twiddles(const NttTableData& table) {
    return {table.roots_double, table.roots_ratio};
  }
  static Twiddles inverse_twiddles(const NttTableData& table) {
    return {table.inv_roots_double, table.inv_roots_ratio};
  }

  // W < 2^50 and W 2^52 / q < 2^52 convert exactly (as signed values, which
  // is a single instruction).
  static Twiddle scalar_twiddle(uint64_t w, uint64_t ws52) {
    return Twiddle{_mm256_set1_pd(static_cast<double>(static_cast<int64_t>(w))),
                   _mm256_set1_pd(static_cast<double>(static_cast<int64_t>(ws52)) * 0x1p-52)};
  }
  static Twiddle broadcast(const Twiddles& t, uint64_t i) {
    return Twiddle{_mm256_broadcast_sd(t.roots + i), _mm256_broadcast_sd(t.ratios + i)};
  }
  static Twiddle quad(const Twiddles& t, uint64_t i) {
    return Twiddle{_mm256_loadu_pd(t.roots + i), _mm256_loadu_pd(t.ratios + i)};
  }
  static Twiddle pair_doubled(const Twiddles& t, uint64_t i) {
    return Twiddle{load_pair_doubled(t.roots + i), load_pair_doubled(t.ratios + i)};
  }

  static Vec load(const uint64_t* p) { return _mm256_loadu_pd(reinterpret_cast<const double*>(p)); }
  static void store(uint64_t* p, Vec v) { _mm256_storeu_pd(reinterpret_cast<double*>(p), v); }
  Vec load_forward_input(const uint64_t* p) const { return to_double(loadu(p), forward_offset_); }
  Vec load_inverse_input(const uint64_t* p) const { return to_double(loadu(p), inverse_offset_); }

  // x - round(x / q) q, exact for |x| <= 2^52.
  Vec reduce(Vec x) const {
    const __m256d quotient = _mm256_sub_pd(_mm256_fmadd_pd(x, q_inv_, round_), round_);
    return _mm256_fnmadd_pd(quotient, q_, x);
  }

  // W*y mod q, signed, for |y| < 2^51 (bounds above).
  Vec mul_lazy(Vec y, const Twiddle& w) const {
    const __m256d high = _mm256_mul_pd(y, w.w);
    const __m256d low = _mm256_fmsub_pd(y, w.w, high);  // y W - high, exactly
    const __m256d quotient = _mm256_sub_pd(_mm256_fmadd_pd(y, w.w_ratio, round_), round_);
    return _mm256_add_pd(_mm256_fnmadd_pd(quotient, q_, high), low);
  }

  void forward(Vec& x, Vec& y, const Twiddle& w) const {
    const __m256d x_red = reduce(x);
    const __m256d product = mul_lazy(y, w);
    x = _mm256_add_pd(x_red, product);
    y = _mm256_sub_pd(x_red, product);
  }

  void inverse(Vec& x, Vec& y, const Twiddle& w) const {
    const __m256d difference = _mm256_sub_pd(x, y);
    x = reduce(_mm256_add_pd(x, y));
    y = mul_lazy(difference, w);
  }

  // An integer-valued double in (-q, q) -> [0, q) as uint64.
  __m256i finish(__m256d r) const {
    const __m256i v = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(r, round_)), round_bits_);
    return select_by_sign(v, _mm256_add_epi64(v, q_int_), v);
  }

  void store_forward_output(uint64_t* p, Vec v) const { storeu(p, finish(reduce(v))); }

  // Last inverse stage: |x + y|, |x - y| <= 2q, so both products are in (-q, q).
  void inverse_last(uint64_t* values, const NttTableData& table) const {
    const Twiddle scale_x = scalar_twiddle(table.inv_degree, table.inv_degree_shoup52);
    const Twiddle scale_y = scalar_twiddle(table.inv_degree_root, table.inv_degree_root_shoup52);
    const uint64_t half = table.degree / 2;
    for (uint64_t j = 0; j < half; j += 4) {
      const Vec x = load(values + j), y = load(values + half + j);
      storeu(values + j, finish(mul_lazy(_mm256_add_pd(x, y), scale_x)));
      storeu(values + half + j, finish(mul_lazy(_mm256_sub_pd(x, y), scale_y)));
    }
  }

 private:
  __m256d q_, q_inv_, round_;
  __m256i two52_bits_, round_bits_, q_int_;
  __m256d forward_offset_, inverse_offset_;
};

// ---- Loops shared by both back ends ------------------------------------------

// Forward stages t = 4, 2, 1 on B consecutive blocks of 8 values starting at
// block k (v points at block k), then the final reduction to [0, q). The
// blocks are independent; interleaving them gives the out-of-order core
// several dependency chains to overlap.
template <int B, typename Arith>
HEFT_AVX2_INLINE void forward_last_three(uint64_t* v, uint64_t k, const NttTableData& table,
                                         const typename Arith::Twiddles& twiddles,
                                         const Arith& arith) {
  using Vec = typename Arith::Vec;
  const uint64_t n = table.degree;
  Vec a[B], b[B], x[B], y[B];
  for (int j = 0; j < B; ++j) {
    a[j] = Arith::load(v + 8 * j);      // e0 e1 e2 e3
    b[j] = Arith::load(v + 8 * j + 4);  // e4 e5 e6 e7
  }
  // t = 4: pairs (e_j, e_{j+4}), one twiddle per block.
  for (int j = 0; j < B; ++j) {
    arith.forward(a[j], b[j], Arith::broadcast(twiddles, n / 8 + k + j));
  }
  // t = 2: pairs (e0,e2) (e1,e3) with twiddle 2k, (e4,e6) (e5,e7) with 2k+1.
  for (int j = 0; j < B; ++j) {
    x[j] = low_halves(a[j], b[j]);   // e0 e1 e4 e5
    y[j] = high_halves(a[j], b[j]);  // e2 e3 e6 e7
    arith.forward(x[j], y[j], Arith::pair_doubled(twiddles, n / 4 + 2 * (k + j)));
  }
  // t = 1: pairs (e0,e1) (e2,e3) (e4,e5) (e6,e7) with twiddles 4k .. 4k+3.
  for (int j = 0; j < B; ++j) {
    a[j] = unpack_lo(x[j], y[j]);  // e0 e2 e4 e6
    b[j] = unpack_hi(x[j], y[j]);  // e1 e3 e5 e7
    arith.forward(a[j], b[j], Arith::quad(twiddles, n / 2 + 4 * (k + j)));
  }
  for (int j = 0; j < B; ++j) {
    x[j] = unpack_lo(a[j], b[j]);  // e0 e1 e4 e5
    y[j] = unpack_hi(a[j], b[j]);  // e2 e3 e6 e7
    arith.store_forward_output(v + 8 * j, low_halves(x[j], y[j]));
    arith.store_forward_output(v + 8 * j + 4, high_halves(x[j], y[j]));
  }
}

// Inverse stages t = 1, 2 and, if with_t4, t = 4 on B consecutive blocks of 8
// values starting at block k; the result is back in natural order.
template <int B, typename Arith>
HEFT_AVX2_INLINE void inverse_first_three(uint64_t* v, const uint64_t* in, uint64_t k,
                                          const NttTableData& table,
                                          const typename Arith::Twiddles& twiddles,
                                          const Arith& arith, bool with_t4) {
  using Vec = typename Arith::Vec;
  const uint64_t n = table.degree;
  Vec s[B], d[B], x[B], y[B];
  for (int j = 0; j < B; ++j) {
    const Vec a = arith.load_inverse_input(in + 8 * j);      // e0 e1 e2 e3
    const Vec b = arith.load_inverse_input(in + 8 * j + 4);  // e4 e5 e6 e7
    x[j] = low_halves(a, b);                                 // e0 e1 e4 e5
    y[j] = high_halves(a, b);                                // e2 e3 e6 e7
    s[j] = unpack_lo(x[j], y[j]);                            // e0 e2 e4 e6
    d[j] = unpack_hi(x[j], y[j]);                            // e1 e3 e5 e7
  }
  // t = 1: pairs (e0,e1) (e2,e3) (e4,e5) (e6,e7) with twiddles 4k .. 4k+3.
  for (int j = 0; j < B; ++j) {
    arith.inverse(s[j], d[j], Arith::quad(twiddles, n / 2 + 4 * (k + j)));
  }
  // t = 2: pairs (e0,e2) (e1,e3) with twiddle 2k, (e4,e6) (e5,e7) with 2k+1.
  for (int j = 0; j < B; ++j) {
    x[j] = unpack_lo(s[j], d[j]);  // e0 e1 e4 e5
    y[j] = unpack_hi(s[j], d[j]);  // e2 e3 e6 e7
    arith.inverse(x[j], y[j], Arith::pair_doubled(twiddles, n / 4 + 2 * (k + j)));
    s[j] = low_halves(x[j], y[j]);   // e0 e1 e2 e3
    d[j] = high_halves(x[j], y[j]);  // e4 e5 e6 e7
  }
  if (with_t4) {
    // t = 4: pairs (e_j, e_{j+4}), one twiddle per block.
    for (int j = 0; j < B; ++j) {
      arith.inverse(s[j], d[j], Arith::broadcast(twiddles, n / 8 + k + j));
    }
  }
  for (int j = 0; j < B; ++j) {
    Arith::store(v + 8 * j, s[j]);
    Arith::store(v + 8 * j + 4, d[j]);
  }
}

// One radix-2 stage with t >= 8: m groups of 2t values, two vectors of each
// half per iteration. kFirstPass: the forward transform's first stage, which
// reads the caller's input (possibly another array) through
// load_forward_input, so the double path converts to doubles on the way
// instead of in a pass of its own.
template <bool kForward, bool kFirstPass = false, typename Arith>
void radix2_stage(uint64_t* values, uint64_t m, uint64_t t,
                  const typename Arith::Twiddles& twiddles, const Arith& arith,
                  const uint64_t* input = nullptr) {
  using Vec = typename Arith::Vec;
  const uint64_t* source = kFirstPass ? input : values;
  const auto load = [&](const uint64_t* p) {
    if constexpr (kFirstPass) {
      return arith.load_forward_input(p);
    } else {
      return Arith::load(p);
    }
  };
  for (uint64_t i = 0; i < m; ++i) {
    const auto w = Arith::broadcast(twiddles, m + i);
    uint64_t* x = values + 2 * i * t;
    uint64_t* y = x + t;
    const uint64_t* x_in = source + 2 * i * t;
    const uint64_t* y_in = x_in + t;
    for (uint64_t j = 0; j < t; j += 8) {
      Vec x0 = load(x_in + j), x1 = load(x_in + j + 4);
      Vec y0 = load(y_in + j), y1 = load(y_in + j + 4);
      if (kForward) {
        arith.forward(x0, y0, w);
        arith.forward(x1, y1, w);
      } else {
        arith.inverse(x0, y0, w);
        arith.inverse(x1, y1, w);
      }
      Arith::store(x + j, x0);
      Arith::store(x + j + 4, x1);
      Arith::store(y + j, y0);
      Arith::store(y + j + 4, y1);
    }
  }
}

// NTT of `input` into `values` (the same array for an in-place transform).
template <typename Arith>
void forward_transform(uint64_t* values, const uint64_t* input, const NttTableData& table,
                       const Arith& arith) {
  const auto twiddles = Arith::forward_twiddles(table);
  const uint64_t n = table.degree;
  uint64_t m = 1, t = n >> 1;
  if (t >= 8) {
    radix2_stage<true, true>(values, m, t, twiddles, arith, input);
    m <<= 1;
    t >>= 1;
  } else {
    for (uint64_t j = 0; j < n; j += 4)
      Arith::store(values + j, arith.load_forward_input(input + j));
  }
  for (; t >= 8; m <<= 1, t >>= 1) {
    radix2_stage<true>(values, m, t, twiddles, arith);
  }
  // The fused tail, four blocks of 8 at a time where there are that many.
  if (n == 8) {
    forward_last_three<1>(values, 0, table, twiddles, arith);
  } else if (n == 16) {
    forward_last_three<2>(values, 0, table, twiddles, arith);
  } else {
    for (uint64_t k = 0; k < n / 8; k += 4) {
      forward_last_three<4>(values + 8 * k, k, table, twiddles, arith);
    }
  }
}

// Inverse NTT of `input` into `values` (the same array for an in-place
// transform): the first pass reads the input, later ones work in place.
template <typename Arith>
void inverse_transform(uint64_t* values, const uint64_t* input, const NttTableData& table,
                       const Arith& arith) {
  const auto twiddles = Arith::inverse_twiddles(table);
  const uint64_t n = table.degree;
  if (n == 8) {
    inverse_first_three<1>(values, input, 0, table, twiddles, arith,
                           false);  // t = 4 is the last stage
  } else if (n == 16) {
    inverse_first_three<2>(values, input, 0, table, twiddles, arith, true);
  } else {
    for (uint64_t k = 0; k < n / 8; k += 4) {
      inverse_first_three<4>(values + 8 * k, input + 8 * k, k, table, twiddles, arith, true);
    }
  }
  // Stages with 8 <= t <= N/4, then the last one (t = N/2) with 1/N.
  for (uint64_t t = 8; t <= n / 4; t <<= 1) {
    radix2_stage<false>(values, n / (2 * t), t, twiddles, arith);
  }
  arith.inverse_last(values, table);
}

// The double path needs q < 2^50 (its tables exist only then) and the
// default rounding mode.
bool use_double(const NttTableData& table) {
  return table.modulus.value < kDoubleModulusBound && table.roots_double != nullptr &&
         rounds_to_nearest();
}

}  // namespace

void ntt_forward_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  const uint64_t q = table.modulus.value;
  if (use_double(table)) {
    forward_transform(out, in, table, DoubleArith(table));
  } else if (q < (uint64_t{1} << 60)) {
    forward_transform(out, in, table, IntArith<true>(table));
  } else {
    forward_transform(out, in, table, IntArith<false>(table));
  }
}

void ntt_forward(uint64_t* values, const NttTableData& table) {
  ntt_forward_from(values, values, table);
}

void ntt_inverse_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  const uint64_t q = table.modulus.value;
  if (use_double(table)) {
    inverse_transform(out, in, table, DoubleArith(table));
  } else if (q < (uint64_t{1} << 60)) {
    inverse_transform(out, in, table, IntArith<true>(table));
  } else {
    inverse_transform(out, in, table, IntArith<false>(table));
  }
}

void ntt_inverse(uint64_t* values, const NttTableData& table) {
  ntt_inverse_from(values, values, table);
}

}  // namespace heft::math::kernels::avx2
