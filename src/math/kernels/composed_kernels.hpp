// The optional kernels of kernel_api.hpp built from a level's mandatory
// ones: what the dispatcher runs at a level whose table entry is null. Exposed
// (internally) so that the tests can run them on the emulated AVX-512 levels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {

// Out-of-place transform: a copy, then the level's in-place one.
void transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                    const uint64_t* in, const NttTableData& table);

// dot_product_pair from the level's mul_mod and fma_mod, blockwise.
void dot_product_pair_blockwise(const KernelTable& level, uint64_t* out0, uint64_t* out1,
                                const uint64_t* const* x, const uint64_t* const* b,
                                const uint64_t* const* a, std::size_t k, std::size_t n,
                                const ModulusData& q);

// weighted_sum_mod from the level's reduce_any, mul_scalar_mod and
// fma_scalar_mod, blockwise.
void weighted_sum_rowwise(const KernelTable& level, uint64_t* out, const uint64_t* y,
                          std::size_t stride, const uint64_t* w, const uint64_t* w_shoup,
                          std::size_t k, std::size_t n, uint32_t input_bits, const ModulusData& q);

}  // namespace heft::math::kernels
