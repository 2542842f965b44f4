// TensorContext: construction from TenSEAL's arguments and heft's helpers,
// keys (default and chosen Galois steps, public copies), flags, and
// serialization with and without each key kind, checked by encrypting and
// decrypting through the loaded contexts.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "heft/tensor/bfv_vector.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

rlwe::LoadOptions insecure() {
  rlwe::LoadOptions options;
  options.allow_insecure_parameters = true;
  return options;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(TensorContext, TenSEALArgumentsCkks) {
  auto context = testing::make_ckks_context(2, false);
  EXPECT_EQ(context->scheme(), Scheme::ckks);
  const auto& parameters = context->rlwe_context()->parameters();
  // 60, 40, 40 ciphertext primes; the last 60 is the special prime.
  ASSERT_EQ(parameters.ciphertext_moduli.size(), 3u);
  ASSERT_EQ(parameters.special_moduli.size(), 1u);
  EXPECT_EQ(static_cast<int>(std::ceil(std::log2(parameters.special_moduli[0]))), 60);
  EXPECT_EQ(context->slot_count(), 2048u);
  EXPECT_EQ(context->global_scale(), std::ldexp(1.0, 40));
  EXPECT_TRUE(context->is_private());
  EXPECT_TRUE(context->has_public_key());
  EXPECT_TRUE(context->has_relin_keys());
  EXPECT_FALSE(context->has_galois_keys());
  EXPECT_TRUE(context->auto_relin() && context->auto_rescale() && context->auto_mod_switch());
  const std::vector<double> x = {1.5, -2.25, 3.0};
  expect_close(CKKSVector::encrypt(context, x).decrypt(), x, 1e-6);
}

TEST(TensorContext, TenSEALArgumentsBfvWithDefaultBitSizes) {
  TenSEALArguments arguments;
  arguments.scheme = Scheme::bfv;
  arguments.poly_modulus_degree = 4096;
  arguments.plain_modulus = 1032193;
  arguments.security = rlwe::SecurityLevel::none;
  auto context = TensorContext::create(arguments);
  // SEAL's BFVDefault(4096): 36, 36 and the special 37.
  EXPECT_EQ(context->rlwe_context()->parameters().ciphertext_moduli.size(), 2u);
  EXPECT_EQ(context->slot_count(), 4096u);
  EXPECT_EQ(context->plain_modulus(), 1032193u);
  const std::vector<int64_t> x = {5, -7, 1000};
  EXPECT_EQ(BFVVector::encrypt(context, x).decrypt(), x);
}

TEST(TensorContext, FromHeftHelpers) {
  ckks::ParameterRequest request;
  request.depth = 2;
  request.scale_bits = 40;
  request.security = rlwe::SecurityLevel::none;
  request.slots = 2048;
  auto ckks_context = TensorContext::create_ckks(request);
  EXPECT_EQ(ckks_context->rlwe_context()->max_level(), 2u);
  const std::vector<double> x = {0.5, 0.25};
  expect_close(CKKSVector::encrypt(ckks_context, x).square().decrypt(), {0.25, 0.0625}, 1e-5);

  schemes::IntegerParameterRequest bfv_request;
  bfv_request.depth = 1;
  bfv_request.plain_bits = 20;
  bfv_request.security = rlwe::SecurityLevel::none;
  auto bfv_context = TensorContext::create_bfv(bfv_request);
  const std::vector<int64_t> y = {3, -4};
  EXPECT_EQ(BFVVector::encrypt(bfv_context, y).square().decrypt(), (std::vector<int64_t>{9, 16}));
}

TEST(TensorContext, BadArgumentsAreTyped) {
  TenSEALArguments ckks_without_bits;
  ckks_without_bits.security = rlwe::SecurityLevel::none;
  EXPECT_THROW((void)TensorContext::create(ckks_without_bits), InvalidArgument);
  TenSEALArguments bfv_without_t;
  bfv_without_t.scheme = Scheme::bfv;
  EXPECT_THROW((void)TensorContext::create(bfv_without_t), InvalidArgument);
  auto context = testing::make_ckks_context(1, false);
  EXPECT_THROW(context->set_global_scale(-1.0), InvalidArgument);
  EXPECT_THROW((void)context->batch_encoder(), InvalidArgument);
}

TEST(TensorContext, GaloisKeysDefaultAndChosen) {
  auto context = testing::make_ckks_context(1, false);
  const auto steps = context->default_galois_steps();
  EXPECT_EQ(steps.size(), 22u);  // +-1 ... +-1024 over 2048 slots
  context->generate_galois_keys(std::vector<int64_t>{2});
  // Sum over three values needs step 1 (and 2): 1 cannot be composed from 2.
  const std::vector<double> x = {1, 2, 3};
  const auto v = CKKSVector::encrypt(context, x);
  try {
    (void)v.sum();
    FAIL() << "sum without a key for step 1";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("for 1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("CKKSVector::sum"), std::string::npos) << e.what();
  }
  context->generate_galois_keys(std::vector<int64_t>{1});  // added to the key for 2
  EXPECT_NEAR(v.sum().decrypt()[0], 6.0, 1e-5);
}

TEST(TensorContext, PublicContextRefusesDecryption) {
  auto context = testing::make_ckks_context(1, false);
  const std::vector<double> x = {1, 2};
  const auto v = CKKSVector::encrypt(context, x);
  context->make_context_public(/*generate_galois_keys=*/true);
  EXPECT_FALSE(context->is_private());
  EXPECT_TRUE(context->has_galois_keys());
  EXPECT_THROW((void)v.decrypt(), InvalidArgument);
  EXPECT_THROW(context->generate_relin_keys(), InvalidArgument);
  EXPECT_NO_THROW((void)v.add(v).sum());  // evaluation needs no secret
}

TEST(TensorContext, SerializeWithEveryKeyAndFlags) {
  auto context = testing::make_ckks_context(1, true);
  context->set_auto_mod_switch(false);
  const auto loaded = TensorContext::load(context->serialize(), insecure());
  EXPECT_TRUE(loaded->is_private());
  EXPECT_TRUE(loaded->has_galois_keys() && loaded->has_relin_keys() && loaded->has_public_key());
  EXPECT_FALSE(loaded->auto_mod_switch());
  EXPECT_TRUE(loaded->auto_rescale());
  EXPECT_EQ(loaded->global_scale(), context->global_scale());
  // Same secret: the loaded context decrypts what the original encrypted.
  const std::vector<double> x = {0.125, -3.5, 2.0};
  const auto bytes = CKKSVector::encrypt(context, x).serialize();
  const auto v = CKKSVector::load(loaded, bytes, insecure());
  expect_close(v.decrypt(), x, 1e-6);
  EXPECT_NEAR(v.sum().decrypt()[0], -1.375, 1e-5);
}

TEST(TensorContext, SerializeWithoutChosenKeys) {
  auto context = testing::make_ckks_context(1, true);
  TensorContext::SaveParts parts;
  parts.secret_key = false;
  parts.galois_keys = false;
  const auto loaded = TensorContext::load(context->serialize(parts), insecure());
  EXPECT_FALSE(loaded->is_private());
  EXPECT_FALSE(loaded->has_galois_keys());
  EXPECT_TRUE(loaded->has_relin_keys());
  const std::vector<double> x = {1, 2};
  const auto v = CKKSVector::load(loaded, CKKSVector::encrypt(context, x).serialize(), insecure());
  EXPECT_THROW((void)v.decrypt(), InvalidArgument);
  EXPECT_THROW((void)v.sum(), InvalidArgument);  // no Galois keys
  // Computed on the public copy, decrypted by the owner.
  const auto back = CKKSVector::load(context, v.mul(v).serialize(), insecure());
  expect_close(back.decrypt(), {1, 4}, 1e-5);
}

TEST(TensorContext, LoadRefusesBadBytes) {
  auto context = testing::make_bfv_context(false);
  auto bytes = context->serialize();
  EXPECT_THROW((void)TensorContext::load(bytes), InvalidArgument);  // insecure, not allowed
  auto truncated = bytes;
  truncated.resize(truncated.size() - 10);
  EXPECT_THROW((void)TensorContext::load(truncated, insecure()), FormatError);
  auto bad_magic = bytes;
  bad_magic[0] ^= 1;
  EXPECT_THROW((void)TensorContext::load(bad_magic, insecure()), FormatError);
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_THROW((void)TensorContext::load(trailing, insecure()), FormatError);
  const auto loaded = TensorContext::load(bytes, insecure());
  EXPECT_EQ(loaded->scheme(), Scheme::bfv);
  const std::vector<int64_t> x = {1, -2, 3};
  EXPECT_EQ(
      BFVVector::load(loaded, BFVVector::encrypt(context, x).serialize(), insecure()).decrypt(), x);
}

}  // namespace
}  // namespace heft::tensor
