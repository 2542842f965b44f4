// What BFV mod_switch_to_next does to the invariant noise budget, as
// include/heft/schemes/bfv/evaluator.hpp states it: the budget becomes about
// min(B, F), F ~ log2(Q_{l-1}) - log2(t) - log2(N) / 2 - 1 (the budget of a
// ciphertext holding only the rounding noise of the switch). A fresh
// ciphertext loses budget; one whose budget is already at or below F keeps it.
// Every step also decrypts to the slot-wise products computed here mod t.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "heft/math/primes.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"

namespace heft::bfv {
namespace {

using U = std::vector<uint64_t>;

// log2 of the product of the first `count` ciphertext primes.
double log2_modulus(const rlwe::Parameters& p, std::size_t count) {
  double bits = 0;
  for (std::size_t i = 0; i < count; ++i)
    bits += std::log2(static_cast<double>(p.ciphertext_moduli[i]));
  return bits;
}

struct Case {
  uint64_t degree;
  std::vector<int> bits;
  int plain_bits;
};

class ModSwitchBudget : public ::testing::TestWithParam<Case> {};

TEST_P(ModSwitchBudget, BecomesTheSmallerOfTheBudgetAndTheRoundingFloor) {
  const Case c = GetParam();
  const uint64_t n = c.degree;
  const uint64_t t = math::generate_batching_prime(c.plain_bits, n).value();
  rlwe::Parameters params = rlwe::make_parameters(n, c.bits, {60}, 0, rlwe::SecurityLevel::none);
  params.plain_modulus = t;
  const auto context = rlwe::Context::create(params);
  rlwe::KeyGenerator keygen(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const Encryptor encryptor(keygen.create_public_key());
  const Decryptor decryptor(keygen.secret_key());
  const Evaluator eval(context);
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(n + t);
  U x(n);
  for (auto& v : x)
    v = rng() % t;

  // The floor at level l - 1: the rounding noise r_0 + r_1 s is about sqrt(N)
  // at its largest coefficient, for a uniform ternary secret; the worst case
  // is (1 + ||s||_1) / 2 <= (N + 1) / 2.
  const auto floor_at = [&](std::size_t level) {
    return log2_modulus(params, level + 1) - std::log2(static_cast<double>(t)) -
           std::log2(static_cast<double>(n)) / 2 - 1;
  };
  const auto worst_floor_at = [&](std::size_t level) {
    return log2_modulus(params, level + 1) - std::log2(static_cast<double>(t)) -
           std::log2((static_cast<double>(n) + 1) / 2) - 2;
  };

  // Squares 0, 1, 2, ... times, then switches down the whole chain.
  for (int squares = 0; squares <= 2; ++squares) {
    Ciphertext ct = encryptor.encrypt(encoder.encode(x));
    U want = x;
    for (int i = 0; i < squares; ++i) {
      ct = eval.square(ct, relin);
      for (auto& v : want)
        v = static_cast<uint64_t>(static_cast<unsigned __int128>(v) * v % t);
    }
    while (ct.level() > 0) {
      const int before = decryptor.invariant_noise_budget(ct);
      ASSERT_GT(before, 0);
      ct = eval.mod_switch_to_next(ct);
      const int after = decryptor.invariant_noise_budget(ct);
      const double floor = floor_at(ct.level());
      SCOPED_TRACE(::testing::Message()
                   << "N = " << n << ", " << squares << " squares, level " << ct.level()
                   << ": budget " << before << " -> " << after << ", F = " << floor);
      std::printf("N = %lu, %d squares, to level %zu: budget %d -> %d (F = %.1f)\n",
                  static_cast<unsigned long>(n), squares, ct.level(), before, after, floor);
      EXPECT_EQ(encoder.decode(decryptor.decrypt(ct)), want);
      // Never more than before, never below the worst-case floor.
      EXPECT_LE(after, before + 1);
      EXPECT_GE(after, std::min<double>(before, worst_floor_at(ct.level())) - 1);
      if (before <= floor - 2) {
        // The noise already dominates the rounding: the budget is kept.
        EXPECT_GE(after, before - 1);
      } else {
        // The rounding dominates: the budget falls to F (within two bits).
        EXPECT_NEAR(after, floor, 2.0);
      }
      if (squares == 0 && ct.level() + 1 == context->max_level()) {
        // A fresh ciphertext is far above F: the first switch costs budget.
        EXPECT_LT(after, before - 20);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bfv, ModSwitchBudget,
                         ::testing::Values(Case{4096, {60, 50, 50}, 17},
                                           Case{8192, {60, 50, 50}, 30}));

}  // namespace
}  // namespace heft::bfv
