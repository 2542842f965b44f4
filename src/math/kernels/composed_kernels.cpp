// The optional kernels (see kernel_api.hpp) composed from a level's others,
// for the levels without a form of their own. Compiled for baseline x86-64:
// the level's code runs only through its table's function pointers.
#include "math/kernels/composed_kernels.hpp"

#include <algorithm>

namespace heft::math::kernels {
namespace {

// Blocks of coefficients small enough that the outputs stay in L1 while every
// term is multiplied in.
constexpr std::size_t kComposedBlock = 512;

}  // namespace

// Out-of-place transform: a copy, then the level's in-place one.
void transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                    const uint64_t* in, const NttTableData& table) {
  if (out != in) std::copy_n(in, table.degree, out);
  in_place(out, table);
}

void dot_product_pair_blockwise(const KernelTable& level, uint64_t* out0, uint64_t* out1,
                                const uint64_t* const* x, const uint64_t* const* b,
                                const uint64_t* const* a, std::size_t k, std::size_t n,
                                const ModulusData& q) {
  if (k == 0) {
    std::fill_n(out0, n, 0);
    std::fill_n(out1, n, 0);
    return;
  }
  for (std::size_t first = 0; first < n; first += kComposedBlock) {
    const std::size_t count = std::min(kComposedBlock, n - first);
    level.mul_mod(out0 + first, x[0] + first, b[0] + first, count, q);
    level.mul_mod(out1 + first, x[0] + first, a[0] + first, count, q);
    for (std::size_t j = 1; j < k; ++j) {
      level.fma_mod(out0 + first, x[j] + first, b[j] + first, out0 + first, count, q);
      level.fma_mod(out1 + first, x[j] + first, a[j] + first, out1 + first, count, q);
    }
  }
}

// Rows that may reach q are reduced first (the Shoup kernels take [0, q)).
void weighted_sum_rowwise(const KernelTable& level, uint64_t* out, const uint64_t* y,
                          std::size_t stride, const uint64_t* w, const uint64_t* w_shoup,
                          std::size_t k, std::size_t n, uint32_t input_bits, const ModulusData& q) {
  if (k == 0) {
    std::fill_n(out, n, 0);
    return;
  }
  const bool may_reach_q = (uint64_t{1} << input_bits) > q.value;
  uint64_t reduced[kComposedBlock];
  for (std::size_t first = 0; first < n; first += kComposedBlock) {
    const std::size_t count = std::min(kComposedBlock, n - first);
    for (std::size_t i = 0; i < k; ++i) {
      const uint64_t* row = y + i * stride + first;
      if (may_reach_q) {
        level.reduce_any(reduced, row, count, q);
        row = reduced;
      }
      if (i == 0) {
        level.mul_scalar_mod(out + first, row, w[i], w_shoup[i], count, q.value);
      } else {
        level.fma_scalar_mod(out + first, row, w[i], w_shoup[i], out + first, count, q.value);
      }
    }
  }
}

}  // namespace heft::math::kernels
