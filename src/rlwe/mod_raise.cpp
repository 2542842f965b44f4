// ModRaise: a level-0 ciphertext lifted to a higher level (see the header).
#include "heft/rlwe/mod_raise.hpp"

#include <string>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {

Ciphertext mod_raise(const Context& context, const Ciphertext& ciphertext, std::size_t to_level) {
  if (ciphertext.empty()) detail::throw_different_context("mod_raise", "the ciphertext");
  detail::require_ciphertext_ring_poly(context, ciphertext.parts[0], "mod_raise", "the ciphertext");
  if (ciphertext.level() != 0) {
    throw InvalidArgument("mod_raise: the ciphertext is at level " +
                          std::to_string(ciphertext.level()) +
                          "; bring it to level 0 first (drop_to_level)");
  }
  detail::require_level(context, to_level, "mod_raise");
  const auto& ring = context.ciphertext_ring();
  const math::Modulus& q0 = ring->modulus(0);
  const uint64_t half = q0.value() / 2;
  const std::size_t n = context.degree();
  Ciphertext out = Ciphertext::with_metadata(ciphertext);
  out.needs_rescale = false;
  for (const auto& part : ciphertext.parts) {
    const ring::RnsPoly coefficients = part.is_ntt() ? part.coefficient_form() : part.clone();
    const auto source = coefficients.tower(0);
    auto raised = ring::RnsPoly::uninitialized(ring, to_level + 1, ring::Form::coefficient);
    parallel_for(0, to_level + 1, [&](std::size_t t) {
      const math::Modulus& q = ring->modulus(t);
      const auto target = raised.tower(t);
      // x in [0, q0) stands for x - q0 when x > q0 / 2.
      const uint64_t q0_mod_q = q.reduce(q0.value());
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t x = source[i];
        target[i] = x > half ? q.sub(q.reduce(x), q0_mod_q) : q.reduce(x);
      }
    });
    raised.ntt();
    out.parts.push_back(std::move(raised));
  }
  return out;
}

}  // namespace heft::rlwe
