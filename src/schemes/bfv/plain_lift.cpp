// Delta = floor(Q/t) in RNS and the lifts of integer plaintexts into the
// ciphertext ring (see plain_lift.hpp).
#include "plain_lift.hpp"

#include <string>

#include "heft/util/error.hpp"

namespace heft::bfv::detail {

uint64_t plain_modulus_of(const rlwe::Context& context, const char* who) {
  const uint64_t t = context.parameters().plain_modulus;
  if (t < 2) {
    throw InvalidArgument(std::string(who) +
                          ": BFV needs a plaintext modulus (Parameters::plain_modulus >= 2)");
  }
  return t;
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

void check_plain(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                 const char* operation) {
  const uint64_t t = context.parameters().plain_modulus;
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
  for (uint64_t c : plain.coefficients) {
    if (c >= t) {
      throw InvalidArgument(std::string(operation) + ": plaintext coefficient " +
                            std::to_string(c) + " is not below t = " + std::to_string(t));
    }
  }
}

ring::RnsPoly scaled_plain(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                           std::size_t level, ring::Form form) {
  // m in [0, t) fits an int64 because t < 2^61.
  std::vector<int64_t> values(plain.coefficients.begin(), plain.coefficients.end());
  auto poly =
      ring::RnsPoly::uninitialized(context.ciphertext_ring(), level + 1);  // written in full
  poly.set_coefficients(values);
  poly.multiply_scalar(delta_residues(context, level));
  if (form == ring::Form::ntt) poly.ntt();
  return poly;
}

}  // namespace heft::bfv::detail
