// CKKSTensor serialize / load: a round trip decrypts to the same values
// (checked against the plain tensor), a server holding only the public
// context computes on a loaded tensor, and malformed bytes are refused with
// FormatError (truncated, wrong magic, a shape the bytes cannot hold).
#include <gtest/gtest.h>

#include <vector>

#include "heft/tensor/ckks_tensor.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using testing::expect_close;
using Reals = std::vector<double>;

TEST(CKKSTensorSerialization, RoundTripAndAServerWithThePublicContext) {
  auto client = testing::make_ckks_context(3);
  const Reals values = testing::random_reals(4 * 2 * 3, 91);
  const auto x = CKKSTensor::encrypt(client, PlainTensor(values, {4, 2, 3}));
  const auto bytes = x.serialize();
  expect_close(CKKSTensor::load(client, bytes).decrypt(), {4, 2, 3}, values, 1e-6);

  TensorContext::SaveParts public_parts;
  public_parts.secret_key = false;
  rlwe::LoadOptions insecure;  // the test context is N = 4096 with 300 bits
  insecure.allow_insecure_parameters = true;
  const auto server = TensorContext::load(client->serialize(public_parts), insecure);
  const auto answer = CKKSTensor::load(server, bytes).square().serialize();
  Reals squared(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    squared[i] = values[i] * values[i];
  expect_close(CKKSTensor::load(client, answer).decrypt(), {4, 2, 3}, squared, 1e-5);
  EXPECT_THROW((void)CKKSTensor::load(server, answer).decrypt(), InvalidArgument);
}

TEST(CKKSTensorSerialization, MalformedBytesAreRefused) {
  const auto& context = testing::shared_ckks_context();
  const auto bytes = CKKSTensor::encrypt(context, PlainTensor(Reals(6, 0.5), {2, 3})).serialize();
  const std::vector<uint8_t> truncated(bytes.begin(), bytes.end() - 5);
  EXPECT_THROW((void)CKKSTensor::load(context, truncated), FormatError);
  auto wrong_magic = bytes;
  wrong_magic[0] ^= 1;
  EXPECT_THROW((void)CKKSTensor::load(context, wrong_magic), FormatError);
  // The second axis claims 2^40 ciphertexts: refused before any is read.
  auto huge = bytes;
  huge[10 + 8 + 8 + 5] = 1;  // byte 5 of axis 1 (after magic, version, rank, axis 0)
  EXPECT_THROW((void)CKKSTensor::load(context, huge), FormatError);
  auto trailing = bytes;
  trailing.push_back(0);
  EXPECT_THROW((void)CKKSTensor::load(context, trailing), FormatError);
}

}  // namespace
}  // namespace heft::tensor
