// The radix-2 stages of a complex FFT, at the run-time ISA level: the inner
// loops of CKKS's special FFT (schemes/ckks/special_fft.hpp), which orders
// the values and supplies the twiddles.
//
// The stage of half-length h works on blocks of 2h values [s, s + 2h) and
// pairs x = values[s + j] with y = values[s + h + j], j < h, using the
// twiddle twiddles[h + j]: one table serves every transform length. Each
// complex product is two real products and a sum per part, never fused, so
// the results are the same bits at every level (scalar, avx2, avx512, ifma;
// ifma runs the avx512 kernels, having no double-precision instructions of
// its own).
//
// Shapes are checked (MismatchError, InvalidArgument); a level the CPU lacks
// throws UnsupportedError, as the other kernels do (math/kernels.hpp).
#pragma once

#include <complex>
#include <cstddef>
#include <optional>
#include <span>

#include "heft/export.hpp"
#include "heft/math/kernels.hpp"

namespace heft::math {

// The decimation-in-time stages h = 1, 2, ..., n / 2 on n = values.size()
// values (a power of two; the input in bit-reversed order for a transform
// in natural order): (x, y) -> (x + w y, x - w y). twiddles needs n entries.
HEFT_EXPORT void fft_forward_stages(std::span<std::complex<double>> values,
                                    std::span<const std::complex<double>> twiddles,
                                    std::optional<Isa> isa = std::nullopt);

// The decimation-in-frequency stages h = n / 2, ..., 1: (x, y) -> (x + y,
// w (x - y)). twiddles needs n entries.
HEFT_EXPORT void fft_inverse_stages(std::span<std::complex<double>> values,
                                    std::span<const std::complex<double>> twiddles,
                                    std::optional<Isa> isa = std::nullopt);

}  // namespace heft::math
