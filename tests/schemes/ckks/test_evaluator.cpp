// CKKS end to end: every evaluator operation against the same computation on
// complex doubles, at several N, levels and dnum values; circuits that use the
// full depth; hoisted vs plain rotations; every rotation step at a small N;
// automatic vs manual scale alignment; the parameter helper; bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/ring_choice.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks {
namespace {

using cd = std::complex<double>;
using Vec = std::vector<cd>;

// Everything one test needs for one parameter set.
struct Fixture {
  explicit Fixture(rlwe::Parameters params, ScaleMode mode = ScaleMode::automatic)
      : context(rlwe::Context::create(params)),
        keygen(context),
        public_key(keygen.create_public_key()),
        relin(keygen.create_relin_key()),
        encoder(context),
        encryptor(public_key),
        decryptor(keygen.secret_key()),
        eval(context, mode) {}

  std::size_t slots() const { return context->degree() / 2; }

  Ciphertext encrypt(const Vec& v, std::size_t level) const {
    return encryptor.encrypt(encoder.encode(v, eval.scale_at(level), level));
  }
  Ciphertext encrypt(const Vec& v) const { return encrypt(v, context->max_level()); }
  // v packed into `slots` slots (sparse packing) at the top level.
  Ciphertext encrypt_sparse(const Vec& v, std::size_t slots) const {
    const std::size_t top = context->max_level();
    return encryptor.encrypt(encoder.encode(v, eval.scale_at(top), top, slots));
  }
  Vec decrypt(const Ciphertext& ct) const { return encoder.decode(decryptor.decrypt(ct)); }

  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen;
  rlwe::PublicKey public_key;
  rlwe::RelinKey relin;
  Encoder encoder;
  rlwe::Encryptor encryptor;
  rlwe::Decryptor decryptor;
  Evaluator eval;
};

Vec random_vector(std::size_t n, std::mt19937_64& rng, double bound = 1.0) {
  std::uniform_real_distribution<double> dist(-bound, bound);
  Vec v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

// log2 of the largest slot error; fails the test if it exceeds max_log2.
double expect_close(const Vec& got, const Vec& want, double max_log2, const char* what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
  }
  const double log_error = std::log2(worst + 1e-300);
  std::printf("  %-28s max error 2^%.1f\n", what, log_error);
  EXPECT_LT(log_error, max_log2) << what;
  return log_error;
}

rlwe::Parameters small_params(uint64_t n, std::size_t depth, std::size_t dnum,
                              int scale_bits = 40) {
  std::vector<int> bits(depth + 1, scale_bits);
  bits[0] = 60;
  const std::size_t alpha = (bits.size() + dnum - 1) / dnum;
  auto params =
      rlwe::make_parameters(n, bits, std::vector<int>(alpha, 60), dnum, rlwe::SecurityLevel::none);
  params.scale = std::ldexp(1.0, scale_bits);
  return params;
}

TEST(Ckks, ArithmeticMatchesComplexDoubles) {
  std::mt19937_64 rng(1);
  for (uint64_t n : {uint64_t{2048}, uint64_t{8192}}) {
    for (std::size_t dnum : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
      std::printf("N=%llu dnum=%zu\n", static_cast<unsigned long long>(n), dnum);
      Fixture f(small_params(n, 3, dnum));
      // At the top level and at level 1 (one prime left to rescale by).
      for (std::size_t level : {f.context->max_level(), std::size_t{1}}) {
        std::printf(" level %zu\n", level);
        const Vec x = random_vector(f.slots(), rng), y = random_vector(f.slots(), rng);
        const Ciphertext cx = f.encrypt(x, level), cy = f.encrypt(y, level);
        Vec want(x.size());
        auto with = [&](auto op) {
          for (std::size_t i = 0; i < x.size(); ++i)
            want[i] = op(x[i], y[i]);
          return want;
        };
        expect_close(f.decrypt(f.eval.add(cx, cy)), with([](cd a, cd b) { return a + b; }), -19,
                     "add");
        expect_close(f.decrypt(f.eval.sub(cx, cy)), with([](cd a, cd b) { return a - b; }), -19,
                     "sub");
        expect_close(f.decrypt(f.eval.negate(cx)), with([](cd a, cd) { return -a; }), -19,
                     "negate");
        const Plaintext py = f.encoder.encode(y, cx.scale, cx.level());
        expect_close(f.decrypt(f.eval.add_plain(cx, py)), with([](cd a, cd b) { return a + b; }),
                     -19, "add_plain");
        expect_close(f.decrypt(f.eval.sub_plain(cx, py)), with([](cd a, cd b) { return a - b; }),
                     -19, "sub_plain");
        const cd c(0.75, -1.25);
        expect_close(f.decrypt(f.eval.add_scalar(cx, c)), with([&](cd a, cd) { return a + c; }),
                     -19, "add_scalar");
        expect_close(f.decrypt(f.eval.sub_scalar(cx, c)), with([&](cd a, cd) { return a - c; }),
                     -19, "sub_scalar");
        const Ciphertext product = f.eval.multiply(cx, cy, f.relin);
        EXPECT_EQ(product.size(), 2u);
        expect_close(f.decrypt(product), with([](cd a, cd b) { return a * b; }), -17,
                     "multiply+relin");
        expect_close(f.decrypt(f.eval.rescale(product)), with([](cd a, cd b) { return a * b; }),
                     -17, "rescale");
        EXPECT_EQ(f.eval.rescale(product).level(), cx.level() - 1);
        expect_close(f.decrypt(f.eval.multiply(cx, cy)), with([](cd a, cd b) { return a * b; }),
                     -17, "multiply (3 parts)");
        expect_close(f.decrypt(f.eval.square(cx, f.relin)), with([](cd a, cd) { return a * a; }),
                     -17, "square");
        expect_close(f.decrypt(f.eval.multiply_plain(cx, py)),
                     with([](cd a, cd b) { return a * b; }), -17, "multiply_plain");
        expect_close(f.decrypt(f.eval.multiply_scalar(cx, c)),
                     with([&](cd a, cd) { return a * c; }), -17, "multiply_scalar complex");
        expect_close(f.decrypt(f.eval.multiply_scalar(cx, 0.3)),
                     with([&](cd a, cd) { return a * 0.3; }), -17, "multiply_scalar real");
        expect_close(f.decrypt(f.eval.multiply_integer(cx, -7)),
                     with([&](cd a, cd) { return a * -7.0; }), -17, "multiply_integer");
        expect_close(f.decrypt(f.eval.drop_to_level(cx, 0)), x, -19, "drop_to_level");
      }
    }
  }
}

TEST(Ckks, ScaleIsTrackedExactly) {
  Fixture f(small_params(2048, 3, 2));
  std::mt19937_64 rng(2);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext sq = f.eval.square(cx, f.relin);
  EXPECT_EQ(sq.scale, cx.scale * cx.scale);
  const Ciphertext rescaled = f.eval.rescale(sq);
  const double q_top = static_cast<double>(f.context->parameters().ciphertext_moduli[cx.level()]);
  EXPECT_EQ(rescaled.scale, cx.scale * cx.scale / q_top);  // the true prime, not 2^40
  EXPECT_NE(rescaled.scale, std::ldexp(1.0, 40));
  EXPECT_EQ(rescaled.scale, f.eval.scale_at(cx.level() - 1));
}

TEST(Ckks, CircuitUsingTheFullDepth) {
  // x^(2^depth) by repeated squaring, plus a polynomial 0.5 x^3 - x + 0.25.
  for (std::size_t dnum : {std::size_t{1}, std::size_t{3}, std::size_t{6}}) {
    const std::size_t depth = 5;
    Fixture f(small_params(4096, depth, dnum));
    std::mt19937_64 rng(3);
    Vec x = random_vector(f.slots(), rng);
    for (auto& v : x)
      v /= std::abs(v) + 1e-9;  // |x| = 1 keeps powers bounded
    Ciphertext c = f.encrypt(x);
    Vec want = x;
    for (std::size_t i = 0; i < depth; ++i) {
      c = f.eval.square(c, f.relin);
      for (auto& v : want)
        v *= v;
    }
    std::printf("dnum=%zu\n", dnum);
    expect_close(f.decrypt(c), want, -12, "x^(2^5) at full depth");
    EXPECT_THROW((void)f.eval.square(c, f.relin), InvalidArgument);  // depth exhausted

    const Ciphertext cx = f.encrypt(x);
    const Ciphertext x2 = f.eval.square(cx, f.relin);
    const Ciphertext x3 = f.eval.multiply(x2, cx, f.relin);  // auto: rescale x2, drop cx
    Ciphertext poly = f.eval.multiply_scalar(x3, 0.5);
    poly = f.eval.sub(poly, cx);  // auto: levels and scales aligned
    poly = f.eval.add_scalar(poly, 0.25);
    Vec want_poly(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      want_poly[i] = 0.5 * x[i] * x[i] * x[i] - x[i] + 0.25;
    expect_close(f.decrypt(poly), want_poly, -18, "0.5 x^3 - x + 0.25");
  }
}

// relinearize_rescale (mod down and rescale fused) against the two separate
// steps and against complex doubles: same level and scale, values within the
// few units of rounding that the fused division may add per coefficient; for
// one and several special primes, at the top and at level 1; and a circuit
// of multiply_rescale through the full depth.
TEST(Ckks, RelinearizeRescaleMatchesTheTwoSteps) {
  std::mt19937_64 rng(9);
  for (uint64_t n : {uint64_t{2048}, uint64_t{4096}}) {
    for (std::size_t dnum : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
      std::printf("N=%llu dnum=%zu\n", static_cast<unsigned long long>(n), dnum);
      Fixture f(small_params(n, 3, dnum));
      for (std::size_t level : {f.context->max_level(), std::size_t{1}}) {
        const Vec x = random_vector(f.slots(), rng), y = random_vector(f.slots(), rng);
        const Ciphertext cx = f.encrypt(x, level), cy = f.encrypt(y, level);
        const Ciphertext three = f.eval.multiply(cx, cy);
        const Ciphertext kept = three.clone();
        const Ciphertext fused = f.eval.relinearize_rescale(three, f.relin);
        const Ciphertext separate = f.eval.rescale(f.eval.relinearize(three, f.relin));
        EXPECT_EQ(fused.size(), 2u);
        EXPECT_EQ(fused.level(), level - 1);
        EXPECT_EQ(fused.level(), separate.level());
        EXPECT_EQ(fused.scale, separate.scale);
        Vec want(x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
          want[i] = x[i] * y[i];
        const Vec got = f.decrypt(fused);
        expect_close(got, want, -17, "relinearize_rescale");
        expect_close(got, f.decrypt(separate), -18, "fused vs separate");
        for (std::size_t p = 0; p < three.size(); ++p)
          EXPECT_TRUE(three.parts[p] == kept.parts[p]) << "input changed";
        // A 2-part ciphertext is just rescaled.
        const Ciphertext two = f.eval.relinearize(three, f.relin);
        expect_close(f.decrypt(f.eval.relinearize_rescale(two, f.relin)),
                     f.decrypt(f.eval.rescale(two)), -30, "2 parts: rescale only");
      }
    }
  }
  // x^(2^4) by repeated multiply_rescale, through every level.
  Fixture f(small_params(4096, 4, 2));
  Vec x = random_vector(f.slots(), rng);
  for (auto& v : x)
    v /= std::abs(v) + 1e-9;
  Ciphertext c = f.encrypt(x);
  Vec want = x;
  for (std::size_t i = 0; i < 4; ++i) {
    c = f.eval.multiply_rescale(c, c, f.relin);
    for (auto& v : want)
      v *= v;
  }
  EXPECT_EQ(c.level(), 0u);
  expect_close(f.decrypt(c), want, -12, "multiply_rescale to level 0");
  // Depth exhausted, and a key of another context.
  const Ciphertext low =
      f.encryptor.encrypt(f.encoder.encode(x, std::ldexp(1.0, 20), 0));  // room to multiply
  const Ciphertext three = f.eval.multiply(low, low);
  EXPECT_THROW((void)f.eval.relinearize_rescale(three, f.relin), InvalidArgument);
  Fixture other(small_params(4096, 4, 2));
  const Ciphertext top = f.encrypt(x);
  EXPECT_THROW((void)f.eval.multiply_rescale(top, top, other.relin), MismatchError);
}

TEST(Ckks, RotationsConjugationHoistingAndSum) {
  Fixture f(small_params(4096, 2, 2));
  std::mt19937_64 rng(4);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext cx = f.encrypt(x);
  const int64_t steps[] = {1, 2, 3, 7, -1, -5, 100};
  std::vector<int64_t> powers;
  for (int64_t s = 1; s < static_cast<int64_t>(f.slots()); s <<= 1)
    powers.push_back(s);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(steps, true);
  const rlwe::GaloisKeys power_keys = f.keygen.create_galois_keys(powers);
  const int64_t n = static_cast<int64_t>(f.slots());
  auto rotated = [&](int64_t s) {
    Vec r(x.size());
    for (int64_t i = 0; i < n; ++i)
      r[i] = x[((i + s) % n + n) % n];
    return r;
  };
  for (int64_t s : steps) {
    expect_close(f.decrypt(f.eval.rotate(cx, s, keys)), rotated(s), -19, "rotate (own key)");
  }
  // Step 13 has no key of its own: composed from 1 + 4 + 8.
  expect_close(f.decrypt(f.eval.rotate(cx, 13, power_keys)), rotated(13), -19,
               "rotate 13 composed");
  // Without 4 and 8, 13 is still composed from the keys present (three
  // switches, such as 7 + 3 + 3).
  expect_close(f.decrypt(f.eval.rotate(cx, 13, keys)), rotated(13), -19, "rotate 13, other keys");
  Vec conj(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    conj[i] = std::conj(x[i]);
  expect_close(f.decrypt(f.eval.conjugate(cx, keys)), conj, -19, "conjugate");
  const auto hoisted = f.eval.rotate_hoisted(cx, steps, keys);
  // Hoisted rotations share one decomposition; each must still match the
  // plaintext rotation (the oracle), not merely the plain rotate() path, which
  // runs the same code.
  for (std::size_t i = 0; i < std::size(steps); ++i) {
    expect_close(f.decrypt(hoisted[i]), rotated(steps[i]), -19, "hoisted rotation");
  }
  cd total = 0;
  for (const cd& v : x)
    total += v;
  expect_close(f.decrypt(f.eval.sum_slots(cx, power_keys)), Vec(x.size(), total), -15, "sum_slots");
  // Rotation of a lower-level, rescaled ciphertext.
  const Ciphertext low = f.eval.rescale(f.eval.multiply_scalar(cx, 2.0 / 3.0));
  Vec want = rotated(3);
  for (auto& v : want)
    v *= 2.0 / 3.0;
  expect_close(f.decrypt(f.eval.rotate(low, 3, keys)), want, -17, "rotate at lower level");
}

TEST(Ckks, EveryRotationStepAtSmallN) {
  Fixture f(small_params(1024, 1, 1));
  std::mt19937_64 rng(5);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext cx = f.encrypt(x);
  std::vector<int64_t> all;
  for (int64_t s = 1; s < static_cast<int64_t>(f.slots()); ++s)
    all.push_back(s);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(all);
  const auto rotations = f.eval.rotate_hoisted(cx, all, keys);
  const int64_t n = static_cast<int64_t>(f.slots());
  double worst = -1000;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Vec got = f.decrypt(rotations[k]);
    double e = 0;
    for (int64_t i = 0; i < n; ++i)
      e = std::max(e, std::abs(got[i] - x[(i + all[k]) % n]));
    worst = std::max(worst, std::log2(e));
  }
  std::printf("  every step 1..%lld: worst error 2^%.1f\n", static_cast<long long>(n - 1), worst);
  EXPECT_LT(worst, -19);
}

TEST(Ckks, MultiplyByMonomial) {
  Fixture f(small_params(2048, 1, 1));
  std::mt19937_64 rng(6);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext cx = f.encrypt(x);
  const uint64_t two_n = 2 * f.context->degree();
  for (uint64_t k : {uint64_t{1}, uint64_t{5}, two_n / 2 + 3}) {
    // X^k multiplies slot j by zeta^(5^j k), zeta = exp(2 pi i / 2N).
    Vec want(x.size());
    uint64_t five_j = 1;
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double angle = 2 * std::numbers::pi * static_cast<double>(five_j * k % two_n) / two_n;
      want[j] = x[j] * std::polar(1.0, angle);
      five_j = five_j * 5 % two_n;
    }
    expect_close(f.decrypt(f.eval.multiply_monomial(cx, k)), want, -19, "multiply_monomial");
  }
}

TEST(Ckks, MultiplyByMonomialOnSparseSlots) {
  // 4 slots at N = 2048 live on every 256th coefficient: X^1 moves them off,
  // so the result has all N/2 slots, x[j mod 4] zeta^(5^j); X^256 keeps 4.
  Fixture f(small_params(2048, 1, 1));
  std::mt19937_64 rng(16);
  const Vec x = random_vector(4, rng);
  const Ciphertext cx = f.encrypt_sparse(x, 4);
  const uint64_t two_n = 2 * f.context->degree();
  for (uint64_t k : {uint64_t{1}, uint64_t{256}, uint64_t{2048 + 3}}) {
    const Ciphertext shifted = f.eval.multiply_monomial(cx, k);
    const std::size_t slots = k % 256 == 0 ? 4 : f.slots();
    EXPECT_EQ(shifted.slots, slots) << k;
    Vec want(slots);
    uint64_t five_j = 1;
    for (std::size_t j = 0; j < slots; ++j) {
      const double angle = 2 * std::numbers::pi * static_cast<double>(five_j * k % two_n) / two_n;
      want[j] = x[j % 4] * std::polar(1.0, angle);
      five_j = five_j * 5 % two_n;
    }
    expect_close(f.decrypt(shifted), want, -19, "multiply_monomial, 4 slots");
  }
}

// Cases the automatic alignment used to get silently wrong: two pending
// products of different scales, alignment by a k that mislabels the scale,
// and drops that wrap the values; and c x + x^2, which now needs no
// alignment at all (multiply_scalar lands on the product scale s_l^2).
TEST(Ckks, AlignmentSettlesPendingProductsAndRefusesWhatItCannotDoExactly) {
  Fixture f(small_params(2048, 3, 1));  // primes 60, 40, 40, 40; scale 2^40
  std::mt19937_64 rng(17);
  const Vec x = random_vector(f.slots(), rng), y = random_vector(f.slots(), rng);
  Vec want(x.size()), want_plain(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    want[i] = x[i] * x[i] + 0.3 * x[i];
    want_plain[i] = x[i] * x[i] + x[i] * y[i];
  }
  for (std::size_t level : {std::size_t{2}, std::size_t{1}}) {
    const Ciphertext cx = f.encrypt(x, level);
    const Ciphertext u = f.eval.multiply(cx, cx, f.relin);  // pending at s_l^2
    const Ciphertext v = f.eval.multiply_scalar(cx, 0.3);   // pending at s_l^2 too
    ASSERT_TRUE(u.needs_rescale && v.needs_rescale);
    EXPECT_DOUBLE_EQ(u.scale, v.scale);
    const Ciphertext uv = f.eval.add(u, v);
    EXPECT_EQ(uv.level(), level);  // no level spent
    expect_close(f.decrypt(uv), want, -17, "x^2 + 0.3 x");
    // Pending products of different scales (a plaintext at 2^35): both are
    // rescaled first, then aligned, the same way in either order; at level 1
    // that leaves level 0 with two scales, which is refused.
    const Plaintext py = f.encoder.encode(y, std::ldexp(1.0, 35), level);
    const Ciphertext w = f.eval.multiply_plain(cx, py);
    if (level == 1) {
      EXPECT_THROW((void)f.eval.add(u, w), InvalidArgument);
      continue;
    }
    const Ciphertext uw = f.eval.add(u, w), wu = f.eval.add(w, u);
    EXPECT_EQ(uw.level(), wu.level());
    EXPECT_EQ(uw.needs_rescale, wu.needs_rescale);
    EXPECT_DOUBLE_EQ(uw.scale, wu.scale);
    expect_close(f.decrypt(uw), want_plain, -17, "x^2 + x y, pending at two scales");
    expect_close(f.decrypt(wu), want_plain, -17, "x y + x^2, pending at two scales");
  }
  // Dropping a product of scale 2^80 to level 0 (Q_0 = 2^60) would wrap it.
  const Ciphertext cx = f.encrypt(x, 2), cy = f.encrypt(y, 2);
  const Ciphertext product = f.eval.multiply(cx, cy, f.relin);
  const Ciphertext kept = product.clone();
  EXPECT_THROW((void)f.eval.drop_to_level(product, 0), InvalidArgument);
  EXPECT_TRUE(product.parts[0] == kept.parts[0] && product.parts[1] == kept.parts[1]);
  // A scale 1.3 * 2^75 at level 3 against scale_at(1): k = 25 would leave the
  // sum's scale 1.6% off its label.
  const Ciphertext odd = f.encryptor.encrypt(f.encoder.encode(x, 1.3 * std::ldexp(1.0, 75), 3));
  EXPECT_THROW((void)f.eval.add(odd, f.encrypt(y, 1)), InvalidArgument);
  // A pending product at the same level and scale as a plain ciphertext is
  // added as it is (it used to be rescaled, which at level 0 threw).
  Fixture g(small_params(2048, 1, 1));  // primes 60, 40; level 0 holds 2^59
  const std::size_t bottom = 0;
  const Ciphertext small = g.encryptor.encrypt(g.encoder.encode(x, std::ldexp(1.0, 25), bottom));
  const Ciphertext square = g.eval.multiply(small, small);  // pending, scale 2^50
  const Ciphertext plain = g.encryptor.encrypt(g.encoder.encode(y, std::ldexp(1.0, 50), bottom));
  Vec sum(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    sum[i] = x[i] * x[i] + y[i];
  // (Fresh noise is about 2^15 in the slots, so a 2^25 scale leaves ~2^-9.)
  expect_close(g.decrypt(g.eval.relinearize(g.eval.add(square, plain), g.relin)), sum, -6,
               "pending product + ciphertext of its scale, level 0");
  // Constants: one that does not fit is refused; at level 0 the product of a
  // non-integer constant is not left pending (there is no prime to divide by).
  const Ciphertext ones = g.encrypt(Vec(g.slots(), cd(1, 0)), bottom);
  EXPECT_THROW((void)g.eval.multiply_scalar(ones, 1e6), InvalidArgument);
  EXPECT_THROW((void)g.eval.multiply_integer(ones, int64_t{1} << 40), InvalidArgument);
  const Ciphertext low_scale =
      g.encryptor.encrypt(g.encoder.encode(Vec(g.slots(), cd(1, 0)), std::ldexp(1.0, 15), bottom));
  const Ciphertext half = g.eval.multiply_scalar(low_scale, 0.5);  // scale 2^15 * s_0
  EXPECT_FALSE(half.needs_rescale);
  const Ciphertext one = g.eval.add(half, half);  // used to throw: rescale at level 0
  EXPECT_DOUBLE_EQ(one.scale, half.scale);
}

TEST(Ckks, SparseRotationUsesAKeyMadeForTheStepAsGiven) {
  Fixture f(small_params(2048, 1, 1));
  std::mt19937_64 rng(18);
  const Vec x = random_vector(4, rng);
  const Ciphertext cx = f.encrypt_sparse(x, 4);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{-1});
  Vec want(4);
  for (std::size_t j = 0; j < 4; ++j)
    want[j] = x[(j + 3) % 4];  // right by one
  expect_close(f.decrypt(f.eval.rotate(cx, -1, keys)), want, -19, "rotate(-1), 4 slots");
  const std::vector<int64_t> steps = {-1, 3};
  for (const Ciphertext& r : f.eval.rotate_hoisted(cx, steps, keys))
    expect_close(f.decrypt(r), want, -19, "rotate_hoisted(-1 / 3), 4 slots");
}

TEST(Ckks, AutomaticAlignmentAndManualRefusal) {
  std::mt19937_64 rng(7);
  const rlwe::Parameters params = small_params(2048, 3, 2);
  Fixture autof(params);
  const Vec x = random_vector(autof.slots(), rng), y = random_vector(autof.slots(), rng);
  const Ciphertext top = autof.encrypt(x);
  // 0.5 y^2 at level 1: two multiply-rescale steps below the top.
  const Ciphertext y2 = autof.eval.rescale(autof.eval.square(autof.encrypt(y), autof.relin));
  const Ciphertext low = autof.eval.rescale(autof.eval.multiply_scalar(y2, 0.5));
  EXPECT_EQ(low.level(), 1u);
  Vec want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = x[i] + 0.5 * y[i] * y[i];
  const Ciphertext sum = autof.eval.add(top, low);
  EXPECT_EQ(sum.level(), low.level());
  expect_close(autof.decrypt(sum), want, -18, "auto-aligned add across levels");
  // Encrypted at a different scale at the same level: aligned by spending a level.
  const Ciphertext odd = autof.encryptor.encrypt(
      autof.encoder.encode(y, std::ldexp(1.0, 35), autof.context->max_level()));
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = x[i] + y[i];
  expect_close(autof.decrypt(autof.eval.add(top, odd)), want, -18,
               "auto-aligned add across scales");

  Fixture manual(params, ScaleMode::manual);
  const Ciphertext m_top = manual.encrypt(x);
  const Ciphertext m_low = manual.eval.drop_to_level(manual.encrypt(y), 1);
  const Vec before = manual.decrypt(m_top);
  EXPECT_THROW((void)manual.eval.add(m_top, m_low), MismatchError);
  EXPECT_THROW((void)manual.eval.multiply(m_top, m_low), MismatchError);
  Ciphertext in_place = m_top.clone();
  EXPECT_THROW(manual.eval.add_inplace(in_place, m_low), MismatchError);
  expect_close(manual.decrypt(in_place), before, -30, "operand unchanged after refusal");
  // In manual mode a product is not rescaled behind the caller's back.
  const Ciphertext p = manual.eval.multiply(m_top, m_top, manual.relin);
  EXPECT_EQ(p.level(), m_top.level());
  EXPECT_THROW((void)manual.eval.add(p, m_top), MismatchError);
}

// The inner sum of a baby-step / giant-step transform with one division by
// P: sum_j d_j * rotate(x, s_j) against complex doubles and against the same
// sum made of separate rotations, plain products and additions.
TEST(Ckks, DotRotationsPlainMatchesComplexDoubles) {
  std::mt19937_64 rng(21);
  for (std::size_t dnum : {std::size_t{1}, std::size_t{3}}) {
    const rlwe::Parameters params = small_params(4096, 3, dnum);
    Fixture f(params);
    const std::size_t slots = f.slots();
    const std::vector<int64_t> steps = {0, 1, 2, 5, -3};
    const std::vector<int64_t> key_steps = {1, 2, 5, -3};
    const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(key_steps);
    const Vec x = random_vector(slots, rng);
    const std::size_t level = f.context->max_level() - 1;  // below the top, as in a circuit
    const Ciphertext cx = f.encrypt(x, level);
    std::vector<ExtendedPlaintext> diagonals;
    std::vector<Vec> d;
    Vec want(slots, 0.0);
    for (std::size_t j = 0; j < steps.size(); ++j) {
      d.push_back(random_vector(slots, rng));
      diagonals.push_back(f.encoder.encode_extended(d[j], f.eval.scale_at(level), level));
      const auto n = static_cast<int64_t>(slots);
      for (std::size_t i = 0; i < slots; ++i) {
        const auto from =
            static_cast<std::size_t>(((static_cast<int64_t>(i) + steps[j]) % n + n) % n);
        want[i] += d[j][i] * x[from];
      }
    }
    const Ciphertext before = cx.clone();
    const Ciphertext sum = f.eval.dot_rotations_plain(cx, steps, diagonals, keys);
    EXPECT_EQ(sum.level(), level);
    EXPECT_DOUBLE_EQ(sum.scale, cx.scale * f.eval.scale_at(level));
    const double hoisted = expect_close(f.decrypt(sum), want, -17, "dot_rotations_plain");
    // Diagonals above the ciphertext's level are cut to its towers.
    std::vector<ExtendedPlaintext> higher;
    for (const Vec& dj : d) {
      const std::size_t top = f.context->max_level();
      higher.push_back(f.encoder.encode_extended(dj, f.eval.scale_at(top), top));
    }
    expect_close(f.decrypt(f.eval.dot_rotations_plain(cx, steps, higher, keys)), want, -17,
                 "dot_rotations_plain, higher diagonals");

    Ciphertext long_way;
    for (std::size_t j = 0; j < steps.size(); ++j) {
      const Ciphertext term = f.eval.multiply_plain(
          f.eval.rotate(cx, steps[j], keys), f.encoder.encode(d[j], f.eval.scale_at(level), level));
      long_way = j == 0 ? term.clone() : f.eval.add(long_way, term);
    }
    const double separate = expect_close(f.decrypt(long_way), want, -17, "rotations one by one");
    // One division by P instead of one per rotation: no larger error.
    EXPECT_LT(hoisted, separate + 1.0) << "dnum " << dnum;
    EXPECT_EQ(f.decrypt(cx), f.decrypt(before));  // the operand is untouched

    // The identity's lifted term divides back exactly.
    const auto lifted = rlwe::lift_to_extended(*f.context, cx.parts[0], cx.parts[1]);
    EXPECT_TRUE(rlwe::mod_down(*f.context, lifted[0].clone()) == cx.parts[0]);
    EXPECT_TRUE(rlwe::mod_down(*f.context, lifted[1].clone()) == cx.parts[1]);

    // Bad input: a step without its own key, one diagonal too few, a
    // diagonal of another context.
    const std::vector<int64_t> missing = {0, 4};
    EXPECT_THROW((void)f.eval.dot_rotations_plain(cx, missing, std::span(diagonals).first(2), keys),
                 InvalidArgument);
    EXPECT_THROW((void)f.eval.dot_rotations_plain(cx, steps, std::span(diagonals).first(4), keys),
                 InvalidArgument);
    Fixture other(params);
    std::vector<ExtendedPlaintext> foreign;
    foreign.push_back(other.encoder.encode_extended(d[0], f.eval.scale_at(level), level));
    const std::vector<int64_t> zero = {0};
    EXPECT_THROW((void)f.eval.dot_rotations_plain(cx, zero, foreign, keys), MismatchError);
    EXPECT_EQ(f.decrypt(cx), f.decrypt(before));
  }
}

TEST(Ckks, BadInputIsRefused) {
  const rlwe::Parameters params = small_params(2048, 2, 1);
  Fixture a(params), b(params);
  std::mt19937_64 rng(8);
  const Vec x = random_vector(a.slots(), rng);
  const Ciphertext ca = a.encrypt(x), cb = b.encrypt(x);
  EXPECT_THROW((void)a.eval.add(ca, cb), MismatchError);                // other context
  EXPECT_THROW((void)a.eval.multiply(ca, ca, b.relin), MismatchError);  // key of another context
  const rlwe::GaloisKeys keys = a.keygen.create_galois_keys(std::vector<int64_t>{2});
  EXPECT_THROW((void)a.eval.rotate(ca, 3, keys), InvalidArgument);  // no key composes 3
  // The message names the operation the caller used and the missing key.
  heft::testing::expect_error<InvalidArgument>([&] { (void)a.eval.conjugate(ca, keys); },
                                               "conjugate: no conjugation key");
  EXPECT_THROW((void)a.eval.rescale(a.eval.drop_to_level(ca, 0)),
               InvalidArgument);  // no level left
  EXPECT_THROW((void)a.eval.multiply_monomial(ca, 4 * a.context->degree()), InvalidArgument);
  EXPECT_THROW((void)a.eval.add_scalar(ca, cd(std::nan(""), 0)), InvalidArgument);
  rlwe::RelinKey not_relin{a.keygen.create_switch_key(a.keygen.secret_key().q_part())};
  not_relin.key.galois_element = 5;  // shaped like a Galois key
  EXPECT_THROW((void)a.eval.relinearize(a.eval.multiply(ca, ca), not_relin), InvalidArgument);
  EXPECT_THROW((void)a.eval.add_plain(ca, Plaintext{}), InvalidArgument);  // empty
  const Ciphertext three = a.eval.multiply(ca, ca);
  EXPECT_THROW((void)a.eval.rotate(three, 1, keys), InvalidArgument);  // relinearize first
  // Scale overflow: a 2^40-scale product at level 0 (60 bits) does not fit.
  const Ciphertext bottom = a.eval.drop_to_level(ca, 0);
  EXPECT_THROW((void)a.eval.multiply(bottom, bottom), InvalidArgument);
  EXPECT_THROW((void)a.encoder.encode(Vec(a.slots() + 1), a.eval.scale_at(2), 2), InvalidArgument);
  rlwe::Parameters no_scale = params;
  no_scale.scale = 0;
  EXPECT_THROW(Evaluator(rlwe::Context::create(no_scale)), InvalidArgument);
}

// Metadata a caller can set by hand (or load from bytes it wrote): a scale
// that is NaN, infinite, zero or negative, a slot count the encoder never
// makes. Each is refused by name, and the operand is left as it was.
TEST(Ckks, MalformedScalesAndSlotCountsAreRefused) {
  Fixture f(small_params(2048, 2, 1));
  std::mt19937_64 rng(81);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext good = f.encrypt(x);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  const auto same_parts = [](const Ciphertext& a, const Ciphertext& b) {
    if (a.parts.size() != b.parts.size()) return false;
    for (std::size_t i = 0; i < a.parts.size(); ++i)
      if (!(a.parts[i] == b.parts[i])) return false;
    return true;
  };
  for (const double scale : {std::nan(""), HUGE_VAL, 0.0, -std::ldexp(1.0, 40)}) {
    Ciphertext bad = good.clone();
    bad.scale = scale;
    const Ciphertext before = bad.clone();
    for (const auto& call : std::vector<std::function<void()>>{
             [&] { (void)f.eval.add_scalar(bad, 1.0); },
             [&] { (void)f.eval.multiply_scalar(bad, 0.5); }, [&] { (void)f.eval.add(bad, good); },
             [&] { (void)f.eval.add(good, bad); },
             [&] { (void)f.eval.multiply(bad, good, f.relin); },
             [&] { f.eval.add_inplace(bad, good); }}) {
      heft::testing::expect_error<InvalidArgument>(call, "is not a positive finite number");
    }
    EXPECT_TRUE(same_parts(bad, before));
    // The same scales on a plaintext.
    Plaintext plain = f.encoder.encode(x, f.eval.scale_at(2), 2);
    plain.scale = scale;
    heft::testing::expect_error<InvalidArgument>(
        [&] { (void)f.eval.multiply_plain(good, plain); },
        "multiply_plain: the plaintext is malformed: the scale");
    heft::testing::expect_error<InvalidArgument>(
        [&] { (void)f.eval.add_plain(good, plain); },
        "add_plain: the plaintext is malformed: the scale");
  }
  // Slot counts: above N/2, or not a power of two. multiply_monomial used to
  // divide by zero on N slots; rotations reduced steps modulo the bad count.
  for (const std::size_t slots : {f.context->degree(), std::size_t{3}, std::size_t{1000}}) {
    Ciphertext bad = good.clone();
    bad.slots = slots;
    heft::testing::expect_error<InvalidArgument>(
        [&] { (void)f.eval.multiply_monomial(bad, 1); },
        "multiply_monomial: the ciphertext is malformed: slot count");
    heft::testing::expect_error<InvalidArgument>([&] { (void)f.eval.rotate(bad, 1, keys); },
                                                 "rotate: the ciphertext is malformed: slot count");
    heft::testing::expect_error<InvalidArgument>([&] { (void)f.eval.add(bad, good); },
                                                 "add: the ciphertext is malformed: slot count");
    // Serialization refuses what the evaluator would, both ways.
    EXPECT_THROW((void)rlwe::save(*f.context, bad), InvalidArgument);
  }
  // Products whose scale leaves a double's range are refused, not carried.
  Ciphertext huge = good.clone();
  huge.scale = std::ldexp(1.0, 600);
  heft::testing::expect_error<InvalidArgument>([&] { (void)f.eval.multiply(huge, huge); },
                                               "multiply: the result's scale");
}

// Constants and scalars: refused in the caller's name, with what was wrong.
TEST(Ckks, BadScalarsAndMissingSumKeysNameTheOperation) {
  Fixture f(small_params(2048, 2, 1));
  std::mt19937_64 rng(82);
  const Ciphertext c = f.encrypt(random_vector(f.slots(), rng));
  using heft::testing::expect_error;
  expect_error<InvalidArgument>([&] { (void)f.eval.multiply_scalar(c, HUGE_VAL); },
                                "multiply_scalar: the scalar is NaN or infinite");
  expect_error<InvalidArgument>([&] { (void)f.eval.multiply_scalar(c, cd(0, std::nan(""))); },
                                "multiply_scalar: the scalar is NaN or infinite");
  expect_error<InvalidArgument>([&] { (void)f.eval.multiply_scalar(c, 1e300); },
                                "multiply_scalar: values times");
  expect_error<InvalidArgument>([&] { (void)f.eval.add_scalar(c, std::nan("")); },
                                "add_scalar: the constant is NaN or infinite");
  expect_error<InvalidArgument>([&] { (void)f.eval.sub_scalar(c, -HUGE_VAL); },
                                "sub_scalar: the constant is NaN or infinite");
  expect_error<InvalidArgument>([&] { (void)f.eval.add_scalar(c, 1e300); },
                                "add_scalar: the constant times the scale");
  expect_error<InvalidArgument>(
      [&] { (void)f.eval.multiply_integer(f.eval.drop_to_level(c, 0), INT64_MIN); },
      "multiply_integer: values times");
  // sum_slots checks every key it needs before any work, in its own name.
  const rlwe::GaloisKeys some = f.keygen.create_galois_keys(std::vector<int64_t>{2, 4});
  expect_error<InvalidArgument>([&] { (void)f.eval.sum_slots(c, some); },
                                "sum_slots: no Galois key for step 1");
  expect_error<InvalidArgument>([&] { (void)f.eval.sum_slots(f.eval.multiply(c, c), some); },
                                "sum_slots: relinearize");
  expect_error<MismatchError>([&] { (void)f.eval.sum_slots(c, rlwe::GaloisKeys{}); }, "sum_slots");
  // A nominal scale 2^40 over 50-bit primes shrinks level by level until the
  // default scale of level 0 underflows to 0; multiply_scalar there used to
  // multiply by a zero constant and return a ciphertext of scale 0.
  rlwe::Parameters shrinking = rlwe::make_parameters(2048, {60, 50, 50, 50, 50, 50, 50, 50, 50},
                                                     {60}, 0, rlwe::SecurityLevel::none);
  shrinking.scale = std::ldexp(1.0, 40);
  Fixture g(shrinking);
  ASSERT_EQ(g.eval.scale_at(0), 0.0);
  const Ciphertext low = g.eval.drop_to_level(g.encrypt(random_vector(g.slots(), rng)), 0);
  expect_error<InvalidArgument>([&] { (void)g.eval.multiply_scalar(low, 0.5); },
                                "multiply_scalar: the result's scale 0");
  // relinearize_rescale at level 0 says so in its own name, whatever the size.
  const Ciphertext bottom = f.eval.drop_to_level(c, 0);
  expect_error<InvalidArgument>([&] { (void)f.eval.relinearize_rescale(bottom, f.relin); },
                                "relinearize_rescale: the ciphertext is at level 0");
}

// A product at level 0 is final: automatic mode must not try to rescale it
// later (it used to refuse every further product with a "rescale" error).
TEST(Ckks, ProductsAtLevelZeroCombineInAutomaticMode) {
  Fixture f(small_params(2048, 2, 1));
  std::mt19937_64 rng(83);
  const Vec x = random_vector(f.slots(), rng);
  // Scale 2^19 at level 0 (one 60-bit prime): x^3 at 2^57 still fits. A
  // secret-key encryption keeps the fresh noise near 2^9, about 2^-10 of it.
  const double scale = std::ldexp(1.0, 19);
  const Plaintext p = f.encoder.encode(x, scale, 0);
  const Ciphertext c = rlwe::Encryptor(f.keygen.secret_key()).encrypt(p);
  const Ciphertext squared = f.eval.multiply(c, c, f.relin);
  EXPECT_FALSE(squared.needs_rescale);
  const Ciphertext cubed = f.eval.multiply_plain(squared, p);
  const Ciphertext cubed_ct = f.eval.multiply(squared, c, f.relin);
  const Ciphertext plus = f.eval.add(f.eval.multiply_scalar(squared, 2.0), squared);
  Vec want_cube(x.size()), want_three_squares(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    want_cube[i] = x[i] * x[i] * x[i];
    want_three_squares[i] = 3.0 * x[i] * x[i];
  }
  expect_close(f.decrypt(cubed), want_cube, -6, "level 0: x^2 * plain x");
  expect_close(f.decrypt(cubed_ct), want_cube, -6, "level 0: x^2 * x");
  expect_close(f.decrypt(plus), want_three_squares, -6, "level 0: 2 x^2 + x^2");
}

// n sparse slots are the 2n-slot vector repeated, so an operation on a
// 4-slot and an 8-slot operand is one on 8 slots (it used to keep the first
// operand's 4 and decode a_j + (b_j + b_{j+4}) / 2).
TEST(Ckks, OperandsOfDifferentSlotCountsCombineAsTheLargerOne) {
  Fixture f(small_params(2048, 2, 1));
  std::mt19937_64 rng(11);
  const Vec x = random_vector(4, rng), y = random_vector(8, rng);
  const std::size_t level = f.context->max_level();
  const double scale = f.eval.scale_at(level);
  const Ciphertext cx = f.encryptor.encrypt(f.encoder.encode(x, scale, level, 4));
  const Ciphertext cy = f.encryptor.encrypt(f.encoder.encode(y, scale, level, 8));
  Vec sum(8), product(8);
  for (std::size_t i = 0; i < 8; ++i) {
    sum[i] = x[i % 4] + y[i];
    product[i] = x[i % 4] * y[i];
  }
  for (const Ciphertext& got : {f.eval.add(cx, cy), f.eval.add(cy, cx)}) {
    EXPECT_EQ(got.slots, 8u);
    expect_close(f.decrypt(got), sum, -19, "add 4 + 8 slots");
  }
  Ciphertext in_place = cx.clone();
  f.eval.add_inplace(in_place, cy);
  expect_close(f.decrypt(in_place), sum, -19, "add_inplace 4 + 8 slots");
  const Plaintext py = f.encoder.encode(y, scale, level, 8);
  expect_close(f.decrypt(f.eval.add_plain(cx, py)), sum, -19, "add_plain 4 + 8 slots");
  expect_close(f.decrypt(f.eval.multiply_plain(cx, py)), product, -19,
               "multiply_plain 4 x 8 slots");
  expect_close(f.decrypt(f.eval.multiply(cx, cy, f.relin)), product, -19, "multiply 4 x 8 slots");
}

TEST(Ckks, ApplyGaloisByTheIdentityIsACopy) {
  Fixture f(small_params(2048, 2, 1));
  std::mt19937_64 rng(12);
  const Vec x = random_vector(f.slots(), rng);
  const Ciphertext cx = f.encrypt(x);
  const rlwe::GaloisKeys keys = f.keygen.create_galois_keys(std::vector<int64_t>{1});
  const Ciphertext same = f.eval.apply_galois(cx, 1, keys);
  EXPECT_TRUE(same.parts[0] == cx.parts[0] && same.parts[1] == cx.parts[1]);
}

// The helper's promise, end to end, where fixed primes just below 2^30 used
// to fail after 12 levels: 15 multiplications in sequence (relinearized and
// rescaled, each by a fresh ciphertext of unit-modulus values, so that the
// error adds up instead of doubling as it would by squaring) reach level 0
// with the right result.
TEST(ParameterHelper, SuggestedDepthIsUsableEndToEnd) {
  ParameterRequest request;
  request.depth = 15;
  request.scale_bits = 30;
  request.first_prime_bits = 45;
  Fixture f(suggest_parameters(request));
  std::mt19937_64 rng(19);
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
  const auto unit_vector = [&] {
    Vec v(f.slots());
    for (auto& z : v)
      z = std::polar(1.0, angle(rng));
    return v;
  };
  Vec want = unit_vector();
  Ciphertext c = f.encrypt(want);
  for (std::size_t level = request.depth; level > 0; --level) {
    const Vec y = unit_vector();
    c = f.eval.rescale(f.eval.multiply(c, f.encrypt(y, level), f.relin));
    for (std::size_t i = 0; i < want.size(); ++i)
      want[i] *= y[i];
  }
  EXPECT_EQ(c.level(), 0u);
  // Fresh noise is about 2^-13 of a 30-bit scale here; 16 operands' worth.
  expect_close(f.decrypt(c), want, -6, "15 products at 30-bit scale");
}

TEST(ParameterHelper, PicksSecureParametersThatValidate) {
  for (std::size_t depth : {1, 3, 8, 15, 25}) {
    for (int scale_bits : {30, 40, 50}) {
      ParameterRequest request;
      request.depth = depth;
      request.scale_bits = scale_bits;
      request.first_prime_bits = std::min(60, scale_bits + 15);
      const rlwe::Parameters p = suggest_parameters(request);
      EXPECT_NO_THROW(p.validate());
      EXPECT_EQ(p.ciphertext_moduli.size(), depth + 1);
      // The default scales (s_(l-1) = s_l^2 / q_l, as rescaling makes them)
      // stay within half a bit of 2^scale_bits all the way down.
      double scale = p.scale;
      for (std::size_t level = depth; level > 0; --level) {
        scale = scale * scale / static_cast<double>(p.ciphertext_moduli[level]);
        EXPECT_LT(std::abs(std::log2(scale) - scale_bits), 0.5)
            << "depth " << depth << " scale " << scale_bits << " level " << level - 1;
      }
      EXPECT_LE(p.total_bits(), rlwe::max_log_qp(p.degree, rlwe::SecurityLevel::classic128));
      // Smallest N: half of it cannot hold even the ciphertext primes plus one special prime.
      if (p.degree > 1024) {
        const int minimum = request.first_prime_bits + static_cast<int>(depth) * scale_bits +
                            request.first_prime_bits;
        EXPECT_GT(minimum, rlwe::max_log_qp(p.degree / 2, rlwe::SecurityLevel::classic128))
            << "depth " << depth << " scale " << scale_bits;
      }
      // The chosen dnum has the least modelled cost among those that fit.
      for (std::size_t dnum = 1; dnum <= depth + 1; ++dnum) {
        const std::size_t alpha = (depth + 1 + dnum - 1) / dnum;
        const int total = request.first_prime_bits + static_cast<int>(depth) * scale_bits +
                          static_cast<int>(alpha) * request.first_prime_bits;
        if (total <= rlwe::max_log_qp(p.degree, rlwe::SecurityLevel::classic128)) {
          EXPECT_LE(rlwe::key_switch_cost(depth + 1, p.digit_count(), p.degree),
                    rlwe::key_switch_cost(depth + 1, dnum, p.degree));
        }
      }
    }
  }
  ParameterRequest impossible;
  impossible.depth = 200;
  impossible.scale_bits = 50;
  EXPECT_THROW((void)suggest_parameters(impossible), InvalidArgument);
  ParameterRequest bad;
  bad.scale_bits = 60;
  bad.first_prime_bits = 50;
  EXPECT_THROW((void)suggest_parameters(bad), InvalidArgument);
  // Sizes that used to overflow an int or wrap 2 * slots: refused up front.
  for (std::size_t depth : {std::size_t{1} << 32, std::size_t{257}, SIZE_MAX}) {
    ParameterRequest deep;
    deep.depth = depth;
    EXPECT_THROW((void)suggest_parameters(deep), InvalidArgument) << depth;
  }
  ParameterRequest wide;
  wide.slots = std::size_t{1} << 63;
  EXPECT_THROW((void)suggest_parameters(wide), InvalidArgument);
  wide.slots = (std::size_t{1} << 16) + 1;
  EXPECT_THROW((void)suggest_parameters(wide), InvalidArgument);
}

}  // namespace
}  // namespace heft::ckks
