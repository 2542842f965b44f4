// The BGV noise estimate (schemes/bgv/noise_model.hpp) against the measured
// invariant noise budget, over random circuits of every evaluator operation
// in both modes: the estimated budget is never above the measured one (it
// is a bound), and not far below it (the gap is printed). Every result that
// the evaluator returns decrypts to the exact oracle (integers mod t per
// slot); what it refuses is refused with NoiseBudgetError, leaving the
// operands as they were.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "heft/math/modulus.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/util/error.hpp"
#include "integer_slots_support.hpp"

namespace heft::bgv {
namespace {

using Values = std::vector<uint64_t>;

// A ciphertext and what it must decrypt to.
struct Tracked {
  Ciphertext ct;
  Values x;
};

struct Gaps {
  double smallest = 1e9, largest = -1e9;
  int checked = 0, refused = 0;
};

class Circuit {
 public:
  Circuit(std::shared_ptr<const rlwe::Context> context, ModSwitchMode mode, uint64_t seed)
      : context_(context),
        t_(context->parameters().plain_modulus),
        keygen_(make_key_generator(context)),
        relin_(keygen_.create_relin_key()),
        galois_(keygen_.create_galois_keys(std::vector<int64_t>{1, -5}, true)),
        public_encryptor_(keygen_.create_public_key()),
        secret_encryptor_(keygen_.secret_key()),
        decryptor_(keygen_.secret_key()),
        evaluator_(context, mode),
        encoder_(context->degree(), t_.value()),
        rng_(seed) {}

  // `steps` random operations on a pool of four ciphertexts.
  Gaps run(int steps) {
    std::vector<Tracked> pool;
    for (int i = 0; i < 4; ++i)
      pool.push_back(fresh());
    for (int step = 0; step < steps; ++step) {
      const std::size_t i = rng_() % pool.size(), j = rng_() % pool.size();
      std::optional<Tracked> result;
      const Tracked before_i{pool[i].ct.clone(), pool[i].x};
      try {
        result = apply(pool[i], pool[j]);
      } catch (const NoiseBudgetError& e) {
        ++gaps_.refused;
        const std::string message = e.what();
        EXPECT_NE(message.find("estimated noise"), std::string::npos) << message;
        // The operand is unchanged; a fresh one takes its place.
        EXPECT_TRUE(pool[i].ct.parts[0] == before_i.ct.parts[0]);
        EXPECT_EQ(pool[i].ct.noise_log2, before_i.ct.noise_log2);
        pool[i] = fresh();
        continue;
      } catch (const TransparentCiphertextError&) {
        // x - y of two equal ciphertexts, or a product by 0: refused
        // (docs/security.md), and no noise to compare anyway.
        continue;
      }
      if (!result) continue;
      if (!check(*result, step)) break;
      pool[rng_() % pool.size()] = std::move(*result);
    }
    return gaps_;
  }

 private:
  Values random_values() {
    Values v(context_->degree());
    for (auto& x : v)
      x = rng_() % t_.value();
    return v;
  }

  Tracked fresh() {
    Values x = random_values();
    const std::size_t level =
        rng_() % 3 == 0 ? rng_() % context_->level_count() : context_->max_level();
    const Encryptor& encryptor = rng_() % 2 ? public_encryptor_ : secret_encryptor_;
    return {encryptor.encrypt(encoder_.encode(x), level), x};
  }

  template <typename F>
  Values zip(const Values& a, const Values& b, F f) const {
    Values out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      out[i] = f(a[i], b[i]);
    return out;
  }

  // One random operation on a (and b); nullopt when it does not apply.
  std::optional<Tracked> apply(const Tracked& a, const Tracked& b) {
    const Evaluator& e = evaluator_;
    const auto add = [&](uint64_t x, uint64_t y) { return t_.add(x, y); };
    const auto sub = [&](uint64_t x, uint64_t y) { return t_.sub(x, y); };
    const auto mul = [&](uint64_t x, uint64_t y) { return t_.mul(x, y); };
    const bool manual = e.mode() == ModSwitchMode::manual;
    const bool same_level = a.ct.level() == b.ct.level();
    const bool two_parts = a.ct.size() == 2 && b.ct.size() == 2;
    switch (rng_() % 12) {
      case 0:
        if (manual && !same_level) return std::nullopt;
        return Tracked{e.add(a.ct, b.ct), zip(a.x, b.x, add)};
      case 1:
        // a - a is exactly 0: no noise at all, which no estimate foresees.
        if ((manual && !same_level) || &a == &b) return std::nullopt;
        return Tracked{e.sub(a.ct, b.ct), zip(a.x, b.x, sub)};
      case 2: {
        const Values p = random_values();
        return Tracked{e.add_plain(a.ct, encoder_.encode(p)), zip(a.x, p, add)};
      }
      case 3: {
        const Values p = random_values();
        return Tracked{e.multiply_plain(a.ct, encoder_.encode(p)), zip(a.x, p, mul)};
      }
      case 4: {
        const uint64_t c = rng_() % t_.value();
        return Tracked{e.multiply_scalar(e.add_scalar(a.ct, c), c),
                       zip(a.x, Values(a.x.size(), c),
                           [&](uint64_t x, uint64_t k) { return t_.mul(t_.add(x, k), k); })};
      }
      case 5:
      case 6:
        if (!two_parts || (manual ? !same_level : std::min(a.ct.level(), b.ct.level()) == 0)) {
          return std::nullopt;
        }
        return Tracked{
            manual && rng_() % 2 ? e.multiply(a.ct, b.ct) : e.multiply(a.ct, b.ct, relin_),
            zip(a.x, b.x, mul)};
      case 7:
        if (a.ct.size() != 2) return std::nullopt;
        return Tracked{e.rotate_rows(a.ct, -5, galois_), heft::testing::rotate_slot_rows(a.x, -5)};
      case 8:
        if (a.ct.size() != 2) return std::nullopt;
        return Tracked{e.rotate_columns(e.rotate_rows(a.ct, 1, galois_), galois_),
                       heft::testing::swap_slot_rows(heft::testing::rotate_slot_rows(a.x, 1))};
      case 9:
        if (a.ct.level() == 0) return std::nullopt;
        return Tracked{e.mod_switch(a.ct), a.x};
      case 10:
        if (a.ct.size() != 3) return std::nullopt;
        return Tracked{e.relinearize(a.ct, relin_), a.x};
      default:
        return Tracked{e.negate(a.ct),
                       zip(a.x, a.x, [&](uint64_t x, uint64_t) { return t_.negate(x); })};
    }
  }

  // False after a wrong decryption.
  bool check(const Tracked& r, int step) {
    const bool right = encoder_.decode(decryptor_.decrypt(r.ct)) == r.x;
    EXPECT_TRUE(right) << "step " << step;
    if (!right) return false;
    const double estimated = evaluator_.estimated_noise_budget(r.ct);
    const int measured = decryptor_.invariant_noise_budget(r.ct);
    // measured = floor(the exact budget), which the estimate bounds.
    EXPECT_LT(estimated, measured + 1.0) << "step " << step << ", level " << r.ct.level();
    EXPECT_GT(estimated, 0.0);
    gaps_.smallest = std::min(gaps_.smallest, measured - estimated);
    gaps_.largest = std::max(gaps_.largest, measured - estimated);
    ++gaps_.checked;
    return true;
  }

  std::shared_ptr<const rlwe::Context> context_;
  math::Modulus t_;
  rlwe::KeyGenerator keygen_;
  rlwe::RelinKey relin_;
  rlwe::GaloisKeys galois_;
  Encryptor public_encryptor_, secret_encryptor_;
  Decryptor decryptor_;
  Evaluator evaluator_;
  schemes::BatchEncoder encoder_;
  std::mt19937_64 rng_;
  Gaps gaps_;
};

std::shared_ptr<const rlwe::Context> helper_context(std::size_t depth, int plain_bits) {
  schemes::IntegerParameterRequest request;
  request.scheme = schemes::IntegerScheme::bgv;
  request.depth = depth;
  request.plain_bits = plain_bits;
  return rlwe::Context::create(schemes::suggest_integer_parameters(request));
}

void run_circuits(const std::shared_ptr<const rlwe::Context>& context, const char* name,
                  int steps) {
  for (const ModSwitchMode mode : {ModSwitchMode::automatic, ModSwitchMode::manual}) {
    const Gaps gaps = Circuit(context, mode, 7 + static_cast<uint64_t>(mode)).run(steps);
    std::printf("  %s, %s: %d results, %d refused; measured - estimated budget in [%.1f, %.1f]\n",
                name, mode == ModSwitchMode::automatic ? "automatic" : "manual", gaps.checked,
                gaps.refused, gaps.smallest, gaps.largest);
    EXPECT_GT(gaps.checked, steps / 3);
    // Random circuits stack plaintext products (each ~7 bits more
    // pessimistic than the measurement, noise_model.hpp) and unswitched
    // products: a loose guard against absurd estimates only.
    EXPECT_LE(gaps.largest, 45.0);
  }
}

// A typical circuit on the helper's parameters in automatic mode: per level,
// a plaintext product on a fresh operand, a product, a rotation added back,
// plaintext and scalar operations, and a sum with a fresh ciphertext of
// another correction factor. Within 20 bits of the measurement at each step.
TEST(BgvNoiseEstimate, TypicalCircuitIsWithinTwentyBits) {
  const auto context = helper_context(3, 20);
  const uint64_t n = context->degree();
  const math::Modulus t(context->parameters().plain_modulus);
  rlwe::KeyGenerator keygen = make_key_generator(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const rlwe::GaloisKeys galois = keygen.create_galois_keys(std::vector<int64_t>{1});
  const Encryptor encryptor(keygen.create_public_key());
  const Decryptor decryptor(keygen.secret_key());
  const Evaluator evaluator(context);
  const schemes::BatchEncoder encoder(n, t.value());
  std::mt19937_64 rng(99);
  const auto random_values = [&] {
    Values v(n);
    for (auto& x : v)
      x = rng() % t.value();
    return v;
  };
  double smallest = 1e9, largest = -1e9;
  const auto check = [&](const Ciphertext& ct, const Values& want, const char* step) {
    ASSERT_EQ(encoder.decode(decryptor.decrypt(ct)), want) << step;
    const double estimated = evaluator.estimated_noise_budget(ct);
    const int measured = decryptor.invariant_noise_budget(ct);
    EXPECT_LT(estimated, measured + 1.0) << step;
    EXPECT_LE(measured - estimated, 20.0) << step;
    smallest = std::min(smallest, measured - estimated);
    largest = std::max(largest, measured - estimated);
  };
  Values x = random_values();
  Ciphertext acc = encryptor.encrypt(encoder.encode(x));
  check(acc, x, "fresh");
  for (std::size_t round = 0; round < context->max_level(); ++round) {
    const Values y = random_values(), p = random_values();
    const Ciphertext other =
        evaluator.multiply_plain(encryptor.encrypt(encoder.encode(y)), encoder.encode(p));
    acc = evaluator.multiply(acc, other, relin);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = t.mul(x[i], t.mul(y[i], p[i]));
    check(acc, x, "product");
    acc = evaluator.add(acc, evaluator.rotate_rows(acc, 1, galois));
    x = [&] {
      Values sum(n);
      const Values rotated = heft::testing::rotate_slot_rows(x, 1);
      for (std::size_t i = 0; i < n; ++i)
        sum[i] = t.add(x[i], rotated[i]);
      return sum;
    }();
    check(acc, x, "rotation added");
    const Values q = random_values();
    const uint64_t c = 2 + rng() % 30;  // a small constant, as polynomials have
    acc = evaluator.multiply_scalar(evaluator.add_plain(acc, encoder.encode(q)), c);
    for (std::size_t i = 0; i < n; ++i)
      x[i] = t.mul(t.add(x[i], q[i]), c);
    check(acc, x, "plain and scalar");
    const Values z = random_values();
    acc = evaluator.sub(acc, encryptor.encrypt(encoder.encode(z), acc.level()));
    for (std::size_t i = 0; i < n; ++i)
      x[i] = t.sub(x[i], z[i]);
    check(acc, x, "fresh subtracted");
  }
  std::printf("  measured - estimated budget in [%.1f, %.1f] bits\n", smallest, largest);
}

TEST(BgvNoiseEstimate, BoundsTheMeasuredBudgetOnHelperParameters) {
  run_circuits(helper_context(2, 20), "helper depth 2, 20-bit t", 60);
}

TEST(BgvNoiseEstimate, BoundsTheMeasuredBudgetWithManyDigitsAndSparseSecret) {
  // Two primes per key-switching digit (approximate mod up), two special
  // primes, and a sparse secret.
  const uint64_t n = 4096;
  rlwe::Parameters p =
      rlwe::make_parameters(n, {60, 45, 45, 45, 45}, {50, 50}, 3, rlwe::SecurityLevel::none);
  p.secret.kind = rlwe::SecretKind::sparse_ternary;
  p.secret.hamming_weight = 64;
  p.plain_modulus = math::generate_batching_prime(17, n).value();
  run_circuits(rlwe::Context::create(p), "N 4096, dnum 3, K 2, sparse secret", 80);
}

}  // namespace
}  // namespace heft::bgv
