// Part-by-part sums and negation of ciphertexts (ciphertext_arithmetic.hpp).
#include "rlwe/ciphertext_arithmetic.hpp"

namespace heft::rlwe::detail {

void add_parts(Ciphertext& a, const Ciphertext& b, bool subtract) {
  while (a.parts.size() < b.parts.size()) {
    a.parts.emplace_back(a.parts[0].context(), a.parts[0].tower_count(), ring::Form::ntt);
  }
  for (std::size_t i = 0; i < b.parts.size(); ++i) {
    if (subtract) {
      a.parts[i] -= b.parts[i];
    } else {
      a.parts[i] += b.parts[i];
    }
  }
}

Ciphertext negated(const Ciphertext& a) {
  Ciphertext out = a.clone();
  for (auto& part : out.parts)
    part.negate();
  return out;
}

}  // namespace heft::rlwe::detail
