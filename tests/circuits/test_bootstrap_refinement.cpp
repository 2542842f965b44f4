// Bootstrapper::bootstrap_refined (two iterations, META-BTS) on the small
// presets: the refined output decrypts to the input with several more bits
// than one bootstrap, one level lower at that level's scale, up to the
// rounding of that last rescale; bad `bits` are refused.
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
  for (const char* name : {"small", "small-encaps"}) {
    SCOPED_TRACE(name);
    const BootstrapPreset preset = bootstrap_preset(name);
    testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
    const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
    const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<cd> x(bootstrapper.slots());
    for (auto& v : x)
      v = cd(dist(rng), dist(rng));
    const auto input = setup.encrypt(x, 0);
    // Against what the input decrypts to: its own encryption noise at level
    // 0 (about 2^-24 here) is not the bootstrapping's to remove.
    const auto held = setup.decrypt(input);
    const auto once = bootstrapper.bootstrap(input, keys);
    const double once_bits = -std::log2(testing::max_error(setup.decrypt(once), held));
    // The preset's stated lower bound on one bootstrap's precision.
    const int bits = preset.precision_bits;
    ASSERT_LE(bits, once_bits);
    const auto twice = bootstrapper.bootstrap_refined(input, keys, bits);
    const double twice_bits = -std::log2(testing::max_error(setup.decrypt(twice), held));
    std::printf("%s: %.1f bits once, %.1f bits refined (bits = %d)\n", name, once_bits, twice_bits,
                bits);
    EXPECT_EQ(twice.level(), once.level() - 1);
    EXPECT_NEAR(twice.scale / setup.evaluator.scale_at(twice.level()), 1.0, 1e-10);
    // What bounds it: the last rescale's rounding at 2^40, about
    // sqrt(N) sqrt(h / 12) = 2^10 per slot at N = 2^12 under the dense
    // secret, 2^-30 in value (about 2^-28 at the largest of 2^11 slots):
    // measured 22.3 -> 27.9 bits (small), 25.4 -> 27.9 (small-encaps).
    EXPECT_GE(twice_bits, 27.0);
    EXPECT_GE(twice_bits, once_bits + 2);
  }
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
