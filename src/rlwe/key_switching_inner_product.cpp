// Key switching, stage 2: the inner products of a decomposition with one key
// or several (sum_j d_j (b_j, a_j) over Q_l * P), and stages 1 and 2 fused
// for one key, which never stores the digits when each digit is one prime.
#include <algorithm>
#include <array>
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

std::vector<std::array<ExtendedPoly, 2>> inner_products_unchecked(
    const Context& context, const DecomposedPoly& digits,
    std::span<const KeySwitchKey* const> keys) {
  const std::size_t q_towers = digits.level + 1;
  // Every key switch passes here or through decompose_and_multiply: the one
  // place to refuse a key made for a lower level, before anything is written.
  for (const KeySwitchKey* key : keys)
    require_key_reaches(*key, q_towers, "key switching");
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

std::array<ExtendedPoly, 2> inner_product_unchecked(const Context& context,
                                                    const DecomposedPoly& digits,
                                                    const KeySwitchKey& key) {
  const KeySwitchKey* const keys[] = {&key};
  return std::move(inner_products_unchecked(context, digits, keys)[0]);
}

std::array<ExtendedPoly, 2> decompose_and_multiply_unchecked(const Context& context,
                                                             const ring::RnsPoly& c,
                                                             const KeySwitchKey& key) {
  require_key_reaches(key, c.tower_count(), "key switching");
  if (context.digit_size() != 1)
    return inner_product_unchecked(context, decompose(context, c), key);

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

}  // namespace detail

std::array<ExtendedPoly, 2> inner_product(const Context& context, const DecomposedPoly& digits,
                                          const KeySwitchKey& key) {
  detail::require_valid_switch_key(context, key, "inner_product");
  detail::require_decomposed(context, digits, "inner_product");
  return detail::inner_product_unchecked(context, digits, key);
}

std::vector<std::array<ExtendedPoly, 2>> inner_products(const Context& context,
                                                        const DecomposedPoly& digits,
                                                        std::span<const KeySwitchKey* const> keys) {
  detail::require_decomposed(context, digits, "inner_products");
  for (const KeySwitchKey* key : keys) {
    if (key == nullptr) throw InvalidArgument("inner_products: a key is null");
    detail::require_valid_switch_key(context, *key, "inner_products");
  }
  return detail::inner_products_unchecked(context, digits, keys);
}

std::array<ExtendedPoly, 2> decompose_and_multiply(const Context& context, const ring::RnsPoly& c,
                                                   const KeySwitchKey& key) {
  detail::require_valid_switch_key(context, key, "decompose_and_multiply");
  detail::require_ciphertext_ring_poly(context, c, "decompose_and_multiply", "the polynomial");
  return detail::decompose_and_multiply_unchecked(context, c, key);
}

}  // namespace heft::rlwe
