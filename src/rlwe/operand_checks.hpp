// The operand checks that every layer from rlwe up makes, each message
// written once here: keys, key-switching operands and ciphertexts that reach
// heft from outside its own generator and evaluators (built by hand, taken
// from another context, or edited), and the shapes an operation needs
// (relinearized, a product, a prime left to divide by). Every operation runs
// the matching check before any work, so a malformed operand is refused with
// a typed error instead of being read out of bounds or giving a silently
// wrong result; the messages start with `operation`, the public operation
// that was called. The checks look at shapes only (context, ring, tower
// counts, form, part counts), never at secret values, and cost O(digits) or
// O(parts).
//
// Vocabulary: require_* throws unless its operand is as named; *_problem
// returns what is wrong ("" if nothing), for callers that choose the
// exception (serialization reports FormatError while loading).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe::detail {

// ---- contexts ----

// MismatchError "<operation>: <what> belongs to a different context": the one
// wording for every object made under another context (`what` a noun phrase;
// one ending in "keys" takes "belong").
[[noreturn]] void throw_different_context(std::string_view operation, std::string_view what);

// `owner` is `context` (throw_different_context otherwise).
void require_same_context(const Context& context, const Context* owner, std::string_view operation,
                          std::string_view what);

// p is a polynomial of the context's ciphertext ring: MismatchError if it is
// empty, throw_different_context if it belongs to another ring.
void require_ciphertext_ring_poly(const Context& context, const ring::RnsPoly& p,
                                  std::string_view operation, std::string_view what);

// The context has special primes (InvalidArgument: key switching needs them).
void require_special_primes(const Context& context, std::string_view operation);

// p is in NTT form (MismatchError naming `what` otherwise).
void require_ntt_form(const ring::RnsPoly& p, std::string_view operation, std::string_view what);

// The Galois keys were made under `context`.
void require_galois_keys(const Context& context, const GaloisKeys& keys,
                         std::string_view operation);

// ---- ciphertext shapes ----

// a has two parts: operations other than relinearization take no more
// (InvalidArgument: relinearize first).
void require_relinearized(const Ciphertext& a, std::string_view operation);

// a has three parts (a tensor product): what relinearization takes.
void require_product(const Ciphertext& a, std::string_view operation);

// `level` exists under these parameters (InvalidArgument: above the top).
void require_level(const Context& context, std::size_t level, std::string_view operation);

// A target level at or below the ciphertext's (InvalidArgument: levels only
// go down).
void require_lower_level(std::size_t target, std::size_t level, std::string_view operation);

// `level` leaves a prime to divide by (rescale, modulus switching, the fused
// relinearize-and-divide): InvalidArgument at level 0.
void require_prime_to_drop(std::size_t level, std::string_view operation,
                           std::string_view what = "the ciphertext");

// Two operands at levels a and b, which the operation needs equal:
// MismatchError naming both levels and `remedy` (what the caller should do).
void require_same_level(std::size_t a, std::size_t b, std::string_view operation,
                        std::string_view remedy);

// What is wrong with the scale and slot count of a ciphertext or plaintext
// ("" if nothing): the scale must be positive and finite, the slot count 0 or
// a power of two up to N/2. Serialization and the CKKS evaluator both refuse
// what this names.
std::string scale_and_slots_problem(const Context& context, double scale, uint64_t slots);

// What is wrong with a BGV correction factor under plaintext modulus t ("" if
// nothing): it must be invertible mod t, in [1, t) and coprime to t; with no
// t (CKKS) it must be 1.
std::string correction_problem(uint64_t correction, uint64_t t);

// ---- keys ----

// The error scales heft makes keys and ciphertexts with: 1 (CKKS, BFV) or
// the context's plaintext modulus t (BGV). InvalidArgument otherwise.
void require_error_scale(const Context& context, uint64_t error_scale, std::string_view operation);

// p is a polynomial of `ring` with `towers` towers in NTT form; MismatchError
// naming `what` otherwise.
void require_ntt_poly(const ring::RnsPoly& p, const std::shared_ptr<const ring::PolyContext>& ring,
                      std::size_t towers, std::string_view operation, std::string_view what);

// x holds `q_towers` towers of the ciphertext ring and every special prime,
// both in NTT form; the context must have special primes.
void require_extended(const Context& context, const ExtendedPoly& x, std::size_t q_towers,
                      std::string_view operation, std::string_view what);

// The secret key of this context: s over Q (all towers) and, when the
// context switches keys, over P, in NTT form.
void require_secret_key(const Context& context, const SecretKey& key, std::string_view operation);

// A public key of this context: b and a over all of Q in NTT form, and an
// error scale heft makes.
void require_public_key(const Context& context, const PublicKey& key, std::string_view operation);

// A key-switching key heft could have made for this context, of any kind
// (relinearization, Galois, general switching): not empty, one (b_j, a_j)
// pair per digit of its level, each over Q_level and P in NTT form, and an
// error scale heft makes.
void require_valid_switch_key(const Context& context, const KeySwitchKey& key,
                              std::string_view operation);

// The key switches ciphertexts of q_towers towers: it was made for their
// level or a higher one (InvalidArgument naming the levels otherwise).
void require_key_reaches(const KeySwitchKey& key, std::size_t q_towers, std::string_view operation);

// require_valid_switch_key for a key that switch_key and relinearization
// take: not a Galois key (InvalidArgument naming `operation`).
void require_non_galois_key(const Context& context, const KeySwitchKey& key,
                            std::string_view operation);

// A decomposition made under this context: level within the context, the
// digit count of that level, each digit over Q_level and P in NTT form.
void require_decomposed(const Context& context, const DecomposedPoly& digits,
                        std::string_view operation);

}  // namespace heft::rlwe::detail
