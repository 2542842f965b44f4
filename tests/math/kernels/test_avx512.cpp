// The avx512 and ifma kernel levels against the scalar reference (and, for
// element-wise operations, against plain unsigned __int128 arithmetic).
//
// Each level runs twice when possible: its SIMDe-emulated build
// (avx512_emulated / ifma_emulated, whenever the tests were built with SIMDe),
// which checks the vector logic on any CPU, and its native build, which runs
// only on CPUs that have the instructions (skipped elsewhere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/ring/automorphism.hpp"
#include "math/kernels/composed_kernels.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {
namespace {

using kernels::KernelTable;
using kernels::ModulusData;
using u128 = unsigned __int128;

struct Level {
  KernelTable kernels;
  Isa isa;      // the instruction set the level is written for
  bool native;  // compiled for that instruction set (else SIMDe emulation)
};

// gtest prints parameters of failed tests; show the level's name.
void PrintTo(const Level& level, std::ostream* os) {
  *os << level.kernels.name;
}

std::vector<Level> all_levels() {
  std::vector<Level> levels = {{HEFT_AVX512_KERNEL_TABLE(avx512), Isa::avx512, true},
                               {HEFT_IFMA_KERNEL_TABLE(ifma), Isa::ifma, true}};
#ifdef HEFT_HAVE_EMULATED_KERNELS
  levels.push_back({HEFT_AVX512_KERNEL_TABLE(avx512_emulated), Isa::avx512, false});
  levels.push_back({HEFT_IFMA_KERNEL_TABLE(ifma_emulated), Isa::ifma, false});
#endif
  return levels;
}

const KernelTable kScalar = HEFT_KERNEL_TABLE(scalar);

// Bit sizes of the NTT primes per level: ifma's element-wise kernels only
// take q < 2^50 (its 50-bit prime is the largest NTT prime below 2^50).
std::vector<int> prime_bits(Isa isa) {
  if (isa == Isa::ifma) return {30, 40, 49, 50};
  return {30, 40, 49, 50, 55, 60, 61};
}

// The ifma level's transforms take any q: 52-bit butterflies below 2^50,
// 64-bit ones with an IFMA-made quotient from 2^50 to 2^55 (51 to 55 bits),
// the avx512 level's above (56 bits and more).
std::vector<int> ntt_prime_bits(Isa isa) {
  if (isa == Isa::ifma) return {30, 40, 49, 50, 51, 53, 55, 56, 60};
  return prime_bits(isa);
}

// Extra moduli for element-wise operations (no NTT structure needed): tiny
// ones, a power of two, and odd composites at the top of each level's range.
std::vector<uint64_t> extra_moduli(Isa isa) {
  std::vector<uint64_t> moduli = {2, 3, 5, 1024, 12289, (uint64_t{1} << 50) - 1};
  if (isa == Isa::avx512) moduli.push_back((uint64_t{1} << 61) - 1);
  return moduli;
}

ModulusData modulus_data(const Modulus& q) {
  return {q.value(), q.barrett_hi(), q.barrett_lo(), q.barrett64()};
}

// Equal vectors, or a message with the first difference and the count.
::testing::AssertionResult same_values(const std::vector<uint64_t>& expected,
                                       const std::vector<uint64_t>& actual) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << "sizes " << expected.size() << " vs " << actual.size();
  }
  std::size_t mismatches = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != actual[i] && mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << mismatches << " of " << expected.size() << " values differ; first at " << first
         << ": expected " << expected[first] << ", got " << actual[first];
}

class KernelLevelTest : public ::testing::TestWithParam<Level> {
 protected:
  void SetUp() override {
    const Level& level = GetParam();
    if (level.native && !isa_supported(level.isa)) {
      GTEST_SKIP() << "this CPU lacks " << to_string(level.isa)
                   << "; its logic is covered by the emulated build";
    }
  }

 public:
  const KernelTable& kernels() const { return GetParam().kernels; }
  Isa isa() const { return GetParam().isa; }

  std::mt19937_64 rng_{0x5eed'ab12'cd34'ef56ULL};
  uint64_t uniform(uint64_t bound) {  // [0, bound)
    return std::uniform_int_distribution<uint64_t>(0, bound - 1)(rng_);
  }
};

// ---------------------------------------------------------------- NTT

enum class Direction { forward, inverse };

// Runs the level and scalar on the same input and compares the outputs; also
// checks the level's output is fully reduced.
::testing::AssertionResult ntt_matches_scalar(const KernelTable& level, const NttTables& tables,
                                              Direction direction,
                                              const std::vector<uint64_t>& input) {
  std::vector<uint64_t> expected = input, actual = input;
  if (direction == Direction::forward) {
    kScalar.ntt_forward(expected.data(), tables.data());
    level.ntt_forward(actual.data(), tables.data());
  } else {
    kScalar.ntt_inverse(expected.data(), tables.data());
    level.ntt_inverse(actual.data(), tables.data());
  }
  const uint64_t q = tables.modulus().value();
  for (uint64_t v : actual) {
    if (v >= q) return ::testing::AssertionFailure() << "unreduced output " << v;
  }
  return same_values(expected, actual);
}

// Random inputs over the whole allowed range, every N = 2^3 .. 2^17 and
// every prime size. Emulation is slow, so large N get fewer repetitions.
void check_random_ntt(KernelLevelTest& test, const KernelTable& level, Isa isa,
                      Direction direction) {
  for (int log_n = 3; log_n <= 17; ++log_n) {
    const uint64_t n = uint64_t{1} << log_n;
    const int repetitions = log_n <= 10 ? 10 : log_n <= 14 ? 3 : 2;
    for (int bits : ntt_prime_bits(isa)) {
      const Modulus q = generate_ntt_primes(bits, n, 1).front();
      const NttTables tables(n, q);
      const uint64_t bound = (direction == Direction::forward ? 4 : 2) * q.value();
      for (int rep = 0; rep < repetitions; ++rep) {
        std::vector<uint64_t> input(n);
        for (auto& v : input)
          v = test.uniform(bound);
        EXPECT_TRUE(ntt_matches_scalar(level, tables, direction, input))
            << level.name << " N = " << n << ", q = " << q.value() << " (" << bits << " bits)";
      }
    }
  }
}

TEST_P(KernelLevelTest, NttForwardRandom) {
  check_random_ntt(*this, kernels(), isa(), Direction::forward);
}

TEST_P(KernelLevelTest, NttInverseRandom) {
  check_random_ntt(*this, kernels(), isa(), Direction::inverse);
}

// Inputs at the ends of the allowed ranges: all 0, all q - 1, all at the
// upper bound (4q - 1 forward, 2q - 1 inverse), and mixes of boundary values.
TEST_P(KernelLevelTest, NttEdgeInputs) {
  for (int log_n = 3; log_n <= 17; ++log_n) {
    const uint64_t n = uint64_t{1} << log_n;
    for (int bits : ntt_prime_bits(isa())) {
      const Modulus q = generate_ntt_primes(bits, n, 1).front();
      const uint64_t qv = q.value();
      const NttTables tables(n, q);
      for (Direction direction : {Direction::forward, Direction::inverse}) {
        const uint64_t top = (direction == Direction::forward ? 4 : 2) * qv - 1;
        const std::vector<uint64_t> specials =
            direction == Direction::forward
                ? std::vector<uint64_t>{0, 1, qv - 1, qv, 2 * qv - 1, 2 * qv, 3 * qv, top}
                : std::vector<uint64_t>{0, 1, qv - 1, qv, 2 * qv - 1};
        std::vector<std::vector<uint64_t>> inputs = {std::vector<uint64_t>(n, 0),
                                                     std::vector<uint64_t>(n, qv - 1),
                                                     std::vector<uint64_t>(n, top)};
        std::vector<uint64_t> alternating(n), mixed(n);
        for (uint64_t i = 0; i < n; ++i) {
          alternating[i] = (i & 1) != 0 ? top : 0;
          mixed[i] = specials[uniform(specials.size())];
        }
        inputs.push_back(alternating);
        inputs.push_back(mixed);
        for (const auto& input : inputs) {
          EXPECT_TRUE(ntt_matches_scalar(kernels(), tables, direction, input))
              << kernels().name << (direction == Direction::forward ? " forward" : " inverse")
              << " N = " << n << ", q = " << qv << ", input[0..1] = " << input[0] << ", "
              << input[1];
        }
      }
    }
  }
}

// inverse(forward(a)) = a, independently of the scalar code.
TEST_P(KernelLevelTest, NttRoundTrip) {
  for (int log_n : {3, 4, 5, 6, 7, 11, 12}) {
    const uint64_t n = uint64_t{1} << log_n;
    for (int bits : ntt_prime_bits(isa())) {
      const Modulus q = generate_ntt_primes(bits, n, 1).front();
      const NttTables tables(n, q);
      std::vector<uint64_t> original(n);
      for (auto& v : original)
        v = uniform(q.value());
      std::vector<uint64_t> values = original;
      kernels().ntt_forward(values.data(), tables.data());
      kernels().ntt_inverse(values.data(), tables.data());
      EXPECT_TRUE(same_values(original, values)) << kernels().name << " N = " << n;
    }
  }
}

// ---------------------------------------------------------------- element-wise

const std::size_t kSizes[] = {0, 1, 7, 8, 9, 17, 1024, 4099};

// Values in [0, bound) with the given edge values planted at the ends and at
// random places.
std::vector<uint64_t> values_with_edges(KernelLevelTest& test, std::size_t n, uint64_t bound,
                                        const std::vector<uint64_t>& edges) {
  std::vector<uint64_t> v(n);
  for (auto& x : v)
    x = test.uniform(bound);
  for (std::size_t i = 0; i < n && i < edges.size(); ++i) {
    v[i] = edges[i];
    v[n - 1 - i] = edges[edges.size() - 1 - i];
  }
  for (std::size_t i = 0; i < n / 8; ++i)
    v[test.uniform(n)] = edges[test.uniform(edges.size())];
  return v;
}

struct EltwiseCase {
  Modulus q;
  std::vector<uint64_t> a, b, c;
};

std::vector<Modulus> eltwise_moduli(Isa isa) {
  std::vector<Modulus> moduli;
  for (int bits : prime_bits(isa))
    moduli.push_back(generate_ntt_primes(bits, 8, 1).front());
  for (uint64_t q : extra_moduli(isa))
    moduli.emplace_back(q);
  return moduli;
}

// Calls `op(out, a, b, c)` for a fresh output and for outputs aliasing each
// input in `aliasable` (0 = a, 1 = b, 2 = c); all must give `expected`.
template <class Op>
void check_op(const char* name, const std::vector<uint64_t>& expected,
              const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
              const std::vector<uint64_t>& c, std::initializer_list<int> aliasable, Op op,
              const std::string& context) {
  std::vector<uint64_t> out(a.size(), 0xdead'beef'dead'beefULL);
  op(out.data(), a.data(), b.data(), c.data());
  EXPECT_TRUE(same_values(expected, out)) << name << " " << context;
  for (int which : aliasable) {
    std::vector<uint64_t> x = a, y = b, z = c;
    uint64_t* target = which == 0 ? x.data() : which == 1 ? y.data() : z.data();
    op(target, x.data(), y.data(), z.data());
    const std::vector<uint64_t>& result = which == 0 ? x : which == 1 ? y : z;
    EXPECT_TRUE(same_values(expected, result))
        << name << " in place (operand " << which << ") " << context;
  }
}

// The levels' own out-of-place transforms (and the composed copy-then-
// transform form) equal the in-place ones and leave the input as it was, at
// every N, including the sizes below one 16-value block and those whose first
// pass is a radix-2 or a radix-4 one.
TEST_P(KernelLevelTest, OutOfPlaceNtt) {
  const KernelTable& level = kernels();
  ASSERT_NE(level.ntt_forward_from, nullptr);
  ASSERT_NE(level.ntt_inverse_from, nullptr);
  for (int bits : ntt_prime_bits(isa())) {
    for (uint64_t n : {8, 16, 32, 64, 1024, 2048}) {
      const Modulus q = generate_ntt_primes(bits, n, 1)[0];
      const NttTables tables(n, q);
      for (bool forward : {true, false}) {
        std::vector<uint64_t> input(n);
        for (auto& v : input)
          v = uniform((forward ? 4 : 2) * q.value());  // the transforms' lazy input ranges
        const std::vector<uint64_t> kept = input;
        std::vector<uint64_t> in_place = input, output(n, 0), composed(n, 0);
        const auto transform = forward ? level.ntt_forward : level.ntt_inverse;
        const auto transform_from = forward ? level.ntt_forward_from : level.ntt_inverse_from;
        transform(in_place.data(), tables.data());
        transform_from(output.data(), input.data(), tables.data());
        kernels::transform_from(transform, composed.data(), input.data(), tables.data());
        EXPECT_EQ(output, in_place)
            << level.name << " bits=" << bits << " n=" << n << " forward=" << forward;
        EXPECT_EQ(composed, in_place) << level.name << " bits=" << bits << " n=" << n;
        EXPECT_EQ(input, kept);
      }
    }
  }
}

// The shifted forward transform against the scalar transform of the
// shifted values reduced with __int128 (an independent reduction), at every
// N from below one superblock to the sizes whose first pass is radix-2 or
// radix-4, with inputs up to 3q - 1 and shifts 0, 1, q - 1 and random; in
// place and out of place, and the composed form for the levels without one.
TEST_P(KernelLevelTest, ShiftedNtt) {
  const KernelTable& level = kernels();
  ASSERT_NE(level.ntt_forward_shifted_from, nullptr);
  for (int bits : ntt_prime_bits(isa())) {
    for (uint64_t n : {8, 16, 32, 64, 128, 256, 2048, 4096}) {
      const Modulus modulus = generate_ntt_primes(bits, n, 1)[0];
      const uint64_t q = modulus.value();
      const NttTables tables(n, modulus);
      for (uint64_t shift : {uint64_t{0}, uint64_t{1}, q - 1, uniform(q)}) {
        std::vector<uint64_t> input(n);
        for (auto& v : input)
          v = uniform(3 * q);
        input[n - 1] = 3 * q - 1;
        std::vector<uint64_t> expected(n);
        for (uint64_t i = 0; i < n; ++i)
          expected[i] = static_cast<uint64_t>((u128{input[i]} + shift) % q);
        kScalar.ntt_forward(expected.data(), tables.data());
        const std::vector<uint64_t> kept = input;
        std::vector<uint64_t> output(n, 0), in_place = input, composed(n, 0);
        level.ntt_forward_shifted_from(output.data(), input.data(), shift, tables.data());
        level.ntt_forward_shifted_from(in_place.data(), in_place.data(), shift, tables.data());
        kernels::shifted_transform_from(kScalar.ntt_forward, composed.data(), input.data(), shift,
                                        tables.data());
        EXPECT_EQ(output, expected)
            << level.name << " bits=" << bits << " n=" << n << " shift=" << shift;
        EXPECT_EQ(in_place, expected) << level.name << " bits=" << bits << " n=" << n;
        EXPECT_EQ(composed, expected) << "composed, bits=" << bits << " n=" << n;
        EXPECT_EQ(input, kept);
      }
    }
  }
}

// dot_product_pair over `terms` equal terms x (q - 1) (= -x mod q) added to
// carried-in outputs 8q - 1, checked against the exact sum mod q.
::testing::AssertionResult largest_terms_sum_is_exact(const KernelTable& level, const Modulus& q,
                                                      uint64_t x, std::size_t terms, bool lazy) {
  const uint64_t qv = q.value();
  const std::size_t n = 24;
  const std::vector<uint64_t> x_row(n, x), key_row(n, qv - 1);
  const std::vector<const uint64_t*> xs(terms, x_row.data()), keys(terms, key_row.data());
  std::vector<uint64_t> out0(n, 8 * qv - 1), out1(n, 8 * qv - 1);
  level.dot_product_pair(out0.data(), out1.data(), xs.data(), keys.data(), keys.data(), terms, n,
                         modulus_data(q), /*accumulate=*/true, lazy);
  const uint64_t expected = static_cast<uint64_t>((u128{8} * qv - 1 + terms * u128{qv - x}) % qv);
  for (std::size_t i = 0; i < n; ++i) {
    for (const uint64_t out : {out0[i], out1[i]}) {
      if (out >= (lazy ? 8 * qv : qv) || out % qv != expected) {
        return ::testing::AssertionFailure()
               << "q=" << qv << " x=" << x << " k=" << terms << " lazy=" << lazy << ": got " << out
               << ", expected " << expected << " mod q";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// x just below q with x = r mod 16: x (q - 1) / q = x - 1 + (q - x) / q lies
// about r - 1 past a multiple of 16 (q - 1 itself for tiny q).
uint64_t below_q_with_residue(uint64_t q, uint64_t r) {
  return q > 32 ? (q - 18) / 16 * 16 + r : q - 1;
}

// The largest terms and sums: with x = 9 mod 16 every product is about 8 past
// a multiple of 16, where avx512's floating-point quotients (q < 2^55,
// rounded to multiples of 16) leave their largest remainders, all of one
// sign: near -8q per term, so that 40 terms without the fold every 8 would
// leave the 64-bit sums at the 55-bit prime.
TEST_P(KernelLevelTest, DotProductPairLargestTerms) {
  for (const Modulus& q : eltwise_moduli(isa())) {
    for (const bool lazy : {false, true}) {
      for (std::size_t terms : {1, 2, 7, 8, 9, 16, 17, 40}) {
        EXPECT_TRUE(largest_terms_sum_is_exact(kernels(), q, below_q_with_residue(q.value(), 9),
                                               terms, lazy))
            << kernels().name;
      }
    }
  }
}

// Exact sums whatever rounding mode the caller has set (the quotients carry
// round-to-nearest in their encoding and 1/q is rounded in integers), with
// the largest errors of directed rounding (x = 1 mod 16: products just past a
// multiple of 16) and of nearest (x = 9 mod 16). Native levels only: the
// emulation's conversions follow the current mode.
TEST_P(KernelLevelTest, DotProductPairAnyRoundingMode) {
  if (!GetParam().native) GTEST_SKIP() << "the emulated conversions follow the current mode";
  struct RestoreRounding {
    ~RestoreRounding() { std::fesetround(FE_TONEAREST); }
  } restore;
  for (int mode : {FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD}) {
    for (const Modulus& q : eltwise_moduli(isa())) {
      for (uint64_t residue : {1, 9}) {
        std::fesetround(mode);
        const auto result = largest_terms_sum_is_exact(
            kernels(), q, below_q_with_residue(q.value(), residue), 40, /*lazy=*/false);
        std::fesetround(FE_TONEAREST);
        EXPECT_TRUE(result) << kernels().name << " rounding mode " << mode;
      }
    }
  }
}

TEST_P(KernelLevelTest, DotProductPair) {
  const KernelTable& level = kernels();
  for (const Modulus& q : eltwise_moduli(isa())) {
    const uint64_t qv = q.value();
    const ModulusData md = modulus_data(q);
    const std::vector<uint64_t> edges = {0, qv - 1, qv / 2, 1 % qv};
    // Carried-in outputs may be anywhere below 8q (a lazy earlier part).
    const std::vector<uint64_t> carried_edges = {0, qv - 1, qv, 8 * qv - 1, 4 * qv};
    // Around ifma's fold every 8 terms and the split sums' chunks of 8 (60
    // bits) and 16 / 15 (59 bits), and none at all; overwriting the outputs,
    // and adding to their values (accumulate); fully reduced or lazy outputs.
    for (const bool accumulate : {false, true}) {
      for (const bool lazy : {false, true}) {
        for (std::size_t terms : {0, 1, 5, 8, 9, 16, 17, 25}) {
          const std::size_t n = 1027;  // blocks of 512 and a masked tail
          std::vector<std::vector<uint64_t>> x, b, a;
          std::vector<const uint64_t*> xp, bp, ap;
          for (std::size_t j = 0; j < terms; ++j) {
            x.push_back(values_with_edges(*this, n, qv, edges));
            b.push_back(values_with_edges(*this, n, qv, edges));
            a.push_back(values_with_edges(*this, n, qv, edges));
            xp.push_back(x.back().data());
            bp.push_back(b.back().data());
            ap.push_back(a.back().data());
          }
          // With accumulate the sums start from the outputs' values.
          const std::vector<uint64_t> start0 = values_with_edges(*this, n, 8 * qv, carried_edges);
          const std::vector<uint64_t> start1 = values_with_edges(*this, n, 8 * qv, carried_edges);
          std::vector<uint64_t> out0 = start0, out1 = start1;
          level.dot_product_pair(out0.data(), out1.data(), xp.data(), bp.data(), ap.data(), terms,
                                 n, md, accumulate, lazy);
          for (std::size_t i = 0; i < n; ++i) {
            u128 sum0 = accumulate ? start0[i] : 0, sum1 = accumulate ? start1[i] : 0;
            for (std::size_t j = 0; j < terms; ++j) {
              sum0 = (sum0 + u128{x[j][i]} * b[j][i]) % qv;
              sum1 = (sum1 + u128{x[j][i]} * a[j][i]) % qv;
            }
            sum0 %= qv;
            sum1 %= qv;
            // Lazy outputs: below 8q and congruent; otherwise exactly the sums.
            const uint64_t bound = lazy ? 8 * qv : qv;
            ASSERT_LT(out0[i], bound) << level.name << " q=" << qv << " k=" << terms
                                      << " accumulate=" << accumulate << " lazy=" << lazy;
            ASSERT_LT(out1[i], bound) << level.name << " q=" << qv << " k=" << terms
                                      << " accumulate=" << accumulate << " lazy=" << lazy;
            ASSERT_EQ(out0[i] % qv, static_cast<uint64_t>(sum0))
                << level.name << " q=" << qv << " k=" << terms << " accumulate=" << accumulate
                << " lazy=" << lazy << " i=" << i;
            ASSERT_EQ(out1[i] % qv, static_cast<uint64_t>(sum1))
                << level.name << " q=" << qv << " k=" << terms << " accumulate=" << accumulate
                << " lazy=" << lazy << " i=" << i;
          }
        }
      }
    }
  }
}

TEST_P(KernelLevelTest, WeightedSum) {
  const KernelTable& level = kernels();
  for (const Modulus& q : eltwise_moduli(isa())) {
    const uint64_t qv = q.value();
    const ModulusData md = modulus_data(q);
    // 9 terms: one group below 55 bits; 70: several groups and a second
    // chunk of the floating-point path, and longer sums for the others.
    for (const auto [input_bits, terms] :
         {std::pair{static_cast<uint32_t>(q.bit_count()), std::size_t{9}}, std::pair{50u, 9ul},
          std::pair{55u, 9ul}, std::pair{61u, 9ul},
          std::pair{static_cast<uint32_t>(q.bit_count()), std::size_t{70}}}) {
      const std::size_t n = 300, stride = 301, column = 1;
      const uint64_t bound = uint64_t{1} << input_bits;
      // Inputs may exceed q (residues of other primes) but not 2^input_bits.
      std::vector<uint64_t> edges = {0, bound - 1, bound / 2};
      for (uint64_t edge : {qv - 1, qv}) {
        if (edge < bound) edges.push_back(edge);
      }
      std::vector<uint64_t> rows;
      for (std::size_t i = 0; i < terms; ++i) {
        const std::vector<uint64_t> row = values_with_edges(*this, stride, bound, edges);
        rows.insert(rows.end(), row.begin(), row.end());
      }
      const std::vector<uint64_t> weights = values_with_edges(*this, terms, qv, {0, qv - 1});
      std::vector<uint64_t> shoup;
      for (uint64_t w : weights)
        shoup.push_back(q.shoup(w));
      std::vector<const uint64_t*> row_pointers;
      for (std::size_t i = 0; i < terms; ++i)
        row_pointers.push_back(rows.data() + i * stride);
      std::vector<uint64_t> out(n - column);
      level.weighted_sum_mod(out.data(), row_pointers.data(), column, weights.data(), shoup.data(),
                             terms, n - column, input_bits, md);
      for (std::size_t c = 0; c + column < n; ++c) {
        u128 sum = 0;
        for (std::size_t i = 0; i < terms; ++i)
          sum = (sum + u128{rows[i * stride + column + c]} * weights[i]) % qv;
        ASSERT_EQ(out[c], static_cast<uint64_t>(sum))
            << level.name << " q=" << qv << " k=" << terms << " c=" << c;
      }
    }
  }
}

// The scaled sum in doubles (base conversion's alpha estimate) against the
// scalar sum of the same terms: within a few roundings per term.
TEST_P(KernelLevelTest, ScaledSumDouble) {
  const KernelTable& level = kernels();
  ASSERT_NE(level.scaled_sum_double, nullptr);
  for (uint64_t bound_bits : {30u, 50u, 55u, 61u}) {
    const uint64_t bound = uint64_t{1} << bound_bits;
    for (std::size_t terms : {0, 1, 9, 20}) {
      const std::size_t n = 300, stride = 301;
      std::vector<uint64_t> rows;
      for (std::size_t i = 0; i < terms; ++i) {
        const std::vector<uint64_t> row =
            values_with_edges(*this, stride, bound, {0, bound - 1, bound / 2});
        rows.insert(rows.end(), row.begin(), row.end());
      }
      std::vector<double> factors;
      for (std::size_t i = 0; i < terms; ++i)
        factors.push_back(1.0 / static_cast<double>(bound - 1 - 6 * i));
      std::vector<double> sums(n, -1.0);
      level.scaled_sum_double(sums.data(), rows.data(), stride, factors.data(), terms, n);
      for (std::size_t c = 0; c < n; ++c) {
        long double exact = 0;
        for (std::size_t i = 0; i < terms; ++i)
          exact += static_cast<long double>(rows[i * stride + c]) * factors[i];
        const double k = static_cast<double>(terms);
        ASSERT_LE(std::fabs(static_cast<long double>(sums[c]) - exact),
                  (3 * k + k * k) * 0x1p-53 * (exact + 1e-300L))
            << level.name << " bits=" << bound_bits << " k=" << terms << " c=" << c;
      }
    }
  }
}

TEST_P(KernelLevelTest, Eltwise) {
  const KernelTable& level = kernels();
  for (const Modulus& q : eltwise_moduli(isa())) {
    const uint64_t qv = q.value();
    const ModulusData md = modulus_data(q);
    const std::vector<uint64_t> edges = {0, qv - 1, qv / 2, 1 % qv, qv - 1, 0};
    for (std::size_t n : kSizes) {
      const std::string context =
          std::string(level.name) + " q = " + std::to_string(qv) + ", n = " + std::to_string(n);
      const std::vector<uint64_t> a = values_with_edges(*this, n, qv, edges);
      const std::vector<uint64_t> b = values_with_edges(*this, n, qv, edges);
      const std::vector<uint64_t> c = values_with_edges(*this, n, qv, edges);
      std::vector<uint64_t> ref(n), expected(n);

      // Reference = __int128 arithmetic; the scalar kernel must agree with it too.
      auto check = [&](const char* name, std::initializer_list<int> aliasable, auto reference,
                       auto scalar_op, auto level_op) {
        for (std::size_t i = 0; i < n; ++i)
          ref[i] = reference(a[i], b[i], c[i]);
        scalar_op(expected.data(), a.data(), b.data(), c.data());
        ASSERT_TRUE(same_values(ref, expected)) << "scalar " << name << " " << context;
        check_op(name, ref, a, b, c, aliasable, level_op, context);
      };
      using P = uint64_t*;
      using C = const uint64_t*;
      check(
          "add_mod", {0, 1},
          [&](uint64_t x, uint64_t y, uint64_t) {
            return static_cast<uint64_t>((u128{x} + y) % qv);
          },
          [&](P o, C x, C y, C) { kScalar.add_mod(o, x, y, n, qv); },
          [&](P o, C x, C y, C) { level.add_mod(o, x, y, n, qv); });
      check(
          "sub_mod", {0, 1},
          [&](uint64_t x, uint64_t y, uint64_t) {
            return static_cast<uint64_t>((u128{x} + qv - y) % qv);
          },
          [&](P o, C x, C y, C) { kScalar.sub_mod(o, x, y, n, qv); },
          [&](P o, C x, C y, C) { level.sub_mod(o, x, y, n, qv); });
      check(
          "negate_mod", {0},
          [&](uint64_t x, uint64_t, uint64_t) { return static_cast<uint64_t>((qv - x) % qv); },
          [&](P o, C x, C, C) { kScalar.negate_mod(o, x, n, qv); },
          [&](P o, C x, C, C) { level.negate_mod(o, x, n, qv); });
      check(
          "mul_mod", {0, 1},
          [&](uint64_t x, uint64_t y, uint64_t) { return static_cast<uint64_t>(u128{x} * y % qv); },
          [&](P o, C x, C y, C) { kScalar.mul_mod(o, x, y, n, md); },
          [&](P o, C x, C y, C) { level.mul_mod(o, x, y, n, md); });
      check(
          "fma_mod", {0, 1, 2},
          [&](uint64_t x, uint64_t y, uint64_t z) {
            return static_cast<uint64_t>((u128{x} * y + z) % qv);
          },
          [&](P o, C x, C y, C z) { kScalar.fma_mod(o, x, y, z, n, md); },
          [&](P o, C x, C y, C z) { level.fma_mod(o, x, y, z, n, md); });
      for (uint64_t w : {uint64_t{0}, 1 % qv, qv - 1, qv / 2, uniform(qv)}) {
        const uint64_t w_shoup = q.shoup(w);
        check(
            "mul_scalar_mod", {0},
            [&](uint64_t x, uint64_t, uint64_t) { return static_cast<uint64_t>(u128{x} * w % qv); },
            [&](P o, C x, C, C) { kScalar.mul_scalar_mod(o, x, w, w_shoup, n, qv); },
            [&](P o, C x, C, C) { level.mul_scalar_mod(o, x, w, w_shoup, n, qv); });
        check(
            "fma_scalar_mod", {0, 2},
            [&](uint64_t x, uint64_t, uint64_t z) {
              return static_cast<uint64_t>((u128{x} * w + z) % qv);
            },
            [&](P o, C x, C, C z) { kScalar.fma_scalar_mod(o, x, w, w_shoup, z, n, qv); },
            [&](P o, C x, C, C z) { level.fma_scalar_mod(o, x, w, w_shoup, z, n, qv); });
        check(
            "sub_mul_scalar_mod", {0, 1},
            [&](uint64_t x, uint64_t y, uint64_t) {
              return static_cast<uint64_t>((u128{x} + qv - y) * w % qv);
            },
            [&](P o, C x, C y, C) {
              kScalar.sub_mul_scalar_mod(o, x, y, w, w_shoup, nullptr, n, qv);
            },
            [&](P o, C x, C y, C) {
              level.sub_mul_scalar_mod(o, x, y, w, w_shoup, nullptr, n, qv);
            });
        check(
            "sub_mul_scalar_mod with addend", {0, 1, 2},
            [&](uint64_t x, uint64_t y, uint64_t z) {
              return static_cast<uint64_t>(((u128{x} + qv - y) * w + z) % qv);
            },
            [&](P o, C x, C y, C z) { kScalar.sub_mul_scalar_mod(o, x, y, w, w_shoup, z, n, qv); },
            [&](P o, C x, C y, C z) { level.sub_mul_scalar_mod(o, x, y, w, w_shoup, z, n, qv); });
      }
    }
  }
}

TEST_P(KernelLevelTest, Reductions) {
  const KernelTable& level = kernels();
  for (const Modulus& q : eltwise_moduli(isa())) {
    const uint64_t qv = q.value();
    const ModulusData md = modulus_data(q);
    for (std::size_t n : kSizes) {
      const std::string context =
          std::string(level.name) + " q = " + std::to_string(qv) + ", n = " + std::to_string(n);
      struct Case {
        const char* name;
        uint64_t bound;  // 0: any 64-bit word
        std::vector<uint64_t> edges;
      };
      const Case cases[] = {
          {"reduce_from_2q", 2 * qv, {0, qv - 1, qv, 2 * qv - 1}},
          {"reduce_from_4q", 4 * qv, {0, qv - 1, qv, 2 * qv - 1, 2 * qv, 3 * qv, 4 * qv - 1}},
          {"reduce_any", 0, {0, qv - 1, qv, ~uint64_t{0}, uint64_t{1} << 63, ~uint64_t{0} - qv}},
      };
      for (const Case& test_case : cases) {
        std::vector<uint64_t> a;
        if (test_case.bound != 0) {
          a = values_with_edges(*this, n, test_case.bound, test_case.edges);
        } else {
          a = values_with_edges(*this, n, ~uint64_t{0}, test_case.edges);
          for (std::size_t i = 0; i < n; i += 3)
            a[i] = rng_();  // the full 64-bit range
        }
        std::vector<uint64_t> ref(n), expected(n);
        for (std::size_t i = 0; i < n; ++i)
          ref[i] = a[i] % qv;
        const std::string name = test_case.name;
        auto run = [&](const KernelTable& k, uint64_t* out, const uint64_t* in) {
          if (name == "reduce_from_2q") {
            k.reduce_from_2q(out, in, n, qv);
          } else if (name == "reduce_from_4q") {
            k.reduce_from_4q(out, in, n, qv);
          } else {
            k.reduce_any(out, in, n, md);
          }
        };
        run(kScalar, expected.data(), a.data());
        ASSERT_TRUE(same_values(ref, expected)) << "scalar " << name << " " << context;
        check_op(
            test_case.name, ref, a, a, a, {0},
            [&](uint64_t* out, const uint64_t* in, const uint64_t*, const uint64_t*) {
              run(level, out, in);
            },
            context);
      }
    }
  }
}

// add_scalar_mod takes a from [0, 4q): every quarter of that range, and the
// largest constant.
TEST_P(KernelLevelTest, AddScalar) {
  const KernelTable& level = kernels();
  for (const Modulus& q : eltwise_moduli(isa())) {
    const uint64_t qv = q.value();
    for (std::size_t n : kSizes) {
      const std::string context =
          std::string(level.name) + " q = " + std::to_string(qv) + ", n = " + std::to_string(n);
      const std::vector<uint64_t> a =
          values_with_edges(*this, n, 4 * qv, {0, qv - 1, qv, 2 * qv - 1, 3 * qv, 4 * qv - 1});
      for (uint64_t c : {uint64_t{0}, qv - 1, uniform(qv)}) {
        std::vector<uint64_t> ref(n), expected(n);
        for (std::size_t i = 0; i < n; ++i)
          ref[i] = (a[i] + c) % qv;  // a + c < 5q < 2^64
        kScalar.add_scalar_mod(expected.data(), a.data(), c, n, qv);
        ASSERT_TRUE(same_values(ref, expected)) << "scalar add_scalar_mod " << context;
        check_op(
            "add_scalar_mod", ref, a, a, a, {0},
            [&](uint64_t* out, const uint64_t* in, const uint64_t*, const uint64_t*) {
              level.add_scalar_mod(out, in, c, n, qv);
            },
            context);
      }
    }
  }
}

// permute_blocks against the plain gather for the automorphism maps (every
// Galois element at a small N, a few at larger N), and against its defining
// formula for arbitrary maps, whose indices may exceed n.
TEST_P(KernelLevelTest, PermuteBlocks) {
  const KernelTable& level = kernels();
  for (uint64_t n : {8, 16, 64, 1024, 4096}) {
    std::vector<uint64_t> in(n);
    for (auto& v : in)
      v = uniform(~uint64_t{0});
    for (uint64_t g = 1; g < 2 * n; g += (n <= 64 ? 2 : 2 * 37)) {
      const std::vector<uint32_t> map = ring::make_ntt_automorphism_map(n, g);
      std::vector<uint64_t> gathered(n), out(n, 0);
      for (std::size_t k = 0; k < n; ++k)
        gathered[k] = in[map[k]];
      level.permute_blocks(out.data(), in.data(), map.data(), n, n);
      ASSERT_EQ(out, gathered) << level.name << " N = " << n << " g = " << g;
      // A run of outputs [start, start + count): the map's entries from start.
      const std::size_t start = n >= 16 ? n / 2 : 0, count = n / 4 >= 8 ? n / 4 : 8;
      std::vector<uint64_t> part(count, 0);
      level.permute_blocks(part.data(), in.data(), map.data() + start, count, n);
      ASSERT_TRUE(std::equal(part.begin(), part.end(), gathered.begin() + start))
          << level.name << " N = " << n << " g = " << g << ", outputs from " << start;
    }
    std::vector<uint32_t> arbitrary(n);
    for (auto& index : arbitrary)
      index = static_cast<uint32_t>(uniform(uint64_t{1} << 32));
    std::vector<uint64_t> expected(n), out(n, 0);
    for (std::size_t block = 0; block < n; block += 8) {
      for (std::size_t j = 0; j < 8; ++j)
        expected[block + j] = in[(arbitrary[block] / 8 % (n / 8)) * 8 + arbitrary[block + j] % 8];
    }
    level.permute_blocks(out.data(), in.data(), arbitrary.data(), n, n);
    ASSERT_EQ(out, expected) << level.name << " arbitrary map, N = " << n;
    kScalar.permute_blocks(out.data(), in.data(), arbitrary.data(), n, n);
    ASSERT_EQ(out, expected) << "scalar, arbitrary map, N = " << n;
  }
}

// The copies of the last two stages' twiddles that the AVX-512 transforms
// read (NttTableData::last_roots) against their definition, from powers of
// psi computed here: superblock s's t = 2 twiddle of group m, half h, at
// 16s + 8h + m is psi^brv(N/4 + 16s + 2m + h), and its t = 1 twiddle j at
// N/4 + 32s + 8j + m is psi^brv(N/2 + 32s + 4m + j); Shoup companions
// floor(W 2^64 / q) and floor(W 2^52 / q), the latter only for q < 2^50.
TEST(NttTables, LastStageTablesHoldTheRootsInSuperblockOrder) {
  const auto power = [](uint64_t base, uint64_t exponent, uint64_t q) {
    uint64_t result = 1;
    for (; exponent != 0; exponent >>= 1, base = static_cast<uint64_t>(u128{base} * base % q)) {
      if ((exponent & 1) != 0) result = static_cast<uint64_t>(u128{result} * base % q);
    }
    return result;
  };
  for (uint64_t n : {uint64_t{64}, uint64_t{128}, uint64_t{4096}}) {
    for (int bits : {40, 55}) {
      const Modulus modulus = generate_ntt_primes(bits, n, 1)[0];
      const uint64_t q = modulus.value();
      const NttTables tables(n, modulus);
      const kernels::NttTableData& d = tables.data();
      const int log_n = tables.log_degree();
      const uint64_t inv_root = power(tables.root(), 2 * n - 1, q);
      const bool small = q < (uint64_t{1} << 50);
      ASSERT_EQ(d.last_roots_shoup52 != nullptr, small);
      ASSERT_EQ(d.last_inv_roots_shoup52 != nullptr, small);
      const auto check = [&](uint64_t position, uint64_t k) {
        const uint64_t e = reverse_bits(k, log_n);
        const uint64_t w = power(tables.root(), e, q), v = power(inv_root, e, q);
        ASSERT_EQ(d.last_roots[position], w) << "n=" << n << " position " << position;
        ASSERT_EQ(d.last_inv_roots[position], v) << "n=" << n << " position " << position;
        ASSERT_EQ(d.last_roots_shoup[position], static_cast<uint64_t>((u128{w} << 64) / q));
        ASSERT_EQ(d.last_inv_roots_shoup[position], static_cast<uint64_t>((u128{v} << 64) / q));
        if (small) {
          ASSERT_EQ(d.last_roots_shoup52[position], static_cast<uint64_t>((u128{w} << 52) / q));
          ASSERT_EQ(d.last_inv_roots_shoup52[position], static_cast<uint64_t>((u128{v} << 52) / q));
        }
      };
      for (uint64_t s = 0; s < n / 64; ++s) {
        for (uint64_t m = 0; m < 8; ++m) {
          for (uint64_t h = 0; h < 2; ++h)
            check(16 * s + 8 * h + m, n / 4 + 16 * s + 2 * m + h);
          for (uint64_t j = 0; j < 4; ++j)
            check(n / 4 + 32 * s + 8 * j + m, n / 2 + 32 * s + 4 * m + j);
        }
      }
    }
  }
  // Below 64 values there are no superblocks and no copies.
  const NttTables small_tables(32, generate_ntt_primes(40, 32, 1)[0]);
  EXPECT_EQ(small_tables.data().last_roots, nullptr);
  EXPECT_EQ(small_tables.data().last_roots_shoup52, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Levels, KernelLevelTest, ::testing::ValuesIn(all_levels()),
                         [](const ::testing::TestParamInfo<Level>& info) {
                           return std::string(info.param.kernels.name);
                         });

}  // namespace
}  // namespace heft::math
