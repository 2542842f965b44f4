// Function approximations: Chebyshev interpolants against the functions
// themselves (in the clear and encrypted), the minimax sign polynomial's
// equioscillation, the composite sign within its stated precision, and
// ReLU on ciphertexts against max(x, 0).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/approximation.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

TEST(CircuitsApproximation, InterpolantsConvergeToTheirFunctions) {
  struct Case {
    Polynomial p;
    std::function<double(double)> f;
    double a, b, tolerance;
  };
  const std::vector<Case> cases{
      {approximations::sigmoid(-8, 8, 63), [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8,
       1e-6},
      {approximations::exp(-2, 2, 20), [](double x) { return std::exp(x); }, -2, 2, 1e-12},
      {approximations::log(1, 10, 60), [](double x) { return std::log(x); }, 1, 10, 1e-9},
      {approximations::sqrt(1, 4, 30), [](double x) { return std::sqrt(x); }, 1, 4, 1e-12},
      {approximations::inverse(1, 8, 60), [](double x) { return 1 / x; }, 1, 8, 1e-9},
      {approximations::tanh(-4, 4, 63), [](double x) { return std::tanh(x); }, -4, 4, 1e-7},
      {approximations::gelu(-6, 6, 63),
       [](double x) { return x * (1 + std::erf(x / std::sqrt(2.0))) / 2; }, -6, 6, 1e-7},
  };
  for (const auto& c : cases)
    EXPECT_LT(max_error(c.p, c.f, c.a, c.b), c.tolerance);
  EXPECT_THROW((void)approximations::log(0, 1, 8), InvalidArgument);
  EXPECT_THROW((void)approximations::inverse(-1, 1, 8), InvalidArgument);
  EXPECT_THROW((void)chebyshev_interpolate([](double) { return NAN; }, 0, 1, 4), InvalidArgument);
}

TEST(CircuitsApproximation, MinimaxSignEquioscillates) {
  double error = 0;
  const Polynomial p = minimax_sign(0.1, 15, &error);
  EXPECT_TRUE(p.is_odd());
  EXPECT_GT(error, 0);
  EXPECT_LT(error, 0.5);
  // Sampled error never exceeds the reported one (beyond grid resolution),
  // and comes near it at several points of alternating sign.
  double worst = 0;
  int sign_changes = 0;
  double previous = 0;
  for (int i = 0; i <= 100000; ++i) {
    const double x = 0.1 + 0.9 * i / 100000.0;
    const double e = p(x).real() - 1;
    worst = std::max(worst, std::abs(e));
    if (i > 0 && (e > 0) != (previous > 0)) ++sign_changes;
    previous = e;
  }
  EXPECT_LT(worst, error * 1.001);
  EXPECT_GE(sign_changes, 8);  // k + 1 = 9 extrema alternate: at least 8 changes
  // Better than the interpolant of the same degree (the minimax property).
  const Polynomial interpolant =
      chebyshev_interpolate([](double x) { return x > 0 ? 1.0 : -1.0; }, -1, 1, 15);
  EXPECT_LT(error, max_error(
                       interpolant, [](double) { return 1.0; }, 0.1, 1.0));
}

TEST(CircuitsApproximation, CompositeSignMeetsItsPrecision) {
  for (double epsilon : {0.1, 0.01, 1.0 / 256}) {
    const CompositePolynomial sign = sign_approximation(epsilon, 20);
    EXPECT_GE(sign.stages.size(), 2u);
    for (int i = 0; i <= 20000; ++i) {
      const double x = epsilon + (1 - epsilon) * i / 20000.0;
      ASSERT_NEAR(sign(x), 1.0, std::ldexp(1.0, -20)) << "epsilon " << epsilon << " x " << x;
      ASSERT_NEAR(sign(-x), -1.0, std::ldexp(1.0, -20));
    }
    for (int i = 0; i <= 1000; ++i)
      ASSERT_LE(std::abs(sign(i / 1000.0)), 1.0 + std::ldexp(1.0, -20));
  }
}

struct Fixture : testing::CkksSetup {
  Fixture() : CkksSetup(testing::make_deep_context(14)) {}
  PolynomialEvaluator polynomials{context, relin};
};

TEST(CircuitsApproximation, EncryptedFunctionsAndRelu) {
  Fixture f;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> dist(-1, 1);
  const std::size_t n = f.encoder.max_slots();
  std::vector<cd> x(n);
  for (auto& v : x)
    v = dist(rng);
  const std::size_t top = f.context->max_level();
  const auto ct = f.encrypt(x, top);

  // Sigmoid on [-1, 1] (an interval of width 2: no level for the variable).
  const Polynomial sigmoid = approximations::sigmoid(-1, 1, 31);
  const auto s = f.encoder.decode(f.decryptor.decrypt(f.polynomials.evaluate(ct, sigmoid)));
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(s[i].real(), 1 / (1 + std::exp(-x[i].real())), 1e-6);

  // ReLU through a composite sign: exact where |x| >= epsilon.
  const double epsilon = 1.0 / 64;
  const CompositePolynomial sign = sign_approximation(epsilon, 12, 15);
  ASSERT_LE(sign.depth() + 1, top);
  const auto r = f.polynomials.relu(ct, sign);
  EXPECT_EQ(r.level(), top - sign.depth() - 1);
  const auto got = f.encoder.decode(f.decryptor.decrypt(r));
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i].real();
    const double tolerance = std::abs(v) >= epsilon ? 1e-3 : epsilon;
    ASSERT_NEAR(got[i].real(), std::max(v, 0.0), tolerance) << "x = " << v;
  }
}

}  // namespace
}  // namespace heft::circuits
