// The centred lift of an integer plaintext into the ciphertext ring.
#include "schemes/common/plaintext_lift.hpp"

#include <string>
#include <vector>

#include "heft/util/error.hpp"

namespace heft::schemes {

ring::RnsPoly lift_centered(const rlwe::Context& context, const IntegerPlaintext& plain,
                            std::size_t level, ring::Form form) {
  // The shape, which costs nothing to check; that coefficients are below t
  // is the caller's check (bfv::detail::check_plain, bgv::check_plaintext),
  // already made on every path that reaches here.
  if (level > context.max_level()) {
    throw InvalidArgument("lift: level " + std::to_string(level) + " is above the top level " +
                          std::to_string(context.max_level()));
  }
  if (plain.coefficients.size() != context.degree()) {
    throw InvalidArgument("lift: the plaintext has " + std::to_string(plain.coefficients.size()) +
                          " coefficients, N = " + std::to_string(context.degree()));
  }
  const uint64_t t = plain.modulus;
  std::vector<int64_t> centered(plain.coefficients.size());
  for (std::size_t i = 0; i < centered.size(); ++i) {
    const uint64_t v = plain.coefficients[i];
    centered[i] = v > t / 2 ? -static_cast<int64_t>(t - v) : static_cast<int64_t>(v);
  }
  auto m = ring::RnsPoly::uninitialized(context.ciphertext_ring(), level + 1);  // written in full
  m.set_coefficients(centered);
  if (form == ring::Form::ntt) m.ntt();
  return m;
}

}  // namespace heft::schemes
