// CKKSMatrix (encrypted x encrypted matrix products) and CKKSVector x
// CKKSMatrix against the products in doubles written here: one block and
// several, blocks repeated over the slots (b^2 < slots), a vector spanning
// two ciphertexts, exact Galois keys, chained products, and the typed
// errors with the operands unchanged.
#include <gtest/gtest.h>

#include <vector>

#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Rows = CKKSMatrix::Rows;

Rows random_matrix(std::size_t rows, std::size_t cols, uint64_t seed) {
  const auto values = testing::random_reals(rows * cols, seed);
  Rows m(rows, std::vector<double>(cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      m[i][j] = values[i * cols + j];
  return m;
}

Rows product(const Rows& a, const Rows& b) {
  Rows c(a.size(), std::vector<double>(b[0].size(), 0.0));
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b[0].size(); ++j)
      for (std::size_t l = 0; l < b.size(); ++l)
        c[i][j] += a[i][l] * b[l][j];
  return c;
}

std::vector<double> product(const std::vector<double>& v, const Rows& m) {
  std::vector<double> out(m[0].size(), 0.0);
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      out[j] += v[i] * m[i][j];
  return out;
}

void expect_rows_near(const Rows& got, const Rows& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size());
    for (std::size_t j = 0; j < want[i].size(); ++j)
      ASSERT_NEAR(got[i][j], want[i][j], tol) << "at (" << i << ", " << j << ")";
  }
}

void expect_values_near(const std::vector<double>& got, const std::vector<double>& want,
                        double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(CKKSMatrix, EncryptsAndDecryptsInBlocks) {
  const auto& context = testing::shared_ckks_context();
  const Rows m = random_matrix(13, 21, 1);
  const auto one = CKKSMatrix::encrypt(context, m);
  EXPECT_EQ(one.block_size(), 32u);  // 2048 slots: blocks of up to 32 x 32
  EXPECT_EQ(one.ciphertexts().size(), 1u);
  expect_rows_near(one.decrypt(), m, 1e-6);
  const auto blocked = CKKSMatrix::encrypt(context, m, 8);
  EXPECT_EQ(blocked.block_rows(), 2u);
  EXPECT_EQ(blocked.block_cols(), 3u);
  expect_rows_near(blocked.decrypt(), m, 1e-6);
  const Rows n = random_matrix(13, 21, 2);
  Rows sum = m, difference = m;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[0].size(); ++j) {
      sum[i][j] += n[i][j];
      difference[i][j] -= n[i][j];
    }
  const auto other = CKKSMatrix::encrypt(context, n, 8);
  expect_rows_near(blocked.add(other).decrypt(), sum, 1e-6);
  expect_rows_near(blocked.sub(other).decrypt(), difference, 1e-6);
}

TEST(CKKSMatrix, ProductOfOneBlockEach) {
  const auto& context = testing::shared_ckks_context();
  const Rows a = random_matrix(5, 7, 11), b = random_matrix(7, 3, 12);
  const auto x = CKKSMatrix::encrypt(context, a), y = CKKSMatrix::encrypt(context, b);
  ASSERT_EQ(x.block_size(), 8u);
  const auto z = x.matmul(y);
  EXPECT_EQ(z.level(), x.level() - 3);
  EXPECT_EQ(z.rows(), 5u);
  EXPECT_EQ(z.cols(), 3u);
  expect_rows_near(z.decrypt(), product(a, b), 1e-4);
}

TEST(CKKSMatrix, FullBlockRepeatedOverTheSlots) {
  // 32 x 32 blocks fill half of the 2048 slots: rotations must stay inside
  // each copy.
  const auto& context = testing::shared_ckks_context();
  const Rows a = random_matrix(32, 32, 21), b = random_matrix(32, 32, 22);
  const auto z = CKKSMatrix::encrypt(context, a).matmul(CKKSMatrix::encrypt(context, b));
  expect_rows_near(z.decrypt(), product(a, b), 1e-4);
}

TEST(CKKSMatrix, ProductInSeveralBlocks) {
  const auto& context = testing::shared_ckks_context();
  const Rows a = random_matrix(20, 12, 31), b = random_matrix(12, 9, 32);
  const auto x = CKKSMatrix::encrypt(context, a, 8), y = CKKSMatrix::encrypt(context, b, 8);
  const auto z = x.matmul(y);  // 3 x 2 blocks times 2 x 2 blocks
  EXPECT_EQ(z.ciphertexts().size(), 6u);
  expect_rows_near(z.decrypt(), product(a, b), 1e-4);
}

TEST(CKKSMatrix, ChainedProductsWithExactKeys) {
  // Only the keys galois_steps lists: every rotation is one key switch.
  auto context = testing::make_ckks_context(6, false);
  context->generate_galois_keys(CKKSMatrix::galois_steps(*context, 16));
  const Rows a = random_matrix(16, 10, 41), b = random_matrix(10, 12, 42),
             c = random_matrix(12, 16, 43);
  const auto x = CKKSMatrix::encrypt(context, a, 16), y = CKKSMatrix::encrypt(context, b, 16),
             w = CKKSMatrix::encrypt(context, c, 16);
  const auto z = x.matmul(y).matmul(w);
  EXPECT_EQ(z.level(), 0u);
  expect_rows_near(z.decrypt(), product(product(a, b), c), 1e-3);
}

TEST(CKKSMatrix, VectorTimesMatrixOfOneColumnBlock) {
  const auto& context = testing::shared_ckks_context();
  const auto v = testing::random_reals(10, 51);
  const Rows m = random_matrix(10, 6, 52);
  const auto x = CKKSVector::encrypt(context, v);
  const auto z = x.matmul(CKKSMatrix::encrypt(context, m));
  EXPECT_EQ(z.level(), x.level() - 2);
  EXPECT_FALSE(z.padding_is_zero());
  expect_values_near(z.decrypt(), product(v, m), 1e-4);
  // sum() masks the padding first, so it still adds only the 6 values.
  double total = 0;
  for (const double value : product(v, m))
    total += value;
  EXPECT_NEAR(z.sum().decrypt()[0], total, 1e-3);
}

TEST(CKKSMatrix, VectorTimesMatrixInSeveralBlocks) {
  const auto& context = testing::shared_ckks_context();
  const auto v = testing::random_reals(40, 61);
  const Rows m = random_matrix(40, 50, 62);
  const auto x = CKKSVector::encrypt(context, v);
  const auto z = x.mm(CKKSMatrix::encrypt(context, m, 16));  // 3 x 4 blocks
  EXPECT_EQ(z.level(), x.level() - 3);
  EXPECT_TRUE(z.padding_is_zero());
  expect_values_near(z.decrypt(), product(v, m), 1e-4);
}

TEST(CKKSMatrix, VectorOfTwoCiphertextsTimesMatrix) {
  const auto& context = testing::shared_ckks_context();
  const auto v = testing::random_reals(2100, 71, 0.1);
  const Rows m = random_matrix(2100, 3, 72);
  const auto x = CKKSVector::encrypt(context, v);
  ASSERT_EQ(x.ciphertexts().size(), 2u);
  const auto z = x.matmul(CKKSMatrix::encrypt(context, m, 32));
  expect_values_near(z.decrypt(), product(v, m), 1e-3);
}

TEST(CKKSMatrix, SerializesAndRefusesMalformedBytes) {
  const auto& context = testing::shared_ckks_context();
  const Rows m = random_matrix(10, 20, 91);
  const auto x = CKKSMatrix::encrypt(context, m, 8);
  const auto bytes = x.serialize();
  const auto loaded = CKKSMatrix::load(context, bytes);
  EXPECT_EQ(loaded.block_size(), 8u);
  expect_rows_near(loaded.decrypt(), m, 1e-6);
  // A product still works on what was loaded.
  expect_rows_near(
      loaded.matmul(CKKSMatrix::encrypt(context, random_matrix(20, 4, 92), 8)).decrypt(),
      product(m, random_matrix(20, 4, 92)), 1e-4);
  auto truncated = bytes;
  truncated.resize(bytes.size() / 2);
  EXPECT_THROW((void)CKKSMatrix::load(context, truncated), FormatError);
  auto bad_block = bytes;
  bad_block[10 + 16] = 3;  // the block size field's low byte
  EXPECT_THROW((void)CKKSMatrix::load(context, bad_block), FormatError);
  auto bad_rows = bytes;
  bad_rows[10] = 50;  // 50 rows do not fit the 2 x 3 blocks that follow
  EXPECT_THROW((void)CKKSMatrix::load(context, bad_rows), FormatError);
}

TEST(CKKSMatrix, ErrorsLeaveOperandsUnchanged) {
  const auto& context = testing::shared_ckks_context();
  const Rows a = random_matrix(4, 5, 81), b = random_matrix(4, 5, 82);
  const auto x = CKKSMatrix::encrypt(context, a), y = CKKSMatrix::encrypt(context, b);
  EXPECT_THROW((void)x.matmul(y), MismatchError);  // 5 != 4
  EXPECT_THROW((void)x.matmul(CKKSMatrix::encrypt(context, random_matrix(5, 2, 83), 4)),
               MismatchError);  // blocks of 8 and 4
  EXPECT_THROW((void)CKKSVector::encrypt(context, testing::random_reals(3, 84)).matmul(x),
               MismatchError);
  EXPECT_THROW((void)CKKSMatrix::encrypt(context, a, 3), InvalidArgument);
  EXPECT_THROW((void)CKKSMatrix::encrypt(context, a, 64), InvalidArgument);  // 64^2 > 2048
  EXPECT_THROW((void)CKKSMatrix::encrypt(context, Rows{{1.0, 2.0}, {3.0}}), InvalidArgument);
  EXPECT_THROW((void)CKKSMatrix::encrypt(context, Rows{}), InvalidArgument);
  // Two levels: too few for a product of matrices.
  const auto shallow = testing::make_ckks_context(2);
  const Rows square = random_matrix(4, 4, 85);
  const auto s = CKKSMatrix::encrypt(shallow, square);
  EXPECT_THROW((void)s.matmul(s), InvalidArgument);
  // No Galois keys: the error names the operation.
  const auto keyless = testing::make_ckks_context(3, false);
  const auto k = CKKSMatrix::encrypt(keyless, square);
  try {
    (void)k.matmul(k);
    FAIL() << "no Galois keys";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("CKKSMatrix::matmul"), std::string::npos) << e.what();
  }
  expect_rows_near(x.decrypt(), a, 1e-6);
  expect_rows_near(s.decrypt(), square, 1e-6);
  expect_rows_near(k.decrypt(), square, 1e-6);
  // Another context.
  EXPECT_THROW((void)x.add(CKKSMatrix::encrypt(shallow, a)), MismatchError);
}

}  // namespace
}  // namespace heft::tensor
