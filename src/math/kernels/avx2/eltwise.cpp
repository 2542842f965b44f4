// AVX2 element-wise modular arithmetic, four 64-bit lanes per __m256i, for
// every modulus q < 2^61. Results are fully reduced to [0, q), hence equal to
// the scalar reference bit for bit. The few elements before the output's
// first 32-byte boundary and the tail after the last whole vector go to scalar.
// The products take the integer or the double-precision path of
// modular_arith.hpp.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "math/kernels/avx2/avx2_common.hpp"
#include "math/kernels/avx2/modular_arith.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::avx2 {
namespace {

// Stores compute(i) for the 4-element chunks of [0, n) and hands the rest to
// scalar(i, count): a head that brings out to a 32-byte boundary (so that
// stores, and loads from arrays with the same alignment, do not straddle
// cache lines; std::vector memory is only 16-byte aligned), and the tail.
// kUnroll chunks are computed before they are stored, which is valid because
// out may alias an input only exactly.
template <int kUnroll, typename Compute, typename Scalar>
HEFT_AVX2_INLINE void for_each_chunk(uint64_t* out, size_t n, Compute compute, Scalar scalar) {
  size_t head = (4 - reinterpret_cast<uintptr_t>(out) / sizeof(uint64_t) % 4) % 4;
  if (head > n) head = n;
  scalar(0, head);
  size_t i = head;
  for (; i + 4 * kUnroll <= n; i += 4 * kUnroll) {
    __m256i r[kUnroll];
    for (int k = 0; k < kUnroll; ++k)
      r[k] = compute(i + 4 * k);
    for (int k = 0; k < kUnroll; ++k)
      storeu(out + i + 4 * k, r[k]);
  }
  for (; i + 4 <= n; i += 4)
    storeu(out + i, compute(i));
  scalar(i, n - i);
}

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) { return reduce_once(_mm256_add_epi64(loadu(a + i), loadu(b + i)), qv); },
      [&](size_t i, size_t count) { scalar::add_mod(out + i, a + i, b + i, count, q); });
}

void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i d = _mm256_sub_epi64(loadu(a + i), loadu(b + i));  // negative iff a < b
        return select_by_sign(d, _mm256_add_epi64(d, qv), d);
      },
      [&](size_t i, size_t count) { scalar::sub_mod(out + i, a + i, b + i, count, q); });
}

void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i x = loadu(a + i);
        const __m256i zero = _mm256_cmpeq_epi64(x, _mm256_setzero_si256());
        return _mm256_andnot_si256(zero, _mm256_sub_epi64(qv, x));
      },
      [&](size_t i, size_t count) { scalar::negate_mod(out + i, a + i, count, q); });
}

void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::mul_mod(out + i, a + i, b + i, count, q);
  };
  if (use_double(q.value)) {
    const DoubleModulus d = make_double_modulus(q.value);
    for_each_chunk<4>(
        out, n, [&](size_t i) { return mul_mod_double(loadu(a + i), loadu(b + i), d); },
        scalar_part);
  } else {
    const BarrettModulus bm = make_barrett(q);
    for_each_chunk<1>(
        out, n,
        [&](size_t i) {
          __m256i hi, lo;
          mul_wide(loadu(a + i), loadu(b + i), hi, lo);
          return barrett_reduce(hi, lo, bm);
        },
        scalar_part);
  }
}

void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,
                    uint64_t q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::mul_scalar_mod(out + i, a + i, w, w_shoup, count, q);
  };
  if (use_double(q)) {
    const DoubleModulus d = make_double_modulus(q);
    const DoubleFixed wd = make_double_fixed(w, q);
    for_each_chunk<4>(
        out, n, [&](size_t i) { return mul_fixed_double(loadu(a + i), wd, d); }, scalar_part);
  } else {
    const IntModulus m = make_int_modulus(q);
    const ShoupOperand wv = make_shoup(w, w_shoup);
    for_each_chunk<2>(
        out, n, [&](size_t i) { return reduce_once(mul_shoup_lazy(loadu(a + i), wv, m), m.q); },
        scalar_part);
  }
}

void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n,
             const ModulusData& q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::fma_mod(out + i, a + i, b + i, c + i, count, q);
  };
  if (use_double(q.value)) {
    const DoubleModulus d = make_double_modulus(q.value);
    for_each_chunk<2>(
        out, n,
        [&](size_t i) { return fma_mod_double(loadu(a + i), loadu(b + i), loadu(c + i), d); },
        scalar_part);
  } else {
    const BarrettModulus bm = make_barrett(q);
    const __m256i lo_mask = set1(0xffffffffULL);
    for_each_chunk<1>(
        out, n,
        [&](size_t i) {
          // a*b + c < q^2 <= 2^(2L): c's halves join the partial products
          // (ll + lo32(c) < 2^64, and the middle sum keeps its headroom).
          const __m256i av = loadu(a + i), bv = loadu(b + i), cv = loadu(c + i);
          const __m256i a_hi = _mm256_srli_epi64(av, 32);
          const __m256i b_hi = _mm256_srli_epi64(bv, 32);
          const __m256i ll =
              _mm256_add_epi64(_mm256_mul_epu32(av, bv), _mm256_and_si256(cv, lo_mask));
          const __m256i lh = _mm256_mul_epu32(av, b_hi);
          const __m256i hl = _mm256_mul_epu32(a_hi, bv);
          const __m256i hh = _mm256_mul_epu32(a_hi, b_hi);
          const __m256i middle = _mm256_add_epi64(
              _mm256_add_epi64(lh, hl),
              _mm256_add_epi64(_mm256_srli_epi64(ll, 32), _mm256_srli_epi64(cv, 32)));
          const __m256i lo = _mm256_blend_epi32(ll, _mm256_slli_epi64(middle, 32), 0xAA);
          const __m256i hi = _mm256_add_epi64(hh, _mm256_srli_epi64(middle, 32));
          return barrett_reduce(hi, lo, bm);
        },
        scalar_part);
  }
}

void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,
                    const uint64_t* c, size_t n, uint64_t q) {
  const auto scalar_part = [&](size_t i, size_t count) {
    scalar::fma_scalar_mod(out + i, a + i, w, w_shoup, c + i, count, q);
  };
  if (use_double(q)) {
    const DoubleModulus d = make_double_modulus(q);
    const DoubleFixed wd = make_double_fixed(w, q);
    for_each_chunk<4>(
        out, n,
        [&](size_t i) {
          const __m256i product = mul_fixed_double(loadu(a + i), wd, d);
          return reduce_once(_mm256_add_epi64(product, loadu(c + i)), d.q_int);
        },
        scalar_part);
  } else {
    const IntModulus m = make_int_modulus(q);
    const ShoupOperand wv = make_shoup(w, w_shoup);
    for_each_chunk<2>(
        out, n,
        [&](size_t i) {
          const __m256i product = reduce_once(mul_shoup_lazy(loadu(a + i), wv, m), m.q);
          return reduce_once(_mm256_add_epi64(product, loadu(c + i)), m.q);
        },
        scalar_part);
  }
}

void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q);
  for_each_chunk<4>(
      out, n, [&](size_t i) { return reduce_once(loadu(a + i), qv); },
      [&](size_t i, size_t count) { scalar::reduce_from_2q(out + i, a + i, count, q); });
}

void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  const __m256i qv = set1(q), two_q = set1(2 * q);
  for_each_chunk<4>(
      out, n, [&](size_t i) { return reduce_once(reduce_once(loadu(a + i), two_q), qv); },
      [&](size_t i, size_t count) { scalar::reduce_from_4q(out + i, a + i, count, q); });
}

void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q) {
  // a to [0, q) first, so that every value stays below 2^63 (reduce_once's bound).
  const __m256i qv = set1(q), two_q = set1(2 * q), cv = set1(c);
  for_each_chunk<4>(
      out, n,
      [&](size_t i) {
        const __m256i reduced = reduce_once(reduce_once(loadu(a + i), two_q), qv);
        return reduce_once(_mm256_add_epi64(reduced, cv), qv);
      },
      [&](size_t i, size_t count) { scalar::add_scalar_mod(out + i, a + i, c, count, q); });
}

void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,
                        uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q) {
  // The difference goes through a small buffer that stays in L1, so the
  // operands are read once; the products are this file's own (double or
  // integer) paths.
  constexpr size_t kChunk = 256;
  alignas(32) uint64_t difference[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t count = std::min(kChunk, n - i);
    sub_mod(difference, a + i, b + i, count, q);
    if (c == nullptr) {
      mul_scalar_mod(out + i, difference, w, w_shoup, count, q);
    } else {
      fma_scalar_mod(out + i, difference, w, w_shoup, c + i, count, q);
    }
  }
}

void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,
                    size_t n) {
  scalar::permute_blocks(out, in, map, count, n);  // AVX2 has no 8-lane 64-bit permute
}

void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q) {
  // Shoup's method with w = 1, whose constant floor(2^64 / q) is barrett64:
  // a - hi64(a * barrett64) * q lies in [0, 2q) for any 64-bit a.
  const IntModulus m = make_int_modulus(q.value);
  const ShoupOperand one = make_shoup(1, q.barrett64);
  for_each_chunk<2>(
      out, n, [&](size_t i) { return reduce_once(mul_shoup_lazy(loadu(a + i), one, m), m.q); },
      [&](size_t i, size_t count) { scalar::reduce_any(out + i, a + i, count, q); });
}

}  // namespace heft::math::kernels::avx2
