// CKKS bootstrapping at a small insecure ring: the homomorphic DFT's stage
// matrices against ckks::SpecialFft, each phase alone against its plaintext
// counterpart, and whole bootstraps (full and sparse slots, real and
// complex values, twice in a row) against the input values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/bootstrapper.hpp"
#include "heft/circuits/homomorphic_dft.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

std::vector<cd> random_values(std::size_t n, bool complex, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<cd> v(n);
  for (auto& x : v)
    x = cd(dist(rng), complex ? dist(rng) : 0.0);
  return v;
}

std::size_t bit_reverse(std::size_t i, std::size_t n) {
  std::size_t r = 0;
  for (std::size_t b = 1; b < n; b <<= 1, i >>= 1)
    r = (r << 1) | (i & 1);
  return r;
}

TEST(CircuitsHomomorphicDft, StagesMatchTheSpecialFft) {
  std::mt19937_64 rng(1);
  for (std::size_t n : {2, 8, 64, 256}) {
    const std::size_t stages = static_cast<std::size_t>(std::countr_zero(n));
    for (std::size_t levels = 1; levels <= stages; ++levels) {
      const auto z = random_values(n, true, rng);
      // CoeffsToSlots: the inverse FFT without its bit reversal.
      std::vector<cd> v = z;
      for (const auto& m : coeffs_to_slots_matrices(n, levels, 1.0))
        v = apply_diagonal_matrix(m, v);
      std::vector<cd> u = z;
      ckks::SpecialFft(n).inverse(u);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_LT(std::abs(v[i] - u[bit_reverse(i, n)]), 1e-12) << n << " " << levels;
      // SlotsToCoeffs: the forward FFT, taking u bit-reversed.
      for (const auto& m : slots_to_coeffs_matrices(n, levels, 1.0))
        v = apply_diagonal_matrix(m, v);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_LT(std::abs(v[i] - z[i]), 1e-12);
    }
  }
}

struct Fixture {
  explicit Fixture(std::size_t slots)
      : setup(make_context()), bootstrapper(setup.context, parameters(slots)) {
    std::vector<int64_t> steps = bootstrapper.rotation_steps();
    keys = setup.keygen.create_galois_keys(steps, /*include_conjugation=*/true);
  }
  static std::shared_ptr<const rlwe::Context> make_context() {
    std::vector<int> bits{60};
    for (int i = 0; i < 16; ++i)
      bits.push_back(50);
    auto params = rlwe::make_parameters(4096, bits, {60, 60}, 0, rlwe::SecurityLevel::none);
    params.scale = std::ldexp(1.0, 50);
    params.secret = {rlwe::SecretKind::sparse_ternary, 32};
    return rlwe::Context::create(params);
  }
  static BootstrapParameters parameters(std::size_t slots) {
    BootstrapParameters p;
    p.slots = slots;
    p.coeffs_to_slots_levels = 2;
    p.slots_to_coeffs_levels = 2;
    p.mod_range = 12;  // |I| <= 12: over 5 standard deviations for h = 32
    return p;
  }
  double max_error(const rlwe::Ciphertext& ct, const std::vector<cd>& want) const {
    return testing::max_error(setup.decrypt(ct), want);
  }

  testing::CkksSetup setup;
  Bootstrapper bootstrapper;
  rlwe::GaloisKeys keys;
};

TEST(CircuitsBootstrapper, FullSlotsComplexAndReal) {
  Fixture f(0);
  std::mt19937_64 rng(2);
  for (bool complex : {true, false}) {
    const auto x = random_values(f.bootstrapper.slots(), complex, rng);
    const auto low = f.setup.evaluator.drop_to_level(f.setup.encrypt(x, 1), 0);
    const auto out = f.bootstrapper.bootstrap(low, f.setup.relin, f.keys);
    EXPECT_EQ(out.level(), f.bootstrapper.output_level());
    EXPECT_GE(out.level(), 1u);
    const double error = f.max_error(out, x);
    std::printf("bootstrap, full slots, %s: max error 2^%.1f\n", complex ? "complex" : "real",
                std::log2(error));
    EXPECT_LT(error, std::ldexp(1.0, -15)) << "log2 error " << std::log2(error);
  }
}

TEST(CircuitsBootstrapper, SparseSlotsAndTwiceInARow) {
  Fixture f(64);
  std::mt19937_64 rng(3);
  const auto x = random_values(64, true, rng);
  const auto low = f.setup.evaluator.drop_to_level(f.setup.encrypt(x, 1, 64), 0);
  const auto once = f.bootstrapper.bootstrap(low, f.setup.relin, f.keys);
  const double first = f.max_error(once, x);
  EXPECT_LT(first, std::ldexp(1.0, -18)) << "log2 error " << std::log2(first);
  const auto twice = f.bootstrapper.bootstrap(once, f.setup.relin, f.keys);
  const double second = f.max_error(twice, x);
  std::printf("bootstrap, 64 slots: max error 2^%.1f once, 2^%.1f twice\n", std::log2(first),
              std::log2(second));
  EXPECT_LT(second, std::ldexp(1.0, -17)) << "log2 error " << std::log2(second);
}

TEST(CircuitsBootstrapper, ComputesAfterItsOutput) {
  Fixture f(0);
  std::mt19937_64 rng(4);
  const auto x = random_values(f.bootstrapper.slots(), false, rng);
  const auto low = f.setup.evaluator.drop_to_level(f.setup.encrypt(x, 1), 0);
  const auto out = f.bootstrapper.bootstrap(low, f.setup.relin, f.keys);
  EXPECT_NEAR(out.scale / f.setup.evaluator.scale_at(out.level()), 1.0, 1e-9);
  const auto square = f.setup.evaluator.multiply(out, out, f.setup.relin);
  std::vector<cd> want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = x[i] * x[i];
  EXPECT_LT(f.max_error(square, want), std::ldexp(1.0, -13));
}

// Sparse-secret encapsulation with sparse slots: the small-encaps preset's
// parameters at 64 slots, real and complex, bootstrapped twice in a row.
TEST(CircuitsBootstrapper, EncapsulatedSparseSlotsTwiceInARow) {
  const BootstrapPreset preset = bootstrap_preset("small-encaps");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  BootstrapParameters parameters = preset.bootstrap;
  parameters.slots = 64;
  const Bootstrapper bootstrapper(setup.context, parameters);
  const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
  std::mt19937_64 rng(6);
  for (bool complex : {false, true}) {
    const auto x = random_values(64, complex, rng);
    const auto once = bootstrapper.bootstrap(setup.encrypt(x, 0, 64), keys);
    const auto twice = bootstrapper.bootstrap(once, keys);
    const double first = testing::max_error(setup.decrypt(once), x);
    const double second = testing::max_error(setup.decrypt(twice), x);
    std::printf("encapsulated, 64 slots, %s: max error 2^%.1f once, 2^%.1f twice\n",
                complex ? "complex" : "real", std::log2(first), std::log2(second));
    EXPECT_LT(first, std::ldexp(1.0, -preset.precision_bits));
    EXPECT_LT(second, std::ldexp(1.0, 1 - preset.precision_bits));
  }
}

// SlotsToCoeffs first: full and 64 slots, real and complex, from the entry
// level and from above it, twice in a row; below the entry level refused.
TEST(CircuitsBootstrapper, SlotsToCoeffsFirst) {
  const BootstrapPreset preset =
      bootstrap_preset("small-encaps", BootstrapOrder::slots_to_coeffs_first);
  EXPECT_EQ(preset.bootstrap.order, BootstrapOrder::slots_to_coeffs_first);
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  std::mt19937_64 rng(8);
  for (const std::size_t slots : {std::size_t{0}, std::size_t{64}}) {
    BootstrapParameters parameters = preset.bootstrap;
    parameters.slots = slots;
    const Bootstrapper bootstrapper(setup.context, parameters);
    EXPECT_EQ(bootstrapper.entry_level(), parameters.slots_to_coeffs_levels);
    // Only CoeffsToSlots and EvalMod come off the top.
    EXPECT_EQ(bootstrapper.output_level(), setup.context->max_level() -
                                               parameters.coeffs_to_slots_levels -
                                               bootstrapper.sine().depth());
    const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
    const std::size_t n = bootstrapper.slots();
    for (bool complex : {false, true}) {
      const auto x = random_values(n, complex, rng);
      const std::size_t level =
          complex ? bootstrapper.entry_level() + 2 : bootstrapper.entry_level();
      const auto once = bootstrapper.bootstrap(setup.encrypt(x, level, slots), keys);
      EXPECT_EQ(once.level(), bootstrapper.output_level());
      EXPECT_NEAR(once.scale / setup.evaluator.scale_at(once.level()), 1.0, 1e-9);
      const auto twice = bootstrapper.bootstrap(once, keys);
      const double first = testing::max_error(setup.decrypt(once), x);
      const double second = testing::max_error(setup.decrypt(twice), x);
      std::printf("SlotsToCoeffs first, %zu slots, %s: max error 2^%.1f once, 2^%.1f twice\n", n,
                  complex ? "complex" : "real", std::log2(first), std::log2(second));
      EXPECT_LT(first, std::ldexp(1.0, -preset.precision_bits));
      EXPECT_LT(second, std::ldexp(1.0, 1 - preset.precision_bits));
    }
    const auto too_low = setup.encrypt(random_values(n, false, rng), 1, slots);
    EXPECT_THROW((void)bootstrapper.bootstrap(too_low, keys), InvalidArgument);
  }
}

// Each phase alone against its plaintext counterpart, at the levels and
// scales bootstrap() uses them: CoeffsToSlots and SlotsToCoeffs against
// their matrices applied in double precision, EvalMod against
// sin(2 pi w) / 2 pi.
TEST(CircuitsBootstrapper, EachPhaseAloneMatchesItsPlaintextCounterpart) {
  const BootstrapPreset preset = bootstrap_preset("small-encaps");
  testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
  const Bootstrapper bootstrapper(setup.context, preset.bootstrap);
  const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
  const std::size_t n = bootstrapper.slots();
  const std::size_t top = setup.context->max_level();
  std::mt19937_64 rng(9);
  const auto apply = [](const std::vector<DiagonalMatrix>& matrices, std::vector<cd> v) {
    for (const auto& m : matrices)
      v = apply_diagonal_matrix(m, v);
    return v;
  };
  {  // CoeffsToSlots from the top level (full slots: no SubSum factor).
    const auto z = random_values(n, true, rng);
    const auto y = bootstrapper.coeffs_to_slots(setup.encrypt(z, top), keys.galois);
    EXPECT_EQ(y.level(), top - preset.bootstrap.coeffs_to_slots_levels);
    const auto want =
        apply(coeffs_to_slots_matrices(n, preset.bootstrap.coeffs_to_slots_levels, 1.0), z);
    EXPECT_LT(testing::max_error(setup.decrypt(y), want), std::ldexp(1.0, -25));
  }
  {  // EvalMod on w = I + e, |I| <= K, |e| <= 2^-10, at scale q_0.
    const double q0 = static_cast<double>(preset.parameters.ciphertext_moduli[0]);
    const std::size_t level = top - preset.bootstrap.coeffs_to_slots_levels;
    const auto k = static_cast<int>(preset.bootstrap.mod_range);
    std::uniform_int_distribution<int> integer(-k, k);
    std::uniform_real_distribution<double> small(-std::ldexp(1.0, -10), std::ldexp(1.0, -10));
    std::vector<cd> w(n), want(n);
    const double two_pi = 2 * std::acos(-1.0);
    for (std::size_t i = 0; i < n; ++i) {
      const double re = small(rng), im = small(rng);
      w[i] = cd(integer(rng) + re, integer(rng) + im);
      want[i] = cd(std::sin(two_pi * re), std::sin(two_pi * im)) / two_pi;
    }
    const auto x = setup.encryptor.encrypt(setup.encoder.encode(w, q0, level));
    const auto y = bootstrapper.eval_mod(x, keys.relin, keys.galois, q0);
    EXPECT_EQ(y.level(), level - bootstrapper.sine().depth());
    EXPECT_LT(testing::max_error(setup.decrypt(y), want), std::ldexp(1.0, -30));
  }
  {  // SlotsToCoeffs from EvalMod's output level (its scale-down included).
    const std::size_t level =
        top - preset.bootstrap.coeffs_to_slots_levels - bootstrapper.sine().depth();
    const auto u = random_values(n, true, rng);
    const auto y = bootstrapper.slots_to_coeffs(setup.encrypt(u, level), keys.galois);
    EXPECT_EQ(y.level(), bootstrapper.output_level());
    const auto want =
        apply(slots_to_coeffs_matrices(n, preset.bootstrap.slots_to_coeffs_levels, 1.0), u);
    EXPECT_LT(testing::max_error(setup.decrypt(y), want), std::ldexp(1.0, -18));
  }
}

// Real slots: both orders, full and 64 slots, with the keys create_keys
// makes. Real inputs come back within the order's stated precision, twice
// in a row too; an input with imaginary parts comes back as its real parts;
// EvalMod alone evaluates the real parts only.
TEST(CircuitsBootstrapper, RealSlotsBothOrdersFullAndSparse) {
  std::mt19937_64 rng(10);
  for (const BootstrapOrder order :
       {BootstrapOrder::coeffs_to_slots_first, BootstrapOrder::slots_to_coeffs_first}) {
    const BootstrapPreset preset = bootstrap_preset("small-encaps", order);
    testing::CkksSetup setup(rlwe::Context::create(preset.parameters));
    for (const std::size_t slots : {std::size_t{0}, std::size_t{64}}) {
      BootstrapParameters parameters = preset.bootstrap;
      parameters.slots = slots;
      parameters.real_slots = true;
      const Bootstrapper bootstrapper(setup.context, parameters);
      const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
      const std::size_t n = bootstrapper.slots();
      const auto x = random_values(n, false, rng);
      const auto input = setup.encrypt(x, bootstrapper.entry_level(), slots);
      const auto once = bootstrapper.bootstrap(input, keys);
      EXPECT_EQ(once.level(), bootstrapper.output_level());
      EXPECT_NEAR(once.scale / setup.evaluator.scale_at(once.level()), 1.0, 1e-9);
      const auto twice = bootstrapper.bootstrap(once, keys);
      const double first = testing::max_error(setup.decrypt(once), x);
      const double second = testing::max_error(setup.decrypt(twice), x);
      // A complex input: its real parts, the imaginary parts gone.
      const auto z = random_values(n, true, rng);
      std::vector<cd> real_parts(n);
      for (std::size_t i = 0; i < n; ++i)
        real_parts[i] = z[i].real();
      const auto projected =
          bootstrapper.bootstrap(setup.encrypt(z, bootstrapper.entry_level(), slots), keys);
      const double real_error = testing::max_error(setup.decrypt(projected), real_parts);
      std::printf(
          "real slots, %s, %zu slots: max error 2^%.1f once, 2^%.1f twice, 2^%.1f from a "
          "complex input\n",
          order == BootstrapOrder::coeffs_to_slots_first ? "CoeffsToSlots first"
                                                         : "SlotsToCoeffs first",
          n, std::log2(first), std::log2(second), std::log2(real_error));
      EXPECT_LT(first, std::ldexp(1.0, -preset.precision_bits));
      EXPECT_LT(second, std::ldexp(1.0, 1 - preset.precision_bits));
      EXPECT_LT(real_error, std::ldexp(1.0, -preset.precision_bits));
    }
    // EvalMod alone: sin(2 pi Re w) / 2 pi, nothing imaginary.
    BootstrapParameters parameters = preset.bootstrap;
    parameters.real_slots = true;
    const Bootstrapper bootstrapper(setup.context, parameters);
    const BootstrapKeys keys = bootstrapper.create_keys(setup.keygen.secret_key());
    const double q0 = static_cast<double>(preset.parameters.ciphertext_moduli[0]);
    const std::size_t level = setup.context->max_level() - parameters.coeffs_to_slots_levels;
    std::uniform_int_distribution<int> integer(-4, 4);
    std::uniform_real_distribution<double> small(-std::ldexp(1.0, -10), std::ldexp(1.0, -10));
    std::vector<cd> w(bootstrapper.slots()), want(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double re = small(rng);
      w[i] = cd(integer(rng) + re, integer(rng) + small(rng));
      want[i] = std::sin(2 * std::numbers::pi * re) / (2 * std::numbers::pi);
    }
    const auto y = bootstrapper.eval_mod(
        setup.encryptor.encrypt(setup.encoder.encode(w, q0, level)), keys.relin, keys.galois, q0);
    EXPECT_LT(testing::max_error(setup.decrypt(y), want), std::ldexp(1.0, -30));
  }
}

}  // namespace
}  // namespace heft::circuits
