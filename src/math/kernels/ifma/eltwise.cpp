// AVX512-IFMA52 element-wise modular arithmetic for q < 2^50: the products
// (mul_mod, fma_mod and their fixed-operand forms) use the 52-bit
// multiply-adds of modular_arith.hpp; add, sub, negate and the reductions gain
// nothing from IFMA and forward to the avx512 kernels. Any q the 52-bit
// reasoning does not cover (q >= 2^50, or a power of two for the Barrett
// constant) is also sent to avx512, so results always equal scalar/eltwise.cpp
// bit for bit.
#include "math/kernels/avx512_eltwise_loops.hpp"
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/ifma/modular_arith.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_IFMA_NAMESPACE {
namespace {

struct MulMod {
  Barrett52 barrett;
  __m512i operator()(__m512i a, __m512i b) const {
    const __m512i r = barrett.lazy(a, b, barrett.zero);  // [0, 3q)
    return reduce_once(reduce_once(r, barrett.two_q), barrett.q);
  }
};

struct FmaMod {
  Barrett52 barrett;
  __m512i operator()(__m512i a, __m512i b, __m512i c) const {
    const __m512i r = barrett.lazy(a, b, c);  // [0, 4q)
    return reduce_once(reduce_once(r, barrett.two_q), barrett.q);
  }
};

struct MulScalar {
  ShoupProduct shoup;
  __m512i operator()(__m512i a) const {
    return reduce_once(shoup.lazy(a, shoup.zero), shoup.q);  // from [0, 2q)
  }
};

struct FmaScalar {
  ShoupProduct shoup;
  __m512i operator()(__m512i a, __m512i c) const {
    return reduce_once(reduce_once(shoup.lazy(a, c), shoup.two_q), shoup.q);  // from [0, 3q)
  }
};

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::add_mod(out, a, b, n, q);
}

void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::sub_mod(out, a, b, n, q);
}

void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::negate_mod(out, a, n, q);
}

void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) {
  if (!barrett52_fits(q.value)) {
    HEFT_AVX512_NAMESPACE::mul_mod(out, a, b, n, q);
    return;
  }
  map_lanes(out, n, MulMod{Barrett52(q)}, a, b);
}

void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,
                    uint64_t q) {
  if (q >= kModulusBound) {
    HEFT_AVX512_NAMESPACE::mul_scalar_mod(out, a, w, w_shoup, n, q);
    return;
  }
  map_lanes(out, n, MulScalar{ShoupProduct(w, w_shoup, q)}, a);
}

void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n,
             const ModulusData& q) {
  if (!barrett52_fits(q.value)) {
    HEFT_AVX512_NAMESPACE::fma_mod(out, a, b, c, n, q);
    return;
  }
  map_lanes(out, n, FmaMod{Barrett52(q)}, a, b, c);
}

void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,
                    const uint64_t* c, size_t n, uint64_t q) {
  if (q >= kModulusBound) {
    HEFT_AVX512_NAMESPACE::fma_scalar_mod(out, a, w, w_shoup, c, n, q);
    return;
  }
  map_lanes(out, n, FmaScalar{ShoupProduct(w, w_shoup, q)}, a, c);
}

void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::add_scalar_mod(out, a, c, n, q);
}

void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,
                        uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q) {
  if (q >= kModulusBound) {
    HEFT_AVX512_NAMESPACE::sub_mul_scalar_mod(out, a, b, w, w_shoup, c, n, q);
    return;
  }
  // a - b + q < 2q < 2^51 is within the 52-bit Shoup product's input range.
  const ShoupProduct shoup(w, w_shoup, q);
  const auto difference = [q = shoup.q](__m512i x, __m512i y) {
    return _mm512_add_epi64(_mm512_sub_epi64(x, y), q);
  };
  if (c == nullptr) {
    const MulScalar product{shoup};
    map_lanes(
        out, n, [&](__m512i x, __m512i y) { return product(difference(x, y)); }, a, b);
  } else {
    const FmaScalar product{shoup};
    map_lanes(
        out, n, [&](__m512i x, __m512i y, __m512i z) { return product(difference(x, y), z); }, a, b,
        c);
  }
}

void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,
                    size_t n) {
  HEFT_AVX512_NAMESPACE::permute_blocks(out, in, map, count, n);
}

void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::reduce_from_2q(out, a, n, q);
}

void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q) {
  HEFT_AVX512_NAMESPACE::reduce_from_4q(out, a, n, q);
}

void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q) {
  HEFT_AVX512_NAMESPACE::reduce_any(out, a, n, q);
}

}  // namespace heft::math::kernels::HEFT_IFMA_NAMESPACE
