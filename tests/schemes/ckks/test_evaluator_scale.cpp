// CKKS alignment of plaintext operands and by hand: add_plain / sub_plain
// bring the ciphertext to a plaintext of another level or scale in automatic
// mode (as ciphertext operands are aligned), messages print refused scales
// with enough digits to tell them apart, align_to does in either mode what
// automatic alignment does, and effective_level / effective_scale say what a
// product awaiting its rescale counts as. Results against complex doubles.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks {
namespace {

using cd = std::complex<double>;
using Vec = std::vector<cd>;
using testing::expect_error;

struct Fixture {
  explicit Fixture(ScaleMode mode = ScaleMode::automatic) : eval(context, mode) {}

  static std::shared_ptr<const rlwe::Context> make_context() {
    auto params = rlwe::make_parameters(2048, {60, 40, 40, 40}, {60}, 0, rlwe::SecurityLevel::none);
    params.scale = std::ldexp(1.0, 40);
    return rlwe::Context::create(params);
  }

  std::size_t top() const { return context->max_level(); }
  Plaintext encode(const Vec& x, std::size_t level, double scale) const {
    return encoder.encode(x, scale, level);
  }
  Ciphertext encrypt(const Vec& x, std::size_t level) const {
    return encryptor.encrypt(encode(x, level, eval.scale_at(level)));
  }
  Vec decrypt(const Ciphertext& ct) const { return encoder.decode(decryptor.decrypt(ct)); }

  std::shared_ptr<const rlwe::Context> context = make_context();
  rlwe::KeyGenerator keygen{context};
  rlwe::RelinKey relin = keygen.create_relin_key();
  Encoder encoder{context};
  rlwe::Encryptor encryptor{keygen.create_public_key()};
  rlwe::Decryptor decryptor{keygen.secret_key()};
  Evaluator eval;
};

Vec random_vector(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  Vec v(n);
  for (auto& x : v)
    x = {dist(rng), dist(rng)};
  return v;
}

Vec combine(const Vec& x, const Vec& y, cd (*op)(cd, cd)) {
  Vec out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = op(x[i], y[i]);
  return out;
}
cd plus(cd a, cd b) {
  return a + b;
}
cd minus(cd a, cd b) {
  return a - b;
}
cd times(cd a, cd b) {
  return a * b;
}

void expect_close(const Vec& got, const Vec& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, std::ldexp(1.0, -18)) << what;
}

bool same_parts(const Ciphertext& a, const Ciphertext& b) {
  if (a.parts.size() != b.parts.size()) return false;
  for (std::size_t i = 0; i < a.parts.size(); ++i)
    if (!(a.parts[i] == b.parts[i])) return false;
  return a.scale == b.scale && a.needs_rescale == b.needs_rescale;
}

// The two scales a message prints as "scales 2^A and 2^B".
std::pair<std::string, std::string> printed_scales(const std::string& message) {
  const std::size_t at = message.find("scales ");
  const std::size_t and_at = message.find(" and ", at);
  const std::size_t end = message.find_first_of(" ;)", and_at + 5);
  if (at == std::string::npos || and_at == std::string::npos) return {};
  return {message.substr(at + 7, and_at - at - 7), message.substr(and_at + 5, end - and_at - 5)};
}

TEST(CkksAlignment, PlaintextAtAnotherLevelAndScaleIsAligned) {
  Fixture f;
  std::mt19937_64 rng(21);
  const Vec x = random_vector(1024, rng), y = random_vector(1024, rng);
  const std::size_t top = f.top();
  const Ciphertext cx = f.encrypt(x, top);
  // A plaintext one level down at that level's default scale (which differs
  // from the top's): the ciphertext moves down to it.
  const Plaintext lower = f.encode(y, top - 1, f.eval.scale_at(top - 1));
  Ciphertext sum = f.eval.add_plain(cx, lower);
  EXPECT_EQ(sum.level(), top - 1);
  EXPECT_EQ(sum.scale, lower.scale);
  expect_close(f.decrypt(sum), combine(x, y, plus), "add_plain, lower level and scale");
  expect_close(f.decrypt(f.eval.sub_plain(cx, lower)), combine(x, y, minus),
               "sub_plain, lower level and scale");
  // The same level at another scale: one level is spent to change the scale.
  const Plaintext other_scale = f.encode(y, top, std::ldexp(1.37, 40));
  sum = f.eval.add_plain(cx, other_scale);
  EXPECT_EQ(sum.level(), top - 1);
  EXPECT_EQ(sum.scale, other_scale.scale);
  expect_close(f.decrypt(sum), combine(x, y, plus), "add_plain, other scale");
  // A product awaiting its rescale meets a plaintext at the plain scale.
  const Ciphertext product = f.eval.multiply(cx, cx, f.relin);
  const Plaintext top_plain = f.encode(y, top, f.eval.scale_at(top));
  const Vec want = combine(combine(x, x, times), y, minus);
  expect_close(f.decrypt(f.eval.sub_plain(product, top_plain)), want, "pending product - plain");
  // A plaintext at the product's own scale is added without a rescale.
  const Plaintext at_product = f.encode(y, top, product.scale);
  const Ciphertext pending_sum = f.eval.add_plain(product, at_product);
  EXPECT_TRUE(pending_sum.needs_rescale);
  EXPECT_EQ(pending_sum.level(), top);
  expect_close(f.decrypt(pending_sum), combine(combine(x, x, times), y, plus),
               "pending product + plain at its scale");
}

TEST(CkksAlignment, PlaintextsThatCannotBeAlignedAreRefused) {
  Fixture f;
  std::mt19937_64 rng(22);
  const Vec x = random_vector(1024, rng);
  const Ciphertext at_zero = f.encrypt(x, 0);
  const Ciphertext before = at_zero.clone();
  const Plaintext other_scale = f.encode(x, 0, std::ldexp(1.37, 40));
  expect_error<InvalidArgument>([&] { (void)f.eval.sub_plain(at_zero, other_scale); },
                                "sub_plain: scales");
  EXPECT_TRUE(same_parts(at_zero, before));
  // Manual mode refuses, naming the operation and both scales.
  Fixture manual(ScaleMode::manual);
  const Ciphertext cx = manual.encrypt(x, manual.top());
  expect_error<MismatchError>(
      [&] {
        (void)manual.eval.sub_plain(cx, manual.encode(x, manual.top(), std::ldexp(1.37, 40)));
      },
      "sub_plain: the plaintext (level 3, scale 2^40.45) does not match the ciphertext (level 3, "
      "scale 2^40.00)");
}

TEST(CkksAlignment, MessagesTellCloseScalesApart) {
  Fixture f(ScaleMode::manual);
  std::mt19937_64 rng(23);
  const Vec x = random_vector(1024, rng);
  const Ciphertext cx = f.encrypt(x, f.top());
  for (const double relative : {2e-10, 1e-9, 1e-6}) {
    Ciphertext near = cx.clone();
    near.scale *= 1 + relative;
    std::string message;
    try {
      (void)f.eval.add(cx, near);
    } catch (const MismatchError& e) {
      message = e.what();
    }
    const auto [a, b] = printed_scales(message);
    EXPECT_FALSE(a.empty()) << message;
    EXPECT_NE(a, b) << message;
    // And for a plaintext.
    const Plaintext p = f.encode(x, f.top(), near.scale);
    try {
      (void)f.eval.add_plain(cx, p);
    } catch (const MismatchError& e) {
      message = e.what();
    }
    const std::size_t p_at = message.find("scale 2^"), c_at = message.find("scale 2^", p_at + 1);
    ASSERT_NE(c_at, std::string::npos) << message;
    EXPECT_NE(message.substr(p_at, message.find(')', p_at) - p_at),
              message.substr(c_at, message.find(')', c_at) - c_at))
        << message;
  }
}

TEST(CkksAlignment, AlignToDoesByHandWhatAutomaticModeDoes) {
  Fixture manual(ScaleMode::manual);
  const Evaluator automatic(manual.context);
  std::mt19937_64 rng(24);
  const Vec x = random_vector(1024, rng), y = random_vector(1024, rng);
  const std::size_t top = manual.top();
  const Ciphertext cx = manual.encrypt(x, top), cy = manual.encrypt(y, top - 1);
  // Manual: bring x to y's level and scale, then add.
  const Ciphertext aligned = manual.eval.align_to(cx, cy.level(), cy.scale);
  EXPECT_EQ(aligned.level(), top - 1);
  EXPECT_EQ(aligned.scale, cy.scale);
  expect_close(manual.decrypt(aligned), x, "align_to");
  const Ciphertext by_hand = manual.eval.add(aligned, cy);
  // Automatic mode aligns the same way, to the same ciphertext.
  const Ciphertext automatic_sum = automatic.add(cx, cy);
  EXPECT_TRUE(same_parts(by_hand, automatic_sum));
  expect_close(manual.decrypt(by_hand), combine(x, y, plus), "align_to + add");
  // With the scale already right, align_to only drops primes.
  EXPECT_TRUE(same_parts(manual.eval.align_to(cx, 0, cx.scale), manual.eval.drop_to_level(cx, 0)));
  // To any scale about a prime from the ciphertext's.
  const double target = std::ldexp(1.37, 40);
  const Ciphertext rescaled = manual.eval.align_to(cx, 1, target);
  EXPECT_EQ(rescaled.scale, target);
  expect_close(manual.decrypt(rescaled), x, "align_to another scale");
}

TEST(CkksAlignment, AlignToRefusesWhatItCannotDo) {
  Fixture f(ScaleMode::manual);
  std::mt19937_64 rng(25);
  const Ciphertext cx = f.encrypt(random_vector(1024, rng), 1);
  const Ciphertext before = cx.clone();
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(cx, 2, cx.scale); },
                                "align_to: the target level 2 is above the ciphertext's level 1");
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(cx, 1, cx.scale * 1.5); },
                                "changing a scale takes a level");
  // A product not rescaled (scale about 2^80) to the plain scale: k = round(
  // scale q / a.scale) is about 1, far too coarse to label the result exactly.
  const Ciphertext product = f.eval.multiply(cx, cx, f.relin);
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(product, 0, cx.scale); },
                                "align_to: scales 2^80.00 and 2^40.00 cannot be aligned exactly");
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(cx, 0, std::ldexp(1.0, 70)); },
                                "align_to: the result's scale 2^70.00 would overflow");
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(cx, 0, std::nan("")); },
                                "align_to: the result's scale");
  expect_error<InvalidArgument>([&] { (void)f.eval.align_to(cx, 0, -1.0); },
                                "align_to: the result's scale");
  EXPECT_TRUE(same_parts(cx, before));
}

TEST(CkksAlignment, EffectiveLevelOfAPendingProduct) {
  Fixture automatic;
  const Evaluator manual(automatic.context, ScaleMode::manual);
  std::mt19937_64 rng(26);
  const Vec x = random_vector(1024, rng);
  const std::size_t top = automatic.top();
  const Ciphertext cx = automatic.encrypt(x, top);
  const Ciphertext product = automatic.eval.multiply(cx, cx, automatic.relin);
  ASSERT_TRUE(product.needs_rescale);
  const Ciphertext rescaled = automatic.eval.rescale(product);
  // Automatic mode counts the product as what its rescale makes it.
  EXPECT_EQ(product.level(), top);
  EXPECT_EQ(automatic.eval.effective_level(product), top - 1);
  EXPECT_EQ(automatic.eval.effective_scale(product), rescaled.scale);
  EXPECT_EQ(automatic.eval.effective_level(cx), top);
  EXPECT_EQ(automatic.eval.effective_scale(cx), cx.scale);
  // The next product starts from there.
  EXPECT_EQ(automatic.eval.multiply(product, cx, automatic.relin).level(), top - 1);
  // align_to to its effective level and scale is its rescale; to its own
  // level at another scale, nothing is left to change the scale in.
  EXPECT_TRUE(same_parts(automatic.eval.align_to(product, top - 1, rescaled.scale), rescaled));
  expect_error<InvalidArgument>(
      [&] { (void)automatic.eval.align_to(product, top, automatic.eval.scale_at(top)); },
      "align_to: the ciphertext is a product awaiting its rescale, at effective level 2");
  // Keeping its scale, it is only dropped and stays pending.
  const Ciphertext dropped = automatic.eval.align_to(product, top - 1, product.scale);
  EXPECT_TRUE(dropped.needs_rescale);
  EXPECT_EQ(dropped.level(), top - 1);
  // Manual mode rescales nothing for you: the product is where it is.
  const Ciphertext manual_product = manual.multiply(cx, cx, automatic.relin);
  EXPECT_EQ(manual.effective_level(manual_product), top);
  EXPECT_EQ(manual.effective_scale(manual_product), manual_product.scale);
}

}  // namespace
}  // namespace heft::ckks
