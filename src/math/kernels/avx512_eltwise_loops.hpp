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

}  // namespace
}  // namespace heft::math::kernels
