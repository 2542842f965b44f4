// Key-switching keys made for a level below the top (KeyGenerator's
// max_level): they hold only that level's towers and digits, switch
// ciphertexts at that level and below exactly as top-level keys do (checked
// against exact slot rotations mod t under BGV), refuse ciphertexts above it
// without touching them, and survive saving and loading, seeded or not,
// inside a key set that mixes levels.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/util/error.hpp"
#include "integer_slots_support.hpp"

namespace heft::rlwe {
namespace {

using Values = std::vector<uint64_t>;
using heft::testing::rotate_slot_rows;

// Five ciphertext primes in digits of two (so the digit count changes with
// the level: 1, 1, 2, 2, 3 at levels 0..4), BGV batching.
struct Fixture {
  Fixture()
      : context(make_context()),
        t(context->parameters().plain_modulus),
        keygen(bgv::make_key_generator(context)),
        encoder(context->degree(), t),
        evaluator(context, bgv::ModSwitchMode::manual) {}

  static std::shared_ptr<const Context> make_context() {
    const uint64_t n = 1024;
    Parameters p = make_parameters(n, {50, 40, 40, 40, 40}, {50, 50}, 3, SecurityLevel::none);
    p.plain_modulus = math::generate_batching_prime(17, n).value();
    return Context::create(p);
  }
  Ciphertext encrypt_at(const Values& x, std::size_t level) const {
    const Ciphertext top = bgv::Encryptor(keygen.secret_key()).encrypt(encoder.encode(x));
    return evaluator.mod_switch_to(top, level);
  }
  Values decrypt(const Ciphertext& c) const {
    return encoder.decode(bgv::Decryptor(keygen.secret_key()).decrypt(c));
  }
  Values random(uint64_t seed) const {
    std::mt19937_64 rng(seed);
    return heft::testing::random_values_mod(rng, context->degree(), t);
  }

  std::shared_ptr<const Context> context;
  uint64_t t;
  KeyGenerator keygen;
  schemes::BatchEncoder encoder;
  bgv::Evaluator evaluator;
};

TEST(KeysBelowTop, HoldOnlyTheirLevelsTowersAndDigits) {
  const Fixture f;
  for (std::size_t level = 0; level <= f.context->max_level(); ++level) {
    const GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1}, false, level);
    const KeySwitchKey& key = keys.at(f.context->galois_element_for_step(1));
    EXPECT_EQ(key.max_level(), level);
    ASSERT_EQ(key.b.size(), f.context->digit_count_at(level));
    ASSERT_EQ(key.a.size(), key.b.size());
    for (const auto* half : {&key.b, &key.a}) {
      for (const ExtendedPoly& part : *half) {
        EXPECT_EQ(part.q.tower_count(), level + 1);
        EXPECT_EQ(part.p.tower_count(), f.context->special_count());
      }
    }
  }
  // No max_level: the top, as before.
  EXPECT_EQ(f.keygen.create_relin_key().key.max_level(), f.context->max_level());
}

TEST(KeysBelowTop, RotateAtTheirLevelAndBelowLikeTopLevelKeys) {
  const Fixture f;
  const Values x = f.random(1);
  const std::size_t key_level = 2;
  const GaloisKeys low = f.keygen.create_galois_keys(std::vector<int64_t>{3, -5}, true, key_level);
  for (std::size_t level = 0; level <= key_level; ++level) {
    const Ciphertext c = f.encrypt_at(x, level);
    for (const int64_t step : {3, -5}) {
      EXPECT_EQ(f.decrypt(f.evaluator.rotate_rows(c, step, low)), rotate_slot_rows(x, step))
          << "level " << level << ", step " << step;
    }
    // Composed from the keys present (3 + 3 = 6): hoisted paths too.
    EXPECT_EQ(f.decrypt(f.evaluator.rotate_rows(c, 6, low)), rotate_slot_rows(x, 6));
    const Values swapped = f.decrypt(f.evaluator.rotate_columns(c, low));
    const std::size_t half = x.size() / 2;
    for (std::size_t i = 0; i < half; ++i) {
      ASSERT_EQ(swapped[i], x[i + half]);
      ASSERT_EQ(swapped[i + half], x[i]);
    }
  }
}

TEST(KeysBelowTop, RelinearizeAtTheirLevel) {
  const Fixture f;
  const Values x = f.random(2), y = f.random(3);
  const RelinKey relin{f.keygen.create_switch_key(
      f.keygen.secret_key().q_part() * f.keygen.secret_key().q_part(), 1)};
  const Ciphertext product = f.evaluator.multiply(f.encrypt_at(x, 1), f.encrypt_at(y, 1), relin);
  Values want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = static_cast<uint64_t>((static_cast<unsigned __int128>(x[i]) * y[i]) % f.t);
  EXPECT_EQ(f.decrypt(product), want);
}

TEST(KeysBelowTop, RefuseCiphertextsAboveTheirLevelUntouched) {
  const Fixture f;
  const GaloisKeys low = f.keygen.create_galois_keys(std::vector<int64_t>{1}, false, 1);
  const Ciphertext c = f.encrypt_at(f.random(4), 3);
  const Ciphertext before = c.clone();
  heft::testing::expect_error<InvalidArgument>([&] { (void)f.evaluator.rotate_rows(c, 1, low); },
                                               "made for ciphertexts up to level 1");
  heft::testing::expect_error<InvalidArgument>([&] { (void)f.evaluator.rotate_rows(c, 1, low); },
                                               "at level 3");
  EXPECT_TRUE(c.parts[0] == before.parts[0] && c.parts[1] == before.parts[1]);
  const RelinKey relin{f.keygen.create_switch_key(
      f.keygen.secret_key().q_part() * f.keygen.secret_key().q_part(), 0)};
  EXPECT_THROW((void)f.evaluator.multiply(c, c, relin), InvalidArgument);
  // A level above the top is refused before any work.
  EXPECT_THROW((void)f.keygen.create_galois_keys(std::vector<int64_t>{1}, false, 5),
               InvalidArgument);
}

TEST(KeysBelowTop, SaveAndLoadInAKeySetThatMixesLevels) {
  const Fixture f;
  GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1}, false, 0);
  for (const auto& [step, level] : std::vector<std::pair<int64_t, std::size_t>>{{2, 3}, {4, 4}}) {
    GaloisKeys one = f.keygen.create_galois_keys(std::vector<int64_t>{step}, false, level);
    const uint64_t g = f.context->galois_element_for_step(step);
    keys.insert(g, one.extract(g));
  }
  const Values x = f.random(5);
  const Ciphertext c = f.encrypt_at(x, 0);
  for (const bool seeded : {true, false}) {
    SaveOptions options;
    options.seeded = seeded;
    const Bytes bytes = save(keys, options);
    const GaloisKeys loaded = load_galois_keys(f.context, bytes);
    ASSERT_EQ(loaded.size(), keys.size());
    for (const uint64_t g : keys.elements()) {
      const KeySwitchKey& want = keys.at(g);
      const KeySwitchKey& got = loaded.at(g);
      EXPECT_EQ(got.max_level(), want.max_level());
      ASSERT_EQ(got.b.size(), want.b.size());
      for (std::size_t j = 0; j < want.b.size(); ++j) {
        EXPECT_TRUE(got.b[j].q == want.b[j].q && got.b[j].p == want.b[j].p);
        EXPECT_TRUE(got.a[j].q == want.a[j].q && got.a[j].p == want.a[j].p);
      }
    }
    for (const int64_t step : {1, 2, 4})
      EXPECT_EQ(f.decrypt(f.evaluator.rotate_rows(c, step, loaded)), rotate_slot_rows(x, step));
  }
  // One key alone, below the top: smaller than a top-level one.
  const Bytes low = save(keys.at(f.context->galois_element_for_step(1)));
  const Bytes top = save(keys.at(f.context->galois_element_for_step(4)));
  EXPECT_LT(low.size(), top.size() / 2);
  EXPECT_EQ(load_switch_key(f.context, low).max_level(), 0u);
}

}  // namespace
}  // namespace heft::rlwe
