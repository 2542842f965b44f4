// CKKSVector against the same computation in doubles, for a vector that
// fits one ciphertext (5 values) and one that spans two (3000 values over
// 2048 slots): element-wise operations with vectors, plain vectors and
// scalars, powers, sums, dot products, vector x matrix on both paths
// (LinearTransform with its exact keys, composed rotations otherwise),
// polynomials; the flags; typed errors that leave the operands unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

const TensorContext::Ptr& context() {
  return testing::shared_ckks_context();
}

void expect_close(const Reals& got, const Reals& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
}

template <class F>
Reals zip(const Reals& a, const Reals& b, F f) {
  Reals out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = f(a[i], b[i]);
  return out;
}

Reals vector_matrix(const Reals& v, const std::vector<Reals>& m) {
  Reals out(m[0].size(), 0.0);
  for (std::size_t i = 0; i < v.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      out[j] += v[i] * m[i][j];
  return out;
}

std::vector<Reals> random_matrix(std::size_t rows, std::size_t columns, uint64_t seed) {
  std::vector<Reals> m;
  for (std::size_t i = 0; i < rows; ++i)
    m.push_back(testing::random_reals(columns, seed + i));
  return m;
}

class CKKSVectorSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CKKSVectorSizes, ElementWise) {
  const std::size_t n = GetParam();
  const Reals a = testing::random_reals(n, 1), b = testing::random_reals(n, 2);
  const auto x = CKKSVector::encrypt(context(), a), y = CKKSVector::encrypt(context(), b);
  EXPECT_EQ(x.ciphertexts().size(), (n + 2047) / 2048);
  expect_close(x.decrypt(), a, 1e-6);
  expect_close(x.add(y).decrypt(), zip(a, b, std::plus<>()), 1e-6);
  expect_close(x.sub(y).decrypt(), zip(a, b, std::minus<>()), 1e-6);
  expect_close(x.mul(y).decrypt(), zip(a, b, std::multiplies<>()), 1e-5);
  expect_close(x.add(b).decrypt(), zip(a, b, std::plus<>()), 1e-6);
  expect_close(x.sub(b).decrypt(), zip(a, b, std::minus<>()), 1e-6);
  expect_close(x.mul(b).decrypt(), zip(a, b, std::multiplies<>()), 1e-5);
  expect_close(x.add(0.75).decrypt(), zip(a, a, [](double u, double) { return u + 0.75; }), 1e-6);
  expect_close(x.sub(0.75).decrypt(), zip(a, a, [](double u, double) { return u - 0.75; }), 1e-6);
  expect_close(x.mul(-1.5).decrypt(), zip(a, a, [](double u, double) { return -1.5 * u; }), 1e-5);
  expect_close(x.mul(3.0).decrypt(), zip(a, a, [](double u, double) { return 3 * u; }), 1e-5);
  expect_close(x.negate().decrypt(), zip(a, a, [](double u, double) { return -u; }), 1e-6);
  expect_close(x.square().decrypt(), zip(a, a, std::multiplies<>()), 1e-5);
  expect_close(x.pow(3).decrypt(), zip(a, a, [](double u, double) { return u * u * u; }), 1e-5);
  expect_close(x.pow(0).decrypt(), Reals(n, 1.0), 1e-5);

  auto z = x.copy();
  z.add_inplace(y).mul_inplace(b).sub_inplace(0.5);
  Reals want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = (a[i] + b[i]) * b[i] - 0.5;
  expect_close(z.decrypt(), want, 1e-5);
}

TEST_P(CKKSVectorSizes, SumsAndDots) {
  const std::size_t n = GetParam();
  const Reals a = testing::random_reals(n, 3), b = testing::random_reals(n, 4);
  const auto x = CKKSVector::encrypt(context(), a), y = CKKSVector::encrypt(context(), b);
  const double sum = std::accumulate(a.begin(), a.end(), 0.0);
  const double dot = std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
  const auto s = x.sum();
  EXPECT_EQ(s.size(), 1u);
  EXPECT_NEAR(s.decrypt()[0], sum, 1e-4);
  EXPECT_NEAR(x.dot(y).decrypt()[0], dot, 1e-4);
  EXPECT_NEAR(x.dot(b).decrypt()[0], dot, 1e-4);
  // A scalar is added to the vector's own slots only: the sum still holds.
  EXPECT_NEAR(x.add(1.0).sum().decrypt()[0], sum + static_cast<double>(n), 1e-3);
  // sum() leaves partial sums in the padding; a second sum masks them first.
  EXPECT_FALSE(s.padding_is_zero());
  EXPECT_NEAR(s.sum().decrypt()[0], sum, 1e-4);
}

TEST_P(CKKSVectorSizes, Polyval) {
  const std::size_t n = GetParam();
  const Reals a = testing::random_reals(n, 5);
  const auto x = CKKSVector::encrypt(context(), a);
  const Reals coefficients = {0.5, 1.0, -0.25, 0.125};
  Reals want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = 0.5 + a[i] - 0.25 * a[i] * a[i] + 0.125 * a[i] * a[i] * a[i];
  const auto p = x.polyval(coefficients);
  expect_close(p.decrypt(), want, 1e-4);
  EXPECT_NEAR(p.sum().decrypt()[0], std::accumulate(want.begin(), want.end(), 0.0), 1e-2);
  expect_close(x.polyval(Reals{2.5}).decrypt(), Reals(n, 2.5), 1e-5);
}

TEST_P(CKKSVectorSizes, MatmulComposedRotations) {
  const std::size_t n = GetParam();
  const Reals a = testing::random_reals(n, 6);
  const auto x = CKKSVector::encrypt(context(), a);
  const auto m = random_matrix(n, 7, 100);
  const auto y = x.matmul(m);
  EXPECT_EQ(y.size(), 7u);
  expect_close(y.decrypt(), vector_matrix(a, m), 1e-3);
  EXPECT_EQ(x.mm(m).size(), 7u);
}

INSTANTIATE_TEST_SUITE_P(OneAndTwoCiphertexts, CKKSVectorSizes, ::testing::Values(5, 3000));

TEST(CKKSVector, MatmulWithSeveralOutputCiphertexts) {
  const Reals a = testing::random_reals(20, 7);
  const auto m = random_matrix(20, 2100, 200);
  const auto y = CKKSVector::encrypt(context(), a).matmul(m);
  EXPECT_EQ(y.ciphertexts().size(), 2u);
  expect_close(y.decrypt(), vector_matrix(a, m), 1e-4);
}

TEST(CKKSVector, MatmulThroughLinearTransformWithItsKeys) {
  auto own = testing::make_ckks_context(2, false);
  const Reals a = testing::random_reals(30, 8);
  const auto x = CKKSVector::encrypt(own, a);
  const auto m = random_matrix(30, 12, 300);
  const auto steps = x.matmul_galois_steps(30, 12);
  ASSERT_FALSE(steps.empty());
  // Without any key, the error names the steps of the composed path.
  try {
    (void)x.matmul(m);
    FAIL() << "matmul without Galois keys";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("CKKSVector::matmul: needs Galois keys"),
              std::string::npos)
        << e.what();
  }
  own->generate_galois_keys(steps);
  const auto y = x.matmul(m);
  expect_close(y.decrypt(), vector_matrix(a, m), 1e-4);
  EXPECT_EQ(y.level(), 1u);
}

TEST(CKKSVector, ErrorsAreTypedAndLeaveOperandsUnchanged) {
  const Reals a = {1, 2, 3};
  auto x = CKKSVector::encrypt(context(), a);
  const auto shorter = CKKSVector::encrypt(context(), Reals{1, 2});
  EXPECT_THROW(x.add_inplace(shorter), MismatchError);
  EXPECT_THROW(x.mul_inplace(Reals{1, 2}), MismatchError);
  EXPECT_THROW((void)x.matmul(random_matrix(2, 2, 1)), MismatchError);
  auto other = testing::make_ckks_context(1, false);
  EXPECT_THROW(x.add_inplace(CKKSVector::encrypt(other, a)), MismatchError);
  expect_close(x.decrypt(), a, 1e-6);
  EXPECT_THROW((void)CKKSVector::encrypt(context(), Reals{}), InvalidArgument);
  EXPECT_THROW((void)CKKSVector().decrypt(), InvalidArgument);

  // Depth: one level left after two products; a third needs one more.
  auto deep = CKKSVector::encrypt(other, a);  // one level in all
  deep.mul_inplace(deep.copy());
  EXPECT_EQ(deep.level(), 0u);
  try {
    deep.mul_inplace(0.5);
    FAIL() << "a product with no level left";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("CKKSVector::mul: needs 1 level"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)deep.pow(2), InvalidArgument);
  EXPECT_THROW((void)CKKSVector::encrypt(other, a).pow(4), InvalidArgument);  // needs 2
  expect_close(deep.decrypt(), {1, 4, 9}, 1e-5);
}

TEST(CKKSVector, AOneSizedOperandIsReplicated) {
  const Reals a = {1, -2, 3, 0.5, 4};
  const auto x = CKKSVector::encrypt(context(), a);
  const auto y = CKKSVector::encrypt(context(), Reals{0.25});
  expect_close(x.add(y).decrypt(), {1.25, -1.75, 3.25, 0.75, 4.25}, 1e-5);
  expect_close(x.sub(y).decrypt(), {0.75, -2.25, 2.75, 0.25, 3.75}, 1e-5);
  expect_close(x.mul(y).decrypt(), {0.25, -0.5, 0.75, 0.125, 1}, 1e-5);
  // Longer than one ciphertext, and a sum of the result.
  Reals long_values(context()->slot_count() + 3, 2.0);
  const auto z = CKKSVector::encrypt(context(), long_values).add(y);
  expect_close(z.decrypt(), Reals(long_values.size(), 2.25), 1e-5);
  EXPECT_NEAR(x.add(y).sum().decrypt()[0], 7.75, 1e-4);
}

TEST(CKKSVector, DecryptsWithASecretKeyKeptAside) {
  // TenSEAL's pattern: keep the key, make the context public, decrypt with it.
  auto own = testing::make_ckks_context(1, false);
  const rlwe::SecretKey key = own->secret_key("test").clone();
  const Reals a = {1.5, -2, 0.25};
  const auto x = CKKSVector::encrypt(own, a).mul(2.0);
  own->make_context_public();
  EXPECT_THROW((void)x.decrypt(), InvalidArgument);
  expect_close(x.decrypt(key), {3, -4, 0.5}, 1e-5);
  // A key of other parameters is refused.
  auto other = testing::make_ckks_context(2, false);
  EXPECT_THROW((void)x.decrypt(other->secret_key("test")), MismatchError);
}

TEST(CKKSVector, Flags) {
  auto own = testing::make_ckks_context(2, false);
  const Reals a = {0.5, -1.0};
  const auto x = CKKSVector::encrypt(own, a);
  const auto x2 = x.square();  // one level down
  // auto_mod_switch: operands at different levels are brought together.
  expect_close(x2.add(x).decrypt(), {0.75, 0.0}, 1e-5);
  own->set_auto_mod_switch(false);
  EXPECT_THROW((void)x2.add(x), MismatchError);
  own->set_auto_mod_switch(true);
  // auto_relin off: the product keeps three parts and still decrypts.
  own->set_auto_relin(false);
  const auto unrelinearized = x.mul(x);
  EXPECT_EQ(unrelinearized.ciphertexts()[0].size(), 3u);
  expect_close(unrelinearized.decrypt(), {0.25, 1.0}, 1e-5);
  own->set_auto_relin(true);
  // auto_rescale off: the product stays at the squared scale and level.
  own->set_auto_rescale(false);
  const auto unrescaled = x.mul(x);
  EXPECT_EQ(unrescaled.ciphertexts()[0].level(), x.ciphertexts()[0].level());
  EXPECT_NEAR(std::log2(unrescaled.scale()), 80.0, 1e-6);
  expect_close(unrescaled.decrypt(), {0.25, 1.0}, 1e-5);
}

TEST(CKKSVector, SerializeRoundTrip) {
  const Reals a = testing::random_reals(2500, 9);
  const auto x = CKKSVector::encrypt(context(), a).sum();
  rlwe::LoadOptions options;
  options.allow_insecure_parameters = true;
  const auto loaded = CKKSVector::load(context(), x.serialize(), options);
  EXPECT_EQ(loaded.size(), 1u);
  EXPECT_FALSE(loaded.padding_is_zero());
  EXPECT_NEAR(loaded.decrypt()[0], std::accumulate(a.begin(), a.end(), 0.0), 1e-3);
  auto bytes = CKKSVector::encrypt(context(), a).serialize();
  bytes[10] = 1;  // the size (little-endian at offset 10): 1 value with two ciphertexts
  bytes[11] = 0;
  EXPECT_THROW((void)CKKSVector::load(context(), bytes, options), FormatError);
}

}  // namespace
}  // namespace heft::tensor
