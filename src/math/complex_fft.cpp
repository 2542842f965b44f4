// Run-time dispatch and argument checks for the complex FFT stages
// (heft/math/complex_fft.hpp). Compiled for baseline x86-64; the kernels are
// in math/kernels/{scalar,avx2,avx512}/complex_fft.cpp.
#include "heft/math/complex_fft.hpp"

#include <bit>
#include <string>

#include "heft/util/error.hpp"
#include "math/kernels/isa_check.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {
namespace {

struct FftKernels {
  decltype(&kernels::scalar::fft_forward_stages) forward_stages;
  decltype(&kernels::scalar::fft_inverse_stages) inverse_stages;
};

#define HEFT_FFT_KERNELS(ns)                                           \
  FftKernels {                                                         \
    &kernels::ns::fft_forward_stages, &kernels::ns::fft_inverse_stages \
  }

const FftKernels& kernels_for(std::optional<Isa> isa) {
  static const FftKernels scalar = HEFT_FFT_KERNELS(scalar);
  static const FftKernels avx2 = HEFT_FFT_KERNELS(avx2);
  static const FftKernels avx512 = HEFT_FFT_KERNELS(avx512);
  if (isa) require_supported(*isa);
  switch (isa ? *isa : active_isa()) {
    case Isa::scalar:
      return scalar;
    case Isa::avx2:
      return avx2;
    default:  // avx512 and ifma
      return avx512;
  }
}

#undef HEFT_FFT_KERNELS

// std::complex<double> is laid out as double[2] ([complex.numbers.general]).
double* interleaved(std::span<std::complex<double>> values) {
  return reinterpret_cast<double*>(values.data());
}
const double* interleaved(std::span<const std::complex<double>> values) {
  return reinterpret_cast<const double*>(values.data());
}

void require_shapes(std::size_t n, std::size_t twiddle_count, const char* operation) {
  if (!std::has_single_bit(n)) {
    throw InvalidArgument(std::string(operation) + ": " + std::to_string(n) +
                          " values; the transform length must be a power of two");
  }
  if (n > 1 && twiddle_count < n) {
    throw MismatchError(std::string(operation) + ": a transform of " + std::to_string(n) +
                        " values needs " + std::to_string(n) + " twiddles, got " +
                        std::to_string(twiddle_count));
  }
}

}  // namespace

void fft_forward_stages(std::span<std::complex<double>> values,
                        std::span<const std::complex<double>> twiddles, std::optional<Isa> isa) {
  require_shapes(values.size(), twiddles.size(), "fft_forward_stages");
  const FftKernels& level = kernels_for(isa);
  if (values.size() < 2) return;
  level.forward_stages(interleaved(values), values.size(), interleaved(twiddles));
}

void fft_inverse_stages(std::span<std::complex<double>> values,
                        std::span<const std::complex<double>> twiddles, std::optional<Isa> isa) {
  require_shapes(values.size(), twiddles.size(), "fft_inverse_stages");
  const FftKernels& level = kernels_for(isa);
  if (values.size() < 2) return;
  level.inverse_stages(interleaved(values), values.size(), interleaved(twiddles));
}

}  // namespace heft::math
