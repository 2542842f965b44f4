// bench_lib: scheme operations, named like OpenFHE's lib-benchmark
// (CKKSrns_MultRelin, ...) with the parameter set after a slash (the sets
// of parameter_sets.hpp).
// BFVrns_* and BGVrns_* rows use the two SEAL sets with t = 65537.
// Run single-threaded to compare with ../shared/ANCHORS.md:
//   HEFT_NUM_THREADS=1 build/bench/bench_lib --benchmark_repetitions=5 \
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <complex>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/parallel.hpp"
#include "parameter_sets.hpp"
#include "run_benchmarks.hpp"

namespace {

using heft::rlwe::Ciphertext;
using heft::rlwe::Plaintext;

using heft::bench::parameter_sets;
using heft::bench::ParameterSet;

// Keys and operands for one parameter set, built once and shared by its rows.
struct CkksSetup {
  explicit CkksSetup(const ParameterSet& set) {
    const auto params = set.make();
    context = heft::rlwe::Context::create(params);
    keygen = std::make_unique<heft::rlwe::KeyGenerator>(context);
    public_key = keygen->create_public_key();
    relin = keygen->create_relin_key();
    const std::vector<int64_t> steps = {1, 2, 3, 4, 5, 6, 7, 8};
    galois = keygen->create_galois_keys(steps);
    encoder = std::make_unique<heft::ckks::Encoder>(context);
    evaluator = std::make_unique<heft::ckks::Evaluator>(context);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> dist(-1, 1);
    values.resize(set.degree / 2);
    for (auto& v : values)
      v = {dist(rng), dist(rng)};
    const std::size_t top = context->max_level();
    plain = encoder->encode(values, evaluator->scale_at(top), top);
    heft::rlwe::Encryptor encryptor(public_key);
    a = encryptor.encrypt(plain);
    b = encryptor.encrypt(plain);
  }
  std::shared_ptr<const heft::rlwe::Context> context;
  std::unique_ptr<heft::rlwe::KeyGenerator> keygen;
  heft::rlwe::PublicKey public_key;
  heft::rlwe::RelinKey relin;
  heft::rlwe::GaloisKeys galois;
  std::unique_ptr<heft::ckks::Encoder> encoder;
  std::unique_ptr<heft::ckks::Evaluator> evaluator;
  std::vector<std::complex<double>> values;
  Plaintext plain;
  Ciphertext a, b;
};

// One Setup per parameter set, built on first use and shared by its rows.
template <typename Setup>
Setup& cached_setup(const ParameterSet& set) {
  static std::map<std::string, std::unique_ptr<Setup>> cache;
  auto& slot = cache[set.name];
  if (!slot) slot = std::make_unique<Setup>(set);
  return *slot;
}

// reg(name, body) registers "<prefix><name>/<set>" running body(state, setup).
template <typename Setup>
auto row_registrar(const std::string& prefix, const ParameterSet& set) {
  return [prefix, set](const char* name, auto body) {
    benchmark::RegisterBenchmark(
        (prefix + name + "/" + set.name).c_str(),
        [set, body](benchmark::State& state) { body(state, cached_setup<Setup>(set)); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
}

// The key-generation rows every scheme has.
template <typename Setup, typename Reg, typename MakeKeyGenerator>
void register_key_rows(Reg& reg, MakeKeyGenerator make_key_generator) {
  reg("KeyGen", [make_key_generator](benchmark::State& state, Setup& s) {
    for (auto _ : state) {
      heft::rlwe::KeyGenerator keygen = make_key_generator(s.context);
      benchmark::DoNotOptimize(keygen.create_public_key());
    }
  });
  reg("MultKeyGen", [](benchmark::State& state, Setup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.keygen->create_relin_key());
  });
  reg("EvalAtIndexKeyGen", [](benchmark::State& state, Setup& s) {
    const std::vector<int64_t> one_step = {1};
    for (auto _ : state)
      benchmark::DoNotOptimize(s.keygen->create_galois_keys(one_step));
  });
}

// The ciphertext-arithmetic rows every scheme has (its evaluator, operands
// a and b, and relinearization key come from the Setup).
template <typename Setup, typename Reg>
void register_arithmetic_rows(Reg& reg) {
  reg("Add", [](benchmark::State& state, Setup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->add(s.a, s.b));
  });
  reg("MultNoRelin", [](benchmark::State& state, Setup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->multiply(s.a, s.b));
  });
  // BGV's default (automatic) mode also switches the product down one level.
  reg("MultRelin", [](benchmark::State& state, Setup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->multiply(s.a, s.b, s.relin));
  });
}

void register_ckks(const ParameterSet& set) {
  auto reg = row_registrar<CkksSetup>("CKKSrns_", set);
  register_key_rows<CkksSetup>(reg, [](std::shared_ptr<const heft::rlwe::Context> context) {
    return heft::rlwe::KeyGenerator(std::move(context));
  });
  reg("Encryption", [](benchmark::State& state, CkksSetup& s) {
    heft::rlwe::Encryptor encryptor(s.public_key);
    for (auto _ : state)
      benchmark::DoNotOptimize(encryptor.encrypt(s.plain));
  });
  reg("Decryption", [](benchmark::State& state, CkksSetup& s) {
    heft::rlwe::Decryptor decryptor(s.keygen->secret_key());
    for (auto _ : state)
      benchmark::DoNotOptimize(decryptor.decrypt(s.a));
  });
  reg("Encode", [](benchmark::State& state, CkksSetup& s) {
    const std::size_t top = s.context->max_level();
    for (auto _ : state) {
      benchmark::DoNotOptimize(s.encoder->encode(s.values, s.evaluator->scale_at(top), top));
    }
  });
  reg("Decode", [](benchmark::State& state, CkksSetup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.encoder->decode(s.plain));
  });
  register_arithmetic_rows<CkksSetup>(reg);
  reg("MultRelinRescale", [](benchmark::State& state, CkksSetup& s) {
    for (auto _ : state) {
      benchmark::DoNotOptimize(s.evaluator->rescale(s.evaluator->multiply(s.a, s.b, s.relin)));
    }
  });
  // The same three steps through multiply_rescale (key switching's mod down
  // and the rescale share one conversion and one set of forward NTTs).
  reg("MultRelinRescaleFused", [](benchmark::State& state, CkksSetup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->multiply_rescale(s.a, s.b, s.relin));
  });
  reg("Relin", [](benchmark::State& state, CkksSetup& s) {
    const Ciphertext three = s.evaluator->multiply(s.a, s.b);
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->relinearize(three, s.relin));
  });
  reg("Rescale", [](benchmark::State& state, CkksSetup& s) {
    const Ciphertext product = s.evaluator->multiply(s.a, s.b, s.relin);
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->rescale(product));
  });
  reg("EvalAtIndex", [](benchmark::State& state, CkksSetup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->rotate(s.a, 1, s.galois));
  });
  reg("EvalAtIndexHoisted8", [](benchmark::State& state, CkksSetup& s) {
    const std::vector<int64_t> steps = {1, 2, 3, 4, 5, 6, 7, 8};
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->rotate_hoisted(s.a, steps, s.galois));
  });
  // A linear transform's inner sum over 8 rotations (no OpenFHE counterpart
  // by this name): sum_j d_j * rotate(a, j) with one decomposition and one
  // division by P (dot_rotations_plain), and the same sum from hoisted
  // rotations, plain products and additions.
  const auto diagonals = [](CkksSetup& s) {
    std::vector<heft::ckks::ExtendedPlaintext> d;
    const std::size_t level = s.a.level();
    for (int j = 0; j < 8; ++j)
      d.push_back(s.encoder->encode_extended(s.values, s.evaluator->scale_at(level), level));
    return d;
  };
  reg("DotRotationsPlain8", [diagonals](benchmark::State& state, CkksSetup& s) {
    const std::vector<int64_t> steps = {1, 2, 3, 4, 5, 6, 7, 8};
    const auto d = diagonals(s);
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->dot_rotations_plain(s.a, steps, d, s.galois));
  });
  reg("DotRotationsPlain8Separate", [](benchmark::State& state, CkksSetup& s) {
    const std::vector<int64_t> steps = {1, 2, 3, 4, 5, 6, 7, 8};
    const std::size_t level = s.a.level();
    const auto d = s.encoder->encode(s.values, s.evaluator->scale_at(level), level);
    for (auto _ : state) {
      auto rotations = s.evaluator->rotate_hoisted(s.a, steps, s.galois);
      auto sum = s.evaluator->multiply_plain(rotations[0], d);
      for (std::size_t j = 1; j < rotations.size(); ++j)
        s.evaluator->add_inplace(sum, s.evaluator->multiply_plain(rotations[j], d));
      benchmark::DoNotOptimize(sum);
    }
  });
}

// ---- BFV and BGV on SEAL's primes, t = 65537 (a batching prime for N <= 32768) ----

struct BfvScheme {
  static constexpr const char* prefix = "BFVrns_";
  using Encryptor = heft::bfv::Encryptor;
  using Decryptor = heft::bfv::Decryptor;
  using Evaluator = heft::bfv::Evaluator;
  using Ciphertext = heft::rlwe::Ciphertext;
  static heft::rlwe::KeyGenerator key_generator(std::shared_ptr<const heft::rlwe::Context> c) {
    return heft::rlwe::KeyGenerator(std::move(c));
  }
};

struct BgvScheme {
  static constexpr const char* prefix = "BGVrns_";
  using Encryptor = heft::bgv::Encryptor;
  using Decryptor = heft::bgv::Decryptor;
  using Evaluator = heft::bgv::Evaluator;
  using Ciphertext = heft::bgv::Ciphertext;
  static heft::rlwe::KeyGenerator key_generator(std::shared_ptr<const heft::rlwe::Context> c) {
    return heft::bgv::make_key_generator(std::move(c));  // errors scaled by t
  }
};

template <typename Scheme>
struct IntegerSetup {
  explicit IntegerSetup(const ParameterSet& set) {
    auto params = heft::rlwe::make_parameters(set.degree, set.ciphertext_bits, set.special_bits,
                                              set.dnum, set.security);
    params.plain_modulus = 65537;
    context = heft::rlwe::Context::create(params);
    keygen = std::make_unique<heft::rlwe::KeyGenerator>(Scheme::key_generator(context));
    public_key = keygen->create_public_key();
    relin = keygen->create_relin_key();
    galois = keygen->create_galois_keys(std::vector<int64_t>{1});
    evaluator = std::make_unique<typename Scheme::Evaluator>(context);
    heft::schemes::BatchEncoder encoder(set.degree, 65537);
    std::mt19937_64 rng(1);
    std::vector<uint64_t> values(set.degree);
    for (auto& v : values)
      v = rng() % 65537;
    plain = encoder.encode(values);
    typename Scheme::Encryptor encryptor(public_key);
    a = encryptor.encrypt(plain);
    b = encryptor.encrypt(plain);
  }
  std::shared_ptr<const heft::rlwe::Context> context;
  std::unique_ptr<heft::rlwe::KeyGenerator> keygen;
  heft::rlwe::PublicKey public_key;
  heft::rlwe::RelinKey relin;
  heft::rlwe::GaloisKeys galois;
  std::unique_ptr<typename Scheme::Evaluator> evaluator;
  heft::schemes::IntegerPlaintext plain;
  typename Scheme::Ciphertext a, b;
};

template <typename Scheme>
void register_integer_scheme(const ParameterSet& set) {
  using Setup = IntegerSetup<Scheme>;
  auto reg = row_registrar<Setup>(Scheme::prefix, set);
  register_key_rows<Setup>(reg, &Scheme::key_generator);
  reg("Encryption", [](benchmark::State& state, Setup& s) {
    typename Scheme::Encryptor encryptor(s.public_key);
    for (auto _ : state)
      benchmark::DoNotOptimize(encryptor.encrypt(s.plain));
  });
  reg("Decryption", [](benchmark::State& state, Setup& s) {
    typename Scheme::Decryptor decryptor(s.keygen->secret_key());
    for (auto _ : state)
      benchmark::DoNotOptimize(decryptor.decrypt(s.a));
  });
  register_arithmetic_rows<Setup>(reg);
  // Relinearization alone, of one product made before the loop (BGV in
  // manual mode, so no switch follows), as CKKSrns_Relin and SEAL's
  // EvaluateRelinInplace time it: the key stays as warm in the caches as
  // a loop of relinearizations leaves it, which the MultRelin rows, whose
  // multiplications stream the operands in between, do not have.
  reg("Relin", [](benchmark::State& state, Setup& s) {
    if constexpr (std::is_same_v<Scheme, BgvScheme>) {
      const heft::bgv::Evaluator manual(s.context, heft::bgv::ModSwitchMode::manual);
      const auto three = manual.multiply(s.a, s.b);
      for (auto _ : state)
        benchmark::DoNotOptimize(manual.relinearize(three, s.relin));
    } else {
      const auto three = s.evaluator->multiply(s.a, s.b);
      for (auto _ : state)
        benchmark::DoNotOptimize(s.evaluator->relinearize(three, s.relin));
    }
  });
  reg("EvalAtIndex", [](benchmark::State& state, Setup& s) {
    for (auto _ : state)
      benchmark::DoNotOptimize(s.evaluator->rotate_rows(s.a, 1, s.galois));
  });
  if constexpr (std::is_same_v<Scheme, BgvScheme>) {
    reg("ModSwitch", [](benchmark::State& state, Setup& s) {
      for (auto _ : state)
        benchmark::DoNotOptimize(s.evaluator->mod_switch(s.a));
    });
    // The product alone in manual mode (no switch): with BGVrns_Relin, the
    // two steps SEAL's EvaluateMulCt and EvaluateRelinInplace time apart.
    reg("MultNoRelinNoSwitch", [](benchmark::State& state, Setup& s) {
      const heft::bgv::Evaluator manual(s.context, heft::bgv::ModSwitchMode::manual);
      for (auto _ : state)
        benchmark::DoNotOptimize(manual.multiply(s.a, s.b));
    });
    // MultRelin in manual mode: the product is not switched down, which is
    // the work SEAL's multiply + relinearize rows measure.
    reg("MultRelinNoSwitch", [](benchmark::State& state, Setup& s) {
      const heft::bgv::Evaluator manual(s.context, heft::bgv::ModSwitchMode::manual);
      for (auto _ : state)
        benchmark::DoNotOptimize(manual.multiply(s.a, s.b, s.relin));
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const ParameterSet& set : parameter_sets())
    register_ckks(set);
  for (const ParameterSet& set : parameter_sets()) {
    if (std::string(set.name).rfind("seal-", 0) != 0) continue;  // SEAL's sets only
    register_integer_scheme<BfvScheme>(set);
    register_integer_scheme<BgvScheme>(set);
  }
  return run_benchmarks(argc, argv);
}
