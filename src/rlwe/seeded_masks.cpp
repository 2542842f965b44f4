// Uniform masks expanded from seeds (see seeded_masks.hpp for the order).
#include "rlwe/seeded_masks.hpp"

#include "heft/math/modulus.hpp"
#include "heft/ring/samplers.hpp"

namespace heft::rlwe {

ring::RnsPoly expand_ciphertext_mask(const Context& context, const ring::Prng::Seed& seed,
                                     std::size_t towers) {
  ring::Prng prng(seed);
  ring::RnsPoly a(context.ciphertext_ring(), towers, ring::Form::ntt);
  ring::sample_uniform(prng, a);
  return a;
}

std::vector<ExtendedPoly> expand_switch_key_masks(const Context& context,
                                                  const ring::Prng::Seed& seed,
                                                  uint64_t galois_element, std::size_t q_towers) {
  ring::Prng prng(seed);
  std::vector<ExtendedPoly> masks;
  const std::size_t digits = context.digit_count_at(q_towers - 1);
  masks.reserve(digits);
  for (std::size_t digit = 0; digit < digits; ++digit) {
    ExtendedPoly a{ring::RnsPoly(context.ciphertext_ring(), q_towers, ring::Form::ntt),
                   ring::RnsPoly(context.special_ring(), context.special_count(), ring::Form::ntt)};
    ring::sample_uniform(prng, a.q);
    ring::sample_uniform(prng, a.p);
    masks.push_back(std::move(a));
  }
  if (galois_element != 1) {
    const uint64_t inverse = math::Modulus(2 * context.degree()).inverse(galois_element);
    for (ExtendedPoly& a : masks) {
      a.q = a.q.automorphism(inverse);
      a.p = a.p.automorphism(inverse);
    }
  }
  return masks;
}

}  // namespace heft::rlwe
