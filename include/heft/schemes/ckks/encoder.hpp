// CKKS encoder: vectors of complex (or real) numbers <-> plaintext
// polynomials, through the canonical embedding scaled by `scale` and rounded.
//
// Encoding n values (n = slots, a power of two in [1, N/2]):
// u = SpecialFft::inverse(values), then coefficient k*gap of the plaintext is
// round(Re(u_k) * scale) and coefficient N/2 + k*gap is round(Im(u_k) * scale),
// k in [0, n), gap = N / (2n); every other coefficient is zero. With n < N/2
// ("sparse packing") the polynomial lives in Y = X^gap, and Y at
// zeta_2N^(5^j) is the root zeta_4n^(5^j) that SpecialFft evaluates at, so
// slot j still holds m(zeta_2N^(5^j)) / scale. The rounded integers are reduced
// exactly into every tower of Q_level, also when they exceed 2^63 (large
// scales or products of scales), and the plaintext comes back in NTT form,
// ready to multiply, with plain.scale = scale exactly and plain.slots = n.
//
// Decoding reads every needed coefficient as the centered integer in
// (-Q_l/2, Q_l/2], divides by plain.scale and applies SpecialFft::forward.
// The reconstruction is exact for every input, yet costs about one multiply
// per coefficient and tower in the common case (see decoder.cpp). For a
// plaintext in NTT form, the common case is confirmed by a randomized test
// that fails with probability at most 2^-64 (TowerAgreementCheck), so only
// tower 0 is transformed back.
//
// Bad input throws InvalidArgument (MismatchError for a plaintext of another
// context) and leaves every argument as it was. An Encoder is immutable after
// construction, so one may be shared by many threads.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/plaintext.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/aligned_buffer.hpp"

namespace heft::ckks {

namespace detail {
class TowerAgreementCheck;
}

// A plaintext given over Q_level * P: its special-prime towers too (NTT form).
struct HEFT_EXPORT ExtendedPlaintext {
  rlwe::ExtendedPoly poly;
  double scale = 1.0;
  std::size_t slots = 0;
  [[nodiscard]] std::size_t level() const noexcept { return poly.q.tower_count() - 1; }
};

class HEFT_EXPORT Encoder {
 public:
  // Throws InvalidArgument on a null context.
  explicit Encoder(std::shared_ptr<const rlwe::Context> context);

  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }
  // N/2: the slot count of full packing (and the default).
  [[nodiscard]] std::size_t max_slots() const noexcept { return fft_.max_slots(); }

  // values.size() <= slots; missing values are zero. slots = 0 means N/2.
  // Throws InvalidArgument on more values than slots, a slot count that is
  // not a power of two in [1, N/2], level > max_level, a scale that is not
  // positive and finite, a NaN or infinite value, or a rounded coefficient
  // whose magnitude reaches Q_level / 2 (the scale is too large for the
  // modulus left at that level).
  [[nodiscard]] rlwe::Plaintext encode(std::span<const std::complex<double>> values, double scale,
                                       std::size_t level, std::size_t slots = 0) const;
  [[nodiscard]] rlwe::Plaintext encode(std::span<const double> values, double scale,
                                       std::size_t level, std::size_t slots = 0) const;

  // encode()'s integers over Q_level and over the special primes P as well,
  // for products with key switching's images over Q_level * P
  // (Evaluator::dot_rotations_plain). Throws what encode() throws, and
  // InvalidArgument if the parameters have no special primes.
  [[nodiscard]] ExtendedPlaintext encode_extended(std::span<const std::complex<double>> values,
                                                  double scale, std::size_t level,
                                                  std::size_t slots = 0) const;
  [[nodiscard]] ExtendedPlaintext encode_extended(std::span<const double> values, double scale,
                                                  std::size_t level, std::size_t slots = 0) const;

  // `value` in every slot: the polynomial round(Re * scale) +
  // round(Im * scale) * X^(N/2), written straight into NTT form (no FFT, no
  // NTT), so scalar additions and multiplications stay cheap. Same checks.
  [[nodiscard]] rlwe::Plaintext encode_constant(std::complex<double> value, double scale,
                                                std::size_t level, std::size_t slots = 0) const;

  // plain.slots values. Accepts NTT or coefficient form. Throws MismatchError
  // for a plaintext of another context and InvalidArgument for an empty
  // polynomial, a slot count that is not a power of two in [1, N/2], a scale
  // that is not positive and finite, or a coefficient / scale beyond the
  // double range (a scale that does not belong to the plaintext).
  [[nodiscard]] std::vector<std::complex<double>> decode(const rlwe::Plaintext& plain) const;
  // The real parts of decode().
  [[nodiscard]] std::vector<double> decode_real(const rlwe::Plaintext& plain) const;

 private:
  std::size_t resolve_slots(std::size_t slots, const char* operation) const;
  static void require_scale(double scale, const char* operation);
  // Throws unless 2 * magnitude < Q_level (magnitude: a non-negative integer).
  void require_fits(double magnitude, double scale, std::size_t level, const char* operation) const;
  // encode()'s checks, FFT and rounding: the 2 n integer-valued coefficients
  // (position k * gap) of n values at `scale`, checked to fit Q_level. Value
  // is std::complex<double> or double (real values, imaginary parts 0).
  template <class Value>
  [[nodiscard]] AlignedBuffer<double> rounded_coefficients(std::span<const Value> values,
                                                           double scale, std::size_t level,
                                                           std::size_t n,
                                                           const char* operation) const;
  // encode_extended for complex or real values.
  template <class Value>
  [[nodiscard]] ExtendedPlaintext encode_extended_from(std::span<const Value> values, double scale,
                                                       std::size_t level, std::size_t slots) const;
  // An integer-valued double reduced modulo the modulus of `tower`.
  [[nodiscard]] uint64_t reduce_integer(double value, std::size_t tower) const;
  // 2 * slots integer-valued coefficients (position k * gap) into a plaintext.
  [[nodiscard]] rlwe::Plaintext make_plaintext(std::span<const double> coefficients, double scale,
                                               std::size_t level, std::size_t slots) const;
  // Builds the decoding tables below (prefix products, short prefix,
  // divisibility tests); called by the constructor (decoder.cpp).
  void build_decoder_tables();
  // Steps 2b and 3 of decoding (see decoder.cpp) for the coefficients at
  // `positions` (indices into `values`, read at position * gap) that the
  // tower-0 candidate did not explain; writes x / scale into values.
  void decode_large(const uint64_t* const* coefficients, std::size_t towers, std::size_t gap,
                    std::span<const std::size_t> positions, double scale,
                    std::span<double> values) const;
  // x / scale for the centered x whose residue in tower i is
  // coefficients[i][position], i < towers, by full mixed-radix reconstruction.
  // digits (towers words) and words (Q's length + 1) are scratch.
  [[nodiscard]] double reconstruct_exactly(const uint64_t* const* coefficients,
                                           std::size_t position, std::size_t towers, double scale,
                                           uint64_t* digits, std::vector<uint64_t>& words) const;
  // Mixed-radix digit `tower` of x from its residue and the lower digits.
  [[nodiscard]] uint64_t garner_digit(std::size_t tower, uint64_t residue,
                                      const uint64_t* digits) const;
  [[nodiscard]] uint64_t prefix_mod(std::size_t tower, std::size_t prefix) const {
    return prefix_mod_[tower * tower_count_ + prefix];
  }

  std::shared_ptr<const rlwe::Context> context_;
  std::shared_ptr<const ring::PolyContext> ring_;
  std::size_t degree_ = 0;
  std::size_t tower_count_ = 0;
  SpecialFft fft_;

  // 2^e mod q_i for e in [0, kShifts) and the Shoup constants: reduce a
  // coefficient m * 2^e (m < 2^63, from a double) with one multiplication.
  std::vector<uint64_t> pow2_mod_;
  std::vector<uint64_t> pow2_shoup_;
  // Mixed-radix (Garner) constants over the prefix products
  // P_j = q_0 * ... * q_{j-1}: prefix_mod_[i * L + j] = P_j mod q_i (j <= i),
  // inverse_prefix_[i] = (P_i mod q_i)^-1 with its Shoup constant, and P_j as
  // a multi-word integer (j in [0, L]).
  std::vector<uint64_t> prefix_mod_;
  std::vector<uint64_t> inverse_prefix_;
  std::vector<uint64_t> inverse_prefix_shoup_;
  std::vector<std::vector<uint64_t>> prefix_words_;
  // The longest prefix whose product stays below 2^125 (at least two towers
  // when L >= 2), and those products as 128-bit integers.
  std::size_t short_prefix_ = 1;
  std::vector<unsigned __int128> prefix_u128_;
  // Divisibility tests by q_i (odd) of signed integers d in two's complement:
  // q_i | d iff d * q_i^-1 + bound_i <= 2 * bound_i, computed modulo 2^64 with
  // bound_i = floor(2^63 / q_i) for |d| < 2^63, and modulo 2^128 with
  // bound_i = floor(2^127 / q_i) for |d| < 2^127.
  std::vector<uint64_t> inverse_mod_word_;
  std::vector<uint64_t> divisibility_bound_;
  std::vector<unsigned __int128> inverse_mod_u128_;
  std::vector<unsigned __int128> divisibility_bound_u128_;
  // X^(N/2) in NTT form is +-I_i (I_i^2 = -1 mod q_i): half_root_[i] = I_i and
  // bit k of half_sign_[i * N/64 ...] set where the value is +I_i.
  std::vector<uint64_t> half_root_;
  std::vector<uint64_t> half_sign_;
  // Tests a tower-0 guess against the other towers in NTT form, so decoding
  // transforms only tower 0 in the common case; shared by copies.
  std::shared_ptr<const detail::TowerAgreementCheck> agreement_check_;
};

}  // namespace heft::ckks
