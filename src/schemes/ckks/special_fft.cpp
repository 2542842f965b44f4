// CKKS special FFT: a radix-2 transform over the rotation group 5^j. The
// stages are the vectorised kernels of heft/math/complex_fft.hpp; this file
// builds the twiddles and puts the values in bit-reversed order.
#include "heft/schemes/ckks/special_fft.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>

#include "heft/math/complex_fft.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks {
namespace {

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

SpecialFft::SpecialFft(std::size_t max_slots) : max_slots_(max_slots) {
  if (!std::has_single_bit(max_slots)) {
    throw InvalidArgument("CKKS slot count " + std::to_string(max_slots) +
                          " must be a power of two");
  }
  // 5^j mod M = 4 * max_slots, the rotation group that orders the slots: it
  // places the twiddles below and is not needed afterwards.
  const uint64_t order = 4 * max_slots_;
  std::vector<uint64_t> rotation_group(max_slots_);
  uint64_t power = 1;
  for (std::size_t j = 0; j < max_slots_; ++j) {
    rotation_group[j] = power;
    power = power * 5 % order;
  }
  bit_reversed_.resize(max_slots_);
  const int bits = std::countr_zero(max_slots_);
  for (std::size_t i = 0; i < max_slots_; ++i)
    bit_reversed_[i] = static_cast<uint32_t>(math::reverse_bits(i, bits));
  forward_twiddles_.resize(std::max<std::size_t>(max_slots_, 2));
  inverse_twiddles_.resize(forward_twiddles_.size());
  for (std::size_t half = 1; 2 * half <= max_slots_; half <<= 1) {
    const uint64_t stage_order = 8 * half;  // 4 * len: the roots this stage evaluates at
    for (std::size_t j = 0; j < half; ++j) {
      const std::complex<double> w = root_of_unity(rotation_group[j] % stage_order, stage_order);
      forward_twiddles_[half + j] = w;
      inverse_twiddles_[half + j] = std::conj(w);
    }
  }
}

// values[i] <-> values[brv(i)], brv reversing the log2(n) bits of i, and
// every value times `scale` when kScale (the inverse transform's 1/n, the
// same product a separate pass would make).
//
// Taken in order of i, brv(i) jumps by n/2 and every access lands in the same
// cache set, so the swaps wait on L2 one at a time. Instead i is split as
// (a, b, c), a and c of kTileBits bits (c lowest): brv(a, b, c) = (brv(c),
// brv(b), brv(a)), so the 2^kTileBits lines of tile b (each line the values
// with one a, all c: contiguous) swap with those of tile brv(b) and nothing
// else. Each cache line is then read and written once.
template <bool kScale>
void SpecialFft::permute_bit_reversed(std::span<std::complex<double>> values, double scale) const {
  constexpr int kTileBits = 2;
  constexpr std::size_t kTile = std::size_t{1} << kTileBits;
  constexpr std::size_t kReversedTile[kTile] = {0, 2, 1, 3};
  const std::size_t n = values.size();
  const int bits = std::countr_zero(n);
  std::complex<double>* v = values.data();
  auto swap_pair = [&](std::size_t i, std::size_t j) {
    const std::complex<double> at_i = v[i];
    v[i] = kScale ? v[j] * scale : v[j];
    v[j] = kScale ? at_i * scale : at_i;
  };
  if (bits < 2 * kTileBits) {
    const int shift = std::countr_zero(max_slots_) - bits;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = bit_reversed_[i] >> shift;
      if (i < j) {
        swap_pair(i, j);
      } else if (kScale && i == j) {
        v[i] *= scale;
      }
    }
    return;
  }
  const int middle_bits = bits - 2 * kTileBits;
  const int middle_shift = std::countr_zero(max_slots_) - middle_bits;
  const std::size_t row_stride = std::size_t{1} << (middle_bits + kTileBits);  // one step of a
  for (std::size_t b = 0; b < (std::size_t{1} << middle_bits); ++b) {
    const std::size_t reversed_b = middle_bits == 0 ? 0 : bit_reversed_[b] >> middle_shift;
    if (reversed_b < b) continue;  // done with its partner
    for (std::size_t a = 0; a < kTile; ++a) {
      for (std::size_t c = 0; c < kTile; ++c) {
        const std::size_t i = a * row_stride + b * kTile + c;
        const std::size_t j = kReversedTile[c] * row_stride + reversed_b * kTile + kReversedTile[a];
        // Tiles b < brv(b) swap whole; a tile that is its own reversal
        // swaps within itself, each pair once.
        if (reversed_b != b || i < j) {
          swap_pair(i, j);
        } else if (kScale && i == j) {
          v[i] *= scale;
        }
      }
    }
  }
}

// Both transforms run on the calling thread: since the stages were
// vectorised (math/complex_fft.hpp), a transform is too short to repay the
// pool's fork and join: split across two threads it was slower at every size
// from 2^12 to 2^16 (docs/performance-notes.md, threads).
void SpecialFft::forward(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!std::has_single_bit(n) || n > max_slots_) {
    throw InvalidArgument("special FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  permute_bit_reversed<false>(values, 1.0);
  math::fft_forward_stages(values, forward_twiddles_);
}

void SpecialFft::inverse(std::span<std::complex<double>> values) const {
  const std::size_t n = values.size();
  if (!std::has_single_bit(n) || n > max_slots_) {
    throw InvalidArgument("special inverse FFT of " + std::to_string(n) +
                          " values: need a power of two up to " + std::to_string(max_slots_));
  }
  math::fft_inverse_stages(values, inverse_twiddles_);
  permute_bit_reversed<true>(values, 1.0 / static_cast<double>(n));
}

}  // namespace heft::ckks
