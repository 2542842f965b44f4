// heft demo (the README's first command), on embedded defaults:
//  1. what this CPU offers, which kernel level heft picked, and a small table
//     of NTT / element-wise timings for every level the CPU runs;
//  2. CKKS at work: parameters picked by the helper, a real vector encrypted,
//     a polynomial, a rotation and an inner product evaluated, decrypted and
//     compared with the same computation in double precision, with each
//     step's time and the error in bits.
// Timings here are a quick look (medians of a few runs); the benchmark
// binaries under bench/ are the measurement of record (BENCHMARKS.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/util/cpu_features.hpp"
#include "heft/util/parallel.hpp"

namespace {

using heft::math::Isa;
using Clock = std::chrono::steady_clock;

double median_microseconds(const std::function<void()>& body, int batches = 5, int repeats = 10) {
  body();  // warm up caches and tables
  std::vector<double> samples;
  for (int batch = 0; batch < batches; ++batch) {
    const auto start = Clock::now();
    for (int i = 0; i < repeats; ++i)
      body();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      repeats);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

std::vector<uint64_t> random_words(std::size_t n, uint64_t bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

void print_kernel_table() {
  std::printf("%-7s %6s %5s %12s %12s %11s %11s %11s  %s\n", "level", "N", "qbits", "NTT fwd us",
              "NTT inv us", "mulmod us", "addmod us", "fma us", "vs scalar");
  for (uint64_t n : {uint64_t{4096}, uint64_t{16384}}) {
    for (int bits : {50, 60}) {
      const heft::math::Modulus q = heft::math::generate_ntt_primes(bits, n, 1)[0];
      const heft::math::NttTables tables(n, q);
      const auto a = random_words(n, q.value(), 1), b = random_words(n, q.value(), 2);
      auto expected = a;
      heft::math::ntt_forward(expected, tables, Isa::scalar);
      for (Isa isa : heft::math::supported_isas()) {
        if (isa == Isa::ifma && bits > 50) continue;  // ifma handles q < 2^50 only
        auto work = a, out = a, check = a;
        heft::math::ntt_forward(check, tables, isa);
        const bool same = check == expected;
        const double fwd = median_microseconds([&] { heft::math::ntt_forward(work, tables, isa); });
        const double inv = median_microseconds([&] { heft::math::ntt_inverse(work, tables, isa); });
        const double mul = median_microseconds([&] { heft::math::mul_mod(a, b, out, q, isa); });
        const double add = median_microseconds([&] { heft::math::add_mod(a, b, out, q, isa); });
        const double fma =
            median_microseconds([&] { heft::math::fma_scalar_mod(a, b[0], a, out, q, isa); });
        std::printf("%-7s %6llu %5d %12.1f %12.1f %11.2f %11.2f %11.2f  %s\n",
                    heft::math::to_string(isa), static_cast<unsigned long long>(n), bits, fwd, inv,
                    mul, add, fma, same ? "identical" : "MISMATCH");
        if (!same) std::exit(1);
      }
    }
  }
}

// Runs `body`, prints its wall time, returns its result.
template <typename F>
auto timed(const char* what, F&& body) {
  const auto start = Clock::now();
  auto result = body();
  std::printf("  %-38s %9.2f ms\n", what,
              std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  return result;
}

double report(const char* what, const std::vector<double>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  std::printf("  %-14s max error 2^%.1f (%.1f bits of precision) over %zu slots\n", what,
              std::log2(worst), -std::log2(worst), want.size());
  for (std::size_t i = 0; i < std::min<std::size_t>(4, want.size()); ++i) {
    std::printf("      slot %zu: expected % .8f  obtained % .8f\n", i, want[i], got[i]);
  }
  return worst;
}

int run_ckks_demo() {
  std::printf("\n== CKKS ==\n");
  heft::ckks::ParameterRequest request;
  request.depth = 3;
  request.scale_bits = 40;
  request.first_prime_bits = 60;
  request.security = heft::rlwe::SecurityLevel::classic128;
  const heft::rlwe::Parameters params = heft::ckks::suggest_parameters(request);
  std::printf("parameters (helper: depth 3, 40-bit scale, 128-bit security):\n  %s\n",
              heft::rlwe::describe(params).c_str());

  auto context = timed("context (tables, precomputation)",
                       [&] { return heft::rlwe::Context::create(params); });
  heft::rlwe::KeyGenerator keygen =
      timed("secret key", [&] { return heft::rlwe::KeyGenerator(context); });
  const auto public_key = timed("public key", [&] { return keygen.create_public_key(); });
  const auto relin_key = timed("relinearization key", [&] { return keygen.create_relin_key(); });
  std::vector<int64_t> steps;
  for (int64_t s = 1; s < static_cast<int64_t>(params.degree / 2); s <<= 1)
    steps.push_back(s);
  const auto galois_keys =
      timed("Galois keys (power-of-two steps)", [&] { return keygen.create_galois_keys(steps); });

  const heft::ckks::Encoder encoder(context);
  const heft::ckks::Evaluator evaluator(context);
  const heft::rlwe::Encryptor encryptor(public_key);
  const heft::rlwe::Decryptor decryptor(keygen.secret_key());
  const std::size_t slots = params.degree / 2;
  std::vector<double> x(slots), w(slots);
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : x)
    v = dist(rng);
  for (auto& v : w)
    v = dist(rng);
  const std::size_t top = context->max_level();

  const auto ct_x = timed("encode + encrypt x", [&] {
    return encryptor.encrypt(encoder.encode(x, evaluator.scale_at(top), top));
  });
  // p(x) = 0.5 x^3 - 0.2 x^2 + x + 0.1
  const auto poly = timed("p(x) = 0.5x^3 - 0.2x^2 + x + 0.1", [&] {
    const auto x2 = evaluator.square(ct_x, relin_key);
    const auto x3 = evaluator.multiply(x2, ct_x, relin_key);
    auto result = evaluator.multiply_scalar(x3, 0.5);
    result = evaluator.add(result, evaluator.multiply_scalar(x2, -0.2));
    result = evaluator.add(result, ct_x);
    return evaluator.add_scalar(result, 0.1);
  });
  const auto rotated =
      timed("rotate left by 1", [&] { return evaluator.rotate(ct_x, 1, galois_keys); });
  const auto inner = timed("inner product <x, w> (plain w)", [&] {
    const auto product = evaluator.multiply_plain(
        ct_x, encoder.encode(w, context->parameters().ciphertext_moduli[top], top));
    return evaluator.sum_slots(evaluator.rescale(product), galois_keys);
  });
  const auto got_poly =
      timed("decrypt + decode p(x)", [&] { return encoder.decode_real(decryptor.decrypt(poly)); });
  const auto got_rot = encoder.decode_real(decryptor.decrypt(rotated));
  const auto got_inner = encoder.decode_real(decryptor.decrypt(inner));

  std::vector<double> want_poly(slots), want_rot(slots), want_inner(slots);
  double dot = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    want_poly[i] = 0.5 * x[i] * x[i] * x[i] - 0.2 * x[i] * x[i] + x[i] + 0.1;
    want_rot[i] = x[(i + 1) % slots];
    dot += x[i] * w[i];
  }
  std::fill(want_inner.begin(), want_inner.end(), dot);
  std::printf("\nresults (levels left: p(x) %zu, inner product %zu):\n", poly.level(),
              inner.level());
  const double e1 = report("p(x)", got_poly, want_poly);
  const double e2 = report("rotate by 1", got_rot, want_rot);
  const double e3 = report("<x, w>", got_inner, want_inner);
  // A working CKKS pipeline at these parameters is accurate to well below 2^-10.
  const bool ok = e1 < 1e-3 && e2 < 1e-3 && e3 < 1e-1;
  std::printf("\n%s\n", ok ? "CKKS demo: all results within the expected precision"
                           : "CKKS demo: ERROR beyond the expected precision");
  return ok ? 0 : 1;
}

}  // namespace

int main() {
  const heft::CpuFeatures& cpu = heft::cpu_features();
  std::printf("heft demo\n\n== kernels and dispatch ==\n");
  std::printf("CPU             : %s\n", cpu.brand.empty() ? "(unknown)" : cpu.brand.c_str());
  std::printf("features found  : %s\n", cpu.summary().c_str());
  std::printf("levels runnable : ");
  for (Isa isa : heft::math::supported_isas())
    std::printf("%s ", heft::math::to_string(isa));
  std::printf("\nlevel chosen    : %s%s\n", heft::math::to_string(heft::math::active_isa()),
              std::getenv("HEFT_ISA") ? " (forced by HEFT_ISA)" : " (best available)");
  std::printf("threads         : %zu (kernel timings are single-threaded)\n\n",
              heft::num_threads());
  print_kernel_table();
  return run_ckks_demo();
}
