// Key switching composed from its stages (key_switching_decompose.cpp,
// key_switching_inner_product.cpp, key_switching_mod_down.cpp): switching a
// polynomial's key (relinearization), with the addition or the division by
// the last prime folded in, and Galois automorphisms of (c0, c1), single,
// from products taken together, or stopped before mod down.
#include "heft/rlwe/key_switching.hpp"

#include <array>
#include <span>
#include <string>

#include "heft/util/error.hpp"
#include "rlwe/key_switching_stages.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace {

using detail::decompose_and_multiply_unchecked;
using detail::inner_product_unchecked;
using detail::mod_down_to_next_unchecked;
using detail::mod_down_unchecked;

// c0 of (c0, c1): an NTT-form polynomial of the context at c1's level.
void require_c0(const Context& context, const ring::RnsPoly& c0, std::size_t c1_towers,
                const std::string& operation) {
  detail::require_ciphertext_ring_poly(context, c0, operation, "c0");
  detail::require_ntt_form(c0, operation, "c0");
  if (c0.tower_count() != c1_towers) {
    throw MismatchError(operation + ": c0 and c1 are at different levels");
  }
}

// The checks the apply_galois forms make; c1_towers: c1's (or the
// products') tower count; operation: the caller's name for the messages.
void require_galois(const Context& context, const ring::RnsPoly& c0, std::size_t c1_towers,
                    const KeySwitchKey& galois_key, const std::string& operation = "apply_galois") {
  detail::require_valid_switch_key(context, galois_key, operation);
  if (galois_key.galois_element == 1) {
    throw InvalidArgument(operation + ": the key is not a Galois key");
  }
  // Element 0 would be read further down as "no automorphism" and give a
  // wrong result with no error; even elements and those >= 2N are no
  // automorphism at all.
  const uint64_t g = galois_key.galois_element;
  if (!context.ciphertext_ring()->is_galois_element(g)) {
    throw InvalidArgument(operation + ": the key's Galois element " + std::to_string(g) +
                          " is not an automorphism (it must be odd and below 2N = " +
                          std::to_string(2 * context.degree()) + ")");
  }
  require_c0(context, c0, c1_towers, operation);
}

}  // namespace

std::array<ring::RnsPoly, 2> switch_key(const Context& context, const ring::RnsPoly& c,
                                        const KeySwitchKey& key) {
  detail::require_non_galois_key(context, key, "switch_key");
  detail::require_ciphertext_ring_poly(context, c, "switch_key", "the polynomial");
  auto products = decompose_and_multiply_unchecked(context, c, key);
  return {mod_down_unchecked(context, std::move(products[0]), nullptr, key.error_scale),
          mod_down_unchecked(context, std::move(products[1]), nullptr, key.error_scale)};
}

std::array<ring::RnsPoly, 2> switch_key_and_add(const Context& context, const ring::RnsPoly& c,
                                                const KeySwitchKey& key, const ring::RnsPoly& d0,
                                                const ring::RnsPoly& d1) {
  detail::require_non_galois_key(context, key, "switch_key_and_add");
  detail::require_ciphertext_ring_poly(context, c, "switch_key_and_add", "the polynomial");
  detail::require_addend(context, d0, c.tower_count(), "switch_key_and_add");
  detail::require_addend(context, d1, c.tower_count(), "switch_key_and_add");
  auto products = decompose_and_multiply_unchecked(context, c, key);
  return {mod_down_unchecked(context, std::move(products[0]), &d0, key.error_scale),
          mod_down_unchecked(context, std::move(products[1]), &d1, key.error_scale)};
}

std::array<ring::RnsPoly, 2> switch_key_and_divide(const Context& context, const ring::RnsPoly& c,
                                                   const KeySwitchKey& key, const ring::RnsPoly& d0,
                                                   const ring::RnsPoly& d1) {
  detail::require_non_galois_key(context, key, "switch_key_and_divide");
  detail::require_ciphertext_ring_poly(context, c, "switch_key_and_divide", "the polynomial");
  // Before the key switch's work, not after.
  detail::require_prime_to_drop(c.tower_count() - 1, "switch_key_and_divide", "the polynomial");
  detail::require_addend(context, d0, c.tower_count(), "switch_key_and_divide");
  detail::require_addend(context, d1, c.tower_count(), "switch_key_and_divide");
  auto products = decompose_and_multiply_unchecked(context, c, key);
  return {mod_down_to_next_unchecked(context, std::move(products[0]), d0, key.error_scale),
          mod_down_to_next_unchecked(context, std::move(products[1]), d1, key.error_scale)};
}

namespace {

// Stage 3 of a Galois key switch and the automorphism itself. With the key
// stored as sigma^-1(k): sigma(c0 + D0) + sigma(D1) s = sigma(c0 + c1 s).
std::array<ring::RnsPoly, 2> galois_from_products(const Context& context, const ring::RnsPoly& c0,
                                                  std::array<ExtendedPoly, 2> products,
                                                  const KeySwitchKey& galois_key) {
  const uint64_t g = galois_key.galois_element;
  return {mod_down_unchecked(context, std::move(products[0]), &c0, galois_key.error_scale, g),
          mod_down_unchecked(context, std::move(products[1]), nullptr, galois_key.error_scale, g)};
}

}  // namespace

std::array<ring::RnsPoly, 2> apply_galois(const Context& context, const ring::RnsPoly& c0,
                                          const DecomposedPoly& c1_digits,
                                          const KeySwitchKey& galois_key) {
  detail::require_decomposed(context, c1_digits, "apply_galois");
  require_galois(context, c0, c1_digits.level + 1, galois_key);
  return galois_from_products(context, c0, inner_product_unchecked(context, c1_digits, galois_key),
                              galois_key);
}

std::array<ring::RnsPoly, 2> apply_galois(const Context& context, const ring::RnsPoly& c0,
                                          const ring::RnsPoly& c1, const KeySwitchKey& galois_key) {
  require_galois(context, c0, c1.tower_count(), galois_key);
  detail::require_ciphertext_ring_poly(context, c1, "apply_galois", "the polynomial");
  return galois_from_products(
      context, c0, decompose_and_multiply_unchecked(context, c1, galois_key), galois_key);
}

std::array<ring::RnsPoly, 2> apply_galois_to_products(const Context& context,
                                                      const ring::RnsPoly& c0,
                                                      std::array<ExtendedPoly, 2> products,
                                                      const KeySwitchKey& galois_key) {
  require_galois(context, c0, products[0].q.tower_count(), galois_key, "apply_galois_to_products");
  for (const ExtendedPoly& part : products) {
    detail::require_extended(context, part, c0.tower_count(), "apply_galois_to_products",
                             "a product");
  }
  return galois_from_products(context, c0, std::move(products), galois_key);
}

std::array<ExtendedPoly, 2> apply_galois_extended(const Context& context, const ring::RnsPoly& c0,
                                                  const DecomposedPoly& c1_digits,
                                                  const KeySwitchKey& galois_key) {
  detail::require_decomposed(context, c1_digits, "apply_galois_extended");
  require_galois(context, c0, c1_digits.level + 1, galois_key, "apply_galois_extended");
  // With the key stored as sigma^-1(k): sigma(D0 + P c0) + sigma(D1) s =
  // P sigma(c0 + c1 s) + sigma(e) over Q_l * P (see the file comment).
  auto products = inner_product_unchecked(context, c1_digits, galois_key);
  const uint64_t g = galois_key.galois_element;
  std::array<ExtendedPoly, 2> out;
  for (std::size_t k = 0; k < 2; ++k)
    out[k] = {products[k].q.automorphism(g), products[k].p.automorphism(g)};
  // P c0 is 0 modulo P: only the Q towers take it.
  ring::RnsPoly lifted = c0.automorphism(g);
  lifted.multiply_scalar(
      std::span<const uint64_t>(context.special_product_mod_q()).first(lifted.tower_count()));
  out[0].q += lifted;
  return out;
}

std::array<ExtendedPoly, 2> lift_to_extended(const Context& context, const ring::RnsPoly& c0,
                                             const ring::RnsPoly& c1) {
  detail::require_special_primes(context, "lift_to_extended");
  detail::require_ciphertext_ring_poly(context, c1, "lift_to_extended", "c1");
  detail::require_ntt_form(c1, "lift_to_extended", "c1");
  require_c0(context, c0, c1.tower_count(), "lift_to_extended");
  const std::span<const uint64_t> p_mod_q =
      std::span<const uint64_t>(context.special_product_mod_q()).first(c0.tower_count());
  std::array<ExtendedPoly, 2> out;
  const ring::RnsPoly* parts[2] = {&c0, &c1};
  for (std::size_t k = 0; k < 2; ++k) {
    out[k].q = parts[k]->clone();
    out[k].q.multiply_scalar(p_mod_q);
    out[k].p = ring::RnsPoly(context.special_ring(), context.special_count(), ring::Form::ntt);
  }
  return out;
}

}  // namespace heft::rlwe
