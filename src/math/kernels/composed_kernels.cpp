// The optional kernels (see kernel_api.hpp) composed from a level's others,
// for the levels without a form of their own. Compiled for baseline x86-64:
// the level's code runs only through its table's function pointers.
#include "math/kernels/composed_kernels.hpp"

#include <algorithm>

namespace heft::math::kernels {

// Out-of-place transform: a copy, then the level's in-place one.
void transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                    const uint64_t* in, const NttTableData& table) {
  if (out != in) std::copy_n(in, table.degree, out);
  in_place(out, table);
}

void shifted_transform_from(void (*in_place)(uint64_t*, const NttTableData&), uint64_t* out,
                            const uint64_t* in, uint64_t shift, const NttTableData& table) {
  for (uint64_t i = 0; i < table.degree; ++i)
    out[i] = in[i] + shift;
  in_place(out, table);
}

}  // namespace heft::math::kernels
