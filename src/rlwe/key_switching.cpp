// Hybrid key switching: mod up per digit, inner product with the key over
// Q*P, mod down. Work is spread over towers with parallel_for.
#include "heft/rlwe/key_switching.hpp"

#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::rlwe {
namespace {

void require_ntt_in_ring(const Context& context, const ring::RnsPoly& c, const char* operation) {
  if (c.empty() || c.context() != context.ciphertext_ring()) {
    throw MismatchError(std::string(operation) + ": polynomial is not from this context");
  }
  if (!c.is_ntt()) throw MismatchError(std::string(operation) + ": polynomial must be in NTT form");
}

void require_key(const Context& context, const KeySwitchKey& key, const char* operation) {
  if (key.context.get() != &context) {
    throw MismatchError(std::string(operation) + ": key belongs to a different context");
  }
  if (key.b.size() != context.digit_count()) {
    throw MismatchError(std::string(operation) + ": key has the wrong number of digits");
  }
}

}  // namespace

DecomposedPoly decompose(const Context& context, const ring::RnsPoly& c) {
  if (!context.supports_key_switching()) {
    throw InvalidArgument("key switching needs special primes: these parameters have none");
  }
  require_ntt_in_ring(context, c, "decompose");
  const std::size_t level = c.tower_count() - 1;
  const std::size_t n = context.degree();
  const std::size_t q_towers = level + 1;
  const std::size_t p_towers = context.special_count();
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();

  ring::RnsPoly coefficients = c.clone();
  coefficients.intt();

  DecomposedPoly out;
  out.level = level;
  const std::size_t digits = context.digit_count_at(level);
  for (std::size_t digit = 0; digit < digits; ++digit) {
    const std::size_t begin = digit * context.digit_size();
    const std::size_t end = std::min(begin + context.digit_size(), q_towers);
    const std::size_t raised_towers = q_towers - (end - begin) + p_towers;
    AlignedBuffer<uint64_t> raised(raised_towers * n);
    context.mod_up_converter(level, digit)
        .convert_approximate(coefficients.data().subspan(begin * n, (end - begin) * n),
                             raised.span(), n);

    ExtendedPoly extended{ring::RnsPoly(context.ciphertext_ring(), q_towers, ring::Form::ntt),
                          ring::RnsPoly(context.special_ring(), p_towers, ring::Form::ntt)};
    // Tower t of the result: the input itself inside the digit (already in
    // NTT form), a converted tower (NTT needed) outside it and for P.
    parallel_for(0, q_towers + p_towers, [&](std::size_t t) {
      if (t < q_towers && t >= begin && t < end) {
        std::copy_n(c.tower(t).begin(), n, extended.q.tower(t).begin());
        return;
      }
      std::size_t source;
      if (t < q_towers) {
        source = t < begin ? t : t - (end - begin);
      } else {
        source = q_towers - (end - begin) + (t - q_towers);
      }
      const uint64_t* from = raised.data() + source * n;
      if (t < q_towers) {
        auto tower = extended.q.tower(t);
        std::copy_n(from, n, tower.begin());
        math::ntt_forward(tower, q_ring.ntt_tables(t));
      } else {
        auto tower = extended.p.tower(t - q_towers);
        std::copy_n(from, n, tower.begin());
        math::ntt_forward(tower, p_ring.ntt_tables(t - q_towers));
      }
    });
    out.digits.push_back(std::move(extended));
  }
  return out;
}

std::array<ExtendedPoly, 2> inner_product(const Context& context, const DecomposedPoly& digits,
                                          const KeySwitchKey& key) {
  require_key(context, key, "inner_product");
  if (digits.digits.empty()) throw InvalidArgument("inner_product: nothing was decomposed");
  const std::size_t q_towers = digits.level + 1;
  const std::size_t p_towers = context.special_count();
  const auto& q_ring = *context.ciphertext_ring();
  const auto& p_ring = *context.special_ring();

  std::array<ExtendedPoly, 2> acc;
  for (auto& x : acc) {
    x.q = ring::RnsPoly(context.ciphertext_ring(), q_towers, ring::Form::ntt);
    x.p = ring::RnsPoly(context.special_ring(), p_towers, ring::Form::ntt);
  }
  // Each tower is independent: accumulate every digit into it.
  parallel_for(0, q_towers + p_towers, [&](std::size_t t) {
    const bool in_q = t < q_towers;
    const std::size_t tower = in_q ? t : t - q_towers;
    const math::Modulus& modulus = in_q ? q_ring.modulus(tower) : p_ring.modulus(tower);
    auto acc0 = in_q ? acc[0].q.tower(tower) : acc[0].p.tower(tower);
    auto acc1 = in_q ? acc[1].q.tower(tower) : acc[1].p.tower(tower);
    for (std::size_t j = 0; j < digits.digits.size(); ++j) {
      const ExtendedPoly& d = digits.digits[j];
      const auto digit_tower = in_q ? d.q.tower(tower) : d.p.tower(tower);
      const auto b = in_q ? key.b[j].q.tower(tower) : key.b[j].p.tower(tower);
      const auto a = in_q ? key.a[j].q.tower(tower) : key.a[j].p.tower(tower);
      math::fma_mod(digit_tower, b, acc0, acc0, modulus);
      math::fma_mod(digit_tower, a, acc1, acc1, modulus);
    }
  });
  return acc;
}

ring::RnsPoly mod_down(const Context& context, ExtendedPoly x, uint64_t error_scale) {
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
  AlignedBuffer<uint64_t> converted(q_towers * n);
  context.mod_down_converter(level).convert_approximate(x.p.data(), converted.span(), n);
  // x_q <- (x_q - [x_p]_q) * P^-1: exact division of x - [x]_P by P, which
  // rounds x / P (the approximate conversion adds at most K multiples of P).
  parallel_for(0, q_towers, [&](std::size_t t) {
    const math::Modulus& q = q_ring.modulus(t);
    std::span<uint64_t> c(converted.data() + t * n, n);
    math::ntt_forward(c, q_ring.ntt_tables(t));
    if (error_scale != 1) math::mul_scalar_mod(c, q.reduce(error_scale), c, q);
    auto tower = x.q.tower(t);
    math::sub_mod(tower, c, tower, q);
    math::mul_scalar_mod(tower, context.inv_special_product()[t], tower, q);
  });
  return std::move(x.q);
}

std::array<ring::RnsPoly, 2> switch_key(const Context& context, const ring::RnsPoly& c,
                                        const KeySwitchKey& key) {
  require_key(context, key, "switch_key");
  if (key.galois_element != 1) {
    throw InvalidArgument("switch_key: this is a Galois key; use apply_galois");
  }
  auto products = inner_product(context, decompose(context, c), key);
  return {mod_down(context, std::move(products[0]), key.error_scale),
          mod_down(context, std::move(products[1]), key.error_scale)};
}

std::array<ring::RnsPoly, 2> apply_galois(const Context& context, const ring::RnsPoly& c0,
                                          const DecomposedPoly& c1_digits,
                                          const KeySwitchKey& galois_key) {
  require_key(context, galois_key, "apply_galois");
  require_ntt_in_ring(context, c0, "apply_galois");
  const uint64_t g = galois_key.galois_element;
  if (g == 1) throw InvalidArgument("apply_galois: the key is not a Galois key");
  if (c0.tower_count() != c1_digits.level + 1) {
    throw MismatchError("apply_galois: c0 and the decomposed c1 are at different levels");
  }
  auto products = inner_product(context, c1_digits, galois_key);
  // With the key stored as sigma^-1(k): sigma(c0 + D0) + sigma(D1) s = sigma(c0 + c1 s).
  ring::RnsPoly d0 = mod_down(context, std::move(products[0]), galois_key.error_scale);
  ring::RnsPoly d1 = mod_down(context, std::move(products[1]), galois_key.error_scale);
  d0 += c0;
  return {d0.automorphism(g), d1.automorphism(g)};
}

}  // namespace heft::rlwe
