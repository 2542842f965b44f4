// Integer plaintexts in the ciphertext ring: their checks, Delta = floor(Q/t)
// in RNS, and the centred and Delta-scaled lifts (plaintext_lift.hpp).
#include "schemes/common/plaintext_lift.hpp"

#include <string>
#include <vector>

#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::schemes {
namespace {

// The lifts' shape checks, which cost nothing.
void require_liftable(const rlwe::Context& context, const IntegerPlaintext& plain,
                      std::size_t level) {
  rlwe::detail::require_level(context, level, "lift");
  if (plain.coefficients.size() != context.degree()) {
    throw InvalidArgument("lift: the plaintext has " + std::to_string(plain.coefficients.size()) +
                          " coefficients, N = " + std::to_string(context.degree()));
  }
}

// The integer polynomial `values` over Q_level, in `form`.
ring::RnsPoly poly_of(const rlwe::Context& context, std::span<const int64_t> values,
                      std::size_t level, ring::Form form) {
  auto poly = ring::RnsPoly::uninitialized(context.ciphertext_ring(), level + 1);  // set in full
  poly.set_coefficients(values);
  if (form == ring::Form::ntt) poly.ntt();
  return poly;
}

}  // namespace

uint64_t require_plain_modulus(const rlwe::Context& context, const char* operation) {
  const uint64_t t = context.parameters().plain_modulus;
  if (t < 2) {
    throw MismatchError(std::string(operation) +
                        ": these parameters have no plaintext modulus t (BFV and BGV need "
                        "Parameters::plain_modulus >= 2)");
  }
  return t;
}

void require_integer_plaintext(const rlwe::Context& context, const IntegerPlaintext& plain,
                               const char* operation) {
  const uint64_t t = require_plain_modulus(context, operation);
  if (plain.modulus != t) {
    throw MismatchError(std::string(operation) + ": the plaintext is modulo " +
                        std::to_string(plain.modulus) + " but the parameters' t is " +
                        std::to_string(t) + "; encode it with t");
  }
  if (plain.coefficients.size() != context.degree()) {
    throw MismatchError(std::string(operation) + ": the plaintext has " +
                        std::to_string(plain.coefficients.size()) +
                        " coefficients, expected N = " + std::to_string(context.degree()));
  }
  for (uint64_t c : plain.coefficients)
    require_below_plain_modulus(c, t, operation);
}

void require_below_plain_modulus(uint64_t value, uint64_t t, const char* operation,
                                 const char* what) {
  if (value >= t) {
    throw InvalidArgument(std::string(operation) + ": " + what + " " + std::to_string(value) +
                          " is not below t = " + std::to_string(t));
  }
}

ring::RnsBase level_base(const rlwe::Context& context, std::size_t level) {
  const ring::RnsBase& all = context.ciphertext_ring()->base();
  return all.drop_last(all.size() - 1 - level);
}

std::vector<uint64_t> delta_residues(const rlwe::Context& context, std::size_t level) {
  const uint64_t t = context.parameters().plain_modulus;
  const ring::RnsBase base = level_base(context, level);
  // Schoolbook division of the multi-word Q by the one-word t, high word
  // first; the remainder is discarded (that is the floor).
  std::vector<uint64_t> quotient(base.product().begin(), base.product().end());
  unsigned __int128 remainder = 0;
  for (std::size_t i = quotient.size(); i-- > 0;) {
    const unsigned __int128 current = (remainder << 64) | quotient[i];
    quotient[i] = static_cast<uint64_t>(current / t);
    remainder = current % t;
  }
  return base.decompose(quotient);
}

ring::RnsPoly lift_centered(const rlwe::Context& context, const IntegerPlaintext& plain,
                            std::size_t level, ring::Form form) {
  require_liftable(context, plain, level);
  const uint64_t t = plain.modulus;
  std::vector<int64_t> centered(plain.coefficients.size());
  for (std::size_t i = 0; i < centered.size(); ++i) {
    const uint64_t v = plain.coefficients[i];
    centered[i] = v > t / 2 ? -static_cast<int64_t>(t - v) : static_cast<int64_t>(v);
  }
  return poly_of(context, centered, level, form);
}

ring::RnsPoly lift_scaled(const rlwe::Context& context, const IntegerPlaintext& plain,
                          std::size_t level, ring::Form form) {
  require_liftable(context, plain, level);
  // m in [0, t) fits an int64 because t < 2^61; Delta multiplies the towers
  // before the transform (it commutes with it).
  const std::vector<int64_t> values(plain.coefficients.begin(), plain.coefficients.end());
  ring::RnsPoly poly = poly_of(context, values, level, ring::Form::coefficient);
  poly.multiply_scalar(delta_residues(context, level));
  if (form == ring::Form::ntt) poly.ntt();
  return poly;
}

}  // namespace heft::schemes
