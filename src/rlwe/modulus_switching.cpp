// Division by the last prime with rounding (see modulus_switching.hpp).
#include "heft/rlwe/modulus_switching.hpp"

#include <algorithm>
#include <string>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::rlwe {

void divide_by_last_prime(const Context& context, const ring::RnsPoly& in, ring::RnsPoly& out,
                          uint64_t plain_modulus) {
  if (in.empty() || in.context() != context.ciphertext_ring()) {
    throw MismatchError("divide_by_last_prime: the polynomial is not from this context");
  }
  if (!in.is_ntt()) throw MismatchError("divide_by_last_prime: the polynomial must be in NTT form");
  const std::size_t level = in.tower_count() - 1;
  if (level == 0) {
    throw InvalidArgument("divide_by_last_prime: the polynomial is at level 0, no prime to drop");
  }
  const auto& ring = *context.ciphertext_ring();
  const math::Modulus& last = ring.modulus(level);
  const uint64_t t_mod_last = last.reduce(plain_modulus);
  if (plain_modulus == 0 || t_mod_last == 0) {
    throw InvalidArgument("divide_by_last_prime: the plaintext modulus " +
                          std::to_string(plain_modulus) + " is not coprime to the last prime");
  }
  const std::size_t n = context.degree();
  const std::vector<uint64_t>& inv_last = context.inv_last_prime(level);

  // top = [y + h]_{q_l} with y = [c t^-1]_{q_l} and h = floor(q_l / 2): the
  // centred y is then top - h, in [-h, h].
  const uint64_t half = last.value() >> 1, last_value = last.value();
  AlignedBuffer<uint64_t> top(n, AlignedBuffer<uint64_t>::Uninitialized{});
  math::ntt_inverse(in.tower(level), top.span(), ring.ntt_tables(level));
  if (plain_modulus != 1)
    math::mul_scalar_mod(top.span(), last.inverse(t_mod_last), top.span(), last);
  math::add_scalar_mod(top.span(), half, top.span(), last);

  const bool in_place = &out == &in;
  ring::RnsPoly fresh;
  if (!in_place) fresh = ring::RnsPoly::uninitialized(in.context(), level, ring::Form::ntt);
  ring::RnsPoly& result = in_place ? out : fresh;
  parallel_for(0, level, [&](std::size_t i) {
    const math::Modulus& q = ring.modulus(i);
    AlignedBuffer<uint64_t> lifted(n, AlignedBuffer<uint64_t>::Uninitialized{});
    const uint64_t minus_half = q.negate(q.reduce(half));
    // NTT(y mod q_i) = NTT(top - h): the shift joins the transform's first pass.
    if (last_value <= 3 * q.value()) {
      // top < 3 q_i is within the shifted transform's input range.
      math::ntt_forward_shifted(top.span(), minus_half, lifted.span(), ring.ntt_tables(i));
    } else {
      math::reduce_any(top.span(), lifted.span(), q);
      math::ntt_forward_shifted(lifted.span(), minus_half, lifted.span(), ring.ntt_tables(i));
    }
    const auto tower = result.tower(i);
    if (plain_modulus == 1) {
      // (c - y) q_l^-1
      math::sub_mul_scalar_mod(in.tower(i), lifted.span(), inv_last[i], tower, q);
    } else {
      // c q_l^-1 - y (t q_l^-1)
      const uint64_t minus_t_over_last = q.negate(q.mul(q.reduce(plain_modulus), inv_last[i]));
      math::mul_scalar_mod(in.tower(i), inv_last[i], tower, q);
      math::fma_scalar_mod(lifted.span(), minus_t_over_last, tower, tower, q);
    }
  });
  if (in_place) {
    out.drop_last_towers(1);
  } else {
    if (in.is_secret()) result.mark_secret();
    out = std::move(fresh);
  }
}

}  // namespace heft::rlwe
