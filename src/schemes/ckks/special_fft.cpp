// CKKS special FFT: a radix-2 transform over the rotation group 5^j, split
// across the thread pool for large slot counts.
#include "heft/schemes/ckks/special_fft.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::ckks {
namespace {

bool is_power_of_two(std::size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// Plain complex product: std::complex's operator* must handle infinities and
// NaNs (C99 Annex G), which makes it a library call in the inner loop.
inline std::complex<double> multiply(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// The two butterflies: forward (x, y) -> (x + w y, x - w y), inverse
// (x, y) -> (x + y, w (x - y)).
inline void forward_butterfly(std::complex<double>& x, std::complex<double>& y,
                              std::complex<double> w) {
  const std::complex<double> u = x;
  const std::complex<double> v = multiply(y, w);
  x = u + v;
  y = u - v;
}

inline void inverse_butterfly(std::complex<double>& x, std::complex<double>& y,
                              std::complex<double> w) {
  const std::complex<double> u = x + y;
  const std::complex<double> v = multiply(x - y, w);
  x = u;
  y = v;
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
  rotation_group_.resize(max_slots_);
  uint64_t power = 1;
  for (std::size_t j = 0; j < max_slots_; ++j) {
    rotation_group_[j] = power;
    power = power * 5 % order_;
  }
  forward_twiddles_.resize(std::max<std::size_t>(max_slots_, 2));
  inverse_twiddles_.resize(forward_twiddles_.size());
  for (std::size_t half = 1; 2 * half <= max_slots_; half <<= 1) {
    const uint64_t stage_order = 8 * half;  // 4 * len: the roots this stage evaluates at
    for (std::size_t j = 0; j < half; ++j) {
      const std::complex<double> w = root_of_unity(rotation_group_[j] % stage_order, stage_order);
      forward_twiddles_[half + j] = w;
      inverse_twiddles_[half + j] = std::conj(w);
    }
  }
}

namespace {

// Below this many values a transform stays on the calling thread: waking the
// pool would cost more than the stages save.
constexpr std::size_t kMinParallelValues = 4096;

// How many parts a transform of n values is cut into: one per thread (a power
// of two, so that parts and stages line up), or 1 when small or nested.
std::size_t part_count(std::size_t n) {
  if (n < kMinParallelValues || in_parallel_region()) return 1;
  std::size_t parts = 1;
  while (2 * parts <= num_threads() && 2 * parts <= n / 2)
    parts *= 2;
  return parts;
}

// Forward stages half = first_half, 2 first_half, ... < values.size() on
// values (bit-reversed input, as in the serial transform).
void forward_stages(std::span<std::complex<double>> values, std::size_t first_half,
                    const std::complex<double>* twiddle_table) {
  const std::size_t n = values.size();
  for (std::size_t half = first_half; half < n; half <<= 1) {
    const std::complex<double>* twiddles = twiddle_table + half;
    for (std::size_t start = 0; start < n; start += 2 * half) {
      std::complex<double>* x = values.data() + start;
      std::complex<double>* y = x + half;
      for (std::size_t j = 0; j < half; ++j)
        forward_butterfly(x[j], y[j], twiddles[j]);
    }
  }
}

// Inverse stages half = values.size() / 2, ..., 1 on values.
void inverse_stages(std::span<std::complex<double>> values,
                    const std::complex<double>* twiddle_table) {
  const std::size_t n = values.size();
  for (std::size_t half = n >> 1; half >= 1; half >>= 1) {
    const std::complex<double>* twiddles = twiddle_table + half;
    for (std::size_t start = 0; start < n; start += 2 * half) {
      std::complex<double>* x = values.data() + start;
      std::complex<double>* y = x + half;
      for (std::size_t j = 0; j < half; ++j)
        inverse_butterfly(x[j], y[j], twiddles[j]);
    }
  }
}

// One stage whose blocks (2 half values) span more than one part: part p
// takes butterflies [p s, (p + 1) s) of the n / 2, s = n / (2 parts), which
// lie inside one block since half is a multiple of s. Same arithmetic as the
// serial stage, so the result does not depend on the thread count.
template <bool kForward>
void wide_stage(std::span<std::complex<double>> values, std::size_t half, std::size_t parts,
                const std::complex<double>* twiddle_table) {
  const std::size_t slice = values.size() / (2 * parts);
  const std::complex<double>* twiddles = twiddle_table + half;
  parallel_for(0, parts, [&](std::size_t p) {
    const std::size_t first = p * slice;
    std::complex<double>* x = values.data() + (first / half) * 2 * half;
    std::complex<double>* y = x + half;
    for (std::size_t j = first % half; j < first % half + slice; ++j) {
      if constexpr (kForward) {
        forward_butterfly(x[j], y[j], twiddles[j]);
      } else {
        inverse_butterfly(x[j], y[j], twiddles[j]);
      }
    }
  });
}

}  // namespace

// With several threads the transform is cut into `parts` contiguous blocks:
// the stages whose butterflies stay inside a block run one block per thread
// in one loop, and each of the log2(parts) wider stages is split by
// butterflies. With two threads that is two parallel loops per transform.
void SpecialFft::forward(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!is_power_of_two(n) || n > max_slots_) {
    throw InvalidArgument("special FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  bit_reverse_permute(values);
  const std::size_t parts = part_count(n);
  const std::size_t block = n / parts;
  if (parts == 1) {
    forward_stages(values, 1, forward_twiddles_.data());
    return;
  }
  parallel_for(0, parts, [&](std::size_t p) {
    forward_stages(values.subspan(p * block, block), 1, forward_twiddles_.data());
  });
  for (std::size_t half = block; half < n; half <<= 1)
    wide_stage<true>(values, half, parts, forward_twiddles_.data());
}

void SpecialFft::inverse(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!is_power_of_two(n) || n > max_slots_) {
    throw InvalidArgument("special inverse FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  const std::size_t parts = part_count(n);
  const std::size_t block = n / parts;
  if (parts == 1) {
    inverse_stages(values, inverse_twiddles_.data());
  } else {
    for (std::size_t half = n >> 1; half >= block; half >>= 1)
      wide_stage<false>(values, half, parts, inverse_twiddles_.data());
    parallel_for(0, parts, [&](std::size_t p) {
      inverse_stages(values.subspan(p * block, block), inverse_twiddles_.data());
    });
  }
  bit_reverse_permute(values);
  const double inv_n = 1.0 / static_cast<double>(n);
  for (auto& v : values)
    v *= inv_n;
}

}  // namespace heft::ckks
