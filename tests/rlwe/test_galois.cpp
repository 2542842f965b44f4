// The Galois automorphisms of ciphertexts that every scheme calls
// (src/rlwe/galois.cpp), against exact slot arithmetic mod t (BFV and BGV
// batching): sequences of automorphisms rotate by the sum of their steps and
// keep the ciphertext's metadata record; hoisted sequences are the same bits
// as one-by-one ones; the sum of automorphisms times plaintexts over Q*P,
// divided by P once, decrypts to the slot-wise sum of rotated products, with
// keys of error scale 1 (BFV) and t (BGV); bad operands are refused before
// any work, naming the operation.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/util/error.hpp"
#include "integer_slots_support.hpp"
#include "rlwe/galois.hpp"

namespace heft::rlwe {
namespace {

using Values = std::vector<uint64_t>;
using heft::testing::expect_error;
using heft::testing::rotate_slot_rows;

std::shared_ptr<const Context> integer_context(std::size_t dnum) {
  const uint64_t n = 1024;
  Parameters p =
      make_parameters(n, {50, 40, 40}, std::vector<int>(3 / dnum, 50), dnum, SecurityLevel::none);
  p.plain_modulus = math::generate_batching_prime(17, n).value();
  return Context::create(p);
}

// BFV or BGV (keys with error scale t) on one context, with Galois keys for
// steps 1, 2, -4 and conjugation.
struct Fixture {
  explicit Fixture(bool bgv_keys, std::size_t dnum = 1)
      : context(integer_context(dnum)),
        t(context->parameters().plain_modulus),
        keygen(bgv_keys ? bgv::make_key_generator(context) : KeyGenerator(context)),
        keys(keygen.create_galois_keys(std::vector<int64_t>{1, 2, -4}, true)),
        encoder(context->degree(), t),
        bgv(bgv_keys) {}

  Ciphertext encrypt(const Values& x) const {
    const auto plain = encoder.encode(x);
    return bgv ? bgv::Encryptor(keygen.secret_key()).encrypt(plain)
               : bfv::Encryptor(keygen.secret_key()).encrypt(plain);
  }
  Values decrypt(const Ciphertext& c) const {
    return encoder.decode(bgv ? bgv::Decryptor(keygen.secret_key()).decrypt(c)
                              : bfv::Decryptor(keygen.secret_key()).decrypt(c));
  }
  Values random(uint64_t seed) const {
    std::mt19937_64 rng(seed);
    return heft::testing::random_values_mod(rng, context->degree(), t);
  }
  uint64_t element(int64_t step) const { return context->galois_element_for_step(step); }

  std::shared_ptr<const Context> context;
  uint64_t t;
  KeyGenerator keygen;
  GaloisKeys keys;
  schemes::BatchEncoder encoder;
  bool bgv;
};

TEST(Galois, SequencesRotateBySumsAndKeepTheMetadata) {
  for (const bool bgv_keys : {false, true}) {
    const Fixture f(bgv_keys);
    const Values x = f.random(1);
    Ciphertext a = f.encrypt(x);
    // Metadata the automorphisms must carry through untouched (as the CKKS
    // scale and slots, BGV's correction factor and estimate do).
    a.scale = 1234.5;
    a.slots = 64;
    a.needs_rescale = true;
    a.noise_log2 = 17.25;
    const uint64_t sequence[] = {f.element(1), f.element(2), 1, f.element(-4)};
    const Ciphertext rotated = apply_galois_sequence(*f.context, a, sequence, f.keys, "test");
    EXPECT_EQ(f.decrypt(rotated), rotate_slot_rows(x, 1 + 2 - 4));
    EXPECT_EQ(rotated.scale, a.scale);
    EXPECT_EQ(rotated.slots, a.slots);
    EXPECT_TRUE(rotated.needs_rescale);
    EXPECT_EQ(rotated.correction, a.correction);
    EXPECT_EQ(rotated.noise_log2, a.noise_log2);
    EXPECT_FALSE(rotated.c1_seed.has_value());  // c1 is no longer the seed's expansion
    // The conjugation key swaps the rows; nothing (or only 1) is a copy.
    const uint64_t swap[] = {conjugation_key(*f.context, f.keys, "test").galois_element};
    EXPECT_EQ(f.decrypt(apply_galois_sequence(*f.context, a, swap, f.keys, "test")),
              heft::testing::swap_slot_rows(x));
    const uint64_t identity[] = {1};
    const Ciphertext copy = apply_galois_sequence(*f.context, a, identity, f.keys, "test");
    EXPECT_TRUE(copy.parts[0] == a.parts[0] && copy.parts[1] == a.parts[1]);
    EXPECT_EQ(copy.noise_log2, a.noise_log2);
  }
}

TEST(Galois, HoistedSequencesAreTheOneByOneBits) {
  for (const std::size_t dnum : {1, 3}) {
    const Fixture f(false, dnum);
    const Ciphertext a = f.encrypt(f.random(2));
    // More than one pass of eight keys, identities, composed sequences.
    std::vector<std::vector<uint64_t>> sequences = {{}, {1}, {f.element(1), f.element(2)}};
    for (int i = 0; i < 10; ++i)
      sequences.push_back({f.element(i % 3 == 0 ? 1 : (i % 3 == 1 ? 2 : -4))});
    sequences.push_back({1, f.element(-4), f.element(1)});
    const auto hoisted = apply_galois_hoisted(*f.context, a, sequences, f.keys, "test");
    ASSERT_EQ(hoisted.size(), sequences.size());
    for (std::size_t i = 0; i < sequences.size(); ++i) {
      const Ciphertext one_by_one =
          apply_galois_sequence(*f.context, a, sequences[i], f.keys, "test");
      EXPECT_TRUE(hoisted[i].parts[0] == one_by_one.parts[0] &&
                  hoisted[i].parts[1] == one_by_one.parts[1])
          << "dnum " << dnum << ", sequence " << i;
    }
  }
}

// A batched plaintext lifted centred into Q_l and P, NTT form: the diagonal
// of a sum of rotations.
ExtendedPoly lift_extended(const Fixture& f, const Values& slots, std::size_t level) {
  const schemes::IntegerPlaintext plain = f.encoder.encode(slots);
  std::vector<int64_t> centred(plain.coefficients.size());
  for (std::size_t i = 0; i < centred.size(); ++i) {
    const uint64_t v = plain.coefficients[i];
    centred[i] = v > f.t / 2 ? -static_cast<int64_t>(f.t - v) : static_cast<int64_t>(v);
  }
  ExtendedPoly d{ring::RnsPoly(f.context->ciphertext_ring(), level + 1),
                 ring::RnsPoly(f.context->special_ring(), f.context->special_count())};
  d.q.set_coefficients(centred);
  d.p.set_coefficients(centred);
  d.q.ntt();
  d.p.ntt();
  return d;
}

TEST(Galois, SumsOfAutomorphismsTimesPlaintextsAreDividedOnce) {
  for (const bool bgv_keys : {false, true}) {
    const Fixture f(bgv_keys);
    const Values x = f.random(3);
    const Ciphertext a = f.encrypt(x);
    const std::vector<int64_t> steps = {0, 1, 2, -4};
    std::vector<uint64_t> elements;
    std::vector<ExtendedPoly> diagonals;
    Values want(x.size(), 0);
    for (std::size_t j = 0; j < steps.size(); ++j) {
      elements.push_back(steps[j] == 0 ? 1 : f.element(steps[j]));
      const Values d = f.random(10 + j);
      // One diagonal above the ciphertext's level: its extra towers are cut.
      diagonals.push_back(lift_extended(f, d, j == 1 ? f.context->max_level() : a.level()));
      const Values r = rotate_slot_rows(x, steps[j]);
      for (std::size_t i = 0; i < want.size(); ++i)
        want[i] = (want[i] + static_cast<unsigned __int128>(d[i]) * r[i] % f.t) % f.t;
    }
    std::vector<const ExtendedPoly*> pointers;
    for (const ExtendedPoly& d : diagonals)
      pointers.push_back(&d);
    auto parts = dot_galois_extended(*f.context, a, elements, pointers, f.keys, "test");
    Ciphertext sum = Ciphertext::with_metadata(a);
    sum.parts.push_back(std::move(parts[0]));
    sum.parts.push_back(std::move(parts[1]));
    EXPECT_EQ(f.decrypt(sum), want) << (bgv_keys ? "BGV keys" : "BFV keys");
  }
}

TEST(Galois, BadOperandsAreRefusedBeforeAnyWork) {
  const Fixture f(false);
  const Fixture other(false);
  const Ciphertext a = f.encrypt(f.random(4));
  Ciphertext three = a.clone();
  three.parts.push_back(a.parts[1].clone());
  expect_error<InvalidArgument>([&] { require_galois_operands(*f.context, three, f.keys, "op"); },
                                "op: relinearize the ciphertext first (it has 3 parts");
  expect_error<MismatchError>([&] { require_galois_operands(*f.context, a, other.keys, "op"); },
                              "op: the Galois keys belong to a different context");
  expect_error<MismatchError>([&] { require_galois_operands(*f.context, a, GaloisKeys{}, "op"); },
                              "op: the Galois keys belong to a different context");
  expect_error<MismatchError>(
      [&] { require_galois_operands(*f.context, other.encrypt(f.random(4)), f.keys, "op"); },
      "op: the ciphertext belongs to a different context");
  // Every key looked up first: a missing one in the middle of a sequence.
  const uint64_t missing[] = {f.element(1), f.element(3), f.element(2)};
  expect_error<InvalidArgument>(
      [&] { (void)apply_galois_sequence(*f.context, a, missing, f.keys, "op"); },
      "op: no Galois key for Galois element " + std::to_string(f.element(3)));
  const std::vector<std::vector<uint64_t>> hoisted = {{f.element(1)}, {f.element(5)}};
  expect_error<InvalidArgument>(
      [&] { (void)apply_galois_hoisted(*f.context, a, hoisted, f.keys, "op"); },
      "op: no Galois key for Galois element " + std::to_string(f.element(5)));
  const GaloisKeys rotations_only = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  expect_error<InvalidArgument>(
      [&] { (void)conjugation_key(*f.context, rotations_only, "op"); },
      "op: no conjugation key (Galois element " + std::to_string(2 * f.context->degree() - 1));
  // Sums: one diagonal per term, none below the ciphertext's level.
  const ExtendedPoly d = lift_extended(f, f.random(5), a.level());
  const ExtendedPoly low = lift_extended(f, f.random(5), 0);
  const uint64_t one[] = {f.element(1)};
  const ExtendedPoly* none[] = {nullptr};
  expect_error<InvalidArgument>(
      [&] {
        (void)dot_galois_extended(*f.context, a, one, std::span<const ExtendedPoly* const>(),
                                  f.keys, "op");
      },
      "op: needs one diagonal per term");
  expect_error<InvalidArgument>(
      [&] { (void)dot_galois_extended(*f.context, a, one, none, f.keys, "op"); },
      "op: a diagonal is null");
  const ExtendedPoly* low_one[] = {&low};
  expect_error<MismatchError>(
      [&] { (void)dot_galois_extended(*f.context, a, one, low_one, f.keys, "op"); },
      "op: a diagonal has 1 ciphertext towers, fewer than the ciphertext's 3");
  const ExtendedPoly foreign = lift_extended(other, f.random(5), a.level());
  const ExtendedPoly* foreign_one[] = {&foreign};
  expect_error<MismatchError>(
      [&] { (void)dot_galois_extended(*f.context, a, one, foreign_one, f.keys, "op"); },
      "op: a diagonal is not a polynomial of this context");
  const uint64_t three_missing[] = {f.element(3)};
  const ExtendedPoly* d_one[] = {&d};
  expect_error<InvalidArgument>(
      [&] { (void)dot_galois_extended(*f.context, a, three_missing, d_one, f.keys, "op"); },
      "op: no Galois key for Galois element");
}

}  // namespace
}  // namespace heft::rlwe
