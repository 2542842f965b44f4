// CKKS decoder: exact centered reconstruction of the coefficients, then the
// special FFT (Encoder::decode, decode_real; encoding is in encoder.cpp).
//
// Decoding needs every used coefficient x of m as the centered integer in
// (-Q/2, Q/2], Q = q_0 * ... * q_l. A multi-word CRT per coefficient costs
// O(l^2) word operations; heft instead proves a cheap candidate right:
//
//  1. Candidate s = the centered residue of tower 0, in (-q_0/2, q_0/2].
//  2. s = x exactly iff s = x_i (mod q_i) for every other tower i: then
//     s = x (mod Q) and both lie in (-Q/2, Q/2]. Each test is one 64-bit
//     multiply: q_i divides d = s - x_i (|d| < 2^63) iff d * q_i^-1 mod 2^64
//     falls in [-floor(2^63/q_i), floor(2^63/q_i)] (divisibility by
//     multiplication with the inverse modulo 2^64). This is a proof, not an
//     estimate, so a coefficient is never accepted wrongly, and it covers every
//     coefficient of magnitude below q_0/2 (all of them for ordinary scales).
//  2b. A coefficient that fails (|x| >= q_0/2: a huge scale, or a product of
//     scales not yet rescaled) is rebuilt modulo the short prefix of towers
//     whose product P is below 2^125 (Garner's mixed-radix algorithm in
//     128-bit arithmetic), centered, and verified against the remaining towers
//     by the same argument, with a 128-bit divisibility test.
//  3. Only if that fails too are all mixed-radix digits computed and x formed
//     as a multi-word integer, which is exact for any x.
//
// Step 2 needs every tower in coefficient form: for a plaintext in NTT form
// that is one inverse NTT per tower, three quarters of a decode. So for such
// a plaintext, step 2 first runs in a fast form that transforms nothing
// more: TowerAgreementCheck compares a random linear combination of tower i's
// NTT values with the matching combination of the guess's coefficients, a
// few multiplications per coefficient. A right guess always passes; a wrong
// one passes every tower with probability at most 2^-64. Only when some
// tower disagrees are the towers transformed and steps 2, 2b and 3 run.
//
// Only the coefficients at multiples of gap are read (sparse packing), and
// the inverse NTTs run in parallel over towers.
#include "heft/schemes/ckks/encoder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <span>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "schemes/ckks/encoder_shared.hpp"
#include "schemes/ckks/tower_agreement_check.hpp"

namespace heft::ckks {
namespace {

using namespace detail;  // encoder_shared.hpp

// The short Garner prefix: products below 2^125 keep sums of digit * prefix in 128 bits.
constexpr int kShortPrefixBits = 125;
// Refuted coefficients per chunk of steps 2b and 3 (the unit of parallelism).
constexpr std::size_t kExactChunk = 256;

// A multi-word magnitude divided by `scale`, as a double. The top 128 bits,
// with any nonzero lower bit folded into bit 0, round exactly like the whole
// number (at least 65 significant bits, so bit 0 is below the rounding
// position); scaling before the power-of-two shift avoids overflowing early.
double words_over_scale(std::span<const uint64_t> words, double scale) {
  std::size_t top = words.size();
  while (top > 0 && words[top - 1] == 0)
    --top;
  if (top <= 2) {
    const u128 value =
        (top == 2 ? static_cast<u128>(words[1]) << 64 : 0) | (top >= 1 ? words[0] : 0);
    return static_cast<double>(value) / scale;
  }
  u128 head = (static_cast<u128>(words[top - 1]) << 64) | words[top - 2];
  for (std::size_t k = 0; k + 2 < top; ++k) {
    if (words[k] != 0) {
      head |= 1;
      break;
    }
  }
  return std::ldexp(static_cast<double>(head) / scale, static_cast<int>(64 * (top - 2)));
}

// q^-1 mod 2^64 for odd q (Newton: each step doubles the correct low bits; q
// itself is right to 3 bits since q^2 = 1 mod 8).
uint64_t inverse_mod_word(uint64_t q) {
  uint64_t inverse = q;
  for (int i = 0; i < 5; ++i)
    inverse *= 2 - q * inverse;
  return inverse;
}

// q^-1 mod 2^128, by the same Newton iteration.
u128 inverse_mod_u128(uint64_t q) {
  u128 inverse = q;
  for (int i = 0; i < 6; ++i)
    inverse *= 2 - static_cast<u128>(q) * inverse;
  return inverse;
}

}  // namespace

// The mixed-radix constants, the short prefix and the divisibility tests that
// decoding uses (the constructor calls this; require_fits reads prefix_words_).
void Encoder::build_decoder_tables() {
  const std::size_t towers = tower_count_;
  prefix_mod_.assign(towers * towers, 0);
  inverse_prefix_.resize(towers);
  inverse_prefix_shoup_.resize(towers);
  for (std::size_t i = 0; i < towers; ++i) {
    const math::Modulus& q = ring_->modulus(i);
    uint64_t product = 1;
    for (std::size_t j = 0; j <= i; ++j) {
      prefix_mod_[i * towers + j] = product;
      if (j < i) product = q.mul(product, q.reduce(ring_->modulus(j).value()));
    }
    inverse_prefix_[i] = q.inverse(prefix_mod_[i * towers + i]);
    inverse_prefix_shoup_[i] = q.shoup(inverse_prefix_[i]);
  }
  prefix_words_.resize(towers + 1);
  prefix_words_[0] = {1};
  for (std::size_t j = 0; j < towers; ++j) {
    prefix_words_[j + 1] = mw::multiply_word(prefix_words_[j], ring_->modulus(j).value());
    mw::trim(prefix_words_[j + 1]);
  }

  short_prefix_ = 0;
  int bits = 0;
  while (short_prefix_ < towers &&
         bits + ring_->modulus(short_prefix_).bit_count() <= kShortPrefixBits) {
    bits += ring_->modulus(short_prefix_).bit_count();
    ++short_prefix_;
  }
  prefix_u128_.resize(short_prefix_ + 1);
  prefix_u128_[0] = 1;
  for (std::size_t j = 0; j < short_prefix_; ++j)
    prefix_u128_[j + 1] = prefix_u128_[j] * ring_->modulus(j).value();

  inverse_mod_word_.resize(towers);
  divisibility_bound_.resize(towers);
  inverse_mod_u128_.resize(towers);
  divisibility_bound_u128_.resize(towers);
  for (std::size_t i = 0; i < towers; ++i) {
    const uint64_t q = ring_->modulus(i).value();
    inverse_mod_word_[i] = inverse_mod_word(q);
    divisibility_bound_[i] = (uint64_t{1} << 63) / q;
    inverse_mod_u128_[i] = inverse_mod_u128(q);
    divisibility_bound_u128_[i] = (static_cast<u128>(1) << 127) / q;
  }
}

uint64_t Encoder::garner_digit(std::size_t tower, uint64_t residue, const uint64_t* digits) const {
  // digit_i = (x_i - sum_{j<i} digit_j * P_j) * P_i^-1 mod q_i. Terms are
  // below 2^122, so 32 of them (plus a reduced remainder) fit in 128 bits.
  const math::Modulus& q = ring_->modulus(tower);
  u128 sum = 0;
  for (std::size_t j = 0; j < tower; ++j) {
    sum += static_cast<u128>(digits[j]) * prefix_mod(tower, j);
    if ((j & 31) == 31) sum = q.reduce128(sum);
  }
  return q.mul_shoup(q.sub(residue, q.reduce128(sum)), inverse_prefix_[tower],
                     inverse_prefix_shoup_[tower]);
}

void Encoder::decode_large(const uint64_t* const* coefficients, std::size_t towers, std::size_t gap,
                           std::span<const std::size_t> positions, double scale,
                           std::span<double> values) const {
  // Step 2b: x_P = x mod P, centered, for the short prefix (P < 2^125) by
  // Garner in 128 bits, then verified against every other tower with the
  // signed 128-bit divisibility test (the 64-bit one of step 2, widened):
  // d = x_P - x_i has |d| < 2^125, and q_i | d iff d * q_i^-1 + bound_i lies
  // in [0, 2 * bound_i] modulo 2^128, bound_i = floor(2^127 / q_i).
  // Tower-major inside a chunk, so each tower is streamed once.
  const std::size_t short_count = std::min(short_prefix_, towers);
  const u128 prefix_product = prefix_u128_[short_count];
  const std::size_t chunks = (positions.size() + kExactChunk - 1) / kExactChunk;
  for_each_index(0, chunks, kExactChunk * towers * 4, [&](std::size_t chunk) {
    const std::size_t first = chunk * kExactChunk;
    const std::size_t size = std::min(positions.size() - first, kExactChunk);
    std::size_t offset[kExactChunk];
    u128 candidate[kExactChunk];  // x_P in two's complement
    uint64_t refuted[kExactChunk] = {};
    std::vector<uint64_t> digits(towers);
    for (std::size_t c = 0; c < size; ++c) {
      offset[c] = positions[first + c] * gap;
      u128 value = 0;
      for (std::size_t i = 0; i < short_count; ++i) {
        digits[i] = garner_digit(i, coefficients[i][offset[c]], digits.data());
        value += static_cast<u128>(digits[i]) * prefix_u128_[i];
      }
      // Centered: above (P - 1)/2 (P is odd) stands for value - P < 0.
      candidate[c] = value > (prefix_product - 1) / 2 ? value - prefix_product : value;
    }
    for (std::size_t i = short_count; i < towers; ++i) {
      const u128 inverse = inverse_mod_u128_[i];
      const u128 bound = divisibility_bound_u128_[i];
      const uint64_t* residues = coefficients[i];
      for (std::size_t c = 0; c < size; ++c) {
        const u128 d = candidate[c] - residues[offset[c]];
        refuted[c] |= static_cast<uint64_t>(d * inverse + bound > 2 * bound);
      }
    }
    // Step 3 for whatever the prefix did not explain either.
    std::vector<uint64_t> words(prefix_words_[towers].size() + 1);
    for (std::size_t c = 0; c < size; ++c) {
      const std::size_t k = positions[first + c];
      if (refuted[c] != 0) {
        values[k] =
            reconstruct_exactly(coefficients, offset[c], towers, scale, digits.data(), words);
      } else {
        const bool negative = (candidate[c] >> 127) != 0;
        const double x = static_cast<double>(negative ? -candidate[c] : candidate[c]) / scale;
        values[k] = negative ? -x : x;
      }
    }
  });
}

double Encoder::reconstruct_exactly(const uint64_t* const* coefficients, std::size_t position,
                                    std::size_t towers, double scale, uint64_t* digits,
                                    std::vector<uint64_t>& words) const {
  // All digits: x = sum_j digit_j P_j in [0, Q). x > (Q-1)/2, whose digits are
  // (q_j - 1)/2, means x - Q < 0, of magnitude sum_j (q_j - 1 - digit_j) P_j + 1.
  for (std::size_t i = 0; i < towers; ++i)
    digits[i] = garner_digit(i, coefficients[i][position], digits);
  bool negative = false;
  for (std::size_t i = towers; i-- > 0;) {
    const uint64_t half = ring_->modulus(i).value() >> 1;
    if (digits[i] != half) {
      negative = digits[i] > half;
      break;
    }
  }
  std::fill(words.begin(), words.end(), 0);
  for (std::size_t j = 0; j < towers; ++j) {
    const uint64_t digit = negative ? ring_->modulus(j).value() - 1 - digits[j] : digits[j];
    mw::mul_add_word(words, prefix_words_[j], digit);
  }
  if (negative) {
    const uint64_t one = 1;
    mw::mul_add_word(words, std::span<const uint64_t>(&one, 1), 1);
  }
  const double magnitude = words_over_scale(words, scale);
  return negative ? -magnitude : magnitude;
}

std::vector<std::complex<double>> Encoder::decode(const rlwe::Plaintext& plain) const {
  if (plain.poly.empty()) {
    throw InvalidArgument(
        "CKKS decode: the plaintext is empty (default-constructed or moved from)");
  }
  if (plain.poly.context() != ring_)
    rlwe::detail::throw_different_context("CKKS decode", "the plaintext");
  // 0 means all N/2 slots, as for encode and the evaluator.
  const std::size_t n = plain.slots == 0 ? max_slots() : plain.slots;
  if (!std::has_single_bit(n) || n > max_slots()) {
    throw InvalidArgument(
        "CKKS decode: the plaintext's slot count " + std::to_string(plain.slots) +
        " is not 0 (all) or a power of two in [1, N/2 = " + std::to_string(max_slots()) + "]");
  }
  require_scale(plain.scale, "decode");

  const std::size_t count = 2 * n;
  const std::size_t gap = degree_ / count;
  const std::size_t towers = plain.poly.tower_count();
  const double scale = plain.scale;

  // Coefficient form of every tower: the plaintext's own storage, or its
  // out-of-place inverse NTT into pooled scratch (left uninitialised: each
  // tower is written whole).
  std::vector<const uint64_t*> coefficients(towers);
  AlignedBuffer<uint64_t> scratch;
  if (plain.poly.is_ntt()) {
    scratch = AlignedBuffer<uint64_t>(towers * degree_, AlignedBuffer<uint64_t>::Uninitialized{});
  }
  const auto to_coefficients = [&](std::size_t i) {
    if (!plain.poly.is_ntt()) {
      coefficients[i] = plain.poly.tower(i).data();
      return;
    }
    const std::span<uint64_t> tower(scratch.data() + i * degree_, degree_);
    math::ntt_inverse(plain.poly.tower(i), tower, ring_->ntt_tables(i));  // out of place
    coefficients[i] = tower.data();
  };

  // Step 1: candidates from tower 0.
  to_coefficients(0);
  // Pooled scratch (AlignedBuffer): vectors of this size came from fresh
  // pages on every call, and page faults were a sixth of a decode.
  AlignedBuffer<int64_t> candidate(count, AlignedBuffer<int64_t>::Uninitialized{});
  const uint64_t q0 = ring_->modulus(0).value();
  for (std::size_t k = 0; k < count; ++k) {
    const uint64_t r = coefficients[0][k * gap];
    candidate[k] = r > (q0 >> 1) ? static_cast<int64_t>(r) - static_cast<int64_t>(q0)
                                 : static_cast<int64_t>(r);
  }
  // Step 2, fast form: for a plaintext in NTT form, test the whole guess
  // against each other tower in NTT form (TowerAgreementCheck), so no other
  // tower is transformed. If every tower agrees, the guess is x for every
  // coefficient (with probability at least 1 - 2^-64 over the check's own
  // randomness); if one does not, fall through to the exact tests below.
  bool guess_confirmed = towers == 1;
  if (towers > 1 && plain.poly.is_ntt()) {
    std::vector<char> agrees(towers, 1);
    const std::vector<__int128> sums =
        agreement_check_->guess_sums(std::span<const uint64_t>(coefficients[0], degree_));
    for_each_index(1, towers, degree_, [&](std::size_t i) {
      agrees[i] = agreement_check_->agrees(i, plain.poly.tower(i), sums) ? 1 : 0;
    });
    guess_confirmed = std::find(agrees.begin(), agrees.end(), 0) == agrees.end();
  }

  AlignedBuffer<double> values(count, AlignedBuffer<double>::Uninitialized{});
  for (std::size_t k = 0; k < count; ++k)
    values[k] = static_cast<double>(candidate[k]) / scale;
  if (!guess_confirmed) {
    // Step 2: one divisibility test per coefficient and tower, right after the
    // tower's inverse NTT while its coefficients are still in cache. With
    // d = s - x_i (|d| < 2^62, wrapping as two's complement), q_i | d iff
    // d * q_i^-1 + bound lands in [0, 2 * bound].
    std::vector<char> tower_refutes(towers, 0);
    for_each_index(1, towers, degree_, [&](std::size_t i) {
      to_coefficients(i);
      const std::size_t n_used = count;
      const std::size_t stride = gap;
      const uint64_t inverse = inverse_mod_word_[i];
      const uint64_t bound = divisibility_bound_[i];
      const uint64_t* residues = coefficients[i];
      const int64_t* candidates = candidate.data();
      // The largest test value decides for the whole tower (one compare).
      uint64_t worst = 0;
      for (std::size_t k = 0; k < n_used; ++k) {
        const uint64_t d = static_cast<uint64_t>(candidates[k]) - residues[k * stride];
        worst = std::max(worst, d * inverse + bound);
      }
      tower_refutes[i] = worst > 2 * bound ? 1 : 0;
    });

    // Steps 2b and 3 for the coefficients that some tower refuted.
    if (std::find(tower_refutes.begin(), tower_refutes.end(), 1) != tower_refutes.end()) {
      std::vector<char> refuted(count, 0);
      for (std::size_t i = 1; i < towers; ++i) {
        if (tower_refutes[i] == 0) continue;
        const uint64_t inverse = inverse_mod_word_[i];
        const uint64_t bound = divisibility_bound_[i];
        const uint64_t* residues = coefficients[i];
        for (std::size_t k = 0; k < count; ++k) {
          const uint64_t d = static_cast<uint64_t>(candidate[k]) - residues[k * gap];
          refuted[k] |= d * inverse + bound > 2 * bound ? 1 : 0;
        }
      }
      std::vector<std::size_t> positions;
      for (std::size_t k = 0; k < count; ++k)
        if (refuted[k] != 0) positions.push_back(k);
      decode_large(coefficients.data(), towers, gap, positions, scale, values.span());
    }
  }

  std::vector<std::complex<double>> u(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(values[k]) || !std::isfinite(values[k + n])) {
      throw InvalidArgument("CKKS decode: a coefficient divided by the scale 2^" +
                            log2_string(scale) +
                            " exceeds the double range; the scale does not match the plaintext");
    }
    u[k] = {values[k], values[k + n]};
  }
  fft_.forward(u);
  return u;
}

std::vector<double> Encoder::decode_real(const rlwe::Plaintext& plain) const {
  const std::vector<std::complex<double>> values = decode(plain);
  std::vector<double> real(values.size());
  for (std::size_t k = 0; k < values.size(); ++k)
    real[k] = values[k].real();
  return real;
}

}  // namespace heft::ckks
