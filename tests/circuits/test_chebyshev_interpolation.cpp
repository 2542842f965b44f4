// chebyshev_interpolate at high degree: the interpolant of f(x) = x at
// degree 4095 is T_1 exactly, so every other coefficient is rounding noise,
// which must stay at the level of double precision (the bootstrapping sine
// is interpolated at this degree and its precision rests on it).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "heft/circuits/approximation.hpp"

namespace heft::circuits {
namespace {

TEST(CircuitsChebyshevInterpolation, HighDegreeCoefficientsAreExactToDoublePrecision) {
  const Polynomial p = chebyshev_interpolate([](double x) { return x; }, -1, 1, 4095);
  const auto& c = p.coefficients();
  ASSERT_EQ(c.size(), 4096u);
  EXPECT_NEAR(c[1].real(), 1.0, 1e-14);
  double worst = 0;
  for (std::size_t k = 0; k < c.size(); ++k)
    if (k != 1) worst = std::max(worst, std::abs(c[k]));
  EXPECT_LT(worst, 1e-15) << "log2 of the largest spurious coefficient " << std::log2(worst);
}

}  // namespace
}  // namespace heft::circuits
