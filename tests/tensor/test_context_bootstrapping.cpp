// Bootstrapping through the tensor layer: a context on a bootstrapping preset
// (small-encaps and small, N = 2^12, insecure: fast), its keys, fresh
// encryptions at the encryption level, CKKSVector::bootstrap / refresh_for
// against the plain values, CKKSTensor::bootstrap / refresh_for,
// auto_bootstrap through chains deeper than the levels, the public context's
// bytes carrying the keys to a server that bootstraps,
// CKKSVector::linear_transform against the same sum of rotated products in
// doubles; errors typed, operands unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <map>
#include <string>
#include <vector>

#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor_test_support.hpp"

namespace heft::tensor {
namespace {

using Reals = std::vector<double>;

double max_error(const Reals& got, const Reals& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

// One context with its bootstrapping keys, shared (key generation and the
// bootstrapper's transforms take a second each).
const TensorContext::Ptr& shared_context() {
  static const TensorContext::Ptr context = [] {
    auto made = TensorContext::create_bootstrappable("small-encaps");
    made->generate_bootstrap_keys();
    return made;
  }();
  return context;
}

// What bootstrapping must keep, with margin below the preset's measured precision.
constexpr double kBootstrapTolerance = 1.0 / (1 << 14);

TEST(ContextBootstrapping, FreshEncryptionsStartAtTheBootstrapOutputLevel) {
  const auto& context = shared_context();
  const auto preset = circuits::bootstrap_preset("small-encaps");
  EXPECT_TRUE(context->is_bootstrappable());
  EXPECT_TRUE(context->has_bootstrap_keys());
  EXPECT_EQ(context->encryption_level(), preset.output_level);
  EXPECT_LT(context->encryption_level(), context->rlwe_context()->max_level());
  EXPECT_DOUBLE_EQ(context->global_scale(),
                   context->ckks_evaluator().scale_at(context->encryption_level()));
  const Reals x = testing::random_reals(context->slot_count(), 1);
  const CKKSVector v = CKKSVector::encrypt(context, x);
  EXPECT_EQ(v.level(), context->encryption_level());
  EXPECT_LT(max_error(v.decrypt(), x), 1e-6);
}

TEST(ContextBootstrapping, BootstrapsAVectorAtLevelZeroBackToTheEncryptionLevel) {
  const auto& context = shared_context();
  for (const std::size_t n : {context->slot_count(), std::size_t{100}}) {
    const Reals x = testing::random_reals(n, 2 + n);
    CKKSVector v = CKKSVector::encrypt(context, x);
    Reals want = x;
    // Squares down to level 0: x^(2^levels), kept near 1 by starting near 1.
    while (v.level() > 0) {
      v = v.square();
      for (double& w : want)
        w *= w;
    }
    const CKKSVector refreshed = v.bootstrap();
    EXPECT_EQ(refreshed.level(), context->encryption_level());
    EXPECT_EQ(refreshed.size(), n);
    EXPECT_LT(max_error(refreshed.decrypt(), want), kBootstrapTolerance) << n << " values";
    // And again: a bootstrapped vector computes and bootstraps like a fresh one.
    const CKKSVector again = refreshed.square().bootstrap();
    for (double& w : want)
      w *= w;
    EXPECT_LT(max_error(again.decrypt(), want), 2 * kBootstrapTolerance);
  }
}

TEST(ContextBootstrapping, RefreshForBootstrapsOnlyWhenLevelsRunOut) {
  const auto& context = shared_context();
  const Reals x = testing::random_reals(64, 3);
  const CKKSVector v = CKKSVector::encrypt(context, x);
  const std::size_t top = context->encryption_level();
  // Enough levels: the same ciphertext level, no bootstrap (exact values).
  const CKKSVector kept = v.refresh_for(top);
  EXPECT_EQ(kept.level(), top);
  EXPECT_LT(max_error(kept.decrypt(), x), 1e-6);
  // Too few: bootstrapped.
  const CKKSVector low = v.mul(0.5).mul(2.0);
  ASSERT_LT(low.level(), top);
  const CKKSVector refreshed = low.refresh_for(top);
  EXPECT_EQ(refreshed.level(), top);
  EXPECT_LT(max_error(refreshed.decrypt(), x), kBootstrapTolerance);
  // More than bootstrapping gives: refused, naming both.
  try {
    (void)v.refresh_for(top + 1);
    FAIL() << "refresh_for above the encryption level";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("bootstrapping gives back"), std::string::npos);
  }
}

TEST(ContextBootstrapping, ATensorBootstrapsEachElementAndRefreshesOnlyWhenNeeded) {
  const auto& context = shared_context();
  const std::size_t batch = context->slot_count(), top = context->encryption_level();
  const Reals x = testing::random_reals(batch * 2, 4);
  const auto t = CKKSTensor::encrypt(context, PlainTensor(x, {batch, 2}));
  EXPECT_EQ(t.level(), top);
  EXPECT_EQ(t.refresh_for(top).level(), top);  // levels left: no bootstrap
  const CKKSTensor low = t.mul(0.5).mul(2.0);
  ASSERT_LT(low.level(), top);
  const CKKSTensor refreshed_both[] = {low.bootstrap(), low.refresh_for(top)};
  for (const CKKSTensor& refreshed : refreshed_both) {
    EXPECT_EQ(refreshed.level(), top);
    const PlainTensor got = refreshed.decrypt();
    ASSERT_EQ(got.shape(), (Shape{batch, 2}));
    EXPECT_LT(max_error(got.data(), x), kBootstrapTolerance);
  }
  EXPECT_THROW((void)t.refresh_for(top + 1), InvalidArgument);
}

// Turns auto_bootstrap on for the scope of a test (the context is shared).
struct AutoBootstrapOn {
  explicit AutoBootstrapOn(const TensorContext::Ptr& c) : context(c) {
    context->set_auto_bootstrap(true);
  }
  ~AutoBootstrapOn() { context->set_auto_bootstrap(false); }
  TensorContext::Ptr context;
};

TEST(ContextBootstrapping, AutoBootstrapGivesOperationsTheLevelsTheyNeed) {
  const auto& context = shared_context();
  const std::size_t top = context->encryption_level(), steps = 2 * top + 1;
  const Reals x = testing::random_reals(256, 5);
  Reals signs(256);
  for (std::size_t i = 0; i < signs.size(); ++i)
    signs[i] = i % 3 == 0 ? -1.0 : 1.0;
  // Without it, the chain stops where the levels do, the vector unchanged.
  CKKSVector plain_chain = CKKSVector::encrypt(context, x);
  for (std::size_t i = 0; i < top; ++i)
    plain_chain = plain_chain.mul(signs);
  EXPECT_THROW((void)plain_chain.mul(signs), InvalidArgument);
  EXPECT_THROW((void)plain_chain.square(), InvalidArgument);

  const AutoBootstrapOn on(context);
  // A product by +-1 per step: more than twice the levels there are.
  CKKSVector v = CKKSVector::encrypt(context, x);
  Reals want = x;
  for (std::size_t i = 0; i < steps; ++i) {
    v = v.mul(signs);
    for (std::size_t j = 0; j < want.size(); ++j)
      want[j] *= signs[j];
  }
  EXPECT_LT(max_error(v.decrypt(), want), 4 * kBootstrapTolerance);
  // At level 0, a square and a ciphertext product bootstrap first too.
  while (v.level() > 0) {
    v = v.mul(signs);
    for (std::size_t k = 0; k < want.size(); ++k)
      want[k] *= signs[k];
  }
  const CKKSVector squared = v.square(), product = v.mul(v);
  for (double& w : want)
    w *= w;
  EXPECT_LT(max_error(squared.decrypt(), want), 4 * kBootstrapTolerance);
  EXPECT_LT(max_error(product.decrypt(), want), 4 * kBootstrapTolerance);

  // Tensors: element-wise products and a plain matrix product (a swap of
  // the two columns) through the same chain.
  const std::size_t batch = context->slot_count();
  const Reals y = testing::random_reals(batch * 2, 6);
  CKKSTensor t = CKKSTensor::encrypt(context, PlainTensor(y, {batch, 2}));
  const PlainTensor swap({0.0, 1.0, 1.0, 0.0}, {2, 2});
  Reals want_t = y;
  for (std::size_t i = 0; i < steps; ++i) {
    t = i % 2 ? t.mm(swap) : t.mul(-1.0);
    for (std::size_t b = 0; b < batch; ++b) {
      if (i % 2) {
        std::swap(want_t[2 * b], want_t[2 * b + 1]);
      } else {
        want_t[2 * b] = -want_t[2 * b];
        want_t[2 * b + 1] = -want_t[2 * b + 1];
      }
    }
  }
  EXPECT_LT(max_error(t.decrypt().data(), want_t), 4 * kBootstrapTolerance);

  // Only a context that can bootstrap takes the setting.
  const auto plain_context = testing::make_ckks_context(2, false);
  EXPECT_THROW(plain_context->set_auto_bootstrap(true), InvalidArgument);
}

TEST(ContextBootstrapping, APublicContextCarriesTheKeysToAServer) {
  const auto& client = shared_context();
  rlwe::LoadOptions insecure;
  insecure.allow_insecure_parameters = true;
  TensorContext::SaveParts parts;
  parts.secret_key = false;
  const auto server = TensorContext::load(client->serialize(parts), insecure);
  EXPECT_TRUE(server->is_public());
  EXPECT_TRUE(server->is_bootstrappable());
  EXPECT_TRUE(server->has_bootstrap_keys());
  EXPECT_EQ(server->encryption_level(), client->encryption_level());

  const Reals x = testing::random_reals(client->slot_count(), 4);
  const CKKSVector sent = CKKSVector::load(server, CKKSVector::encrypt(client, x).serialize());
  const CKKSVector answer = sent.square().bootstrap();
  const CKKSVector back = CKKSVector::load(client, answer.serialize());
  Reals want = x;
  for (double& w : want)
    w *= w;
  EXPECT_LT(max_error(back.decrypt(), want), kBootstrapTolerance);
  EXPECT_THROW((void)answer.decrypt(), InvalidArgument);  // the server cannot decrypt

  // Without the bootstrapping part the loaded context cannot bootstrap.
  parts.bootstrap_keys = false;
  const auto plain = TensorContext::load(client->serialize(parts), insecure);
  EXPECT_FALSE(plain->is_bootstrappable());
  EXPECT_EQ(plain->encryption_level(), plain->rlwe_context()->max_level());
}

TEST(ContextBootstrapping, WithoutKeysOrSettingsBootstrapIsRefusedAndTheVectorUnchanged) {
  // Bootstrappable, no keys yet.
  const auto keyless = TensorContext::create_bootstrappable("small");
  EXPECT_FALSE(keyless->has_bootstrap_keys());
  const Reals x = testing::random_reals(32, 5);
  const CKKSVector v = CKKSVector::encrypt(keyless, x);
  try {
    (void)v.bootstrap();
    FAIL() << "bootstrap without keys";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("generate_bootstrap_keys"), std::string::npos);
  }
  EXPECT_LT(max_error(v.decrypt(), x), 1e-6);
  // A public context cannot make them.
  keyless->make_context_public();
  EXPECT_THROW(keyless->generate_bootstrap_keys(), InvalidArgument);

  // Not bootstrappable at all.
  const auto preset = circuits::bootstrap_preset("small");
  const auto plain = TensorContext::create(preset.parameters);
  EXPECT_FALSE(plain->is_bootstrappable());
  const CKKSVector w = CKKSVector::encrypt(plain, x);
  EXPECT_THROW((void)w.bootstrap(), InvalidArgument);
  EXPECT_THROW((void)w.refresh_for(plain->encryption_level() + 1), InvalidArgument);
  EXPECT_THROW(plain->generate_bootstrap_keys(), InvalidArgument);
  EXPECT_LT(max_error(w.decrypt(), x), 1e-6);

  EXPECT_THROW((void)TensorContext::create_bootstrappable("no-such-preset"), InvalidArgument);
}

TEST(ContextBootstrapping, LinearTransformMatchesTheSumOfRotatedProducts) {
  const auto& context = shared_context();
  const std::size_t n = context->slot_count();
  const Reals x = testing::random_reals(n, 6);
  std::map<int64_t, std::vector<std::complex<double>>> diagonals;
  std::map<int64_t, Reals> plain;
  for (const int64_t k : {0, 1, 5, 64, 65, 1000}) {
    const Reals d = testing::random_reals(n, 100 + static_cast<uint64_t>(k));
    plain[k] = d;
    diagonals[k].assign(d.begin(), d.end());
  }
  circuits::LinearTransformOptions options;
  options.level = context->encryption_level();
  options.slots = n;
  options.baby_steps = 64;
  const auto m =
      circuits::LinearTransform::from_diagonals(context->ckks_encoder(), diagonals, options);
  // y_i = sum_k d_k[i] x[(i + k) mod n].
  Reals want(n, 0.0);
  for (const auto& [k, d] : plain)
    for (std::size_t i = 0; i < n; ++i)
      want[i] += d[i] * x[(i + static_cast<std::size_t>(k)) % n];
  const CKKSVector v = CKKSVector::encrypt(context, x);
  const auto steps = m.rotation_steps();
  context->generate_galois_keys(steps, false, context->encryption_level());
  const CKKSVector y = v.linear_transform(m);
  EXPECT_EQ(y.level(), v.level() - 1);
  EXPECT_LT(max_error(y.decrypt(), want), 1e-5);

  // A key missing: refused naming the step, the vector unchanged.
  const auto bare = TensorContext::create_bootstrappable("small");
  const CKKSVector u = CKKSVector::encrypt(bare, x);
  bare->generate_galois_keys(std::vector<int64_t>{1}, false);
  const auto m2 =
      circuits::LinearTransform::from_diagonals(bare->ckks_encoder(), diagonals, options);
  EXPECT_THROW((void)u.linear_transform(m2), InvalidArgument);
  // And one of another context.
  EXPECT_THROW((void)u.linear_transform(m), MismatchError);
  EXPECT_LT(max_error(u.decrypt(), x), 1e-6);
}

TEST(ContextBootstrapping, GaloisKeysForALevelDoNotReplaceHigherOnes) {
  const auto& context = shared_context();
  const auto& keys = context->galois_keys("test");
  const uint64_t conjugation = context->rlwe_context()->conjugation_galois_element();
  const std::size_t before = keys.at(conjugation).max_level();
  ASSERT_GT(before, 0u);
  // Ask for the conjugation again, for level 0 only: the higher key stays.
  context->generate_galois_keys(std::vector<int64_t>{}, true, 0);
  EXPECT_EQ(context->galois_keys("test").at(conjugation).max_level(), before);
  EXPECT_TRUE(context->has_bootstrap_keys());
}

}  // namespace
}  // namespace heft::tensor
