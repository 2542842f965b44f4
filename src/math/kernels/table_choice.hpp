// The dispatcher's choice of a level's function table for one call
// (dispatch.cpp), for the checked entry points that forward to it
// (checked_ntt.cpp, checked_eltwise.cpp, checked_sums.cpp). Baseline code: the
// tables live in dispatch.cpp, next to the ISA detection they depend on.
#pragma once

#include <cstdint>
#include <optional>

#include "heft/math/kernels.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels {

// The table for modulus q at the active level: ifma's 52-bit kernels cannot
// take q >= 2^50, so those calls go to the avx512 kernels (same results,
// 64-bit lanes), all but the transforms.
const KernelTable& active_table(uint64_t q);

// The transforms at a pinned level: ifma's take every modulus (above 2^50 in
// kIfmaWideTable), so only a level the CPU lacks is refused.
const KernelTable& pinned_ntt_table(Isa isa, const Modulus& q);

// The table for q at the pinned level `isa` (refused if this CPU lacks it or
// q does not fit it, require_isa_fits), else at the active level. Throws
// InvalidArgument for an empty (default-constructed) modulus.
const KernelTable& choose(std::optional<Isa> isa, const Modulus& q);

// The table of the pinned level `isa` (refused if this CPU lacks it), else of
// the active level, whatever the modulus: for the kernels that take none
// (permute_blocks, scaled_sum_double).
const KernelTable& level_table(std::optional<Isa> isa);

}  // namespace heft::math::kernels
