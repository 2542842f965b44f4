// The "special FFT" of CKKS: the canonical embedding restricted to the slots,
// evaluated in O(n log n).
//
// A real polynomial m of degree < 2n (n = number of slots, a power of two,
// n <= N/2) is packed as n complex numbers u_k = m_k + i m_{k+n}. Slot j holds
// m(zeta^(5^j)) with zeta = exp(2 pi i / 4n); because zeta^n = i and 5^j = 1
// (mod 4), that equals sum_k u_k zeta^(5^j k). forward() maps u -> slots
// (decoding), inverse() maps slots -> u (encoding). Slot j moves to slot j - r
// under the Galois automorphism X -> X^(5^r), which is what makes rotations
// work; conjugation is X -> X^-1.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"

namespace heft::ckks {

class HEFT_EXPORT SpecialFft {
 public:
  // Tables for up to `max_slots` slots (a power of two >= 1); any power-of-two
  // slot count up to it can then be transformed.
  explicit SpecialFft(std::size_t max_slots);

  [[nodiscard]] std::size_t max_slots() const noexcept { return max_slots_; }

  // In place, values.size() = number of slots (power of two <= max_slots()).
  void forward(std::span<std::complex<double>> values) const;  // u -> slots
  void inverse(std::span<std::complex<double>> values) const;  // slots -> u

 private:
  template <bool kScale>
  void permute_bit_reversed(std::span<std::complex<double>> values, double scale) const;

  std::size_t max_slots_;
  std::vector<uint32_t> bit_reversed_;  // i with its log2(max_slots) bits reversed
  // Twiddles in the order the butterflies read them: the stage of length
  // len = 2h uses entries [h, 2h), entry h + j for butterfly j. One table
  // serves every slot count, since a stage's twiddles depend only on len.
  std::vector<std::complex<double>> forward_twiddles_;
  std::vector<std::complex<double>> inverse_twiddles_;  // their conjugates
};

}  // namespace heft::ckks
