// heft demo (the README's first command): shows what this CPU offers, which
// kernel level heft picked, and a small table of NTT and element-wise timings
// for every level this CPU can run, each checked against the scalar result.
//
// Timings here are a quick look (median of a few runs); the benchmark
// binaries under bench/ are the measurement of record (BENCHMARKS.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/cpu_features.hpp"
#include "heft/util/parallel.hpp"

namespace {

using heft::math::Isa;

// Median wall time of `body` in microseconds over a few batches.
double median_microseconds(const std::function<void()>& body) {
  body();  // warm up caches and tables
  std::vector<double> samples;
  for (int batch = 0; batch < 7; ++batch) {
    constexpr int kRepeats = 20;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepeats; ++i) body();
    const auto stop = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / kRepeats);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

std::vector<uint64_t> random_vector(std::size_t n, uint64_t bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace

int main() {
  const heft::CpuFeatures& cpu = heft::cpu_features();
  std::printf("heft demo: kernels and dispatch\n\n");
  std::printf("CPU             : %s\n", cpu.brand.empty() ? "(unknown)" : cpu.brand.c_str());
  std::printf("features found  : %s\n", cpu.summary().c_str());
  std::printf("levels runnable : ");
  for (Isa isa : heft::math::supported_isas()) std::printf("%s ", heft::math::to_string(isa));
  std::printf("\nlevel chosen    : %s%s\n", heft::math::to_string(heft::math::active_isa()),
              std::getenv("HEFT_ISA") ? " (forced by HEFT_ISA)" : " (best available)");
  std::printf("threads         : %zu (kernel timings below are single-threaded)\n\n",
              heft::num_threads());

  std::printf("%-7s %6s %5s %12s %12s %11s %11s %11s  %s\n", "level", "N", "qbits", "NTT fwd us",
              "NTT inv us", "mulmod us", "addmod us", "fma us", "vs scalar");
  for (uint64_t n : {uint64_t{4096}, uint64_t{16384}, uint64_t{65536}}) {
    for (int bits : {50, 60}) {
      const heft::math::Modulus q = heft::math::generate_ntt_primes(bits, n, 1)[0];
      const heft::math::NttTables tables(n, q);
      const auto a = random_vector(n, q.value(), 1), b = random_vector(n, q.value(), 2);
      auto expected = a;
      heft::math::ntt_forward(expected, tables, Isa::scalar);
      for (Isa isa : heft::math::supported_isas()) {
        if (isa == Isa::ifma && bits > 50) continue;  // ifma handles q < 2^50 only
        auto work = a, out = a;
        auto check = a;
        heft::math::ntt_forward(check, tables, isa);
        const bool same = check == expected;
        const double fwd = median_microseconds([&] { heft::math::ntt_forward(work, tables, isa); });
        const double inv = median_microseconds([&] { heft::math::ntt_inverse(work, tables, isa); });
        const double mul = median_microseconds([&] { heft::math::mul_mod(a, b, out, q, isa); });
        const double add = median_microseconds([&] { heft::math::add_mod(a, b, out, q, isa); });
        const double fma = median_microseconds(
            [&] { heft::math::fma_scalar_mod(a, b[0], a, out, q, isa); });
        std::printf("%-7s %6llu %5d %12.1f %12.1f %11.2f %11.2f %11.2f  %s\n",
                    heft::math::to_string(isa), static_cast<unsigned long long>(n), bits, fwd, inv,
                    mul, add, fma, same ? "identical" : "MISMATCH");
        if (!same) return 1;
      }
    }
  }
  std::printf("\nReference (../shared/ANCHORS.md, N=16384): HEXL IFMA NTT 27.7/29.9 us, "
              "HEXL AVX-512 52.6/57.1 us, SEAL without HEXL 224/170 us.\n");
  return 0;
}
