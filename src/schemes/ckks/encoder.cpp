// CKKS encoder: scale, round and reduce exactly into RNS (encode,
// encode_extended, encode_constant), with the checks every encoding makes.
// Decoding, the exact centered reconstruction, is in decoder.cpp.
#include "heft/schemes/ckks/encoder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "schemes/ckks/encoder_shared.hpp"
#include "schemes/ckks/tower_agreement_check.hpp"

namespace heft::ckks {
namespace {

using namespace detail;  // encoder_shared.hpp

constexpr double kTwo52 = 4503599627370496.0;     // 2^52
constexpr double kTwo63 = 9223372036854775808.0;  // 2^63
// Shifts of a finite double's last mantissa bit: at most 1023 - 52.
constexpr std::size_t kShifts = 1024;
// make_plaintext splits the coefficients in slices of at least this many
// values, at most kMaxSplitSlices of them.
constexpr std::size_t kSplitSlice = 4096;
constexpr std::size_t kMaxSplitSlices = 16;

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

uint64_t mul_high(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<u128>(a) * b) >> 64);
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

  build_decoder_tables();

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
  if (!std::has_single_bit(slots) || slots > max_slots()) {
    throw InvalidArgument(
        std::string("CKKS ") + operation + ": the slot count " + std::to_string(slots) +
        " must be a power of two in [1, N/2 = " + std::to_string(max_slots()) + "]");
  }
  return slots;
}

void Encoder::require_scale(double scale, const char* operation) {
  if (!(scale > 0) || !std::isfinite(scale)) {
    throw InvalidArgument(std::string("CKKS ") + operation + ": the scale " +
                          std::to_string(scale) + " must be positive and finite");
  }
}

void Encoder::require_fits(double magnitude, double scale, std::size_t level,
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
  rlwe::detail::require_level(*context_, level, std::string("CKKS ") + operation);
  require_scale(scale, operation);
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
  require_fits(finite ? largest : HUGE_VAL, scale, level, operation);
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
  rlwe::detail::require_level(*context_, level, "CKKS encode_constant");
  require_scale(scale, "encode_constant");
  if (!std::isfinite(value.real()) || !std::isfinite(value.imag())) {
    throw InvalidArgument("CKKS encode_constant: the value is not finite (NaN or infinity)");
  }
  // The constant c in every slot is the polynomial Re(c) + Im(c) X^(N/2) for
  // any slot count, since X^(N/2) is i at every zeta_2N^(5^j).
  const double re = round_to_integer(value.real() * scale);
  const double im = round_to_integer(value.imag() * scale);
  const bool finite = std::isfinite(re) && std::isfinite(im);
  require_fits(finite ? std::max(std::fabs(re), std::fabs(im)) : HUGE_VAL, scale, level,
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

}  // namespace heft::ckks
