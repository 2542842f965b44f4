// The noise that key switching and rescaling leave is zero-mean: no fixed
// bias. A rounding that floors (or a base conversion whose error is always
// non-negative) adds the same small constant to every coefficient of each
// part; times the secret, that constant is a fixed polynomial whose slots
// nearest the root 1 are hundreds of times the typical noise, the same for
// every encryption. Bootstrapping's precision rests on this.
//
// The oracle is statistics over the decoded slots of encryptions of zero
// (the exact answer is 0): the largest slot error over the rms of all slots
// (a few units for zero-mean noise: the maximum of N/2 independent complex
// Gaussians), and the mean over several encryptions, which a bias survives
// while independent noise averages away.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"

namespace heft::ckks {
namespace {

using cd = std::complex<double>;
using Vec = std::vector<cd>;

constexpr std::size_t kEncryptions = 12;
// For zero-mean noise the largest of N/2 slots is 4-10 times the rms (not
// the 3-4 of independent Gaussians: each slot's variance is itself a
// random factor, |s(zeta)|^2 or the key noise's, fixed per slot); the issue
// that found the bias measured 107. Over 360 measurements of the test below
// the largest was 10.1.
constexpr double kMaxOverRms = 16.0;
// The mean over kEncryptions at the worst slot, in units of the standard
// error rms / sqrt(kEncryptions): up to 7.5 over those 360 measurements,
// against 18-200 with a bias.
constexpr double kMeanOverStandardError = 11.0;

struct SlotStatistics {
  double rms = 0;           // over every slot of every encryption
  double max_over_rms = 0;  // the worst single encryption
  double mean_z = 0;        // worst |mean over encryptions| / (rms / sqrt(count))
};

// Runs `noise()` (which decodes one fresh result that should be 0) kEncryptions
// times and measures the slots.
SlotStatistics measure(const std::function<Vec()>& noise) {
  std::vector<Vec> samples;
  for (std::size_t i = 0; i < kEncryptions; ++i)
    samples.push_back(noise());
  const std::size_t slots = samples[0].size();
  SlotStatistics stats;
  double sum_squares = 0;
  for (const Vec& v : samples) {
    for (const cd& x : v)
      sum_squares += std::norm(x);
  }
  stats.rms = std::sqrt(sum_squares / static_cast<double>(slots * samples.size()));
  for (const Vec& v : samples) {
    double worst = 0, own_squares = 0;
    for (const cd& x : v) {
      worst = std::max(worst, std::abs(x));
      own_squares += std::norm(x);
    }
    stats.max_over_rms =
        std::max(stats.max_over_rms, worst / std::sqrt(own_squares / static_cast<double>(slots)));
  }
  const double standard_error = stats.rms / std::sqrt(static_cast<double>(samples.size()));
  for (std::size_t s = 0; s < slots; ++s) {
    cd mean = 0;
    for (const Vec& v : samples)
      mean += v[s];
    mean /= static_cast<double>(samples.size());
    stats.mean_z = std::max(stats.mean_z, std::abs(mean) / standard_error);
  }
  return stats;
}

void expect_zero_mean(const SlotStatistics& stats, const std::string& what) {
  std::printf("  %-44s rms 2^%.1f  max/rms %.1f  mean/se %.1f\n", what.c_str(),
              std::log2(stats.rms), stats.max_over_rms, stats.mean_z);
  EXPECT_LT(stats.max_over_rms, kMaxOverRms) << what;
  EXPECT_LT(stats.mean_z, kMeanOverStandardError) << what;
}

struct Setting {
  uint64_t degree;
  std::size_t depth;
  std::size_t special_count;
  std::size_t dnum;
};

rlwe::Parameters parameters_for(const Setting& s) {
  std::vector<int> bits(s.depth + 1, 40);
  bits[0] = 55;
  auto params = rlwe::make_parameters(s.degree, bits, std::vector<int>(s.special_count, 55), s.dnum,
                                      rlwe::SecurityLevel::none);
  params.scale = std::ldexp(1.0, 40);
  return params;
}

// Rotation, conjugation, hoisted rotation, relinearization and the fused
// relinearize + rescale of encryptions of zero, for one and several special
// primes and digits. Secret-key encryption keeps the fresh noise small, so
// that what key switching adds is what is measured.
TEST(KeySwitchingNoise, IsZeroMeanForEveryOperationAndSetting) {
  const Setting settings[] = {{4096, 3, 1, 4}, {4096, 4, 3, 2}, {8192, 5, 2, 3}, {8192, 3, 4, 1}};
  for (const Setting& setting : settings) {
    const auto context = rlwe::Context::create(parameters_for(setting));
    std::printf("N=%llu K=%zu dnum=%zu\n", static_cast<unsigned long long>(setting.degree),
                setting.special_count, setting.dnum);
    rlwe::KeyGenerator keygen(context);
    const rlwe::RelinKey relin = keygen.create_relin_key();
    const int64_t steps[] = {1, -3};
    const rlwe::GaloisKeys galois = keygen.create_galois_keys(steps, true);
    const Encoder encoder(context);
    const Evaluator eval(context, ScaleMode::manual);
    const rlwe::Encryptor encryptor(keygen.secret_key());
    const rlwe::Decryptor decryptor(keygen.secret_key());
    const std::size_t top = context->max_level();
    const Vec zeros(context->degree() / 2, cd{0, 0});
    const std::function<Ciphertext()> zero = [&] {
      return encryptor.encrypt(encoder.encode(zeros, eval.scale_at(top), top));
    };
    const auto decoded = [&](const Ciphertext& c) { return encoder.decode(decryptor.decrypt(c)); };

    expect_zero_mean(measure([&] { return decoded(eval.rotate(zero(), 1, galois)); }), "rotate 1");
    expect_zero_mean(measure([&] { return decoded(eval.conjugate(zero(), galois)); }), "conjugate");
    expect_zero_mean(
        measure([&] { return decoded(eval.rotate_hoisted(zero(), steps, galois)[1]); }),
        "rotate_hoisted -3");
    // The product of two encryptions of zero: its own noise e e' is small
    // beside what relinearization adds at this scale.
    expect_zero_mean(measure([&] {
                       const Ciphertext a = zero(), b = zero();
                       return decoded(eval.relinearize(eval.multiply(a, b), relin));
                     }),
                     "relinearize");
    expect_zero_mean(measure([&] {
                       const Ciphertext a = zero(), b = zero();
                       return decoded(eval.multiply_rescale(a, b, relin));
                     }),
                     "multiply_rescale");
    expect_zero_mean(measure([&] {
                       const Ciphertext a = zero(), b = zero();
                       return decoded(eval.rescale(eval.multiply(a, b, relin)));
                     }),
                     "rescale(multiply_relin)");
  }
}

// The setting where the bias was found: the helper's parameters at depth 12
// (N = 32768, five special primes, dnum 3), public-key encryptions of zero
// rotated by one. The bias sat in slot N/2 - 1, the same for every
// encryption, 2^-17.4 against an rms of 2^-24.1.
TEST(KeySwitchingNoise, RotationAtTheHelpersDepth12ParametersIsUnbiased) {
  ParameterRequest request;
  request.depth = 12;
  const auto context = rlwe::Context::create(suggest_parameters(request));
  rlwe::KeyGenerator keygen(context);
  const int64_t step[] = {1};
  const rlwe::GaloisKeys galois = keygen.create_galois_keys(step);
  const Encoder encoder(context);
  const Evaluator eval(context);
  const rlwe::Encryptor encryptor(keygen.create_public_key());
  const rlwe::Decryptor decryptor(keygen.secret_key());
  const std::size_t top = context->max_level();
  const Vec zeros(context->degree() / 2, cd{0, 0});
  expect_zero_mean(measure([&] {
                     const Ciphertext zero =
                         encryptor.encrypt(encoder.encode(zeros, eval.scale_at(top), top));
                     return encoder.decode(decryptor.decrypt(eval.rotate(zero, 1, galois)));
                   }),
                   describe(context->parameters()) + ": rotate 1");
}

// Multiplies random pairs with multiply_rescale and with rescale(multiply)
// at the top level and at level 2 and compares their largest errors.
void compare_fused_and_separate(const rlwe::Parameters& params) {
  const auto context = rlwe::Context::create(params);
  std::printf("%s\n", describe(params).c_str());
  rlwe::KeyGenerator keygen(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const Encoder encoder(context);
  const Evaluator eval(context, ScaleMode::manual);
  const rlwe::Encryptor encryptor(keygen.secret_key());
  const rlwe::Decryptor decryptor(keygen.secret_key());
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (std::size_t level : {context->max_level(), std::size_t{2}}) {
    double fused_worst = 0, separate_worst = 0;
    for (int trial = 0; trial < 4; ++trial) {
      Vec x(context->degree() / 2), y(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = {unit(rng), unit(rng)};
        y[i] = {unit(rng), unit(rng)};
      }
      const Ciphertext a = encryptor.encrypt(encoder.encode(x, eval.scale_at(level), level));
      const Ciphertext b = encryptor.encrypt(encoder.encode(y, eval.scale_at(level), level));
      const Vec fused = encoder.decode(decryptor.decrypt(eval.multiply_rescale(a, b, relin)));
      const Vec separate =
          encoder.decode(decryptor.decrypt(eval.rescale(eval.multiply(a, b, relin))));
      for (std::size_t i = 0; i < x.size(); ++i) {
        fused_worst = std::max(fused_worst, std::abs(fused[i] - x[i] * y[i]));
        separate_worst = std::max(separate_worst, std::abs(separate[i] - x[i] * y[i]));
      }
    }
    std::printf("level %zu: fused 2^%.1f, separate 2^%.1f\n", level, std::log2(fused_worst),
                std::log2(separate_worst));
    // Within one bit of the two calls.
    EXPECT_LT(std::log2(fused_worst), std::log2(separate_worst) + 1.0) << "level " << level;
  }
}

// The fused relinearize + rescale divides by P q_l in one step; its error
// must be that of the two calls (a rounding of a few units per coefficient),
// not a bias: compared on random products at the top level and below.
TEST(KeySwitchingNoise, FusedRescaleIsAsPreciseAsTheTwoCalls) {
  ParameterRequest depth12;
  depth12.depth = 12;  // the setting where the gap was found (2^-18.0 against 2^-24.6)
  for (const rlwe::Parameters& params :
       {parameters_for(Setting{8192, 4, 3, 2}), suggest_parameters(depth12)}) {
    compare_fused_and_separate(params);
  }
}

}  // namespace
}  // namespace heft::ckks
