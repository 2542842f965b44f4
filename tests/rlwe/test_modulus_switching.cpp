// divide_by_last_prime (rescale / modulus switching) against exact big-integer
// arithmetic with GMP: for each coefficient c (CRT-reconstructed), the result
// must be (c - t y) / q_l with y = [c t^-1]_{q_l} centred, in every tower.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "heft/ring/prng.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/modulus_switching.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/error.hpp"
#include "ring_test_support.hpp"

namespace heft::rlwe {
namespace {

using ring::testing::BigInt;

// The coefficients of p (coefficient form) as integers in [0, Q).
std::vector<BigInt> reconstruct(const ring::RnsPoly& p) {
  const std::size_t towers = p.tower_count(), n = p.degree();
  BigInt q(1);
  std::vector<BigInt> values(n);
  for (std::size_t i = 0; i < towers; ++i) {
    // x <- x + q * ((r_i - x) * q^-1 mod q_i): Garner's step for tower i.
    const uint64_t qi = p.modulus(i).value();
    BigInt qi_big(qi), inverse;
    mpz_invert(inverse.get(), q.get(), qi_big.get());
    for (std::size_t k = 0; k < n; ++k) {
      BigInt step(p.tower(i)[k]);
      mpz_sub(step.get(), step.get(), values[k].get());
      mpz_mul(step.get(), step.get(), inverse.get());
      mpz_mod(step.get(), step.get(), qi_big.get());
      mpz_addmul(values[k].get(), step.get(), q.get());
    }
    mpz_mul(q.get(), q.get(), qi_big.get());
  }
  return values;
}

// Checks that `out` (NTT form, level towers) is c (NTT form, level + 1
// towers) divided by its last prime with plaintext modulus t, coefficient by
// coefficient against GMP.
void expect_divided(const Context& context, const ring::RnsPoly& c, ring::RnsPoly out, uint64_t t) {
  const std::size_t level = c.tower_count() - 1;
  ASSERT_EQ(out.tower_count(), level);
  ring::RnsPoly coefficients = c.clone();
  coefficients.intt();
  const std::vector<BigInt> values = reconstruct(coefficients);
  out.intt();
  const uint64_t last = context.ciphertext_ring()->modulus(level).value();
  BigInt last_big(last), t_big(t), t_inverse;
  mpz_invert(t_inverse.get(), t_big.get(), last_big.get());
  for (std::size_t k = 0; k < values.size(); ++k) {
    BigInt y;  // [c t^-1]_{q_l}, centred
    mpz_mul(y.get(), values[k].get(), t_inverse.get());
    mpz_mod(y.get(), y.get(), last_big.get());
    if (mpz_cmp_ui(y.get(), last / 2) > 0) mpz_sub(y.get(), y.get(), last_big.get());
    BigInt expected = values[k];
    mpz_submul(expected.get(), t_big.get(), y.get());
    ASSERT_TRUE(mpz_divisible_p(expected.get(), last_big.get()));
    mpz_divexact(expected.get(), expected.get(), last_big.get());
    for (std::size_t i = 0; i < level; ++i) {
      ASSERT_EQ(out.tower(i)[k], expected.mod(out.modulus(i).value()))
          << "t=" << t << " level=" << level << " k=" << k << " tower " << i;
    }
  }
}

TEST(ModulusSwitching, DivideByLastPrimeMatchesExactIntegers) {
  auto context =
      Context::create(make_parameters(1024, {50, 45, 49, 40}, {55}, 0, SecurityLevel::none));
  ring::Prng prng = ring::Prng::from_os_entropy();
  for (uint64_t t : {uint64_t{1}, uint64_t{65537}, uint64_t{256}}) {
    // Level 2 divides by the 49-bit prime, above 4 q_1 (45 bits): the lift
    // then reduces first; at levels 3 and 1 the last prime is at most 4 q_i.
    for (std::size_t level : {std::size_t{3}, std::size_t{2}, std::size_t{1}}) {
      ring::RnsPoly c(context->ciphertext_ring(), level + 1, ring::Form::ntt);
      ring::sample_uniform(prng, c);

      ring::RnsPoly out;
      divide_by_last_prime(*context, c, out, t);  // out of place
      ring::RnsPoly in_place = c.clone();
      divide_by_last_prime(*context, in_place, in_place, t);
      EXPECT_TRUE(out == in_place);
      expect_divided(*context, c, std::move(out), t);
    }
  }
}

// The form for a ciphertext's parts (prime by prime across them), out of
// place and in place, each part against GMP.
TEST(ModulusSwitching, DividesSeveralPolynomialsAtOnce) {
  auto context =
      Context::create(make_parameters(1024, {50, 45, 49, 40}, {55}, 0, SecurityLevel::none));
  ring::Prng prng = ring::Prng::from_os_entropy();
  for (uint64_t t : {uint64_t{1}, uint64_t{65537}}) {
    for (std::size_t level : {std::size_t{3}, std::size_t{2}}) {
      std::vector<ring::RnsPoly> parts, in_place;
      for (int k = 0; k < 3; ++k) {
        parts.emplace_back(context->ciphertext_ring(), level + 1, ring::Form::ntt);
        ring::sample_uniform(prng, parts.back());
        in_place.push_back(parts.back().clone());
      }
      std::vector<ring::RnsPoly> outs(parts.size());
      divide_by_last_prime(*context, parts, outs, t);
      divide_by_last_prime(*context, in_place, in_place, t);
      for (std::size_t k = 0; k < parts.size(); ++k) {
        EXPECT_TRUE(outs[k] == in_place[k]) << "part " << k;
        expect_divided(*context, parts[k], std::move(outs[k]), t);
      }
    }
  }
}

TEST(ModulusSwitching, RefusesBadInputWithoutChangingIt) {
  auto context = Context::create(make_parameters(1024, {50, 45}, {55}, 0, SecurityLevel::none));
  ring::RnsPoly c(context->ciphertext_ring(), 2, ring::Form::ntt);
  ring::Prng prng = ring::Prng::from_os_entropy();
  ring::sample_uniform(prng, c);
  const ring::RnsPoly before = c.clone();
  ring::RnsPoly out;
  ring::RnsPoly bottom(context->ciphertext_ring(), 1, ring::Form::ntt);
  EXPECT_THROW(divide_by_last_prime(*context, bottom, out), InvalidArgument);
  const uint64_t last = context->ciphertext_ring()->modulus(1).value();
  EXPECT_THROW(divide_by_last_prime(*context, c, c, last), InvalidArgument);  // not coprime
  EXPECT_THROW(divide_by_last_prime(*context, c, c, 0), InvalidArgument);
  ring::RnsPoly coefficient_form = c.clone();
  coefficient_form.intt();
  EXPECT_THROW(divide_by_last_prime(*context, coefficient_form, out), MismatchError);
  auto other = Context::create(make_parameters(1024, {50, 45}, {55}, 0, SecurityLevel::none));
  ring::RnsPoly foreign(other->ciphertext_ring(), 2, ring::Form::ntt);
  EXPECT_THROW(divide_by_last_prime(*context, foreign, out), MismatchError);
  EXPECT_TRUE(c == before);

  // Several at once: every part is checked before any is written, so a bad
  // last part leaves the good first one as it was.
  std::vector<ring::RnsPoly> parts;
  parts.push_back(c.clone());
  parts.push_back(foreign.clone());
  EXPECT_THROW(divide_by_last_prime(*context, parts, parts), MismatchError);
  EXPECT_TRUE(parts[0] == before);
  parts[1] = coefficient_form.clone();
  EXPECT_THROW(divide_by_last_prime(*context, parts, parts), MismatchError);
  parts[1] = ring::RnsPoly(context->ciphertext_ring(), 1, ring::Form::ntt);  // another level
  EXPECT_THROW(divide_by_last_prime(*context, parts, parts), MismatchError);
  EXPECT_TRUE(parts[0] == before);
  std::vector<ring::RnsPoly> one_output(1);
  parts[1] = c.clone();
  EXPECT_THROW(divide_by_last_prime(*context, parts, one_output), MismatchError);
  // Outputs overlapping the inputs other than exactly.
  std::vector<ring::RnsPoly> three;
  for (int k = 0; k < 3; ++k)
    three.push_back(c.clone());
  const std::span<ring::RnsPoly> all(three);
  EXPECT_THROW(divide_by_last_prime(*context, all.first(2), all.last(2)), MismatchError);
  for (const ring::RnsPoly& part : three)
    EXPECT_TRUE(part == before);
}

}  // namespace
}  // namespace heft::rlwe
