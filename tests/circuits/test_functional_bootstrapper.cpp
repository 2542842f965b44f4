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
#include "heft/circuits/integer_bootstrapping.hpp"
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
  for (auto& v : t)
    v = static_cast<double>(rng() % range);
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
  for (const std::size_t p : {4u, 16u, 17u, 256u}) {
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

TEST(CircuitsFunctionalBootstrapper, SeveralTablesShareOneBootstrap) {
  const std::size_t p = 16;
  const Fixture f(p);
  const auto m = all_residues(f.fbt.bootstrapper().slots(), p, 5);
  const auto input = f.setup.encrypt(std::vector<cd>(m.begin(), m.end()), f.fbt.entry_level());
  const std::vector<std::vector<double>> tables = {random_table(p, 256, 1), sign_table(p),
                                                   std::vector<double>(p, 3.0)};
  const auto outs = f.fbt.evaluate(input, tables, f.keys);
  ASSERT_EQ(outs.size(), 3u);
  for (std::size_t t = 0; t < tables.size(); ++t) {
    EXPECT_EQ(outs[t].level(), f.fbt.output_level());
    EXPECT_LT(table_error(f, outs[t], m, tables[t]), 1e-3) << "table " << t;
  }
}

TEST(CircuitsFunctionalBootstrapper, AnyIntegerIsReadModuloP) {
  // Negative integers and integers past p: the tables see x mod p.
  const std::size_t p = 16;
  const Fixture f(p);
  const std::size_t n = f.fbt.bootstrapper().slots();
  std::vector<double> x(n), residue(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(static_cast<int64_t>(i % 200) - 100);
    residue[i] = static_cast<double>(((static_cast<int64_t>(i % 200) - 100) % 16 + 16) % 16);
  }
  const auto input = f.setup.encrypt(std::vector<cd>(x.begin(), x.end()), f.fbt.entry_level());
  const auto table = random_table(p, 100, 9);
  EXPECT_LT(table_error(f, f.fbt.evaluate(input, table, f.keys), residue, table), 1e-3);
}

TEST(CircuitsFunctionalBootstrapper, ComparisonMaximumAndRefreshAgainstIntegers) {
  const std::size_t p = 64;
  const Fixture f(p);
  const std::size_t n = f.fbt.bootstrapper().slots();
  std::mt19937_64 rng(3);
  std::vector<double> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<double>(rng() % 32);
    b[i] = static_cast<double>(rng() % 32);
  }
  const auto level = f.fbt.entry_level() + 1;
  const auto ea = f.setup.encrypt(std::vector<cd>(a.begin(), a.end()), level);
  const auto eb = f.setup.encrypt(std::vector<cd>(b.begin(), b.end()), level);
  const auto sign = f.setup.decrypt(compare(f.fbt, ea, eb, f.keys));
  const auto max = f.setup.decrypt(maximum(f.fbt, ea, eb, f.keys));
  const auto fresh = refresh_integers(f.fbt, ea, f.keys);
  EXPECT_EQ(fresh.level(), f.fbt.output_level());
  const auto refreshed = f.setup.decrypt(fresh);
  for (std::size_t i = 0; i < n; ++i) {
    const double want_sign = a[i] > b[i] ? 1.0 : (a[i] < b[i] ? -1.0 : 0.0);
    ASSERT_EQ(std::round(sign[i].real()), want_sign) << i;
    ASSERT_EQ(std::round(max[i].real()), std::max(a[i], b[i])) << i;
    ASSERT_EQ(std::round(refreshed[i].real()), a[i]) << i;
    ASSERT_LT(std::abs(max[i].real() - std::max(a[i], b[i])), 1e-3) << i;
  }
  // The refreshed integers compute on: (a mod p)^2 at the next level.
  const auto squared =
      f.setup.decrypt(f.setup.evaluator.multiply_rescale(fresh, fresh, f.setup.relin));
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(squared[i].real(), a[i] * a[i], 1e-2) << i;
}

TEST(CircuitsFunctionalBootstrapper, DigitsOfLargerIntegers) {
  // 12-bit integers in base 16: three rounds.
  const std::size_t p = 16;
  const Fixture f(p);
  const std::size_t n = f.fbt.bootstrapper().slots();
  std::mt19937_64 rng(4);
  std::vector<double> x(n);
  for (auto& v : x)
    v = static_cast<double>(rng() % 4096);
  const auto input = f.setup.encrypt(std::vector<cd>(x.begin(), x.end()), f.fbt.output_level() + 1);
  const auto parts = digits(f.fbt, input, 3, f.keys);
  ASSERT_EQ(parts.size(), 3u);
  std::vector<std::vector<cd>> got;
  for (const auto& d : parts)
    got.push_back(f.setup.decrypt(d));
  for (std::size_t i = 0; i < n; ++i) {
    auto value = static_cast<uint64_t>(x[i]);
    for (std::size_t k = 0; k < 3; ++k, value /= 16)
      ASSERT_EQ(std::round(got[k][i].real()), static_cast<double>(value % 16))
          << i << " digit " << k;
  }
}

TEST(CircuitsFunctionalBootstrapper, RefusesBadInput) {
  const std::size_t p = 4;
  const Fixture f(p);
  const auto input =
      f.setup.encrypt(std::vector<cd>(f.fbt.bootstrapper().slots(), 1.0), f.fbt.entry_level());
  EXPECT_THROW((void)f.fbt.evaluate(input, std::vector<double>(3, 0.0), f.keys), InvalidArgument);
  EXPECT_THROW((void)f.fbt.evaluate(input, std::vector<double>{0, 1, NAN, 3}, f.keys),
               InvalidArgument);
  EXPECT_THROW((void)f.fbt.evaluate(input, std::vector<std::vector<double>>{}, f.keys),
               InvalidArgument);
  const auto low =
      f.setup.encrypt(std::vector<cd>(f.fbt.bootstrapper().slots(), 1.0), f.fbt.entry_level() - 1);
  EXPECT_THROW((void)f.fbt.evaluate(low, identity_table(p), f.keys), InvalidArgument);
  EXPECT_THROW(FunctionalBootstrapper(f.setup.context, f.preset.bootstrap, 1), InvalidArgument);
  EXPECT_THROW(FunctionalBootstrapper(f.setup.context, f.preset.bootstrap, 5000), InvalidArgument);
  // A chain whose EvalMod levels are too few for p = 64's table.
  EXPECT_THROW(FunctionalBootstrapper(f.setup.context, f.preset.bootstrap, 64), InvalidArgument);
  EXPECT_THROW((void)functional_bootstrap_preset("n16", 16), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
