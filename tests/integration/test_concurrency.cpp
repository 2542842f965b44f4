// One context, one set of keys and one evaluator shared by several threads at
// once, as servers use them: every thread's results must equal the same
// computation in plain arithmetic (complex doubles for CKKS, exact integers
// mod t for BFV). The threads start together on a fresh context, so the
// caches the library builds on first use (key switching's base converters,
// BFV's multiplication tables, the automorphism permutations) are built under
// contention, and each thread works at its own level so that several of them
// are built at once. The library's own parallel_for is used from all of these
// threads at the same time as well. Run under ThreadSanitizer, this is the
// test that shows the "safe to share between threads" claim of
// rlwe/context.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft {
namespace {

constexpr int kThreads = 4;
constexpr int kRoundsPerThread = 2;

// Runs body(thread_index) on kThreads threads released together.
template <class Body>
void run_together(const Body& body) {
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  }
  for (auto& thread : threads)
    thread.join();
}

using cd = std::complex<double>;
using Vec = std::vector<cd>;

// Left rotation of the slots by step (negative: right).
Vec rotated(const Vec& v, int64_t step) {
  const auto n = static_cast<int64_t>(v.size());
  Vec r(v.size());
  for (int64_t i = 0; i < n; ++i)
    r[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(((i + step) % n + n) % n)];
  return r;
}

double max_error(const Vec& got, const Vec& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

// The converters a context builds on first use: threads asking at once for
// every one of them must all get the same object (one built, none lost).
TEST(Concurrency, LazilyBuiltConvertersAreBuiltOnce) {
  const auto params =
      rlwe::make_parameters(1024, {40, 30, 30, 30, 30}, {40, 40}, 3, rlwe::SecurityLevel::none);
  for (int repeat = 0; repeat < 20; ++repeat) {
    const auto context = rlwe::Context::create(params);
    std::vector<std::vector<const void*>> seen(kThreads);
    run_together([&](int t) {
      auto& mine = seen[static_cast<std::size_t>(t)];
      for (std::size_t level = 0; level < context->level_count(); ++level) {
        for (std::size_t digit = 0; digit < context->digit_count_at(level); ++digit)
          mine.push_back(&context->mod_up_converter(level, digit));
        mine.push_back(&context->mod_down_converter(level));
        if (level > 0) mine.push_back(&context->mod_down_to_next_converter(level));
      }
    });
    for (int t = 1; t < kThreads; ++t)
      ASSERT_EQ(seen[static_cast<std::size_t>(t)], seen[0]) << "thread " << t;
  }
}

TEST(Concurrency, CkksOperationsFromManyThreadsMatchComplexDoubles) {
  // N = 4096, a 60-bit first prime, three 40-bit primes, two digits.
  auto params =
      rlwe::make_parameters(4096, {60, 40, 40, 40}, {60, 60}, 2, rlwe::SecurityLevel::none);
  params.scale = std::ldexp(1.0, 40);
  const auto context = rlwe::Context::create(params);
  const rlwe::KeyGenerator keygen(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const std::vector<int64_t> steps = {1, 2, 3, -2};
  const rlwe::GaloisKeys galois = keygen.create_galois_keys(steps, /*include_conjugation=*/true);
  const ckks::Encoder encoder(context);
  const ckks::Evaluator eval(context);
  const rlwe::Encryptor encryptor(keygen.create_public_key());
  const rlwe::Decryptor decryptor(keygen.secret_key());
  const std::size_t slots = context->degree() / 2;

  // worst[t][k]: thread t's largest error in check k, over its rounds.
  enum Check { kProduct, kRotation, kHoisted, kConjugate, kChecks };
  std::vector<std::array<double, kChecks>> worst(kThreads);
  run_together([&](int t) {
    std::mt19937_64 rng(1000 + static_cast<uint64_t>(t));
    std::uniform_real_distribution<double> dist(-1, 1);
    // Threads 0 and 2 at the top level, 1 and 3 one below: two levels' key
    // switching converters are first built concurrently.
    const std::size_t level = context->max_level() - static_cast<std::size_t>(t % 2);
    auto& w = worst[static_cast<std::size_t>(t)];
    w.fill(0);
    for (int round = 0; round < kRoundsPerThread; ++round) {
      Vec x(slots);
      for (auto& v : x)
        v = {dist(rng), dist(rng)};
      const auto decrypt = [&](const ckks::Ciphertext& ct) {
        return encoder.decode(decryptor.decrypt(ct));
      };
      const auto ct = encryptor.encrypt(encoder.encode(x, eval.scale_at(level), level));

      Vec square(slots);
      for (std::size_t i = 0; i < slots; ++i)
        square[i] = x[i] * x[i];
      w[kProduct] = std::max(w[kProduct], max_error(decrypt(eval.square(ct, relin)), square));

      const int64_t step = steps[static_cast<std::size_t>(t) % steps.size()];
      w[kRotation] = std::max(w[kRotation],
                              max_error(decrypt(eval.rotate(ct, step, galois)), rotated(x, step)));

      const std::vector<int64_t> hoisted_steps = {1, 3};
      const auto hoisted = eval.rotate_hoisted(ct, hoisted_steps, galois);
      for (std::size_t k = 0; k < hoisted_steps.size(); ++k) {
        w[kHoisted] =
            std::max(w[kHoisted], max_error(decrypt(hoisted[k]), rotated(x, hoisted_steps[k])));
      }

      Vec conj(slots);
      for (std::size_t i = 0; i < slots; ++i)
        conj[i] = std::conj(x[i]);
      w[kConjugate] = std::max(w[kConjugate], max_error(decrypt(eval.conjugate(ct, galois)), conj));
    }
  });
  // The same bounds the single-threaded tests use at scale 2^40 (schemes/ckks/test_evaluator.cpp).
  for (int t = 0; t < kThreads; ++t) {
    const auto& w = worst[static_cast<std::size_t>(t)];
    EXPECT_LT(std::log2(w[kProduct]), -15) << "square, thread " << t;
    EXPECT_LT(std::log2(w[kRotation]), -19) << "rotate, thread " << t;
    EXPECT_LT(std::log2(w[kHoisted]), -19) << "rotate_hoisted, thread " << t;
    EXPECT_LT(std::log2(w[kConjugate]), -19) << "conjugate, thread " << t;
  }
}

TEST(Concurrency, BfvOperationsFromManyThreadsAreExact) {
  // N = 4096, t = 65537 (a batching prime), three 50-bit primes, one special;
  // one product fits at the two top levels (not at level 0).
  constexpr uint64_t t_mod = 65537;
  rlwe::Parameters params =
      rlwe::make_parameters(4096, {50, 50, 50}, {50}, 0, rlwe::SecurityLevel::none);
  params.plain_modulus = t_mod;
  const auto context = rlwe::Context::create(params);
  const rlwe::KeyGenerator keygen(context);
  const rlwe::RelinKey relin = keygen.create_relin_key();
  const std::vector<int64_t> steps = {1, -3};
  const rlwe::GaloisKeys galois = keygen.create_galois_keys(steps);
  const schemes::BatchEncoder encoder(context->degree(), t_mod);
  const bfv::Evaluator eval(context);
  const bfv::Encryptor encryptor(keygen.create_public_key());
  const bfv::Decryptor decryptor(keygen.secret_key());
  const std::size_t n = context->degree();
  const std::size_t row = n / 2;

  std::vector<int> mismatches(kThreads, 0);
  run_together([&](int t) {
    std::mt19937_64 rng(2000 + static_cast<uint64_t>(t));
    std::uniform_int_distribution<uint64_t> dist(0, t_mod - 1);
    // Each thread at its own level: BFV's per-level multiplication tables and
    // the converters are first built concurrently.
    const std::size_t level = context->max_level() - static_cast<std::size_t>(t % 2);
    for (int round = 0; round < kRoundsPerThread; ++round) {
      std::vector<uint64_t> x(n), y(n);
      for (auto& v : x)
        v = dist(rng);
      for (auto& v : y)
        v = dist(rng);
      const auto cx = encryptor.encrypt(encoder.encode(x), level);
      const auto cy = encryptor.encrypt(encoder.encode(y), level);

      std::vector<uint64_t> product(n);
      for (std::size_t i = 0; i < n; ++i)
        product[i] = static_cast<uint64_t>(static_cast<unsigned __int128>(x[i]) * y[i] % t_mod);
      if (encoder.decode(decryptor.decrypt(eval.multiply(cx, cy, relin))) != product) {
        ++mismatches[static_cast<std::size_t>(t)];
      }

      // rotate_rows: both rows of the 2 x N/2 slot matrix rotate left by step.
      const int64_t step = steps[static_cast<std::size_t>(t) % steps.size()];
      std::vector<uint64_t> want(n);
      for (std::size_t r = 0; r < 2; ++r) {
        for (std::size_t c = 0; c < row; ++c) {
          const auto from = static_cast<std::size_t>(
              ((static_cast<int64_t>(c) + step) % static_cast<int64_t>(row) +
               static_cast<int64_t>(row)) %
              static_cast<int64_t>(row));
          want[r * row + c] = x[r * row + from];
        }
      }
      if (encoder.decode(decryptor.decrypt(eval.rotate_rows(cx, step, galois))) != want) {
        ++mismatches[static_cast<std::size_t>(t)];
      }
    }
  });
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0) << "thread " << t;
}

}  // namespace
}  // namespace heft
