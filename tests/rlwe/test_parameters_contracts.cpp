// Pairs of contracts that must agree: the prime count validate() accepts and
// the one save() writes; the ring degrees make_parameters() and validate()
// accept, in the same words; a CKKS scale that Context::create accepts and
// the first multiplication the evaluator then performs (checked against the
// squares computed here in double); the index the encoder names for a value
// that is not finite.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bench/parameter_sets.hpp"
#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

using heft::testing::expect_error;

Parameters with_primes(uint64_t degree, int bits, std::size_t count) {
  Parameters p;
  p.degree = degree;
  p.security = SecurityLevel::none;
  for (const auto& q : math::generate_ntt_primes(bits, degree, count))
    p.ciphertext_moduli.push_back(q.value());
  return p;
}

TEST(ParameterContracts, ValidateAndSaveAgreeOnThePrimeCount) {
  Parameters p = with_primes(1024, 50, kMaxPrimeCount + 1);
  expect_error<InvalidArgument>([&] { p.validate(); },
                                "257 primes: parameter sets hold at most 256");
  expect_error<InvalidArgument>([&] { (void)Context::create(p); }, "at most 256");
  expect_error<InvalidArgument>([&] { (void)save(p); }, "at most 256");
  // The largest count validate() accepts is saved and loads back (special
  // primes count too).
  p.special_moduli = {p.ciphertext_moduli.back()};
  p.ciphertext_moduli.resize(kMaxPrimeCount - 1);
  ASSERT_NO_THROW(p.validate());
  const Parameters loaded =
      load_parameters(save(p), LoadOptions{.allow_insecure_parameters = true});
  EXPECT_EQ(loaded.ciphertext_moduli, p.ciphertext_moduli);
  EXPECT_EQ(loaded.special_moduli, p.special_moduli);
}

TEST(ParameterContracts, MakeParametersAndValidateAgreeOnTheRingDegree) {
  for (const uint64_t n : {uint64_t{0}, uint64_t{2}, uint64_t{3}, uint64_t{512}, uint64_t{1000},
                           uint64_t{1536}, uint64_t{1} << 18}) {
    const std::string bound =
        "ring degree N = " + std::to_string(n) + " must be a power of two from 1024 to 131072";
    expect_error<InvalidArgument>(
        [&] { (void)make_parameters(n, {30}, {}, 0, SecurityLevel::none); },
        "make_parameters: " + bound);
    Parameters p;
    p.degree = n;
    p.ciphertext_moduli = {1073707009};  // any prime: the degree is checked first
    p.security = SecurityLevel::none;
    expect_error<InvalidArgument>([&] { p.validate(); }, bound);
  }
  for (const uint64_t n : {kMinRingDegree, kMaxRingDegree}) {
    EXPECT_NO_THROW((void)make_parameters(n, {40}, {}, 0, SecurityLevel::none)) << n;
  }
}

double log2_modulus(const Parameters& p) {
  double bits = 0;
  for (uint64_t q : p.ciphertext_moduli)
    bits += std::log2(static_cast<double>(q));
  return bits;
}

// The set: 2^70 over 40-bit primes used to pass and fail at the
// first square. Refused at creation now, by the evaluator's own test.
TEST(ParameterContracts, CkksScaleMustSurviveTheFirstMultiplication) {
  Parameters p = make_parameters(2048, {40, 40, 40}, {40}, 0, SecurityLevel::none);
  p.scale = std::ldexp(1.0, 70);
  expect_error<InvalidArgument>([&] { p.validate(); },
                                "CKKS scale 2^70 cannot survive the first multiplication");
  expect_error<InvalidArgument>([&] { (void)Context::create(p); }, "use a scale below 2^59");

  // One prime: nothing to rescale by, a fresh value must fit.
  Parameters single = make_parameters(2048, {50}, {}, 0, SecurityLevel::none);
  single.scale = std::ldexp(1.0, 40);
  EXPECT_NO_THROW(single.validate());
  single.scale = std::ldexp(1.0, 49);
  expect_error<InvalidArgument>([&] { single.validate(); }, "does not fit the modulus");

  // The library's own sets: 2^40 over 48-50-bit primes and more.
  for (const auto& set : bench::parameter_sets())
    EXPECT_NO_THROW((void)set.make().validate()) << set.name;

  // At the boundary, the rule and the evaluator agree: a scale just inside
  // survives square-and-rescale (checked against x^2 in double), one just
  // outside is refused at creation.
  Parameters edge = make_parameters(2048, {60, 40, 40}, {60}, 0, SecurityLevel::none);
  const double largest_log2 = (log2_modulus(edge) - 1) / 2;
  edge.scale = std::exp2(largest_log2 + 1e-6);
  expect_error<InvalidArgument>([&] { (void)Context::create(edge); },
                                "cannot survive the first multiplication");
  edge.scale = std::exp2(largest_log2 - 1e-6);
  const auto context = Context::create(edge);
  KeyGenerator keygen(context);
  const ckks::Encoder encoder(context);
  const ckks::Evaluator eval(context);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> value(-0.5, 0.5);
  std::vector<std::complex<double>> x(context->degree() / 2);
  for (auto& v : x)
    v = {value(rng), value(rng)};
  const std::size_t top = context->max_level();
  const Ciphertext ct = Encryptor(keygen.secret_key()).encrypt(encoder.encode(x, edge.scale, top));
  const Ciphertext squared = eval.rescale(eval.square(ct, keygen.create_relin_key()));
  const auto got = encoder.decode(Decryptor(keygen.secret_key()).decrypt(squared));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - x[i] * x[i]));
  EXPECT_LT(worst, 1e-6);
}

TEST(ParameterContracts, EncoderNamesTheIndexOfAValueThatIsNotFinite) {
  Parameters p = make_parameters(2048, {50, 40}, {}, 0, SecurityLevel::none);
  p.scale = std::ldexp(1.0, 30);
  const auto context = Context::create(p);
  const ckks::Encoder encoder(context);
  std::vector<double> values = {1.0, 2.0, 3.0, std::numeric_limits<double>::quiet_NaN()};
  expect_error<InvalidArgument>([&] { (void)encoder.encode(values, p.scale, 1); },
                                "the value at index 3 is not finite");
  values = {std::numeric_limits<double>::infinity()};
  expect_error<InvalidArgument>([&] { (void)encoder.encode(values, p.scale, 1); },
                                "the value at index 0 is not finite");
}

}  // namespace
}  // namespace heft::rlwe
