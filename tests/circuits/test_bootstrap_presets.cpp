// Bootstrapping presets: each validates for its security level, its chain
// leaves the levels and scale its header states, its failure probability
// matches an independent tail bound, and the small preset bootstraps end to
// end (real and complex inputs) within its precision. No N = 2^16 bootstrap
// here: that preset is only built (parameters, context, scale chain).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/rlwe/security.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

// The levels each preset's header promises: {name, N, levels left, bits left}.
struct Promise {
  const char* name;
  uint64_t degree;
  std::size_t levels;
  int bits;
};
constexpr Promise kPromises[] = {{"n16", 65536, 8, 380},
                                 {"n16-encaps", 65536, 8, 380},
                                 {"small", 4096, 3, 180},
                                 {"small-encaps", 4096, 3, 180}};

TEST(CircuitsBootstrapPresets, ValidateAndLeaveTheStatedLevels) {
  for (const Promise& promise : kPromises) {
    SCOPED_TRACE(promise.name);
    const BootstrapPreset preset = bootstrap_preset(promise.name);
    const rlwe::Parameters& p = preset.parameters;
    EXPECT_NO_THROW(p.validate());
    EXPECT_EQ(p.degree, promise.degree);
    EXPECT_EQ(p.secret.kind, rlwe::SecretKind::uniform_ternary);
    EXPECT_EQ(preset.bootstrap.slots, 0u);  // full slots
    // Levels: what the bootstrapping spends, counted from the top.
    const std::size_t top = p.ciphertext_moduli.size() - 1;
    EXPECT_EQ(top - Bootstrapper::depth_for(preset.bootstrap), promise.levels);
    EXPECT_EQ(preset.output_level, promise.levels);
    int bits = 0;
    for (std::size_t l = 0; l <= promise.levels; ++l)
      bits += std::bit_width(p.ciphertext_moduli[l]);
    EXPECT_EQ(bits, promise.bits);
    EXPECT_EQ(preset.output_bits, promise.bits);
    // Every computation level's default scale is at least 2^40.
    const ckks::Evaluator evaluator(rlwe::Context::create(p));
    for (std::size_t l = 0; l <= promise.levels; ++l)
      EXPECT_GE(evaluator.scale_at(l), std::ldexp(1.0, 40)) << "level " << l;
    EXPECT_LT(evaluator.scale_at(promise.levels), std::exp2(40.01));
  }
}

TEST(CircuitsBootstrapPresets, N16IsSecureByTheHeStandard) {
  for (const char* name : {"n16", "n16-encaps"}) {
    const BootstrapPreset preset = bootstrap_preset(name);
    EXPECT_EQ(preset.parameters.security, rlwe::SecurityLevel::classic128) << name;
    // The HE Standard's bound for N = 2^16, 128 bits, ternary secrets.
    EXPECT_LE(preset.parameters.total_bits(), 1747) << name;
    EXPECT_GE(preset.output_level, 8u) << name;
  }
  EXPECT_EQ(bootstrap_preset("small").parameters.security, rlwe::SecurityLevel::none);
  EXPECT_EQ(bootstrap_preset("small-encaps").parameters.security, rlwe::SecurityLevel::none);
}

TEST(CircuitsBootstrapPresets, FunctionalPresetsAtN16AreSecureUpToP256) {
  for (const std::size_t p : {16u, 64u, 256u}) {
    const BootstrapPreset preset = functional_bootstrap_preset("n16-encaps", p);
    EXPECT_EQ(preset.parameters.security, rlwe::SecurityLevel::classic128) << p;
    EXPECT_LE(preset.parameters.total_bits(), 1747) << p;
    // Room for SlotsToCoeffs and the exact scale: an output can go through
    // another table.
    EXPECT_GE(preset.output_level, preset.bootstrap.slots_to_coeffs_levels + 1) << p;
    EXPECT_EQ(preset.bootstrap.sine_degree, FunctionalBootstrapper::table_degree(p, 16)) << p;
  }
  EXPECT_THROW((void)functional_bootstrap_preset("n16-encaps", 4096), InvalidArgument);
}

TEST(CircuitsBootstrapPresets, EncapsulatedPresetsUseAWeight32SparseSecret) {
  for (const char* name : {"n16-encaps", "small-encaps"}) {
    const BootstrapPreset preset = bootstrap_preset(name);
    EXPECT_EQ(preset.bootstrap.sparse_secret_weight, 32u) << name;
    // K = (h' + 1) / 2 rounded down: |I| cannot pass it, nothing can fail.
    EXPECT_EQ(preset.bootstrap.mod_range, 16u) << name;
    EXPECT_EQ(preset.failure_log2, -std::numeric_limits<double>::infinity()) << name;
  }
}

TEST(CircuitsBootstrapPresets, FailureProbabilityMatchesATailBound) {
  // P(|Z| > t) = 2 phi(t) / t (1 - 1/t^2 + 3/t^4 - ...), the asymptotic
  // series, within 15/t^6 relative for these t (about 8.5).
  for (const char* name : {"n16", "small"}) {
    const BootstrapPreset preset = bootstrap_preset(name);
    ASSERT_EQ(preset.bootstrap.sparse_secret_weight, 0u);
    const double n = static_cast<double>(preset.parameters.degree);
    const double sigma = std::sqrt((2 * n / 3 + 1) / 12);
    const double t = static_cast<double>(preset.bootstrap.mod_range) / sigma;
    const double phi = std::exp(-t * t / 2) / std::sqrt(2 * std::numbers::pi);
    const double tail = 2 * phi / t * (1 - 1 / (t * t) + 3 / std::pow(t, 4));
    EXPECT_NEAR(preset.failure_log2, std::log2(n * tail), 0.01) << name;
    EXPECT_LT(preset.failure_log2, -35) << name;
  }
}

TEST(CircuitsBootstrapPresets, SlotsToCoeffsFirstKeepsTheChainAndRaisesTheRatio) {
  for (const std::string& name : bootstrap_preset_names()) {
    const BootstrapPreset cts = bootstrap_preset(name);
    const BootstrapPreset stc = bootstrap_preset(name, BootstrapOrder::slots_to_coeffs_first);
    EXPECT_EQ(cts.bootstrap.order, BootstrapOrder::coeffs_to_slots_first) << name;
    EXPECT_EQ(stc.bootstrap.order, BootstrapOrder::slots_to_coeffs_first) << name;
    EXPECT_EQ(stc.parameters.ciphertext_moduli.size(), cts.parameters.ciphertext_moduli.size());
    EXPECT_EQ(stc.bootstrap.message_ratio_bits, 14) << name;
    EXPECT_EQ(cts.bootstrap.message_ratio_bits, 10) << name;
    // Measured where the preset runs here (not the dense n16).
    EXPECT_EQ(stc.precision_bits > 0, name != "n16") << name;
  }
  EXPECT_THROW((void)bootstrap_preset("n17", BootstrapOrder::slots_to_coeffs_first),
               InvalidArgument);
}

TEST(CircuitsBootstrapPresets, UnknownNameIsRefused) {
  EXPECT_THROW((void)bootstrap_preset("n17"), InvalidArgument);
  EXPECT_EQ(bootstrap_preset_names().size(), 4u);
  for (const std::string& name : bootstrap_preset_names())
    EXPECT_EQ(bootstrap_preset(name).name, name);
}

// Both small presets end to end with the keys create_keys makes: real and
// complex inputs within the preset's stated precision_bits.
TEST(CircuitsBootstrapPresets, SmallPresetsBootstrapRealAndComplex) {
  for (const char* name : {"small", "small-encaps"}) {
    SCOPED_TRACE(name);
    const BootstrapPreset preset = bootstrap_preset(name);
    testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
    const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
    EXPECT_EQ(bootstrapper.output_level(), preset.output_level);
    std::vector<std::size_t> progress;
    const BootstrapKeys keys = bootstrapper.create_keys(
        setup.keygen.secret_key(), [&](std::size_t done, std::size_t total) {
          EXPECT_EQ(total, bootstrapper.key_count());
          progress.push_back(done);
        });
    // Exactly the rotations, conjugation, relinearization (and two sparse keys).
    EXPECT_EQ(keys.galois.size(), bootstrapper.rotation_steps().size() + 1);
    EXPECT_EQ(keys.sparse.has_value(), preset.bootstrap.sparse_secret_weight > 0);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), bootstrapper.key_count());
    EXPECT_TRUE(std::ranges::is_sorted(progress));
    // Each Galois key holds only the towers of the highest level it is used
    // at: the SlotsToCoeffs keys sit below the top (and the bootstrap below
    // runs with them).
    std::size_t below_top = 0;
    for (const auto& [g, level] : bootstrapper.galois_key_levels()) {
      EXPECT_EQ(keys.galois.at(g).max_level(), level) << "element " << g;
      below_top += level < setup.context->max_level() ? 1 : 0;
    }
    EXPECT_GT(below_top, 0u);
    // dnum digits of (b, a), each over all L ciphertext and K special towers.
    const rlwe::Parameters& p = preset.parameters;
    EXPECT_EQ(key_switch_key_bytes(keys.relin.key),
              16.0 * static_cast<double>(p.digit_count() *
                                         (p.ciphertext_moduli.size() + p.special_moduli.size()) *
                                         p.degree));
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (bool complex : {false, true}) {
      std::vector<cd> x(bootstrapper.slots());
      for (auto& v : x)
        v = cd(dist(rng), complex ? dist(rng) : 0.0);
      const auto out = bootstrapper.bootstrap(setup.encrypt(x, 0), keys);
      EXPECT_EQ(out.level(), preset.output_level);
      EXPECT_NEAR(out.scale / setup.evaluator.scale_at(out.level()), 1.0, 1e-9);
      const double worst = testing::max_error(setup.decrypt(out), x);
      std::printf("%s preset, %s: max error 2^%.1f (stated: 2^-%d)\n", name,
                  complex ? "complex" : "real", std::log2(worst), preset.precision_bits);
      EXPECT_LT(worst, std::ldexp(1.0, -preset.precision_bits)) << "log2 " << std::log2(worst);
    }
  }
}

}  // namespace
}  // namespace heft::circuits
