// Sparse-secret encapsulation on its own: the small context holds q_0 and
// p_0 under a sparse secret, the switch to the sparse secret really changes
// the key (the result no longer decrypts under s) and the switch back
// restores the values, the keys' shapes, and bad input refused.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "circuits_test_support.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/bootstrapper.hpp"
#include "heft/circuits/sparse_secret_encapsulation.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {
namespace {

using cd = std::complex<double>;

struct Fixture {
  Fixture()
      : setup(rlwe::Context::create(bootstrap_preset("small-encaps").parameters)),
        encapsulation(setup.context, 32),
        keys(encapsulation.create_keys(setup.keygen.secret_key())) {}
  std::vector<cd> values() const {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<cd> x(setup.context->degree() / 2);
    for (auto& v : x)
      v = cd(dist(rng), dist(rng));
    return x;
  }

  testing::CkksSetup setup;
  SparseSecretEncapsulation encapsulation;
  SparseSecretKeys keys;
};

TEST(CircuitsSparseSecretEncapsulation, SmallContextIsQ0AndP0UnderASparseSecret) {
  Fixture f;
  const rlwe::Parameters& main = f.setup.context->parameters();
  const rlwe::Parameters& small = f.encapsulation.small_context()->parameters();
  EXPECT_EQ(small.ciphertext_moduli, std::vector<uint64_t>{main.ciphertext_moduli[0]});
  EXPECT_EQ(small.special_moduli, std::vector<uint64_t>{main.special_moduli[0]});
  EXPECT_EQ(small.secret.kind, rlwe::SecretKind::sparse_ternary);
  EXPECT_EQ(small.secret.hamming_weight, 32u);
  // The dense-to-sparse key exists only over q_0 p_0: one digit, 1 + 1 towers.
  EXPECT_EQ(f.keys.to_sparse.b.size(), 1u);
  EXPECT_EQ(f.keys.to_sparse.b[0].q.tower_count(), 1u);
  EXPECT_EQ(f.keys.to_sparse.b[0].p.tower_count(), 1u);
  EXPECT_EQ(f.keys.to_dense.b.size(), main.digit_count());
  EXPECT_EQ(key_switch_key_bytes(f.keys.to_sparse), 16.0 * 2 * static_cast<double>(main.degree));
}

TEST(CircuitsSparseSecretEncapsulation, SwitchesAwayAndBack) {
  Fixture f;
  const auto x = f.values();
  const auto low = f.setup.encrypt(x, 0);
  const auto sparse = f.encapsulation.to_sparse(low, f.keys);
  EXPECT_EQ(sparse.level(), 0u);
  EXPECT_EQ(sparse.scale, low.scale);
  // Under s the switched ciphertext is noise: s' is another key.
  EXPECT_GT(testing::max_error(f.setup.decrypt(sparse), x), 1.0);
  // Back to s (at level 0 too): the values within the two key switches'
  // noise. At level 0 each digit is all of q_0 over a P of one prime of the
  // same size, so each adds about 2^8 per coefficient, 2^14 per slot at
  // N = 2^12: 2^-26 against the scale 2^40 (bootstrapping switches after
  // the scale-up, where it is 2^10 times smaller).
  const auto back = f.encapsulation.to_dense(sparse, f.keys);
  EXPECT_LT(testing::max_error(f.setup.decrypt(back), x), std::ldexp(1.0, -22));
}

TEST(CircuitsSparseSecretEncapsulation, BadInputIsRefused) {
  Fixture f;
  EXPECT_THROW(SparseSecretEncapsulation(f.setup.context, 0), InvalidArgument);
  EXPECT_THROW(SparseSecretEncapsulation(f.setup.context, 5000), InvalidArgument);
  const auto high = f.setup.encrypt(f.values(), 2);
  EXPECT_THROW((void)f.encapsulation.to_sparse(high, f.keys), InvalidArgument);
  // Keys of another encapsulation (another small context) are refused.
  const SparseSecretEncapsulation other(f.setup.context, 32);
  const SparseSecretKeys other_keys = other.create_keys(f.setup.keygen.secret_key());
  const auto low = f.setup.encrypt(f.values(), 0);
  EXPECT_THROW((void)f.encapsulation.to_sparse(low, other_keys), MismatchError);
  // A bootstrapper that encapsulates refuses the keys-without-sparse form.
  const BootstrapPreset preset = bootstrap_preset("small-encaps");
  const Bootstrapper bootstrapper(f.setup.context, preset.bootstrap);
  const rlwe::GaloisKeys galois(f.setup.context);
  EXPECT_THROW((void)bootstrapper.bootstrap(low, f.setup.relin, galois), InvalidArgument);
  BootstrapKeys without{f.setup.keygen.create_relin_key(), rlwe::GaloisKeys(f.setup.context),
                        std::nullopt};
  EXPECT_THROW((void)bootstrapper.bootstrap(low, without), InvalidArgument);
}

}  // namespace
}  // namespace heft::circuits
