// Key switching (rlwe/key_switching.cpp): the identity d0 + d1 s = c s' +
// small for every dnum from 1 to L, checked by computing both sides and
// bounding the centered difference; the fused stages against the two they
// replace, bit for bit; Galois key switching on one decomposition for many
// elements, and several keys' inner products taken together; malformed keys
// and inputs refused by name.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

// A uniformly random polynomial of the context's ciphertext ring over its
// first `towers` primes, in NTT form (a ciphertext part to key-switch).
ring::RnsPoly uniform_ntt_poly(ring::Prng& prng, const Context& context, std::size_t towers) {
  ring::RnsPoly x(context.ciphertext_ring(), towers, ring::Form::ntt);
  ring::sample_uniform(prng, x);
  return x;
}

// Centered residue of x mod q as a double.
double centered(uint64_t x, uint64_t q) {
  return x > q / 2 ? -static_cast<double>(q - x) : static_cast<double>(x);
}

// The largest centered coefficient of x (NTT form), over all its towers.
double largest_centered(ring::RnsPoly x) {
  x.intt();
  double worst = 0;
  for (std::size_t t = 0; t < x.tower_count(); ++t) {
    const uint64_t q = x.modulus(t).value();
    for (uint64_t v : x.tower(t))
      worst = std::max(worst, std::abs(centered(v, q)));
  }
  return worst;
}

// Max |d0 + d1 s - c s'| over all coefficients and towers (coefficient form).
double switch_error(const Context& context, const SecretKey& sk, const ring::RnsPoly& c,
                    const ring::RnsPoly& s_prime, const std::array<ring::RnsPoly, 2>& d) {
  const std::size_t towers = c.tower_count();
  ring::RnsPoly s = sk.q_part().clone();
  s.drop_last_towers(s.tower_count() - towers);
  ring::RnsPoly sp = s_prime.clone();
  sp.drop_last_towers(sp.tower_count() - towers);
  ring::RnsPoly lhs = d[1] * s;
  lhs += d[0];
  lhs -= c * sp;
  (void)context;
  return largest_centered(std::move(lhs));
}

TEST(KeySwitching, IdentityHoldsForEveryDnumAndLevel) {
  const uint64_t n = 2048;
  const std::vector<int> ciphertext_bits = {50, 40, 40, 40, 40};
  for (std::size_t dnum = 1; dnum <= ciphertext_bits.size(); ++dnum) {
    const std::size_t alpha = (ciphertext_bits.size() + dnum - 1) / dnum;
    std::vector<int> special_bits(alpha, 55);  // P larger than any digit
    auto context = Context::create(
        make_parameters(n, ciphertext_bits, special_bits, dnum, SecurityLevel::none));
    KeyGenerator keygen(context);
    const RelinKey relin = keygen.create_relin_key();
    const ring::RnsPoly s2 = keygen.secret_key().q_part() * keygen.secret_key().q_part();
    ring::Prng prng = ring::Prng::from_os_entropy();
    for (std::size_t level : {context->max_level(), std::size_t{2}, std::size_t{0}}) {
      ring::RnsPoly c(context->ciphertext_ring(), level + 1, ring::Form::ntt);
      ring::sample_uniform(prng, c);
      const auto d = switch_key(*context, c, relin.key);
      const double error = switch_error(*context, keygen.secret_key(), c, s2, d);
      std::printf("dnum=%zu level=%zu: key-switching error 2^%.1f\n", dnum, level,
                  std::log2(error + 1));
      // Error ~ sum over digits of |digit| * |e| / P + rounding: far below 2^30.
      EXPECT_LT(error, std::ldexp(1.0, 30)) << "dnum=" << dnum << " level=" << level;
      EXPECT_GT(error, 0.0);  // some noise must be present: the check is not vacuous
    }
  }
}

// decompose_and_multiply (which never stores the digits when each digit is
// one prime) equals the two stages it replaces bit for bit, for relinearization
// and Galois keys, one and two special primes, every level; so does the
// apply_galois overload that takes c1 undecomposed. Both stages give the same
// bits for c1 handed over in coefficient form.
TEST(KeySwitching, FusedStagesEqualDecomposeThenInnerProduct) {
  const std::vector<int> ciphertext_bits = {50, 40, 40, 40};  // 50-bit digit into 40-bit towers
  for (std::size_t specials : {std::size_t{1}, std::size_t{2}}) {
    for (std::size_t dnum : {std::size_t{4}, std::size_t{2}}) {
      auto context = Context::create(make_parameters(
          1024, ciphertext_bits, std::vector<int>(specials, 55), dnum, SecurityLevel::none));
      KeyGenerator keygen(context);
      const RelinKey relin = keygen.create_relin_key();
      const int64_t steps[] = {3};
      const GaloisKeys galois = keygen.create_galois_keys(steps, false);
      const KeySwitchKey& galois_key = galois.at(galois.elements()[0]);
      ring::Prng prng = ring::Prng::from_os_entropy();
      for (std::size_t level = 0; level <= context->max_level(); ++level) {
        const ring::RnsPoly c0 = uniform_ntt_poly(prng, *context, level + 1);
        ring::RnsPoly c1 = uniform_ntt_poly(prng, *context, level + 1);
        const ring::RnsPoly kept = c1.clone();
        const ring::RnsPoly c1_coefficients = c1.coefficient_form();
        for (const KeySwitchKey* key : {&relin.key, &galois_key}) {
          const auto fused = decompose_and_multiply(*context, c1, *key);
          const auto staged = inner_product(*context, decompose(*context, c1), *key);
          const auto fused_from_coefficients =
              decompose_and_multiply(*context, c1_coefficients, *key);
          const auto staged_from_coefficients =
              inner_product(*context, decompose(*context, c1_coefficients), *key);
          for (int half = 0; half < 2; ++half) {
            for (const auto* other :
                 {&staged, &fused_from_coefficients, &staged_from_coefficients}) {
              EXPECT_TRUE(fused[half].q == (*other)[half].q)
                  << "specials=" << specials << " dnum=" << dnum << " level=" << level;
              EXPECT_TRUE(fused[half].p == (*other)[half].p)
                  << "specials=" << specials << " dnum=" << dnum << " level=" << level;
            }
          }
        }
        const auto switched = switch_key(*context, c1, relin.key);
        const auto switched_from_coefficients = switch_key(*context, c1_coefficients, relin.key);
        EXPECT_TRUE(switched[0] == switched_from_coefficients[0] &&
                    switched[1] == switched_from_coefficients[1])
            << "level=" << level;
        // The additions folded into mod down give the same bits as made after it.
        const auto added = switch_key_and_add(*context, c1, relin.key, c0, c1);
        EXPECT_TRUE(added[0] == switched[0] + c0 && added[1] == switched[1] + c1)
            << "level=" << level;
        auto products = decompose_and_multiply(*context, c1, relin.key);
        EXPECT_TRUE(mod_down(*context, std::move(products[0]), c0) == switched[0] + c0);
        EXPECT_THROW((void)switch_key_and_add(*context, c1, galois_key, c0, c1), InvalidArgument);
        if (level > 0) {
          ring::RnsPoly lower = c0.clone();
          lower.drop_last_towers(1);
          EXPECT_THROW((void)switch_key_and_add(*context, c1, relin.key, lower, c1), MismatchError);
          auto more = decompose_and_multiply(*context, c1, relin.key);
          EXPECT_THROW((void)mod_down(*context, std::move(more[0]), lower), MismatchError);
        }
        auto again = decompose_and_multiply(*context, c1, relin.key);
        EXPECT_THROW((void)mod_down(*context, std::move(again[0]), c1_coefficients),
                     MismatchError);  // the addend must be in NTT form
        const auto direct = apply_galois(*context, c0, c1, galois_key);
        const auto hoisted = apply_galois(*context, c0, decompose(*context, c1), galois_key);
        EXPECT_TRUE(direct[0] == hoisted[0] && direct[1] == hoisted[1]) << "level=" << level;
        EXPECT_TRUE(c1 == kept);
      }
      const ring::RnsPoly c(context->ciphertext_ring(), 2, ring::Form::ntt);
      EXPECT_THROW((void)apply_galois(*context, c, c, relin.key), InvalidArgument);
    }
  }
}

// The largest centered coefficient of e0 + e1 s - sigma_g(c0 + c1 s): the
// error of a Galois key switch (e0, e1) of (c0, c1), against the automorphism
// applied to the plain combination, computed independently with the secret.
double galois_error(const KeyGenerator& keygen, const ring::RnsPoly& c0, const ring::RnsPoly& c1,
                    const std::array<ring::RnsPoly, 2>& e, uint64_t g) {
  const std::size_t towers = c0.tower_count();
  ring::RnsPoly s = keygen.secret_key().q_part().clone();
  s.drop_last_towers(s.tower_count() - towers);
  ring::RnsPoly want = c1 * s;
  want += c0;
  want = want.automorphism(g);
  ring::RnsPoly got = e[1] * s;
  got += e[0];
  got -= want;
  return largest_centered(std::move(got));
}

TEST(KeySwitching, ApplyGaloisOnOneDecompositionForManyElements) {
  auto context =
      Context::create(make_parameters(1024, {50, 40, 40}, {55, 55}, 2, SecurityLevel::none));
  KeyGenerator keygen(context);
  const int64_t steps[] = {1, 5, -3};
  const GaloisKeys keys = keygen.create_galois_keys(steps, true);
  EXPECT_EQ(keys.size(), 4u);
  ring::Prng prng = ring::Prng::from_os_entropy();
  const ring::RnsPoly c0 = uniform_ntt_poly(prng, *context, 3);
  const ring::RnsPoly c1 = uniform_ntt_poly(prng, *context, 3);
  const DecomposedPoly digits = decompose(*context, c1);  // hoisted: once for all g
  for (uint64_t g : keys.elements()) {
    const double worst =
        galois_error(keygen, c0, c1, apply_galois(*context, c0, digits, keys.at(g)), g);
    EXPECT_LT(worst, std::ldexp(1.0, 30)) << "g=" << g;
    EXPECT_GT(worst, 0.0);
    // The same image over Q*P, divided by P only afterwards (a linear
    // transform's "reduce once per giant step").
    auto extended = apply_galois_extended(*context, c0, digits, keys.at(g));
    const std::array<ring::RnsPoly, 2> reduced = {mod_down(*context, std::move(extended[0])),
                                                  mod_down(*context, std::move(extended[1]))};
    const double worst_extended = galois_error(keygen, c0, c1, reduced, g);
    EXPECT_LT(worst_extended, std::ldexp(1.0, 30)) << "g=" << g;
    EXPECT_GT(worst_extended, 0.0);
  }
  // A Galois key is refused by switch_key, and relinearization keys by apply_galois.
  EXPECT_THROW((void)switch_key(*context, c1, keys.at(keys.elements()[0])), InvalidArgument);
  EXPECT_THROW((void)apply_galois(*context, c0, digits, keygen.create_relin_key().key),
               InvalidArgument);
  EXPECT_THROW((void)apply_galois_extended(*context, c0, digits, keygen.create_relin_key().key),
               InvalidArgument);
}

// Several keys' inner products taken together (one pass over the digits, in
// slices of 4096 coefficients: N = 8192 takes two) equal the products taken
// one key at a time (whole towers) bit for bit, and the rotations finished
// from them are sigma_g(c0 + c1 s) up to a key switch's error.
// Keys and inputs a caller can build by hand. A Galois key edited to element
// 0 used to be applied as "no automorphism" and return garbage with no error.
TEST(KeySwitching, MalformedKeysAndInputsAreRefusedByName) {
  auto context =
      Context::create(make_parameters(1024, {50, 40, 40}, {55, 55}, 2, SecurityLevel::none));
  KeyGenerator keygen(context);
  const int64_t steps[] = {1};
  const GaloisKeys galois = keygen.create_galois_keys(steps, false);
  const KeySwitchKey& real = galois.at(galois.elements()[0]);
  ring::Prng prng = ring::Prng::from_os_entropy();
  const ring::RnsPoly c0 = uniform_ntt_poly(prng, *context, 3);
  const ring::RnsPoly c1 = uniform_ntt_poly(prng, *context, 3);
  using heft::testing::expect_error;
  for (const uint64_t element : {uint64_t{0}, uint64_t{2}, uint64_t{2048}, uint64_t{2049}}) {
    KeySwitchKey edited{real.context, {}, {}, element, real.error_scale, std::nullopt};
    for (std::size_t j = 0; j < real.b.size(); ++j) {
      edited.b.push_back(real.b[j].clone());
      edited.a.push_back(real.a[j].clone());
    }
    expect_error<InvalidArgument>([&] { (void)apply_galois(*context, c0, c1, edited); },
                                  "apply_galois: the key's Galois element");
    GaloisKeys keys(context);
    expect_error<InvalidArgument>([&] { keys.insert(element, std::move(edited)); },
                                  "GaloisKeys::insert: element");
    EXPECT_TRUE(keys.elements().empty());
  }
  // Empty keys are named as empty, not as foreign.
  expect_error<InvalidArgument>([&] { (void)switch_key(*context, c1, KeySwitchKey{}); },
                                "switch_key: the key is empty");
  expect_error<InvalidArgument>([&] { require_relin_key(*context, RelinKey{}, "multiply"); },
                                "multiply: the relinearization key is empty");
  // Level 0 is refused before the key switch, in the caller's name.
  const RelinKey relin = keygen.create_relin_key();
  const ring::RnsPoly bottom = uniform_ntt_poly(prng, *context, 1);
  expect_error<InvalidArgument>(
      [&] { (void)switch_key_and_divide(*context, bottom, relin.key, bottom, bottom); },
      "switch_key_and_divide: the polynomial is at level 0");
  // A seeded ciphertext whose c0 is not in NTT form.
  Encryptor encryptor(keygen.secret_key());
  Plaintext plain;
  plain.poly = ring::RnsPoly(context->ciphertext_ring(), 3, ring::Form::ntt);
  SeededCiphertext seeded = encryptor.encrypt_seeded(plain);
  seeded.c0.intt();
  expect_error<MismatchError>([&] { (void)expand_seeded(*context, seeded); },
                              "expand_seeded: c0 must be in NTT form");
}

TEST(KeySwitching, InnerProductsForManyKeysEqualOneAtATime) {
  auto context =
      Context::create(make_parameters(8192, {50, 40, 40}, {55, 55}, 2, SecurityLevel::none));
  KeyGenerator keygen(context);
  const int64_t steps[] = {1, 5, -3};
  const GaloisKeys keys = keygen.create_galois_keys(steps, true);
  ring::Prng prng = ring::Prng::from_os_entropy();
  const ring::RnsPoly c0 = uniform_ntt_poly(prng, *context, 3);
  const ring::RnsPoly c1 = uniform_ntt_poly(prng, *context, 3);
  const DecomposedPoly digits = decompose(*context, c1);
  std::vector<const KeySwitchKey*> group;
  for (uint64_t g : keys.elements())
    group.push_back(&keys.at(g));
  auto together = inner_products(*context, digits, group);
  ASSERT_EQ(together.size(), group.size());
  for (std::size_t r = 0; r < group.size(); ++r) {
    const auto alone = inner_product(*context, digits, *group[r]);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_TRUE(together[r][k].q == alone[k].q) << "key " << r << " part " << k;
      EXPECT_TRUE(together[r][k].p == alone[k].p) << "key " << r << " part " << k;
    }
    const uint64_t g = group[r]->galois_element;
    const auto got = apply_galois_to_products(*context, c0, std::move(together[r]), *group[r]);
    const double worst = galois_error(keygen, c0, c1, got, g);
    EXPECT_LT(worst, std::ldexp(1.0, 30)) << "g=" << g;
    EXPECT_GT(worst, 0.0);
  }
  EXPECT_TRUE(inner_products(*context, digits, {}).empty());
  // A null key; products of another level; a key that is not a Galois key.
  const KeySwitchKey* null_key[] = {nullptr};
  EXPECT_THROW((void)inner_products(*context, digits, null_key), InvalidArgument);
  auto products = inner_product(*context, digits, *group[0]);
  ring::RnsPoly c0_low = c0.clone();
  c0_low.drop_last_towers(1);
  try {
    (void)apply_galois_to_products(*context, c0_low, std::move(products), *group[0]);
    ADD_FAILURE() << "products of another level were accepted";
  } catch (const MismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("apply_galois_to_products"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      (void)apply_galois_to_products(*context, c0, inner_product(*context, digits, *group[0]),
                                     keygen.create_relin_key().key),
      InvalidArgument);
}

}  // namespace
}  // namespace heft::rlwe
