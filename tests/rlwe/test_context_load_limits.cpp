// What loading parameters may cost: the bytes a context allocates are
// estimated exactly (math::NttTables::table_bytes, rlwe::context_bytes, the
// 56 and 116 bytes a coefficient that docs/format.md states), the default
// LoadOptions refuse a few hundred bytes that ask for gigabytes before
// building anything, admit the library's own parameter sets, and load
// SecurityLevel::none only when asked for by name.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bench/parameter_sets.hpp"
#include "error_test_support.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

using heft::testing::expect_error;

const LoadOptions kInsecure{.allow_insecure_parameters = true};

// N and `count` distinct NTT primes of `bits` bits, as a parameter set.
Parameters parameters_of(uint64_t degree, int bits, std::size_t count, SecurityLevel security) {
  Parameters p;
  p.degree = degree;
  p.security = security;
  for (const auto& q : math::generate_ntt_primes(bits, degree, count))
    p.ciphertext_moduli.push_back(q.value());
  return p;
}

TEST(ContextLoadLimits, TableBytesAreWhatTheTablesAllocate) {
  for (uint64_t n : {8, 32, 64, 1024, 4096}) {
    for (int bits : {30, 49, 50, 60}) {
      const math::Modulus q(math::generate_ntt_primes(bits, n, 1)[0].value());
      const math::NttTables tables(n, q);
      EXPECT_EQ(tables.allocated_bytes(), math::NttTables::table_bytes(n, q.value()))
          << "N = " << n << ", " << bits << " bits";
      // The numbers docs/format.md gives: below 2^50 (bit sizes up to 50),
      // 116 bytes a coefficient, 56 above (80 and 32 for N < 64).
      const std::size_t per_coefficient = bits <= 50 ? (n >= 64 ? 116 : 80) : (n >= 64 ? 56 : 32);
      EXPECT_EQ(math::NttTables::table_bytes(n, q.value()), per_coefficient * n);
    }
  }
  // A context: the tables of both rings and the rescaling constants.
  Parameters p = make_parameters(2048, {60, 40, 40, 50}, {60, 45}, 0, SecurityLevel::none);
  const auto context = Context::create(p);
  std::size_t allocated = 0;
  for (const auto* ring : {context->ciphertext_ring().get(), context->special_ring().get()}) {
    for (std::size_t i = 0; i < ring->tower_count(); ++i)
      allocated += ring->ntt_tables(i).allocated_bytes();
  }
  const std::size_t levels = p.ciphertext_moduli.size();
  EXPECT_EQ(context_bytes(p), allocated + (2 * levels + levels * (levels - 1) / 2) * 8);
}

// The input: N = 2^17 and 255 primes, a few hundred bytes with zstd,
// a context of about 3.9 GB (9 s to build). Refused under the default
// options before anything is built, and accepted by the size check only when
// the caller raises the bound.
TEST(ContextLoadLimits, AFewHundredBytesCannotAskForGigabytes) {
  const Parameters p = parameters_of(131072, 40, 255, SecurityLevel::none);
  const Bytes frame = save(p, {.compression = Compression::zstd, .zstd_level = 19});
  EXPECT_LT(frame.size(), 700u) << frame.size();
  EXPECT_GT(context_bytes(p), std::size_t{3700000000});  // 3.7 GB

  // By default: insecure, so refused first for that.
  expect_error<InvalidArgument>([&] { (void)load_context(frame); },
                                "load_context: these parameters have security level none");
  // Insecure allowed: refused for its size, by the size check (its message),
  // which comes before any table is built.
  expect_error<InvalidArgument>([&] { (void)load_context(frame, kInsecure); },
                                "bytes of tables, above LoadOptions::max_context_bytes");
  expect_error<InvalidArgument>([&] { (void)load_parameters(frame, kInsecure); },
                                "load_parameters: a context for these parameters (N = 131072, "
                                "255 primes) needs");
  // Asked for by name: the size check admits it (building it is the
  // caller's choice; this test does not spend the 4 GB).
  LoadOptions large = kInsecure;
  large.max_context_bytes = context_bytes(p);
  const Parameters loaded = load_parameters(frame, large);
  EXPECT_EQ(loaded.ciphertext_moduli, p.ciphertext_moduli);
  EXPECT_EQ(loaded.degree, p.degree);
}

// A 128-bit-secure set can still be large: 117 primes of 30 bits at
// N = 2^17 (3510 bits) make 1.8 GB of tables, above the default bound.
TEST(ContextLoadLimits, SecureButLargeSetsNeedTheExplicitBound) {
  const Parameters p = parameters_of(131072, 30, 117, SecurityLevel::classic128);
  ASSERT_NO_THROW(p.validate());
  const Bytes frame = save(p);
  expect_error<InvalidArgument>([&] { (void)load_parameters(frame); },
                                "raise it to load larger contexts");
  LoadOptions large;
  large.max_context_bytes = std::size_t{2} << 30;
  EXPECT_EQ(load_parameters(frame, large).ciphertext_moduli, p.ciphertext_moduli);
}

// The default admits the benchmark sets, the largest 128-bit sets at
// N = 2^17 of 60-bit and of 50-bit primes, and a helper's set at N = 2^17.
TEST(ContextLoadLimits, DefaultsAdmitTheLibrarysOwnSets) {
  for (const auto& set : bench::parameter_sets()) {
    const Parameters p = set.make();
    const LoadOptions options = p.security == SecurityLevel::none ? kInsecure : LoadOptions{};
    EXPECT_NO_THROW((void)load_parameters(save(p), options)) << set.name;
  }
  for (const auto& [bits, count] : {std::pair{60, 58}, std::pair{50, 70}}) {
    const Parameters p = parameters_of(131072, bits, count, SecurityLevel::classic128);
    ASSERT_NO_THROW(p.validate()) << bits;
    EXPECT_LE(context_bytes(p), LoadOptions{}.max_context_bytes) << bits;
    EXPECT_NO_THROW((void)load_parameters(save(p))) << bits;
  }
  ckks::ParameterRequest request;
  request.slots = 65536;
  request.depth = 40;
  request.scale_bits = 50;
  request.first_prime_bits = 60;
  const Parameters helper = ckks::suggest_parameters(request);
  ASSERT_EQ(helper.degree, 131072u);
  EXPECT_NO_THROW((void)load_parameters(save(helper)));
}

TEST(ContextLoadLimits, InsecureParametersLoadOnlyWhenAskedForByName) {
  Parameters toy = make_parameters(1024, {40, 40}, {50}, 0, SecurityLevel::none);
  toy.scale = 1 << 20;
  const Bytes frame = save(toy);
  expect_error<InvalidArgument>(
      [&] { (void)load_context(frame); },
      "load_context: these parameters have security level none (no HE Standard bound is "
      "checked); set LoadOptions::allow_insecure_parameters = true");
  expect_error<InvalidArgument>([&] { (void)load_parameters(frame); },
                                "load_parameters: these parameters have security level none");
  const ContextPtr context = load_context(frame, kInsecure);
  EXPECT_EQ(parameter_hash(context->parameters()), parameter_hash(toy));
  // A secure set needs nothing.
  Parameters secure = make_parameters(4096, {36, 36}, {36});
  secure.scale = 1 << 20;
  EXPECT_EQ(parameter_hash(load_context(save(secure))->parameters()), parameter_hash(secure));
}

}  // namespace
}  // namespace heft::rlwe
