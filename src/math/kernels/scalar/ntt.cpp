// Scalar (portable) negacyclic NTT: Harvey's lazy butterflies with Shoup
// multiplication by precomputed twiddles, using unsigned __int128 for the
// 64 x 64 -> 128-bit products. This is the reference every vector level must
// match bit for bit, and the fallback on CPUs without AVX2.
//
// Forward (Cooley-Tukey, natural -> bit-reversed). Each stage keeps values in
// [0, 4q): X is brought to [0, 2q), T = W*Y mod q lands in [0, 2q), and the
// outputs X + T and X - T + 2q are in [0, 4q). A final pass reduces to [0, q).
// Inverse (Gentleman-Sande, bit-reversed -> natural). Each stage keeps values
// in [0, 2q): X + Y is brought back to [0, 2q) and W*(X - Y + 2q) is a lazy
// Shoup product in [0, 2q). The last stage folds in the factor 1/N.
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::scalar {
namespace {

// W*y mod q in [0, 2q) for any y < 2^64 (Shoup): no final correction.
inline uint64_t mul_shoup_lazy(uint64_t y, uint64_t w, uint64_t w_shoup, uint64_t q) {
  const uint64_t quotient =
      static_cast<uint64_t>((static_cast<unsigned __int128>(y) * w_shoup) >> 64);
  return y * w - quotient * q;
}

inline uint64_t reduce_once(uint64_t x, uint64_t bound) {
  return x >= bound ? x - bound : x;
}

}  // namespace

void ntt_forward(uint64_t* values, const NttTableData& table) {
  const uint64_t n = table.degree;
  const uint64_t q = table.modulus.value;
  const uint64_t two_q = 2 * q;
  for (uint64_t m = 1, t = n >> 1; m < n; m <<= 1, t >>= 1) {
    for (uint64_t i = 0; i < m; ++i) {
      const uint64_t w = table.roots[m + i];
      const uint64_t w_shoup = table.roots_shoup[m + i];
      uint64_t* x = values + 2 * i * t;
      uint64_t* y = x + t;
      for (uint64_t j = 0; j < t; ++j) {
        const uint64_t xj = reduce_once(x[j], two_q);
        const uint64_t product = mul_shoup_lazy(y[j], w, w_shoup, q);
        x[j] = xj + product;
        y[j] = xj - product + two_q;
      }
    }
  }
  for (uint64_t j = 0; j < n; ++j)
    values[j] = reduce_once(reduce_once(values[j], two_q), q);
}

void ntt_inverse(uint64_t* values, const NttTableData& table) {
  const uint64_t n = table.degree;
  const uint64_t q = table.modulus.value;
  const uint64_t two_q = 2 * q;
  uint64_t t = 1;
  for (uint64_t m = n >> 1; m > 1; m >>= 1, t <<= 1) {
    for (uint64_t i = 0; i < m; ++i) {
      const uint64_t w = table.inv_roots[m + i];
      const uint64_t w_shoup = table.inv_roots_shoup[m + i];
      uint64_t* x = values + 2 * i * t;
      uint64_t* y = x + t;
      for (uint64_t j = 0; j < t; ++j) {
        const uint64_t xj = x[j];
        const uint64_t yj = y[j];
        x[j] = reduce_once(xj + yj, two_q);
        y[j] = mul_shoup_lazy(xj - yj + two_q, w, w_shoup, q);
      }
    }
  }
  // Last stage (m = 1, t = N/2) with the 1/N factor merged into both outputs.
  const uint64_t half = n >> 1;
  for (uint64_t j = 0; j < half; ++j) {
    const uint64_t xj = values[j];
    const uint64_t yj = values[j + half];
    const uint64_t sum = reduce_once(xj + yj, two_q);
    const uint64_t x_out = mul_shoup_lazy(sum, table.inv_degree, table.inv_degree_shoup, q);
    const uint64_t y_out =
        mul_shoup_lazy(xj - yj + two_q, table.inv_degree_root, table.inv_degree_root_shoup, q);
    values[j] = reduce_once(x_out, q);
    values[j + half] = reduce_once(y_out, q);
  }
}

}  // namespace heft::math::kernels::scalar
