// Polynomial evaluation on CKKS ciphertexts against the same polynomial
// evaluated in complex doubles (Horner / Clenshaw): power and Chebyshev
// bases, degrees 1 to 255 and 1023, odd, even and general, real and complex
// coefficients, several polynomials on one input, slot groups. Each result
// must sit exactly depth() levels below its input, with exactly the scale
// asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/polynomial.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

struct Fixture : testing::CkksSetup {
  Fixture() : CkksSetup(testing::make_deep_context(11)) {}
  PolynomialEvaluator polynomials{context, relin};
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

std::vector<cd> random_inputs(std::size_t n, double lo, double hi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<cd> x(n);
  for (auto& v : x)
    v = dist(rng);
  return x;
}

// Evaluates p on x in [lo, hi] at the top level and checks the values, the
// level and the scale. Returns the largest error.
double check_polynomial(const Polynomial& p, double lo, double hi, std::mt19937_64& rng,
                        double tolerance) {
  Fixture& f = fixture();
  const std::size_t top = f.context->max_level();
  const auto x = random_inputs(f.encoder.max_slots(), lo, hi, rng);
  const rlwe::Ciphertext ct = f.encrypt(x, top);
  const double target = std::ldexp(1.0, 44) * 1.2345;
  const rlwe::Ciphertext out = f.polynomials.evaluate(ct, p, target);
  EXPECT_EQ(out.level(), top - p.depth()) << "degree " << p.degree();
  EXPECT_EQ(out.scale, target);
  EXPECT_EQ(out.size(), 2u);
  const auto got = f.decrypt(out);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - p(x[i])));
  EXPECT_LT(worst, tolerance) << "degree " << p.degree();
  return worst;
}

TEST(CircuitsPolynomial, PowerBasisDegreesOneTo255) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> coefficient(-1, 1);
  for (std::size_t degree : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 31, 33, 63, 100, 127, 255}) {
    std::vector<double> c(degree + 1);
    // Decaying coefficients keep |p| moderate on [-1, 1] at every degree.
    for (std::size_t k = 0; k <= degree; ++k)
      c[k] = coefficient(rng) / (1.0 + static_cast<double>(k));
    check_polynomial(Polynomial::power(c), -1, 1, rng, 1e-6);
  }
}

TEST(CircuitsPolynomial, ChebyshevBasisOnAnInterval) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> coefficient(-1, 1);
  for (std::size_t degree : {1, 2, 3, 6, 13, 27, 59, 64, 119, 200, 255}) {
    std::vector<double> c(degree + 1);
    for (std::size_t k = 0; k <= degree; ++k)
      c[k] = coefficient(rng) / (1.0 + static_cast<double>(k));
    check_polynomial(Polynomial::chebyshev(c, -3.0, 5.0), -3.0, 5.0, rng, 1e-6);
  }
}

TEST(CircuitsPolynomial, ChebyshevDegree1023) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> coefficient(-1, 1);
  std::vector<double> c(1024);
  for (std::size_t k = 0; k < c.size(); ++k)
    c[k] = coefficient(rng) / (1.0 + static_cast<double>(k));
  check_polynomial(Polynomial::chebyshev(c), -1.0, 1.0, rng, 1e-5);
}

TEST(CircuitsPolynomial, OddAndEvenUseFewerProducts) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> coefficient(-1, 1);
  for (Basis basis : {Basis::power, Basis::chebyshev}) {
    std::vector<double> general(64), odd(64, 0.0), even(64, 0.0);
    for (std::size_t k = 0; k < 64; ++k) {
      general[k] = coefficient(rng) / (1.0 + static_cast<double>(k));
      (k % 2 ? odd : even)[k] = general[k];
    }
    const auto make = [&](const std::vector<double>& c) {
      return basis == Basis::power ? Polynomial::power(c) : Polynomial::chebyshev(c);
    };
    const Polynomial g = make(general), o = make(odd), e = make(even);
    EXPECT_TRUE(o.is_odd());
    EXPECT_TRUE(e.is_even());
    const auto& pe = fixture().polynomials;
    EXPECT_LT(pe.multiplication_count(o), pe.multiplication_count(g));
    EXPECT_LT(pe.multiplication_count(e), pe.multiplication_count(g));
    check_polynomial(o, -1, 1, rng, 1e-6);
    check_polynomial(e, -1, 1, rng, 1e-6);
  }
}

TEST(CircuitsPolynomial, ProductCountNearSqrtTwoD) {
  // About sqrt(2d) + log2(d) non-scalar products (Paterson–Stockmeyer).
  for (std::size_t degree : {15, 31, 59, 63, 119, 255, 1023}) {
    const Polynomial p = Polynomial::chebyshev(std::vector<double>(degree + 1, 0.5));
    const double bound =
        std::sqrt(2.0 * static_cast<double>(degree)) + std::log2(static_cast<double>(degree)) + 3;
    EXPECT_LE(static_cast<double>(fixture().polynomials.multiplication_count(p)), bound)
        << "degree " << degree;
  }
}

TEST(CircuitsPolynomial, ComplexCoefficients) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> coefficient(-1, 1);
  std::vector<cd> c(40);
  for (std::size_t k = 0; k < c.size(); ++k)
    c[k] = cd(coefficient(rng), coefficient(rng)) / (1.0 + static_cast<double>(k));
  check_polynomial(Polynomial::power(c), -1, 1, rng, 1e-6);
  check_polynomial(Polynomial::chebyshev(c, 0.0, 2.0), 0.0, 2.0, rng, 1e-6);
}

TEST(CircuitsPolynomial, SeveralPolynomialsShareTheInput) {
  Fixture& f = fixture();
  std::mt19937_64 rng(6);
  const auto x = random_inputs(f.encoder.max_slots(), -2, 2, rng);
  const rlwe::Ciphertext ct = f.encrypt(x, f.context->max_level());
  std::vector<Polynomial> ps{
      Polynomial::chebyshev(std::vector<double>{0.1, 0.2, 0.3}, -2, 2),
      Polynomial::chebyshev(std::vector<double>(31, 0.05), -2, 2),
      Polynomial::chebyshev(std::vector<double>{0, 1, 0, -0.5, 0, 0.25}, -2, 2)};
  const double target = f.evaluator.scale_at(3);
  const auto out = f.polynomials.evaluate(ct, ps, target);
  ASSERT_EQ(out.size(), ps.size());
  for (std::size_t k = 0; k < ps.size(); ++k) {
    EXPECT_EQ(out[k].level(), f.context->max_level() - ps[k].depth());
    const auto got = f.decrypt(out[k]);
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_LT(std::abs(got[i] - ps[k](x[i])), 1e-6);
  }
}

TEST(CircuitsPolynomial, APolynomialPerSlotGroup) {
  Fixture& f = fixture();
  std::mt19937_64 rng(7);
  const std::size_t slots = f.encoder.max_slots();
  const auto x = random_inputs(slots, -1, 1, rng);
  const rlwe::Ciphertext ct = f.encrypt(x, f.context->max_level());
  std::vector<Polynomial> ps{Polynomial::power(std::vector<double>{0.5, -1, 0, 2}),
                             Polynomial::power(std::vector<double>(20, -0.1))};
  std::vector<int> group(slots);
  for (std::size_t i = 0; i < slots; ++i)
    group[i] = static_cast<int>(i % 3) - 1;  // -1 (zero), 0, 1
  const double target = std::ldexp(1.0, 43);
  const auto out = f.polynomials.evaluate_slot_groups(ct, ps, group, target);
  EXPECT_EQ(out.level(), f.context->max_level() - ps[1].depth());
  EXPECT_EQ(out.scale, target);
  const auto got = f.decrypt(out);
  for (std::size_t i = 0; i < slots; ++i) {
    const cd want = group[i] < 0 ? cd(0) : ps[static_cast<std::size_t>(group[i])](x[i]);
    ASSERT_LT(std::abs(got[i] - want), 1e-6) << "slot " << i;
  }
}

TEST(CircuitsPolynomial, RefusesAnInputWithoutTheLevels) {
  Fixture& f = fixture();
  std::mt19937_64 rng(8);
  const auto x = random_inputs(8, -1, 1, rng);
  const rlwe::Ciphertext ct = f.encrypt(x, 3);
  const Polynomial p = Polynomial::power(std::vector<double>(16, 0.1));  // depth 4
  try {
    (void)f.polynomials.evaluate(ct, p);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("needs 4 levels; the input has 3"), std::string::npos)
        << e.what();
  }
  const Polynomial q = Polynomial::power(std::vector<double>(8, 0.1));  // depth 3: fits exactly
  EXPECT_EQ(f.polynomials.evaluate(ct, q).level(), 0u);
}

TEST(CircuitsPolynomial, ClearEvaluationMatchesDefinitions) {
  // The reference itself: Clenshaw against the cosine definition of T_k.
  std::vector<double> c{0.3, -0.2, 0.7, 0.1, -0.4};
  const Polynomial p = Polynomial::chebyshev(c, -2.0, 6.0);
  for (double x : {-2.0, -1.0, 0.5, 3.0, 6.0}) {
    const double y = (2 * x - 4.0) / 8.0;
    double want = 0;
    for (std::size_t k = 0; k < c.size(); ++k)
      want += c[k] * std::cos(static_cast<double>(k) * std::acos(y));
    EXPECT_NEAR(p(x).real(), want, 1e-12);
  }
  EXPECT_EQ(p.depth(), 4u);  // degree 4: 3 levels, and alpha = 1/4 takes one
  EXPECT_EQ(Polynomial::chebyshev(c, 0.0, 2.0).depth(), 3u);   // alpha = 1: free
  EXPECT_EQ(Polynomial::chebyshev(c, 0.0, 0.5).depth(), 3u);   // alpha = 4: an integer
  EXPECT_EQ(Polynomial::chebyshev(c, -4.0, 4.0).depth(), 4u);  // alpha = 1/4
  EXPECT_EQ(Polynomial::power(std::vector<double>{1, 2}).depth(), 1u);
  EXPECT_EQ(Polynomial::power(std::vector<double>{1}).depth(), 0u);
  EXPECT_THROW((void)Polynomial::chebyshev(c, 1.0, 1.0), InvalidArgument);
  EXPECT_THROW((void)Polynomial::power(std::vector<double>{}), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
