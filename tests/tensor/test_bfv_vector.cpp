// BFVVector against exact integer arithmetic modulo t, for a vector in one
// row (5 values), one across both rows of a ciphertext (3000 of 4096 slots)
// and one over two ciphertexts (5000): element-wise operations, powers,
// sums, dot products, vector x matrix, polynomials, serialization, errors.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "heft/tensor/bfv_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Integers = std::vector<int64_t>;
constexpr int64_t kT = 1032193;

TensorContext::Ptr& context() {
  static auto c = testing::make_bfv_context();
  return c;
}

// x mod t in (-t/2, t/2], as decrypt() returns it.
int64_t centre(__int128 x) {
  auto r = static_cast<int64_t>(x % kT);
  if (r < 0) r += kT;
  return r > kT / 2 ? r - kT : r;
}

template <class F>
Integers zip(const Integers& a, const Integers& b, F f) {
  Integers out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out[i] = centre(f(static_cast<__int128>(a[i]), static_cast<__int128>(b[i])));
  return out;
}

class BFVVectorSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BFVVectorSizes, ElementWise) {
  const std::size_t n = GetParam();
  const Integers a = testing::random_integers(n, 1, 1000), b = testing::random_integers(n, 2, 1000);
  const auto x = BFVVector::encrypt(context(), a), y = BFVVector::encrypt(context(), b);
  EXPECT_EQ(x.ciphertexts().size(), (n + 4095) / 4096);
  EXPECT_EQ(x.decrypt(), a);
  const auto plus = [](__int128 u, __int128 v) { return u + v; };
  const auto minus = [](__int128 u, __int128 v) { return u - v; };
  const auto times = [](__int128 u, __int128 v) { return u * v; };
  EXPECT_EQ(x.add(y).decrypt(), zip(a, b, plus));
  EXPECT_EQ(x.sub(y).decrypt(), zip(a, b, minus));
  EXPECT_EQ(x.mul(y).decrypt(), zip(a, b, times));
  EXPECT_EQ(x.add(b).decrypt(), zip(a, b, plus));
  EXPECT_EQ(x.sub(b).decrypt(), zip(a, b, minus));
  EXPECT_EQ(x.mul(b).decrypt(), zip(a, b, times));
  EXPECT_EQ(x.add(7).decrypt(), zip(a, a, [](__int128 u, __int128) { return u + 7; }));
  EXPECT_EQ(x.sub(7).decrypt(), zip(a, a, [](__int128 u, __int128) { return u - 7; }));
  EXPECT_EQ(x.mul(-3).decrypt(), zip(a, a, [](__int128 u, __int128) { return -3 * u; }));
  EXPECT_EQ(x.negate().decrypt(), zip(a, a, [](__int128 u, __int128) { return -u; }));
  EXPECT_EQ(x.square().decrypt(), zip(a, a, times));
  EXPECT_EQ(x.pow(3).decrypt(), zip(a, a, [](__int128 u, __int128) { return u * u % kT * u; }));
  EXPECT_EQ(x.pow(0).decrypt(), Integers(n, 1));
  auto z = x.copy();
  z.add_inplace(y).mul_inplace(b).sub_inplace(int64_t{5});
  Integers want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = centre((static_cast<__int128>(a[i]) + b[i]) * b[i] - 5);
  EXPECT_EQ(z.decrypt(), want);
}

TEST_P(BFVVectorSizes, SumsDotsAndPolynomials) {
  const std::size_t n = GetParam();
  const Integers a = testing::random_integers(n, 3, 1000), b = testing::random_integers(n, 4, 1000);
  const auto x = BFVVector::encrypt(context(), a), y = BFVVector::encrypt(context(), b);
  __int128 sum = 0, dot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += a[i];
    dot += static_cast<__int128>(a[i]) * b[i];
  }
  const auto s = x.sum();
  EXPECT_EQ(s.decrypt(), Integers{centre(sum)});
  EXPECT_EQ(x.dot(y).decrypt(), Integers{centre(dot)});
  EXPECT_EQ(x.dot(b).decrypt(), Integers{centre(dot)});
  EXPECT_EQ(x.add(1).sum().decrypt(), Integers{centre(sum + static_cast<__int128>(n))});
  EXPECT_EQ(s.sum().decrypt(), Integers{centre(sum)});  // masked padding
  // 3 - 2 x + x^3
  const Integers coefficients = {3, -2, 0, 1};
  EXPECT_EQ(x.polyval(coefficients).decrypt(),
            zip(a, a, [](__int128 u, __int128) { return 3 - 2 * u + u * u % kT * u; }));
}

TEST_P(BFVVectorSizes, Matmul) {
  const std::size_t n = GetParam();
  const Integers a = testing::random_integers(n, 5, 1000);
  std::vector<Integers> m;
  for (std::size_t i = 0; i < n; ++i)
    m.push_back(testing::random_integers(6, 100 + i, 100));
  Integers want(6);
  for (std::size_t j = 0; j < 6; ++j) {
    __int128 acc = 0;
    for (std::size_t i = 0; i < n; ++i)
      acc += static_cast<__int128>(a[i]) * m[i][j];
    want[j] = centre(acc);
  }
  EXPECT_EQ(BFVVector::encrypt(context(), a).matmul(m).decrypt(), want);
}

INSTANTIATE_TEST_SUITE_P(OneRowTwoRowsTwoCiphertexts, BFVVectorSizes,
                         ::testing::Values(5, 3000, 5000));

TEST(BFVVector, MatmulWithOutputsInBothRows) {
  const Integers a = testing::random_integers(10, 6, 1000);
  std::vector<Integers> m;
  for (std::size_t i = 0; i < 10; ++i)
    m.push_back(testing::random_integers(2100, 300 + i, 100));
  Integers want(2100);
  for (std::size_t j = 0; j < want.size(); ++j) {
    __int128 acc = 0;
    for (std::size_t i = 0; i < 10; ++i)
      acc += static_cast<__int128>(a[i]) * m[i][j];
    want[j] = centre(acc);
  }
  EXPECT_EQ(BFVVector::encrypt(context(), a).matmul(m).decrypt(), want);
}

TEST(BFVVector, ErrorsAndSerialization) {
  const Integers a = {1, -2, 3};
  auto x = BFVVector::encrypt(context(), a);
  EXPECT_THROW(x.add_inplace(BFVVector::encrypt(context(), Integers{1})), MismatchError);
  EXPECT_THROW(x.mul_inplace(Integers{1, 2}), MismatchError);
  auto without_keys = testing::make_bfv_context(false);
  const auto w = BFVVector::encrypt(without_keys, a);
  EXPECT_THROW(x.add_inplace(w), MismatchError);
  EXPECT_THROW((void)w.sum(), InvalidArgument);  // no Galois keys
  EXPECT_EQ(x.decrypt(), a);
  rlwe::LoadOptions options;
  options.allow_insecure_parameters = true;
  const auto loaded = BFVVector::load(context(), x.sum().serialize(), options);
  EXPECT_EQ(loaded.decrypt(), Integers{2});
  EXPECT_THROW((void)BFVVector::load(context(), rlwe::Bytes{1, 2}, options), FormatError);
}

TEST(BFVVector, ASpentNoiseBudgetIsRefusedNotDecryptedWrong) {
  // SEAL's default primes for N = 4096 (72 bits of Q) and a 20-bit t: one
  // product leaves the budget at 0 to 2 bits (so the product alone is
  // refused in some runs), and the rotations of a sum spend it: that
  // decrypted to garbage before the check.
  TenSEALArguments arguments;
  arguments.scheme = Scheme::bfv;
  arguments.poly_modulus_degree = 4096;
  arguments.plain_modulus = 1032193;
  const auto context = TensorContext::create(arguments);
  context->generate_galois_keys();
  const std::vector<int64_t> a = {3, -7, 12, 0, 5}, b = {2, 4, -6, 9, 1};
  const auto x = BFVVector::encrypt(context, a), y = BFVVector::encrypt(context, b);
  EXPECT_THROW((void)x.mul(y).sum().decrypt(), NoiseBudgetError);
}

// pack_vectors against concatenation, for TenSEAL's test sizes and counts
// and for a vector whose padding holds values (a sum's partial sums).
TEST(BFVVector, PackVectorsConcatenates) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int64_t> value(-1000, 1000);
  for (const std::size_t count : {1, 2, 9}) {
    for (const std::size_t size : {1, 3, 64}) {
      std::vector<BFVVector> vectors;
      Integers want;
      for (std::size_t i = 0; i < count; ++i) {
        Integers v(size);
        for (auto& x : v)
          x = value(rng);
        want.insert(want.end(), v.begin(), v.end());
        vectors.push_back(BFVVector::encrypt(context(), v));
      }
      const auto packed = BFVVector::pack_vectors(vectors);
      EXPECT_EQ(packed.size(), want.size());
      EXPECT_EQ(packed.decrypt(), want) << count << " x " << size;
    }
  }
  std::vector<BFVVector> mixed;
  mixed.push_back(BFVVector::encrypt(context(), Integers{1, 2, 3}).sum());  // padding not zero
  mixed.push_back(BFVVector::encrypt(context(), Integers{4, 5}));
  EXPECT_EQ(BFVVector::pack_vectors(mixed).decrypt(), (Integers{6, 4, 5}));
  // Errors: nothing, too many values for a row, no keys for the offsets.
  EXPECT_THROW((void)BFVVector::pack_vectors({}), InvalidArgument);
  std::vector<BFVVector> too_many;
  too_many.push_back(BFVVector::encrypt(context(), Integers(2000, 1)));
  too_many.push_back(BFVVector::encrypt(context(), Integers(100, 1)));
  EXPECT_THROW((void)BFVVector::pack_vectors(too_many), InvalidArgument);
  const auto no_keys = testing::make_bfv_context(false);
  std::vector<BFVVector> keyless;
  keyless.push_back(BFVVector::encrypt(no_keys, Integers{1}));
  keyless.push_back(BFVVector::encrypt(no_keys, Integers{2}));
  EXPECT_THROW((void)BFVVector::pack_vectors(keyless), InvalidArgument);
  EXPECT_EQ(keyless[0].decrypt(), (Integers{1}));
}

}  // namespace
}  // namespace heft::tensor
