// CKKS encoder: scale, round and reduce exactly into RNS on the way in; exact
// centered reconstruction on the way out.
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
#include <functional>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "ring/multiword.hpp"
#include "schemes/ckks/tower_agreement_check.hpp"

namespace heft::ckks {
namespace {

using u128 = unsigned __int128;
namespace mw = ring::detail;

constexpr double kTwo52 = 4503599627370496.0;     // 2^52
constexpr double kTwo63 = 9223372036854775808.0;  // 2^63
// Shifts of a finite double's last mantissa bit: at most 1023 - 52.
constexpr std::size_t kShifts = 1024;
// The short Garner prefix: products below 2^125 keep sums of digit * prefix in 128 bits.
constexpr int kShortPrefixBits = 125;
// Below this many words of work, waking the thread pool costs more than it saves.
constexpr std::size_t kMinParallelWords = std::size_t{1} << 14;
// make_plaintext splits the coefficients in slices of at least this many
// values, at most kMaxSplitSlices of them.
constexpr std::size_t kSplitSlice = 4096;
constexpr std::size_t kMaxSplitSlices = 16;
// Refuted coefficients per chunk of steps 2b and 3 (the unit of parallelism).
constexpr std::size_t kExactChunk = 256;

bool is_power_of_two(std::size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

void for_each_index(std::size_t begin, std::size_t end, std::size_t words_each,
                    const std::function<void(std::size_t)>& body) {
  if (end <= begin) return;
  if (end - begin == 1 || (end - begin) * words_each < kMinParallelWords || in_parallel_region()) {
    for (std::size_t i = begin; i < end; ++i)
      body(i);
    return;
  }
  parallel_for(begin, end, body);
}

// Nearest integer (ties to even), exact for every finite double: below 2^52,
// adding and subtracting 2^52 rounds at the units place; from 2^52 on, x is
// already an integer. Avoids a libm call per coefficient on baseline x86-64.
double round_to_integer(double x) {
  if (!(std::fabs(x) < kTwo52)) return x;
  const double shift = std::copysign(kTwo52, x);
  return (x + shift) - shift;
}

// A non-negative integer-valued double as magnitude * 2^shift with
// magnitude < 2^63 (shift = 0 below 2^63, else the exact mantissa/exponent).
struct SplitInteger {
  uint64_t magnitude;
  unsigned shift;
};

SplitInteger split_integer(double value) {
  if (value < kTwo63) return {static_cast<uint64_t>(value), 0};
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint64_t mantissa = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  return {mantissa, static_cast<unsigned>((bits >> 52) - 1075)};
}

// value * 2^extra_shift (value a non-negative integer-valued double) as words.
std::vector<uint64_t> integer_to_words(double value, unsigned extra_shift) {
  const SplitInteger split = split_integer(value);
  const unsigned shift = split.shift + extra_shift;
  std::vector<uint64_t> words(shift / 64 + 2, 0);
  words[shift / 64] = split.magnitude << (shift % 64);
  if (shift % 64 != 0) words[shift / 64 + 1] = split.magnitude >> (64 - shift % 64);
  return words;
}

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

uint64_t mul_high(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<u128>(a) * b) >> 64);
}

std::string log2_string(double x) {
  return std::to_string(static_cast<int>(std::lround(std::log2(x))));
}

// N/2, refusing a null context before any member needs it.
std::size_t half_degree(const std::shared_ptr<const rlwe::Context>& context) {
  if (context == nullptr) throw InvalidArgument("ckks::Encoder: the context is null");
  return context->degree() / 2;
}

}  // namespace

Encoder::Encoder(std::shared_ptr<const rlwe::Context> context)
    : context_(std::move(context)), fft_(half_degree(context_)) {
  ring_ = context_->ciphertext_ring();
  agreement_check_ = std::make_shared<const detail::TowerAgreementCheck>(ring_);
  degree_ = ring_->degree();
  tower_count_ = ring_->tower_count();
  const std::size_t towers = tower_count_;

  pow2_mod_.resize(towers * kShifts);
  pow2_shoup_.resize(towers * kShifts);
  for (std::size_t i = 0; i < towers; ++i) {
    const math::Modulus& q = ring_->modulus(i);
    uint64_t power = 1;
    for (std::size_t e = 0; e < kShifts; ++e) {
      pow2_mod_[i * kShifts + e] = power;
      pow2_shoup_[i * kShifts + e] = q.shoup(power);
      power = q.add(power, power);
    }
  }

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

  // X^(N/2) in NTT form: value k is psi_k^(N/2), a square root of -1. Taken
  // from the NTT itself rather than from its documented evaluation order, so
  // constant encoding stays right whatever order the kernels use.
  ring::RnsPoly half(ring_, towers);
  for (std::size_t i = 0; i < towers; ++i)
    half.tower(i)[degree_ / 2] = 1;
  half.ntt();
  const std::size_t sign_words = (degree_ + 63) / 64;
  half_root_.resize(towers);
  half_sign_.assign(towers * sign_words, 0);
  for (std::size_t i = 0; i < towers; ++i) {
    const std::span<const uint64_t> values = std::as_const(half).tower(i);
    half_root_[i] = values[0];
    for (std::size_t k = 0; k < degree_; ++k) {
      if (values[k] == half_root_[i])
        half_sign_[i * sign_words + k / 64] |= uint64_t{1} << (k % 64);
    }
  }
}

std::size_t Encoder::resolve_slots(std::size_t slots, const char* operation) const {
  if (slots == 0) return max_slots();
  if (!is_power_of_two(slots) || slots > max_slots()) {
    throw InvalidArgument(
        std::string("CKKS ") + operation + ": the slot count " + std::to_string(slots) +
        " must be a power of two in [1, N/2 = " + std::to_string(max_slots()) + "]");
  }
  return slots;
}

void Encoder::check_level(std::size_t level, const char* operation) const {
  if (level > context_->max_level()) {
    throw InvalidArgument(std::string("CKKS ") + operation + ": level " + std::to_string(level) +
                          " is above the top level " + std::to_string(context_->max_level()) +
                          " of these parameters");
  }
}

void Encoder::check_scale(double scale, const char* operation) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw InvalidArgument(std::string("CKKS ") + operation + ": the scale " +
                          std::to_string(scale) + " must be positive and finite");
  }
}

void Encoder::check_fits(double magnitude, double scale, std::size_t level,
                         const char* operation) const {
  if (!std::isfinite(magnitude)) {
    throw InvalidArgument(std::string("CKKS ") + operation +
                          ": values * scale overflow the double range; the scale 2^" +
                          log2_string(scale) + " is far too large");
  }
  // Centered decoding reads (-Q/2, Q/2]: require 2 * |c| < Q, exactly.
  const std::vector<uint64_t> twice = integer_to_words(magnitude, 1);
  if (mw::compare(twice, prefix_words_[level + 1]) >= 0) {
    double log_q = 0;
    for (std::size_t i = 0; i <= level; ++i)
      log_q += std::log2(static_cast<double>(ring_->modulus(i).value()));
    throw InvalidArgument(std::string("CKKS ") + operation + ": a coefficient of magnitude 2^" +
                          log2_string(magnitude) + " (values * scale 2^" + log2_string(scale) +
                          ") reaches Q/2 = 2^" + std::to_string(static_cast<int>(log_q) - 1) +
                          " at level " + std::to_string(level) +
                          ": the scale is too large for the modulus left at this level");
  }
}

uint64_t Encoder::reduce_integer(double value, std::size_t tower) const {
  const math::Modulus& q = ring_->modulus(tower);
  const SplitInteger split = split_integer(std::fabs(value));
  uint64_t residue = q.reduce(split.magnitude);
  if (split.shift != 0) residue = q.mul(residue, pow2_mod_[tower * kShifts + split.shift]);
  return value < 0 ? q.negate(residue) : residue;
}

namespace {

bool is_finite_value(std::complex<double> value) {
  return std::isfinite(value.real()) && std::isfinite(value.imag());
}
bool is_finite_value(double value) {
  return std::isfinite(value);
}

}  // namespace

// The scratch here (slots, coefficients) comes from the memory pool: fresh
// multi-megabyte std::vectors on every call went back to the kernel when
// freed, and page faults plus zeroing were half of encoding at N = 2^16 (and
// kept it from gaining anything from a second thread).
template <class Value>
AlignedBuffer<double> Encoder::rounded_coefficients(std::span<const Value> values, double scale,
                                                    std::size_t level, std::size_t n,
                                                    const char* operation) const {
  check_level(level, operation);
  check_scale(scale, operation);
  if (values.size() > n) {
    throw InvalidArgument("CKKS " + std::string(operation) + ": " + std::to_string(values.size()) +
                          " values do not fit in " + std::to_string(n) + " slots");
  }
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!is_finite_value(values[k])) {
      throw InvalidArgument("CKKS " + std::string(operation) + ": the value at index " +
                            std::to_string(k) + " is not finite (NaN or infinity)");
    }
  }

  AlignedBuffer<std::complex<double>> u(n, AlignedBuffer<std::complex<double>>::Uninitialized{});
  std::copy(values.begin(), values.end(), u.begin());
  std::fill(u.begin() + static_cast<std::ptrdiff_t>(values.size()), u.end(),
            std::complex<double>{});
  fft_.inverse(u.span());

  // coefficients[k] goes to position k * gap: Re(u_k) for k < n, Im(u_{k-n}) after.
  AlignedBuffer<double> coefficients(2 * n, AlignedBuffer<double>::Uninitialized{});
  double largest = 0;
  bool finite = true;
  for (std::size_t k = 0; k < n; ++k) {
    const double re = round_to_integer(u[k].real() * scale);
    const double im = round_to_integer(u[k].imag() * scale);
    finite = finite && std::isfinite(re) && std::isfinite(im);
    coefficients[k] = re;
    coefficients[k + n] = im;
    largest = std::max({largest, std::fabs(re), std::fabs(im)});
  }
  check_fits(finite ? largest : HUGE_VAL, scale, level, operation);
  return coefficients;
}

rlwe::Plaintext Encoder::encode(std::span<const std::complex<double>> values, double scale,
                                std::size_t level, std::size_t slots) const {
  const std::size_t n = resolve_slots(slots, "encode");
  return make_plaintext(rounded_coefficients(values, scale, level, n, "encode").span(), scale,
                        level, n);
}

rlwe::Plaintext Encoder::encode(std::span<const double> values, double scale, std::size_t level,
                                std::size_t slots) const {
  const std::size_t n = resolve_slots(slots, "encode");
  return make_plaintext(rounded_coefficients(values, scale, level, n, "encode").span(), scale,
                        level, n);
}

ExtendedPlaintext Encoder::encode_extended(std::span<const std::complex<double>> values,
                                           double scale, std::size_t level,
                                           std::size_t slots) const {
  return encode_extended_from(values, scale, level, slots);
}

ExtendedPlaintext Encoder::encode_extended(std::span<const double> values, double scale,
                                           std::size_t level, std::size_t slots) const {
  return encode_extended_from(values, scale, level, slots);
}

template <class Value>
ExtendedPlaintext Encoder::encode_extended_from(std::span<const Value> values, double scale,
                                                std::size_t level, std::size_t slots) const {
  if (!context_->supports_key_switching()) {
    throw InvalidArgument("CKKS encode_extended: these parameters have no special primes");
  }
  const std::size_t n = resolve_slots(slots, "encode_extended");
  const AlignedBuffer<double> coefficients =
      rounded_coefficients(values, scale, level, n, "encode_extended");
  rlwe::Plaintext q_part = make_plaintext(coefficients.span(), scale, level, n);
  // The same integers modulo each special prime (a few towers: plain scalar code).
  const auto& p_ring = context_->special_ring();
  const std::size_t gap = degree_ / coefficients.size();
  ring::RnsPoly p_part(p_ring, context_->special_count());
  for (std::size_t k = 0; k < p_part.tower_count(); ++k) {
    const math::Modulus& p = p_ring->modulus(k);
    const std::span<uint64_t> tower = p_part.tower(k);
    for (std::size_t j = 0; j < coefficients.size(); ++j) {
      const SplitInteger split = split_integer(std::fabs(coefficients[j]));
      uint64_t residue = p.reduce(split.magnitude);
      if (split.shift != 0) residue = p.mul(residue, p.pow(2, split.shift));
      tower[j * gap] = coefficients[j] < 0 ? p.negate(residue) : residue;
    }
  }
  p_part.ntt();
  return {{std::move(q_part.poly), std::move(p_part)}, scale, n};
}

rlwe::Plaintext Encoder::make_plaintext(std::span<const double> coefficients, double scale,
                                        std::size_t level, std::size_t slots) const {
  const std::size_t count = coefficients.size();
  const std::size_t gap = degree_ / count;
  const std::size_t towers = level + 1;

  // |c_k| = magnitude_k * 2^shift_k (shift_k = 0 below 2^63); sign_k is an
  // all-ones mask for c_k < 0.
  AlignedBuffer<uint64_t> magnitude(count, AlignedBuffer<uint64_t>::Uninitialized{});
  AlignedBuffer<uint64_t> sign(count, AlignedBuffer<uint64_t>::Uninitialized{});
  AlignedBuffer<uint16_t> shift(count, AlignedBuffer<uint16_t>::Uninitialized{});
  // In slices across the pool: with two threads, every line written here was
  // read by the other thread's towers in the previous encode, and one thread
  // writing them all waited on the cross-core invalidation of each line;
  // split, each waits for half.
  const std::size_t slices = std::clamp<std::size_t>(count / kSplitSlice, 1, kMaxSplitSlices);
  bool slice_shifted[kMaxSplitSlices] = {};
  uint64_t slice_largest[kMaxSplitSlices] = {};
  for_each_index(0, slices, count / slices, [&](std::size_t slice) {
    const std::size_t first = count * slice / slices, last = count * (slice + 1) / slices;
    bool shifted = false;
    uint64_t largest = 0;
    for (std::size_t k = first; k < last; ++k) {
      const SplitInteger split = split_integer(std::fabs(coefficients[k]));
      magnitude[k] = split.magnitude;
      shift[k] = static_cast<uint16_t>(split.shift);
      sign[k] = coefficients[k] < 0 ? ~uint64_t{0} : 0;
      shifted = shifted || split.shift != 0;
      largest = std::max(largest, split.magnitude);
    }
    slice_shifted[slice] = shifted;
    slice_largest[slice] = largest;
  });
  const bool shifted =
      std::find(slice_shifted, slice_shifted + slices, true) != slice_shifted + slices;
  const uint64_t largest = *std::max_element(slice_largest, slice_largest + slices);

  // Every value is written below when the coefficients fill the ring (gap 1);
  // sparse packing leaves the positions between them at zero.
  rlwe::Plaintext plain{
      gap == 1 ? ring::RnsPoly::uninitialized(ring_, towers) : ring::RnsPoly(ring_, towers), scale,
      slots};
  for_each_index(0, towers, degree_, [&](std::size_t i) {
    // Locals, not captures: stores through `out` may not alias them, so the
    // loops below keep them in registers (and the first one vectorises).
    const std::size_t n = count;
    const std::size_t stride = gap;
    const uint64_t q = ring_->modulus(i).value();
    const uint64_t twice_q = 2 * q;
    const uint64_t* power = pow2_mod_.data() + i * kShifts;
    const uint64_t* power_shoup = pow2_shoup_.data() + i * kShifts;
    const uint64_t* magnitudes = magnitude.data();
    const uint64_t* signs = sign.data();
    const uint16_t* shifts = shift.data();
    const std::span<uint64_t> out_span = plain.poly.tower(i);
    uint64_t* out = out_span.data();
    // c_k mod q, left lazy in [0, 2q] because the forward NTT accepts inputs
    // below 4q; negative c_k take (2q or q) minus the residue, selected with
    // masks. Three cases, cheapest first: magnitudes already below q (any
    // ordinary scale: a loop the compiler vectorises); a Barrett reduction
    // (Shoup multiplication by 1, in [0, 2q) for any 64-bit magnitude); a
    // Shoup multiplication by 2^shift mod q for coefficients beyond 2^63.
    if (!shifted && largest < q && stride == 1) {
      for (std::size_t k = 0; k < n; ++k) {
        const uint64_t x = magnitudes[k];
        out[k] = x ^ ((x ^ (q - x)) & signs[k]);
      }
    } else if (!shifted && largest < q) {
      for (std::size_t k = 0; k < n; ++k) {
        const uint64_t x = magnitudes[k];
        out[k * stride] = x ^ ((x ^ (q - x)) & signs[k]);
      }
    } else if (!shifted) {
      const uint64_t barrett = power_shoup[0];
      for (std::size_t k = 0; k < n; ++k) {
        const uint64_t x = magnitudes[k];
        const uint64_t r = x - mul_high(x, barrett) * q;
        out[k * stride] = r ^ ((r ^ (twice_q - r)) & signs[k]);
      }
    } else {
      for (std::size_t k = 0; k < n; ++k) {
        const uint64_t x = magnitudes[k];
        const uint64_t r = x * power[shifts[k]] - mul_high(x, power_shoup[shifts[k]]) * q;
        out[k * stride] = r ^ ((r ^ (twice_q - r)) & signs[k]);
      }
    }
    math::ntt_forward(out_span, ring_->ntt_tables(i));
  });
  plain.poly.declare_form(ring::Form::ntt);
  return plain;
}

rlwe::Plaintext Encoder::encode_constant(std::complex<double> value, double scale,
                                         std::size_t level, std::size_t slots) const {
  const std::size_t n = resolve_slots(slots, "encode_constant");
  check_level(level, "encode_constant");
  check_scale(scale, "encode_constant");
  if (!std::isfinite(value.real()) || !std::isfinite(value.imag())) {
    throw InvalidArgument("CKKS encode_constant: the value is not finite (NaN or infinity)");
  }
  // The constant c in every slot is the polynomial Re(c) + Im(c) X^(N/2) for
  // any slot count, since X^(N/2) is i at every zeta_2N^(5^j).
  const double re = round_to_integer(value.real() * scale);
  const double im = round_to_integer(value.imag() * scale);
  const bool finite = std::isfinite(re) && std::isfinite(im);
  check_fits(finite ? std::max(std::fabs(re), std::fabs(im)) : HUGE_VAL, scale, level,
             "encode_constant");

  const std::size_t towers = level + 1;
  const std::size_t sign_words = (degree_ + 63) / 64;
  rlwe::Plaintext plain{ring::RnsPoly(ring_, towers, ring::Form::ntt), scale, n};
  for_each_index(0, towers, degree_, [&](std::size_t i) {
    const math::Modulus& q = ring_->modulus(i);
    const uint64_t a = reduce_integer(re, i);
    const uint64_t b = reduce_integer(im, i);
    const std::span<uint64_t> out = plain.poly.tower(i);
    if (b == 0) {
      std::fill(out.begin(), out.end(), a);
      return;
    }
    // NTT value k of a + b X^(N/2) is a + b * (+-I).
    const uint64_t b_root = q.mul(b, half_root_[i]);
    const uint64_t plus = q.add(a, b_root);
    const uint64_t minus = q.sub(a, b_root);
    const uint64_t* signs = half_sign_.data() + i * sign_words;
    for (std::size_t k = 0; k < degree_; ++k)
      out[k] = ((signs[k / 64] >> (k % 64)) & 1) != 0 ? plus : minus;
  });
  return plain;
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
  if (plain.poly.context() != ring_) {
    throw MismatchError("CKKS decode: the plaintext was made under another context");
  }
  // 0 means all N/2 slots, as for encode and the evaluator.
  const std::size_t n = plain.slots == 0 ? max_slots() : plain.slots;
  if (!is_power_of_two(n) || n > max_slots()) {
    throw InvalidArgument(
        "CKKS decode: the plaintext's slot count " + std::to_string(plain.slots) +
        " is not 0 (all) or a power of two in [1, N/2 = " + std::to_string(max_slots()) + "]");
  }
  check_scale(plain.scale, "decode");

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
