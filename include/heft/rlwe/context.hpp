// Context: everything precomputed from one validated parameter set, shared
// read-only by keys, encryptors and evaluators of any scheme.
//
// Immutable after creation (the base converters for key switching are built
// on first use behind a mutex, which is invisible to callers), so one context
// may be used from many threads at once. Objects made under one context are
// refused by another (contexts are compared by identity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "heft/export.hpp"
#include "heft/ring/base_converter.hpp"
#include "heft/ring/poly_context.hpp"
#include "heft/rlwe/parameters.hpp"

namespace heft::rlwe {

class HEFT_EXPORT Context {
  struct PrivateTag {};

 public:
  // Validates the parameters (throws InvalidArgument) and precomputes.
  static std::shared_ptr<const Context> create(const Parameters& parameters);
  Context(PrivateTag, const Parameters& parameters);

  [[nodiscard]] const Parameters& parameters() const noexcept { return parameters_; }
  [[nodiscard]] uint64_t degree() const noexcept { return parameters_.degree; }
  // L, and the top level L - 1 of fresh ciphertexts.
  [[nodiscard]] std::size_t level_count() const noexcept {
    return parameters_.ciphertext_moduli.size();
  }
  [[nodiscard]] std::size_t max_level() const noexcept { return level_count() - 1; }
  [[nodiscard]] std::size_t special_count() const noexcept {
    return parameters_.special_moduli.size();
  }
  [[nodiscard]] bool supports_key_switching() const noexcept { return special_count() > 0; }

  // Ring of the ciphertext primes q_0 .. q_{L-1}; a level-l polynomial uses
  // its first l + 1 towers.
  [[nodiscard]] const std::shared_ptr<const ring::PolyContext>& ciphertext_ring() const noexcept {
    return ciphertext_ring_;
  }
  // Ring of the special primes p_0 .. p_{K-1} (null when K = 0).
  [[nodiscard]] const std::shared_ptr<const ring::PolyContext>& special_ring() const noexcept {
    return special_ring_;
  }

  // Hybrid key-switching digits: digit j covers ciphertext towers
  // [j * digit_size, min((j + 1) * digit_size, level + 1)).
  [[nodiscard]] std::size_t digit_size() const noexcept { return digit_size_; }
  [[nodiscard]] std::size_t digit_count() const noexcept { return digit_count_; }
  [[nodiscard]] std::size_t digit_count_at(std::size_t level) const noexcept {
    return (level + digit_size_) / digit_size_;
  }

  // Converter from digit `digit` at `level` to the rest of Q_level followed
  // by P (the "mod up" of hybrid key switching).
  [[nodiscard]] const ring::BaseConverter& mod_up_converter(std::size_t level,
                                                            std::size_t digit) const;
  // Converter from P to Q_level (the "mod down").
  [[nodiscard]] const ring::BaseConverter& mod_down_converter(std::size_t level) const;
  // Converter from P followed by q_level to Q_(level-1) (mod down fused with
  // the rescale that follows it; level >= 1).
  [[nodiscard]] const ring::BaseConverter& mod_down_to_next_converter(std::size_t level) const;
  // P^-1 mod q_i and P mod q_i for every ciphertext prime.
  [[nodiscard]] const std::vector<uint64_t>& inv_special_product() const noexcept {
    return inv_special_product_;
  }
  [[nodiscard]] const std::vector<uint64_t>& special_product_mod_q() const noexcept {
    return special_product_mod_q_;
  }
  // q_level^-1 mod q_i for i < level (rescaling by the last prime of `level`).
  [[nodiscard]] const std::vector<uint64_t>& inv_last_prime(std::size_t level) const;

  // Galois element of a left rotation of the slots by `step` (5^step mod 2N,
  // negative steps rotate right), and of complex conjugation (2N - 1).
  [[nodiscard]] uint64_t galois_element_for_step(int64_t step) const;
  [[nodiscard]] uint64_t conjugation_galois_element() const noexcept { return 2 * degree() - 1; }

 private:
  Parameters parameters_;
  std::shared_ptr<const ring::PolyContext> ciphertext_ring_;
  std::shared_ptr<const ring::PolyContext> special_ring_;
  std::size_t digit_size_ = 1;
  std::size_t digit_count_ = 1;
  std::vector<uint64_t> inv_special_product_;
  std::vector<uint64_t> special_product_mod_q_;
  std::vector<std::vector<uint64_t>> inv_last_prime_;

  mutable std::mutex converter_mutex_;
  mutable std::vector<std::unique_ptr<ring::BaseConverter>> mod_up_;    // [level * dnum + digit]
  mutable std::vector<std::unique_ptr<ring::BaseConverter>> mod_down_;  // [level]
  mutable std::vector<std::unique_ptr<ring::BaseConverter>> mod_down_to_next_;  // [level]
};

// Bytes Context::create allocates up front for these (valid) parameters: the
// NTT tables of every prime, 56 bytes a coefficient for primes of 2^50 and
// above and 116 below (math::NttTables::table_bytes), and the rescaling
// constants (about L^2 / 2 words). The key-switching converters are built on
// first use and are not counted. Building takes time in proportion (every
// table entry is computed; about 3 ns a byte on one core of the machine
// docs/format.md names). load_parameters and load_context refuse a set whose
// context_bytes exceed LoadOptions::max_context_bytes before building anything.
HEFT_EXPORT std::size_t context_bytes(const Parameters& parameters);

}  // namespace heft::rlwe
