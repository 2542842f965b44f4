// bench_poly: polynomial kernels, named to line up with OpenFHE's poly-benchmark
// (Native_* on one prime, DCRT_* on several towers) plus per-ISA kernel rows
// NTT_fwd/<isa>/<N>/<qbits>, NTT_inv/... (qbits 55: SEAL's primes at
// N = 32768), MulMod/..., AddMod/..., FmaMod/...,
// DotPair/<isa>/16384/<qbits>/terms:8 (key switching's inner product) and
// WeightedSum/<isa>/16384/<qbits>/terms:9 (base conversion's inner sum), and
// CKKS's special FFT, SpecialFft_fwd/<slots> and SpecialFft_inv/<slots>, at
// the active level (pick one with HEFT_ISA=scalar|avx2|avx512).
//
// Run single-threaded for comparisons with ../shared/ANCHORS.md:
//   HEFT_NUM_THREADS=1 build/bench/bench_poly --benchmark_repetitions=5 \
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/poly_context.hpp"
#include "heft/ring/rns_base.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/schemes/ckks/special_fft.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/parallel.hpp"
#include "run_benchmarks.hpp"

namespace {

using heft::math::Isa;
using heft::math::Modulus;
using heft::math::NttTables;

constexpr int kNativeBits = 60;  // OpenFHE's native word-size modulus width

// 64-byte aligned, as heft's own polynomials are (AlignedBuffer).
heft::AlignedBuffer<uint64_t> random_vector(std::size_t n, uint64_t bound, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  heft::AlignedBuffer<uint64_t> v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// One prime's worth of operands for the kernel rows.
struct KernelFixture {
  KernelFixture(uint64_t n, int bits)
      : modulus(heft::math::generate_ntt_primes(bits, n, 1)[0]),
        tables(n, modulus),
        a(random_vector(n, modulus.value(), 1)),
        b(random_vector(n, modulus.value(), 2)),
        c(random_vector(n, modulus.value(), 3)),
        out(n) {}
  Modulus modulus;
  NttTables tables;
  heft::AlignedBuffer<uint64_t> a, b, c, out;
};

void set_items(benchmark::State& state, uint64_t n) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

void register_kernel_rows() {
  for (Isa isa : heft::math::supported_isas()) {
    for (int log_n = 10; log_n <= 17; ++log_n) {
      const uint64_t n = uint64_t{1} << log_n;
      for (int bits : {49, 50, 55, 60}) {
        // ifma's transforms take 55-bit primes (SEAL's at N = 32768) with
        // IFMA-made quotients; its other kernels stop below 2^50.
        if (isa == Isa::ifma && bits > 55) continue;
        const bool ntt_only = isa == Isa::ifma && bits > 50;
        // 49 bits (SEAL's primes; ifma's forward NTT reduces half as often
        // below 2^49) only where it takes another path.
        if (isa != Isa::ifma && bits == 49) continue;
        const std::string suffix = std::string("/") + heft::math::to_string(isa) + "/" +
                                   std::to_string(n) + "/" + std::to_string(bits);
        benchmark::RegisterBenchmark(("NTT_fwd" + suffix).c_str(), [=](benchmark::State& state) {
          KernelFixture f(n, bits);
          for (auto _ : state) {
            heft::math::ntt_forward(f.a.span(), f.tables, isa);
            benchmark::ClobberMemory();
          }
          set_items(state, n);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("NTT_inv" + suffix).c_str(), [=](benchmark::State& state) {
          KernelFixture f(n, bits);
          for (auto _ : state) {
            heft::math::ntt_inverse(f.a.span(), f.tables, isa);
            benchmark::ClobberMemory();
          }
          set_items(state, n);
        })->Unit(benchmark::kMicrosecond);
        if (ntt_only) continue;
        benchmark::RegisterBenchmark(("MulMod" + suffix).c_str(), [=](benchmark::State& state) {
          KernelFixture f(n, bits);
          for (auto _ : state) {
            heft::math::mul_mod(f.a.span(), f.b.span(), f.out.span(), f.modulus, isa);
            benchmark::ClobberMemory();
          }
          set_items(state, n);
        })->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark(("AddMod" + suffix).c_str(), [=](benchmark::State& state) {
          KernelFixture f(n, bits);
          for (auto _ : state) {
            heft::math::add_mod(f.a.span(), f.b.span(), f.out.span(), f.modulus, isa);
            benchmark::ClobberMemory();
          }
          set_items(state, n);
        })->Unit(benchmark::kMicrosecond);
        if (n == 16384) {
          // Key switching's inner product with SEAL-style 8 digits: 8 digit
          // towers times both halves of 8 key towers (3 MB of operands).
          benchmark::RegisterBenchmark(
              ("DotPair" + suffix + "/terms:8").c_str(),
              [=](benchmark::State& state) {
                constexpr std::size_t kTerms = 8;
                const Modulus q = heft::math::generate_ntt_primes(bits, n, 1)[0];
                std::vector<heft::AlignedBuffer<uint64_t>> storage;
                for (std::size_t j = 0; j < 3 * kTerms; ++j)
                  storage.push_back(random_vector(n, q.value(), 10 + j));
                std::vector<std::span<const uint64_t>> x, b, a;
                for (std::size_t j = 0; j < kTerms; ++j) {
                  x.emplace_back(storage[j].span());
                  b.emplace_back(storage[kTerms + j].span());
                  a.emplace_back(storage[2 * kTerms + j].span());
                }
                heft::AlignedBuffer<uint64_t> out0(n), out1(n);
                for (auto _ : state) {
                  heft::math::dot_product_pair(x, b, a, out0.span(), out1.span(), q, isa);
                  benchmark::ClobberMemory();
                }
                set_items(state, n * kTerms);
              })
              ->Unit(benchmark::kMicrosecond);
        }
        if (n == 16384) {
          // Base conversion's inner sum: 9 source rows of a 256-coefficient
          // block (as BaseConverter feeds it, all in L1), one target, swept
          // over the polynomial.
          benchmark::RegisterBenchmark(
              ("WeightedSum" + suffix + "/terms:9").c_str(),
              [=](benchmark::State& state) {
                constexpr std::size_t kTerms = 9, kBlock = 256;
                const Modulus q = heft::math::generate_ntt_primes(bits, n, 1)[0];
                const auto rows = random_vector(kTerms * kBlock, q.value(), 40);
                std::vector<uint64_t> weights(kTerms);
                for (std::size_t i = 0; i < kTerms; ++i)
                  weights[i] = q.value() - 1 - i;
                const heft::math::FixedWeights fixed(weights, q);
                heft::AlignedBuffer<uint64_t> out(n);
                for (auto _ : state) {
                  for (std::size_t first = 0; first < n; first += kBlock) {
                    heft::math::weighted_sum_mod(rows.span(), kBlock, fixed,
                                                 out.span().subspan(first, kBlock), bits, isa);
                  }
                  benchmark::ClobberMemory();
                }
                set_items(state, n * kTerms);
              })
              ->Unit(benchmark::kMicrosecond);
        }
        // a * scalar + c, the shape of HEXL's EltwiseFMAMod.
        benchmark::RegisterBenchmark(("FmaMod" + suffix).c_str(), [=](benchmark::State& state) {
          KernelFixture f(n, bits);
          const uint64_t scalar = f.b[0];
          for (auto _ : state) {
            heft::math::fma_scalar_mod(f.a.span(), scalar, f.c.span(), f.out.span(), f.modulus,
                                       isa);
            benchmark::ClobberMemory();
          }
          set_items(state, n);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

// ---- OpenFHE poly-benchmark shapes, at the level the dispatcher picks ----

const std::vector<int64_t> kRingDims = {4096, 16384, 65536};

void Native_add(benchmark::State& state) {
  KernelFixture f(state.range(0), kNativeBits);
  for (auto _ : state) {
    heft::math::add_mod(f.a.span(), f.b.span(), f.out.span(), f.modulus);
    benchmark::ClobberMemory();
  }
}
void Native_mul(benchmark::State& state) {
  KernelFixture f(state.range(0), kNativeBits);
  for (auto _ : state) {
    heft::math::mul_mod(f.a.span(), f.b.span(), f.out.span(), f.modulus);
    benchmark::ClobberMemory();
  }
}
void Native_ntt(benchmark::State& state) {
  KernelFixture f(state.range(0), kNativeBits);
  for (auto _ : state) {
    heft::math::ntt_forward(f.a.span(), f.tables);
    benchmark::ClobberMemory();
  }
}
void Native_intt(benchmark::State& state) {
  KernelFixture f(state.range(0), kNativeBits);
  for (auto _ : state) {
    heft::math::ntt_inverse(f.a.span(), f.tables);
    benchmark::ClobberMemory();
  }
}

// DCRT rows: an RnsPoly of `towers` 60-bit primes.
struct DcrtFixture {
  DcrtFixture(uint64_t n, std::size_t towers)
      : context(heft::ring::PolyContext::create(
            n, heft::ring::RnsBase(heft::math::generate_ntt_primes(kNativeBits, n, towers)))),
        a(random_poly(0)),
        b(random_poly(1)) {}
  heft::ring::RnsPoly random_poly(uint64_t seed) const {
    heft::ring::RnsPoly p(context, context->base().size(), heft::ring::Form::ntt);
    std::mt19937_64 rng(seed);
    for (std::size_t t = 0; t < context->base().size(); ++t) {
      const uint64_t q = context->base()[t].value();
      std::uniform_int_distribution<uint64_t> dist(0, q - 1);
      for (auto& x : p.tower(t))
        x = dist(rng);
    }
    return p;
  }
  std::shared_ptr<const heft::ring::PolyContext> context;
  heft::ring::RnsPoly a, b;
};

void DCRT_add(benchmark::State& state) {
  DcrtFixture f(state.range(0), state.range(1));
  for (auto _ : state) {
    f.a += f.b;
    benchmark::ClobberMemory();
  }
}
void DCRT_mul(benchmark::State& state) {
  DcrtFixture f(state.range(0), state.range(1));
  for (auto _ : state) {
    f.a *= f.b;
    benchmark::ClobberMemory();
  }
}
void DCRT_ntt(benchmark::State& state) {
  DcrtFixture f(state.range(0), state.range(1));
  for (auto _ : state) {
    f.a.declare_form(heft::ring::Form::coefficient);
    f.a.ntt();
    benchmark::ClobberMemory();
  }
}
void DCRT_intt(benchmark::State& state) {
  DcrtFixture f(state.range(0), state.range(1));
  for (auto _ : state) {
    f.a.intt();
    f.a.declare_form(heft::ring::Form::ntt);
    benchmark::ClobberMemory();
  }
}

// CKKS's special FFT on `slots` values (encoding runs the inverse, decoding
// the forward transform), at the active ISA level and thread count.
std::vector<std::complex<double>> random_slots(std::size_t slots) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<std::complex<double>> values(slots);
  for (auto& v : values)
    v = {dist(rng), dist(rng)};
  return values;
}
void special_fft(benchmark::State& state, bool forward) {
  const auto slots = static_cast<std::size_t>(state.range(0));
  const heft::ckks::SpecialFft fft(slots);
  auto values = random_slots(slots);
  for (auto _ : state) {
    if (forward) {
      fft.forward(values);
    } else {
      fft.inverse(values);
    }
    benchmark::ClobberMemory();
  }
}

void native_args(benchmark::internal::Benchmark* b) {
  b->ArgName("N");
  for (int64_t n : kRingDims)
    b->Arg(n);
  b->Unit(benchmark::kMicrosecond);
}
void dcrt_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "towers"});
  for (int64_t n : kRingDims)
    for (int64_t towers : {1, 2, 4, 8, 16})
      b->Args({n, towers});
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(Native_add)->Apply(native_args);
BENCHMARK(Native_mul)->Apply(native_args);
BENCHMARK(Native_ntt)->Apply(native_args);
BENCHMARK(Native_intt)->Apply(native_args);
BENCHMARK(DCRT_add)->Apply(dcrt_args);
BENCHMARK(DCRT_mul)->Apply(dcrt_args);
BENCHMARK(DCRT_ntt)->Apply(dcrt_args);
BENCHMARK(DCRT_intt)->Apply(dcrt_args);
BENCHMARK_CAPTURE(special_fft, fwd, true)
    ->Name("SpecialFft_fwd")
    ->RangeMultiplier(2)
    ->Range(4096, 65536)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(special_fft, inv, false)
    ->Name("SpecialFft_inv")
    ->RangeMultiplier(2)
    ->Range(4096, 65536)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  register_kernel_rows();
  return run_benchmarks(argc, argv);
}
