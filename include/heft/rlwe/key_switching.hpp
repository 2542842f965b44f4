// Hybrid key switching, in the three stages that linear transforms hoist:
//
//   1. decompose(c): split c (level l) into its digits and raise each to
//      Q_l * P ("mod up"). Done once per ciphertext.
//   2. inner_product(digits, key): sum_j digit_j * (b_j, a_j) over Q_l * P.
//   3. mod_down(x): divide by P with rounding, back to Q_l.
//
// switch_key() chains them for relinearization; apply_galois() chains them
// for rotations, and hoisted rotations call it many times on one
// decomposition. apply_galois_extended() stops before stage 3, so that a sum
// of rotations times plaintexts over Q_l * P is divided by P once (a linear
// transform's "reduce once per giant step"; ckks::Evaluator::dot_rotations_plain). All polynomials
// are in NTT form, except that the polynomial to decompose may come in either form: digits are cut
// from its coefficients, so a caller that has them (BFV's tensor product) saves the inverse NTTs.
//
// Rotations and Galois keys: a Galois key for g is stored permuted by
// X -> X^(g^-1) (KeySwitchKey::galois_element records g). Then
//   sum_j sigma(d_j) k_j = sigma(sum_j d_j sigma^-1(k_j)),
// so the automorphism sigma is applied once to the two results instead of to
// every digit of every tower (dnum times fewer permutations).
//
// t-aware mod down (BGV): keys made with error scale t (keys.hpp) need the
// division by P to keep errors multiples of t. Instead of subtracting [x]_P,
// mod_down subtracts delta = t * [x_P * t^-1]_P, which is x mod P and 0 mod
// t, so (x - delta) / P = x * P^-1 (mod t). switch_key and apply_galois do
// this by themselves when the key's error_scale is not 1; with 1 they are
// the plain CKKS/BFV operations.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe {

struct HEFT_EXPORT DecomposedPoly {
  std::size_t level = 0;
  std::vector<ExtendedPoly> digits;  // each over Q_level * P, NTT form
};

// Stage 1, for c in NTT or coefficient form (same digits either way). Throws
// InvalidArgument if the context has no special primes, MismatchError if c is
// not a polynomial of the context's ring.
HEFT_EXPORT DecomposedPoly decompose(const Context& context, const ring::RnsPoly& c);

// Stage 2: (sum_j d_j b_j, sum_j d_j a_j) over Q_l * P, with the key as stored.
HEFT_EXPORT std::array<ExtendedPoly, 2> inner_product(const Context& context,
                                                      const DecomposedPoly& digits,
                                                      const KeySwitchKey& key);

// Stage 2 for several keys on one decomposition: inner_product(digits,
// *keys[r]) for each r, bit for bit, reading the digits from memory once for
// all the keys (each tower a slice at a time, every key's terms for a slice
// while its digits are in cache) instead of once per key. Hoisted rotations
// and sums of rotations take their keys this way. Throws as inner_product,
// and InvalidArgument for a null key.
HEFT_EXPORT std::vector<std::array<ExtendedPoly, 2>> inner_products(
    const Context& context, const DecomposedPoly& digits,
    std::span<const KeySwitchKey* const> keys);

// Stages 1 and 2 for one polynomial and one key: inner_product(decompose(c),
// key), with the same result bit for bit. With one prime per digit (SEAL-style
// parameters) the digits are never stored: each target tower's digit NTTs go
// to per-thread scratch and straight into the inner product, which saves
// writing and re-reading the L x (L + K) towers of a decomposition. Hoisted
// rotations, which reuse one decomposition, call the two stages themselves.
HEFT_EXPORT std::array<ExtendedPoly, 2> decompose_and_multiply(const Context& context,
                                                               const ring::RnsPoly& c,
                                                               const KeySwitchKey& key);

// Stage 3: x / P rounded over Q_l (x's Q part, reusing its storage): the
// remainder is taken centred, with an error of at most K/2 + 1/2 per
// coefficient and mean 0 (the digits of stage 1 are centred too, so key
// switching adds no fixed bias; see tests/rlwe/test_key_switching_noise.cpp). With
// error_scale t != 1: (x - delta) / P with delta = t * [x * t^-1]_P (see the
// file comment); t must be coprime to P (InvalidArgument otherwise).
HEFT_EXPORT ring::RnsPoly mod_down(const Context& context, ExtendedPoly x,
                                   uint64_t error_scale = 1);
// The same plus an addend over Q_l (NTT form), added in the pass that scales
// by P^-1 instead of in a pass of its own.
HEFT_EXPORT ring::RnsPoly mod_down(const Context& context, ExtendedPoly x,
                                   const ring::RnsPoly& addend, uint64_t error_scale = 1);

// Stage 3 fused with the division by q_l that follows it (a CKKS rescale, a
// BGV modulus switch): round((addend P + x) / (P q_l)) over Q_(l-1), for x
// over Q_l * P and addend over Q_l (both NTT form, l >= 1). One conversion
// from P and q_l together, so Q_(l-1) is transformed once instead of twice.
// The conversion is exact (centred), so this rounds to nearest once: its error
// is that of divide_by_last_prime alone, at most 1/2 per coefficient, and the
// result equals mod_down(x) + addend followed by divide_by_last_prime up to
// that rounding and mod_down's (divided by q_l). With error_scale t != 1 the
// division subtracts delta = t [z t^-1]_(P q_l), centred, instead of
// rounding, so the result is z (P q_l)^-1 mod t (as mod_down then
// divide_by_last_prime with t give).
HEFT_EXPORT ring::RnsPoly mod_down_to_next(const Context& context, ExtendedPoly x,
                                           const ring::RnsPoly& addend, uint64_t error_scale = 1);

// (d0, d1) over Q_l with d0 + d1 s = c s' + small error, for the key that
// switches from s' to s (not a Galois key: use apply_galois for those). c may
// be in either form; d0 and d1 are in NTT form.
HEFT_EXPORT std::array<ring::RnsPoly, 2> switch_key(const Context& context, const ring::RnsPoly& c,
                                                    const KeySwitchKey& key);

// (d0 + e0, d1 + e1) for (e0, e1) = switch_key(c): relinearization of the
// 3-part ciphertext (d0, d1, c), with the additions folded into mod down. d0
// and d1 are in NTT form at c's level.
HEFT_EXPORT std::array<ring::RnsPoly, 2> switch_key_and_add(const Context& context,
                                                            const ring::RnsPoly& c,
                                                            const KeySwitchKey& key,
                                                            const ring::RnsPoly& d0,
                                                            const ring::RnsPoly& d1);

// switch_key(c) added to (d0, d1), then divided by the last prime, in one step
// (mod_down_to_next, with the key's error scale as t): relinearization of
// (d0, d1, c) followed by a CKKS rescale (error scale 1) or a BGV modulus
// switch (error scale t). d0, d1 and c are at the same level l >= 1.
HEFT_EXPORT std::array<ring::RnsPoly, 2> switch_key_and_divide(const Context& context,
                                                               const ring::RnsPoly& c,
                                                               const KeySwitchKey& key,
                                                               const ring::RnsPoly& d0,
                                                               const ring::RnsPoly& d1);

// The automorphism X -> X^g of the ciphertext (c0, c1), given c1 already
// decomposed (decompose(c1), reusable for many g) and the Galois key for g:
// returns (e0, e1) with e0 + e1 s = sigma_g(c0 + c1 s) + small error.
HEFT_EXPORT std::array<ring::RnsPoly, 2> apply_galois(const Context& context,
                                                      const ring::RnsPoly& c0,
                                                      const DecomposedPoly& c1_digits,
                                                      const KeySwitchKey& galois_key);
// The same from the products inner_product(s) gave for the Galois key:
// stage 3 and the automorphism (for rotations whose inner products were taken
// together, see inner_products).
HEFT_EXPORT std::array<ring::RnsPoly, 2> apply_galois_to_products(
    const Context& context, const ring::RnsPoly& c0, std::array<ExtendedPoly, 2> products,
    const KeySwitchKey& galois_key);
// The same for one automorphism of (c0, c1), c1 not yet decomposed (through
// decompose_and_multiply).
HEFT_EXPORT std::array<ring::RnsPoly, 2> apply_galois(const Context& context,
                                                      const ring::RnsPoly& c0,
                                                      const ring::RnsPoly& c1,
                                                      const KeySwitchKey& galois_key);

// For sums of rotations divided by P once ("reduce once per giant step" in
// a baby-step / giant-step linear transform): the automorphism X -> X^g of
// (c0, c1) without stage 3, (y0, y1) over Q_l * P with
//   y0 + y1 s = P sigma_g(c0 + c1 s) + e  (mod Q_l * P),
// e the key switch's error before its division by P. Such images, each
// multiplied by a plaintext given over Q_l * P and added up, become a
// ciphertext over Q_l with one mod_down per part (with the keys' error
// scale), whose error is that of a single key switch. c1_digits =
// decompose(c1), shared by every g.
HEFT_EXPORT std::array<ExtendedPoly, 2> apply_galois_extended(const Context& context,
                                                              const ring::RnsPoly& c0,
                                                              const DecomposedPoly& c1_digits,
                                                              const KeySwitchKey& galois_key);
// (P c0, P c1) over Q_l * P (P parts zero): the identity's term of such a sum.
HEFT_EXPORT std::array<ExtendedPoly, 2> lift_to_extended(const Context& context,
                                                         const ring::RnsPoly& c0,
                                                         const ring::RnsPoly& c1);

}  // namespace heft::rlwe
