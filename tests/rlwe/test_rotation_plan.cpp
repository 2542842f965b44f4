// Rotations composed from the keys present (rlwe/rotation_plan.hpp), the same
// rule in CKKS, BFV and BGV: a step without its own key is reached by the
// fewest key switches (checked against an exhaustive search over short key
// sequences), in both directions; results are checked against rotations of
// the plain values; a step no composition reaches is refused with a message
// that names it and the keys present.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft {
namespace {

using cd = std::complex<double>;
using testing::expect_error;

// Keys for +-1, +-2, +-4 and 8: the set.
const std::vector<int64_t> kSignedPowers = {1, -1, 2, -2, 4, -4, 8};

std::shared_ptr<const rlwe::Context> make_context(uint64_t n, uint64_t plain_modulus = 0) {
  auto params = rlwe::make_parameters(n, {60, 40, 40}, {60}, 0, rlwe::SecurityLevel::none);
  params.scale = std::ldexp(1.0, 40);
  params.plain_modulus = plain_modulus;
  return rlwe::Context::create(params);
}

int64_t mod(int64_t x, int64_t n) {
  return ((x % n) + n) % n;
}

// The fewest of `steps` (repeats allowed) that sum to target mod n, by trying
// every sequence of up to `longest`; 0 for target 0, -1 if none is that short.
int shortest_by_exhaustion(const std::vector<int64_t>& steps, int64_t target, int64_t n,
                           int longest) {
  if (mod(target, n) == 0) return 0;
  std::vector<int64_t> sums = {0};
  for (int length = 1; length <= longest; ++length) {
    std::vector<int64_t> next;
    for (const int64_t s : sums)
      for (const int64_t step : steps)
        next.push_back(s + step);
    for (const int64_t s : next)
      if (mod(s - target, n) == 0) return length;
    sums = std::move(next);
  }
  return -1;
}

// The sum of the steps of a plan's elements, mod n.
int64_t plan_sum(const rlwe::Context& context, const std::vector<uint64_t>& plan, int64_t n) {
  int64_t sum = 0;
  for (const uint64_t g : plan) {
    const auto step = rlwe::rotation_step_of(context, g);
    EXPECT_TRUE(step.has_value()) << "element " << g << " is not a rotation";
    sum += static_cast<int64_t>(step.value_or(0));
  }
  return mod(sum, n);
}

TEST(RotationPlan, StepOfElementInvertsElementForStep) {
  const auto context = make_context(2048);
  const int64_t half = 1024;
  for (int64_t step = 0; step < half; ++step) {
    const auto back = rlwe::rotation_step_of(*context, context->galois_element_for_step(step));
    ASSERT_TRUE(back.has_value()) << step;
    EXPECT_EQ(static_cast<int64_t>(*back), step);
  }
  // Conjugation (-1) and -5 are not rotations; neither is an even number.
  EXPECT_FALSE(rlwe::rotation_step_of(*context, context->conjugation_galois_element()));
  EXPECT_FALSE(rlwe::rotation_step_of(*context, 4096 - 5));
  EXPECT_FALSE(rlwe::rotation_step_of(*context, 6));
  EXPECT_FALSE(rlwe::rotation_step_of(*context, 4097));
}

TEST(RotationPlan, FewestKeySwitchesInBothDirections) {
  const auto context = make_context(2048);
  rlwe::KeyGenerator keygen(context);
  const rlwe::GaloisKeys keys = keygen.create_galois_keys(kSignedPowers);
  const int64_t slots = 1024;
  // The steps, and every step in [-64, 64]: as short as the
  // exhaustive search finds (up to 4 switches), and summing to the step.
  EXPECT_EQ(rlwe::plan_rotation(*context, keys, -3, slots).size(), 2u);  // -4 + 1
  EXPECT_EQ(rlwe::plan_rotation(*context, keys, -7, slots).size(), 3u);  // -4 - 2 - 1
  EXPECT_EQ(rlwe::plan_rotation(*context, keys, 8, slots).size(), 1u);   // its own key
  EXPECT_TRUE(rlwe::plan_rotation(*context, keys, slots, slots).empty());
  for (int64_t step = -64; step <= 64; ++step) {
    const auto plan = rlwe::plan_rotation(*context, keys, step, slots);
    const int fewest = shortest_by_exhaustion(kSignedPowers, step, slots, 4);
    if (fewest >= 0) {
      EXPECT_EQ(static_cast<int>(plan.size()), fewest) << "step " << step;
    } else {
      EXPECT_GT(plan.size(), 4u) << "step " << step;
    }
    EXPECT_EQ(plan_sum(*context, plan, slots), mod(step, slots)) << "step " << step;
  }
  // Far steps too: 1000 = -24 modulo 1024, six steps of -4 (no key goes
  // further right).
  const auto far = rlwe::plan_rotation(*context, keys, 1000, slots);
  EXPECT_EQ(plan_sum(*context, far, slots), 1000);
  EXPECT_EQ(far.size(), 6u);
}

TEST(RotationPlan, SparseCyclesAndKeysForCongruentSteps) {
  const auto context = make_context(2048);
  rlwe::KeyGenerator keygen(context);
  // On 8 slots a key for 9 rotates by 1, one for 3 by 3 (and 3 * 3 = 9 = 1).
  const rlwe::GaloisKeys nine = keygen.create_galois_keys(std::vector<int64_t>{9});
  EXPECT_EQ(rlwe::plan_rotation(*context, nine, 1, 8).size(), 1u);
  EXPECT_EQ(rlwe::plan_rotation(*context, nine, -1, 8).size(), 7u);
  const rlwe::GaloisKeys three = keygen.create_galois_keys(std::vector<int64_t>{3});
  EXPECT_EQ(rlwe::plan_rotation(*context, three, 1, 8).size(), 3u);
  EXPECT_EQ(plan_sum(*context, rlwe::plan_rotation(*context, three, 1, 8), 8), 1);
}

TEST(RotationPlan, UnreachableStepsAndBadInputAreRefused) {
  const auto context = make_context(2048);
  rlwe::KeyGenerator keygen(context);
  const rlwe::GaloisKeys even = keygen.create_galois_keys(std::vector<int64_t>{2, -4}, true);
  expect_error<InvalidArgument>(
      [&] { (void)rlwe::plan_rotation(*context, even, 3, 1024, "rotate"); },
      "rotate: no Galois key for step 3, and it cannot be composed from the keys present "
      "(steps 2, -4): they reach only multiples of 2 modulo 1024; generate a key for step 3");
  const rlwe::GaloisKeys conjugation_only = keygen.create_galois_keys({}, true);
  expect_error<InvalidArgument>(
      [&] { (void)rlwe::plan_rotation(*context, conjugation_only, 1, 1024, "rotate"); },
      "(no rotation keys are present)");
  expect_error<InvalidArgument>([&] { (void)rlwe::plan_rotation(*context, even, 1, 12, "op"); },
                                "op: a rotation cycle of 12 slots");
  expect_error<InvalidArgument>([&] { (void)rlwe::plan_rotation(*context, even, 1, 2048, "op"); },
                                "op: a rotation cycle of 2048 slots");
  const auto other = make_context(2048);
  expect_error<MismatchError>([&] { (void)rlwe::plan_rotation(*other, even, 2, 1024, "op"); },
                              "op: the Galois keys belong to a different context");
}

// ---- CKKS ----

struct CkksFixture {
  std::shared_ptr<const rlwe::Context> context = make_context(2048);
  rlwe::KeyGenerator keygen{context};
  ckks::Encoder encoder{context};
  ckks::Evaluator eval{context};
  rlwe::Encryptor encryptor{keygen.create_public_key()};
  rlwe::Decryptor decryptor{keygen.secret_key()};

  rlwe::Ciphertext encrypt(const std::vector<cd>& x, std::size_t slots = 0) const {
    const std::size_t top = context->max_level();
    return encryptor.encrypt(encoder.encode(x, eval.scale_at(top), top, slots));
  }
  std::vector<cd> decrypt(const rlwe::Ciphertext& ct) const {
    return encoder.decode(decryptor.decrypt(ct));
  }
};

std::vector<cd> random_values(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<cd> v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

std::vector<cd> rotated(const std::vector<cd>& x, int64_t step) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<cd> out(x.size());
  for (int64_t i = 0; i < n; ++i)
    out[i] = x[mod(i + step, n)];
  return out;
}

// Key switching at scale 2^40 errs by about 2^-20 per switch.
void expect_close(const std::vector<cd>& got, const std::vector<cd>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, std::ldexp(1.0, -17)) << what;
}

TEST(RotationComposition, CkksRotatesRightWithSignedPowerKeys) {
  CkksFixture f;
  std::mt19937_64 rng(11);
  const auto x = random_values(1024, rng);
  const auto cx = f.encrypt(x);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(kSignedPowers);
  for (const int64_t step : {-3, -7, 13, -13, 100}) {
    const auto got = f.eval.rotate(cx, step, keys);
    expect_close(f.decrypt(got), rotated(x, step), "rotate");
    // The evaluator applies exactly the plan (fewest switches): the same
    // automorphisms one at a time give the same ciphertext, bit for bit.
    rlwe::Ciphertext by_hand = cx.clone();
    for (const uint64_t g : rlwe::plan_rotation(*f.context, keys, step, 1024))
      by_hand = f.eval.apply_galois(by_hand, g, keys);
    EXPECT_TRUE(got.parts[0] == by_hand.parts[0] && got.parts[1] == by_hand.parts[1]) << step;
  }
  // Hoisted rotations compose the same way.
  const std::vector<int64_t> steps = {-7, 1, -3, 0};
  const auto hoisted = f.eval.rotate_hoisted(cx, steps, keys);
  for (std::size_t i = 0; i < steps.size(); ++i)
    expect_close(f.decrypt(hoisted[i]), rotated(x, steps[i]), "rotate_hoisted");
}

TEST(RotationComposition, CkksSparseSlotsRotateModuloTheirCount) {
  CkksFixture f;
  std::mt19937_64 rng(12);
  const auto x = random_values(8, rng);
  const auto cx = f.encrypt(x, 8);
  // A key for 3 alone reaches every step on 8 slots: 1 = 3 + 3 + 3.
  const rlwe::GaloisKeys three = f.keygen.create_galois_keys(std::vector<int64_t>{3});
  for (const int64_t step : {1, -1, 2, 5})
    expect_close(f.decrypt(f.eval.rotate(cx, step, three)), rotated(x, step), "sparse rotate");
  // sum_slots composes the power-of-two steps it needs.
  cd total = 0;
  for (const cd& v : x)
    total += v;
  expect_close(f.decrypt(f.eval.sum_slots(cx, three)), std::vector<cd>(8, total), "sum_slots");
}

TEST(RotationComposition, CkksUnreachableStepNamesTheKeys) {
  CkksFixture f;
  std::mt19937_64 rng(13);
  const auto cx = f.encrypt(random_values(1024, rng));
  const rlwe::GaloisKeys even = f.keygen.create_galois_keys(std::vector<int64_t>{2, 4});
  const rlwe::Ciphertext before = cx.clone();
  expect_error<InvalidArgument>([&] { (void)f.eval.rotate(cx, 1, even); },
                                "rotate: no Galois key for step 1, and it cannot be composed from "
                                "the keys present (steps 2, 4)");
  expect_error<InvalidArgument>(
      [&] {
        (void)f.eval.rotate_hoisted(cx, std::vector<int64_t>{2, 3}, even);
      },
      "rotate_hoisted: no Galois key for step 3");
  expect_error<InvalidArgument>([&] { (void)f.eval.sum_slots(cx, even); },
                                "sum_slots: no Galois key for step 1");
  // dot_rotations_plain shares one decomposition among all its terms, so it
  // composes nothing: each nonzero step needs its own key.
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1, 2});
  const std::size_t top = f.context->max_level();
  std::vector<ckks::ExtendedPlaintext> diagonals;
  for (int j = 0; j < 2; ++j)
    diagonals.push_back(
        f.encoder.encode_extended(random_values(1024, rng), f.eval.scale_at(top), top));
  expect_error<InvalidArgument>(
      [&] {
        (void)f.eval.dot_rotations_plain(cx, std::vector<int64_t>{2, 3}, diagonals, keys);
      },
      "dot_rotations_plain: no Galois key for step 3; every nonzero step needs its own key");
  EXPECT_TRUE(cx.parts[0] == before.parts[0] && cx.parts[1] == before.parts[1]);
}

// ---- BFV and BGV ----

std::vector<uint64_t> rotated_rows(const std::vector<uint64_t>& x, int64_t step) {
  const int64_t half = static_cast<int64_t>(x.size() / 2);
  std::vector<uint64_t> out(x.size());
  for (int64_t row = 0; row < 2; ++row)
    for (int64_t c = 0; c < half; ++c)
      out[row * half + c] = x[row * half + mod(c + step, half)];
  return out;
}

std::vector<uint64_t> random_slots(std::size_t n, uint64_t t, std::mt19937_64& rng) {
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = rng() % t;
  return v;
}

// One integer scheme at N = 2048 with a batching t: keys (with error scale
// t for BGV), encryptor, decryptor, evaluator, encoder, and a random
// encrypted x.
template <typename Encryptor, typename Decryptor, typename Evaluator>
struct BatchedFixture {
  static constexpr uint64_t n = 2048;
  explicit BatchedFixture(bool errors_scaled_by_t, uint64_t seed)
      : keygen(context, errors_scaled_by_t ? t : 1), rng(seed) {}

  uint64_t t = math::generate_batching_prime(20, n).value();
  std::shared_ptr<const rlwe::Context> context = make_context(n, t);
  rlwe::KeyGenerator keygen;
  Encryptor encryptor{keygen.create_public_key()};
  Decryptor decryptor{keygen.secret_key()};
  Evaluator eval{context};
  schemes::BatchEncoder encoder{n, t};
  std::mt19937_64 rng;
  std::vector<uint64_t> x = random_slots(n, t, rng);
  decltype(encryptor.encrypt(encoder.encode(x))) cx = encryptor.encrypt(encoder.encode(x));
};

TEST(RotationComposition, BfvRotateRowsComposesKeys) {
  BatchedFixture<bfv::Encryptor, bfv::Decryptor, bfv::Evaluator> f(false, 14);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1, 2});
  EXPECT_EQ(rlwe::plan_rotation(*f.context, keys, 3, f.n / 2).size(), 2u);
  for (const int64_t step : {3, 4, 7}) {
    const auto got = f.eval.rotate_rows(f.cx, step, keys);
    EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(got)), rotated_rows(f.x, step)) << step;
    EXPECT_GT(f.decryptor.invariant_noise_budget(got), 0);
  }
  const rlwe::GaloisKeys even = f.keygen.create_galois_keys(std::vector<int64_t>{2});
  expect_error<InvalidArgument>([&] { (void)f.eval.rotate_rows(f.cx, 3, even); },
                                "rotate_rows: no Galois key for step 3, and it cannot be composed "
                                "from the keys present (steps 2)");
}

TEST(RotationComposition, BgvRotateRowsComposesKeys) {
  BatchedFixture<bgv::Encryptor, bgv::Decryptor, bgv::Evaluator> f(true, 15);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1, 2, -4});
  for (const int64_t step : {3, -3, -2, 5}) {
    EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(f.eval.rotate_rows(f.cx, step, keys))),
              rotated_rows(f.x, step))
        << step;
  }
  const rlwe::GaloisKeys even = f.keygen.create_galois_keys(std::vector<int64_t>{2});
  expect_error<InvalidArgument>([&] { (void)f.eval.rotate_rows(f.cx, 5, even); },
                                "rotate_rows: no Galois key for step 5, and it cannot be composed");
  // Keys made without error scale t are refused before any work, composed or not.
  rlwe::KeyGenerator plain_keygen(f.context, f.keygen.secret_key());
  const rlwe::GaloisKeys unscaled = plain_keygen.create_galois_keys(std::vector<int64_t>{1});
  expect_error<MismatchError>([&] { (void)f.eval.rotate_rows(f.cx, 2, unscaled); },
                              "rotate_rows: the key's errors are not scaled by t");
}

}  // namespace
}  // namespace heft
