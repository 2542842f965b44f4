// Hybrid key switching: mod up per digit, inner product with the key over
// Q*P, mod down. Work is spread over towers with parallel_for.
#include "heft/rlwe/key_switching.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/key_checks.hpp"

namespace heft::rlwe {
namespace {

void require_in_ring(const Context& context, const ring::RnsPoly& c, const char* operation) {
  if (c.empty() || c.context() != context.ciphertext_ring()) {
    throw MismatchError(std::string(operation) + ": polynomial is not from this context");
  }
}

void require_ntt_in_ring(const Context& context, const ring::RnsPoly& c, const char* operation) {
  require_in_ring(context, c, operation);
  if (!c.is_ntt()) throw MismatchError(std::string(operation) + ": polynomial must be in NTT form");
}

// An addend folded into mod down: NTT form, in this context, `towers` towers.
void require_addend(const Context& context, const ring::RnsPoly& addend, std::size_t towers,
                    const char* operation) {
  require_ntt_in_ring(context, addend, operation);
  if (addend.tower_count() != towers) {
    throw MismatchError(std::string(operation) + ": the addend and x are at different levels");
  }
}

// c in coefficient form: c itself, or its inverse transform held in `storage`.
const ring::RnsPoly& coefficient_form_of(const ring::RnsPoly& c,
                                         std::optional<ring::RnsPoly>& storage) {
  if (!c.is_ntt()) return c;
  return storage.emplace(c.coefficient_form());
}

// Why every digit, and every remainder mod P in mod down, is taken centred
// (in about [-q/2, q/2) instead of [0, q)): a representative in [0, q) has
// the mean q/2, which is the same constant on every coefficient. In mod up
// that constant times the key's fixed noise, over P, and in mod down the
// -1/2 of a floor, are fixed polynomials that key switching would add to
// every result: times the secret, hundreds of times the typical noise in
// the slots nearest the root 1 (CKKS). Centred, the errors are zero-mean.
//
// h = floor(q / 2): a one-prime digit d in [0, q) stands as [d + h]_q - h,
// which the raise below takes as [d + h]_q (added by add_digit_half) and a
// shift of -h in the target tower's transform.
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
                           const math::NttTables& table, uint64_t shift = 0) {
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

// The checks the apply_galois forms make; c1_towers: c1's (or the
// products') tower count; operation: the caller's name for the messages.
void require_galois(const Context& context, const ring::RnsPoly& c0, std::size_t c1_towers,
                    const KeySwitchKey& galois_key, const std::string& operation = "apply_galois") {
  detail::require_switch_key(context, galois_key, operation.c_str());
  require_ntt_in_ring(context, c0, operation.c_str());
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
  if (c0.tower_count() != c1_towers) {
    throw MismatchError(operation + ": c0 and c1 are at different levels");
  }
}

}  // namespace

DecomposedPoly decompose(const Context& context, const ring::RnsPoly& c) {
  if (!context.supports_key_switching()) {
    throw InvalidArgument("key switching needs special primes: these parameters have none");
  }
  require_in_ring(context, c, "decompose");
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

namespace {

// The stages below without their checks: the public functions check their
// operands once and then run these (key switching calls one stage from
// another, and the checks would otherwise run two or three times).

std::vector<std::array<ExtendedPoly, 2>> inner_products_of(
    const Context& context, const DecomposedPoly& digits,
    std::span<const KeySwitchKey* const> keys) {
  const std::size_t q_towers = digits.level + 1;
  const std::size_t p_towers = context.special_count();
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();

  std::vector<std::array<ExtendedPoly, 2>> acc(keys.size());
  for (auto& pair : acc) {
    for (auto& x : pair) {
      x.q = ring::RnsPoly::uninitialized(context.ciphertext_ring(), q_towers, ring::Form::ntt);
      x.p = ring::RnsPoly::uninitialized(context.special_ring(), p_towers, ring::Form::ntt);
    }
  }
  // Each tower is independent: one fused pass per tower and key multiplies
  // every digit by both key halves and sums lazily (math::dot_product_pair).
  // The tower is taken a slice at a time, every key's terms for a slice
  // before the next slice, so that the slice's digits (8 digits x 4096
  // values: 256 KB) are read from memory once for all the keys instead of
  // once per key: the keys are new data either way, the digits need not be.
  // One key takes whole towers (nothing to share, and the kernel's key
  // prefetch then runs unbroken across the tower).
  const std::size_t n = context.degree();
  const std::size_t slice = keys.size() > 1 ? std::size_t{4096} : n;
  const std::size_t digit_count = digits.digits.size();
  parallel_for(0, q_towers + p_towers, [&](std::size_t t) {
    const bool in_q = t < q_towers;
    const std::size_t tower = in_q ? t : t - q_towers;
    const auto pick = [&](const ExtendedPoly& x) {
      return in_q ? x.q.tower(tower) : x.p.tower(tower);
    };
    const auto pick_out = [&](ExtendedPoly& y) {
      return in_q ? y.q.tower(tower) : y.p.tower(tower);
    };
    const math::Modulus& modulus = in_q ? q_ring.modulus(tower) : p_ring.modulus(tower);
    std::vector<std::span<const uint64_t>> x(digit_count), b(digit_count), a(digit_count);
    for (std::size_t start = 0; start < n; start += slice) {
      const std::size_t count = std::min(slice, n - start);
      for (std::size_t j = 0; j < digit_count; ++j)
        x[j] = pick(digits.digits[j]).subspan(start, count);
      for (std::size_t r = 0; r < keys.size(); ++r) {
        for (std::size_t j = 0; j < digit_count; ++j) {
          b[j] = pick(keys[r]->b[j]).subspan(start, count);
          a[j] = pick(keys[r]->a[j]).subspan(start, count);
        }
        math::dot_product_pair(x, b, a, pick_out(acc[r][0]).subspan(start, count),
                               pick_out(acc[r][1]).subspan(start, count), modulus);
      }
    }
  });
  return acc;
}

std::array<ExtendedPoly, 2> inner_product_of(const Context& context, const DecomposedPoly& digits,
                                             const KeySwitchKey& key) {
  const KeySwitchKey* const keys[] = {&key};
  return std::move(inner_products_of(context, digits, keys)[0]);
}

std::array<ExtendedPoly, 2> decompose_and_multiply_of(const Context& context,
                                                      const ring::RnsPoly& c,
                                                      const KeySwitchKey& key) {
  if (context.digit_size() != 1) return inner_product_of(context, decompose(context, c), key);

  // One prime per digit: digit j is tower j of c in coefficient form, and its
  // image in tower t is raise_one_prime_digit's, or c's own tower when t = j
  // and c is in NTT form.
  const std::size_t n = context.degree();
  const std::size_t q_towers = c.tower_count();
  const std::size_t p_towers = context.special_count();
  const std::size_t digits = q_towers;
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();
  // Each tower plus its h, for centred digits (see minus_half_of).
  ring::RnsPoly coefficients = c.coefficient_form();
  for (std::size_t j = 0; j < q_towers; ++j)
    add_digit_half(coefficients.tower(j), q_ring.modulus(j), coefficients.tower(j));

  std::array<ExtendedPoly, 2> acc;
  for (auto& x : acc) {
    x.q = ring::RnsPoly::uninitialized(context.ciphertext_ring(), q_towers, ring::Form::ntt);
    x.p = ring::RnsPoly::uninitialized(context.special_ring(), p_towers, ring::Form::ntt);
  }
  parallel_for(0, q_towers + p_towers, [&](std::size_t t) {
    const bool in_q = t < q_towers;
    const std::size_t tower = in_q ? t : t - q_towers;
    const math::NttTables& table = in_q ? q_ring.ntt_tables(tower) : p_ring.ntt_tables(tower);
    const math::Modulus& modulus = table.modulus();
    const auto pick = [&](const ExtendedPoly& x) {
      return in_q ? x.q.tower(tower) : x.p.tower(tower);
    };
    // Two digits at a time: raise them, then add their terms while their
    // images are still in L2 (all digits' images, raised first, spilled to L3
    // before the inner product read them back; one digit at a time re-reads
    // the sums once per digit, which costs more than the spill).
    constexpr std::size_t kDigitsPerPass = 2;
    AlignedBuffer<uint64_t> scratch(kDigitsPerPass * n, AlignedBuffer<uint64_t>::Uninitialized{});
    const auto out = [&](ExtendedPoly& y) { return in_q ? y.q.tower(tower) : y.p.tower(tower); };
    for (std::size_t first = 0; first < digits; first += kDigitsPerPass) {
      const std::size_t count = std::min(kDigitsPerPass, digits - first);
      std::array<std::span<const uint64_t>, kDigitsPerPass> x, b, a;
      for (std::size_t d = 0; d < count; ++d) {
        const std::size_t j = first + d;
        b[d] = pick(key.b[j]);
        a[d] = pick(key.a[j]);
        if (in_q && j == tower && c.is_ntt()) {
          x[d] = c.tower(j);
          continue;
        }
        const std::span<uint64_t> row(scratch.data() + d * n, n);
        const uint64_t q = q_ring.modulus(j).value();
        raise_one_prime_digit(coefficients.tower(j), q, row, table, minus_half_of(q, modulus));
        x[d] = row;
      }
      const auto terms = [count](auto& rows) { return std::span(rows).first(count); };
      // Every pass but the last leaves its sums lazily reduced (in [0, 8q)).
      const bool last = first + count == digits;
      if (!last) {
        math::dot_product_pair_lazy(terms(x), terms(b), terms(a), out(acc[0]), out(acc[1]), modulus,
                                    first != 0);
      } else if (first == 0) {
        math::dot_product_pair(terms(x), terms(b), terms(a), out(acc[0]), out(acc[1]), modulus);
      } else {
        math::dot_product_pair_accumulate(terms(x), terms(b), terms(a), out(acc[0]), out(acc[1]),
                                          modulus);
      }
    }
  });
  return acc;
}

}  // namespace

std::array<ExtendedPoly, 2> inner_product(const Context& context, const DecomposedPoly& digits,
                                          const KeySwitchKey& key) {
  detail::require_switch_key(context, key, "inner_product");
  detail::require_decomposed(context, digits, "inner_product");
  return inner_product_of(context, digits, key);
}

std::vector<std::array<ExtendedPoly, 2>> inner_products(const Context& context,
                                                        const DecomposedPoly& digits,
                                                        std::span<const KeySwitchKey* const> keys) {
  detail::require_decomposed(context, digits, "inner_products");
  for (const KeySwitchKey* key : keys) {
    if (key == nullptr) throw InvalidArgument("inner_products: a key is null");
    detail::require_switch_key(context, *key, "inner_products");
  }
  return inner_products_of(context, digits, keys);
}

std::array<ExtendedPoly, 2> decompose_and_multiply(const Context& context, const ring::RnsPoly& c,
                                                   const KeySwitchKey& key) {
  detail::require_switch_key(context, key, "decompose_and_multiply");
  require_in_ring(context, c, "decompose_and_multiply");
  return decompose_and_multiply_of(context, c, key);
}

namespace {

// mod_down with an optional addend (null: none), shared by the public forms.
// With a Galois element g != 0 the result is also mapped by X -> X^g, each
// tower as soon as it is final, while it is still in cache.
ring::RnsPoly mod_down_plus(const Context& context, ExtendedPoly x, const ring::RnsPoly* addend,
                            uint64_t error_scale, uint64_t galois_element = 0) {
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

}  // namespace

ring::RnsPoly mod_down(const Context& context, ExtendedPoly x, uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down", "x");
  detail::require_error_scale(context, error_scale, "mod_down");
  return mod_down_plus(context, std::move(x), nullptr, error_scale);
}

ring::RnsPoly mod_down(const Context& context, ExtendedPoly x, const ring::RnsPoly& addend,
                       uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down", "x");
  detail::require_error_scale(context, error_scale, "mod_down");
  require_addend(context, addend, x.q.tower_count(), "mod_down");
  return mod_down_plus(context, std::move(x), &addend, error_scale);
}

namespace {

// mod_down_to_next without the operand checks (see mod_down_plus).
ring::RnsPoly mod_down_to_next_of(const Context& context, ExtendedPoly x,
                                  const ring::RnsPoly& addend, uint64_t error_scale) {
  const std::size_t n = context.degree();
  const std::size_t q_towers = x.q.tower_count();
  if (q_towers < 2) {
    throw InvalidArgument("mod_down_to_next: level 0, no prime left to divide by");
  }
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

}  // namespace

ring::RnsPoly mod_down_to_next(const Context& context, ExtendedPoly x, const ring::RnsPoly& addend,
                               uint64_t error_scale) {
  detail::require_extended(context, x, x.q.tower_count(), "mod_down_to_next", "x");
  detail::require_error_scale(context, error_scale, "mod_down_to_next");
  require_addend(context, addend, x.q.tower_count(), "mod_down_to_next");
  return mod_down_to_next_of(context, std::move(x), addend, error_scale);
}

std::array<ring::RnsPoly, 2> switch_key(const Context& context, const ring::RnsPoly& c,
                                        const KeySwitchKey& key) {
  detail::require_switching_key(context, key, "switch_key");
  require_in_ring(context, c, "switch_key");
  auto products = decompose_and_multiply_of(context, c, key);
  return {mod_down_plus(context, std::move(products[0]), nullptr, key.error_scale),
          mod_down_plus(context, std::move(products[1]), nullptr, key.error_scale)};
}

std::array<ring::RnsPoly, 2> switch_key_and_add(const Context& context, const ring::RnsPoly& c,
                                                const KeySwitchKey& key, const ring::RnsPoly& d0,
                                                const ring::RnsPoly& d1) {
  detail::require_switching_key(context, key, "switch_key_and_add");
  require_in_ring(context, c, "switch_key_and_add");
  require_addend(context, d0, c.tower_count(), "switch_key_and_add");
  require_addend(context, d1, c.tower_count(), "switch_key_and_add");
  auto products = decompose_and_multiply_of(context, c, key);
  return {mod_down_plus(context, std::move(products[0]), &d0, key.error_scale),
          mod_down_plus(context, std::move(products[1]), &d1, key.error_scale)};
}

std::array<ring::RnsPoly, 2> switch_key_and_divide(const Context& context, const ring::RnsPoly& c,
                                                   const KeySwitchKey& key, const ring::RnsPoly& d0,
                                                   const ring::RnsPoly& d1) {
  detail::require_switching_key(context, key, "switch_key_and_divide");
  require_in_ring(context, c, "switch_key_and_divide");
  if (c.tower_count() < 2) {  // before the key switch's work, not after
    throw InvalidArgument(
        "switch_key_and_divide: the polynomial is at level 0, no prime left to divide by");
  }
  require_addend(context, d0, c.tower_count(), "switch_key_and_divide");
  require_addend(context, d1, c.tower_count(), "switch_key_and_divide");
  auto products = decompose_and_multiply_of(context, c, key);
  return {mod_down_to_next_of(context, std::move(products[0]), d0, key.error_scale),
          mod_down_to_next_of(context, std::move(products[1]), d1, key.error_scale)};
}

namespace {

// Stage 3 of a Galois key switch and the automorphism itself. With the key
// stored as sigma^-1(k): sigma(c0 + D0) + sigma(D1) s = sigma(c0 + c1 s).
std::array<ring::RnsPoly, 2> galois_from_products(const Context& context, const ring::RnsPoly& c0,
                                                  std::array<ExtendedPoly, 2> products,
                                                  const KeySwitchKey& galois_key) {
  const uint64_t g = galois_key.galois_element;
  return {mod_down_plus(context, std::move(products[0]), &c0, galois_key.error_scale, g),
          mod_down_plus(context, std::move(products[1]), nullptr, galois_key.error_scale, g)};
}

}  // namespace

std::array<ring::RnsPoly, 2> apply_galois(const Context& context, const ring::RnsPoly& c0,
                                          const DecomposedPoly& c1_digits,
                                          const KeySwitchKey& galois_key) {
  detail::require_decomposed(context, c1_digits, "apply_galois");
  require_galois(context, c0, c1_digits.level + 1, galois_key);
  return galois_from_products(context, c0, inner_product_of(context, c1_digits, galois_key),
                              galois_key);
}

std::array<ring::RnsPoly, 2> apply_galois(const Context& context, const ring::RnsPoly& c0,
                                          const ring::RnsPoly& c1, const KeySwitchKey& galois_key) {
  require_galois(context, c0, c1.tower_count(), galois_key);
  require_in_ring(context, c1, "apply_galois");
  return galois_from_products(context, c0, decompose_and_multiply_of(context, c1, galois_key),
                              galois_key);
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
  auto products = inner_product_of(context, c1_digits, galois_key);
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
  if (!context.supports_key_switching()) {
    throw InvalidArgument("lift_to_extended: these parameters have no special primes");
  }
  require_ntt_in_ring(context, c0, "lift_to_extended");
  require_ntt_in_ring(context, c1, "lift_to_extended");
  if (c0.tower_count() != c1.tower_count()) {
    throw MismatchError("lift_to_extended: c0 and c1 are at different levels");
  }
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
