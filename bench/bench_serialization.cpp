// bench_serialization: sizes and save/load times of serialized CKKS objects,
// to set beside SEAL's sizes in ../shared/ANCHORS.md, on the seal-n16384,
// seal-n32768 and openfhe-n65536 sets of parameter_sets.hpp.
// Rows: Save / Load of a public-key ciphertext (full), a secret-key
// ciphertext (seeded), the relinearization key and SEAL's default Galois key
// set (power-of-two steps both ways + conjugation), each uncompressed and
// with zstd (level 3). The counter "bytes" is the serialized size.
//   HEFT_NUM_THREADS=1 build/bench/bench_serialization --benchmark_repetitions=3 \
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/parallel.hpp"
#include "parameter_sets.hpp"
#include "run_benchmarks.hpp"

namespace {

using heft::rlwe::Bytes;
using heft::rlwe::Compression;
using heft::rlwe::SaveOptions;

using heft::bench::ParameterSet;

// The sets of parameter_sets.hpp with an anchor or the N = 2^16.
std::vector<ParameterSet> serialization_sets() {
  std::vector<ParameterSet> sets;
  for (ParameterSet& set : heft::bench::parameter_sets()) {
    if (std::string(set.name) != "openfhe-n16384") sets.push_back(std::move(set));
  }
  return sets;
}

// The full Galois key set is timed where it fits in memory twice (at
// N = 32768 it would be 1.5 GB of keys).
bool times_galois_set(const ParameterSet& set) {
  return set.degree != 32768;
}

// SEAL's default Galois elements (GaloisTool::get_elts_all), as heft steps:
// +-2^i for i < log2(N) - 1, and conjugation; duplicates merge in the set.
std::vector<int64_t> seal_default_steps(uint64_t degree) {
  std::vector<int64_t> steps;
  for (uint64_t step = 1; step < degree / 2; step *= 2) {
    steps.push_back(static_cast<int64_t>(step));
    steps.push_back(-static_cast<int64_t>(step));
  }
  return steps;
}

struct Setup {
  explicit Setup(const ParameterSet& set) {
    const auto params = set.make();
    context = heft::rlwe::Context::create(params);
    keygen = std::make_unique<heft::rlwe::KeyGenerator>(context);
    relin = keygen->create_relin_key();
    if (times_galois_set(set))
      galois = keygen->create_galois_keys(seal_default_steps(set.degree), true);
    heft::ckks::Encoder encoder(context);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<std::complex<double>> values(set.degree / 2);
    for (auto& v : values)
      v = {dist(rng), dist(rng)};
    const auto plain = encoder.encode(values, params.scale, context->max_level());
    public_ct = heft::rlwe::Encryptor(keygen->create_public_key()).encrypt(plain);
    seeded_ct = heft::rlwe::Encryptor(keygen->secret_key()).encrypt(plain);
  }
  std::shared_ptr<const heft::rlwe::Context> context;
  std::unique_ptr<heft::rlwe::KeyGenerator> keygen;
  heft::rlwe::RelinKey relin;
  heft::rlwe::GaloisKeys galois;
  heft::rlwe::Ciphertext public_ct, seeded_ct;
};

Setup& cached_setup(const ParameterSet& set) {
  static std::map<std::string, std::unique_ptr<Setup>> cache;
  auto& slot = cache[set.name];
  if (!slot) slot = std::make_unique<Setup>(set);
  return *slot;
}

// Registers Save and Load rows for one object: save(setup, options) makes
// the bytes, load(setup, bytes) reads them back.
template <typename SaveFn, typename LoadFn>
void register_object(const ParameterSet& set, const std::string& object, SaveFn save, LoadFn load) {
  for (const Compression compression : {Compression::none, Compression::zstd}) {
    const SaveOptions options{compression, 3, true};
    const std::string suffix =
        "/" + std::string(set.name) + (compression == Compression::zstd ? "/zstd" : "/none");
    benchmark::RegisterBenchmark(("Save_" + object + suffix).c_str(),
                                 [set, save, options](benchmark::State& state) {
                                   Setup& s = cached_setup(set);
                                   std::size_t bytes = 0;
                                   for (auto _ : state) {
                                     const Bytes out = save(s, options);
                                     bytes = out.size();
                                     benchmark::DoNotOptimize(out.data());
                                   }
                                   state.counters["bytes"] = static_cast<double>(bytes);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("Load_" + object + suffix).c_str(),
                                 [set, save, load, options](benchmark::State& state) {
                                   Setup& s = cached_setup(set);
                                   const Bytes in = save(s, options);
                                   for (auto _ : state)
                                     load(s, in);
                                   state.counters["bytes"] = static_cast<double>(in.size());
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

int register_all() {
  namespace rlwe = heft::rlwe;
  for (const ParameterSet& set : serialization_sets()) {
    register_object(
        set, "CiphertextPublicKeyEnc",
        [](Setup& s, const SaveOptions& o) { return rlwe::save(*s.context, s.public_ct, o); },
        [](Setup& s, const Bytes& b) {
          benchmark::DoNotOptimize(rlwe::load_ciphertext(s.context, b));
        });
    register_object(
        set, "CiphertextSecretKeyEnc",
        [](Setup& s, const SaveOptions& o) { return rlwe::save(*s.context, s.seeded_ct, o); },
        [](Setup& s, const Bytes& b) {
          benchmark::DoNotOptimize(rlwe::load_ciphertext(s.context, b));
        });
    register_object(
        set, "RelinKey", [](Setup& s, const SaveOptions& o) { return rlwe::save(s.relin, o); },
        [](Setup& s, const Bytes& b) {
          benchmark::DoNotOptimize(rlwe::load_relin_key(s.context, b));
        });
    if (times_galois_set(set)) {
      register_object(
          set, "GaloisKeysSealDefault",
          [](Setup& s, const SaveOptions& o) { return rlwe::save(s.galois, o); },
          [](Setup& s, const Bytes& b) {
            benchmark::DoNotOptimize(rlwe::load_galois_keys(s.context, b));
          });
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace

int main(int argc, char** argv) {
  return run_benchmarks(argc, argv);
}
