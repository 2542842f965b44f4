// The CKKS special FFT against direct O(n^2) evaluation of the canonical
// embedding at zeta^(5^j), in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::ckks {
namespace {

using cld = std::complex<long double>;

std::vector<std::complex<double>> random_complex(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<std::complex<double>> v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

// slot_j = sum_k u_k zeta^(5^j k), zeta = exp(2 pi i / 4n).
std::vector<cld> direct_embedding(const std::vector<std::complex<double>>& u) {
  const std::size_t n = u.size();
  const uint64_t m = 4 * n;
  std::vector<cld> slots(n);
  uint64_t five_j = 1;
  for (std::size_t j = 0; j < n; ++j) {
    cld sum = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const uint64_t e = five_j * k % m;
      const long double angle = 2 * std::numbers::pi_v<long double> * e / m;
      sum += cld(u[k].real(), u[k].imag()) * cld(std::cos(angle), std::sin(angle));
    }
    slots[j] = sum;
    five_j = five_j * 5 % m;
  }
  return slots;
}

TEST(SpecialFft, ForwardIsTheCanonicalEmbedding) {
  std::mt19937_64 rng(1);
  SpecialFft fft(1024);
  for (std::size_t n : {1, 2, 4, 8, 64, 512, 1024}) {
    auto u = random_complex(n, rng);
    const auto expected = direct_embedding(u);
    fft.forward(u);
    double max_error = 0;
    for (std::size_t j = 0; j < n; ++j) {
      max_error = std::max(
          max_error, static_cast<double>(std::abs(cld(u[j].real(), u[j].imag()) - expected[j])));
    }
    EXPECT_LT(max_error, 1e-12 * n) << "n=" << n;
  }
}

TEST(SpecialFft, InverseUndoesForward) {
  std::mt19937_64 rng(2);
  SpecialFft fft(1 << 15);
  for (std::size_t n : {1, 16, 4096, 1 << 15}) {
    const auto original = random_complex(n, rng);
    auto v = original;
    fft.inverse(v);
    fft.forward(v);
    double max_error = 0;
    for (std::size_t j = 0; j < n; ++j)
      max_error = std::max(max_error, std::abs(v[j] - original[j]));
    EXPECT_LT(max_error, 1e-13) << "n=" << n << " log2 error " << std::log2(max_error);
  }
}

// Large transforms are split across the pool (blocks per thread, then the
// wide stages by butterflies); the arithmetic is the serial transform's, so
// the output must be bit for bit the one-thread output at every thread count
// (3 threads: two parts), and inverse then forward must still round-trip.
TEST(SpecialFft, SplitAcrossThreadsEqualsTheSerialTransform) {
  std::mt19937_64 rng(3);
  const std::size_t saved = num_threads();
  SpecialFft fft(1 << 14);
  for (std::size_t n : {4096, 1 << 14}) {
    const auto input = random_complex(n, rng);
    set_num_threads(1);
    auto serial_forward = input, serial_inverse = input;
    fft.forward(serial_forward);
    fft.inverse(serial_inverse);
    for (std::size_t threads : {2, 3, 4, 8}) {
      set_num_threads(threads);
      auto forward = input, inverse = input;
      fft.forward(forward);
      fft.inverse(inverse);
      EXPECT_EQ(forward, serial_forward) << "n=" << n << ", " << threads << " threads";
      EXPECT_EQ(inverse, serial_inverse) << "n=" << n << ", " << threads << " threads";
      fft.forward(inverse);
      double max_error = 0;
      for (std::size_t j = 0; j < n; ++j)
        max_error = std::max(max_error, std::abs(inverse[j] - input[j]));
      EXPECT_LT(max_error, 1e-13) << "n=" << n << ", " << threads << " threads";
    }
  }
  set_num_threads(saved);
}

TEST(SpecialFft, RejectsBadSizes) {
  EXPECT_THROW(SpecialFft(12), InvalidArgument);
  SpecialFft fft(8);
  std::vector<std::complex<double>> v(16), w(3);
  EXPECT_THROW(fft.forward(v), InvalidArgument);
  EXPECT_THROW(fft.inverse(w), InvalidArgument);
}

}  // namespace
}  // namespace heft::ckks
