// Division by the last prime with rounding (see modulus_switching.hpp).
#include "heft/rlwe/modulus_switching.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {

void divide_by_last_prime(const Context& context, std::span<const ring::RnsPoly> in,
                          std::span<ring::RnsPoly> out, uint64_t plain_modulus) {
  if (in.size() != out.size()) {
    throw MismatchError("divide_by_last_prime: " + std::to_string(in.size()) + " inputs but " +
                        std::to_string(out.size()) + " outputs");
  }
  if (in.empty()) return;
  const bool in_place = static_cast<const void*>(out.data()) == in.data();
  for (const ring::RnsPoly& poly : in) {
    detail::require_ciphertext_ring_poly(context, poly, "divide_by_last_prime", "the polynomial");
    detail::require_ntt_form(poly, "divide_by_last_prime", "the polynomial");
    if (poly.tower_count() != in[0].tower_count()) {
      throw MismatchError("divide_by_last_prime: the polynomials are at different levels");
    }
    if (!in_place &&
        std::any_of(out.begin(), out.end(), [&](const ring::RnsPoly& o) { return &o == &poly; })) {
      throw MismatchError(
          "divide_by_last_prime: the outputs must be the inputs themselves or separate");
    }
  }
  const std::size_t level = in[0].tower_count() - 1;
  detail::require_prime_to_drop(level, "divide_by_last_prime", "the polynomial");
  const auto& ring = *context.ciphertext_ring();
  const math::Modulus& last = ring.modulus(level);
  const uint64_t t_mod_last = last.reduce(plain_modulus);
  if (plain_modulus == 0 || t_mod_last == 0) {
    throw InvalidArgument("divide_by_last_prime: the plaintext modulus " +
                          std::to_string(plain_modulus) + " is not coprime to the last prime");
  }
  const std::size_t n = context.degree();
  const std::size_t count = in.size();
  const std::vector<uint64_t>& inv_last = context.inv_last_prime(level);

  // top = [y + h]_{q_l} with y = [c t^-1]_{q_l} and h = floor(q_l / 2): the
  // centred y is then top - h, in [-h, h].
  const uint64_t half = last.value() >> 1, last_value = last.value();
  const uint64_t t_inverse = plain_modulus == 1 ? 1 : last.inverse(t_mod_last);
  std::vector<AlignedBuffer<uint64_t>> tops(count);
  parallel_for(0, count, [&](std::size_t k) {
    tops[k] = AlignedBuffer<uint64_t>(n, AlignedBuffer<uint64_t>::Uninitialized{});
    const std::span<uint64_t> top = tops[k].span();
    math::ntt_inverse(in[k].tower(level), top, ring.ntt_tables(level));
    if (plain_modulus != 1) math::mul_scalar_mod(top, t_inverse, top, last);
    math::add_scalar_mod(top, half, top, last);
  });

  std::vector<ring::RnsPoly> fresh;
  if (!in_place) {
    for (std::size_t k = 0; k < count; ++k)
      fresh.push_back(ring::RnsPoly::uninitialized(in[k].context(), level, ring::Form::ntt));
  }
  const std::span<ring::RnsPoly> results = in_place ? out : std::span(fresh);
  // Tower by tower, every polynomial's transform in that prime one after the
  // other: the prime's twiddle tables, which the polynomials' data pushes out
  // of L2 between primes, are then read from memory once for all of them.
  parallel_for(0, level, [&](std::size_t i) {
    const math::Modulus& q = ring.modulus(i);
    const uint64_t minus_half = q.negate(q.reduce(half));
    // -t q_l^-1 mod q_i, the factor of y when t != 1.
    const uint64_t minus_t_over_last = q.negate(q.mul(q.reduce(plain_modulus), inv_last[i]));
    // Out of place (CKKS rescale, BFV), the transform writes straight into
    // the result's tower and the scaling pass then works there: the fresh
    // lines' write misses are taken by the transform's first pass, which
    // computes while they come in, instead of by the memory-bound scaling
    // pass. In place, in[k].tower(i) is
    // still to be read; with t, the scaling is two passes that need y apart.
    AlignedBuffer<uint64_t> scratch;
    if (in_place || plain_modulus != 1)
      scratch = AlignedBuffer<uint64_t>(n, AlignedBuffer<uint64_t>::Uninitialized{});
    for (std::size_t k = 0; k < count; ++k) {
      const auto tower = results[k].tower(i);
      const std::span<uint64_t> lifted = scratch.empty() ? tower : scratch.span();
      // NTT(y mod q_i) = NTT(top - h): the shift joins the transform's first pass.
      if (last_value <= 3 * q.value()) {
        // top < 3 q_i is within the shifted transform's input range.
        math::ntt_forward_shifted(tops[k].span(), minus_half, lifted, ring.ntt_tables(i));
      } else {
        math::reduce_any(tops[k].span(), lifted, q);
        math::ntt_forward_shifted(lifted, minus_half, lifted, ring.ntt_tables(i));
      }
      if (plain_modulus == 1) {
        // (c - y) q_l^-1
        math::sub_mul_scalar_mod(in[k].tower(i), lifted, inv_last[i], tower, q);
      } else {
        // c q_l^-1 - y (t q_l^-1)
        math::mul_scalar_mod(in[k].tower(i), inv_last[i], tower, q);
        math::fma_scalar_mod(lifted, minus_t_over_last, tower, tower, q);
      }
    }
  });
  for (std::size_t k = 0; k < count; ++k) {
    if (in_place) {
      out[k].drop_last_towers(1);
    } else {
      if (in[k].is_secret()) fresh[k].mark_secret();
      out[k] = std::move(fresh[k]);
    }
  }
}

void divide_by_last_prime(const Context& context, const ring::RnsPoly& in, ring::RnsPoly& out,
                          uint64_t plain_modulus) {
  divide_by_last_prime(context, std::span(&in, 1), std::span(&out, 1), plain_modulus);
}

}  // namespace heft::rlwe
