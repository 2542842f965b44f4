// What the files of key switching share inside heft (key_switching.hpp has the
// public stages): the centring of digits and remainders, the raise of a
// one-prime digit, and each stage without its operand checks. The public
// functions check their operands once and then run these, since key
// switching calls one stage from another and the checks would otherwise run
// two or three times. Internal to src/rlwe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"

namespace heft::rlwe::detail {

// Why every digit, and every remainder mod P in mod down, is taken centred
// (in about [-q/2, q/2) instead of [0, q)): a representative in [0, q) has
// the mean q/2, which is the same constant on every coefficient. In mod up
// that constant times the key's fixed noise, over P, and in mod down the
// -1/2 of a floor, are fixed polynomials that key switching would add to
// every result: times the secret, hundreds of times the typical noise in
// the slots nearest the root 1 (CKKS). Centred, the errors are zero-mean.
//
// h = floor(q / 2): a one-prime digit d in [0, q) stands as [d + h]_q - h,
// which the raise takes as [d + h]_q (added by add_digit_half) and a shift
// of -h (minus_half_of) in the target tower's transform.
uint64_t minus_half_of(uint64_t q, const math::Modulus& target);
void add_digit_half(std::span<const uint64_t> digit, const math::Modulus& q,
                    std::span<uint64_t> out);

// A one-prime digit (SEAL-style parameters: residues below q, the digit's
// prime) raised to the tower of `table` and transformed, plus `shift`: the
// residues are the integers themselves, so raising is a reduction mod p, and
// not even that when q < 4p, since the NTT accepts inputs in [0, 4p).
void raise_one_prime_digit(std::span<const uint64_t> digit, uint64_t q, std::span<uint64_t> out,
                           const math::NttTables& table, uint64_t shift = 0);

// An addend folded into mod down: NTT form, in this context, `towers` towers.
void require_addend(const Context& context, const ring::RnsPoly& addend, std::size_t towers,
                    const char* operation);

// ---- the stages without their checks ----

std::vector<std::array<ExtendedPoly, 2>> inner_products_unchecked(
    const Context& context, const DecomposedPoly& digits,
    std::span<const KeySwitchKey* const> keys);
std::array<ExtendedPoly, 2> inner_product_unchecked(const Context& context,
                                                    const DecomposedPoly& digits,
                                                    const KeySwitchKey& key);
std::array<ExtendedPoly, 2> decompose_and_multiply_unchecked(const Context& context,
                                                             const ring::RnsPoly& c,
                                                             const KeySwitchKey& key);
// mod_down with an optional addend (null: none). With a Galois element
// g != 0 the result is also mapped by X -> X^g, each tower as soon as it is
// final, while it is still in cache.
ring::RnsPoly mod_down_unchecked(const Context& context, ExtendedPoly x,
                                 const ring::RnsPoly* addend, uint64_t error_scale,
                                 uint64_t galois_element = 0);
ring::RnsPoly mod_down_to_next_unchecked(const Context& context, ExtendedPoly x,
                                         const ring::RnsPoly& addend, uint64_t error_scale);

}  // namespace heft::rlwe::detail
