// Scalar (portable) element-wise modular arithmetic: the reference for the
// vector levels. Products use unsigned __int128 and Barrett reduction with
// floor(2^128 / q); products by a fixed operand use Shoup's method.
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::scalar {
namespace {

inline uint64_t reduce_once(uint64_t x, uint64_t bound) {
  return x >= bound ? x - bound : x;
}

// x mod q for any 128-bit x; the quotient estimate is short by at most 2.
inline uint64_t barrett_reduce_128(unsigned __int128 x, const ModulusData& q) {
  const uint64_t x_lo = static_cast<uint64_t>(x);
  const uint64_t x_hi = static_cast<uint64_t>(x >> 64);
  const unsigned __int128 lo_lo = static_cast<unsigned __int128>(x_lo) * q.barrett_lo;
  const unsigned __int128 lo_hi = static_cast<unsigned __int128>(x_lo) * q.barrett_hi;
  const unsigned __int128 hi_lo = static_cast<unsigned __int128>(x_hi) * q.barrett_lo;
  const unsigned __int128 middle =
      (lo_lo >> 64) + static_cast<uint64_t>(lo_hi) + static_cast<uint64_t>(hi_lo);
  const uint64_t quotient = x_hi * q.barrett_hi + static_cast<uint64_t>(lo_hi >> 64) +
                            static_cast<uint64_t>(hi_lo >> 64) +
                            static_cast<uint64_t>(middle >> 64);
  const uint64_t r = x_lo - quotient * q.value;
  return reduce_once(reduce_once(r, q.value), q.value);
}

inline uint64_t mul_shoup(uint64_t x, uint64_t w, uint64_t w_shoup, uint64_t q) {
  const uint64_t quotient =
      static_cast<uint64_t>((static_cast<unsigned __int128>(x) * w_shoup) >> 64);
  return reduce_once(x * w - quotient * q, q);
}

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = reduce_once(a[i] + b[i], q);
}

void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = a[i] >= b[i] ? a[i] - b[i] : a[i] + q - b[i];
}

void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = a[i] == 0 ? 0 : q - a[i];
}

void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = barrett_reduce_128(static_cast<unsigned __int128>(a[i]) * b[i], q);
  }
}

void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,
                    uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = mul_shoup(a[i], w, w_shoup, q);
}

void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n,
             const ModulusData& q) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = barrett_reduce_128(static_cast<unsigned __int128>(a[i]) * b[i] + c[i], q);
  }
}

void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,
                    const uint64_t* c, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = reduce_once(mul_shoup(a[i], w, w_shoup, q) + c[i], q);
}

void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q) {
  // a to [0, q) first (from [0, 4q)), so that a + c < 2q needs one step.
  for (size_t i = 0; i < n; ++i)
    out[i] = reduce_once(reduce_once(reduce_once(a[i], 2 * q), q) + c, q);
}

void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,
                        uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q) {
  // a - b + q is in (0, 2q), within Shoup's input range.
  for (size_t i = 0; i < n; ++i) {
    const uint64_t product = mul_shoup(a[i] - b[i] + q, w, w_shoup, q);
    out[i] = c == nullptr ? product : reduce_once(product + c[i], q);
  }
}

void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,
                    size_t n) {
  const size_t block_mask = (n - 1) & ~size_t{7};
  for (size_t block = 0; block < count; block += 8) {
    const uint64_t* source = in + (map[block] & block_mask);
    for (size_t j = 0; j < 8; ++j)
      out[block + j] = source[map[block + j] & 7];
  }
}

void dot_product_pair(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                      const uint64_t* const* b, const uint64_t* const* a, size_t k, size_t n,
                      const ModulusData& q, bool accumulate, bool /*lazy_output*/) {
  // Lazy 128-bit sums: each product is below q^2 < 2^122, so 32 of them on
  // top of a partial sum below 2^64 (reduced, or a carried-in output) cannot
  // overflow; longer sums are reduced every 32 terms. The outputs are always
  // fully reduced. Coefficients go in blocks with the sums in a small local
  // array, so that each term's operands are read as three sequential streams
  // (reading all 3k operands per coefficient defeats the prefetchers).
  constexpr size_t kTermsPerReduction = 32;
  constexpr size_t kBlock = 256;
  unsigned __int128 sum0[kBlock], sum1[kBlock];
  for (size_t first = 0; first < n; first += kBlock) {
    const size_t count = n - first < kBlock ? n - first : kBlock;
    for (size_t i = 0; i < count; ++i) {
      sum0[i] = accumulate ? out0[first + i] : 0;  // a carried-in value below 8q
      sum1[i] = accumulate ? out1[first + i] : 0;
    }
    for (size_t j = 0; j < k; ++j) {
      const uint64_t* xj = x[j] + first;
      const uint64_t* bj = b[j] + first;
      const uint64_t* aj = a[j] + first;
      if (j != 0 && j % kTermsPerReduction == 0) {
        for (size_t i = 0; i < count; ++i) {
          sum0[i] = barrett_reduce_128(sum0[i], q);
          sum1[i] = barrett_reduce_128(sum1[i], q);
        }
      }
      for (size_t i = 0; i < count; ++i) {
        sum0[i] += static_cast<unsigned __int128>(xj[i]) * bj[i];
        sum1[i] += static_cast<unsigned __int128>(xj[i]) * aj[i];
      }
    }
    for (size_t i = 0; i < count; ++i) {
      out0[first + i] = barrett_reduce_128(sum0[i], q);
      out1[first + i] = barrett_reduce_128(sum1[i], q);
    }
  }
}

void weighted_sum_mod(uint64_t* out, const uint64_t* const* rows, size_t column, const uint64_t* w,
                      const uint64_t*, size_t k, size_t n, uint32_t, const ModulusData& q) {
  // Products below 2^61 * 2^61 = 2^122: 32 fit on a reduced partial sum.
  constexpr size_t kTermsPerReduction = 32;
  for (size_t c = 0; c < n; ++c) {
    unsigned __int128 sum = 0;
    for (size_t i = 0; i < k; ++i) {
      if (i != 0 && i % kTermsPerReduction == 0) sum = barrett_reduce_128(sum, q);
      sum += static_cast<unsigned __int128>(rows[i][column + c]) * w[i];
    }
    out[c] = barrett_reduce_128(sum, q);
  }
}

void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = reduce_once(a[i], q);
}

void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  for (size_t i = 0; i < n; ++i)
    out[i] = reduce_once(reduce_once(a[i], 2 * q), q);
}

void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t quotient =
        static_cast<uint64_t>((static_cast<unsigned __int128>(a[i]) * q.barrett64) >> 64);
    out[i] = reduce_once(a[i] - quotient * q.value, q.value);
  }
}

}  // namespace heft::math::kernels::scalar
