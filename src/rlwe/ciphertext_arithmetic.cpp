// Part-by-part sums and negation of ciphertexts (ciphertext_arithmetic.hpp).
#include "rlwe/ciphertext_arithmetic.hpp"

#include <algorithm>

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

Ciphertext sum_of_parts(const Ciphertext& a, const Ciphertext& b, bool subtract) {
  Ciphertext out = Ciphertext::with_metadata(a);
  const std::size_t parts = std::max(a.parts.size(), b.parts.size());
  out.parts.reserve(parts);
  for (std::size_t i = 0; i < parts; ++i) {
    if (i < a.parts.size() && i < b.parts.size()) {
      out.parts.push_back(subtract ? a.parts[i] - b.parts[i] : a.parts[i] + b.parts[i]);
    } else if (i < a.parts.size()) {
      out.parts.push_back(a.parts[i].clone());
    } else {
      out.parts.push_back(subtract ? -b.parts[i] : b.parts[i].clone());
    }
  }
  return out;
}

Ciphertext negated(const Ciphertext& a) {
  Ciphertext out = Ciphertext::with_metadata(a);
  out.parts.reserve(a.parts.size());
  for (const auto& part : a.parts)
    out.parts.push_back(-part);
  return out;
}

}  // namespace heft::rlwe::detail
