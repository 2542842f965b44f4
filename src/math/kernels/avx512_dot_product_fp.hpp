// Key switching's inner product (dot_product_pair in kernel_api.hpp) on
// AVX-512 for q < 2^55, with floating-point quotients: SEAL's 55-bit primes
// at N = 32768, where the split sums of split_sums.hpp spent about as many
// instructions reducing each two-digit part as multiplying.
//
// Each product x y (x, y < q) becomes r = x y - Q q, with Q an estimate of
// X = x y / q < q < 2^55 computed in doubles: x and y are converted
// (rounded, as they may have 55 bits), x is scaled by 1/q once for both of
// its products, and one fused multiply-add forms x/q * y + M with M =
// 1.25 * 2^56, which lies in [2^56, 2^57): the sum rounds to a multiple of
// 16, and its bit pattern minus M's is (Q = that multiple) / 16, an integer
// without a conversion instruction. Four roundings of relative 2^-53 put
// x/q * y within 16 of X and the final rounding adds at most 8, so |r| < 25q
// (29q should the multiply-add round twice, as emulation may). r comes out
// exactly from the low 64 bits of the integer products (vpmullq), as
// |r| < 2^63: x y - (bits - bits(M)) 16q, where the constant bits(M) 16q is
// added once per fold for all the terms before it. Every floating-point
// operation rounds to nearest by its own encoding, and 1/q is rounded to
// nearest in integers, so a caller's rounding mode cannot widen these
// bounds. A term costs six instructions (a conversion, the multiply-add, two
// vpmullq and two adds) against ten plus a share of the reductions for the
// split sums; on Zen 5 conversions, double and integer multiplies share two
// pipes, four of them per term.
//
// The sums are signed 64-bit values. Starting below 8q (a carried-in
// output) and taking at most kFoldTerms = 8 terms they stay within
// 8q + 8 * 29q < 2^8 q <= 2^63 in magnitude; then fold() brings them back
// to [0, 4q) with one more estimate, of s / q (below 2^8, so M' = 1.5 * 2^52
// rounds it to an integer): s - round(s / q) q is within q in magnitude,
// plus 2q. Outputs: fold()'s [0, 4q) when lazy, else reduced to [0, q).
//
// The loop is dot_product_pair_split's: blocks of coefficients, two digits
// per pass with the sums of a block in arrays (in L1), and the key fetched
// ahead (KeyRunPrefetcher).
//
// Included only by kernel files compiled with AVX-512 flags; everything is
// in an anonymous namespace (internal linkage, see kernel_api.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/key_run_prefetch.hpp"

namespace heft::math::kernels {
namespace {

// q must be below this for dot_product_pair_fp.
constexpr uint64_t kFpQuotientModulusBound = uint64_t{1} << 55;

// Every floating-point instruction of these kernels rounds to nearest by its
// own encoding (a caller's MXCSR cannot widen their bounds).
constexpr int kRoundNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

inline uint64_t bits_of(double d) {
  return std::bit_cast<uint64_t>(d);
}

// 2^e for |e| < 1000, from its bit pattern (std::ldexp is a library call,
// and the weighted sums run these once per call, which base conversion makes
// per block and target).
inline double power_of_two(int e) {
  return std::bit_cast<double>(static_cast<uint64_t>(1023 + e) << 52);
}

// 1/q rounded to nearest whatever the current rounding mode (a scalar
// division would follow it): the 53-bit mantissa round(2^(e+52) / q), q of
// e bits, in integers, then scaled by a power of two, which is exact.
inline double nearest_inverse(uint64_t q) {
  const int e = std::bit_width(q);
  const unsigned __int128 scaled = static_cast<unsigned __int128>(1) << (e + 52);
  const uint64_t mantissa = static_cast<uint64_t>((scaled + q / 2) / q);  // in [2^52, 2^53]
  return static_cast<double>(mantissa) * power_of_two(-(e + 52));
}

// M' = 1.5 * 2^52: a double x + M' (|x| < 2^51) rounds x to an integer, and
// its bit pattern minus M''s is that integer.
constexpr double kNearestIntegerMagic = 1.5 * 4503599627370496.0;

// s - round(s / q) q + offset for signed 64-bit lanes s with |s / q| far
// below 2^51, given inverse_q = 1/q and offset = bits(M') q + shift: the
// estimate's bit pattern stands for round(s / q) + bits(M'), whose share is
// taken back by the offset. The result lies within (1/2 + a few 2^-53 |s/q|)
// q of `shift`. Both sums' final reductions.
inline __m512i subtract_nearest_multiple(__m512i s, __m512d inverse_q, __m512i q, __m512i offset) {
  const __m512d estimate =
      _mm512_fmadd_round_pd(_mm512_cvt_roundepi64_pd(s, kRoundNearest), inverse_q,
                            _mm512_set1_pd(kNearestIntegerMagic), kRoundNearest);
  return _mm512_add_epi64(_mm512_sub_epi64(s, _mm512_mullo_epi64(_mm512_castpd_si512(estimate), q)),
                          offset);
}

class FpQuotientSums {
 public:
  // Terms a sum takes between folds (even: a fold ends a two-digit pass).
  static constexpr std::size_t kFoldTerms = 8;

  explicit FpQuotientSums(uint64_t q)
      : q_(set1(q)),
        sixteen_q_(set1(16 * q)),
        inverse_q_(_mm512_set1_pd(nearest_inverse(q))),
        product_magic_(_mm512_set1_pd(kProductMagic)),
        product_correction_(bits_of(kProductMagic) * 16 * q),
        fold_offset_(set1(bits_of(kNearestIntegerMagic) * q + 2 * q)),
        two_q_(set1(2 * q)) {}

  // x / q in doubles, shared by x's two products.
  __m512d scaled(__m512i x) const {
    return _mm512_mul_round_pd(_mm512_cvt_roundepu64_pd(x, kRoundNearest), inverse_q_,
                               kRoundNearest);
  }

  // sum + x y - Q q with Q within 29 of x y / q, short of the constant
  // correction() per term.
  __m512i add_product(__m512i sum, __m512i x, __m512d x_scaled, __m512i y) const {
    const __m512d estimate = _mm512_fmadd_round_pd(
        x_scaled, _mm512_cvt_roundepu64_pd(y, kRoundNearest), product_magic_, kRoundNearest);
    return _mm512_sub_epi64(_mm512_add_epi64(sum, _mm512_mullo_epi64(x, y)),
                            _mm512_mullo_epi64(_mm512_castpd_si512(estimate), sixteen_q_));
  }

  // What `terms` products leave out of a sum (modulo 2^64).
  __m512i correction(std::size_t terms) const { return set1(product_correction_ * terms); }

  // A signed sum below 2^8 q in magnitude -> [0, 4q), congruent.
  __m512i fold(__m512i sum) const {
    return subtract_nearest_multiple(sum, inverse_q_, q_, fold_offset_);
  }

  // [0, 4q) -> [0, q).
  __m512i reduce_from_4q(__m512i x) const { return reduce_once(reduce_once(x, two_q_), q_); }

 private:
  static constexpr double kProductMagic = 1.25 * 72057594037927936.0;  // 1.25 * 2^56

  __m512i q_, sixteen_q_;
  __m512d inverse_q_, product_magic_;
  uint64_t product_correction_;  // bits(M) 16q mod 2^64, added per term
  __m512i fold_offset_;          // bits(M') q + 2q: fold's correction and offset
  __m512i two_q_;
};

// dot_product_pair for coefficients [0, count), count a multiple of 8, and
// q < kFpQuotientModulusBound; with accumulate the outputs' values (below 8q)
// start the sums, with lazy_output the outputs are left in [0, 4q).
inline void dot_product_pair_fp(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                                const uint64_t* const* b, const uint64_t* const* a, std::size_t k,
                                std::size_t count, uint64_t q, bool accumulate, bool lazy_output) {
  constexpr std::size_t kBlock = 1024;
  constexpr std::size_t kLanes = 8;
  alignas(64) uint64_t sums[2][kBlock];
  const FpQuotientSums ops(q);
  const KeyRunPrefetcher prefetch_key(b, a, k, count, kBlock);
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t size = count - start < kBlock ? count - start : kBlock;
    for (std::size_t j = 0; j < k; j += 2) {
      // Digits j and j + 1 (j alone at the end of an odd k).
      const bool pair = j + 1 < k;
      const bool last = j + 2 >= k;
      const bool fold_after = !last && (j + 2) % FpQuotientSums::kFoldTerms == 0;
      // The products' constant, for the terms since the last fold.
      const std::size_t since_fold =
          last ? (k - 1) % FpQuotientSums::kFoldTerms + 1 : FpQuotientSums::kFoldTerms;
      const __m512i correction = ops.correction(since_fold);
      for (std::size_t i = 0; i < size; i += kLanes) {
        const std::size_t at = start + i;
        __m512i sum0, sum1;
        if (j != 0) {
          sum0 = _mm512_load_si512(sums[0] + i);
          sum1 = _mm512_load_si512(sums[1] + i);
        } else if (accumulate) {
          sum0 = _mm512_loadu_si512(out0 + at);
          sum1 = _mm512_loadu_si512(out1 + at);
        } else {
          sum0 = sum1 = _mm512_setzero_si512();
        }
        prefetch_key(j, start, size, i);
        const __m512i xv = _mm512_loadu_si512(x[j] + at);
        const __m512d xs = ops.scaled(xv);
        sum0 = ops.add_product(sum0, xv, xs, _mm512_loadu_si512(b[j] + at));
        sum1 = ops.add_product(sum1, xv, xs, _mm512_loadu_si512(a[j] + at));
        if (pair) {
          const __m512i xw = _mm512_loadu_si512(x[j + 1] + at);
          const __m512d ws = ops.scaled(xw);
          sum0 = ops.add_product(sum0, xw, ws, _mm512_loadu_si512(b[j + 1] + at));
          sum1 = ops.add_product(sum1, xw, ws, _mm512_loadu_si512(a[j + 1] + at));
        }
        if (last) {
          sum0 = ops.fold(_mm512_add_epi64(sum0, correction));
          sum1 = ops.fold(_mm512_add_epi64(sum1, correction));
          if (!lazy_output) {
            sum0 = ops.reduce_from_4q(sum0);
            sum1 = ops.reduce_from_4q(sum1);
          }
          _mm512_storeu_si512(out0 + at, sum0);
          _mm512_storeu_si512(out1 + at, sum1);
          continue;
        }
        if (fold_after) {
          sum0 = ops.fold(_mm512_add_epi64(sum0, correction));
          sum1 = ops.fold(_mm512_add_epi64(sum1, correction));
        }
        _mm512_store_si512(sums[0] + i, sum0);
        _mm512_store_si512(sums[1] + i, sum1);
      }
    }
  }
}

}  // namespace
}  // namespace heft::math::kernels
