// Key switching, stage 1: the digits of a polynomial raised to Q_l * P ("mod
// up"), and the raise of a one-prime digit that the other stages share.
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/key_switching_stages.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace detail {

uint64_t minus_half_of(uint64_t q, const math::Modulus& target) {
  return target.negate(target.reduce(q >> 1));
}

void add_digit_half(std::span<const uint64_t> digit, const math::Modulus& q,
                    std::span<uint64_t> out) {
  math::add_scalar_mod(digit, q.value() >> 1, out, q);
}

// A one-prime digit (SEAL-style parameters: residues below q, the digit's
// prime) raised to the tower of `table` and transformed: the residues are the
// integers themselves, so raising is a reduction mod p, and not even that
// when q < 4p, since the NTT accepts inputs in [0, 4p).
void raise_one_prime_digit(std::span<const uint64_t> digit, uint64_t q, std::span<uint64_t> out,
                           const math::NttTables& table, uint64_t shift) {
  if (shift == 0 && q < 4 * table.modulus().value()) {
    math::ntt_forward(digit, out, table);  // out of place: no copy
    return;
  }
  if (q <= 3 * table.modulus().value()) {
    math::ntt_forward_shifted(digit, shift, out, table);  // digit + shift < 4 q_i
    return;
  }
  math::reduce_any(digit, out, table.modulus());
  if (shift == 0) {
    math::ntt_forward(out, table);
  } else {
    math::ntt_forward_shifted(out, shift, out, table);
  }
}

}  // namespace detail

namespace {

// c in coefficient form: c itself, or its inverse transform held in `storage`.
const ring::RnsPoly& coefficient_form_of(const ring::RnsPoly& c,
                                         std::optional<ring::RnsPoly>& storage) {
  if (!c.is_ntt()) return c;
  return storage.emplace(c.coefficient_form());
}

}  // namespace

using detail::add_digit_half;
using detail::minus_half_of;
using detail::raise_one_prime_digit;

DecomposedPoly decompose(const Context& context, const ring::RnsPoly& c) {
  detail::require_special_primes(context, "decompose");
  detail::require_ciphertext_ring_poly(context, c, "decompose", "the polynomial");
  const std::size_t level = c.tower_count() - 1;
  const std::size_t n = context.degree();
  const std::size_t q_towers = level + 1;
  const std::size_t p_towers = context.special_count();
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();

  std::optional<ring::RnsPoly> transformed;
  const ring::RnsPoly& coefficients = coefficient_form_of(c, transformed);

  DecomposedPoly out;
  out.level = level;
  const std::size_t digits = context.digit_count_at(level);
  for (std::size_t digit = 0; digit < digits; ++digit) {
    const std::size_t begin = digit * context.digit_size();
    const std::size_t end = std::min(begin + context.digit_size(), q_towers);
    // Every tower is written below: inside the digit c's own tower in NTT
    // form, elsewhere the digit raised to that prime and transformed.
    ExtendedPoly extended{
        ring::RnsPoly::uninitialized(context.ciphertext_ring(), q_towers, ring::Form::ntt),
        ring::RnsPoly::uninitialized(context.special_ring(), p_towers, ring::Form::ntt)};
    // The towers outside the digit, in the converter's target order (Q_l
    // without the digit, then P), with the modulus and NTT tables of each.
    std::vector<uint64_t*> targets;
    std::vector<const math::NttTables*> tables;
    for (std::size_t t = 0; t < q_towers; ++t) {
      if (t >= begin && t < end) continue;
      targets.push_back(extended.q.tower(t).data());
      tables.push_back(&q_ring.ntt_tables(t));
    }
    for (std::size_t k = 0; k < p_towers; ++k) {
      targets.push_back(extended.p.tower(k).data());
      tables.push_back(&p_ring.ntt_tables(k));
    }
    const auto digit_values = coefficients.data().subspan(begin * n, (end - begin) * n);
    const bool single_prime = end - begin == 1;
    // The digit is taken centred (see minus_half_of): one prime's values
    // plus h here, with -h in each transform; several primes' conversion
    // centres itself and leaves an offset, also taken off in the transform.
    AlignedBuffer<uint64_t> shifted_digit;
    const std::vector<uint64_t>* offsets = nullptr;
    if (single_prime) {
      shifted_digit = AlignedBuffer<uint64_t>(n, AlignedBuffer<uint64_t>::Uninitialized{});
      add_digit_half(digit_values, q_ring.modulus(begin), shifted_digit.span());
    } else {
      const ring::BaseConverter& converter = context.mod_up_converter(level, digit);
      converter.convert_approximate_centered(digit_values, targets, n);
      offsets = &converter.centering_offsets();
    }
    parallel_for(0, (end - begin) + targets.size(), [&](std::size_t task) {
      if (task < end - begin) {
        const std::size_t t = begin + task;
        if (c.is_ntt()) {
          std::copy_n(c.tower(t).begin(), n, extended.q.tower(t).begin());
        } else {
          math::ntt_forward(c.tower(t), extended.q.tower(t), q_ring.ntt_tables(t));
        }
        return;
      }
      const std::size_t target = task - (end - begin);
      const math::NttTables& table = *tables[target];
      const std::span<uint64_t> tower(targets[target], n);
      if (single_prime) {
        const uint64_t q = q_ring.modulus(begin).value();
        raise_one_prime_digit(shifted_digit.span(), q, tower, table,
                              minus_half_of(q, table.modulus()));
      } else {
        // Converted above.
        math::ntt_forward_shifted(tower, table.modulus().negate((*offsets)[target]), tower, table);
      }
    });
    out.digits.push_back(std::move(extended));
  }
  return out;
}

}  // namespace heft::rlwe
