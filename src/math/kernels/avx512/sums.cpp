// AVX-512 (F/DQ/VL/BW) long sums on 8 x 64-bit lanes: dot_product_pair (key
// switching's inner product), weighted_sum_mod (base conversion's sum) and
// scaled_sum_double. Below 2^55 the modular sums take floating-point
// quotients (avx512_dot_product_fp.hpp, avx512_weighted_sum_fp.hpp), up to
// 60 bits the split sums (split_sums.hpp), and 61-bit moduli reduce per
// product.
#include "math/kernels/avx512/modular_arith.hpp"
#include "math/kernels/avx512_dot_product_fp.hpp"
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/avx512_weighted_sum_fp.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/split_sums.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

// The vector policy for split_sums.hpp (key switching's inner product and
// base conversion's sum for operands up to 60 bits; see there for the method).
class Avx512SplitOps {
 public:
  using Vec = __m512i;
  static constexpr std::size_t kLanes = 8;
  struct Halves {
    __m512i low, high;  // u0 = u mod 2^s, u1 = u >> s
  };
  struct Sum {
    __m512i low, middle, high;
  };

  // b: the bit bound of both operands (2 <= b <= 60), q < 2^b.
  Avx512SplitOps(const ModulusData& q, int b)
      : plan_(plan_split_sum(q.value, b)),
        shift_(_mm_cvtsi32_si128(plan_.shift)),
        mask_(set1((uint64_t{1} << plan_.shift) - 1)),
        two_2s_(plan_.two_2s_mod_q, shoup_of(plan_.two_2s_mod_q, q.value), q.value),
        one_(1, q.barrett64, q.value),
        four_q_(set1(4 * q.value)) {}

  const SplitSumPlan& plan() const { return plan_; }
  static __m512i load(const uint64_t* p) { return _mm512_loadu_si512(p); }
  static __m512i load_aligned(const uint64_t* p) { return _mm512_load_si512(p); }
  static void store(uint64_t* p, __m512i v) { _mm512_storeu_si512(p, v); }
  static void store_aligned(uint64_t* p, __m512i v) { _mm512_store_si512(p, v); }
  static __m512i broadcast(uint64_t w) { return set1(w); }

  Halves split(__m512i u) const {
    return {_mm512_and_si512(u, mask_), _mm512_srl_epi64(u, shift_)};
  }
  static Sum sum_of(__m512i carried_in) {
    return {carried_in, _mm512_setzero_si512(), _mm512_setzero_si512()};
  }
  static void add_product(Sum& sum, const Halves& u, const Halves& v) {
    sum.low = _mm512_add_epi64(sum.low, _mm512_mul_epu32(u.low, v.low));
    sum.middle = _mm512_add_epi64(sum.middle, _mm512_add_epi64(_mm512_mul_epu32(u.low, v.high),
                                                               _mm512_mul_epu32(u.high, v.low)));
    sum.high = _mm512_add_epi64(sum.high, _mm512_mul_epu32(u.high, v.high));
  }

  // The sum's value mod q, in [0, q). Carrying low into middle and middle
  // into high leaves low + middle 2^s below 2^2s and high below 2^64 (its own
  // bound plus 2^(64-s)); high 2^2s mod q is one Shoup product by 2^2s mod q,
  // which takes any 64-bit input, in [0, 4q).
  __m512i finish(Sum sum) const {
    sum.middle = _mm512_add_epi64(sum.middle, _mm512_srl_epi64(sum.low, shift_));
    sum.high = _mm512_add_epi64(sum.high, _mm512_srl_epi64(sum.middle, shift_));
    const __m512i low_part =
        _mm512_or_si512(_mm512_and_si512(sum.low, mask_),
                        _mm512_sll_epi64(_mm512_and_si512(sum.middle, mask_), shift_));  // < 2^2s
    // low_part mod q in [0, q): below 4q two subtractions do it, otherwise
    // (inputs wider than q) a Shoup product by 1 does.
    const __m512i low_reduced = plan_.low_part_below_4q
                                    ? reduce_once(reduce_once(low_part, one_.two_q), one_.q)
                                    : one_(low_part);
    const __m512i total = _mm512_add_epi64(low_reduced, two_2s_.lazy(sum.high));  // [0, 5q)
    return reduce_once(reduce_once(reduce_once(total, four_q_), one_.two_q), one_.q);
  }

  // The same value in [0, 8q), without finish's five conditional
  // subtractions: low_part (below 2^2s <= 4q, or reduced by a Shoup product
  // when q is narrower than the operands) plus high's Shoup product.
  __m512i finish_lazy(Sum sum) const {
    sum.middle = _mm512_add_epi64(sum.middle, _mm512_srl_epi64(sum.low, shift_));
    sum.high = _mm512_add_epi64(sum.high, _mm512_srl_epi64(sum.middle, shift_));
    const __m512i low_part =
        _mm512_or_si512(_mm512_and_si512(sum.low, mask_),
                        _mm512_sll_epi64(_mm512_and_si512(sum.middle, mask_), shift_));
    const __m512i low = plan_.low_part_below_4q ? low_part : one_(low_part);
    return _mm512_add_epi64(low, two_2s_.lazy(sum.high));
  }

 private:
  static uint64_t shoup_of(uint64_t w, uint64_t q) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / q);
  }

  SplitSumPlan plan_;
  __m128i shift_;        // s
  __m512i mask_;         // 2^s - 1
  ShoupProduct two_2s_;  // times 2^2s mod q, for high
  ShoupProduct one_;     // times 1, to reduce a 64-bit value
  __m512i four_q_;
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
  // Below 2^55 floating-point quotients (avx512_dot_product_fp.hpp: fewer
  // instructions per term), up to 60 bits the split sums.
  size_t first = 0;
  if (q.value < kFpQuotientModulusBound) {
    first = n / 8 * 8;
    dot_product_pair_fp(out0, out1, x, b, a, k, first, q.value, accumulate, lazy_output);
  } else if (const int bits = 64 - __builtin_clzll(q.value); bits <= kMaxSplitBits) {
    first = n / 8 * 8;
    dot_product_pair_split(Avx512SplitOps(q, bits), out0, out1, x, b, a, k, first, accumulate,
                           lazy_output);
  }
  // The last n mod 8 coefficients, and 61-bit moduli: a product at a time.
  constexpr size_t kProductBlock = 1024;
  dot_product_pair_by_products(mul_mod, fma_mod, out0, out1, x, b, a, k, first, n, kProductBlock, q,
                               accumulate);
}

void weighted_sum_mod(uint64_t* out, const uint64_t* const* rows, size_t column, const uint64_t* w,
                      const uint64_t* w_shoup, size_t k, size_t n, uint32_t input_bits,
                      const ModulusData& q) {
  if (k == 0) {
    for (size_t c = 0; c < n; ++c)
      out[c] = 0;
    return;
  }
  const int q_bits = 64 - __builtin_clzll(q.value);
  const int bits = static_cast<int>(input_bits) > q_bits ? static_cast<int>(input_bits) : q_bits;
  size_t done = 0;
  if (const std::size_t group = weighted_sum_fp_group(q.value, input_bits); group >= 1) {
    done = n / 8 * 8;
    weighted_sum_fp(out, rows, column, w, w_shoup, k, done, q.value, input_bits, group);
  } else if (bits <= kMaxSplitBits) {
    done = n / 16 * 16;
    weighted_sum_split(Avx512SplitOps(q, bits), out, rows, column, w, k, done);
  } else {
    // 61-bit operands: term by term, a Shoup product (any 64-bit input) added
    // into out with one conditional subtraction; each weight's vectors are
    // built once.
    done = n / 8 * 8;
    const __m512i qv = set1(q.value);
    for (size_t i = 0; i < k; ++i) {
      const ShoupProduct weight(w[i], w_shoup[i], q.value);
      const uint64_t* row = rows[i] + column;
      for (size_t c = 0; c < done; c += 8) {
        const __m512i product = weight(_mm512_loadu_si512(row + c));
        _mm512_storeu_si512(
            out + c, i == 0
                         ? product
                         : reduce_once(_mm512_add_epi64(_mm512_loadu_si512(out + c), product), qv));
      }
    }
  }
  if (done < n)
    scalar::weighted_sum_mod(out + done, rows, column + done, w, w_shoup, k, n - done, input_bits,
                             q);
}

void scaled_sum_double(double* sums, const uint64_t* rows, size_t stride, const double* factors,
                       size_t k, size_t n) {
  // Four vectors per step: four independent chains of multiply-adds.
  const auto step = [&]<int kVectors>(size_t c) {
    __m512d acc[kVectors];
    for (int v = 0; v < kVectors; ++v)
      acc[v] = _mm512_setzero_pd();
    for (size_t i = 0; i < k; ++i) {
      const __m512d factor = _mm512_set1_pd(factors[i]);
      const uint64_t* row = rows + i * stride + c;
      for (int v = 0; v < kVectors; ++v) {
        const __m512d value =
            _mm512_cvt_roundepu64_pd(_mm512_loadu_si512(row + 8 * v), kRoundNearest);
        acc[v] = _mm512_fmadd_round_pd(value, factor, acc[v], kRoundNearest);
      }
    }
    for (int v = 0; v < kVectors; ++v)
      _mm512_storeu_pd(sums + c + 8 * v, acc[v]);
  };
  size_t c = 0;
  for (; c + 32 <= n; c += 32)
    step.template operator()<4>(c);
  for (; c + 8 <= n; c += 8)
    step.template operator()<1>(c);
  for (; c < n; ++c) {
    double sum = 0.0;
    for (size_t i = 0; i < k; ++i)
      sum += static_cast<double>(rows[i * stride + c]) * factors[i];
    sums[c] = sum;
  }
}

}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
