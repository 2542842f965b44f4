// Batch encoding for BFV/BGV through the NTT mod t, and the coefficient encoder.
#include "heft/schemes/batch_encoder.hpp"

#include <string>

#include "heft/math/kernels.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/error.hpp"

namespace heft::schemes {
namespace {

math::Modulus checked_batching_modulus(uint64_t degree, uint64_t t) {
  math::require_poly_degree(degree, "BatchEncoder");  // before 2N is formed
  if (t < 3 || t >= (uint64_t{1} << math::kMaxModulusBits) || !math::is_prime(t) ||
      (t - 1) % (2 * degree) != 0) {
    throw InvalidArgument(
        "plaintext modulus " + std::to_string(t) +
        " does not allow batching: it must be a prime = 1 mod 2N = " + std::to_string(2 * degree) +
        " (math::generate_batching_prime finds one), or use the coefficient encoder");
  }
  return math::Modulus(t);
}

// Every coefficient of a plaintext is below its modulus t (decryption's
// output always is; a hand-built one may not be, and the NTT and the centred
// lift would turn such values into wrong slots without a word).
void require_plain_modulus_range(uint64_t plain_modulus, const char* operation) {
  if (plain_modulus < 2 || plain_modulus >= (uint64_t{1} << math::kMaxModulusBits)) {
    throw InvalidArgument(std::string(operation) + ": plaintext modulus " +
                          std::to_string(plain_modulus) + " must be in [2, 2^61)");
  }
}

void require_reduced(const IntegerPlaintext& plain, const char* operation) {
  for (std::size_t i = 0; i < plain.coefficients.size(); ++i) {
    if (plain.coefficients[i] >= plain.modulus) {
      throw InvalidArgument(std::string(operation) + ": coefficient " + std::to_string(i) + " = " +
                            std::to_string(plain.coefficients[i]) +
                            " is not below the plaintext modulus " + std::to_string(plain.modulus));
    }
  }
}

int64_t centered(uint64_t x, uint64_t t) {
  return x > t / 2 ? -static_cast<int64_t>(t - x) : static_cast<int64_t>(x);
}

uint64_t reduce_signed(int64_t v, const math::Modulus& t) {
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const uint64_t r = t.reduce(magnitude);
  return v < 0 ? t.negate(r) : r;
}

}  // namespace

BatchEncoder::BatchEncoder(uint64_t degree, uint64_t plain_modulus)
    : degree_(degree),
      modulus_(checked_batching_modulus(degree, plain_modulus)),
      tables_(degree, modulus_) {
  // Slot (row, column c) is the evaluation at w^e, e = 5^c (row 0) or -5^c
  // (row 1) mod 2N; heft's forward NTT puts a(w^(2 brv(k) + 1)) at index k,
  // so e sits at k = brv((e - 1) / 2).
  const uint64_t two_n = 2 * degree;
  const std::size_t half = degree / 2;
  const int log_n = tables_.log_degree();
  slot_to_ntt_index_.resize(degree);
  uint64_t power = 1;
  for (std::size_t c = 0; c < half; ++c) {
    const uint64_t row0 = power;
    const uint64_t row1 = two_n - power;
    slot_to_ntt_index_[c] = static_cast<uint32_t>(math::reverse_bits((row0 - 1) / 2, log_n));
    slot_to_ntt_index_[half + c] = static_cast<uint32_t>(math::reverse_bits((row1 - 1) / 2, log_n));
    power = power * 5 % two_n;
  }
}

IntegerPlaintext BatchEncoder::encode(std::span<const uint64_t> values) const {
  if (values.size() > degree_) {
    throw InvalidArgument("batch encode: " + std::to_string(values.size()) +
                          " values do not fit in " + std::to_string(degree_) + " slots");
  }
  std::vector<uint64_t> evaluations(degree_, 0);
  for (std::size_t s = 0; s < values.size(); ++s) {
    if (values[s] >= modulus_.value()) {
      throw InvalidArgument("batch encode: value " + std::to_string(values[s]) + " at slot " +
                            std::to_string(s) + " is not below the plaintext modulus " +
                            std::to_string(modulus_.value()));
    }
    evaluations[slot_to_ntt_index_[s]] = values[s];
  }
  math::ntt_inverse(evaluations, tables_);
  return {std::move(evaluations), modulus_.value()};
}

IntegerPlaintext BatchEncoder::encode_signed(std::span<const int64_t> values) const {
  if (values.size() > degree_) {
    throw InvalidArgument("batch encode: " + std::to_string(values.size()) +
                          " values do not fit in " + std::to_string(degree_) + " slots");
  }
  const uint64_t t = modulus_.value();
  std::vector<uint64_t> reduced(values.size());
  for (std::size_t s = 0; s < values.size(); ++s) {
    const int64_t v = values[s];
    if (v > static_cast<int64_t>(t / 2) || v < -static_cast<int64_t>((t - 1) / 2)) {
      throw InvalidArgument("batch encode: value " + std::to_string(v) + " at slot " +
                            std::to_string(s) +
                            " is outside (-t/2, t/2] for t = " + std::to_string(t));
    }
    reduced[s] = reduce_signed(v, modulus_);
  }
  return encode(reduced);
}

std::vector<uint64_t> BatchEncoder::decode(const IntegerPlaintext& plain) const {
  if (plain.modulus != modulus_.value() || plain.coefficients.size() != degree_) {
    throw MismatchError("batch decode: the plaintext is not a degree-" + std::to_string(degree_) +
                        " polynomial mod " + std::to_string(modulus_.value()));
  }
  require_reduced(plain, "batch decode");
  std::vector<uint64_t> evaluations = plain.coefficients;
  math::ntt_forward(evaluations, tables_);
  std::vector<uint64_t> values(degree_);
  for (std::size_t s = 0; s < degree_; ++s)
    values[s] = evaluations[slot_to_ntt_index_[s]];
  return values;
}

std::vector<int64_t> BatchEncoder::decode_signed(const IntegerPlaintext& plain) const {
  const std::vector<uint64_t> values = decode(plain);
  std::vector<int64_t> out(values.size());
  for (std::size_t s = 0; s < values.size(); ++s)
    out[s] = centered(values[s], modulus_.value());
  return out;
}

IntegerPlaintext encode_coefficients(std::span<const int64_t> values, uint64_t degree,
                                     uint64_t plain_modulus) {
  require_plain_modulus_range(plain_modulus, "coefficient encode");
  math::require_poly_degree(degree, "coefficient encode");
  if (values.size() > degree) {
    throw InvalidArgument("coefficient encode: " + std::to_string(values.size()) +
                          " values for a polynomial of degree " + std::to_string(degree));
  }
  const math::Modulus t(plain_modulus);
  IntegerPlaintext plain{std::vector<uint64_t>(degree, 0), plain_modulus};
  for (std::size_t i = 0; i < values.size(); ++i)
    plain.coefficients[i] = reduce_signed(values[i], t);
  return plain;
}

std::vector<int64_t> decode_coefficients_signed(const IntegerPlaintext& plain) {
  require_plain_modulus_range(plain.modulus, "coefficient decode");
  require_reduced(plain, "coefficient decode");
  std::vector<int64_t> out(plain.coefficients.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = centered(plain.coefficients[i], plain.modulus);
  return out;
}

}  // namespace heft::schemes
