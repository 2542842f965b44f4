// The complex FFT stage kernels (heft/math/complex_fft.hpp) at every ISA
// level, and the SIMDe-emulated AVX-512 build where the tests have it,
// against textbook stage-by-stage loops written here: the same IEEE
// operations per butterfly, so the results must match bit for bit. (This file
// is built with -ffp-contract=off, as the kernels are.)
#include <gtest/gtest.h>

#include <bit>
#include <complex>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "heft/math/complex_fft.hpp"
#include "heft/math/kernels.hpp"
#include "heft/util/error.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {
namespace {

using Complex = std::complex<double>;
using Values = std::vector<Complex>;

Values random_values(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  Values v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

Complex product(Complex y, Complex w) {
  return {y.real() * w.real() - y.imag() * w.imag(), y.imag() * w.real() + y.real() * w.imag()};
}

void textbook_forward_butterfly(Complex& x, Complex& y, Complex w) {
  const Complex v = product(y, w);
  const Complex u = x;
  x = {u.real() + v.real(), u.imag() + v.imag()};
  y = {u.real() - v.real(), u.imag() - v.imag()};
}

void textbook_inverse_butterfly(Complex& x, Complex& y, Complex w) {
  const Complex difference = {x.real() - y.real(), x.imag() - y.imag()};
  x = {x.real() + y.real(), x.imag() + y.imag()};
  y = product(difference, w);
}

void textbook_forward_stages(Values& v, const Values& w) {
  for (std::size_t h = 1; h < v.size(); h *= 2)
    for (std::size_t s = 0; s < v.size(); s += 2 * h)
      for (std::size_t j = 0; j < h; ++j)
        textbook_forward_butterfly(v[s + j], v[s + h + j], w[h + j]);
}

void textbook_inverse_stages(Values& v, const Values& w) {
  for (std::size_t h = v.size() / 2; h >= 1; h /= 2)
    for (std::size_t s = 0; s < v.size(); s += 2 * h)
      for (std::size_t j = 0; j < h; ++j)
        textbook_inverse_butterfly(v[s + j], v[s + h + j], w[h + j]);
}

// Bitwise equality of doubles (EXPECT_EQ on complex would also pass -0 == +0).
bool same_bits(const Values& a, const Values& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<uint64_t>(a[i].real()) != std::bit_cast<uint64_t>(b[i].real()) ||
        std::bit_cast<uint64_t>(a[i].imag()) != std::bit_cast<uint64_t>(b[i].imag())) {
      return false;
    }
  }
  return true;
}

// The transform lengths: the scalar fallbacks (below two vectors), the
// short stages alone, blocks of kL1Values (1024) with an odd and an even
// number of stages, and one and two stages above the blocks.
const std::size_t kLengths[] = {1, 2, 4, 8, 16, 32, 64, 512, 1024, 2048, 4096, 8192};

TEST(ComplexFftKernels, EveryLevelEqualsTheTextbook) {
  const Values twiddles = random_values(8192, 1);
  for (Isa isa : supported_isas()) {
    for (std::size_t n : kLengths) {
      for (bool forward : {true, false}) {
        const Values input = random_values(n, 100 + 2 * n + forward);
        Values expected = input, actual = input;
        if (forward) {
          textbook_forward_stages(expected, twiddles);
          fft_forward_stages(actual, twiddles, isa);
        } else {
          textbook_inverse_stages(expected, twiddles);
          fft_inverse_stages(actual, twiddles, isa);
        }
        EXPECT_TRUE(same_bits(actual, expected))
            << to_string(isa) << (forward ? " forward" : " inverse") << ", n = " << n;
      }
    }
  }
}

#ifdef HEFT_HAVE_EMULATED_KERNELS
// The AVX-512 kernels' logic on any CPU, through SIMDe.
TEST(ComplexFftKernels, EmulatedAvx512EqualsTheTextbook) {
  namespace emulated = kernels::avx512_emulated;
  const Values twiddles = random_values(8192, 3);
  auto doubles = [](Values& v) { return reinterpret_cast<double*>(v.data()); };
  const double* w = reinterpret_cast<const double*>(twiddles.data());
  for (std::size_t n : kLengths) {
    if (n < 2) continue;
    const Values input = random_values(n, 700 + n);
    Values expected = input, actual = input;
    textbook_forward_stages(expected, twiddles);
    emulated::fft_forward_stages(doubles(actual), n, w);
    EXPECT_TRUE(same_bits(actual, expected)) << "forward, n = " << n;
    expected = input;
    actual = input;
    textbook_inverse_stages(expected, twiddles);
    emulated::fft_inverse_stages(doubles(actual), n, w);
    EXPECT_TRUE(same_bits(actual, expected)) << "inverse, n = " << n;
  }
}
#endif

TEST(ComplexFftKernels, RejectsBadShapesAndLeavesTheValuesAlone) {
  const Values twiddles = random_values(16, 4);
  Values values = random_values(16, 5);
  const Values before = values;
  Values twelve = random_values(12, 6);
  const Values twelve_before = twelve;
  EXPECT_THROW(fft_forward_stages(twelve, twiddles), InvalidArgument);
  EXPECT_THROW(fft_inverse_stages(twelve, twiddles), InvalidArgument);
  EXPECT_THROW(fft_forward_stages(values, std::span(twiddles).first(8)), MismatchError);
  EXPECT_THROW(fft_inverse_stages(values, std::span(twiddles).first(15)), MismatchError);
  EXPECT_TRUE(same_bits(values, before));
  EXPECT_TRUE(same_bits(twelve, twelve_before));
}

}  // namespace
}  // namespace heft::math
