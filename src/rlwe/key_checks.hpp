// Shape checks for keys, key-switching operands and ciphertext metadata that reach heft from
// outside its own key generator and decomposition (built by hand, taken
// from another context, or edited after generation). Every operation that
// reads such an object runs the matching check first, so a malformed one is
// refused with a typed error instead of being read out of bounds or giving a
// silently wrong result. The checks look at shapes only (context, ring,
// tower counts, form), never at secret values, and cost O(digits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe::detail {

// What is wrong with the scale and slot count of a ciphertext or plaintext
// ("" if nothing): the scale must be positive and finite, the slot count 0 or
// a power of two up to N/2. Serialization and the CKKS evaluator both refuse
// what this names.
std::string scale_and_slots_problem(const Context& context, double scale, uint64_t slots);

// The error scales heft makes keys and ciphertexts with: 1 (CKKS, BFV) or
// the context's plaintext modulus t (BGV). InvalidArgument otherwise.
void require_error_scale(const Context& context, uint64_t error_scale, const char* operation);

// p is a polynomial of `ring` with `towers` towers in NTT form; MismatchError
// naming `what` otherwise.
void require_ntt_poly(const ring::RnsPoly& p, const std::shared_ptr<const ring::PolyContext>& ring,
                      std::size_t towers, const char* operation, const char* what);

// x holds `q_towers` towers of the ciphertext ring and every special prime,
// both in NTT form; the context must have special primes.
void require_extended(const Context& context, const ExtendedPoly& x, std::size_t q_towers,
                      const char* operation, const char* what);

// The secret key of this context: s over Q (all towers) and, when the
// context switches keys, over P, in NTT form.
void require_secret_key(const Context& context, const SecretKey& key, const char* operation);

// A public key of this context: b and a over all of Q in NTT form, and an
// error scale heft makes.
void require_public_key(const Context& context, const PublicKey& key, const char* operation);

// A key-switching key of this context: one (b_j, a_j) pair per digit, each
// over all of Q and P in NTT form, and an error scale heft makes.
void require_switch_key(const Context& context, const KeySwitchKey& key, const char* operation);

// require_switch_key for a key that switch_key and relinearization accept:
// not a Galois key (InvalidArgument naming `operation`).
void require_switching_key(const Context& context, const KeySwitchKey& key, const char* operation);

// A decomposition made under this context: level within the context, the
// digit count of that level, each digit over Q_level and P in NTT form.
void require_decomposed(const Context& context, const DecomposedPoly& digits,
                        const char* operation);

}  // namespace heft::rlwe::detail
