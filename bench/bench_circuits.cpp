// Circuits benchmarks: Chebyshev series (OpenFHE's EvalChebyshevFunction on
// the logistic function, degrees 59 and 119) and baby-step giant-step linear
// transforms (a dense 2^12-slot matrix at N = 2^14, and a 2^15-slot radix-8
// FFT stage at N = 2^16, bootstrapping's shape), at 1 and 2 threads.
// Rows: Circuits_Chebyshev/<degree>/<set>/threads:<t>,
// Circuits_LinearTransform/<diagonals>/<set>/threads:<t> (with the baby and
// giant step counts as counters). Set-up (keys, encoding) is not timed.
#include <benchmark/benchmark.h>

#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "heft/circuits/approximation.hpp"
#include "heft/circuits/linear_transform.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/parallel.hpp"
#include "parameter_sets.hpp"
#include "run_benchmarks.hpp"

namespace {

using heft::bench::ParameterSet;
using cd = std::complex<double>;

struct Setup {
  explicit Setup(const ParameterSet& set)
      : context(heft::rlwe::Context::create(set.make())),
        keygen(context),
        relin(keygen.create_relin_key()),
        encoder(context),
        evaluator(context),
        encryptor(keygen.create_public_key()) {}

  heft::rlwe::Ciphertext encrypt_random(std::size_t slots, double bound) const {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> dist(-bound, bound);
    std::vector<cd> values(slots);
    for (auto& v : values)
      v = dist(rng);
    const std::size_t top = context->max_level();
    return encryptor.encrypt(encoder.encode(values, evaluator.scale_at(top), top, slots));
  }

  std::shared_ptr<const heft::rlwe::Context> context;
  heft::rlwe::KeyGenerator keygen;
  heft::rlwe::RelinKey relin;
  heft::ckks::Encoder encoder;
  heft::ckks::Evaluator evaluator;
  heft::rlwe::Encryptor encryptor;
};

Setup& setup_for(const ParameterSet& set) {
  static std::map<std::string, std::unique_ptr<Setup>> cache;
  auto& slot = cache[set.name];
  if (!slot) slot = std::make_unique<Setup>(set);
  return *slot;
}

const ParameterSet& set_named(const std::string& name) {
  static const auto sets = heft::bench::parameter_sets();
  for (const auto& set : sets)
    if (set.name == name) return set;
  throw std::runtime_error("no parameter set " + name);
}

void register_chebyshev(std::size_t degree, const std::string& set_name, int threads) {
  const std::string name = "Circuits_Chebyshev/" + std::to_string(degree) + "/" + set_name +
                           "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [=](benchmark::State& state) {
        heft::set_num_threads(static_cast<std::size_t>(threads));
        Setup& s = setup_for(set_named(set_name));
        // OpenFHE's EvalLogistic example: the logistic function on [-4, 4].
        const auto p = heft::circuits::approximations::sigmoid(-4, 4, degree);
        const heft::circuits::PolynomialEvaluator polynomials(s.context, s.relin);
        const auto x = s.encrypt_random(s.encoder.max_slots(), 4);
        benchmark::DoNotOptimize(polynomials.evaluate(x, p));  // warm: lazily built tables
        for (auto _ : state)
          benchmark::DoNotOptimize(polynomials.evaluate(x, p));
        state.counters["depth"] = static_cast<double>(p.depth());
        state.counters["products"] = static_cast<double>(polynomials.multiplication_count(p));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

// A transform with random values on the given diagonals, evaluated at `level`.
void register_transform(const std::string& label, const std::string& set_name,
                        std::vector<int64_t> indices, std::size_t slots, std::size_t level,
                        int threads) {
  const std::string name =
      "Circuits_LinearTransform/" + label + "/" + set_name + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [=](benchmark::State& state) {
        heft::set_num_threads(static_cast<std::size_t>(threads));
        Setup& s = setup_for(set_named(set_name));
        static std::map<std::string, std::unique_ptr<heft::circuits::LinearTransform>> transforms;
        static std::map<std::string, std::unique_ptr<heft::rlwe::GaloisKeys>> keys;
        const std::string key = label + set_name;
        if (!transforms[key]) {
          std::mt19937_64 rng(2);
          std::uniform_real_distribution<double> dist(-1, 1);
          const auto diagonal = [&](int64_t) {
            std::vector<cd> d(slots);
            for (auto& v : d)
              v = cd(dist(rng), dist(rng));
            return d;
          };
          heft::circuits::LinearTransformOptions options;
          options.level = level;
          options.slots = slots;
          transforms[key] = std::make_unique<heft::circuits::LinearTransform>(
              heft::circuits::LinearTransform::from_function(s.encoder, diagonal, indices,
                                                             options));
          keys[key] = std::make_unique<heft::rlwe::GaloisKeys>(
              s.keygen.create_galois_keys(transforms[key]->rotation_steps()));
        }
        const auto& m = *transforms[key];
        const heft::circuits::LinearTransformEvaluator evaluator(s.context);
        const auto x = s.evaluator.drop_to_level(s.encrypt_random(slots, 1), level);
        benchmark::DoNotOptimize(evaluator.evaluate(x, m, *keys[key]));  // warm
        for (auto _ : state)
          benchmark::DoNotOptimize(evaluator.evaluate(x, m, *keys[key]));
        // n1, and the rotations (key switches) each kind of step takes.
        const auto babies = m.baby_step_set();
        state.counters["n1"] = static_cast<double>(m.baby_steps());
        state.counters["baby_rotations"] =
            static_cast<double>(babies.size() - (babies.front() == 0 ? 1 : 0));
        state.counters["giant_rotations"] = static_cast<double>(
            m.rotation_steps().size() + (babies.front() == 0 ? 1 : 0) - babies.size());
        state.counters["diagonals"] = static_cast<double>(m.diagonal_count());
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* set : {"openfhe-n16384", "openfhe-n65536"})
    for (std::size_t degree : {59, 119})
      for (int threads : {1, 2})
        register_chebyshev(degree, set, threads);
  std::vector<int64_t> dense(4096);
  for (std::size_t k = 0; k < dense.size(); ++k)
    dense[k] = static_cast<int64_t>(k);
  std::vector<int64_t> radix8;  // three radix-2 stages merged: offsets -7 .. 7
  for (int64_t k = -7; k <= 7; ++k)
    radix8.push_back(k);
  for (int threads : {1, 2}) {
    register_transform("dense4096", "openfhe-n16384", dense, 4096, 1, threads);
    register_transform("radix8", "openfhe-n65536", radix8, 32768, 10, threads);
  }
  return run_benchmarks(argc, argv);
}
