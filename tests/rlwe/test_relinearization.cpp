// Relinearization of ciphertexts as every scheme calls it
// (src/rlwe/relinearization.cpp), against exact slot arithmetic mod t: a
// BFV product relinearized decrypts to the slot-wise square and keeps the
// metadata record; the fused division by the last prime leaves the
// metadata for the caller, and a BGV caller that multiplies the correction
// factor by q_l decrypts the square one level down; the operand checks name
// the operation and refuse a relinearized ciphertext, another context's key
// and a Galois key.
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
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/util/error.hpp"
#include "integer_slots_support.hpp"
#include "rlwe/relinearization.hpp"

namespace heft::rlwe {
namespace {

using Values = std::vector<uint64_t>;
using heft::testing::expect_error;

std::shared_ptr<const Context> integer_context() {
  const uint64_t n = 1024;
  Parameters p = make_parameters(n, {50, 40, 40}, {50}, 0, SecurityLevel::none);
  p.plain_modulus = math::generate_batching_prime(17, n).value();
  return Context::create(p);
}

Values squares(const Values& x, uint64_t t) {
  Values out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = static_cast<uint64_t>(static_cast<unsigned __int128>(x[i]) * x[i] % t);
  return out;
}

TEST(Relinearization, AProductKeepsItsMessageAndMetadata) {
  const auto context = integer_context();
  const uint64_t t = context->parameters().plain_modulus;
  const KeyGenerator keygen(context);
  const RelinKey relin = keygen.create_relin_key();
  const schemes::BatchEncoder encoder(context->degree(), t);
  std::mt19937_64 rng(1);
  const Values x = heft::testing::random_values_mod(rng, context->degree(), t);
  const bfv::Evaluator evaluator(context);
  Ciphertext product =
      evaluator.multiply(bfv::Encryptor(keygen.secret_key()).encrypt(encoder.encode(x)),
                         bfv::Encryptor(keygen.create_public_key()).encrypt(encoder.encode(x)));
  product.scale = 99.5;  // metadata that relinearization must carry through
  product.slots = 32;
  product.noise_log2 = 40.0;
  require_relinearization_operands(*context, product, relin, "test");
  const Ciphertext two = relinearize_unchecked(*context, product, relin);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(encoder.decode(bfv::Decryptor(keygen.secret_key()).decrypt(two)), squares(x, t));
  EXPECT_EQ(two.scale, 99.5);
  EXPECT_EQ(two.slots, 32u);
  EXPECT_EQ(two.noise_log2, 40.0);
  EXPECT_EQ(two.level(), product.level());
  // The BFV evaluator's relinearization is this one.
  const Ciphertext by_evaluator = evaluator.relinearize(product, relin);
  EXPECT_TRUE(by_evaluator.parts[0] == two.parts[0] && by_evaluator.parts[1] == two.parts[1]);
}

TEST(Relinearization, TheFusedDivisionLeavesTheMetadataToTheCaller) {
  const auto context = integer_context();
  const uint64_t t = context->parameters().plain_modulus;
  const KeyGenerator keygen = bgv::make_key_generator(context);
  const RelinKey relin = keygen.create_relin_key();
  const schemes::BatchEncoder encoder(context->degree(), t);
  std::mt19937_64 rng(2);
  const Values x = heft::testing::random_values_mod(rng, context->degree(), t);
  const bgv::Evaluator manual(context, bgv::ModSwitchMode::manual);
  const Ciphertext fresh = bgv::Encryptor(keygen.secret_key()).encrypt(encoder.encode(x));
  const Ciphertext product = manual.multiply(fresh, fresh);
  Ciphertext divided = relinearize_and_divide_unchecked(*context, product, relin);
  EXPECT_EQ(divided.level(), product.level() - 1);
  EXPECT_EQ(divided.correction, product.correction);  // the caller's to update
  // BGV's update: the plaintext was multiplied by q_l^-1 mod t.
  const uint64_t q_l = context->parameters().ciphertext_moduli[product.level()];
  divided.correction =
      static_cast<uint64_t>(static_cast<unsigned __int128>(divided.correction) * (q_l % t) % t);
  const bgv::Decryptor decryptor(keygen.secret_key());
  EXPECT_EQ(encoder.decode(decryptor.decrypt(divided)), squares(x, t));
  // The same bits as the automatic mode's fused multiply.
  const bgv::Evaluator automatic(context);
  const Ciphertext fused = automatic.multiply(fresh, fresh, relin);
  EXPECT_TRUE(fused.parts[0] == divided.parts[0] && fused.parts[1] == divided.parts[1]);
  EXPECT_EQ(fused.correction, divided.correction);
}

TEST(Relinearization, BadOperandsAreRefusedNamingTheOperation) {
  const auto context = integer_context();
  const auto other = integer_context();
  const KeyGenerator keygen(context);
  const RelinKey relin = keygen.create_relin_key();
  const schemes::BatchEncoder encoder(context->degree(), context->parameters().plain_modulus);
  const Ciphertext fresh =
      bfv::Encryptor(keygen.secret_key()).encrypt(encoder.encode(Values(context->degree(), 1)));
  const Ciphertext product = bfv::Evaluator(context).multiply(fresh, fresh);
  expect_error<InvalidArgument>(
      [&] { require_relinearization_operands(*context, fresh, relin, "op"); },
      "op: the ciphertext has 2 parts; relinearization takes a 3-part ciphertext (a product)");
  expect_error<MismatchError>(
      [&] {
        require_relinearization_operands(*context, product, KeyGenerator(other).create_relin_key(),
                                         "op");
      },
      "op: the relinearization key belongs to a different context");
  expect_error<InvalidArgument>(
      [&] { require_relinearization_operands(*context, product, RelinKey{}, "op"); },
      "op: the relinearization key is empty");
  // A key marked with a Galois element is a rotation's, whatever it holds.
  RelinKey galois_key = keygen.create_relin_key();
  galois_key.key.galois_element = context->galois_element_for_step(1);
  expect_error<InvalidArgument>(
      [&] { require_relinearization_operands(*context, product, galois_key, "op"); },
      "op: this is a Galois key (for rotations), not a relinearization or switching key");
  Ciphertext foreign = product.clone();
  foreign.parts[1] = ring::RnsPoly(other->ciphertext_ring(), product.level() + 1, ring::Form::ntt);
  expect_error<MismatchError>(
      [&] { require_relinearization_operands(*context, foreign, relin, "op"); },
      "op: the ciphertext belongs to a different context");
}

}  // namespace
}  // namespace heft::rlwe
