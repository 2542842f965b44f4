// TEMPORARY: forwards the avx512 level to scalar until its vector kernels land.
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::avx512 {
void ntt_forward(uint64_t* v, const NttTableData& t) { scalar::ntt_forward(v, t); }
void ntt_inverse(uint64_t* v, const NttTableData& t) { scalar::ntt_inverse(v, t); }
void add_mod(uint64_t* o, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) { scalar::add_mod(o, a, b, n, q); }
void sub_mod(uint64_t* o, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q) { scalar::sub_mod(o, a, b, n, q); }
void negate_mod(uint64_t* o, const uint64_t* a, size_t n, uint64_t q) { scalar::negate_mod(o, a, n, q); }
void mul_mod(uint64_t* o, const uint64_t* a, const uint64_t* b, size_t n, const ModulusData& q) { scalar::mul_mod(o, a, b, n, q); }
void mul_scalar_mod(uint64_t* o, const uint64_t* a, uint64_t w, uint64_t ws, size_t n, uint64_t q) { scalar::mul_scalar_mod(o, a, w, ws, n, q); }
void fma_mod(uint64_t* o, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n, const ModulusData& q) { scalar::fma_mod(o, a, b, c, n, q); }
void fma_scalar_mod(uint64_t* o, const uint64_t* a, uint64_t w, uint64_t ws, const uint64_t* c, size_t n, uint64_t q) { scalar::fma_scalar_mod(o, a, w, ws, c, n, q); }
void reduce_from_2q(uint64_t* o, const uint64_t* a, size_t n, uint64_t q) { scalar::reduce_from_2q(o, a, n, q); }
void reduce_from_4q(uint64_t* o, const uint64_t* a, size_t n, uint64_t q) { scalar::reduce_from_4q(o, a, n, q); }
void reduce_any(uint64_t* o, const uint64_t* a, size_t n, const ModulusData& q) { scalar::reduce_any(o, a, n, q); }
}  // namespace heft::math::kernels::avx512
