// BfvBgvBootstrapper on the small-encaps chain (N = 2^12, insecure): BFV
// and BGV ciphertexts of coefficient-encoded integers refreshed and passed
// through random tables, every one of the N coefficients checked exactly
// against the table applied to the plaintext (and, after a product, against
// the negacyclic convolution mod t computed in integers); the outputs used
// again; the typed errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "heft/circuits/bfv_bgv_bootstrapper.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using Values = std::vector<uint64_t>;

struct Fixture {
  explicit Fixture(uint64_t t)
      : preset(functional_bootstrap_preset("small-encaps", t)),
        ckks(rlwe::Context::create(preset.parameters)),
        integer(
            rlwe::Context::create(BfvBgvBootstrapper::integer_parameters(preset.parameters, t))),
        bootstrapper(ckks, integer, preset.bootstrap),
        keygen(integer),
        keys(bootstrapper.create_keys(keygen.secret_key())) {}
  BootstrapPreset preset;
  std::shared_ptr<const rlwe::Context> ckks, integer;
  BfvBgvBootstrapper bootstrapper;
  rlwe::KeyGenerator keygen;
  BootstrapKeys keys;
};

Values random_values(std::size_t n, uint64_t t, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Values v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = i < t ? i : rng() % t;  // every residue at least once
  return v;
}

Values applied(const Values& table, const Values& m) {
  Values out(m.size());
  for (std::size_t i = 0; i < m.size(); ++i)
    out[i] = table[m[i]];
  return out;
}

// a * b in Z_t[X] / (X^N + 1), in integers.
Values negacyclic_product(const Values& a, const Values& b, uint64_t t) {
  const std::size_t n = a.size();
  Values out(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t product = a[i] * b[j] % t;
      const std::size_t k = (i + j) % n;
      out[k] = (i + j < n) ? (out[k] + product) % t : (out[k] + t - product) % t;
    }
  return out;
}

TEST(CircuitsBfvBgvBootstrapper, BfvRefreshAfterAProductIsExact) {
  const uint64_t t = 16;
  Fixture f(t);
  const std::size_t n = f.integer->degree();
  const bfv::Encryptor encryptor(f.keygen.secret_key());
  const bfv::Decryptor decryptor(f.keygen.secret_key());
  const bfv::Evaluator evaluator(f.integer);
  const rlwe::RelinKey relin = f.keygen.create_relin_key();
  const Values a = random_values(n, t, 1), b = random_values(n, t, 2);
  const auto product =
      evaluator.multiply(encryptor.encrypt({a, t}), encryptor.encrypt({b, t}), relin);
  const Values expected = negacyclic_product(a, b, t);
  ASSERT_EQ(decryptor.decrypt(product).coefficients, expected);
  const int budget_before = decryptor.invariant_noise_budget(product);

  const auto fresh = f.bootstrapper.refresh_bfv(product, f.keys);
  EXPECT_EQ(fresh.level(), f.bootstrapper.output_level());
  EXPECT_EQ(decryptor.decrypt(fresh).coefficients, expected);
  const int budget_after = decryptor.invariant_noise_budget(fresh);
  std::printf("t = %llu: budget %d bits before (level %zu), %d after (level %zu)\n",
              static_cast<unsigned long long>(t), budget_before, product.level(), budget_after,
              fresh.level());
  EXPECT_GE(budget_after, 10);

  // Ready for more: a sum and a plaintext-scalar product of refreshed ones.
  const auto twice = evaluator.multiply_scalar(evaluator.add(fresh, fresh), 3);
  Values six(n);
  for (std::size_t i = 0; i < n; ++i)
    six[i] = expected[i] * 6 % t;
  EXPECT_EQ(decryptor.decrypt(twice).coefficients, six);
  // And a product of two refreshed ones: the loop of integer arithmetic
  // with a refresh after each product.
  const auto square = evaluator.multiply(fresh, fresh, relin);
  std::printf("after a product of refreshed ones: budget %d bits\n",
              decryptor.invariant_noise_budget(square));
  EXPECT_EQ(decryptor.decrypt(square).coefficients, negacyclic_product(expected, expected, t));
  EXPECT_EQ(decryptor.decrypt(f.bootstrapper.refresh_bfv(square, f.keys)).coefficients,
            negacyclic_product(expected, expected, t));
}

TEST(CircuitsBfvBgvBootstrapper, RandomTablesAreExactForPowersOfTwoAndPrimes) {
  for (const uint64_t t : {17u, 64u}) {
    SCOPED_TRACE(t);
    Fixture f(t);
    const std::size_t n = f.integer->degree();
    const bfv::Encryptor encryptor(f.keygen.secret_key());
    const bfv::Decryptor decryptor(f.keygen.secret_key());
    const Values m = random_values(n, t, 10 + t);
    const Values table = random_values(t, t, 20 + t);
    const Values other = random_values(t, t, 30 + t);
    const auto x = encryptor.encrypt({m, t});
    const auto out = f.bootstrapper.evaluate_bfv(x, {table, other}, f.keys);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(decryptor.decrypt(out[0]).coefficients, applied(table, m));
    EXPECT_EQ(decryptor.decrypt(out[1]).coefficients, applied(other, m));
    std::printf("t = %llu: table depth %zu, output level %zu, budget %d bits\n",
                static_cast<unsigned long long>(t), f.bootstrapper.table_depth(),
                f.bootstrapper.output_level(), decryptor.invariant_noise_budget(out[0]));
  }
}

TEST(CircuitsBfvBgvBootstrapper, BgvThroughTheConversionIsExact) {
  const uint64_t t = 17;
  Fixture f(t);
  const std::size_t n = f.integer->degree();
  const rlwe::KeyGenerator bgv_keys = bgv::make_key_generator(f.integer, f.keygen.secret_key());
  const bgv::Encryptor encryptor(bgv_keys.create_public_key());
  const bgv::Decryptor decryptor(bgv_keys.secret_key());
  const bgv::Evaluator evaluator(f.integer, bgv::ModSwitchMode::manual);
  const rlwe::RelinKey relin = bgv_keys.create_relin_key();
  const Values a = random_values(n, t, 3), b = random_values(n, t, 4);
  // A product, switched down a level: a correction factor other than 1.
  const auto product = evaluator.mod_switch(
      evaluator.multiply(encryptor.encrypt({a, t}), encryptor.encrypt({b, t}), relin));
  const Values expected = negacyclic_product(a, b, t);
  ASSERT_EQ(decryptor.decrypt(product).coefficients, expected);
  ASSERT_NE(product.correction, 1u);

  const Values table = random_values(t, t, 5);
  const auto out = f.bootstrapper.evaluate_bgv(product, table, f.keys);
  EXPECT_EQ(out.level(), f.bootstrapper.output_level());
  EXPECT_EQ(decryptor.decrypt(out).coefficients, applied(table, expected));
  // The noise estimate lets BGV go on: a sum and a scalar product.
  const auto more = evaluator.multiply_scalar(evaluator.add(out, out), 5);
  Values ten(n);
  for (std::size_t i = 0; i < n; ++i)
    ten[i] = table[expected[i]] * 10 % t;
  EXPECT_EQ(decryptor.decrypt(more).coefficients, ten);
  EXPECT_EQ(decryptor.decrypt(f.bootstrapper.refresh_bgv(product, f.keys)).coefficients, expected);
}

TEST(CircuitsBfvBgvBootstrapper, BadInputIsRefusedAndLeftAlone) {
  const uint64_t t = 4;
  Fixture f(t);
  const std::size_t n = f.integer->degree();
  const bfv::Encryptor encryptor(f.keygen.secret_key());
  const Values m = random_values(n, t, 7);
  const auto x = encryptor.encrypt({m, t});
  const auto copy = x.clone();
  EXPECT_THROW((void)f.bootstrapper.evaluate_bfv(x, Values{0, 1, 2}, f.keys), InvalidArgument);
  EXPECT_THROW((void)f.bootstrapper.evaluate_bfv(x, Values{0, 1, 2, 4}, f.keys), InvalidArgument);
  const bfv::Evaluator evaluator(f.integer);
  const auto three_parts = evaluator.multiply(x, x);
  EXPECT_THROW((void)f.bootstrapper.refresh_bfv(three_parts, f.keys), MismatchError);
  EXPECT_EQ(x.parts[0], copy.parts[0]);
  EXPECT_EQ(x.parts[1], copy.parts[1]);
  // A ciphertext of the CKKS context is not an integer one.
  rlwe::Ciphertext ckks_ct;
  ckks_ct.parts.emplace_back(f.ckks->ciphertext_ring(), 1);
  ckks_ct.parts.emplace_back(f.ckks->ciphertext_ring(), 1);
  EXPECT_THROW((void)f.bootstrapper.refresh_bfv(ckks_ct, f.keys), MismatchError);

  // Contexts that are not one chain, and t out of range.
  rlwe::Parameters other = f.preset.parameters;
  other.plain_modulus = t;
  other.scale = 0;
  other.ciphertext_moduli.pop_back();
  EXPECT_THROW(BfvBgvBootstrapper(f.ckks, rlwe::Context::create(other), f.preset.bootstrap),
               MismatchError);
  EXPECT_THROW(BfvBgvBootstrapper(f.ckks,
                                  rlwe::Context::create(BfvBgvBootstrapper::integer_parameters(
                                      f.preset.parameters, 8192)),
                                  f.preset.bootstrap),
               InvalidArgument);
  BootstrapParameters fewer = f.preset.bootstrap;
  fewer.slots = n / 4;
  EXPECT_THROW(BfvBgvBootstrapper(f.ckks, f.integer, fewer), InvalidArgument);
  EXPECT_THROW((void)f.bootstrapper.create_keys(rlwe::KeyGenerator(f.ckks).secret_key()),
               MismatchError);
}

}  // namespace
}  // namespace heft::circuits
