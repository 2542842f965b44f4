// The kernel dispatcher (dispatch.cpp): every supported level equals scalar,
// the level chosen for this CPU, pinned levels the CPU lacks, and the bad
// input every checked entry point refuses without writing.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "heft/math/complex_fft.hpp"
#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/cpu_features.hpp"
#include "heft/util/error.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

// Every level the CPU supports, through the public dispatcher, equals scalar.
TEST(Dispatch, EverySupportedLevelMatchesScalar) {
  std::mt19937_64 rng(5);
  for (Isa isa : supported_isas()) {
    for (int log_n : {3, 4, 5, 10, 13, 16, 17}) {
      const uint64_t n = uint64_t{1} << log_n;
      for (int bits : {30, 49, 50, 60, 61}) {
        if (isa == Isa::ifma && bits > 50) continue;
        const Modulus q = generate_ntt_primes(bits, n, 1)[0];
        NttTables tables(n, q);
        auto input = random_values(n, 4 * q.value(), rng);
        input[0] = 4 * q.value() - 1;
        auto expected = input, actual = input;
        ntt_forward(expected, tables, Isa::scalar);
        ntt_forward(actual, tables, isa);
        ASSERT_EQ(actual, expected) << to_string(isa) << " forward n=" << n << " bits=" << bits;
        auto inv_input = random_values(n, 2 * q.value(), rng);
        expected = inv_input;
        actual = inv_input;
        ntt_inverse(expected, tables, Isa::scalar);
        ntt_inverse(actual, tables, isa);
        ASSERT_EQ(actual, expected) << to_string(isa) << " inverse n=" << n << " bits=" << bits;
      }
    }
  }
}

// CI runs this under qemu CPU models with HEFT_EXPECT_ISA set to the level that
// model must get (Nehalem: scalar, Haswell: avx2), so a dispatcher that picks
// a level the CPU lacks, or misses one it has, fails here.
TEST(Dispatch, ChoosesTheBestLevelTheCpuHas) {
  std::printf("CPU features: %s; active level: %s\n", cpu_features().summary().c_str(),
              to_string(active_isa()));
  if (std::getenv("HEFT_ISA") == nullptr) EXPECT_EQ(active_isa(), best_supported_isa());
  if (const char* expected = std::getenv("HEFT_EXPECT_ISA")) {
    EXPECT_EQ(to_string(active_isa()), std::string(expected));
  }
}

TEST(Dispatch, LevelSelectionAndErrors) {
  EXPECT_EQ(parse_isa("avx2"), Isa::avx2);
  EXPECT_THROW(parse_isa("sse9"), InvalidArgument);
  EXPECT_TRUE(isa_supported(Isa::scalar));
  const Isa before = active_isa();
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::ifma}) {
    if (isa_supported(isa)) {
      set_isa(isa);
      EXPECT_EQ(active_isa(), isa);
    } else {
      EXPECT_THROW(set_isa(isa), UnsupportedError);
      const Modulus q = generate_ntt_primes(40, 16, 1)[0];
      NttTables tables(16, q);
      std::vector<uint64_t> v(16, 1);
      EXPECT_THROW(ntt_forward(v, tables, isa), UnsupportedError);
      // The other entry points that take a pinned level refuse it with the
      // same error, naming the level, and leave their outputs alone.
      std::vector<uint32_t> identity(16);
      for (uint32_t k = 0; k < 16; ++k)
        identity[k] = k;
      std::vector<uint64_t> out(16, 7);
      try {
        permute_blocks(v, identity, out, isa);
        ADD_FAILURE() << "permute_blocks ran at " << to_string(isa);
      } catch (const UnsupportedError& e) {
        EXPECT_NE(std::string(e.what()).find(to_string(isa)), std::string::npos) << e.what();
      }
      EXPECT_EQ(out, std::vector<uint64_t>(16, 7));
      std::vector<std::complex<double>> values(16, {1.0, 0.0}), twiddles(16, {1.0, 0.0});
      EXPECT_THROW(fft_forward_stages(values, twiddles, isa), UnsupportedError);
      EXPECT_THROW(fft_inverse_stages(values, twiddles, isa), UnsupportedError);
      EXPECT_EQ(values, std::vector<std::complex<double>>(16, {1.0, 0.0}));
    }
  }
  set_isa(before);
  // ifma cannot take a 55-bit modulus when pinned explicitly.
  EXPECT_THROW(require_isa_fits(Isa::ifma, generate_ntt_primes(55, 16, 1)[0]), InvalidArgument);
  EXPECT_NO_THROW(require_isa_fits(Isa::ifma, generate_ntt_primes(50, 16, 1)[0]));
}

TEST(Dispatch, MismatchedSizesThrowAndLeaveOutputsAlone) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  NttTables tables(16, q);
  std::vector<uint64_t> short_poly(8, 1);
  EXPECT_THROW(ntt_forward(short_poly, tables), MismatchError);
  EXPECT_EQ(short_poly, std::vector<uint64_t>(8, 1));
  std::vector<uint64_t> a(4, 1), b(5, 2), out(4, 7);
  EXPECT_THROW(add_mod(a, b, out, q), MismatchError);
  EXPECT_THROW(mul_mod(a, a, b, q), MismatchError);
  EXPECT_THROW(mul_scalar_mod(a, q.value(), out, q), InvalidArgument);  // scalar not reduced
  EXPECT_THROW(add_scalar_mod(a, q.value(), out, q), InvalidArgument);
  EXPECT_THROW(sub_mul_scalar_mod(a, b, 3, out, q), MismatchError);
  EXPECT_THROW(sub_mul_scalar_mod(a, a, q.value(), out, q), InvalidArgument);
  EXPECT_THROW(sub_fma_scalar_mod(a, a, 3, b, out, q), MismatchError);
  EXPECT_EQ(out, std::vector<uint64_t>(4, 7));
  // permute_blocks: the map's length, and a length that is no power of two >= 8.
  std::vector<uint64_t> block_in(8, 1), block_out(8, 7), odd_in(12, 1), odd_out(12, 7);
  const std::vector<uint32_t> short_map(4, 0), odd_map(12, 0);
  EXPECT_THROW(permute_blocks(block_in, short_map, block_out), MismatchError);
  EXPECT_THROW(permute_blocks(odd_in, odd_map, odd_out), InvalidArgument);
  EXPECT_THROW(permute_blocks(a, short_map, out), InvalidArgument);
  EXPECT_EQ(block_out, std::vector<uint64_t>(8, 7));
  EXPECT_EQ(odd_out, std::vector<uint64_t>(12, 7));
  EXPECT_THROW(permute_blocks(block_in, std::vector<uint32_t>(8, 0), block_in), InvalidArgument);
}

// Inputs that used to hang, divide by zero, run undefined shifts or give
// level-dependent results are refused with a typed error, outputs untouched.
TEST(Dispatch, EmptyModuliPartialOverlapAndMovedTablesAreRefused) {
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  std::vector<uint64_t> a(8, 1), b(8, 2), out(8, 7);
  EXPECT_TRUE(Modulus().empty());
  EXPECT_THROW(add_mod(a, b, out, Modulus()), InvalidArgument);
  EXPECT_THROW(mul_mod(a, b, out, Modulus()), InvalidArgument);
  EXPECT_THROW(reduce_any(a, out, Modulus()), InvalidArgument);
  EXPECT_THROW((void)Modulus().inverse(3), InvalidArgument);
  EXPECT_EQ(out, std::vector<uint64_t>(8, 7));
  // An output that overlaps an input without being it (in place is fine).
  std::vector<uint64_t> buffer(9, 1);
  const std::vector<uint64_t> buffer_before = buffer;
  const auto first8 = std::span(buffer).first(8), last8 = std::span(buffer).subspan(1);
  EXPECT_THROW(add_mod(first8, std::span(b), last8, q), InvalidArgument);
  EXPECT_THROW(fma_mod(std::span(a), std::span(b), first8, last8, q), InvalidArgument);
  EXPECT_THROW(negate_mod(first8, last8, q), InvalidArgument);
  EXPECT_EQ(buffer, buffer_before);
  add_mod(first8, std::span(b), first8, q);  // exactly in place
  EXPECT_EQ(buffer[0], 3u);
  // Moved-from tables.
  NttTables tables(16, q);
  const NttTables moved(std::move(tables));
  std::vector<uint64_t> poly(16, 1);
  EXPECT_THROW(ntt_forward(poly, tables), InvalidArgument);
  EXPECT_THROW(ntt_inverse(poly, tables), InvalidArgument);
  EXPECT_EQ(poly, std::vector<uint64_t>(16, 1));
  EXPECT_NO_THROW(ntt_forward(poly, moved));
}

}  // namespace
}  // namespace heft::math
