// AVX2 long modular sums: dot_product_pair (key switching's inner product)
// and weighted_sum_mod (base conversion's sum), which add many products
// before reducing. Below 2^50 they use the double path of modular_arith.hpp;
// for operands up to 60 bits they split each operand in two halves and keep
// three plain 64-bit sums of the partial products (split_sums.hpp), four
// multiplies a product; 61-bit operands keep 128-bit sums or reduce per
// product.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "math/kernels/avx2/avx2_common.hpp"
#include "math/kernels/avx2/modular_arith.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/split_sums.hpp"

namespace heft::math::kernels::avx2 {
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
void weighted_sum_double(uint64_t* out, const uint64_t* const* rows, size_t column,
                         const uint64_t* w, size_t k, size_t first, size_t count, uint64_t q) {
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
      const uint64_t* row = rows[i] + column + c;
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

void weighted_sum_mod(uint64_t* out, const uint64_t* const* rows, size_t column, const uint64_t* w,
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
    weighted_sum_double(out, rows, column, w, k, 0, done, q.value);
  } else if (const int bits = std::max<int>(input_bits, 64 - __builtin_clzll(q.value));
             bits <= kMaxSplitBits) {
    done = n / 8 * 8;
    weighted_sum_split(Avx2SplitOps(q, bits), out, rows, column, w, k, done);
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
            reduce_once(mul_shoup_lazy(loadu(rows[i] + column + done), weight, m), m.q);
        acc = reduce_once(_mm256_add_epi64(acc, product), m.q);
      }
      storeu(out + done, acc);
    }
  }
  if (done < n)
    scalar::weighted_sum_mod(out + done, rows, column + done, w, w_shoup, k, n - done, input_bits,
                             q);
}

}  // namespace heft::math::kernels::avx2
