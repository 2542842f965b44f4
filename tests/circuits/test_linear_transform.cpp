// Linear transforms against a plain matrix-vector product in complex
// doubles: dense, banded and random sparse-diagonal matrices, full and sparse
// slots, fewer rows than slots; the key list is exactly what evaluation
// uses, and a missing key is named.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/linear_transform.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

struct Fixture : testing::CkksSetup {
  Fixture() : CkksSetup(testing::make_deep_context(3, {60, 60})) {}
  rlwe::Ciphertext encrypt(const std::vector<cd>& x, std::size_t slots) const {
    return CkksSetup::encrypt(x, context->max_level(), slots);
  }
  LinearTransformEvaluator transforms{context};
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

std::vector<cd> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<cd> v(n);
  for (auto& x : v)
    x = cd(dist(rng), dist(rng));
  return v;
}

// y = M x for M given by its diagonals (diag_k[i] = M[i][(i + k) mod n]).
std::vector<cd> reference(const std::map<int64_t, std::vector<cd>>& diagonals,
                          const std::vector<cd>& x) {
  const std::size_t n = x.size();
  std::vector<cd> y(n, 0.0);
  const auto m = static_cast<int64_t>(n);
  for (const auto& [k, d] : diagonals) {
    const auto shift = static_cast<std::size_t>(((k % m) + m) % m);
    for (std::size_t i = 0; i < n; ++i)
      y[i] += d[i] * x[(i + shift) % n];
  }
  return y;
}

// y = M x for a rows x n matrix (row-major), rows <= n; missing rows are zero.
std::vector<cd> dense_product(const std::vector<cd>& matrix, std::size_t rows,
                              const std::vector<cd>& x) {
  const std::size_t n = x.size();
  std::vector<cd> y(n, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < n; ++j)
      y[i] += matrix[i * n + j] * x[j];
  return y;
}

// Evaluates with exactly the keys the transform lists, rescales, compares.
void check(const LinearTransform& m, const std::vector<cd>& x, const std::vector<cd>& want,
           double tolerance) {
  Fixture& f = fixture();
  const auto steps = m.rotation_steps();
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(steps);
  const rlwe::Ciphertext ct = f.encrypt(x, m.slots());
  const rlwe::Ciphertext y = f.transforms.evaluate(ct, m, keys);
  EXPECT_EQ(y.level(), ct.level());
  EXPECT_DOUBLE_EQ(y.scale, ct.scale * m.scale());
  const rlwe::Ciphertext rescaled = f.evaluator.rescale(y);
  EXPECT_NEAR(rescaled.scale / ct.scale, 1.0, 1e-12);  // the default diagonal scale is q_level
  const auto got = f.decrypt(rescaled);
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, tolerance);
}

TEST(CircuitsLinearTransform, DenseComplexMatrixSparseSlots) {
  Fixture& f = fixture();
  std::mt19937_64 rng(1);
  const std::size_t n = 256;
  const auto matrix = random_vector(n * n, rng);
  const auto x = random_vector(n, rng);
  const auto want = dense_product(matrix, n, x);
  LinearTransformOptions options;
  options.level = f.context->max_level();
  options.slots = n;
  const auto m = LinearTransform::from_matrix(f.encoder, matrix, n, options);
  EXPECT_EQ(m.diagonal_count(), n);
  EXPECT_GT(m.baby_steps(), 1u);
  EXPECT_GT(m.giant_step_count(), 1u);
  check(m, x, want, 1e-5);
}

TEST(CircuitsLinearTransform, FewerRowsThanSlots) {
  Fixture& f = fixture();
  std::mt19937_64 rng(2);
  const std::size_t n = 128, rows = 50;
  const auto matrix = random_vector(rows * n, rng);
  const auto x = random_vector(n, rng);
  const auto want = dense_product(matrix, rows, x);
  LinearTransformOptions options;
  options.level = f.context->max_level();
  options.slots = n;
  check(LinearTransform::from_matrix(f.encoder, matrix, rows, options), x, want, 1e-5);
}

TEST(CircuitsLinearTransform, BandedFullSlots) {
  Fixture& f = fixture();
  std::mt19937_64 rng(3);
  const std::size_t n = f.encoder.max_slots();
  std::map<int64_t, std::vector<cd>> diagonals;
  for (int64_t k = -3; k <= 3; ++k)
    diagonals[k] = random_vector(n, rng);
  const auto x = random_vector(n, rng);
  LinearTransformOptions options;
  options.level = f.context->max_level();
  check(LinearTransform::from_diagonals(f.encoder, diagonals, options), x, reference(diagonals, x),
        1e-6);
}

TEST(CircuitsLinearTransform, RandomSparseDiagonalsAndForcedBabySteps) {
  Fixture& f = fixture();
  std::mt19937_64 rng(4);
  const std::size_t n = f.encoder.max_slots();
  std::map<int64_t, std::vector<cd>> diagonals;
  std::uniform_int_distribution<int64_t> index(0, static_cast<int64_t>(n) - 1);
  while (diagonals.size() < 12)
    diagonals[index(rng)] = random_vector(n, rng);
  const auto x = random_vector(n, rng);
  const auto want = reference(diagonals, x);
  for (std::size_t baby : {0, 1, 4, 32}) {
    LinearTransformOptions options;
    options.level = f.context->max_level();
    options.baby_steps = baby;
    const auto m = LinearTransform::from_diagonals(f.encoder, diagonals, options);
    check(m, x, want, 1e-6);
  }
}

TEST(CircuitsLinearTransform, FromAFunctionAtALowerLevel) {
  Fixture& f = fixture();
  std::mt19937_64 rng(5);
  const std::size_t n = 512;
  const auto x = random_vector(n, rng);
  // A cyclic difference operator: y_i = x_(i+1) - 2 x_i + x_(i-1).
  const std::vector<int64_t> indices{-1, 0, 1};
  const auto diagonal = [&](int64_t k) { return std::vector<cd>(n, k == 0 ? -2.0 : 1.0); };
  LinearTransformOptions options;
  options.level = 2;
  options.slots = n;
  const auto m = LinearTransform::from_function(f.encoder, diagonal, indices, options);
  std::vector<cd> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = x[(i + 1) % n] - 2.0 * x[i] + x[(i + n - 1) % n];
  const rlwe::Ciphertext ct = f.evaluator.drop_to_level(f.encrypt(x, n), 2);
  const auto keys = f.keygen.create_galois_keys(m.rotation_steps());
  const auto got = f.decrypt(f.evaluator.rescale(f.transforms.evaluate(ct, m, keys)));
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_LT(std::abs(got[i] - want[i]), 1e-6);
}

TEST(CircuitsLinearTransform, KeyListIsExactAndMissingKeysAreNamed) {
  Fixture& f = fixture();
  std::mt19937_64 rng(6);
  const std::size_t n = f.encoder.max_slots();
  std::map<int64_t, std::vector<cd>> diagonals;
  for (int64_t k : {0, 1, 2, 3, 16, 17, 40})
    diagonals[k] = random_vector(n, rng);
  LinearTransformOptions options;
  options.level = f.context->max_level();
  options.baby_steps = 4;
  const auto m = LinearTransform::from_diagonals(f.encoder, diagonals, options);
  // Babies {1, 2, 3} (0 needs none), giants {16, 40}.
  EXPECT_EQ(m.rotation_steps(), (std::vector<int64_t>{1, 2, 3, 16, 40}));
  std::vector<int64_t> fewer{1, 2, 3, 40};
  const auto keys = f.keygen.create_galois_keys(fewer);
  const rlwe::Ciphertext ct = f.encrypt(random_vector(n, rng), n);
  try {
    (void)f.transforms.evaluate(ct, m, keys);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("rotation step(s) 16;"), std::string::npos) << e.what();
  }
}

TEST(CircuitsLinearTransform, SeveralTransformsShareOneDecomposition) {
  Fixture& f = fixture();
  std::mt19937_64 rng(7);
  const std::size_t n = f.encoder.max_slots();
  std::map<int64_t, std::vector<cd>> a, b;
  for (int64_t k : {0, 1, 5, 9})
    a[k] = random_vector(n, rng);
  for (int64_t k : {1, 2, 33})
    b[k] = random_vector(n, rng);
  LinearTransformOptions options;
  options.level = f.context->max_level();
  const auto ma = LinearTransform::from_diagonals(f.encoder, a, options);
  const auto mb = LinearTransform::from_diagonals(f.encoder, b, options);
  std::vector<int64_t> steps = ma.rotation_steps();
  for (const int64_t s : mb.rotation_steps())
    steps.push_back(s);
  const auto keys = f.keygen.create_galois_keys(steps);
  const auto x = random_vector(n, rng);
  const rlwe::Ciphertext ct = f.encrypt(x, n);
  const LinearTransform* both[] = {&ma, &mb};
  const auto results = f.transforms.evaluate(ct, both, keys);
  ASSERT_EQ(results.size(), 2u);
  const std::vector<cd> want[] = {reference(a, x), reference(b, x)};
  for (std::size_t t = 0; t < 2; ++t) {
    const auto got = f.decrypt(f.evaluator.rescale(results[t]));
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_LT(std::abs(got[i] - want[t][i]), 1e-6);
  }
}

TEST(CircuitsLinearTransform, BadInput) {
  Fixture& f = fixture();
  LinearTransformOptions options;
  options.slots = 64;
  EXPECT_THROW((void)LinearTransform::from_matrix(f.encoder, std::vector<cd>(10), 1, options),
               InvalidArgument);
  options.slots = 3;
  EXPECT_THROW((void)LinearTransform::from_matrix(f.encoder, std::vector<cd>(9), 3, options),
               InvalidArgument);
  options.slots = 64;
  options.baby_steps = 3;
  std::map<int64_t, std::vector<cd>> d{{0, std::vector<cd>(64, 1.0)}};
  EXPECT_THROW((void)LinearTransform::from_diagonals(f.encoder, d, options), InvalidArgument);
  options.baby_steps = 0;
  d[64] = std::vector<cd>(64, 1.0);  // 64 = 0 modulo the slot count
  EXPECT_THROW((void)LinearTransform::from_diagonals(f.encoder, d, options), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
