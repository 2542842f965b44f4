// heft_bootstrap: one bootstrapping preset end to end. Builds the preset's
// parameters and bootstrapper, generates the keys, then for real and complex
// inputs uniform in [-1, 1] (every slot) encrypts at level 0, bootstraps,
// decrypts and prints: the time of each phase, the key-generation time and
// key size, the peak memory (getrusage's ru_maxrss), and the precision over
// all slots as -log2 of the max, mean and median absolute error.
//
//   heft_bootstrap                 the small, insecure preset (seconds)
//   heft_bootstrap --preset n16    N = 2^16, 128-bit (minutes, ~15 GiB)
//   --threads T                    worker threads (default: heft's)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
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

// Bytes of a key-switching key's polynomials (every digit's b and a, their
// ciphertext and special towers).
double key_bytes(const heft::rlwe::KeySwitchKey& key) {
  double words = 0;
  for (const auto* half : {&key.b, &key.a})
    for (const auto& digit : *half)
      words +=
          static_cast<double>((digit.q.tower_count() + digit.p.tower_count()) * digit.q.degree());
  return 8 * words;
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

int run(const std::string& preset_name) {
  namespace circuits = heft::circuits;
  const auto setup_start = Clock::now();
  const circuits::BootstrapPreset preset = circuits::bootstrap_preset(preset_name);
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

  const auto keygen_start = Clock::now();
  const heft::rlwe::KeyGenerator keygen(context);
  const heft::rlwe::RelinKey relin = keygen.create_relin_key();
  const auto steps = bootstrapper.rotation_steps();
  const heft::rlwe::GaloisKeys galois = keygen.create_galois_keys(steps, true);
  const double keygen_seconds = seconds_since(keygen_start);
  double galois_bytes = 0;
  for (const uint64_t g : galois.elements())
    galois_bytes += key_bytes(galois.at(g));
  const double gib = 1024.0 * 1024.0 * 1024.0;
  std::printf(
      "key generation %.2f s: relinearization key %.3f GiB, %zu Galois keys %.3f GiB "
      "(%zu rotations + conjugation, each at the top level)\n",
      keygen_seconds, key_bytes(relin.key) / gib, galois.size(), galois_bytes / gib, steps.size());

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
    const auto input = encryptor.encrypt(encoder.encode(x, evaluator.scale_at(0), 0));
    circuits::BootstrapPhaseTimes times;
    const auto start = Clock::now();
    const auto output = bootstrapper.bootstrap(input, relin, galois, &times);
    const double total = seconds_since(start);
    const Precision bits = precision(encoder.decode(decryptor.decrypt(output)), x);
    std::printf(
        "%s inputs: bootstrap %.2f s (ModRaise+SubSum %.2f, CoeffsToSlots %.2f, "
        "EvalMod %.2f, SlotsToCoeffs %.2f), output level %zu\n",
        complex ? "complex" : "real", total, times.mod_raise, times.coeffs_to_slots, times.eval_mod,
        times.slots_to_coeffs, output.level());
    std::printf("  precision over %zu slots, -log2 |error|: max %.1f, mean %.1f, median %.1f\n",
                x.size(), bits.max_bits, bits.mean_bits, bits.median_bits);
  }
  std::printf("peak memory (ru_maxrss) %.2f GiB\n", peak_memory_gib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "small";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--preset" && i + 1 < argc) {
      preset = argv[++i];
    } else if (arg == "--threads" && i + 1 < argc) {
      heft::set_num_threads(static_cast<std::size_t>(std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr, "usage: %s [--preset small|n16] [--threads T]\n", argv[0]);
      return 2;
    }
  }
  try {
    return run(preset);
  } catch (const heft::Error& e) {
    std::fprintf(stderr, "heft_bootstrap: %s\n", e.what());
    return 1;
  }
}
