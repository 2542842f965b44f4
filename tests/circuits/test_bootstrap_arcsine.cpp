// Bootstrapper's arcsine correction (BootstrapParameters::arcsine_degree) on
// the small preset: at a low message ratio the sine's cubic term, (2 pi e)^2
// / 6 relative, bounds the precision of a constant vector (all its size in
// one coefficient); the correction removes it. Errors are against what the
// input decrypts to; bad degrees are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

TEST(CircuitsBootstrapArcsine, RemovesTheSinesCubicTerm) {
  BootstrapPreset preset = bootstrap_preset("small");
  preset.bootstrap.message_ratio_bits = 4;
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper sine_only(setup.context, preset.bootstrap);
  BootstrapParameters corrected_parameters = preset.bootstrap;
  corrected_parameters.arcsine_degree = 3;
  const Bootstrapper corrected(setup.context, corrected_parameters);
  EXPECT_EQ(corrected.output_level() + 2, sine_only.output_level());
  EXPECT_EQ(Bootstrapper::depth_for(corrected_parameters), corrected.depth());

  const std::vector<cd> x(sine_only.slots(), cd(0.9, 0.0));
  const auto input = setup.encrypt(x, 0);
  const auto held = setup.decrypt(input);
  const auto bits = [&](const Bootstrapper& b) {
    const BootstrapKeys keys = b.create_keys(setup.keygen.secret_key());
    const auto out = b.bootstrap(input, keys);
    EXPECT_EQ(out.level(), b.output_level());
    return -std::log2(testing::max_error(setup.decrypt(out), held));
  };
  const double without = bits(sine_only);
  const double with = bits(corrected);
  std::printf(
      "message ratio 2^4, a constant 0.9: %.1f bits with the sine alone, %.1f with the "
      "arcsine correction\n",
      without, with);
  // The cubic term alone: (2 pi 0.9 / 16)^2 / 6 = 2^-5.6 relative; after a
  // degree-3 correction the quintic one, 3 (2 pi 0.9 / 16)^4 / 40 = 2^-9.7.
  // Measured 5.7 -> 9.9 bits (degrees 5 and 7 gave 9.8 and 9.2 here: a
  // plateau near 2^-10 in this low-ratio set-up that the Taylor terms do
  // not explain, not yet understood).
  EXPECT_LT(without, 8.0);
  EXPECT_GE(with, without + 3.5);
}

TEST(CircuitsBootstrapArcsine, DegreesOutsideTheRangeAreRefused) {
  const BootstrapPreset preset = bootstrap_preset("small");
  const auto context = rlwe::Context::create(preset.parameters);
  for (const std::size_t degree : {1u, 4u, 17u}) {
    BootstrapParameters parameters = preset.bootstrap;
    parameters.arcsine_degree = degree;
    EXPECT_THROW(Bootstrapper(context, parameters), InvalidArgument) << degree;
    EXPECT_THROW((void)Bootstrapper::depth_for(parameters), InvalidArgument) << degree;
  }
  // A chain without room for the correction's levels.
  BootstrapParameters parameters = preset.bootstrap;
  parameters.arcsine_degree = 15;
  EXPECT_THROW(Bootstrapper(context, parameters), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
