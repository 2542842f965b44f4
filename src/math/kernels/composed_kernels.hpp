// The optional kernels of kernel_api.hpp built from a level's mandatory
// ones: what the dispatcher runs at a level whose table entry is null (the
// out-of-place transforms of the scalar level, the shifted transform below
// AVX-512). Exposed (internally) so that
// the tests can compare a level's own form with it.
#pragma once

#include <cstdint>

#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {

// Out-of-place transform: a copy, then the level's in-place one.
void transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                    const uint64_t* in, const NttTableData& table);

// Shifted forward transform: out = in + shift (below 4q by the contract, so
// no reduction), then the level's in-place forward transform.
void shifted_transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                            const uint64_t* in, uint64_t shift, const NttTableData& table);

}  // namespace heft::math::kernels
