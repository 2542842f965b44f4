// CKKS bootstrapping benchmarks on the presets (circuits/bootstrap_presets.hpp).
// Rows:
//   CKKS_Bootstrap/<preset>/<order>/threads:<t>   one bootstrap, t = 1, 2:
//       cts_first (CoeffsToSlots first) of a level-0 ciphertext, stc_first
//       (SlotsToCoeffs first) of one at the entry level it needs, and
//       cts_first_real / stc_first_real with real_slots (one EvalMod),
//       cts_first_refined two iterations (bootstrap_refined);
//       counters: the precision over all slots (-log2 max and median abs
//       error, real inputs uniform in [-1, 1]) against what the input
//       decrypts to (bits_*: the bootstrapping's own error) and against
//       the plaintext (plain_bits_*: with the input's encryption noise at
//       level 0), and the output level;
//   CKKS_BootstrapPhase/<preset>/<phase>/threads:<t> each phase alone
//       (mod_raise, coeffs_to_slots, eval_mod, slots_to_coeffs) on the
//       previous phase's output;
//   CKKS_BootstrapKeyGen/<preset>   every key (Bootstrapper::create_keys):
//       relinearization, Galois, and the sparse-secret pair where the preset
//       encapsulates; counters: key bytes, key count, and the user and
//       system CPU seconds per key set (system: first touch of fresh pages).
//   CKKS_FBT/<p>/<preset>/threads:<t>   functional bootstrapping
//       (FunctionalBootstrapper, functional_bootstrap_preset(preset, p)): a
//       random table over Z_p applied to a ciphertext of integers mod p in
//       every slot; counters: the largest error against the table, the
//       entries that round wrong (none expected), the table's depth and the
//       output level. CKKS_FBT_multi/... applies three tables at once.
//   BFV_FBT/<t>/<preset>/threads:<t>   a BFV ciphertext of random integers
//       mod t in every coefficient through a random table (BfvBgvBootstrapper
//       on functional_bootstrap_preset(preset, t)); counters: coefficients
//       wrong (none expected), the output's noise budget and level.
// Every row counts the peak memory so far (ru_maxrss, GiB). Set-up
// (parameters, transforms, keys) is not timed, except by the KeyGen row.
// Presets: small, small-encaps, n16-encaps, and the dense-secret n16 (its
// whole bootstraps only: keys 11.5 GiB, peak about 21 GiB). N = 2^16 rows
// take few iterations (seconds each, 15-21 GiB): run them alone, e.g.
//   bench_bootstrap --benchmark_filter='n16-encaps'
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "heft/circuits/bfv_bgv_bootstrapper.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/parallel.hpp"
#include "run_benchmarks.hpp"

namespace {

using cd = std::complex<double>;
namespace circuits = heft::circuits;
namespace rlwe = heft::rlwe;
namespace bfv = heft::bfv;

double peak_memory_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);
}

// User and system CPU seconds of this process so far (system time is mostly
// the kernel zeroing fresh pages on first touch).
std::pair<double, double> cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

// Milliseconds, wall-clock; one iteration per N = 2^16 row (each is
// seconds to minutes), Google Benchmark's own count for the small preset.
void configure(benchmark::internal::Benchmark* b, const std::string& preset) {
  b->Unit(benchmark::kMillisecond)->UseRealTime();
  if (preset.starts_with("n16")) b->Iterations(1);
}

// A preset's context, bootstrapper and secret; the evaluation keys, the
// level-0 input and each phase's output are made on first use (the KeyGen
// row runs without them, so its keys are never held twice).
circuits::BootstrapPreset with_real_slots(circuits::BootstrapPreset preset, bool real_slots) {
  preset.bootstrap.real_slots = real_slots;
  return preset;
}

struct Setup {
  Setup(const std::string& name, circuits::BootstrapOrder order, bool real_slots)
      : preset(with_real_slots(circuits::bootstrap_preset(name, order), real_slots)),
        context(rlwe::Context::create(preset.parameters)),
        bootstrapper(context, preset.bootstrap),
        keygen(context),
        encoder(context),
        evaluator(context) {}

  void make_keys() {
    if (keys) return;
    keys = std::make_unique<circuits::BootstrapKeys>(bootstrapper.create_keys(keygen.secret_key()));
    const rlwe::Encryptor encryptor(keygen.create_public_key());
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> uniform(-1, 1);
    values.resize(bootstrapper.slots());
    for (auto& v : values)
      v = uniform(rng);
    const std::size_t level = bootstrapper.entry_level();
    input = encryptor.encrypt(encoder.encode(values, evaluator.scale_at(level), level));
    held = encoder.decode(rlwe::Decryptor(keygen.secret_key()).decrypt(input));
    if (preset.bootstrap.order == circuits::BootstrapOrder::slots_to_coeffs_first) {
      // One untimed bootstrap, as the phases below warm the other order:
      // the first in a process pays for fresh memory.
      benchmark::DoNotOptimize(bootstrapper.bootstrap(input, *keys));
      return;
    }
    raised = bootstrapper.mod_raise(input, *keys);
    in_slots = bootstrapper.coeffs_to_slots(raised, keys->galois);
    reduced = bootstrapper.eval_mod(in_slots, keys->relin, keys->galois);
  }

  circuits::BootstrapPreset preset;
  std::shared_ptr<const rlwe::Context> context;
  circuits::Bootstrapper bootstrapper;
  rlwe::KeyGenerator keygen;
  heft::ckks::Encoder encoder;
  heft::ckks::Evaluator evaluator;
  std::unique_ptr<circuits::BootstrapKeys> keys;
  std::vector<cd> values;
  // What the input decrypts to: values plus its own encryption noise (at
  // level 0 under the dense secret at N = 2^16, about 2^-20 at the largest
  // slot), the reference for the bootstrapping's precision.
  std::vector<cd> held;
  rlwe::Ciphertext input, raised, in_slots, reduced;
};

// Functional bootstrapping's set-up: a preset for p, keys, random residues.
struct FbtSetup {
  FbtSetup(const std::string& name, std::size_t p)
      : preset(circuits::functional_bootstrap_preset(name, p)),
        context(rlwe::Context::create(preset.parameters)),
        fbt(context, preset.bootstrap, p),
        keygen(context),
        encoder(context),
        evaluator(context),
        keys(fbt.create_keys(keygen.secret_key())) {
    const rlwe::Encryptor encryptor(keygen.create_public_key());
    std::mt19937_64 rng(p);
    residues.resize(fbt.bootstrapper().slots());
    for (auto& m : residues)
      m = static_cast<double>(rng() % p);
    std::vector<cd> values(residues.begin(), residues.end());
    const std::size_t level = fbt.entry_level();
    input = encryptor.encrypt(encoder.encode(values, evaluator.scale_at(level), level));
    for (std::size_t t = 0; t < 3; ++t) {
      tables.emplace_back(p);
      for (auto& v : tables.back())
        v = static_cast<double>(rng() % p);
    }
    // One untimed run: the first in a process pays for fresh memory.
    benchmark::DoNotOptimize(fbt.evaluate(input, tables[0], keys));
  }

  circuits::BootstrapPreset preset;
  std::shared_ptr<const rlwe::Context> context;
  circuits::FunctionalBootstrapper fbt;
  rlwe::KeyGenerator keygen;
  heft::ckks::Encoder encoder;
  heft::ckks::Evaluator evaluator;
  circuits::BootstrapKeys keys;
  std::vector<double> residues;
  std::vector<std::vector<double>> tables;
  rlwe::Ciphertext input;
};

// The same for BFV ciphertexts of coefficient-encoded integers mod t.
struct BfvFbtSetup {
  BfvFbtSetup(const std::string& name, uint64_t t)
      : preset(circuits::functional_bootstrap_preset(name, t)),
        ckks(rlwe::Context::create(preset.parameters)),
        integer(rlwe::Context::create(
            circuits::BfvBgvBootstrapper::integer_parameters(preset.parameters, t))),
        bootstrapper(ckks, integer, preset.bootstrap),
        keygen(integer),
        keys(bootstrapper.create_keys(keygen.secret_key())) {
    std::mt19937_64 rng(t);
    message.resize(integer->degree());
    for (auto& m : message)
      m = rng() % t;
    table.resize(t);
    for (auto& v : table)
      v = rng() % t;
    input = bfv::Encryptor(keygen.secret_key()).encrypt({message, t});
    benchmark::DoNotOptimize(bootstrapper.evaluate_bfv(input, table, keys));
  }

  circuits::BootstrapPreset preset;
  std::shared_ptr<const rlwe::Context> ckks, integer;
  circuits::BfvBgvBootstrapper bootstrapper;
  rlwe::KeyGenerator keygen;
  circuits::BootstrapKeys keys;
  std::vector<uint64_t> message, table;
  rlwe::Ciphertext input;
};

// One set-up at a time, of any kind (rows run grouped by preset and
// order): an N = 2^16 set-up holds about 12 GiB, two would not fit.
std::string current_setup;
std::unique_ptr<Setup> bootstrap_setup;
std::unique_ptr<FbtSetup> fbt_setup;
std::unique_ptr<BfvFbtSetup> bfv_setup;

void release_setups() {
  bootstrap_setup.reset();
  fbt_setup.reset();
  bfv_setup.reset();
}

Setup& setup_for(const std::string& name,
                 circuits::BootstrapOrder order = circuits::BootstrapOrder::coeffs_to_slots_first,
                 bool real_slots = false) {
  const std::string key =
      name + (order == circuits::BootstrapOrder::slots_to_coeffs_first ? "/stc" : "/cts") +
      (real_slots ? "/real" : "");
  if (key != current_setup || !bootstrap_setup) {
    release_setups();
    bootstrap_setup = std::make_unique<Setup>(name, order, real_slots);
    current_setup = key;
  }
  return *bootstrap_setup;
}

FbtSetup& fbt_setup_for(const std::string& name, std::size_t p) {
  const std::string key = name + "/fbt/" + std::to_string(p);
  if (key != current_setup || !fbt_setup) {
    release_setups();
    fbt_setup = std::make_unique<FbtSetup>(name, p);
    current_setup = key;
  }
  return *fbt_setup;
}

BfvFbtSetup& bfv_setup_for(const std::string& name, uint64_t t) {
  const std::string key = name + "/bfv/" + std::to_string(t);
  if (key != current_setup || !bfv_setup) {
    release_setups();
    bfv_setup = std::make_unique<BfvFbtSetup>(name, t);
    current_setup = key;
  }
  return *bfv_setup;
}

void register_keygen(const std::string& preset) {
  auto* b = benchmark::RegisterBenchmark(
      ("CKKS_BootstrapKeyGen/" + preset).c_str(), [=](benchmark::State& state) {
        Setup& s = setup_for(preset);
        double bytes = 0, count = 0;
        const auto [user_before, system_before] = cpu_seconds();
        for (auto _ : state) {
          const circuits::BootstrapKeys keys = s.bootstrapper.create_keys(s.keygen.secret_key());
          bytes = heft::circuits::key_switch_key_bytes(keys.relin.key);
          for (const uint64_t g : keys.galois.elements())
            bytes += heft::circuits::key_switch_key_bytes(keys.galois.at(g));
          if (keys.sparse) {
            bytes += heft::circuits::key_switch_key_bytes(keys.sparse->to_sparse) +
                     heft::circuits::key_switch_key_bytes(keys.sparse->to_dense);
          }
          count = static_cast<double>(s.bootstrapper.key_count());
        }
        const auto [user_after, system_after] = cpu_seconds();
        const double iterations = static_cast<double>(state.iterations());
        state.counters["key_bytes"] = bytes;
        state.counters["keys"] = count;
        // Per key set: the arithmetic (user) and the kernel's page work (system).
        state.counters["user_s"] = (user_after - user_before) / iterations;
        state.counters["system_s"] = (system_after - system_before) / iterations;
        state.counters["peak_gib"] = peak_memory_gib();
      });
  configure(b, preset);
}

// -log2 of the largest and the median |got - want|.
std::pair<double, double> precision_bits(const std::vector<cd>& got, const std::vector<cd>& want) {
  std::vector<double> errors(want.size());
  for (std::size_t i = 0; i < errors.size(); ++i)
    errors[i] = std::abs(got[i] - want[i]);
  std::sort(errors.begin(), errors.end());
  return {-std::log2(errors.back()), -std::log2(errors[errors.size() / 2])};
}

// refined: Bootstrapper::bootstrap_refined with the preset's precision_bits.
void register_bootstrap(const std::string& preset, circuits::BootstrapOrder order, int threads,
                        bool real_slots = false, bool refined = false) {
  const bool stc = order == circuits::BootstrapOrder::slots_to_coeffs_first;
  const std::string name = "CKKS_Bootstrap/" + preset + (stc ? "/stc_first" : "/cts_first") +
                           (real_slots ? "_real" : "") + (refined ? "_refined" : "") +
                           "/threads:" + std::to_string(threads);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    heft::set_num_threads(static_cast<std::size_t>(threads));
    Setup& s = setup_for(preset, order, real_slots);
    s.make_keys();
    rlwe::Ciphertext out;
    for (auto _ : state)
      out = refined ? s.bootstrapper.bootstrap_refined(s.input, *s.keys, s.preset.precision_bits)
                    : s.bootstrapper.bootstrap(s.input, *s.keys);
    const rlwe::Decryptor decryptor(s.keygen.secret_key());
    const auto got = s.encoder.decode(decryptor.decrypt(out));
    // The bootstrapping's own error (against what the input decrypts to),
    // and the end-to-end error against the plaintext values.
    const auto [max_bits, median_bits] = precision_bits(got, s.held);
    const auto [plain_max_bits, plain_median_bits] = precision_bits(got, s.values);
    state.counters["bits_max"] = max_bits;
    state.counters["bits_median"] = median_bits;
    state.counters["plain_bits_max"] = plain_max_bits;
    state.counters["plain_bits_median"] = plain_median_bits;
    state.counters["output_level"] = static_cast<double>(out.level());
    state.counters["peak_gib"] = peak_memory_gib();
  });
  configure(b, preset);
}

void register_phase(const std::string& preset, const std::string& phase, int threads) {
  const std::string name =
      "CKKS_BootstrapPhase/" + preset + "/" + phase + "/threads:" + std::to_string(threads);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    heft::set_num_threads(static_cast<std::size_t>(threads));
    Setup& s = setup_for(preset);
    s.make_keys();
    const auto& boot = s.bootstrapper;
    for (auto _ : state) {
      if (phase == "mod_raise") {
        benchmark::DoNotOptimize(boot.mod_raise(s.input, *s.keys));
      } else if (phase == "coeffs_to_slots") {
        benchmark::DoNotOptimize(boot.coeffs_to_slots(s.raised, s.keys->galois));
      } else if (phase == "eval_mod") {
        benchmark::DoNotOptimize(boot.eval_mod(s.in_slots, s.keys->relin, s.keys->galois));
      } else {
        benchmark::DoNotOptimize(boot.slots_to_coeffs(s.reduced, s.keys->galois));
      }
    }
    state.counters["peak_gib"] = peak_memory_gib();
  });
  configure(b, preset);
}

void register_fbt(const std::string& preset, std::size_t p, int threads, bool multi) {
  const std::string name = std::string(multi ? "CKKS_FBT_multi/" : "CKKS_FBT/") +
                           std::to_string(p) + "/" + preset + "/threads:" + std::to_string(threads);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    heft::set_num_threads(static_cast<std::size_t>(threads));
    FbtSetup& s = fbt_setup_for(preset, p);
    const std::vector<std::vector<double>> tables =
        multi ? s.tables : std::vector<std::vector<double>>{s.tables[0]};
    std::vector<rlwe::Ciphertext> out;
    for (auto _ : state)
      out = s.fbt.evaluate(s.input, tables, s.keys);
    const rlwe::Decryptor decryptor(s.keygen.secret_key());
    double worst = 0, wrong = 0;
    for (std::size_t t = 0; t < out.size(); ++t) {
      const auto got = s.encoder.decode(decryptor.decrypt(out[t]));
      for (std::size_t i = 0; i < s.residues.size(); ++i) {
        const double want = tables[t][static_cast<std::size_t>(s.residues[i])];
        const double error = std::abs(got[i].real() - want);
        worst = std::max(worst, error);
        if (error >= 0.5) wrong += 1;
      }
    }
    state.counters["max_error"] = worst;
    state.counters["wrong_entries"] = wrong;
    state.counters["table_depth"] = static_cast<double>(s.fbt.table_depth());
    state.counters["output_level"] = static_cast<double>(s.fbt.output_level());
    state.counters["peak_gib"] = peak_memory_gib();
  });
  configure(b, preset);
}

void register_bfv_fbt(const std::string& preset, uint64_t t, int threads) {
  const std::string name =
      "BFV_FBT/" + std::to_string(t) + "/" + preset + "/threads:" + std::to_string(threads);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    heft::set_num_threads(static_cast<std::size_t>(threads));
    BfvFbtSetup& s = bfv_setup_for(preset, t);
    rlwe::Ciphertext out;
    for (auto _ : state)
      out = s.bootstrapper.evaluate_bfv(s.input, s.table, s.keys);
    const bfv::Decryptor decryptor(s.keygen.secret_key());
    const auto got = decryptor.decrypt(out).coefficients;
    double wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      wrong += got[i] != s.table[s.message[i]] ? 1 : 0;
    state.counters["wrong_coefficients"] = wrong;
    state.counters["noise_budget_bits"] = decryptor.invariant_noise_budget(out);
    state.counters["output_level"] = static_cast<double>(out.level());
    state.counters["peak_gib"] = peak_memory_gib();
  });
  configure(b, preset);
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string preset : {"small", "small-encaps", "n16-encaps"}) {
    register_keygen(preset);
    for (int threads : {1, 2}) {
      register_bootstrap(preset, circuits::BootstrapOrder::coeffs_to_slots_first, threads);
      for (const char* phase : {"mod_raise", "coeffs_to_slots", "eval_mod", "slots_to_coeffs"})
        register_phase(preset, phase, threads);
    }
    for (int threads : {1, 2})
      register_bootstrap(preset, circuits::BootstrapOrder::slots_to_coeffs_first, threads);
    register_bootstrap(preset, circuits::BootstrapOrder::coeffs_to_slots_first, 2, false, true);
    for (const auto order : {circuits::BootstrapOrder::coeffs_to_slots_first,
                             circuits::BootstrapOrder::slots_to_coeffs_first})
      for (int threads : {1, 2})
        register_bootstrap(preset, order, threads, true);
  }
  for (int threads : {1, 2})
    register_bootstrap("n16", circuits::BootstrapOrder::coeffs_to_slots_first, threads);
  for (const auto& [preset, moduli] : std::vector<std::pair<std::string, std::vector<std::size_t>>>{
           {"small-encaps", {4, 16, 256}}, {"n16-encaps", {16, 64, 256}}})
    for (const std::size_t p : moduli) {
      for (int threads : {1, 2})
        register_fbt(preset, p, threads, false);
      register_fbt(preset, p, 2, true);
    }
  for (const auto& [preset, moduli] : std::vector<std::pair<std::string, std::vector<uint64_t>>>{
           {"small-encaps", {16, 17}}, {"n16-encaps", {16}}})
    for (const uint64_t t : moduli)
      for (int threads : {1, 2})
        register_bfv_fbt(preset, t, threads);
  return run_benchmarks(argc, argv);
}
