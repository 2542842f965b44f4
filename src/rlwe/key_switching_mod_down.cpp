// Key switching, stage 3: the division by P with rounding back to Q_l ("mod
// down"), with an addend and an automorphism folded into its last pass, and
// fused with the division by the last prime that a rescale or a BGV modulus
// switch makes next.
#include <span>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/key_switching_stages.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace detail {

void require_addend(const Context& context, const ring::RnsPoly& addend, std::size_t towers,
                    const char* operation) {
  require_ciphertext_ring_poly(context, addend, operation, "the addend");
  require_ntt_form(addend, operation, "the addend");
  if (addend.tower_count() != towers) {
    throw MismatchError(std::string(operation) + ": the addend and x are at different levels");
  }
}

ring::RnsPoly mod_down_unchecked(const Context& context, ExtendedPoly x,
                                 const ring::RnsPoly* addend, uint64_t error_scale,
                                 uint64_t galois_element) {
  const std::size_t n = context.degree();
  const std::size_t q_towers = x.q.tower_count();
  const std::size_t level = q_towers - 1;
  const auto& q_ring = *context.ciphertext_ring();
  x.p.intt();
  if (error_scale != 1) {
    // y = x * t^-1 mod P; its conversion to Q times t is then a delta that is
    // x mod P (up to the converter's small multiples of P, times t) and 0 mod t.
    std::vector<uint64_t> inverses(x.p.tower_count());
    for (std::size_t k = 0; k < inverses.size(); ++k) {
      const math::Modulus& p = x.p.modulus(k);
      const uint64_t t_mod_p = p.reduce(error_scale);
      if (t_mod_p == 0) throw InvalidArgument("mod_down: the error scale shares a factor with P");
      inverses[k] = p.inverse(t_mod_p);
    }
    x.p.multiply_scalar(inverses);
  }
  // [x]_P is taken centred, in about [-K P / 2, K P / 2], so that the
  // division below rounds without bias (a remainder in [0, P), or a
  // conversion error that only adds multiples of P, would subtract the
  // same fraction from every coefficient: a fixed error times the secret).
  // The conversion sums y_i + h_i for the centred y_i, and the offset C
  // that leaves is taken off as each tower's forward transform loads it.
  // With one special prime the conversion of [x]_P to q_i is its values
  // reduced mod q_i, which each tower's forward transform does as it reads
  // them (raise_one_prime_digit): no conversion pass; centring is then
  // [x + h]_P - h, h = floor(p / 2).
  const bool one_special_prime = x.p.tower_count() == 1;
  AlignedBuffer<uint64_t> converted(q_towers * n, AlignedBuffer<uint64_t>::Uninitialized{});
  const std::vector<uint64_t>* offsets = nullptr;
  if (one_special_prime) {
    const math::Modulus& p = x.p.modulus(0);
    math::add_scalar_mod(x.p.tower(0), p.value() >> 1, x.p.tower(0), p);
  } else {
    const ring::BaseConverter& converter = context.mod_down_converter(level);
    converter.convert_approximate_centered(x.p.data(), converted.span(), n);
    offsets = &converter.centering_offsets();
  }
  // x_q <- (x_q - [x_p]_q) * P^-1 (+ addend): exact division of x - [x]_P by
  // P, which rounds x / P. The addend joins in the same pass as the scaling.
  std::span<const uint32_t> galois_map;
  ring::RnsPoly mapped;
  if (galois_element != 0) {
    galois_map = q_ring.ntt_automorphism_map(galois_element);
    mapped = ring::RnsPoly::uninitialized(context.ciphertext_ring(), q_towers, ring::Form::ntt);
  }
  parallel_for(0, q_towers, [&](std::size_t t) {
    const math::Modulus& q = q_ring.modulus(t);
    std::span<uint64_t> c(converted.data() + t * n, n);
    const uint64_t minus_offset = one_special_prime
                                      ? q.negate(q.reduce(x.p.modulus(0).value() >> 1))
                                      : q.negate((*offsets)[t]);
    if (one_special_prime) {
      raise_one_prime_digit(x.p.tower(0), x.p.modulus(0).value(), c, q_ring.ntt_tables(t),
                            minus_offset);
    } else {
      math::ntt_forward_shifted(c, minus_offset, c, q_ring.ntt_tables(t));
    }
    if (error_scale != 1) math::mul_scalar_mod(c, q.reduce(error_scale), c, q);
    auto tower = x.q.tower(t);
    const uint64_t inv_p = context.inv_special_product()[t];
    if (addend != nullptr) {
      math::sub_fma_scalar_mod(tower, c, inv_p, addend->tower(t), tower, q);
    } else {
      math::sub_mul_scalar_mod(tower, c, inv_p, tower, q);
    }
    if (galois_element != 0) math::permute_blocks(tower, galois_map, mapped.tower(t));
  });
  return galois_element != 0 ? std::move(mapped) : std::move(x.q);
}

ring::RnsPoly mod_down_to_next_unchecked(const Context& context, ExtendedPoly x,
                                         const ring::RnsPoly& addend, uint64_t error_scale) {
  const std::size_t n = context.degree();
  const std::size_t q_towers = x.q.tower_count();
  require_prime_to_drop(q_towers - 1, "mod_down_to_next", "x");
  const std::size_t level = q_towers - 1;
  const std::size_t k = x.p.tower_count();
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();
  const math::Modulus& last = q_ring.modulus(level);
  const auto source_modulus = [&](std::size_t r) -> const math::Modulus& {
    return r < k ? p_ring.modulus(r) : last;
  };

  // z = addend P + x modulo each source prime (P's, then q_l), in
  // coefficient form, prepared for the conversion (with t != 1: z t^-1).
  AlignedBuffer<uint64_t> rows((k + 1) * n, AlignedBuffer<uint64_t>::Uninitialized{});
  parallel_for(0, k + 1, [&](std::size_t r) {
    const math::Modulus& b = source_modulus(r);
    const std::span<uint64_t> row(rows.data() + r * n, n);
    if (r < k) {
      math::ntt_inverse(x.p.tower(r), row, p_ring.ntt_tables(r));
    } else {
      math::mul_scalar_mod(addend.tower(level), context.special_product_mod_q()[level], row, b);
      math::add_mod(row, x.q.tower(level), row, b);
      math::ntt_inverse(row, q_ring.ntt_tables(level));
    }
    if (error_scale != 1) {
      const uint64_t t_mod_b = b.reduce(error_scale);
      if (t_mod_b == 0) {
        throw InvalidArgument("mod_down_to_next: the error scale shares a factor with P q_l");
      }
      math::mul_scalar_mod(row, b.inverse(t_mod_b), row, b);
    }
  });
  AlignedBuffer<uint64_t> converted(level * n, AlignedBuffer<uint64_t>::Uninitialized{});
  // The exact centred conversion of z (or z t^-1) from P q_l: its
  // representative in (-P q_l / 2, P q_l / 2], so the division below rounds
  // to nearest, one rounding as in a plain rescale. (The approximate one,
  // as in mod down, would also be unbiased, but its error spans K + 1
  // units instead of one: a fused rescale 1 bit less precise than
  // relinearize then rescale at K = 3. Its alpha costs one multiply-add per
  // term on top of a conversion of K + 1 rows.)
  context.mod_down_to_next_converter(level).convert_exact_centered(rows.span(), converted.span(),
                                                                   n);

  // x_i <- (x_i - conv_i) (P q_l)^-1 + addend_i q_l^-1, or with t:
  // (x_i - t conv_i) (P q_l)^-1 + addend_i q_l^-1: an exact division.
  const std::vector<uint64_t>& inv_last = context.inv_last_prime(level);
  parallel_for(0, level, [&](std::size_t i) {
    const math::Modulus& q = q_ring.modulus(i);
    const std::span<uint64_t> c(converted.data() + i * n, n);
    math::ntt_forward(c, q_ring.ntt_tables(i));
    if (error_scale != 1) math::mul_scalar_mod(c, q.reduce(error_scale), c, q);
    auto tower = x.q.tower(i);
    math::sub_mul_scalar_mod(tower, c, q.mul(context.inv_special_product()[i], inv_last[i]), tower,
                             q);
    math::fma_scalar_mod(addend.tower(i), inv_last[i], tower, tower, q);
  });
  x.q.drop_last_towers(1);
  return std::move(x.q);
}

}  // namespace detail

ring::RnsPoly mod_down(const Context& context, ExtendedPoly x, uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down", "x");
  detail::require_error_scale(context, error_scale, "mod_down");
  return detail::mod_down_unchecked(context, std::move(x), nullptr, error_scale);
}

ring::RnsPoly mod_down(const Context& context, ExtendedPoly x, const ring::RnsPoly& addend,
                       uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down", "x");
  detail::require_error_scale(context, error_scale, "mod_down");
  detail::require_addend(context, addend, x.q.tower_count(), "mod_down");
  return detail::mod_down_unchecked(context, std::move(x), &addend, error_scale);
}

ring::RnsPoly mod_down_to_next(const Context& context, ExtendedPoly x, const ring::RnsPoly& addend,
                               uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down_to_next", "x");
  detail::require_error_scale(context, error_scale, "mod_down_to_next");
  detail::require_addend(context, addend, x.q.tower_count(), "mod_down_to_next");
  return detail::mod_down_to_next_unchecked(context, std::move(x), addend, error_scale);
}

}  // namespace heft::rlwe
