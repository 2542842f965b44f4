// AVX-512 (F/DQ/VL/BW) element-wise modular arithmetic on 8 x 64-bit lanes,
// for any q < 2^61. Results equal scalar/eltwise.cpp bit for bit (both are
// fully reduced to [0, q)). The products are those of modular_arith.hpp.
// The loop over the arrays (masked tails included) is map_lanes in
// avx512_eltwise_loops.hpp; the function objects below are its operations.
#include "math/kernels/avx512/modular_arith.hpp"
#include "math/kernels/avx512_eltwise_loops.hpp"
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_AVX512_NAMESPACE {
namespace {

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

}  // namespace heft::math::kernels::HEFT_AVX512_NAMESPACE
