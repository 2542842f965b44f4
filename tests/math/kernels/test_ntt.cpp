// The NTT (checked_ntt.cpp and each level's ntt.cpp): the scalar transform
// against direct evaluation and naive negacyclic convolution, its lazy input
// ranges, and the shifted and out-of-place transforms at every level.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/util/error.hpp"
#include "math_test_support.hpp"

namespace heft::math {
namespace {

using namespace testing;

// Naive O(N^2) product in Z_q[X]/(X^N + 1).
std::vector<uint64_t> negacyclic_product(const std::vector<uint64_t>& a,
                                         const std::vector<uint64_t>& b, uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = mulmod_ref(a[i], b[j], q);
      const std::size_t k = (i + j) % n;
      if (i + j < n) {
        c[k] = (c[k] + p) % q;
      } else {
        c[k] = (c[k] + q - p) % q;
      }
    }
  }
  return c;
}

// The forward NTT evaluates a at psi^(2 brv(k) + 1) into slot k.
TEST(Ntt, ScalarForwardIsEvaluationAtOddPowers) {
  std::mt19937_64 rng(2);
  for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{256}}) {
    for (int bits : {30, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      auto a = random_values(n, q.value(), rng);
      auto transformed = a;
      ntt_forward(transformed, tables, Isa::scalar);
      const int log_n = tables.log_degree();
      for (uint64_t k = 0; k < n; ++k) {
        const uint64_t point = powmod_ref(tables.root(), 2 * reverse_bits(k, log_n) + 1, q.value());
        uint64_t value = 0;
        for (uint64_t i = n; i-- > 0;)
          value = (mulmod_ref(value, point, q.value()) + a[i]) % q.value();
        ASSERT_EQ(transformed[k], value) << "n=" << n << " k=" << k;
      }
    }
  }
}

TEST(Ntt, ScalarMultiplicationMatchesNaiveConvolution) {
  std::mt19937_64 rng(3);
  for (uint64_t n : {uint64_t{8}, uint64_t{32}, uint64_t{256}, uint64_t{1024}}) {
    for (int bits : {30, 40, 50, 55, 60, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      const auto a = random_values(n, q.value(), rng);
      const auto b = random_values(n, q.value(), rng);
      auto fa = a, fb = b;
      ntt_forward(fa, tables, Isa::scalar);
      ntt_forward(fb, tables, Isa::scalar);
      mul_mod(fa, fb, fa, q, Isa::scalar);
      ntt_inverse(fa, tables, Isa::scalar);
      ASSERT_EQ(fa, negacyclic_product(a, b, q.value())) << "n=" << n << " bits=" << bits;
    }
  }
}

TEST(Ntt, ScalarRoundTripAndLazyInputRanges) {
  std::mt19937_64 rng(4);
  for (int log_n = 3; log_n <= 17; ++log_n) {
    const uint64_t n = uint64_t{1} << log_n;
    for (int bits : {30, 50, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      NttTables tables(n, q);
      const auto a = random_values(n, q.value(), rng);
      auto v = a;
      ntt_forward(v, tables, Isa::scalar);
      for (uint64_t x : v)
        ASSERT_LT(x, q.value());
      ntt_inverse(v, tables, Isa::scalar);
      ASSERT_EQ(v, a) << "n=" << n << " bits=" << bits;
      // Forward accepts [0, 4q): a + kq for k in {0..3} must transform like a.
      auto lazy = a;
      for (uint64_t i = 0; i < n; ++i)
        lazy[i] += (i % 4) * q.value();
      auto reference = a;
      ntt_forward(reference, tables, Isa::scalar);
      ntt_forward(lazy, tables, Isa::scalar);
      ASSERT_EQ(lazy, reference);
      // Inverse accepts [0, 2q).
      auto lazy_inverse = reference;
      for (uint64_t i = 0; i < n; i += 2)
        lazy_inverse[i] += q.value();
      ntt_inverse(lazy_inverse, tables, Isa::scalar);
      ASSERT_EQ(lazy_inverse, a);
    }
  }
}

// ntt_forward_shifted at every level against the plain transform of the
// shifted values reduced here; a shift that is not reduced is refused and
// leaves the output as it was.
TEST(Ntt, ShiftedForwardTransformAtEveryLevel) {
  std::mt19937_64 rng(19);
  for_each_level_and_table([&](Isa isa, int bits, const NttTables& tables) {
    const uint64_t n = tables.degree(), q = tables.modulus().value();
    std::vector<uint64_t> input = random_values(n, 3 * q, rng);
    const uint64_t shift = random_values(1, q, rng)[0];
    std::vector<uint64_t> expected(n), output(n, 0);
    for (uint64_t i = 0; i < n; ++i)
      expected[i] = (input[i] % q + shift) % q;
    ntt_forward(expected, tables);
    ntt_forward_shifted(input, shift, output, tables);
    EXPECT_EQ(output, expected) << to_string(isa) << " bits=" << bits << " n=" << n;
  });
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  const NttTables tables(16, q);
  std::vector<uint64_t> input(16, 1), output(16, 7);
  EXPECT_THROW(ntt_forward_shifted(input, q.value(), output, tables), InvalidArgument);
  EXPECT_EQ(output, std::vector<uint64_t>(16, 7));
  std::vector<uint64_t> short_output(15, 7);
  EXPECT_THROW(ntt_forward_shifted(input, 1, short_output, tables), MismatchError);
}

TEST(Ntt, OutOfPlaceTransformsEqualInPlaceAtEveryLevel) {
  std::mt19937_64 rng(18);
  for_each_level_and_table([&](Isa isa, int bits, const NttTables& tables) {
    const uint64_t n = tables.degree(), q = tables.modulus().value();
    std::vector<uint64_t> input = random_values(n, 4 * q, rng);  // lazy range
    input[0] = 4 * q - 1;
    const std::vector<uint64_t> kept = input;
    std::vector<uint64_t> in_place = input, output(n, 0);
    ntt_forward(in_place, tables);
    ntt_forward(input, output, tables);
    EXPECT_EQ(output, in_place) << to_string(isa) << " bits=" << bits << " n=" << n;
    EXPECT_EQ(input, kept);
    ntt_forward(std::span<const uint64_t>(input), input, tables);  // same array: in place
    EXPECT_EQ(input, in_place);
    // Inverse, from the lazy range [0, 2q) of its contract.
    std::vector<uint64_t> spectrum = random_values(n, 2 * q, rng);
    spectrum[1] = 2 * q - 1;
    const std::vector<uint64_t> spectrum_kept = spectrum;
    std::vector<uint64_t> inverse_in_place = spectrum, inverse_output(n, 0);
    ntt_inverse(inverse_in_place, tables);
    ntt_inverse(spectrum, inverse_output, tables);
    EXPECT_EQ(inverse_output, inverse_in_place) << to_string(isa) << " bits=" << bits;
    EXPECT_EQ(spectrum, spectrum_kept);
  });
  const Modulus q = generate_ntt_primes(40, 16, 1)[0];
  const NttTables tables(16, q);
  std::vector<uint64_t> both(24, 1);
  EXPECT_THROW(ntt_forward(std::span<const uint64_t>(both).first(16),
                           std::span<uint64_t>(both).subspan(8, 16), tables),
               InvalidArgument);
  std::vector<uint64_t> short_input(15, 1), output(16, 0);
  EXPECT_THROW(ntt_forward(short_input, output, tables), MismatchError);
  EXPECT_THROW(ntt_inverse(short_input, output, tables), MismatchError);
  EXPECT_THROW(ntt_inverse(std::span<const uint64_t>(both).first(16),
                           std::span<uint64_t>(both).subspan(8, 16), tables),
               InvalidArgument);
}

}  // namespace
}  // namespace heft::math
