// Ciphertext: (c_0, c_1, ...) over Q_level with c_0 + c_1 s + c_2 s^2 + ... =
// message + noise. Two parts after encryption and relinearization, three after
// a tensor product. Parts are kept in NTT form between operations.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "heft/export.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/rns_poly.hpp"

namespace heft::rlwe {

struct HEFT_EXPORT Ciphertext {
  std::vector<ring::RnsPoly> parts;
  double scale = 1.0;          // CKKS: exact scale of the encrypted values
  std::size_t slots = 0;       // CKKS: number of packed slots
  bool needs_rescale = false;  // CKKS: a product whose scale has not been divided down yet
  // Set by secret-key encryption: parts[1] was expanded from this seed. It is
  // only a hint for serialization, which checks that parts[1] still equals
  // the expansion (an operation may have changed it) before storing the
  // 32-byte seed in place of the polynomial.
  std::optional<ring::Prng::Seed> c1_seed;

  [[nodiscard]] std::size_t size() const noexcept { return parts.size(); }
  [[nodiscard]] std::size_t level() const noexcept { return parts.front().tower_count() - 1; }
  [[nodiscard]] bool empty() const noexcept { return parts.empty(); }

  [[nodiscard]] Ciphertext clone() const {
    Ciphertext copy;
    copy.parts.reserve(parts.size());
    for (const auto& p : parts)
      copy.parts.push_back(p.clone());
    copy.scale = scale;
    copy.slots = slots;
    copy.needs_rescale = needs_rescale;
    copy.c1_seed = c1_seed;
    return copy;
  }
};

}  // namespace heft::rlwe
