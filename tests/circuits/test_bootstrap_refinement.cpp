// Bootstrapper::bootstrap_refined (two iterations, META-BTS) on the small
// preset: the refined output decrypts to the input with about twice the bits
// of one bootstrap, at the same level and scale; bad `bits` are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

TEST(CircuitsBootstrapRefinement, TwoIterationsAddPrecision) {
  const BootstrapPreset preset = bootstrap_preset("small");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
  const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<cd> x(bootstrapper.slots());
  for (auto& v : x)
    v = cd(dist(rng), dist(rng));
  const auto input = setup.encrypt(x, 0);
  const auto once = bootstrapper.bootstrap(input, keys);
  const double once_bits = -std::log2(testing::max_error(setup.decrypt(once), x));
  // The preset's stated lower bound on one bootstrap's precision.
  const int bits = preset.precision_bits;
  ASSERT_LE(bits, once_bits);
  const auto twice = bootstrapper.bootstrap_refined(input, keys, bits);
  const double twice_bits = -std::log2(testing::max_error(setup.decrypt(twice), x));
  std::printf("small preset: %.1f bits once, %.1f bits refined (bits = %d)\n", once_bits,
              twice_bits, bits);
  EXPECT_EQ(twice.level(), once.level());
  EXPECT_NEAR(twice.scale / once.scale, 1.0, 1e-12);
  // The gain is small at the output's default scale: the second bootstrap's
  // values, the first error (2^-22), have few integers above SlotsToCoeffs'
  // rounding at 2^40 (docs/architecture.md, "Iterative refinement").
  EXPECT_GE(twice_bits, once_bits + 1.5);
}

TEST(CircuitsBootstrapRefinement, BitsOutsideTheHeadroomAreRefused) {
  const BootstrapPreset preset = bootstrap_preset("small");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
  const rlwe::GaloisKeys keys(setup.context);  // never reached
  const auto input = setup.encrypt(std::vector<cd>(bootstrapper.slots(), 0.5), 0);
  for (const int bits : {-1, 0, 2, 51, 64}) {
    EXPECT_THROW((void)bootstrapper.bootstrap_refined(input, setup.relin, keys, bits),
                 InvalidArgument)
        << bits;
  }
}

}  // namespace
}  // namespace heft::circuits
