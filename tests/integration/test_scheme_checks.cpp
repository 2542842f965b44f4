// The operand checks that CKKS, BFV and BGV share (src/rlwe/operand_checks,
// rlwe/galois, rlwe/relinearization) refuse the same bad input with the same
// words from every scheme: only the operation's name, which each message
// starts with, differs. Before the shared core each evaluator wrote its own
// ("the keys" / "the Galois keys", "expects a 3-part ciphertext" / "needs a
// 3-part ciphertext, got 2", "no Galois key for Galois element ..." / "no
// conjugation key ...").
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
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

using rlwe::Ciphertext;
using rlwe::GaloisKeys;
using rlwe::RelinKey;
using testing::expect_error;

enum class Kind { ckks, bfv, bgv };

rlwe::Parameters parameters(Kind kind) {
  const uint64_t n = 1024;
  rlwe::Parameters p = rlwe::make_parameters(n, {50, 40, 40}, {50}, 0, rlwe::SecurityLevel::none);
  if (kind == Kind::ckks) {
    p.scale = std::ldexp(1.0, 40);
  } else {
    p.plain_modulus = math::generate_batching_prime(17, n).value();
  }
  return p;
}

// One scheme's evaluator behind the operations the shared checks guard, with
// keys (relinearization; a Galois key for step 2 only) and ciphertexts: a
// fresh one (2 parts) and a product (3 parts).
struct Scheme {
  Scheme(const Scheme&) = delete;
  Scheme& operator=(const Scheme&) = delete;
  explicit Scheme(Kind k)
      : kind(k),
        context(rlwe::Context::create(parameters(k))),
        keygen(k == Kind::bgv ? bgv::make_key_generator(context) : rlwe::KeyGenerator(context)),
        relin(keygen.create_relin_key()),
        step_two(keygen.create_galois_keys(std::vector<int64_t>{2})) {
    const std::size_t n = context->degree();
    if (k == Kind::ckks) {
      const ckks::Encoder encoder(context);
      const std::vector<double> values(n / 2, 0.5);
      fresh =
          rlwe::Encryptor(keygen.create_public_key())
              .encrypt(encoder.encode(values, context->parameters().scale, context->max_level()));
      const ckks::Evaluator eval(context);
      product = eval.multiply(fresh, fresh);
      add = [eval](const Ciphertext& a, const Ciphertext& b) { return eval.add(a, b); };
      multiply = [eval](const Ciphertext& a, const Ciphertext& b) { return eval.multiply(a, b); };
      multiply_relin = [eval](const Ciphertext& a, const Ciphertext& b, const RelinKey& key) {
        return eval.multiply(a, b, key);
      };
      relinearize = [eval](const Ciphertext& a, const RelinKey& key) {
        return eval.relinearize(a, key);
      };
      rotate = [eval](const Ciphertext& a, int64_t step, const GaloisKeys& keys) {
        return eval.rotate(a, step, keys);
      };
      conjugate = [eval](const Ciphertext& a, const GaloisKeys& keys) {
        return eval.conjugate(a, keys);
      };
      apply_galois = [eval](const Ciphertext& a, uint64_t g, const GaloisKeys& keys) {
        return eval.apply_galois(a, g, keys);
      };
      rotate_name = "rotate";
      conjugate_name = "conjugate";
      return;
    }
    const uint64_t t = context->parameters().plain_modulus;
    const schemes::BatchEncoder encoder(n, t);
    const std::vector<uint64_t> values(n, 3);
    rotate_name = "rotate_rows";
    conjugate_name = "rotate_columns";
    if (k == Kind::bfv) {
      fresh = bfv::Encryptor(keygen.create_public_key()).encrypt(encoder.encode(values));
      set_operations(bfv_eval.emplace(context));
    } else {
      fresh = bgv::Encryptor(keygen.create_public_key()).encrypt(encoder.encode(values));
      set_operations(bgv_eval.emplace(context, bgv::ModSwitchMode::manual));
    }
    product = multiply(fresh, fresh);
  }

  // The integer schemes' evaluators (which hold a mutex) stay here; the
  // operations refer to them, so a Scheme is neither copied nor moved.
  template <typename Evaluator>
  void set_operations(const Evaluator& eval) {
    add = [&eval](const Ciphertext& a, const Ciphertext& b) { return eval.add(a, b); };
    multiply = [&eval](const Ciphertext& a, const Ciphertext& b) { return eval.multiply(a, b); };
    multiply_relin = [&eval](const Ciphertext& a, const Ciphertext& b, const RelinKey& key) {
      return eval.multiply(a, b, key);
    };
    relinearize = [&eval](const Ciphertext& a, const RelinKey& key) {
      return eval.relinearize(a, key);
    };
    rotate = [&eval](const Ciphertext& a, int64_t step, const GaloisKeys& keys) {
      return eval.rotate_rows(a, step, keys);
    };
    conjugate = [&eval](const Ciphertext& a, const GaloisKeys& keys) {
      return eval.rotate_columns(a, keys);
    };
    apply_galois = [&eval](const Ciphertext& a, uint64_t g, const GaloisKeys& keys) {
      return eval.apply_galois(a, g, keys);
    };
  }

  Kind kind;
  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  RelinKey relin;
  GaloisKeys step_two;
  Ciphertext fresh, product;
  std::optional<bfv::Evaluator> bfv_eval;
  std::optional<bgv::Evaluator> bgv_eval;
  std::string rotate_name, conjugate_name;
  std::function<Ciphertext(const Ciphertext&, const Ciphertext&)> add, multiply;
  std::function<Ciphertext(const Ciphertext&, const Ciphertext&, const RelinKey&)> multiply_relin;
  std::function<Ciphertext(const Ciphertext&, const RelinKey&)> relinearize;
  std::function<Ciphertext(const Ciphertext&, int64_t, const GaloisKeys&)> rotate;
  std::function<Ciphertext(const Ciphertext&, const GaloisKeys&)> conjugate;
  std::function<Ciphertext(const Ciphertext&, uint64_t, const GaloisKeys&)> apply_galois;
};

class SchemeChecks : public ::testing::TestWithParam<Kind> {};

// Each scheme's pair: itself and another of its kind (another context).
struct Pair {
  Scheme self, other;
  explicit Pair(Kind kind) : self(kind), other(kind) {}
};

TEST_P(SchemeChecks, PartCountsAreRefusedInOneWording) {
  const Pair pair(GetParam());
  const Scheme& s = pair.self;
  // Rotations and products take two parts.
  const std::string relinearize_first =
      ": relinearize the ciphertext first (it has 3 parts; this operation takes 2)";
  expect_error<InvalidArgument>([&] { (void)s.rotate(s.product, 2, s.step_two); },
                                s.rotate_name + relinearize_first);
  expect_error<InvalidArgument>([&] { (void)s.multiply(s.product, s.fresh); },
                                "multiply" + relinearize_first);
  expect_error<InvalidArgument>([&] { (void)s.multiply_relin(s.fresh, s.product, s.relin); },
                                "multiply" + relinearize_first);
  // Relinearization takes three (CKKS also takes a relinearized one as it
  // is, which the integer schemes refuse).
  Ciphertext four = s.product.clone();
  four.parts.push_back(four.parts[2].clone());
  expect_error<InvalidArgument>(
      [&] { (void)s.relinearize(four, s.relin); },
      "relinearize: the ciphertext has 4 parts; relinearization takes a 3-part ciphertext "
      "(a product)");
  if (s.kind == Kind::ckks) {
    EXPECT_TRUE(s.relinearize(s.fresh, s.relin).parts[0] == s.fresh.parts[0]);
  } else {
    expect_error<InvalidArgument>(
        [&] { (void)s.relinearize(s.fresh, s.relin); },
        "relinearize: the ciphertext has 2 parts; relinearization takes a 3-part ciphertext");
  }
}

TEST_P(SchemeChecks, MissingGaloisKeysAreNamedInOneWording) {
  const Pair pair(GetParam());
  const Scheme& s = pair.self;
  // Step 3 cannot be composed from step 2: the message names the step, the
  // steps present and the remedy.
  expect_error<InvalidArgument>(
      [&] { (void)s.rotate(s.fresh, 3, s.step_two); },
      s.rotate_name +
          ": no Galois key for step 3, and it cannot be composed from the keys present (steps "
          "2): they reach only multiples of 2 modulo 512; generate a key for step 3 with "
          "KeyGenerator::create_galois_keys");
  const std::string element = std::to_string(2 * s.context->degree() - 1);
  expect_error<InvalidArgument>(
      [&] { (void)s.conjugate(s.fresh, s.step_two); },
      s.conjugate_name + ": no conjugation key (Galois element " + element +
          "); generate it with KeyGenerator::create_galois_keys(steps, include_conjugation = "
          "true)");
  expect_error<InvalidArgument>([&] { (void)s.apply_galois(s.fresh, 3, s.step_two); },
                                "apply_galois: no Galois key for Galois element 3; generate it "
                                "with KeyGenerator::create_galois_keys");
  // The identity needs no key, from every scheme.
  EXPECT_TRUE(s.apply_galois(s.fresh, 1, s.step_two).parts[1] == s.fresh.parts[1]);
}

TEST_P(SchemeChecks, ObjectsOfAnotherContextAreRefusedInOneWording) {
  const Pair pair(GetParam());
  const Scheme& s = pair.self;
  const Scheme& other = pair.other;
  expect_error<MismatchError>([&] { (void)s.add(s.fresh, other.fresh); },
                              "add: the ciphertext belongs to a different context");
  expect_error<MismatchError>([&] { (void)s.rotate(s.fresh, 2, other.step_two); },
                              s.rotate_name + ": the Galois keys belong to a different context");
  expect_error<MismatchError>([&] { (void)s.conjugate(s.fresh, other.step_two); },
                              s.conjugate_name + ": the Galois keys belong to a different context");
  expect_error<MismatchError>(
      [&] { (void)s.relinearize(s.product, other.relin); },
      "relinearize: the relinearization key belongs to a different context");
  expect_error<MismatchError>([&] { (void)s.multiply_relin(s.fresh, s.fresh, other.relin); },
                              "multiply: the relinearization key belongs to a different context");
}

INSTANTIATE_TEST_SUITE_P(AllSchemes, SchemeChecks,
                         ::testing::Values(Kind::ckks, Kind::bfv, Kind::bgv),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return info.param == Kind::ckks  ? std::string("ckks")
                                  : info.param == Kind::bfv ? std::string("bfv")
                                                            : std::string("bgv");
                         });

}  // namespace
}  // namespace heft
