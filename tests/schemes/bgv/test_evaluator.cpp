// Tests for schemes/bgv and the rlwe error-scale extension it relies on.
// The oracle is exact integer arithmetic mod t in the test: slot-wise
// products and rotations with a batching t, negacyclic convolution with a
// non-batching t (a power of two, through the coefficient encoder).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/serialization.hpp"
#include "heft/util/error.hpp"

namespace heft::bgv {
namespace {

using schemes::IntegerPlaintext;
using Values = std::vector<uint64_t>;

std::shared_ptr<const rlwe::Context> make_context(uint64_t n, const std::vector<int>& bits,
                                                  uint64_t t) {
  rlwe::Parameters p = rlwe::make_parameters(n, bits, {60}, 0, rlwe::SecurityLevel::none);
  p.plain_modulus = t;
  return rlwe::Context::create(p);
}

Values random_values(std::mt19937_64& rng, std::size_t n, uint64_t t) {
  Values v(n);
  for (auto& x : v)
    x = rng() % t;
  return v;
}

// Everything a test needs: keys made with error scale t, encoder, evaluator.
struct Fixture {
  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  rlwe::PublicKey public_key;
  rlwe::RelinKey relin_key;
  Encryptor encryptor;
  Decryptor decryptor;
  Evaluator evaluator;

  explicit Fixture(std::shared_ptr<const rlwe::Context> c,
                   ModSwitchMode mode = ModSwitchMode::automatic)
      : context(c),
        keygen(make_key_generator(c)),
        public_key(keygen.create_public_key()),
        relin_key(keygen.create_relin_key()),
        encryptor(public_key),
        decryptor(keygen.secret_key()),
        evaluator(c, mode) {}
};

TEST(BgvKeys, ErrorScaledPublicKeyIsSmallMultipleOfT) {
  const uint64_t t = 65537;
  auto context = make_context(2048, {50, 50}, t);
  rlwe::KeyGenerator keygen(context, t);
  const rlwe::PublicKey pk = keygen.create_public_key();
  EXPECT_EQ(pk.error_scale, t);
  EXPECT_EQ(keygen.create_relin_key().key.error_scale, t);
  // b + a s = t e: every coefficient, centered mod q_0, is a small multiple of t.
  ring::RnsPoly e = pk.b + pk.a * keygen.secret_key().q_part();
  e.intt();
  const uint64_t q = e.modulus(0).value();
  bool some_nonzero = false;
  for (uint64_t v : e.tower(0)) {
    const int64_t centered = v > q / 2 ? -static_cast<int64_t>(q - v) : static_cast<int64_t>(v);
    ASSERT_EQ(centered % static_cast<int64_t>(t), 0);
    ASSERT_LE(std::abs(centered / static_cast<int64_t>(t)), 40);
    some_nonzero |= centered != 0;
  }
  EXPECT_TRUE(some_nonzero);
  EXPECT_EQ(rlwe::KeyGenerator(context).create_public_key().error_scale, 1u);
  EXPECT_THROW(rlwe::KeyGenerator(context, 0), InvalidArgument);
}

// The t-aware mod down: with a key of error scale t, switch_key gives
// d0 + d1 s = c s^2 + t * small (the same small integer in every tower).
TEST(BgvKeys, ErrorScaledKeySwitchingKeepsErrorsMultiplesOfT) {
  const uint64_t t = 65537;
  auto context = make_context(2048, {50, 50, 50}, t);
  rlwe::KeyGenerator keygen(context, t);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const ring::RnsPoly& s = keygen.secret_key().q_part();
  std::mt19937_64 rng(5);
  for (std::size_t towers : {std::size_t{3}, std::size_t{2}}) {
    ring::RnsPoly c(context->ciphertext_ring(), towers, ring::Form::ntt);
    for (std::size_t k = 0; k < towers; ++k)
      for (auto& v : c.tower(k))
        v = rng() % c.modulus(k).value();
    auto d = rlwe::switch_key(*context, c, relin.key);
    ring::RnsPoly s2(context->ciphertext_ring(), towers, ring::Form::ntt);
    for (std::size_t k = 0; k < towers; ++k)
      std::copy(s.tower(k).begin(), s.tower(k).end(), s2.tower(k).begin());
    ring::RnsPoly diff = d[0] + d[1] * s2 - c * s2 * s2;
    diff.intt();
    for (std::size_t i = 0; i < 2048; ++i) {
      std::vector<int64_t> centered(towers);
      for (std::size_t k = 0; k < towers; ++k) {
        const uint64_t q = diff.modulus(k).value(), v = diff.tower(k)[i];
        centered[k] = v > q / 2 ? -static_cast<int64_t>(q - v) : static_cast<int64_t>(v);
        ASSERT_EQ(centered[k], centered[0]);
      }
      ASSERT_EQ(centered[0] % static_cast<int64_t>(t), 0);
      ASSERT_LT(std::abs(centered[0]), int64_t{1} << 40);
    }
  }
  // Default keys keep the plain mod down, refused by BGV.
  EXPECT_EQ(rlwe::KeyGenerator(context).create_relin_key().key.error_scale, 1u);
}

TEST(BgvEncryption, PublicAndSecretKeyRoundTrip) {
  const uint64_t n = 2048;
  const uint64_t t = math::generate_batching_prime(20, n).value();
  Fixture f(make_context(n, {60, 50}, t));
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(1);
  const Values x = random_values(rng, n, t);
  const IntegerPlaintext plain = encoder.encode(x);
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(f.encryptor.encrypt(plain))), x);
  const Encryptor secret(f.keygen.secret_key());
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(secret.encrypt(plain))), x);
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(secret.encrypt(plain, 0))), x);
  // Centered inputs give the same message.
  std::vector<int64_t> signed_values(n);
  for (std::size_t i = 0; i < n; ++i)
    signed_values[i] = x[i] > t / 2 ? static_cast<int64_t>(x[i]) - static_cast<int64_t>(t)
                                    : static_cast<int64_t>(x[i]);
  EXPECT_EQ(encoder.decode(
                f.decryptor.decrypt(f.encryptor.encrypt(encoder.encode_signed(signed_values)))),
            x);
}

TEST(BgvEncryption, BadInputIsRefused) {
  const uint64_t n = 2048;
  const uint64_t t = math::generate_batching_prime(20, n).value();
  auto context = make_context(n, {60, 50}, t);
  Fixture f(context);
  IntegerPlaintext bad{Values(n, 0), t};
  bad.coefficients[3] = t;
  EXPECT_THROW((void)f.encryptor.encrypt(bad), InvalidArgument);
  EXPECT_THROW((void)f.encryptor.encrypt({Values(n, 0), t + 2}), MismatchError);
  EXPECT_THROW((void)f.encryptor.encrypt({Values(n - 1, 0), t}), InvalidArgument);
  EXPECT_THROW((void)f.encryptor.encrypt({Values(n, 0), t}, 2), InvalidArgument);
  // Keys with unscaled errors are not BGV keys.
  rlwe::KeyGenerator plain_keygen(context);
  EXPECT_THROW(Encryptor{plain_keygen.create_public_key()}, MismatchError);
  const Ciphertext ct = f.encryptor.encrypt({Values(n, 1), t});
  const Ciphertext square = f.evaluator.multiply(ct, ct);
  EXPECT_THROW((void)f.evaluator.relinearize(square, plain_keygen.create_relin_key()),
               MismatchError);
  // A Galois key (here only its header) passed as a relinearization key.
  rlwe::RelinKey galois_as_relin;
  galois_as_relin.key.context = context;
  galois_as_relin.key.error_scale = t;
  galois_as_relin.key.galois_element = 5;
  EXPECT_THROW((void)f.evaluator.multiply(ct, ct, galois_as_relin), InvalidArgument);
  // A ciphertext of another context.
  Fixture other(make_context(n, {60, 50}, t));
  const Ciphertext foreign = other.encryptor.encrypt({Values(n, 1), t});
  EXPECT_THROW((void)f.decryptor.decrypt(foreign), MismatchError);
  EXPECT_THROW((void)f.evaluator.add(ct, foreign), MismatchError);
  // No t in the parameters.
  EXPECT_THROW((void)make_key_generator(make_context(n, {60, 50}, 0)), InvalidArgument);
  // The noise budget of a foreign ciphertext names itself.
  heft::testing::expect_error<MismatchError>(
      [&] { (void)f.decryptor.invariant_noise_budget(foreign); }, "invariant_noise_budget:");
  // lift_plaintext is public: a level past the top, or coefficients >= t.
  heft::testing::expect_error<InvalidArgument>(
      [&] {
        (void)lift_plaintext(*context, {Values(n, 0), t}, SIZE_MAX);
      },
      "lift: level 18446744073709551615 is above the top level 1");
  heft::testing::expect_error<InvalidArgument>([&] { (void)lift_plaintext(*context, bad, 0); },
                                               "lift_plaintext: plaintext coefficient");
  // An empty secret key is named as such, not as a foreign one.
  heft::testing::expect_error<InvalidArgument>(
      [&] { (void)make_key_generator(context, rlwe::SecretKey{}); }, "the secret key is empty");
}

// With a non-prime t, a hand-set correction factor can lie in [1, t) and still
// have no inverse mod t. It used to decrypt to c * m, save to bytes that load
// refuses, and make add depend on the order of its operands.
TEST(BgvEncryption, CorrectionFactorsWithoutAnInverseAreRefused) {
  const uint64_t n = 1024, t = 1000;
  Fixture f(make_context(n, {60, 50}, t));
  std::mt19937_64 rng(31);
  const Values x = random_values(rng, n, t);
  const Ciphertext good = f.encryptor.encrypt({x, t});
  const rlwe::GaloisKeys galois = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  for (const uint64_t correction : {uint64_t{2}, uint64_t{5}, uint64_t{500}}) {
    Ciphertext bad = good.clone();
    bad.correction = correction;
    const Ciphertext before = bad.clone();
    using heft::testing::expect_error;
    expect_error<InvalidArgument>([&] { (void)f.decryptor.decrypt(bad); },
                                  "decrypt: the ciphertext's correction factor");
    expect_error<InvalidArgument>([&] { (void)save(*f.context, bad); }, "save: the ciphertext's");
    expect_error<InvalidArgument>([&] { (void)f.evaluator.add(good, bad); },
                                  "add: the ciphertext's");
    expect_error<InvalidArgument>([&] { (void)f.evaluator.add(bad, good); },
                                  "add: the ciphertext's");
    expect_error<InvalidArgument>(
        [&] {
          (void)f.evaluator.sub_plain(bad, {x, t});
        },
        "sub_plain: the ciphertext's");
    expect_error<InvalidArgument>([&] { (void)f.evaluator.add_scalar(bad, 1); },
                                  "add_scalar: the ciphertext's");
    expect_error<InvalidArgument>([&] { (void)f.evaluator.multiply(bad, good, f.relin_key); },
                                  "multiply: the ciphertext's");
    expect_error<InvalidArgument>([&] { (void)f.evaluator.rotate_rows(bad, 1, galois); },
                                  "rotate_rows: the ciphertext's");
    EXPECT_TRUE(bad.parts[0] == before.parts[0] && bad.parts[1] == before.parts[1]);
    EXPECT_EQ(bad.correction, before.correction);
  }
  // An invertible factor other than 1 is a valid ciphertext: 3 * m' = m.
  Ciphertext scaled = good.clone();
  scaled.correction = 3;
  Values want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = (3 * x[i]) % t;
  EXPECT_EQ(f.decryptor.decrypt(scaled).coefficients, want);
}

// Rotation by 0 is the identity, but checks what any rotation checks (as in
// BFV); an enum value the enum does not name is refused at construction.
TEST(BgvEvaluator, IdentityRotationAndModeAreChecked) {
  const uint64_t n = 1024, t = 65537;
  Fixture f(make_context(n, {60, 50}, t));
  const Ciphertext ct = f.encryptor.encrypt({Values(n, 1), t});
  const rlwe::GaloisKeys galois = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  using heft::testing::expect_error;
  expect_error<InvalidArgument>(
      [&] { (void)f.evaluator.rotate_rows(f.evaluator.multiply(ct, ct), 0, galois); },
      "rotate_rows: relinearize");
  expect_error<MismatchError>([&] { (void)f.evaluator.rotate_rows(ct, 0, rlwe::GaloisKeys{}); },
                              "rotate_rows: the Galois keys belong to a different context");
  EXPECT_TRUE(f.evaluator.rotate_rows(ct, 0, galois).parts[0] == ct.parts[0]);
  expect_error<InvalidArgument>([&] { Evaluator(f.context, static_cast<ModSwitchMode>(99)); },
                                "unknown ModSwitchMode 99");
}

// Oracle ops on the 2 x N/2 slot matrix.
Values rotate_rows(const Values& x, int64_t step) {
  const std::size_t half = x.size() / 2;
  Values out(x.size());
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t c = 0; c < half; ++c)
      out[r * half + c] = x[r * half + static_cast<std::size_t>(((static_cast<int64_t>(c) + step) %
                                                                     static_cast<int64_t>(half) +
                                                                 static_cast<int64_t>(half)) %
                                                                static_cast<int64_t>(half))];
  return out;
}

Values swap_rows(const Values& x) {
  const std::size_t half = x.size() / 2;
  Values out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = x[(i + half) % x.size()];
  return out;
}

// A random circuit over batched slots, checked after every step, to full depth.
void run_batched_circuit(uint64_t n, const std::vector<int>& bits, uint64_t seed) {
  const uint64_t t = math::generate_batching_prime(20, n).value();
  const math::Modulus tm(t);
  Fixture f(make_context(n, bits, t));
  const schemes::BatchEncoder encoder(n, t);
  const std::vector<int64_t> steps{1, -3, 7};
  const rlwe::GaloisKeys galois = f.keygen.create_galois_keys(steps, true);
  std::mt19937_64 rng(seed);
  auto fresh = [&](Values& oracle) {
    oracle = random_values(rng, n, t);
    return f.encryptor.encrypt(encoder.encode(oracle));
  };
  Values acc_x, other_x;
  Ciphertext acc = fresh(acc_x);
  int last_budget = f.decryptor.invariant_noise_budget(acc);
  const std::size_t depth = f.context->max_level();
  for (std::size_t round = 0; round < depth; ++round) {
    Ciphertext other = fresh(other_x);
    // Linear ops (no level consumed).
    const Values p = random_values(rng, n, t);
    acc = f.evaluator.add_plain(f.evaluator.add(acc, other), encoder.encode(p));
    for (std::size_t i = 0; i < n; ++i)
      acc_x[i] = tm.add(tm.add(acc_x[i], other_x[i]), p[i]);
    // A plaintext product multiplies the noise by about t sqrt(N): done on the
    // fresh operand once acc is below the top level, so that the switch down
    // to acc's level removes that noise.
    if (round > 0) {
      const Values q = random_values(rng, n, t);
      other = f.evaluator.multiply_plain(other, encoder.encode(q));
      for (std::size_t i = 0; i < n; ++i)
        other_x[i] = tm.mul(other_x[i], q[i]);
    }
    acc = f.evaluator.sub(acc, other);
    for (std::size_t i = 0; i < n; ++i)
      acc_x[i] = tm.sub(acc_x[i], other_x[i]);
    const int64_t step = steps[round % steps.size()];
    acc = f.evaluator.rotate_rows(acc, step, galois);
    acc_x = rotate_rows(acc_x, step);
    if (round % 2 == 1) {
      acc = f.evaluator.rotate_columns(acc, galois);
      acc_x = swap_rows(acc_x);
    }
    ASSERT_EQ(encoder.decode(f.decryptor.decrypt(acc)), acc_x) << "round " << round;
    // One multiplicative level: product with a fresh ciphertext (or a square).
    if (round % 2 == 0) {
      acc = f.evaluator.multiply(acc, other, f.relin_key);
      for (std::size_t i = 0; i < n; ++i)
        acc_x[i] = tm.mul(acc_x[i], other_x[i]);
    } else {
      acc = f.evaluator.relinearize(f.evaluator.square(acc), f.relin_key);
      for (std::size_t i = 0; i < n; ++i)
        acc_x[i] = tm.mul(acc_x[i], acc_x[i]);
    }
    acc = f.evaluator.add_scalar(f.evaluator.multiply_scalar(acc, 3), 5);
    for (std::size_t i = 0; i < n; ++i)
      acc_x[i] = tm.add(tm.mul(acc_x[i], 3), 5);
    ASSERT_EQ(acc.level(), depth - round - 1);
    ASSERT_EQ(encoder.decode(f.decryptor.decrypt(acc)), acc_x) << "round " << round;
    const int budget = f.decryptor.invariant_noise_budget(acc);
    EXPECT_GT(budget, 0);
    EXPECT_LT(budget, last_budget);
    last_budget = budget;
  }
  // Depth exhausted: refused in automatic mode, operands unchanged.
  const Ciphertext before = acc.clone();
  EXPECT_THROW((void)f.evaluator.multiply(acc, acc, f.relin_key), InvalidArgument);
  EXPECT_THROW((void)f.evaluator.mod_switch(acc), InvalidArgument);
  EXPECT_TRUE(acc.parts[0] == before.parts[0]);
  EXPECT_EQ(acc.correction, before.correction);
}

TEST(BgvEvaluator, BatchedRandomCircuitN2048) {
  run_batched_circuit(2048, {60, 55, 55}, 11);
}

TEST(BgvEvaluator, BatchedRandomCircuitN4096) {
  run_batched_circuit(4096, {60, 55, 55, 55}, 12);
}

// Negacyclic convolution mod t: the oracle for non-batching t.
Values convolve(const Values& a, const Values& b, uint64_t t) {
  const std::size_t n = a.size();
  std::vector<uint64_t> out(n, 0);
  const uint64_t mask = t - 1;  // t is a power of two
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == 0) continue;
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = (a[i] * b[j]) & mask;
      const std::size_t k = i + j;
      if (k < n) {
        out[k] = (out[k] + p) & mask;
      } else {
        out[k - n] = (out[k - n] - p) & mask;
      }
    }
  }
  return out;
}

TEST(BgvEvaluator, PowerOfTwoModulusCoefficientCircuit) {
  const uint64_t n = 2048, t = 1u << 16;
  Fixture f(make_context(n, {60, 55, 55}, t));
  std::mt19937_64 rng(21);
  const rlwe::GaloisKeys galois = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  Values x = random_values(rng, n, t);
  Ciphertext acc = f.encryptor.encrypt({x, t});
  for (std::size_t round = 0; round < f.context->max_level(); ++round) {
    const Values y = random_values(rng, n, t);
    const Ciphertext other = Encryptor(f.keygen.secret_key()).encrypt({y, t});
    acc = f.evaluator.multiply(f.evaluator.add(acc, other), other, f.relin_key);
    Values sum(n);
    for (std::size_t i = 0; i < n; ++i)
      sum[i] = (x[i] + y[i]) % t;
    x = convolve(sum, y, t);
    const Values p = random_values(rng, n, t);
    acc = f.evaluator.sub_plain(acc, {p, t});
    for (std::size_t i = 0; i < n; ++i)
      x[i] = (x[i] - p[i]) % t;
    ASSERT_EQ(f.decryptor.decrypt(acc).coefficients, x) << "round " << round;
    // X -> X^g on the coefficients (X^N = -1).
    acc = f.evaluator.rotate_rows(acc, 1, galois);
    const uint64_t g = f.context->galois_element_for_step(1);
    Values permuted(n);
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t k = (i * g) % (2 * n);
      if (k < n) {
        permuted[k] = x[i];
      } else {
        permuted[k - n] = (t - x[i]) % t;
      }
    }
    x = permuted;
    ASSERT_EQ(f.decryptor.decrypt(acc).coefficients, x) << "round " << round;
  }
}

TEST(BgvEvaluator, ProductPastTheDepthIsRefused) {
  const uint64_t n = 2048;
  const uint64_t t = math::generate_batching_prime(20, n).value();
  const math::Modulus tm(t);
  // q_0 of 45 bits holds a switched-down ciphertext but not its square.
  Fixture f(make_context(n, {45, 55, 55}, t), ModSwitchMode::manual);
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(31);
  Values x = random_values(rng, n, t);
  Ciphertext ct = f.encryptor.encrypt(encoder.encode(x));
  int budget = f.decryptor.invariant_noise_budget(ct);
  EXPECT_GT(budget, 60);
  // Manual mode: square, relinearize, switch down, while primes remain.
  while (ct.level() > 0) {
    ct = f.evaluator.mod_switch(f.evaluator.relinearize(f.evaluator.square(ct), f.relin_key));
    for (auto& v : x)
      v = tm.mul(v, v);
    const int next = f.decryptor.invariant_noise_budget(ct);
    EXPECT_GT(next, 0);
    EXPECT_LT(next, budget);
    budget = next;
    ASSERT_EQ(encoder.decode(f.decryptor.decrypt(ct)), x);
  }
  // One product more than q_0 holds: it used to give budget 0 and a wrong
  // result; the noise estimate refuses it, naming the operation.
  const Ciphertext before = ct.clone();
  heft::testing::expect_error<NoiseBudgetError>([&] { (void)f.evaluator.square(ct); },
                                                "square: the product's estimated noise");
  EXPECT_TRUE(ct.parts[0] == before.parts[0] && ct.parts[1] == before.parts[1]);
}

TEST(BgvEvaluator, LevelsAndCorrectionFactorsAreReconciled) {
  const uint64_t n = 2048;
  const uint64_t t = math::generate_batching_prime(20, n).value();
  const math::Modulus tm(t);
  auto context = make_context(n, {60, 55, 55}, t);
  Fixture f(context);
  const Evaluator manual(context, ModSwitchMode::manual);
  const schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(41);
  const Values x = random_values(rng, n, t), y = random_values(rng, n, t);
  const Ciphertext a = f.encryptor.encrypt(encoder.encode(x));
  const Ciphertext b = f.encryptor.encrypt(encoder.encode(y));
  const Ciphertext low = f.evaluator.mod_switch_to(b, 0);
  EXPECT_NE(low.correction, 1u);  // the switches scaled the plaintext
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(low)), y);
  Values expected(n);
  for (std::size_t i = 0; i < n; ++i)
    expected[i] = tm.add(x[i], y[i]);
  const Ciphertext sum = f.evaluator.add(a, low);
  EXPECT_EQ(sum.level(), 0u);
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(sum)), expected);
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(f.evaluator.add(low, a))), expected);
  // Same level, different correction factors.
  const Ciphertext a_low = manual.mod_switch_to(f.evaluator.multiply_scalar(a, 1), 1);
  const Ciphertext prod = manual.mod_switch(
      manual.relinearize(manual.multiply(a_low, manual.mod_switch(b)), f.relin_key));
  Values x_times_y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x_times_y[i] = tm.mul(x[i], y[i]);
    expected[i] = tm.sub(x_times_y[i], y[i]);
  }
  // Automatic mode multiplies operands at different levels in either order
  // (the higher one is switched down on a copy), with and without the key.
  const Ciphertext b1 = f.evaluator.mod_switch_to(b, 1);
  const Ciphertext a_before = a.clone();
  for (const Ciphertext& product :
       {f.evaluator.multiply(a, b1, f.relin_key), f.evaluator.multiply(b1, a, f.relin_key),
        f.evaluator.relinearize(f.evaluator.multiply(a, b1), f.relin_key),
        f.evaluator.relinearize(f.evaluator.multiply(b1, a), f.relin_key)}) {
    EXPECT_EQ(product.level(), 0u);
    EXPECT_EQ(encoder.decode(f.decryptor.decrypt(product)), x_times_y);
  }
  EXPECT_TRUE(a.parts[0] == a_before.parts[0] && a.parts[1] == a_before.parts[1]);
  const Ciphertext b0 = manual.mod_switch_to(b, 0);
  EXPECT_NE(prod.correction, b0.correction);
  EXPECT_EQ(encoder.decode(f.decryptor.decrypt(manual.sub(prod, b0))), expected);
  // Manual mode refuses different levels; operands unchanged.
  const Ciphertext a_copy = a.clone();
  EXPECT_THROW((void)manual.add(a, low), MismatchError);
  EXPECT_THROW((void)manual.multiply(a, low), MismatchError);
  EXPECT_TRUE(a.parts[0] == a_copy.parts[0]);
  EXPECT_THROW((void)f.evaluator.mod_switch_to(low, 1), InvalidArgument);
  EXPECT_THROW((void)f.evaluator.add_scalar(a, t), InvalidArgument);
  const rlwe::GaloisKeys step_two = f.keygen.create_galois_keys(std::vector<int64_t>{2});
  // No key composes 5: the message names the operation and the step to
  // generate a key for.
  heft::testing::expect_error<InvalidArgument>(
      [&] { (void)f.evaluator.rotate_rows(a, 5, step_two); },
      "rotate_rows: no Galois key for step 5");
}

}  // namespace
}  // namespace heft::bgv
