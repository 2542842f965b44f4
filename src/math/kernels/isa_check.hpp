// The check behind every call that pins an ISA level: the level must be one
// this CPU can run. One definition (dispatch.cpp, baseline code), so that the
// NTT, element-wise, permutation and FFT entry points refuse an unsupported
// level with the same typed error and the same message.
#pragma once

#include "heft/math/kernels.hpp"

namespace heft::math {

// Throws UnsupportedError naming `isa` and the best level this CPU has.
void require_supported(Isa isa);

}  // namespace heft::math
