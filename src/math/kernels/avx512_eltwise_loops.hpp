// The element-wise loop shared by the avx512 and ifma kernel files: 8 lanes
// per step, and a masked tail so that any n works and nothing outside the
// arrays is read or written. Each file supplies the per-vector operations.
//
// These files are compiled with AVX-512 flags while the rest of the library
// is baseline x86-64. Everything here is in an anonymous namespace, so it and
// every template instantiated from it have internal linkage: no AVX-512 code
// can be emitted as a weak symbol that the linker might pick for a baseline
// caller. For the same reason this header includes nothing but the intrinsics
// header and <cstddef>/<cstdint>.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/kernels/avx512_intrinsics.hpp"

namespace heft::math::kernels {
namespace {

// out[i] = op(inputs[i]...) for i < n, where op maps one vector of each input
// to a vector (a small function object per operation).
template <class Op, class... Inputs>
inline void map_lanes(uint64_t* out, size_t n, const Op& op, const Inputs*... inputs) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_si512(out + i, op(_mm512_loadu_si512(inputs + i)...));
  if (i < n) {
    const __mmask8 k = static_cast<__mmask8>((1u << (n - i)) - 1);
    _mm512_mask_storeu_epi64(out + i, k, op(_mm512_maskz_loadu_epi64(k, inputs + i)...));
  }
}

// dot_product_pair (see kernel_api.hpp) from a level's mul_mod and fma_mod,
// on blocks of coefficients small enough that both outputs stay in L1 while
// every term is multiplied in.
template <class MulMod, class FmaMod, class Modulus>
inline void dot_product_pair_blocked(MulMod mul_mod, FmaMod fma_mod, uint64_t* out0, uint64_t* out1,
                                     const uint64_t* const* x, const uint64_t* const* b,
                                     const uint64_t* const* a, size_t k, size_t n,
                                     const Modulus& q) {
  constexpr size_t kBlock = 512;
  for (size_t first = 0; first < n; first += kBlock) {
    const size_t count = n - first < kBlock ? n - first : kBlock;
    uint64_t* block0 = out0 + first;
    uint64_t* block1 = out1 + first;
    if (k == 0) {
      for (size_t i = 0; i < count; ++i)
        block0[i] = block1[i] = 0;
      continue;
    }
    mul_mod(block0, x[0] + first, b[0] + first, count, q);
    mul_mod(block1, x[0] + first, a[0] + first, count, q);
    for (size_t j = 1; j < k; ++j) {
      fma_mod(block0, x[j] + first, b[j] + first, block0, count, q);
      fma_mod(block1, x[j] + first, a[j] + first, block1, count, q);
    }
  }
}

// weighted_sum_mod (see kernel_api.hpp) from a level's reduce_any,
// mul_scalar_mod and fma_scalar_mod: inputs that may reach q are reduced
// first, then the weighted rows are accumulated, in chunks that stay in L1.
template <class ReduceAny, class MulScalar, class FmaScalar, class Modulus>
inline void weighted_sum_rows(ReduceAny reduce_any, MulScalar mul_scalar_mod,
                              FmaScalar fma_scalar_mod, uint64_t* out, const uint64_t* y,
                              size_t stride, const uint64_t* w, const uint64_t* w_shoup, size_t k,
                              size_t n, uint32_t input_bits, const Modulus& q) {
  constexpr size_t kChunk = 256;
  const bool may_reach_q = input_bits >= 64 || (uint64_t{1} << input_bits) > q.value;
  uint64_t reduced[kChunk];
  for (size_t first = 0; first < n; first += kChunk) {
    const size_t count = n - first < kChunk ? n - first : kChunk;
    uint64_t* target = out + first;
    if (k == 0) {
      for (size_t c = 0; c < count; ++c)
        target[c] = 0;
      continue;
    }
    for (size_t i = 0; i < k; ++i) {
      const uint64_t* row = y + i * stride + first;
      if (may_reach_q) {
        reduce_any(reduced, row, count, q);
        row = reduced;
      }
      if (i == 0) {
        mul_scalar_mod(target, row, w[i], w_shoup[i], count, q.value);
      } else {
        fma_scalar_mod(target, row, w[i], w_shoup[i], target, count, q.value);
      }
    }
  }
}

}  // namespace
}  // namespace heft::math::kernels
