// divide_by_last_prime (rescale / modulus switching) against exact big-integer
// arithmetic with GMP: for each coefficient c (CRT-reconstructed), the result
// must be (c - t y) / q_l with y = [c t^-1]_{q_l} centred, in every tower.
#include <gtest/gtest.h>

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
      ring::RnsPoly coefficients = c.clone();
      coefficients.intt();
      const std::vector<BigInt> values = reconstruct(coefficients);

      ring::RnsPoly out;
      divide_by_last_prime(*context, c, out, t);  // out of place
      ring::RnsPoly in_place = c.clone();
      divide_by_last_prime(*context, in_place, in_place, t);
      ASSERT_EQ(out.tower_count(), level);
      EXPECT_TRUE(out == in_place);
      out.intt();

      const uint64_t last = context->ciphertext_ring()->modulus(level).value();
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
}

}  // namespace
}  // namespace heft::rlwe
