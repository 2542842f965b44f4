// CKKS special FFT: a radix-2 transform over the rotation group 5^j.
#include "heft/schemes/ckks/special_fft.hpp"

#include <cmath>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>

#include "heft/util/error.hpp"

namespace heft::ckks {
namespace {

bool is_power_of_two(std::size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

void bit_reverse_permute(std::span<std::complex<double>> values) {
  const std::size_t n = values.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) std::swap(values[i], values[j]);
  }
}

// exp(2 pi i k / m) computed from the angle reduced to the first octant, so
// every root is accurate to about one ulp regardless of k.
std::complex<double> root_of_unity(uint64_t k, uint64_t m) {
  k %= m;
  // Use symmetry: work with k/m in [0, 1/8] and rebuild by swaps and signs.
  const long double two_pi = 2 * std::numbers::pi_v<long double>;
  const uint64_t eighth = m / 8;
  if (m % 8 != 0 || eighth == 0) {
    const long double angle = two_pi * static_cast<long double>(k) / static_cast<long double>(m);
    return {static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
  }
  const uint64_t octant = k / eighth;
  const uint64_t rest = k % eighth;
  auto cs = [&](uint64_t r) {
    const long double angle = two_pi * static_cast<long double>(r) / static_cast<long double>(m);
    return std::pair<long double, long double>(std::cos(angle), std::sin(angle));
  };
  long double c, s;
  switch (octant) {
    case 0:
      std::tie(c, s) = cs(rest);
      break;
    case 1: {
      auto [c2, s2] = cs(eighth - rest);
      c = s2;
      s = c2;
      break;
    }
    case 2: {
      auto [c2, s2] = cs(rest);
      c = -s2;
      s = c2;
      break;
    }
    case 3: {
      auto [c2, s2] = cs(eighth - rest);
      c = -c2;
      s = s2;
      break;
    }
    case 4: {
      auto [c2, s2] = cs(rest);
      c = -c2;
      s = -s2;
      break;
    }
    case 5: {
      auto [c2, s2] = cs(eighth - rest);
      c = -s2;
      s = -c2;
      break;
    }
    case 6: {
      auto [c2, s2] = cs(rest);
      c = s2;
      s = -c2;
      break;
    }
    default: {
      auto [c2, s2] = cs(eighth - rest);
      c = c2;
      s = -s2;
      break;
    }
  }
  return {static_cast<double>(c), static_cast<double>(s)};
}

}  // namespace

SpecialFft::SpecialFft(std::size_t max_slots) : max_slots_(max_slots), order_(4 * max_slots) {
  if (!is_power_of_two(max_slots)) {
    throw InvalidArgument("CKKS slot count " + std::to_string(max_slots) +
                          " must be a power of two");
  }
  roots_.resize(order_ + 1);
  for (uint64_t k = 0; k <= order_; ++k)
    roots_[k] = root_of_unity(k, order_);
  rotation_group_.resize(max_slots_);
  uint64_t power = 1;
  for (std::size_t j = 0; j < max_slots_; ++j) {
    rotation_group_[j] = power;
    power = power * 5 % order_;
  }
}

void SpecialFft::forward(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!is_power_of_two(n) || n > max_slots_) {
    throw InvalidArgument("special FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  bit_reverse_permute(values);
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len >> 1;
    const uint64_t quarter_order = 4 * len;  // root order at this stage
    const uint64_t stride = order_ / quarter_order;
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t j = 0; j < half; ++j) {
        const uint64_t index = (rotation_group_[j] % quarter_order) * stride;
        const std::complex<double> u = values[start + j];
        const std::complex<double> v = values[start + j + half] * roots_[index];
        values[start + j] = u + v;
        values[start + j + half] = u - v;
      }
    }
  }
}

void SpecialFft::inverse(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!is_power_of_two(n) || n > max_slots_) {
    throw InvalidArgument("special inverse FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  for (std::size_t len = n; len >= 2; len >>= 1) {
    const std::size_t half = len >> 1;
    const uint64_t quarter_order = 4 * len;
    const uint64_t stride = order_ / quarter_order;
    for (std::size_t start = 0; start < n; start += len) {
      for (std::size_t j = 0; j < half; ++j) {
        const uint64_t index = (quarter_order - rotation_group_[j] % quarter_order) * stride;
        const std::complex<double> u = values[start + j] + values[start + j + half];
        const std::complex<double> v =
            (values[start + j] - values[start + j + half]) * roots_[index];
        values[start + j] = u;
        values[start + j + half] = v;
      }
    }
  }
  bit_reverse_permute(values);
  const double inv_n = 1.0 / static_cast<double>(n);
  for (auto& v : values)
    v *= inv_n;
}

}  // namespace heft::ckks
