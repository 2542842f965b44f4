// BFV end to end against exact integer arithmetic mod t computed here:
// encryption round trips (public and secret key, every level), random circuits
// of additions, products with relinearization, rotations and plaintext
// operations with a batching t (slot-wise oracle) and with t = 1000 and 256
// (coefficient encoder, products as negacyclic convolutions mod t), the noise
// budget through the whole depth until decryption fails, modulus switching,
// and bad input (typed exceptions, operands unchanged).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::bfv {
namespace {

using U = std::vector<uint64_t>;

rlwe::Parameters make_params(uint64_t n, const std::vector<int>& bits,
                             const std::vector<int>& special, uint64_t t,
                             rlwe::SecurityLevel level) {
  rlwe::Parameters p = rlwe::make_parameters(n, bits, special, 0, level);
  p.plain_modulus = t;
  return p;
}

struct Fixture {
  explicit Fixture(const rlwe::Parameters& params)
      : context(rlwe::Context::create(params)),
        keygen(context),
        relin(context->supports_key_switching() ? keygen.create_relin_key() : rlwe::RelinKey{}),
        encryptor(keygen.create_public_key()),
        sk_encryptor(keygen.secret_key()),
        decryptor(keygen.secret_key()),
        eval(context) {}

  uint64_t t() const { return context->parameters().plain_modulus; }
  std::size_t n() const { return context->degree(); }

  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  rlwe::RelinKey relin;
  Encryptor encryptor;
  Encryptor sk_encryptor;
  Decryptor decryptor;
  Evaluator eval;
};

U random_values(std::size_t n, uint64_t t, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> dist(0, t - 1);
  U v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

uint64_t mulmod(uint64_t a, uint64_t b, uint64_t t) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % t);
}

// Slot-wise oracles.
U slot_add(const U& a, const U& b, uint64_t t) {
  U r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    r[i] = (a[i] + b[i]) % t;
  return r;
}
U slot_sub(const U& a, const U& b, uint64_t t) {
  U r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    r[i] = (a[i] + t - b[i]) % t;
  return r;
}
U slot_mul(const U& a, const U& b, uint64_t t) {
  U r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    r[i] = mulmod(a[i], b[i], t);
  return r;
}
// Row rotation of the 2 x N/2 matrix: new[r][c] = old[r][(c + step) mod N/2].
U rotate_rows(const U& a, int64_t step) {
  const int64_t half = static_cast<int64_t>(a.size() / 2);
  U r(a.size());
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t c = 0; c < half; ++c)
      r[row * half + c] = a[row * half + (((c + step) % half) + half) % half];
  return r;
}
U swap_rows(const U& a) {
  const std::size_t half = a.size() / 2;
  U r(a.size());
  for (std::size_t c = 0; c < half; ++c) {
    r[c] = a[half + c];
    r[half + c] = a[c];
  }
  return r;
}
// Negacyclic product in Z_t[X]/(X^N + 1), naive.
U negacyclic(const U& a, const U& b, uint64_t t) {
  const std::size_t n = a.size();
  U r(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == 0) continue;
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = mulmod(a[i], b[j], t);
      const std::size_t k = i + j;
      if (k < n) {
        r[k] = (r[k] + p) % t;
      } else {
        r[k - n] = (r[k - n] + t - p) % t;
      }
    }
  }
  return r;
}

IntegerPlaintext coeff_plain(const U& v, uint64_t t) {
  return IntegerPlaintext{v, t};
}

TEST(Bfv, RoundTripEveryLevelAndKeyKind) {
  // Level 0 is 36 bits: room for t up to 14 bits (Q must exceed about t^2 N).
  for (uint64_t t : {uint64_t{1000}, uint64_t{256}, uint64_t{12289}}) {
    Fixture f(make_params(2048, {36, 18}, {}, t, rlwe::SecurityLevel::classic128));
    std::mt19937_64 rng(t);
    for (std::size_t level = 0; level <= f.context->max_level(); ++level) {
      const U m = random_values(f.n(), t, rng);
      EXPECT_EQ(f.decryptor.decrypt(f.encryptor.encrypt(coeff_plain(m, t), level)).coefficients, m);
      const Ciphertext ct = f.sk_encryptor.encrypt(coeff_plain(m, t), level);
      EXPECT_EQ(ct.level(), level);
      EXPECT_EQ(f.decryptor.decrypt(ct).coefficients, m);
      EXPECT_GT(f.decryptor.invariant_noise_budget(ct), 0);
    }
  }
}

// A random circuit on batched slots: every step is checked against the oracle.
void run_batched_circuit(uint64_t n, const std::vector<int>& bits, const std::vector<int>& special,
                         int t_bits, int multiplications, bool plain_products,
                         rlwe::SecurityLevel security) {
  const uint64_t t = math::generate_batching_prime(t_bits, n).value();
  Fixture f(make_params(n, bits, special, t, security));
  schemes::BatchEncoder encoder(n, t);
  const std::vector<int64_t> steps{1, -3, 7};
  const rlwe::GaloisKeys galois = f.keygen.create_galois_keys(steps, true);
  std::mt19937_64 rng(n + t);

  U x = random_values(n, t, rng), y = random_values(n, t, rng);
  Ciphertext cx = f.encryptor.encrypt(encoder.encode(x));
  Ciphertext cy = f.sk_encryptor.encrypt(encoder.encode(y));
  const auto expect = [&](const Ciphertext& ct, const U& want, const char* what) {
    EXPECT_EQ(encoder.decode(f.decryptor.decrypt(ct)), want) << what << " N=" << n << " t=" << t;
    EXPECT_GT(f.decryptor.invariant_noise_budget(ct), 0) << what;
  };
  expect(cx, x, "fresh");

  cx = f.eval.add(cx, cy), x = slot_add(x, y, t);
  expect(cx, x, "add");
  cx = f.eval.sub(cx, f.eval.negate(cy)), x = slot_add(x, y, t);
  expect(cx, x, "sub negate");
  const U p = random_values(n, t, rng);
  cx = f.eval.add_plain(cx, encoder.encode(p)), x = slot_add(x, p, t);
  expect(cx, x, "add_plain");
  cx = f.eval.sub_plain(cx, encoder.encode(y)), x = slot_sub(x, y, t);
  expect(cx, x, "sub_plain");
  const uint64_t c = t - 5;
  cx = f.eval.add_scalar(cx, c), x = slot_add(x, U(n, c), t);
  expect(cx, x, "add_scalar");
  cx = f.eval.multiply_scalar(cx, 3), x = slot_mul(x, U(n, 3), t);
  expect(cx, x, "multiply_scalar");
  for (int64_t s : steps) {
    cx = f.eval.rotate_rows(cx, s, galois), x = rotate_rows(x, s);
    expect(cx, x, "rotate_rows");
  }
  cx = f.eval.rotate_columns(cx, galois), x = swap_rows(x);
  expect(cx, x, "rotate_columns");

  for (int i = 0; i < multiplications; ++i) {
    if (i % 2 == 0) {
      cx = f.eval.multiply(cx, cy, f.relin), x = slot_mul(x, y, t);
      expect(cx, x, "multiply+relin");
    } else {
      const Ciphertext tensor = f.eval.square(cx);
      EXPECT_EQ(tensor.size(), 3u);
      EXPECT_EQ(encoder.decode(f.decryptor.decrypt(tensor)), slot_mul(x, x, t)) << "3-part";
      // square(cx, key) hands the third part to key switching in coefficient
      // form; the digits, and so the result, are the same bits.
      const Ciphertext fused = f.eval.square(cx, f.relin);
      cx = f.eval.relinearize(tensor, f.relin), x = slot_mul(x, x, t);
      EXPECT_TRUE(fused.parts[0] == cx.parts[0] && fused.parts[1] == cx.parts[1]);
      expect(cx, x, "square+relin");
    }
    if (plain_products) {
      const U q = random_values(n, t, rng);
      cx = f.eval.multiply_plain(cx, encoder.encode(q)), x = slot_mul(x, q, t);
      expect(cx, x, "multiply_plain");
    }
    cx = f.eval.rotate_rows(cx, 1, galois), x = rotate_rows(x, 1);
    expect(cx, x, "rotate after multiply");
  }
}

// The HE Standard allows only 54 bits at N = 2048 and 109 at 4096, which is
// one product with t ~ 2^16 and no room for more: the deep circuits are
// test-only parameter sets (SecurityLevel::none), the 128-bit one is shallow.
TEST(Bfv, BatchedCircuitN2048) {
  run_batched_circuit(2048, {50, 50, 50}, {50}, 16, 2, true, rlwe::SecurityLevel::none);
}
TEST(Bfv, BatchedCircuitN4096) {
  run_batched_circuit(4096, {60, 60, 60, 60}, {60}, 17, 4, true, rlwe::SecurityLevel::none);
}
// SEAL's 55-bit primes (its N = 32768 set, at a smaller N): with AVX-512 the
// multiplication's auxiliary base is then 50-bit primes, converted to and
// from with floating-point quotients; without it, 59-bit primes.
TEST(Bfv, BatchedCircuitN2048FiftyFiveBitPrimes) {
  run_batched_circuit(2048, {55, 55, 55, 55}, {55}, 17, 3, true, rlwe::SecurityLevel::none);
}
TEST(Bfv, BatchedCircuitN4096Secure128) {
  run_batched_circuit(4096, {36, 36}, {37}, 16, 1, false, rlwe::SecurityLevel::classic128);
}

// Non-batching t: coefficient encoder, products are negacyclic convolutions.
TEST(Bfv, CoefficientCircuitNonBatchingT) {
  for (uint64_t t : {uint64_t{1000}, uint64_t{256}}) {
    Fixture f(make_params(4096, {36, 36}, {37}, t, rlwe::SecurityLevel::classic128));
    EXPECT_THROW(schemes::BatchEncoder(4096, t), InvalidArgument);
    std::mt19937_64 rng(t);
    U x = random_values(f.n(), t, rng), y = random_values(f.n(), t, rng);
    Ciphertext cx = f.encryptor.encrypt(coeff_plain(x, t));
    const Ciphertext cy = f.encryptor.encrypt(coeff_plain(y, t));
    const auto expect = [&](const Ciphertext& ct, const U& want, const char* what) {
      EXPECT_EQ(f.decryptor.decrypt(ct).coefficients, want) << what << " t=" << t;
    };
    cx = f.eval.add(cx, cy), x = slot_add(x, y, t);
    expect(cx, x, "add");
    cx = f.eval.multiply(cx, cy, f.relin), x = negacyclic(x, y, t);
    expect(cx, x, "multiply");
    // A sparse plaintext keeps the oracle fast; the product is still a full convolution.
    U sparse(f.n(), 0);
    sparse[0] = 7, sparse[5] = t - 1, sparse[f.n() - 1] = 3;
    cx = f.eval.multiply_plain(cx, coeff_plain(sparse, t)), x = negacyclic(sparse, x, t);
    expect(cx, x, "multiply_plain");
    cx = f.eval.mod_switch_to_next(cx);
    EXPECT_EQ(cx.level(), 0u);
    expect(cx, x, "mod_switch");
    EXPECT_GT(f.decryptor.invariant_noise_budget(cx), 0);
  }
}

// Squares until the budget is gone: it decreases at every step and stays
// positive while decryption is right; one step past 0 decryption is wrong.
TEST(Bfv, NoiseBudgetThroughDepth) {
  const uint64_t n = 4096;
  const uint64_t t = math::generate_batching_prime(17, n).value();
  Fixture f(make_params(n, {60, 60, 60, 60}, {60}, t, rlwe::SecurityLevel::none));
  schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(42);
  U x = random_values(n, t, rng);
  Ciphertext ct = f.encryptor.encrypt(encoder.encode(x));
  int budget = f.decryptor.invariant_noise_budget(ct);
  EXPECT_GT(budget, 150);
  int depth = 0;
  while (budget > 0 && depth < 20) {
    ct = f.eval.square(ct, f.relin), x = slot_mul(x, x, t);
    const int next = f.decryptor.invariant_noise_budget(ct);
    std::printf("depth %d: budget %d\n", depth + 1, next);
    EXPECT_LT(next, budget);
    budget = next;
    ++depth;
    if (budget > 0) EXPECT_EQ(encoder.decode(f.decryptor.decrypt(ct)), x) << "depth " << depth;
  }
  EXPECT_EQ(budget, 0);
  EXPECT_GE(depth, 5);  // 240 bits of Q, about 35 bits per squaring
  ct = f.eval.square(ct, f.relin), x = slot_mul(x, x, t);
  EXPECT_EQ(f.decryptor.invariant_noise_budget(ct), 0);
  EXPECT_NE(encoder.decode(f.decryptor.decrypt(ct)), x);
}

// Modulus switching keeps the message; the budget becomes about min(budget, F)
// (evaluator.hpp; test_evaluator_mod_switch_budget.cpp checks it).
TEST(Bfv, ModSwitchDownTheChain) {
  const uint64_t n = 4096;
  const uint64_t t = math::generate_batching_prime(17, n).value();
  Fixture f(make_params(n, {60, 50, 50, 50}, {60}, t, rlwe::SecurityLevel::none));
  schemes::BatchEncoder encoder(n, t);
  std::mt19937_64 rng(7);
  U x = random_values(n, t, rng), y = random_values(n, t, rng);
  Ciphertext cx = f.encryptor.encrypt(encoder.encode(x));
  Ciphertext cy = f.encryptor.encrypt(encoder.encode(y));
  cx = f.eval.multiply(cx, cy, f.relin), x = slot_mul(x, y, t);
  while (cx.level() > 0) {
    const int before = f.decryptor.invariant_noise_budget(cx);
    cx = f.eval.mod_switch_to_next(cx);
    cy = f.eval.mod_switch_to_next(cy);
    EXPECT_GE(f.decryptor.invariant_noise_budget(cx), before - 52);
    EXPECT_EQ(encoder.decode(f.decryptor.decrypt(cx)), x) << "level " << cx.level();
    // Products still work at the lower level.
    const Ciphertext prod = f.eval.multiply(cx, cy, f.relin);
    EXPECT_GT(f.decryptor.invariant_noise_budget(prod), 0) << "level " << cx.level();
    EXPECT_EQ(encoder.decode(f.decryptor.decrypt(prod)), slot_mul(x, y, t));
    std::printf("level %zu: budget %d, product budget %d\n", cx.level(),
                f.decryptor.invariant_noise_budget(cx), f.decryptor.invariant_noise_budget(prod));
  }
  EXPECT_THROW((void)f.eval.mod_switch_to_next(cx), InvalidArgument);
}

TEST(Bfv, BadInputIsRefusedAndOperandsUnchanged) {
  const uint64_t t = math::generate_batching_prime(14, 2048).value();
  // A small set that never key-switches for a result, insecure on purpose:
  // at N = 2048 a 128-bit set has room for 54 bits, too few for a special
  // prime as large as the digit (rlwe/key_switching_noise.hpp refuses less).
  Fixture f(make_params(2048, {36}, {36}, t, rlwe::SecurityLevel::none));
  Fixture g(make_params(2048, {36}, {36}, t, rlwe::SecurityLevel::none));
  std::mt19937_64 rng(1);
  const U m = random_values(f.n(), t, rng);
  const Ciphertext a = f.encryptor.encrypt(coeff_plain(m, t));
  const Ciphertext a_copy = a.clone();
  const Ciphertext other = g.encryptor.encrypt(coeff_plain(m, t));

  // Plaintexts of another t, of the wrong size, or out of range.
  EXPECT_THROW((void)f.encryptor.encrypt(coeff_plain(m, t + 2)), MismatchError);
  EXPECT_THROW((void)f.encryptor.encrypt(coeff_plain(U(10, 0), t)), MismatchError);
  U big = m;
  big[3] = t;
  EXPECT_THROW((void)f.encryptor.encrypt(coeff_plain(big, t)), InvalidArgument);
  EXPECT_THROW((void)f.encryptor.encrypt(coeff_plain(m, t), 5), InvalidArgument);
  EXPECT_THROW((void)f.eval.add_plain(a, coeff_plain(big, t)), InvalidArgument);
  EXPECT_THROW((void)f.eval.multiply_plain(a, coeff_plain(m, 1000)), MismatchError);
  EXPECT_THROW((void)f.eval.add_scalar(a, t), InvalidArgument);
  EXPECT_THROW((void)f.eval.multiply_scalar(a, t + 1), InvalidArgument);

  // Mismatched contexts and keys.
  EXPECT_THROW((void)f.eval.add(a, other), MismatchError);
  EXPECT_THROW((void)f.eval.multiply(a, other), MismatchError);
  EXPECT_THROW((void)f.eval.multiply(a, a, g.relin), MismatchError);
  EXPECT_THROW((void)f.decryptor.decrypt(other), MismatchError);
  const std::vector<int64_t> one{1};
  const rlwe::GaloisKeys g_keys = g.keygen.create_galois_keys(one);
  EXPECT_THROW((void)f.eval.rotate_rows(a, 1, g_keys), MismatchError);
  const rlwe::GaloisKeys f_keys = f.keygen.create_galois_keys(std::vector<int64_t>{2});
  // No key for 3, nor keys that compose it: the message names the operation
  // and the step to generate a key for.
  heft::testing::expect_error<InvalidArgument>([&] { (void)f.eval.rotate_rows(a, 3, f_keys); },
                                               "rotate_rows: no Galois key for step 3");
  EXPECT_THROW((void)f.eval.rotate_columns(a, f_keys), InvalidArgument);

  // Wrong shapes and exhausted levels.
  const Ciphertext tensor = f.eval.square(a);
  EXPECT_THROW((void)f.eval.multiply(tensor, a), InvalidArgument);
  EXPECT_THROW((void)f.eval.square(tensor), InvalidArgument);
  EXPECT_THROW((void)f.eval.square(tensor, f.relin), InvalidArgument);
  EXPECT_THROW((void)f.eval.rotate_rows(tensor, 1, f_keys), InvalidArgument);
  EXPECT_THROW((void)f.eval.relinearize(a, f.relin), InvalidArgument);
  EXPECT_THROW((void)f.eval.mod_switch_to_next(a), InvalidArgument);
  EXPECT_THROW((void)f.eval.add(a, Ciphertext{}), MismatchError);

  // CKKS-style parameters (no t) are refused.
  rlwe::Parameters ckks = rlwe::make_parameters(2048, {27}, {27});
  auto ckks_context = rlwe::Context::create(ckks);
  EXPECT_THROW(Evaluator{ckks_context}, InvalidArgument);
  rlwe::KeyGenerator ckks_keys(ckks_context);
  EXPECT_THROW(Decryptor{ckks_keys.secret_key()}, InvalidArgument);

  ASSERT_EQ(a.size(), a_copy.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(a.parts[i] == a_copy.parts[i]);
  EXPECT_EQ(f.decryptor.decrypt(a).coefficients, m);
}

}  // namespace
}  // namespace heft::bfv
