// The radix-2 stages of a complex FFT in plain C++ (kernel_api.hpp,
// HEFT_DECLARE_COMPLEX_FFT): the reference the vector levels must match bit
// for bit, and what the scalar level runs. Built with -ffp-contract=off, so
// that no compiler turns a product and a sum into one fused multiply-add.
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::scalar {
namespace {

// (yr + i yi)(wr + i wi), each part two products and one sum, in the order
// the vector levels compute them (the sums commute exactly).
inline void multiply(const double* y, const double* w, double& real, double& imag) {
  real = y[0] * w[0] - y[1] * w[1];
  imag = y[1] * w[0] + y[0] * w[1];
}

inline void forward_butterfly(double* x, double* y, const double* w) {
  double real, imag;
  multiply(y, w, real, imag);
  y[0] = x[0] - real;
  y[1] = x[1] - imag;
  x[0] = x[0] + real;
  x[1] = x[1] + imag;
}

inline void inverse_butterfly(double* x, double* y, const double* w) {
  const double difference[2] = {x[0] - y[0], x[1] - y[1]};
  x[0] = x[0] + y[0];
  x[1] = x[1] + y[1];
  multiply(difference, w, y[0], y[1]);
}

}  // namespace

void fft_forward_stages(double* values, size_t n, const double* w) {
  for (size_t half = 1; half < n; half <<= 1) {
    for (size_t start = 0; start < n; start += 2 * half) {
      double* x = values + 2 * start;
      double* y = x + 2 * half;
      for (size_t j = 0; j < half; ++j)
        forward_butterfly(x + 2 * j, y + 2 * j, w + 2 * (half + j));
    }
  }
}

void fft_inverse_stages(double* values, size_t n, const double* w) {
  for (size_t half = n >> 1; half >= 1; half >>= 1) {
    for (size_t start = 0; start < n; start += 2 * half) {
      double* x = values + 2 * start;
      double* y = x + 2 * half;
      for (size_t j = 0; j < half; ++j)
        inverse_butterfly(x + 2 * j, y + 2 * j, w + 2 * (half + j));
    }
  }
}

}  // namespace heft::math::kernels::scalar
