// Base conversion's sum (weighted_sum_mod in kernel_api.hpp) on AVX-512 with
// floating-point quotients, for inputs below 2^b, b <= 55, and q < 2^55:
// BFV's conversions between SEAL's 55-bit primes and a 50-bit auxiliary
// base at N = 32768, where the split sums of split_sums.hpp spent ten
// instructions per term (four of them multiplies) and these spend five.
//
// out = sum_i y_i w_i mod q with fixed weights w_i < q. Each term y w becomes
// r = y w - Q q, with Q an estimate of X = y w / q < 2^b computed in doubles:
// W = w / q once per weight, from its Shoup constant floor(w 2^64 / q) (one
// rounding, no division), and one fused multiply-add y W + M with
// M = 1.25 * 2^a, a = max(52, b + 1). X is below half of 2^a, so the sum lies
// in [2^a, 2^(a+1)) and rounds to a multiple of g = 2^(a-52); its bit pattern
// minus M's is Q / g, an integer without a conversion instruction (the
// technique of avx512_dot_product_fp.hpp). |Q - X| is at most
// E = g/2 (the last rounding) + half an ulp of y (b > 53; W <= 1)
//   + X times two roundings of relative 2^-53 (W's, and the multiply-add's
//     product should it round twice, as emulation may)
//   + y 2^-64 (the Shoup constant's floor),
// so |r| <= E q. For b = 55: E < 19.
//
// Per term the kernel adds y w (vpmullq, modulo 2^64) to one sum and the
// multiply-add's bit pattern to another: a conversion, the multiply-add, one
// vpmullq and two adds. At the end S = sum(y w) - g q sum(bits) + k g q
// bits(M), all modulo 2^64, is the exact signed sum of the remainders,
// |S| <= k E q (plus q carried in from an earlier group), kept below 2^62
// by taking at most weighted_sum_fp_group terms at a time.
// One more estimate, round(S / q) with M' = 1.5 * 2^52 (|S / q| <= k E is
// far below 2^51; 1/q is a plain division, good to 2^-52 in any rounding
// mode), leaves S - round(S / q) q within (1/2 + 2^-30) q in magnitude;
// adding q and one conditional subtraction give [0, q). Every rounding in
// the vector instructions is to nearest by their own encoding.
//
// Included only by kernel files compiled with AVX-512 flags; everything is
// in an anonymous namespace (internal linkage, see kernel_api.hpp).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "math/kernels/avx512_dot_product_fp.hpp"
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {
namespace {

// Inputs and q must be below 2^kFpWeightedSumBits for weighted_sum_fp.
constexpr uint32_t kFpWeightedSumBits = 55;
// Terms a group may have (their doubles live on the stack).
constexpr std::size_t kFpWeightedSumMaxTerms = 64;

// a (the binade of M) for inputs below 2^input_bits.
inline int weighted_sum_magic_exponent(uint32_t input_bits) {
  return input_bits + 1 > 52 ? static_cast<int>(input_bits) + 1 : 52;
}

// E, the bound on |Q - X| above, rounded up a little.
inline double weighted_sum_quotient_error(uint32_t input_bits) {
  const int b = static_cast<int>(input_bits);
  const double g = power_of_two(weighted_sum_magic_exponent(input_bits) - 52);
  const double y_rounding = b > 53 ? 1.01 * power_of_two(b - 54) : 0.0;
  return g / 2 + y_rounding + 2.01 * power_of_two(b - 53) + power_of_two(b - 64);
}

// Whether a group of k terms fits one sum: with a carried-in value below q
// the sum of remainders stays below 2^62 ((k E + 1) q) and k E + 1 below
// 2^20 (so the last estimate is off by 2^-30 at most).
inline bool weighted_sum_fp_group_fits(uint64_t q, uint32_t input_bits, std::size_t k) {
  if (k == 0 || k > kFpWeightedSumMaxTerms || input_bits > kFpWeightedSumBits ||
      q >= (uint64_t{1} << kFpWeightedSumBits)) {
    return false;
  }
  const double spread = static_cast<double>(k) * weighted_sum_quotient_error(input_bits) + 1;
  return spread * static_cast<double>(q) <= 0x1p62 && spread <= 0x1p20;
}

// The most terms a group takes (0 if not even one fits: then
// weighted_sum_fp does not apply). 55-bit inputs and q: 7; 50 bits: 64.
// Solved rather than searched: base conversion calls this per block.
inline std::size_t weighted_sum_fp_group(uint64_t q, uint32_t input_bits) {
  if (!weighted_sum_fp_group_fits(q, input_bits, 1)) return 0;
  const double error = weighted_sum_quotient_error(input_bits);
  const double by_sum = (0x1p62 / static_cast<double>(q) - 1) / error;
  const double by_estimate = (0x1p20 - 1) / error;
  std::size_t group = static_cast<std::size_t>(by_sum < by_estimate ? by_sum : by_estimate);
  if (group > kFpWeightedSumMaxTerms) group = kFpWeightedSumMaxTerms;
  // The doubles above round: settle on the exact test.
  while (group > 1 && !weighted_sum_fp_group_fits(q, input_bits, group))
    --group;
  while (group < kFpWeightedSumMaxTerms && weighted_sum_fp_group_fits(q, input_bits, group + 1))
    ++group;
  return group;
}

// weighted_sum_mod for coefficients [0, count), count a multiple of 8, with
// group = weighted_sum_fp_group(q, input_bits) >= 1. Longer sums go in groups of
// that many terms: each group's sum is reduced to [0, q) and carried into
// the next, in registers.
inline void weighted_sum_fp(uint64_t* out, const uint64_t* const* rows, std::size_t column,
                            const uint64_t* w, const uint64_t* w_shoup, std::size_t k,
                            std::size_t count, uint64_t q, uint32_t input_bits, std::size_t group) {
  const int a = weighted_sum_magic_exponent(input_bits);
  const double magic = 1.25 * power_of_two(a);
  const uint64_t g_q = (uint64_t{1} << (a - 52)) * q;
  const __m512d inverse_q = _mm512_set1_pd(1.0 / static_cast<double>(q));
  const __m512d product_magic = _mm512_set1_pd(magic);
  const __m512i g_q_v = set1(g_q);
  const __m512i q_v = set1(q);
  // bits(M') q + q: the last estimate's correction and the shift to (0, 2q).
  const __m512i final_offset = set1(bits_of(kNearestIntegerMagic) * q + q);

  // W_i = w_i / q from floor(w_i 2^64 / q): one rounding, then an exact
  // scaling by 2^-64; for the terms [first, first + terms) of a chunk.
  double scaled[kFpWeightedSumMaxTerms];
  const auto scale_weights = [&](std::size_t first, std::size_t terms) {
    for (std::size_t i = 0; i < terms; ++i) {
      const __m512d shoup = _mm512_cvt_roundepu64_pd(set1(w_shoup[first + i]), kRoundNearest);
      alignas(64) double lanes[8];
      _mm512_store_pd(lanes, _mm512_mul_pd(shoup, _mm512_set1_pd(power_of_two(-64))));
      scaled[i] = lanes[0];
    }
  };

  // Chunks of about kRowsPerPass terms (whole groups where a group is
  // shorter; kernel_api.hpp), each over all coefficients; the groups of a
  // chunk carry their sums in registers, a chunk after the first starts
  // from what out holds.
  const std::size_t chunk_terms =
      group < kRowsPerPass ? kRowsPerPass / group * group : kRowsPerPass;
  for (std::size_t chunk = 0; chunk < k; chunk += chunk_terms) {
    const std::size_t terms = k - chunk < chunk_terms ? k - chunk : chunk_terms;
    scale_weights(chunk, terms);
    const uint64_t* const* chunk_rows = rows + chunk;
    const uint64_t* chunk_weights = w + chunk;
    // Four vectors per step (four independent pairs of sums for the core
    // to overlap), then one at a time for what is left.
    const auto step = [&]<int kVectors>(std::size_t c) {
      __m512i sums[kVectors];
      for (int v = 0; v < kVectors; ++v)
        sums[v] = chunk > 0 ? _mm512_loadu_si512(out + c + 8 * v) : _mm512_setzero_si512();
      for (std::size_t first = 0; first < terms; first += group) {
        const std::size_t last = terms - first < group ? terms : first + group;
        __m512i products[kVectors], quotients[kVectors];
        for (int v = 0; v < kVectors; ++v) {
          products[v] = sums[v];
          quotients[v] = _mm512_setzero_si512();
        }
        for (std::size_t i = first; i < last; ++i) {
          const __m512i weight = set1(chunk_weights[i]);
          const __m512d weight_over_q = _mm512_set1_pd(scaled[i]);
          const uint64_t* row = chunk_rows[i] + column + c;
          for (int v = 0; v < kVectors; ++v) {
            const __m512i values = _mm512_loadu_si512(row + 8 * v);
            const __m512d estimate =
                _mm512_fmadd_round_pd(_mm512_cvt_roundepu64_pd(values, kRoundNearest),
                                      weight_over_q, product_magic, kRoundNearest);
            products[v] = _mm512_add_epi64(products[v], _mm512_mullo_epi64(values, weight));
            quotients[v] = _mm512_add_epi64(quotients[v], _mm512_castpd_si512(estimate));
          }
        }
        // (last - first) g q bits(M): what the quotients left out (mod 2^64).
        const __m512i sum_offset = set1((last - first) * g_q * bits_of(magic));
        for (int v = 0; v < kVectors; ++v) {
          const __m512i sum = _mm512_add_epi64(
              _mm512_sub_epi64(products[v], _mm512_mullo_epi64(quotients[v], g_q_v)), sum_offset);
          const __m512i shifted =
              subtract_nearest_multiple(sum, inverse_q, q_v, final_offset);  // (0, 2q)
          sums[v] = reduce_once(shifted, q_v);
        }
      }
      for (int v = 0; v < kVectors; ++v)
        _mm512_storeu_si512(out + c + 8 * v, sums[v]);
    };
    std::size_t c = 0;
    for (; c + 32 <= count; c += 32)
      step.template operator()<4>(c);
    for (; c < count; c += 8)
      step.template operator()<1>(c);
  }
}

}  // namespace
}  // namespace heft::math::kernels
