// Operations that the BGV noise estimate refuses: over-deep circuits end in
// a NoiseBudgetError naming the operation and the estimate (everything
// returned before it decrypts exactly, checked against integers mod t), the
// operands stay as they were; automatic mode makes a product a level lower
// when that lets it through; ciphertexts without an estimate are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/modulus.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::bgv {
namespace {

using Values = std::vector<uint64_t>;
using heft::testing::expect_error;

// The helper's depth-2 parameters (N = 16384, t of 20 bits, primes of 60,
// 53 and 53 bits), keys, and an encoder.
struct Fixture {
  std::shared_ptr<const rlwe::Context> context = [] {
    schemes::IntegerParameterRequest request;
    request.scheme = schemes::IntegerScheme::bgv;
    request.depth = 2;
    request.plain_bits = 20;
    return rlwe::Context::create(schemes::suggest_integer_parameters(request));
  }();
  math::Modulus t{context->parameters().plain_modulus};
  rlwe::KeyGenerator keygen = make_key_generator(context);
  rlwe::RelinKey relin = keygen.create_relin_key();
  Encryptor encryptor{keygen.create_public_key()};
  Decryptor decryptor{keygen.secret_key()};
  schemes::BatchEncoder encoder{context->degree(), t.value()};
  std::mt19937_64 rng{5};

  Values random_values() {
    Values v(context->degree());
    for (auto& x : v)
      x = rng() % t.value();
    return v;
  }
  Values product(const Values& a, const Values& b) const {
    Values out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      out[i] = t.mul(a[i], b[i]);
    return out;
  }
  void expect_decrypts(const Ciphertext& ct, const Values& want) {
    EXPECT_EQ(encoder.decode(decryptor.decrypt(ct)), want);
    EXPECT_GT(decryptor.invariant_noise_budget(ct), 0);
  }
};

bool same(const Ciphertext& a, const Ciphertext& b) {
  if (a.size() != b.size() || a.correction != b.correction) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a.parts[i] == b.parts[i])) return false;
  return a.noise_log2 == b.noise_log2;
}

// Manual mode, squares without switching: the third would need more than
// Q holds (it used to return garbage with budget 0).
TEST(BgvNoiseRefusal, SquaresWithoutSwitchingAreRefusedWhenQIsExhausted) {
  Fixture f;
  const Evaluator manual(f.context, ModSwitchMode::manual);
  Values x = f.random_values();
  Ciphertext ct = f.encryptor.encrypt(f.encoder.encode(x));
  for (int i = 0; i < 2; ++i) {
    ct = manual.square(ct, f.relin);
    x = f.product(x, x);
    f.expect_decrypts(ct, x);
  }
  const Ciphertext before = ct.clone();
  expect_error<NoiseBudgetError>([&] { (void)manual.square(ct, f.relin); },
                                 "square: the product's estimated noise, 2^");
  EXPECT_TRUE(same(ct, before));
  // A kind of InvalidArgument, as the depth-exhausted refusal is.
  EXPECT_THROW((void)manual.square(ct), InvalidArgument);
}

// Automatic mode, at level 0: a sum doubled until the estimate refuses; all
// sums before decrypt exactly. The message names the operation, the
// estimate, the level's limit and the budget.
TEST(BgvNoiseRefusal, RepeatedDoublingAtLevelZeroIsRefusedBeforeItFails) {
  Fixture f;
  const Evaluator evaluator(f.context);
  Values x = f.random_values();
  Ciphertext ct = f.encryptor.encrypt(f.encoder.encode(x), 0);
  int doublings = 0;
  for (;; ++doublings) {
    ASSERT_LT(doublings, 60) << "never refused";
    Ciphertext next;
    try {
      next = evaluator.add(ct, ct);
    } catch (const NoiseBudgetError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("add: the result's estimated noise, 2^", 0), 0u) << message;
      EXPECT_NE(message.find("level 0 can decrypt, 2^59."), std::string::npos) << message;
      EXPECT_NE(message.find("estimated budget -"), std::string::npos) << message;
      break;
    }
    ct = std::move(next);
    for (auto& v : x)
      v = f.t.add(v, v);
    f.expect_decrypts(ct, x);
  }
  std::printf("  refused after %d doublings, with %d bits of measured budget left\n", doublings,
              f.decryptor.invariant_noise_budget(ct));
  EXPECT_GT(doublings, 10);
  // Plaintext products and subtractions are refused the same way.
  const Ciphertext before = ct.clone();
  expect_error<NoiseBudgetError>([&] { (void)evaluator.sub(ct, ct.clone()); },
                                 "sub: the result's estimated noise");
  Ciphertext near_limit = ct.clone();
  expect_error<NoiseBudgetError>(
      [&] { (void)evaluator.multiply_plain(near_limit, f.encoder.encode(f.random_values())); },
      "multiply_plain: the result's estimated noise");
  EXPECT_TRUE(same(ct, before));
}

// A product of two operands whose noise leaves no room for it at their
// level: manual mode refuses it; automatic mode switches both down first
// and multiplies a level lower, exactly.
TEST(BgvNoiseRefusal, AutomaticModeMultipliesALevelLowerWhenThatFits) {
  Fixture f;
  const Evaluator automatic(f.context);
  const Evaluator manual(f.context, ModSwitchMode::manual);
  // Two plaintext products each: about 2^100 of noise at the top level.
  const auto heavy = [&](Values& x) {
    x = f.random_values();
    Ciphertext ct = f.encryptor.encrypt(f.encoder.encode(x));
    for (int i = 0; i < 2; ++i) {
      const Values p = f.random_values();
      ct = automatic.multiply_plain(ct, f.encoder.encode(p));
      x = f.product(x, p);
    }
    return ct;
  };
  Values x, y;
  const Ciphertext a = heavy(x), b = heavy(y);
  ASSERT_EQ(a.level(), 2u);
  expect_error<NoiseBudgetError>([&] { (void)manual.multiply(a, b, f.relin); },
                                 "multiply: the product's estimated noise");
  const Ciphertext a_before = a.clone();
  for (const Ciphertext& product : {automatic.multiply(a, b, f.relin),
                                    automatic.relinearize(automatic.multiply(a, b), f.relin)}) {
    EXPECT_EQ(product.level(), 0u);  // made at level 1, not 2
    f.expect_decrypts(product, f.product(x, y));
  }
  const Ciphertext square = automatic.square(a, f.relin);
  EXPECT_EQ(square.level(), 0u);
  f.expect_decrypts(square, f.product(x, x));
  EXPECT_TRUE(same(a, a_before));
  // Below level 1 nothing is left to switch: refused, with the reason.
  const Ciphertext low = automatic.mod_switch(a);
  expect_error<NoiseBudgetError>(
      [&] {
        (void)automatic.multiply(low, automatic.multiply_plain(low, f.encoder.encode(x)), f.relin);
      },
      "(switching the operands down first does not help either)");
}

// A ciphertext nobody estimated (built by hand; loaded from format version
// 1) decrypts, but the evaluator will not compute on it until its estimate
// is set.
TEST(BgvNoiseRefusal, CiphertextsWithoutAnEstimateAreRefused) {
  Fixture f;
  const Evaluator evaluator(f.context);
  const Values x = f.random_values();
  const Ciphertext fresh = f.encryptor.encrypt(f.encoder.encode(x));
  // Built by hand: the parts and correction factor, no estimate.
  Ciphertext by_hand;
  by_hand.parts = fresh.clone().parts;
  by_hand.correction = fresh.correction;
  EXPECT_EQ(by_hand.noise_log2, kUnknownNoise);
  EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(by_hand)), x);
  EXPECT_EQ(evaluator.estimated_noise_budget(by_hand), -kUnknownNoise);
  for (const auto& [name, call] : std::vector<std::pair<std::string, std::function<void()>>>{
           {"add", [&] { (void)evaluator.add(fresh, by_hand); }},
           {"negate", [&] { (void)evaluator.negate(by_hand); }},
           {"multiply", [&] { (void)evaluator.multiply(by_hand, fresh, f.relin); }},
           {"mod_switch", [&] { (void)evaluator.mod_switch(by_hand); }},
           {"add_scalar", [&] { (void)evaluator.add_scalar(by_hand, 1); }},
       }) {
    expect_error<NoiseBudgetError>(call, name + ": an operand has no noise estimate");
  }
  by_hand.noise_log2 = evaluator.noise_model().fresh(true);
  EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(evaluator.add(fresh, by_hand))), [&] {
    Values twice(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      twice[i] = f.t.add(x[i], x[i]);
    return twice;
  }());
}

}  // namespace
}  // namespace heft::bgv
