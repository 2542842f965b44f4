// Plaintext: an encoded message as one polynomial modulo Q_level, with the
// metadata the schemes need (CKKS: the exact scale and slot count).
#pragma once

#include <cstddef>

#include "heft/export.hpp"
#include "heft/ring/rns_poly.hpp"

namespace heft::rlwe {

struct HEFT_EXPORT Plaintext {
  ring::RnsPoly poly;     // over the context's ciphertext ring, level + 1 towers
  double scale = 1.0;     // CKKS: values were multiplied by exactly this
  std::size_t slots = 0;  // CKKS: number of packed slots (power of two <= N/2)

  [[nodiscard]] std::size_t level() const noexcept { return poly.tower_count() - 1; }
  [[nodiscard]] Plaintext clone() const { return {poly.clone(), scale, slots}; }
};

}  // namespace heft::rlwe
