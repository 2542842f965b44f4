// The CKKS special FFT against direct O(n^2) evaluation of the canonical
// embedding at zeta^(5^j), in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/error.hpp"

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

// The stages run vectorised at each ISA level (math/complex_fft.hpp) with
// the same operations, so a transform must give the same bits at every level
// (sizes below, at and above the kernels' L1 blocks).
TEST(SpecialFft, EveryIsaLevelGivesTheSameBits) {
  std::mt19937_64 rng(4);
  const math::Isa saved = math::active_isa();
  SpecialFft fft(1 << 13);
  for (std::size_t n : {2, 8, 64, 1024, 1 << 13}) {
    const auto input = random_complex(n, rng);
    math::set_isa(math::Isa::scalar);
    auto scalar_forward = input, scalar_inverse = input;
    fft.forward(scalar_forward);
    fft.inverse(scalar_inverse);
    for (math::Isa isa : math::supported_isas()) {
      math::set_isa(isa);
      auto forward = input, inverse = input;
      fft.forward(forward);
      fft.inverse(inverse);
      EXPECT_EQ(forward, scalar_forward) << math::to_string(isa) << ", n=" << n;
      EXPECT_EQ(inverse, scalar_inverse) << math::to_string(isa) << ", n=" << n;
    }
  }
  math::set_isa(saved);
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
