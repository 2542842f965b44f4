// Bootstrapper::bootstrap_refined (two iterations, META-BTS) on the small
// preset: the refined output decrypts to the input with about twice the bits
// of one bootstrap, at the same level and scale; bad `bits` are refused.
#include <gtest/gtest.h>

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

double max_error(const std::vector<cd>& got, const std::vector<cd>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

TEST(CircuitsBootstrapRefinement, TwoIterationsDoubleTheBits) {
  const BootstrapPreset preset = bootstrap_preset("small");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
  const auto keys = setup.keygen.create_galois_keys(bootstrapper.rotation_steps(), true);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<cd> x(bootstrapper.slots());
  for (auto& v : x)
    v = cd(dist(rng), dist(rng));
  const auto input = setup.encrypt(x, 0);
  const auto once = bootstrapper.bootstrap(input, setup.relin, keys);
  const double once_bits = -std::log2(max_error(setup.decrypt(once), x));
  // The amplified error, 2^bits times the first one, only needs to stay far
  // below q_0 / scale = 2^20 for the sine to be linear on it: two bits above
  // the first bootstrap's precision leaves it within 4.
  const int bits = static_cast<int>(once_bits) + 2;
  const auto twice = bootstrapper.bootstrap_refined(input, setup.relin, keys, bits);
  const double twice_bits = -std::log2(max_error(setup.decrypt(twice), x));
  std::printf("small preset: %.1f bits once, %.1f bits refined (bits = %d)\n", once_bits,
              twice_bits, bits);
  EXPECT_EQ(twice.level(), once.level());
  EXPECT_NEAR(twice.scale / once.scale, 1.0, 1e-12);
  EXPECT_GE(twice_bits, once_bits + 8);
  EXPECT_GE(twice_bits, 1.6 * once_bits);
}

TEST(CircuitsBootstrapRefinement, BitsOutsideTheHeadroomAreRefused) {
  const BootstrapPreset preset = bootstrap_preset("small");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
  const rlwe::GaloisKeys keys(setup.context);  // never reached
  const auto input = setup.encrypt(std::vector<cd>(bootstrapper.slots(), 0.5), 0);
  EXPECT_THROW((void)bootstrapper.bootstrap_refined(input, setup.relin, keys, 0), InvalidArgument);
  // q_0 is 60 bits and the scale at level 0 about 2^40: at most about 18.
  EXPECT_THROW((void)bootstrapper.bootstrap_refined(input, setup.relin, keys, 19), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
