// Tests for the AVX2 kernel level (src/math/kernels/avx2): every NTT size and
// modulus width against the scalar reference, boundary inputs at the top of
// the lazy ranges, and the element-wise kernels against unsigned __int128
// arithmetic and scalar, with ragged lengths, edge values, in-place calls and
// misaligned arrays; the double-precision paths also under non-default MXCSR
// rounding modes. Skipped on CPUs without AVX2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"

namespace heft::math {
namespace {

using u128 = unsigned __int128;
using Vec = std::vector<uint64_t>;

#define SKIP_WITHOUT_AVX2()                                                   \
  do {                                                                        \
    if (!isa_supported(Isa::avx2)) GTEST_SKIP() << "CPU lacks AVX2/FMA/BMI2"; \
  } while (0)

Vec random_below(std::size_t n, uint64_t bound, std::mt19937_64& rng) {
  std::uniform_int_distribution<uint64_t> dist(0, bound - 1);
  Vec v(n);
  for (auto& x : v)
    x = dist(rng);
  return v;
}

// Runs the transform at both levels on copies of `input` and compares.
// Random values below `bound`, about a third of them replaced by 0 and a
// third by bound - 1 (the lazy-range edge).
Vec mixed_with_edge(std::size_t n, uint64_t bound, std::mt19937_64& rng) {
  Vec v = random_below(n, bound, rng);
  for (auto& x : v) {
    const uint64_t pick = rng() % 3;
    if (pick == 0) x = 0;
    if (pick == 1) x = bound - 1;
  }
  return v;
}

void expect_forward_matches(const Vec& input, const NttTables& tables, const std::string& what) {
  Vec expected = input, actual = input;
  ntt_forward(expected, tables, Isa::scalar);
  ntt_forward(actual, tables, Isa::avx2);
  ASSERT_EQ(actual, expected) << "forward " << what << ", N = " << tables.degree()
                              << ", q = " << tables.modulus().value();
}

void expect_inverse_matches(const Vec& input, const NttTables& tables, const std::string& what) {
  Vec expected = input, actual = input;
  ntt_inverse(expected, tables, Isa::scalar);
  ntt_inverse(actual, tables, Isa::avx2);
  ASSERT_EQ(actual, expected) << "inverse " << what << ", N = " << tables.degree()
                              << ", q = " << tables.modulus().value();
}

constexpr int kPrimeBits[] = {30, 40, 50, 55, 60, 61};

TEST(Avx2Ntt, RandomInputsEverySizeAndWidth) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(2024);
  for (uint64_t n = kMinPolyDegree; n <= kMaxPolyDegree; n <<= 1) {
    for (int bits : kPrimeBits) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      const NttTables tables(n, q);
      const uint64_t qv = q.value();
      expect_forward_matches(random_below(n, 4 * qv, rng), tables, "random [0, 4q)");
      expect_forward_matches(random_below(n, qv, rng), tables, "random [0, q)");
      expect_inverse_matches(random_below(n, 2 * qv, rng), tables, "random [0, 2q)");
      // Round trip at the avx2 level alone.
      const Vec original = random_below(n, qv, rng);
      Vec v = original;
      ntt_forward(v, tables, Isa::avx2);
      ntt_inverse(v, tables, Isa::avx2);
      ASSERT_EQ(v, original) << "round trip N = " << n << ", q = " << qv;
    }
  }
}

TEST(Avx2Ntt, EdgeInputs) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(7);
  for (uint64_t n = kMinPolyDegree; n <= kMaxPolyDegree; n <<= 1) {
    // The widest primes stress the lazy bounds most; smaller sizes are cheap,
    // so they get every width.
    for (int bits : kPrimeBits) {
      if (n > 4096 && bits != 50 && bits != 61) continue;
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      const NttTables tables(n, q);
      const uint64_t qv = q.value();
      expect_forward_matches(Vec(n, 0), tables, "all 0");
      expect_forward_matches(Vec(n, qv - 1), tables, "all q-1");
      expect_forward_matches(Vec(n, 4 * qv - 1), tables, "all 4q-1");
      expect_forward_matches(Vec(n, 2 * qv), tables, "all 2q");
      expect_forward_matches(mixed_with_edge(n, 4 * qv, rng), tables, "mix of 0, 4q-1, random");
      Vec alternating(n);
      for (std::size_t i = 0; i < n; ++i)
        alternating[i] = (i % 2) ? 4 * qv - 1 : 0;
      expect_forward_matches(alternating, tables, "alternating 0, 4q-1");

      expect_inverse_matches(Vec(n, 0), tables, "all 0");
      expect_inverse_matches(Vec(n, qv - 1), tables, "all q-1");
      expect_inverse_matches(Vec(n, 2 * qv - 1), tables, "all 2q-1");
      expect_inverse_matches(mixed_with_edge(n, 2 * qv, rng), tables, "mix of 0, 2q-1, random");
      Vec inverse_alternating(n);
      for (std::size_t i = 0; i < n; ++i)
        inverse_alternating[i] = (i % 2) ? 0 : 2 * qv - 1;
      expect_inverse_matches(inverse_alternating, tables, "alternating 2q-1, 0");
    }
  }
}

// Several primes of each width at a mid size, so that the twiddle values vary.
TEST(Avx2Ntt, ManyPrimes) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(99);
  const uint64_t n = 256;
  for (int bits : {22, 31, 32, 33, 45, 49, 50, 51, 52, 53, 58, 61}) {
    for (const Modulus& q : generate_ntt_primes(bits, n, 4)) {
      const NttTables tables(n, q);
      expect_forward_matches(random_below(n, 4 * q.value(), rng), tables, "random");
      expect_inverse_matches(random_below(n, 2 * q.value(), rng), tables, "random");
    }
  }
}

// The kernels take any 8-byte-aligned pointer, not only 32-byte-aligned ones.
TEST(Avx2Ntt, MisalignedData) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(3);
  for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{4096}}) {
    for (int bits : {40, 60, 61}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      const NttTables tables(n, q);
      for (std::size_t offset = 0; offset < 4; ++offset) {
        const Vec input = random_below(n, 4 * q.value(), rng);
        Vec buffer(n + 4), expected = input;
        std::copy(input.begin(), input.end(), buffer.begin() + offset);
        const std::span<uint64_t> values(buffer.data() + offset, n);
        ntt_forward(expected, tables, Isa::scalar);
        ntt_forward(values, tables, Isa::avx2);
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), values.begin()))
            << "forward, N = " << n << ", offset " << offset;
        ntt_inverse(expected, tables, Isa::scalar);
        ntt_inverse(values, tables, Isa::avx2);
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), values.begin()))
            << "inverse, N = " << n << ", offset " << offset;
      }
    }
  }
}

// The double-precision paths rely on round-to-nearest; under another MXCSR
// rounding mode the kernels must fall back and still be exact.
TEST(Avx2Ntt, OtherRoundingModes) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(4);
  for (uint64_t n : {uint64_t{8}, uint64_t{1024}}) {
    for (int bits : {30, 50}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      const NttTables tables(n, q);
      const Vec input = random_below(n, 4 * q.value(), rng), b = random_below(n, q.value(), rng);
      Vec forward = input, inverse = b, product(n), scaled(n);
      ntt_forward(forward, tables, Isa::scalar);
      ntt_inverse(inverse, tables, Isa::scalar);
      mul_mod(std::span<const uint64_t>(forward), b, product, q, Isa::scalar);
      mul_scalar_mod(forward, b[0], scaled, q, Isa::scalar);
      const int saved = std::fegetround();
      for (int mode : {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD}) {
        ASSERT_EQ(std::fesetround(mode), 0);
        Vec v = input, u = b, p(n), s(n);
        ntt_forward(v, tables, Isa::avx2);
        ntt_inverse(u, tables, Isa::avx2);
        mul_mod(std::span<const uint64_t>(v), b, p, q, Isa::avx2);
        mul_scalar_mod(v, b[0], s, q, Isa::avx2);
        std::fesetround(saved);
        const std::string where =
            "rounding mode " + std::to_string(mode) + ", N = " + std::to_string(n);
        EXPECT_EQ(v, forward) << where;
        EXPECT_EQ(u, inverse) << where;
        EXPECT_EQ(p, product) << where;
        EXPECT_EQ(s, scaled) << where;
      }
    }
  }
}

// ---- Element-wise kernels ----------------------------------------------------

constexpr std::size_t kLengths[] = {0, 1, 3, 4, 5, 17, 1024, 4099};

// Moduli on both sides of the double-precision bound 2^50, tiny and
// non-prime ones (element-wise ops accept any q in [2, 2^61)), and the top.
std::vector<uint64_t> test_moduli() {
  return {2,
          3,
          65537,
          (uint64_t{1} << 31) - 1,
          uint64_t{1} << 32,
          (uint64_t{1} << 32) + 15,
          uint64_t{1} << 40,
          generate_ntt_primes(45, 8, 1)[0].value(),
          (uint64_t{1} << 49) + 1,
          (uint64_t{1} << 50) - 27,
          (uint64_t{1} << 50) - 1,
          uint64_t{1} << 50,
          (uint64_t{1} << 50) + 1,
          generate_ntt_primes(55, 8, 1)[0].value(),
          generate_ntt_primes(60, 8, 1)[0].value(),
          (uint64_t{1} << 60),
          (uint64_t{1} << 61) - 1,
          generate_ntt_primes(61, 8, 1)[0].value()};
}

// Values in [0, q) with the edges 0 and q-1 planted often.
Vec operand(std::size_t n, uint64_t q, std::mt19937_64& rng) {
  Vec v = random_below(n, q, rng);
  for (auto& x : v) {
    const uint64_t pick = rng() % 8;
    if (pick == 0) x = 0;
    if (pick == 1) x = q - 1;
    if (pick == 2) x = 1 % q;
  }
  return v;
}

template <typename Reference>
Vec map2(const Vec& a, const Vec& b, Reference f) {
  Vec r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    r[i] = f(a[i], b[i]);
  return r;
}

TEST(Avx2Eltwise, BinaryOpsMatchInt128AndScalar) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(5);
  for (uint64_t qv : test_moduli()) {
    const Modulus q(qv);
    for (std::size_t n : kLengths) {
      const Vec a = operand(n, qv, rng), b = operand(n, qv, rng), c = operand(n, qv, rng);
      const std::string where = "q = " + std::to_string(qv) + ", n = " + std::to_string(n);
      auto check = [&](const char* name, auto op, const Vec& expected) {
        Vec out(n, 0xdeadbeef), scalar_out(n, 0xdeadbeef);
        op(out, Isa::avx2);
        op(scalar_out, Isa::scalar);
        EXPECT_EQ(out, expected) << name << ", " << where;
        EXPECT_EQ(out, scalar_out) << name << " vs scalar, " << where;
      };
      check(
          "add_mod", [&](Vec& out, Isa isa) { add_mod(a, b, out, q, isa); },
          map2(a, b, [&](uint64_t x, uint64_t y) { return uint64_t((u128(x) + y) % qv); }));
      check(
          "sub_mod", [&](Vec& out, Isa isa) { sub_mod(a, b, out, q, isa); },
          map2(a, b, [&](uint64_t x, uint64_t y) { return uint64_t((u128(x) + qv - y) % qv); }));
      check(
          "negate_mod", [&](Vec& out, Isa isa) { negate_mod(a, out, q, isa); },
          map2(a, a, [&](uint64_t x, uint64_t) { return uint64_t((qv - x) % qv); }));
      check(
          "mul_mod", [&](Vec& out, Isa isa) { mul_mod(a, b, out, q, isa); },
          map2(a, b, [&](uint64_t x, uint64_t y) { return uint64_t(u128(x) * y % qv); }));
      Vec fma_expected(n);
      for (std::size_t i = 0; i < n; ++i)
        fma_expected[i] = uint64_t((u128(a[i]) * b[i] + c[i]) % qv);
      check(
          "fma_mod", [&](Vec& out, Isa isa) { fma_mod(a, b, c, out, q, isa); }, fma_expected);
      for (uint64_t w : {uint64_t{0}, uint64_t{1} % qv, qv - 1, qv / 2, uint64_t(rng() % qv)}) {
        check(
            "mul_scalar_mod", [&](Vec& out, Isa isa) { mul_scalar_mod(a, w, out, q, isa); },
            map2(a, a, [&](uint64_t x, uint64_t) { return uint64_t(u128(x) * w % qv); }));
        check(
            "fma_scalar_mod", [&](Vec& out, Isa isa) { fma_scalar_mod(a, w, c, out, q, isa); },
            map2(a, c, [&](uint64_t x, uint64_t z) { return uint64_t((u128(x) * w + z) % qv); }));
      }
    }
  }
}

TEST(Avx2Eltwise, ReductionsMatchInt128) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(11);
  for (uint64_t qv : test_moduli()) {
    const Modulus q(qv);
    for (std::size_t n : kLengths) {
      const std::string where = "q = " + std::to_string(qv) + ", n = " + std::to_string(n);
      Vec below_2q = random_below(n, 2 * qv, rng), below_4q = random_below(n, 4 * qv, rng);
      Vec any = random_below(n, ~uint64_t{0}, rng);
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t pick = rng() % 6;
        if (pick == 0) below_2q[i] = 2 * qv - 1, below_4q[i] = 4 * qv - 1, any[i] = ~uint64_t{0};
        if (pick == 1) below_2q[i] = qv, below_4q[i] = 2 * qv, any[i] = uint64_t{1} << 63;
        if (pick == 2) below_2q[i] = 0, below_4q[i] = 3 * qv, any[i] = (uint64_t{1} << 63) - 1;
      }
      auto expect_reduced = [&](const char* name, const Vec& input, auto op) {
        Vec out(n), scalar_out(n), in_place = input;
        op(input, out, Isa::avx2);
        op(input, scalar_out, Isa::scalar);
        op(in_place, in_place, Isa::avx2);
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(out[i], input[i] % qv) << name << " of " << input[i] << ", " << where;
        }
        EXPECT_EQ(out, scalar_out) << name << " vs scalar, " << where;
        EXPECT_EQ(in_place, out) << name << " in place, " << where;
      };
      expect_reduced("reduce_from_2q", below_2q,
                     [&](const Vec& in, Vec& out, Isa isa) { reduce_from_2q(in, out, q, isa); });
      expect_reduced("reduce_from_4q", below_4q,
                     [&](const Vec& in, Vec& out, Isa isa) { reduce_from_4q(in, out, q, isa); });
      expect_reduced("reduce_any", any,
                     [&](const Vec& in, Vec& out, Isa isa) { reduce_any(in, out, q, isa); });
    }
  }
}

// out aliasing each input in turn must give the out-of-place result.
TEST(Avx2Eltwise, InPlace) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(13);
  for (uint64_t qv : test_moduli()) {
    const Modulus q(qv);
    for (std::size_t n : {std::size_t{5}, std::size_t{1024}, std::size_t{4099}}) {
      const Vec a = operand(n, qv, rng), b = operand(n, qv, rng), c = operand(n, qv, rng);
      const uint64_t w = rng() % qv;
      Vec expected(n), x;
      const std::string where = "q = " + std::to_string(qv) + ", n = " + std::to_string(n);

      add_mod(a, b, expected, q, Isa::scalar);
      x = a, add_mod(x, b, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "add_mod out = a, " << where;
      x = b, add_mod(a, x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "add_mod out = b, " << where;

      sub_mod(a, b, expected, q, Isa::scalar);
      x = a, sub_mod(x, b, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "sub_mod out = a, " << where;
      x = b, sub_mod(a, x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "sub_mod out = b, " << where;

      negate_mod(a, expected, q, Isa::scalar);
      x = a, negate_mod(x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "negate_mod in place, " << where;

      mul_mod(a, b, expected, q, Isa::scalar);
      x = a, mul_mod(x, b, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "mul_mod out = a, " << where;
      x = b, mul_mod(a, x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "mul_mod out = b, " << where;
      x = a, mul_mod(x, x, x, q, Isa::avx2);
      Vec square(n);
      mul_mod(a, a, square, q, Isa::scalar);
      EXPECT_EQ(x, square) << "mul_mod out = a = b, " << where;

      fma_mod(a, b, c, expected, q, Isa::scalar);
      x = a, fma_mod(x, b, c, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "fma_mod out = a, " << where;
      x = c, fma_mod(a, b, x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "fma_mod out = c, " << where;

      mul_scalar_mod(a, w, expected, q, Isa::scalar);
      x = a, mul_scalar_mod(x, w, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "mul_scalar_mod in place, " << where;

      fma_scalar_mod(a, w, c, expected, q, Isa::scalar);
      x = a, fma_scalar_mod(x, w, c, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "fma_scalar_mod out = a, " << where;
      x = c, fma_scalar_mod(a, w, x, x, q, Isa::avx2);
      EXPECT_EQ(x, expected) << "fma_scalar_mod out = c, " << where;
    }
  }
}

// Outputs and inputs at every offset mod 4 elements, the same or different
// from one another (the kernels peel a scalar head to align the output).
TEST(Avx2Eltwise, Misaligned) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(21);
  const std::size_t n = 37;
  for (uint64_t qv : {(uint64_t{1} << 50) - 27, (uint64_t{1} << 61) - 1}) {
    const Modulus q(qv);
    for (std::size_t out_offset = 0; out_offset < 4; ++out_offset) {
      for (std::size_t in_offset = 0; in_offset < 4; ++in_offset) {
        Vec a_buffer(n + 4), b_buffer(n + 4), c_buffer(n + 4), out_buffer(n + 4, 7);
        const std::span<uint64_t> a(a_buffer.data() + in_offset, n),
            b(b_buffer.data() + in_offset, n), c(c_buffer.data() + in_offset, n),
            out(out_buffer.data() + out_offset, n);
        const Vec av = operand(n, qv, rng), bv = operand(n, qv, rng), cv = operand(n, qv, rng);
        std::copy(av.begin(), av.end(), a.begin());
        std::copy(bv.begin(), bv.end(), b.begin());
        std::copy(cv.begin(), cv.end(), c.begin());
        Vec expected(n);
        const std::string where = "q = " + std::to_string(qv) + ", offsets " +
                                  std::to_string(out_offset) + "/" + std::to_string(in_offset);
        mul_mod(av, bv, expected, q, Isa::scalar);
        mul_mod(a, b, out, q, Isa::avx2);
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
            << "mul_mod " << where;
        fma_mod(av, bv, cv, expected, q, Isa::scalar);
        fma_mod(a, b, c, out, q, Isa::avx2);
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
            << "fma_mod " << where;
        add_mod(av, bv, expected, q, Isa::scalar);
        add_mod(a, b, out, q, Isa::avx2);
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
            << "add_mod " << where;
        fma_scalar_mod(av, bv[0], cv, expected, q, Isa::scalar);
        fma_scalar_mod(a, bv[0], c, out, q, Isa::avx2);
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
            << "fma_scalar_mod " << where;
        EXPECT_EQ(out_buffer[out_offset + n], 7u) << "wrote past the end, " << where;
      }
    }
  }
}

// Under a non-default rounding mode the integer paths also serve q < 2^50,
// down to tiny moduli: check them against int128 there.
TEST(Avx2Eltwise, IntegerPathForSmallModuli) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(23);
  const std::size_t n = 101;
  const int saved = std::fegetround();
  for (uint64_t qv : test_moduli()) {
    const Modulus q(qv);
    const Vec a = operand(n, qv, rng), b = operand(n, qv, rng), c = operand(n, qv, rng);
    const uint64_t w = rng() % qv;
    Vec product(n), fma(n), scaled(n), scaled_fma(n);
    ASSERT_EQ(std::fesetround(FE_TOWARDZERO), 0);
    mul_mod(a, b, product, q, Isa::avx2);
    fma_mod(a, b, c, fma, q, Isa::avx2);
    mul_scalar_mod(a, w, scaled, q, Isa::avx2);
    fma_scalar_mod(a, w, c, scaled_fma, q, Isa::avx2);
    std::fesetround(saved);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(product[i], uint64_t(u128(a[i]) * b[i] % qv)) << "mul_mod q = " << qv;
      ASSERT_EQ(fma[i], uint64_t((u128(a[i]) * b[i] + c[i]) % qv)) << "fma_mod q = " << qv;
      ASSERT_EQ(scaled[i], uint64_t(u128(a[i]) * w % qv)) << "mul_scalar_mod q = " << qv;
      ASSERT_EQ(scaled_fma[i], uint64_t((u128(a[i]) * w + c[i]) % qv))
          << "fma_scalar_mod q = " << qv;
    }
  }
}

// The same for the two sums (key switching's inner product, base
// conversion's weighted sum): under a non-default rounding mode their split
// and wide integer paths take every modulus, with term counts past the split
// sums' chunk of 8 terms at 60 bits.
TEST(Avx2Eltwise, IntegerSumsForEveryModulus) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(29);
  const std::size_t n = 101;
  const int saved = std::fegetround();
  for (uint64_t qv : test_moduli()) {
    const Modulus q(qv);
    const int q_bits = 64 - __builtin_clzll(qv);
    for (std::size_t terms : {1, 8, 17}) {
      std::vector<Vec> x(terms), b(terms), a(terms);
      for (std::size_t j = 0; j < terms; ++j) {
        x[j] = operand(n, qv, rng);
        b[j] = operand(n, qv, rng);
        a[j] = operand(n, qv, rng);
      }
      const std::vector<std::span<const uint64_t>> xs(x.begin(), x.end()), bs(b.begin(), b.end()),
          as(a.begin(), a.end());
      Vec out0(n), out1(n);
      ASSERT_EQ(std::fesetround(FE_TOWARDZERO), 0);
      dot_product_pair(xs, bs, as, out0, out1, q, Isa::avx2);
      std::fesetround(saved);
      for (std::size_t i = 0; i < n; ++i) {
        u128 sum0 = 0, sum1 = 0;
        for (std::size_t j = 0; j < terms; ++j) {
          sum0 = (sum0 + u128(x[j][i]) * b[j][i]) % qv;
          sum1 = (sum1 + u128(x[j][i]) * a[j][i]) % qv;
        }
        ASSERT_EQ(out0[i], uint64_t(sum0)) << "dot_product_pair q = " << qv << " k = " << terms;
        ASSERT_EQ(out1[i], uint64_t(sum1)) << "dot_product_pair q = " << qv << " k = " << terms;
      }
      for (int input_bits : {std::min(q_bits, 61), 60}) {
        const std::size_t stride = n + 5;
        Vec rows = random_below(terms * stride, uint64_t{1} << input_bits, rng);
        rows[0] = (uint64_t{1} << input_bits) - 1;
        const FixedWeights weights(operand(terms, qv, rng), q);
        Vec out(n);
        ASSERT_EQ(std::fesetround(FE_TOWARDZERO), 0);
        weighted_sum_mod(rows, stride, weights, out, input_bits, Isa::avx2);
        std::fesetround(saved);
        for (std::size_t c = 0; c < n; ++c) {
          u128 sum = 0;
          for (std::size_t i = 0; i < terms; ++i)
            sum = (sum + u128(rows[i * stride + c]) * weights.weights()[i]) % qv;
          ASSERT_EQ(out[c], uint64_t(sum)) << "weighted_sum_mod q = " << qv << " k = " << terms
                                           << " input_bits = " << input_bits;
        }
      }
    }
  }
}

// The double-precision products (q < 2^50) rest on rounding-error bounds;
// hammer them with many moduli just below 2^50 and worst-case operands.
TEST(Avx2Eltwise, DoublePathStress) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(17);
  const std::size_t n = 256;
  for (int trial = 0; trial < 400; ++trial) {
    const int bits = 2 + static_cast<int>(rng() % 49);  // q in [2, 2^50)
    uint64_t qv = (uint64_t{1} << (bits - 1)) + rng() % (uint64_t{1} << (bits - 1));
    if (trial % 4 == 0) qv = (uint64_t{1} << 50) - 1 - rng() % 1000;
    if (qv < 2) qv = 2;
    const Modulus q(qv);
    Vec a = operand(n, qv, rng), b = operand(n, qv, rng), c = operand(n, qv, rng);
    for (std::size_t i = 0; i < n; i += 3)
      a[i] = qv - 1 - rng() % 4 % qv;
    Vec out(n), expected(n);
    mul_mod(a, b, out, q, Isa::avx2);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = uint64_t(u128(a[i]) * b[i] % qv);
    ASSERT_EQ(out, expected) << "mul_mod q = " << qv;
    fma_mod(a, b, c, out, q, Isa::avx2);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = uint64_t((u128(a[i]) * b[i] + c[i]) % qv);
    ASSERT_EQ(out, expected) << "fma_mod q = " << qv;
    const uint64_t w = trial % 2 ? qv - 1 : rng() % qv;
    mul_scalar_mod(a, w, out, q, Isa::avx2);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = uint64_t(u128(a[i]) * w % qv);
    ASSERT_EQ(out, expected) << "mul_scalar_mod q = " << qv << ", w = " << w;
    fma_scalar_mod(a, w, c, out, q, Isa::avx2);
    for (std::size_t i = 0; i < n; ++i)
      expected[i] = uint64_t((u128(a[i]) * w + c[i]) % qv);
    ASSERT_EQ(out, expected) << "fma_scalar_mod q = " << qv << ", w = " << w;
  }
}

}  // namespace
}  // namespace heft::math
