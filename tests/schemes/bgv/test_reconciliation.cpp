// BGV additions of ciphertexts whose correction factors differ, on the
// parameter helper's depth-2 parameters in automatic mode. The oracle is
// exact integer arithmetic mod t per slot. Either association of a sum of
// three ciphertexts at level 0 (a product of three, one switched down, one
// fresh) must decrypt correctly: the reconciliation of correction factors
// used to multiply the second operand by a full-size constant mod t, which
// cost log2 t bits of budget per addition and left add(A, add(B, C)) with
// every slot wrong and no error. Also: the small pair against one full
// factor, the pair's properties against a brute-force search, and a t that
// is not prime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/bgv/noise_model.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "integer_slots_support.hpp"
#include "schemes/bgv/reconciliation.hpp"

namespace heft::bgv {
namespace {

using Values = std::vector<uint64_t>;

using heft::testing::random_values_mod;

// Keys and tools under N, t and primes of 60, 50 and 50 bits.
struct SmallParameters {
  SmallParameters(uint64_t n, uint64_t t)
      : context([&] {
          rlwe::Parameters p =
              rlwe::make_parameters(n, {60, 50, 50}, {60}, 0, rlwe::SecurityLevel::none);
          p.plain_modulus = t;
          return rlwe::Context::create(p);
        }()),
        keygen(make_key_generator(context)),
        encryptor(keygen.create_public_key()),
        decryptor(keygen.secret_key()),
        evaluator(context) {}
  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  Encryptor encryptor;
  Decryptor decryptor;
  Evaluator evaluator;
};

TEST(BgvNoiseReconciliation, SumOfThreeAtLevelZeroDecryptsInEitherAssociation) {
  schemes::IntegerParameterRequest request;
  request.scheme = schemes::IntegerScheme::bgv;
  request.depth = 2;
  request.plain_bits = 20;
  const auto context = rlwe::Context::create(schemes::suggest_integer_parameters(request));
  const uint64_t n = context->degree(), t = context->parameters().plain_modulus;
  const math::Modulus tm(t);
  rlwe::KeyGenerator keygen = make_key_generator(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const Encryptor encryptor(keygen.create_public_key());
  const Decryptor decryptor(keygen.secret_key());
  const Evaluator evaluator(context);  // automatic mode
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(2024);
  const Values x = random_values_mod(rng, n, t), y = random_values_mod(rng, n, t),
               z = random_values_mod(rng, n, t), w = random_values_mod(rng, n, t),
               u = random_values_mod(rng, n, t);
  const auto encrypt = [&](const Values& v) { return encryptor.encrypt(encoder.encode(v)); };

  const Ciphertext a =
      evaluator.multiply(evaluator.multiply(encrypt(x), encrypt(y), relin), encrypt(z), relin);
  const Ciphertext b = evaluator.mod_switch_to(encrypt(w), 0);
  const Ciphertext c = encryptor.encrypt(encoder.encode(u), 0);
  ASSERT_EQ(a.level(), 0u);
  ASSERT_EQ(b.level(), 0u);
  ASSERT_EQ(c.level(), 0u);
  // The scenario needs three different correction factors.
  ASSERT_NE(a.correction, b.correction);
  ASSERT_NE(b.correction, c.correction);
  ASSERT_NE(a.correction, c.correction);

  Values want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = tm.add(tm.add(tm.mul(tm.mul(x[i], y[i]), z[i]), w[i]), u[i]);
  const Ciphertext right = evaluator.add(a, evaluator.add(b, c));
  const Ciphertext left = evaluator.add(evaluator.add(a, b), c);
  std::printf("  budgets: A %d, B %d, C %d; A + (B + C) %d, (A + B) + C %d\n",
              decryptor.invariant_noise_budget(a), decryptor.invariant_noise_budget(b),
              decryptor.invariant_noise_budget(c), decryptor.invariant_noise_budget(right),
              decryptor.invariant_noise_budget(left));
  EXPECT_EQ(encoder.decode(decryptor.decrypt(right)), want);
  EXPECT_EQ(encoder.decode(decryptor.decrypt(left)), want);
  // Each association keeps most of the smallest operand's budget (the
  // issue's numbers: 30, 32, 28 in, 0 and 10 out).
  EXPECT_GT(decryptor.invariant_noise_budget(right), 10);
  EXPECT_GT(decryptor.invariant_noise_budget(left), 10);
}

// Against the old reconciliation, done by hand: b multiplied by
// r = c_b / c_a so that it shares a's factor. The small pair keeps about
// half of log2 t bits more budget, measured and estimated.
TEST(BgvNoiseReconciliation, SmallPairCostsLessThanOneFullFactor) {
  const uint64_t n = 4096;
  const uint64_t t = math::generate_batching_prime(20, n).value();
  const math::Modulus tm(t);
  const SmallParameters s(n, t);
  const Encryptor& encryptor = s.encryptor;
  const Decryptor& decryptor = s.decryptor;
  const Evaluator& evaluator = s.evaluator;
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(8);
  const Values x = random_values_mod(rng, n, t), y = random_values_mod(rng, n, t);
  const Ciphertext a = encryptor.encrypt(encoder.encode(x), 0);
  const Ciphertext b = evaluator.mod_switch_to(encryptor.encrypt(encoder.encode(y)), 0);
  ASSERT_NE(a.correction, b.correction);
  Values want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = tm.add(x[i], y[i]);

  const Ciphertext sum = evaluator.add(a, b);
  Ciphertext b_under_a =
      evaluator.multiply_scalar(b, tm.mul(b.correction, tm.inverse(a.correction)));
  b_under_a.correction = a.correction;
  const Ciphertext old_sum = evaluator.add(a, b_under_a);
  EXPECT_EQ(encoder.decode(decryptor.decrypt(sum)), want);
  EXPECT_EQ(encoder.decode(decryptor.decrypt(old_sum)), want);
  const int measured = decryptor.invariant_noise_budget(sum);
  const int old_measured = decryptor.invariant_noise_budget(old_sum);
  std::printf("  budget after the sum: %d bits (one full factor: %d)\n", measured, old_measured);
  EXPECT_GE(measured, old_measured + 5);
  EXPECT_GE(evaluator.estimated_noise_budget(sum), evaluator.estimated_noise_budget(old_sum) + 5.0);
}

// The pair itself: x / c_a = y / c_b (mod t), the sum's correction c_a / x,
// factors about sqrt(t), and the cheapest weighted cost of all x (brute
// force) for a prime t and a power of two.
TEST(BgvNoiseReconciliation, PairIsValidSmallAndCheapest) {
  std::mt19937_64 rng(4);
  for (const uint64_t t_value : {uint64_t{65537}, uint64_t{1} << 14, uint64_t{786433}}) {
    const math::Modulus t(t_value);
    const auto centered = [&](uint64_t v) { return static_cast<double>(std::min(v, t_value - v)); };
    for (int trial = 0; trial < 40; ++trial) {
      uint64_t c_a = 0, c_b = 0;
      while (std::gcd(c_a, t_value) != 1)
        c_a = rng() % t_value;
      while (std::gcd(c_b, t_value) != 1)
        c_b = rng() % t_value;
      const double noise_a = 20.0 + static_cast<double>(rng() % 30);
      const double noise_b = trial < 20 ? noise_a : 20.0 + static_cast<double>(rng() % 30);
      const detail::Reconciliation plan = detail::reconcile(t, c_a, noise_a, c_b, noise_b);
      ASSERT_EQ(t.mul(plan.x, c_b), t.mul(plan.y, c_a));
      ASSERT_EQ(t.mul(plan.correction, plan.x), c_a);
      const double cost =
          log2_sum(noise_a + std::log2(centered(plan.x)), noise_b + std::log2(centered(plan.y)));
      EXPECT_NEAR(plan.noise_log2, cost, 1e-9);
      if (noise_a == noise_b && c_a != c_b && t_value % 2 == 1) {
        // Equal weights, prime t: both factors about sqrt(t) (a power of two
        // needs odd ones, which can be several times larger).
        EXPECT_LE(std::max(centered(plan.x), centered(plan.y)), 2 * std::sqrt(t_value));
      }
      if (t_value > 100000) continue;  // brute force on the smaller moduli
      const uint64_t r = t.mul(c_b, t.inverse(c_a));
      double best = plan.noise_log2;
      for (uint64_t x = 1; x < t_value; ++x) {
        if (std::gcd(x, t_value) != 1) continue;
        best = std::min(best, log2_sum(noise_a + std::log2(centered(x)),
                                       noise_b + std::log2(centered(t.mul(r, x)))));
      }
      EXPECT_NEAR(plan.noise_log2, best, 1e-9) << "t " << t_value << " trial " << trial;
    }
  }
  // Equal factors: nothing to multiply.
  const detail::Reconciliation same = detail::reconcile(math::Modulus(65537), 77, 30, 77, 31);
  EXPECT_EQ(same.x, 1u);
  EXPECT_EQ(same.y, 1u);
  EXPECT_EQ(same.correction, 77u);
}

// A plaintext modulus that is not prime (2^16, coefficient encoding): the
// pair's x must be odd; sums across levels decrypt to the coefficient-wise
// sum.
TEST(BgvNoiseReconciliation, PowerOfTwoModulusSumsAcrossLevels) {
  const uint64_t n = 2048, t = uint64_t{1} << 16;
  const SmallParameters s(n, t);
  std::mt19937_64 rng(6);
  Values x = random_values_mod(rng, n, t);
  Ciphertext acc = s.encryptor.encrypt({x, t}, 0);
  for (std::size_t level = 1; level <= s.context->max_level(); ++level) {
    const Values y = random_values_mod(rng, n, t);
    const Ciphertext other = s.evaluator.mod_switch_to(s.encryptor.encrypt({y, t}, level), 0);
    acc = s.evaluator.add(acc, other);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = (x[i] + y[i]) % t;
    ASSERT_EQ(s.decryptor.decrypt(acc).coefficients, x) << "level " << level;
    EXPECT_EQ(acc.correction % 2, 1u);
  }
}

}  // namespace
}  // namespace heft::bgv
