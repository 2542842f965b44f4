// heft_bootstrap: one bootstrapping preset end to end. Builds the preset's
// parameters and bootstrapper, generates the keys, then for real and complex
// inputs uniform in [-1, 1] (every slot) encrypts at level 0, bootstraps,
// decrypts and prints: the time of each phase, the key-generation time and
// key size, the peak memory (getrusage's ru_maxrss), and the precision over
// all slots as -log2 of the max, mean and median absolute error.
//
//   heft_bootstrap                 the small, insecure preset (seconds)
//   heft_bootstrap --preset n16-encaps
//                                  N = 2^16, 128-bit, sparse-secret
//                                  encapsulation (a minute, 15 GiB)
//   heft_bootstrap --preset n16    the same without encapsulation (about 21
//                                  GiB); where the keys would not fit the
//                                  memory, only EvalMod runs
//   --threads T                    worker threads (default: heft's)
//   --order cts|stc                CoeffsToSlots first (default) or
//                                  SlotsToCoeffs first (the input is
//                                  encrypted at the entry level it needs)
//   --real-slots                   bootstrap the real parts only (one EvalMod;
//                                  complex inputs come back as their real parts)
//   --message-ratio BITS           log2(q_0 / scale) to bring inputs to before
//                                  ModRaise (default: the preset's; 0: none)
//   --refine                       also two iterations (bootstrap_refined)
// Precision is the bootstrapping's own error, against what the input
// decrypts to, and end to end against the plaintext (which adds the input's
// encryption noise at level 0: about 2^-20 at the largest slot at N = 2^16).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using cd = std::complex<double>;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double peak_memory_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss: KiB
}

struct Precision {
  double max_bits, mean_bits, median_bits;
};

Precision precision(const std::vector<cd>& got, const std::vector<cd>& want) {
  std::vector<double> errors(want.size());
  double sum = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    errors[i] = std::abs(got[i] - want[i]);
    sum += errors[i];
  }
  std::sort(errors.begin(), errors.end());
  return {-std::log2(errors.back()), -std::log2(sum / static_cast<double>(errors.size())),
          -std::log2(errors[errors.size() / 2])};
}

// When the keys of a whole bootstrap do not fit in memory: EvalMod alone
// (the relinearization key and the conjugation key only) on a fresh
// encryption at its input level, timed, with its error against
// sin(2 pi w) / 2 pi (w = I + e, I integers in [-K, K], |e| <= 2^-20), in
// units of q_0.
int eval_mod_only(const heft::circuits::BootstrapPreset& preset,
                  const std::shared_ptr<const heft::rlwe::Context>& context,
                  const heft::circuits::Bootstrapper& bootstrapper) {
  std::printf("not enough memory for every key: EvalMod alone\n");
  const auto keygen_start = Clock::now();
  const heft::rlwe::KeyGenerator keygen(context);
  const heft::rlwe::RelinKey relin = keygen.create_relin_key();
  const heft::rlwe::GaloisKeys conjugation = keygen.create_galois_keys({}, true);
  const double keygen_seconds = seconds_since(keygen_start);
  std::printf("two keys (relinearization, conjugation) %.2f s, %.3f GiB each\n", keygen_seconds / 2,
              heft::circuits::key_switch_key_bytes(relin.key) / (1024.0 * 1024.0 * 1024.0));
  const heft::ckks::Encoder encoder(context);
  const heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  const heft::rlwe::Decryptor decryptor(keygen.secret_key());
  const double q0 = static_cast<double>(preset.parameters.ciphertext_moduli[0]);
  const std::size_t level = context->max_level() - preset.bootstrap.coeffs_to_slots_levels;
  std::mt19937_64 rng(2);
  const auto k = static_cast<int>(preset.bootstrap.mod_range);
  std::uniform_int_distribution<int> integer(-k, k);
  std::uniform_real_distribution<double> small(-std::ldexp(1.0, -20), std::ldexp(1.0, -20));
  std::vector<cd> w(bootstrapper.slots()), want(w.size());
  const double two_pi = 2 * std::acos(-1.0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double re = small(rng), im = small(rng);
    w[i] = cd(integer(rng) + re, integer(rng) + im);
    want[i] = cd(std::sin(two_pi * re), std::sin(two_pi * im)) / two_pi;
  }
  const auto x = encryptor.encrypt(encoder.encode(w, q0, level));
  const auto start = Clock::now();
  const auto y = bootstrapper.eval_mod(x, relin, conjugation, q0);
  const double seconds = seconds_since(start);
  const auto got = encoder.decode(decryptor.decrypt(y));
  double worst = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  std::printf("EvalMod %.2f s, output level %zu, error 2^%.1f (q_0 units)\n", seconds, y.level(),
              std::log2(worst));
  std::printf("peak memory (ru_maxrss) %.2f GiB\n", peak_memory_gib());
  return 0;
}

int run(const std::string& preset_name, int message_ratio_bits, bool stc_first, bool real_slots,
        bool refine) {
  namespace circuits = heft::circuits;
  const auto setup_start = Clock::now();
  circuits::BootstrapPreset preset = circuits::bootstrap_preset(
      preset_name, stc_first ? circuits::BootstrapOrder::slots_to_coeffs_first
                             : circuits::BootstrapOrder::coeffs_to_slots_first);
  if (message_ratio_bits >= 0) preset.bootstrap.message_ratio_bits = message_ratio_bits;
  preset.bootstrap.real_slots = real_slots;
  const auto context = heft::rlwe::Context::create(preset.parameters);
  const circuits::Bootstrapper bootstrapper(context, preset.bootstrap);
  const double setup_seconds = seconds_since(setup_start);
  std::printf("preset %s: %s, log2 QP = %d, %s\n", preset.name.c_str(),
              heft::rlwe::describe(preset.parameters).c_str(), preset.parameters.total_bits(),
              heft::rlwe::to_string(preset.parameters.security));
  std::printf(
      "  %zu slots, depth %zu, left: %zu levels (%d bits) at scale >= 2^%d; "
      "EvalMod K = %zu, sine degree %zu, failure probability 2^%.1f\n",
      bootstrapper.slots(), bootstrapper.depth(), bootstrapper.output_level(), preset.output_bits,
      preset.output_scale_bits, preset.bootstrap.mod_range, bootstrapper.sine().degree(),
      preset.failure_log2);
  std::printf("  threads %zu; set-up (parameters, transforms, sine) %.2f s\n", heft::num_threads(),
              setup_seconds);

  // Each key holds its level's digits over that level's towers and P.
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double projected = peak_memory_gib() + bootstrapper.key_bytes() / gib;
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<double>(sysconf(_SC_PAGESIZE)) / gib;
  std::printf(
      "  transforms built: %.2f GiB so far; %zu keys (rotations, conjugation, relinearization%s, "
      "each at the level it is used at) %.2f GiB: %.1f GiB projected, this machine has %.1f GiB\n",
      peak_memory_gib(), bootstrapper.key_count(),
      preset.bootstrap.sparse_secret_weight > 0 ? ", encapsulation" : "",
      bootstrapper.key_bytes() / gib, projected, physical);
  if (projected > 0.9 * physical) return eval_mod_only(preset, context, bootstrapper);

  const auto keygen_start = Clock::now();
  const heft::rlwe::KeyGenerator keygen(context);
  std::size_t last_quarter = 0;
  const circuits::BootstrapKeys keys =
      bootstrapper.create_keys(keygen.secret_key(), [&](std::size_t done, std::size_t total) {
        const std::size_t quarter = 4 * done / total;
        if (quarter != last_quarter) {
          std::printf("  keys: %zu of %zu, %.1f s\n", done, total, seconds_since(keygen_start));
          std::fflush(stdout);
        }
        last_quarter = quarter;
      });
  const double keygen_seconds = seconds_since(keygen_start);
  double galois_bytes = 0;
  for (const uint64_t g : keys.galois.elements())
    galois_bytes += heft::circuits::key_switch_key_bytes(keys.galois.at(g));
  std::printf(
      "key generation %.2f s: relinearization key %.3f GiB, %zu Galois keys %.3f GiB "
      "(%zu rotations + conjugation, each at the level it is used at)",
      keygen_seconds, heft::circuits::key_switch_key_bytes(keys.relin.key) / gib,
      keys.galois.size(), galois_bytes / gib, bootstrapper.rotation_steps().size());
  if (keys.sparse) {
    std::printf(", sparse-secret keys %.4f + %.3f GiB",
                heft::circuits::key_switch_key_bytes(keys.sparse->to_sparse) / gib,
                heft::circuits::key_switch_key_bytes(keys.sparse->to_dense) / gib);
  }
  std::printf("\n");

  const heft::ckks::Encoder encoder(context);
  const heft::ckks::Evaluator evaluator(context);
  const heft::rlwe::Encryptor encryptor(keygen.create_public_key());
  const heft::rlwe::Decryptor decryptor(keygen.secret_key());
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (const bool complex : {false, true}) {
    std::vector<cd> x(bootstrapper.slots());
    for (auto& v : x)
      v = cd(uniform(rng), complex ? uniform(rng) : 0.0);
    const std::size_t level = bootstrapper.entry_level();
    const auto input = encryptor.encrypt(encoder.encode(x, evaluator.scale_at(level), level));
    circuits::BootstrapPhaseTimes times;
    const auto start = Clock::now();
    const auto output = bootstrapper.bootstrap(input, keys, &times);
    const double total = seconds_since(start);
    // Real slots bootstrap the real parts: those are what comes back.
    std::vector<cd> want = x;
    if (real_slots)
      for (auto& v : want)
        v = v.real();
    // The bootstrapping's own error is against what the input decrypts to
    // (its encryption noise at level 0 is not the bootstrapping's); the
    // end-to-end error is against the plaintext.
    std::vector<cd> held = encoder.decode(decryptor.decrypt(input));
    if (real_slots)
      for (auto& v : held)
        v = v.real();
    const auto got = encoder.decode(decryptor.decrypt(output));
    const Precision bits = precision(got, held);
    const Precision plain = precision(got, want);
    std::printf(
        "%s inputs%s: bootstrap %.2f s (ModRaise+SubSum %.2f, CoeffsToSlots %.2f, "
        "EvalMod %.2f, SlotsToCoeffs %.2f), output level %zu\n",
        complex ? "complex" : "real", real_slots ? " (real slots)" : "", total, times.mod_raise,
        times.coeffs_to_slots, times.eval_mod, times.slots_to_coeffs, output.level());
    std::printf("  precision over %zu slots, -log2 |error|: max %.1f, mean %.1f, median %.1f\n",
                x.size(), bits.max_bits, bits.mean_bits, bits.median_bits);
    std::printf("  against the plaintext (with the input's own noise): max %.1f, median %.1f\n",
                plain.max_bits, plain.median_bits);
    if (refine) {
      const auto refine_start = Clock::now();
      const auto twice = bootstrapper.bootstrap_refined(input, keys, preset.precision_bits);
      const double refine_seconds = seconds_since(refine_start);
      const Precision refined = precision(encoder.decode(decryptor.decrypt(twice)), held);
      std::printf(
          "  two iterations (bits = %d): %.2f s, output level %zu, precision max %.1f, mean %.1f, "
          "median %.1f\n",
          preset.precision_bits, refine_seconds, twice.level(), refined.max_bits, refined.mean_bits,
          refined.median_bits);
    }
  }
  std::printf("peak memory (ru_maxrss) %.2f GiB\n", peak_memory_gib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "small";
  int message_ratio_bits = -1;
  bool stc_first = false;
  bool real_slots = false;
  bool refine = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--preset" && i + 1 < argc) {
      preset = argv[++i];
    } else if (arg == "--order" && i + 1 < argc) {
      const std::string order = argv[++i];
      if (order != "cts" && order != "stc") {
        std::fprintf(stderr, "--order: cts (CoeffsToSlots first) or stc (SlotsToCoeffs first)\n");
        return 2;
      }
      stc_first = order == "stc";
    } else if (arg == "--message-ratio" && i + 1 < argc) {
      message_ratio_bits = std::atoi(argv[++i]);
    } else if (arg == "--real-slots") {
      real_slots = true;
    } else if (arg == "--refine") {
      refine = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      heft::set_num_threads(static_cast<std::size_t>(std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--preset small|small-encaps|n16|n16-encaps] [--order cts|stc] "
                   "[--real-slots] [--refine] [--threads T] [--message-ratio BITS]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    return run(preset, message_ratio_bits, stc_first, real_slots, refine);
  } catch (const heft::Error& e) {
    std::fprintf(stderr, "heft_bootstrap: %s\n", e.what());
    return 1;
  }
}
