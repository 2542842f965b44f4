// Secret, public and key-switching keys (relinearization and Galois keys are
// key-switching keys), and the generator that makes them.
//
// All keys hold NTT-form polynomials, at the top level unless made for a lower
// one: a key-switching key made for level l holds only the towers of Q_l (and
// the digits that cover them) and switches ciphertexts at level l or below;
// bootstrapping makes each rotation key for the level it is used at, which
// shrinks the keys of the lower transforms. Key-switching keys are
// hybrid: one (b_j, a_j) pair over Q*P per digit j, with
//   b_j = -a_j s + e_j + P * g_j * s'   (mod Q*P),
// where g_j = 1 modulo the primes of digit j and 0 modulo the other ciphertext
// primes, and s' is the key being switched from (s^2 for relinearization,
// s(X^g) for the Galois element g).
//
// Error scale (opt-in, for BGV): a KeyGenerator made with error_scale = t
// multiplies every error by t, giving b = -a s + t e for the public key and
// b_j = -a_j s + t e_j + P g_j s' for key-switching keys. The keys record
// their error scale; key switching with such a key uses the t-aware mod down
// (key_switching.hpp) so that the result's error stays a multiple of t. The
// default, 1, produces exactly the keys of CKKS and BFV.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "heft/export.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"

namespace heft::rlwe {

// A polynomial modulo Q_l * P in NTT form, kept as its Q towers and P towers
// (the two rings have separate NTT tables).
struct HEFT_EXPORT ExtendedPoly {
  ring::RnsPoly q;  // l + 1 towers of the ciphertext ring
  ring::RnsPoly p;  // K towers of the special ring
  [[nodiscard]] ExtendedPoly clone() const { return {q.clone(), p.clone()}; }
};

class HEFT_EXPORT SecretKey {
 public:
  SecretKey() = default;
  SecretKey(std::shared_ptr<const Context> context, ring::RnsPoly s_q, ring::RnsPoly s_p);
  [[nodiscard]] const std::shared_ptr<const Context>& context() const noexcept { return context_; }
  // s modulo every ciphertext prime / special prime, NTT form (wiped on destruction).
  [[nodiscard]] const ring::RnsPoly& q_part() const noexcept { return s_q_; }
  [[nodiscard]] const ring::RnsPoly& p_part() const noexcept { return s_p_; }
  [[nodiscard]] SecretKey clone() const;
  // The key whose integer coefficients are `coefficients` (N values, each in
  // {-1, 0, 1}), reduced into both rings; InvalidArgument otherwise.
  static SecretKey from_coefficients(std::shared_ptr<const Context> context,
                                     std::span<const int64_t> coefficients);
  // The integer coefficients (centred, from tower 0). The caller should wipe
  // the vector after use.
  [[nodiscard]] std::vector<int64_t> coefficients() const;

 private:
  std::shared_ptr<const Context> context_;
  ring::RnsPoly s_q_, s_p_;
};

struct HEFT_EXPORT PublicKey {
  std::shared_ptr<const Context> context;
  ring::RnsPoly b, a;        // b = -a s + e over Q, NTT form, all L towers
  uint64_t error_scale = 1;  // e above is (error_scale * Gaussian); t for BGV
  // The seed `a` was expanded from (seeded_masks.hpp): serialization stores it
  // in place of `a` after checking that `a` still matches.
  std::optional<ring::Prng::Seed> a_seed;
};

struct HEFT_EXPORT KeySwitchKey {
  std::shared_ptr<const Context> context;
  std::vector<ExtendedPoly> b, a;  // one per digit of max_level(), over Q_max_level * P
  // 1 for relinearization and general keys; for a Galois key, the element g,
  // and b, a are stored permuted by X -> X^(g^-1) (see key_switching.hpp).
  uint64_t galois_element = 1;
  // Every e_j is a multiple of this (t for BGV keys, 1 otherwise).
  uint64_t error_scale = 1;
  // The seed every a_j was expanded from (seeded_masks.hpp), for compact
  // serialization; checked against `a` before it is relied on.
  std::optional<ring::Prng::Seed> a_seed;

  // The highest ciphertext level the key switches (its tower count less one).
  [[nodiscard]] std::size_t max_level() const noexcept {
    return b.empty() ? 0 : b.front().q.tower_count() - 1;
  }
};

struct HEFT_EXPORT RelinKey {
  KeySwitchKey key;
};

// Checks, before any work, that `key` is a relinearization key of `context`:
// made under it (MismatchError), with one well-formed pair per digit
// (MismatchError), and not a Galois key (InvalidArgument). The messages name
// `operation`, the caller's public operation.
HEFT_EXPORT void require_relin_key(const Context& context, const RelinKey& key,
                                   const char* operation);
// The name require_relin_key had before the checks took one vocabulary.
[[deprecated("use require_relin_key")]] inline void check_relin_key(const Context& context,
                                                                    const RelinKey& key,
                                                                    const char* operation) {
  require_relin_key(context, key, operation);
}

// Keys for Galois automorphisms X -> X^g, by element g.
class HEFT_EXPORT GaloisKeys {
 public:
  GaloisKeys() = default;
  explicit GaloisKeys(std::shared_ptr<const Context> context) : context_(std::move(context)) {}
  [[nodiscard]] const std::shared_ptr<const Context>& context() const noexcept { return context_; }
  [[nodiscard]] bool has(uint64_t galois_element) const { return keys_.count(galois_element) != 0; }
  // Throws InvalidArgument naming the element if absent.
  [[nodiscard]] const KeySwitchKey& at(uint64_t galois_element) const;
  // The same, with the message naming the caller's operation and, for a
  // rotation, the step the user asked for (what they must generate a key for).
  [[nodiscard]] const KeySwitchKey& at(uint64_t galois_element, std::string_view operation,
                                       std::optional<int64_t> step = std::nullopt) const;
  // Adds (or replaces) the key for `galois_element`. InvalidArgument if the
  // key is for another element, MismatchError if it is from another context.
  void insert(uint64_t galois_element, KeySwitchKey key);
  // Removes the key for `galois_element` and returns it (InvalidArgument
  // naming the element if absent): for moving keys between sets.
  [[nodiscard]] KeySwitchKey extract(uint64_t galois_element);
  [[nodiscard]] std::vector<uint64_t> elements() const;
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size(); }

 private:
  std::shared_ptr<const Context> context_;
  std::map<uint64_t, KeySwitchKey> keys_;
};

class HEFT_EXPORT KeyGenerator {
 public:
  // Samples a fresh secret key from the context's secret distribution.
  // error_scale multiplies every error of the keys made (see the file
  // comment): 1 for CKKS/BFV, the plaintext modulus t for BGV. Throws
  // InvalidArgument unless it is 1 or the context's plaintext modulus.
  explicit KeyGenerator(std::shared_ptr<const Context> context, uint64_t error_scale = 1);
  // Makes keys for an existing secret key.
  KeyGenerator(std::shared_ptr<const Context> context, const SecretKey& secret_key,
               uint64_t error_scale = 1);

  [[nodiscard]] uint64_t error_scale() const noexcept { return error_scale_; }

  [[nodiscard]] const SecretKey& secret_key() const noexcept { return secret_key_; }
  [[nodiscard]] PublicKey create_public_key() const;
  [[nodiscard]] RelinKey create_relin_key() const;
  // Keys for left rotations of the slots by each step (negative: right), and
  // for complex conjugation (CKKS) / column swap (BFV/BGV) if asked.
  // max_level (default: the top) is the highest level the keys will switch
  // at; keys for a lower level are smaller and quicker to make, and refuse
  // ciphertexts above it (InvalidArgument). InvalidArgument if it is above
  // the top level.
  [[nodiscard]] GaloisKeys create_galois_keys(
      std::span<const int64_t> steps, bool include_conjugation = false,
      std::optional<std::size_t> max_level = std::nullopt) const;
  [[nodiscard]] GaloisKeys create_galois_keys_for_elements(
      std::span<const uint64_t> elements,
      std::optional<std::size_t> max_level = std::nullopt) const;
  // The key that switches a ciphertext under s' (given over all of Q in NTT
  // form: s' enters the key only modulo the ciphertext primes) to this
  // secret key, for ciphertexts up to max_level (as above). MismatchError if
  // s' is not such a polynomial of the context.
  [[nodiscard]] KeySwitchKey create_switch_key(
      const ring::RnsPoly& s_prime_q, std::optional<std::size_t> max_level = std::nullopt) const;

 private:
  // The error e scaled by error_scale_ (untouched when it is 1).
  void scale_error(ExtendedPoly& e) const;
  // The tower count of a key for max_level (all towers when absent);
  // InvalidArgument naming `operation` if it is above the top level.
  [[nodiscard]] std::size_t key_tower_count(std::optional<std::size_t> max_level,
                                            const char* operation) const;

  std::shared_ptr<const Context> context_;
  SecretKey secret_key_;
  uint64_t error_scale_ = 1;
};

}  // namespace heft::rlwe
