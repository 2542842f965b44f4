// AVX-512 (F/DQ/VL/BW) element-wise modular arithmetic on 8 x 64-bit lanes,
// for any q < 2^61. Results equal scalar/eltwise.cpp bit for bit (both are
// fully reduced to [0, q)).
//
// Reductions use x -> min(x, x - bound) (unsigned): when x < bound the
// subtraction wraps above x. 64 x 64-bit high halves are assembled from
// 32 x 32-bit _mm512_mul_epu32 partial products; where an estimate is enough
// (quotients) the carry out of the low half is dropped, leaving the quotient
// up to 2 short, which costs one extra conditional subtraction of 2q.
// The loop over the arrays (masked tails included) is map_lanes in
// avx512_eltwise_loops.hpp; the function objects below are its operations.
#include "math/kernels/avx512_dot_product_fp.hpp"
#include "math/kernels/avx512_eltwise_loops.hpp"
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/avx512_weighted_sum_fp.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/split_sums.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

// floor(a * b / 2^64), exact.
inline __m512i mulhi_exact(__m512i a, __m512i b, __m512i mask32) {
  const __m512i a_hi = _mm512_srli_epi64(a, 32);
  const __m512i b_hi = _mm512_srli_epi64(b, 32);
  const __m512i ll = _mm512_mul_epu32(a, b);
  const __m512i lh = _mm512_mul_epu32(a, b_hi);
  const __m512i hl = _mm512_mul_epu32(a_hi, b);
  const __m512i hh = _mm512_mul_epu32(a_hi, b_hi);
  // Sum the middle column in two steps; neither overflows 64 bits because a
  // 32 x 32-bit product is at most 2^64 - 2^33 + 1.
  const __m512i mid = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32));
  const __m512i mid2 = _mm512_add_epi64(lh, _mm512_and_si512(mid, mask32));
  return _mm512_add_epi64(
      hh, _mm512_add_epi64(_mm512_srli_epi64(mid, 32), _mm512_srli_epi64(mid2, 32)));
}

struct AddMod {
  __m512i q;
  __m512i operator()(__m512i a, __m512i b) const { return reduce_once(_mm512_add_epi64(a, b), q); }
};

// a - b wraps when a < b; then a - b + q is the (smaller) answer.
struct SubMod {
  __m512i q;
  __m512i operator()(__m512i a, __m512i b) const {
    const __m512i d = _mm512_sub_epi64(a, b);
    return _mm512_min_epu64(d, _mm512_add_epi64(d, q));
  }
};

// q - a, except 0 for a = 0.
struct NegateMod {
  __m512i q;
  __m512i operator()(__m512i a) const {
    return _mm512_maskz_sub_epi64(_mm512_test_epi64_mask(a, a), q, a);
  }
};

// Barrett reduction of a 128-bit x < q^2 + q (a product plus an addend below
// q), with L = bit length of q, s = L - 2 and mu = floor(2^(64 + s) / q) < 2^63:
// x1 = floor(x / 2^s) < 2^(L + 2) <= 2^63 and Q = floor(x1 mu / 2^64) is at most
// 1 below floor(x / q) (the truncations cost less than x / 2^(64 + s) < 1/2 and
// 2^s / q <= 1/2); with the approximate high half, at most 3 below. So
// x - Q q is in [0, 4q), and exact in the low 64 bits.
struct Barrett128 {
  __m512i q, two_q, mu, mu_hi, shift_right, shift_left, mask32;

  Barrett128(const ModulusData& m) {
    const uint64_t bits = 64 - static_cast<uint64_t>(__builtin_clzll(m.value));
    const uint64_t s = bits - 2;  // q >= 2, so bits >= 2
    // floor(2^(64+s) / q) = floor(2^128 / q) >> (64 - s).
    const uint64_t mu_scalar =
        s == 0 ? m.barrett_hi : (m.barrett_hi << s) | (m.barrett_lo >> (64 - s));
    q = set1(m.value);
    two_q = set1(2 * m.value);
    mu = set1(mu_scalar);
    mu_hi = set1(mu_scalar >> 32);
    shift_right = set1(s);
    shift_left = set1(64 - s);  // 64 when s = 0: vpsllvq then yields 0
    mask32 = set1(0xffffffffu);
  }

  // (hi, lo) = x -> x mod q.
  __m512i reduce(__m512i hi, __m512i lo) const {
    const __m512i x1 =
        _mm512_or_si512(_mm512_sllv_epi64(hi, shift_left), _mm512_srlv_epi64(lo, shift_right));
    const __m512i quotient = mulhi_approx(x1, mu, mu_hi);
    const __m512i r = _mm512_sub_epi64(lo, _mm512_mullo_epi64(quotient, q));  // [0, 4q)
    return reduce_once(reduce_once(r, two_q), q);
  }
};

struct MulMod {
  Barrett128 barrett;
  __m512i operator()(__m512i a, __m512i b) const {
    return barrett.reduce(mulhi_exact(a, b, barrett.mask32), _mm512_mullo_epi64(a, b));
  }
};

struct FmaMod {
  Barrett128 barrett;
  __m512i one;
  __m512i operator()(__m512i a, __m512i b, __m512i c) const {
    __m512i hi = mulhi_exact(a, b, barrett.mask32);
    const __m512i lo = _mm512_add_epi64(_mm512_mullo_epi64(a, b), c);
    // Carry into the high word where the low word wrapped (lo < c).
    const __mmask8 no_carry = _mm512_cmpge_epu64_mask(lo, c);
    hi = _mm512_mask_add_epi64(hi, static_cast<__mmask8>(~no_carry), hi, one);
    return barrett.reduce(hi, lo);
  }
};

// Shoup: a * w - Q q with Q = approximate floor(a w_shoup / 2^64): at most 1
// (exact) + 2 (approximation) short of floor(a w / q), so in [0, 4q), for any
// 64-bit a (4q < 2^63, so the low 64 bits of the difference are exact).
struct ShoupProduct {
  __m512i w, w_shoup, w_shoup_hi, q, two_q;
  ShoupProduct(uint64_t w_scalar, uint64_t w_shoup_scalar, uint64_t q_scalar)
      : w(set1(w_scalar)),
        w_shoup(set1(w_shoup_scalar)),
        w_shoup_hi(set1(w_shoup_scalar >> 32)),
        q(set1(q_scalar)),
        two_q(set1(2 * q_scalar)) {}
  // a * w mod q in [0, 4q).
  __m512i lazy(__m512i a) const {
    const __m512i quotient = mulhi_approx(a, w_shoup, w_shoup_hi);
    return _mm512_sub_epi64(_mm512_mullo_epi64(a, w), _mm512_mullo_epi64(quotient, q));
  }
  // a * w mod q in [0, q).
  __m512i operator()(__m512i a) const { return reduce_once(reduce_once(lazy(a), two_q), q); }
};

struct FmaScalar {
  ShoupProduct product;
  __m512i operator()(__m512i a, __m512i c) const {
    return reduce_once(_mm512_add_epi64(product(a), c), product.q);
  }
};

// a from [0, 4q) to [0, q), then + c.
struct AddScalar {
  __m512i q, two_q, c;
  __m512i operator()(__m512i a) const {
    return reduce_once(_mm512_add_epi64(reduce_once(reduce_once(a, two_q), q), c), q);
  }
};

// (a - b) w: a - b + q is in (0, 2q), within Shoup's input range.
struct SubMulScalar {
  ShoupProduct product;
  __m512i operator()(__m512i a, __m512i b) const {
    return product(_mm512_add_epi64(_mm512_sub_epi64(a, b), product.q));
  }
};

struct SubFmaScalar {
  SubMulScalar scaled_difference;
  __m512i operator()(__m512i a, __m512i b, __m512i c) const {
    return reduce_once(_mm512_add_epi64(scaled_difference(a, b), c), scaled_difference.product.q);
  }
};

struct ReduceFrom2q {
  __m512i q;
  __m512i operator()(__m512i a) const { return reduce_once(a, q); }
};

struct ReduceFrom4q {
  __m512i q, two_q;
  __m512i operator()(__m512i a) const { return reduce_once(reduce_once(a, two_q), q); }
};

// Q = approximate floor(a floor(2^64 / q) / 2^64) is at most 1 (exact) + 2
// short of floor(a / q), so a - Q q is in [0, 4q).
struct ReduceAny {
  __m512i q, two_q, barrett, barrett_hi;
  __m512i operator()(__m512i a) const {
    const __m512i quotient = mulhi_approx(a, barrett, barrett_hi);
    const __m512i r = _mm512_sub_epi64(a, _mm512_mullo_epi64(quotient, q));
    return reduce_once(reduce_once(r, two_q), q);
  }
};

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

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  map_lanes(out, n, AddMod{set1(q)}, a, b);
}

void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  map_lanes(out, n, SubMod{set1(q)}, a, b);
}

void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  map_lanes(out, n, NegateMod{set1(q)}, a);
}

void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) {
  map_lanes(out, n, MulMod{Barrett128(q)}, a, b);
}

void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,
                    uint64_t q) {
  map_lanes(out, n, ShoupProduct(w, w_shoup, q), a);
}

void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n,
             const ModulusData& q) {
  map_lanes(out, n, FmaMod{Barrett128(q), set1(1)}, a, b, c);
}

void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,
                    const uint64_t* c, size_t n, uint64_t q) {
  map_lanes(out, n, FmaScalar{ShoupProduct(w, w_shoup, q)}, a, c);
}

void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q) {
  map_lanes(out, n, AddScalar{set1(q), set1(2 * q), set1(c)}, a);
}

void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,
                        uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q) {
  const SubMulScalar scaled_difference{ShoupProduct(w, w_shoup, q)};
  if (c == nullptr) {
    map_lanes(out, n, scaled_difference, a, b);
  } else {
    map_lanes(out, n, SubFmaScalar{scaled_difference}, a, b, c);
  }
}

void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,
                    size_t n) {
  // One load of the source block and one permute per block: vpermq reads only
  // the low 3 bits of each 64-bit index, which are the offsets within the block.
  const size_t block_mask = (n - 1) & ~size_t{7};
  for (size_t block = 0; block < count; block += 8) {
    const __m512i offsets =
        _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(map + block)));
    const __m512i source = _mm512_loadu_si512(in + (map[block] & block_mask));
    _mm512_storeu_si512(out + block, _mm512_permutexvar_epi64(offsets, source));
  }
}

void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  map_lanes(out, n, ReduceFrom2q{set1(q)}, a);
}

void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  map_lanes(out, n, ReduceFrom4q{set1(q), set1(2 * q)}, a);
}

void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q) {
  map_lanes(out, n,
            ReduceAny{set1(q.value), set1(2 * q.value), set1(q.barrett64), set1(q.barrett64 >> 32)},
            a);
}

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

void weighted_sum_mod(uint64_t* out, const uint64_t* y, size_t stride, const uint64_t* w,
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
  if (weighted_sum_fp_fits(q.value, input_bits, k)) {
    done = n / 8 * 8;
    weighted_sum_fp(out, y, stride, w, w_shoup, k, done, q.value, input_bits);
  } else if (bits <= kMaxSplitBits) {
    done = n / 16 * 16;
    weighted_sum_split(Avx512SplitOps(q, bits), out, y, stride, w, k, done);
  } else {
    // 61-bit operands: term by term, a Shoup product (any 64-bit input) added
    // into out with one conditional subtraction; each weight's vectors are
    // built once.
    done = n / 8 * 8;
    const __m512i qv = set1(q.value);
    for (size_t i = 0; i < k; ++i) {
      const ShoupProduct weight(w[i], w_shoup[i], q.value);
      const uint64_t* row = y + i * stride;
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
    scalar::weighted_sum_mod(out + done, y + done, stride, w, w_shoup, k, n - done, input_bits, q);
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
