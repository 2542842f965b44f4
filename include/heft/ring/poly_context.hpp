// PolyContext: what every RnsPoly over the ring Z_Q[X]/(X^N + 1) shares: the
// degree N, the RNS base, one NTT table per modulus, and a cache of the index
// permutations that apply automorphisms to NTT-form polynomials.
//
// A context is created once (create()) and shared read-only through
// std::shared_ptr<const PolyContext>; polynomials compare contexts by
// identity. The automorphism cache is the only state that changes after
// construction, and it is safe to use from many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/ring/rns_base.hpp"

namespace heft::ring {

class HEFT_EXPORT PolyContext {
  struct PrivateTag {};

 public:
  // Throws InvalidArgument unless N is a power of two in [8, 2^17] and every
  // modulus of base is a prime = 1 (mod 2N).
  static std::shared_ptr<const PolyContext> create(uint64_t degree, RnsBase base);

  PolyContext(PrivateTag, uint64_t degree, RnsBase base);
  PolyContext(const PolyContext&) = delete;
  PolyContext& operator=(const PolyContext&) = delete;

  [[nodiscard]] uint64_t degree() const noexcept { return degree_; }
  [[nodiscard]] int log_degree() const noexcept { return log_degree_; }
  [[nodiscard]] const RnsBase& base() const noexcept { return base_; }
  [[nodiscard]] std::size_t tower_count() const noexcept { return base_.size(); }
  // Both throw InvalidArgument if tower >= tower_count() (RnsBase checks).
  [[nodiscard]] const math::Modulus& modulus(std::size_t tower) const { return base_[tower]; }
  [[nodiscard]] const math::NttTables& ntt_tables(std::size_t tower) const {
    (void)base_[tower];
    return ntt_tables_[tower];
  }

  // Whether X -> X^galois_element is an automorphism: the element is odd
  // and in [1, 2N).
  [[nodiscard]] bool is_galois_element(uint64_t galois_element) const noexcept {
    return galois_element % 2 == 1 && galois_element < 2 * degree_;
  }
  // Throws InvalidArgument unless is_galois_element(galois_element).
  void require_galois_element(uint64_t galois_element) const;
  // The name require_galois_element had before the checks took one vocabulary.
  [[deprecated("use require_galois_element")]] void check_galois_element(
      uint64_t galois_element) const {
    require_galois_element(galois_element);
  }

  // The permutation that applies X -> X^g to a polynomial in NTT form:
  // result[k] = input[map[k]] (see automorphism.hpp for the formula). Built on
  // first request for each g and cached for the context's lifetime, so the
  // span stays valid as long as the context does. Thread-safe.
  [[nodiscard]] std::span<const uint32_t> ntt_automorphism_map(uint64_t galois_element) const;

 private:
  uint64_t degree_ = 0;
  int log_degree_ = 0;
  RnsBase base_;
  std::vector<math::NttTables> ntt_tables_;

  mutable std::mutex automorphism_mutex_;
  mutable std::unordered_map<uint64_t, std::unique_ptr<const std::vector<uint32_t>>>
      automorphism_maps_;
};

}  // namespace heft::ring
