// Automorphisms X -> X^g: coefficient form against direct substitution, NTT
// form against "transform, permute" == "permute, transform", the NTT output
// order that the index map relies on against direct evaluation, the fused
// automorphism-and-product, and the thread safety of the context's map cache.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "heft/math/kernels.hpp"
#include "heft/ring/automorphism.hpp"
#include "heft/ring/rns_poly.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::make_context;

void fill_random(RnsPoly& poly, std::mt19937_64& rng) {
  for (std::size_t i = 0; i < poly.tower_count(); ++i) {
    const uint64_t q = poly.modulus(i).value();
    for (uint64_t& v : poly.tower(i))
      v = rng() % q;
  }
}

// a(X^g) mod (X^N + 1, q) by substituting each monomial: X^(i*g) with the
// exponent reduced mod 2N and X^N = -1.
std::vector<uint64_t> substitute(std::span<const uint64_t> a, uint64_t g, uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> result(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    uint64_t exponent = (i * g) % (2 * n);
    uint64_t value = a[i];
    if (exponent >= n) {
      exponent -= n;
      value = (q - value) % q;
    }
    result[exponent] = (result[exponent] + value) % q;
  }
  return result;
}

TEST(Automorphism, NttOutputIndexKHoldsEvaluationAtOddPowerOfPsi) {
  // The index map assumes forward-NTT index k holds a(psi^(2 brv(k) + 1)).
  const uint64_t n = 16;
  const auto context = make_context(n, 1, 40);
  const math::NttTables& tables = context->ntt_tables(0);
  const math::Modulus& q = tables.modulus();
  std::mt19937_64 rng(1);
  std::vector<uint64_t> a(n);
  for (auto& v : a)
    v = rng() % q.value();
  std::vector<uint64_t> transformed = a;
  math::ntt_forward(transformed, tables);
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t point = q.pow(tables.root(), 2 * math::reverse_bits(k, 4) + 1);
    uint64_t value = 0;  // Horner
    for (std::size_t i = n; i-- > 0;)
      value = q.add(q.mul(value, point), a[i]);
    EXPECT_EQ(transformed[k], value) << "k = " << k;
  }
}

TEST(Automorphism, CoefficientFormMatchesDirectSubstitution) {
  for (uint64_t n : {16, 256}) {
    const auto context = make_context(n, 2, 40);
    std::mt19937_64 rng(n);
    RnsPoly a(context, 2);
    fill_random(a, rng);
    for (uint64_t g = 1; g < 2 * n; g += 2) {
      const RnsPoly image = a.automorphism(g);
      EXPECT_EQ(image.form(), Form::coefficient);
      for (std::size_t i = 0; i < 2; ++i) {
        const std::vector<uint64_t> expected =
            substitute(a.tower(i), g, context->modulus(i).value());
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), image.tower(i).begin()))
            << "N=" << n << " g=" << g << " tower " << i;
      }
    }
  }
}

void expect_ntt_and_coefficient_automorphisms_agree(uint64_t n, const std::vector<uint64_t>& gs) {
  const auto context = make_context(n, 3, 50);
  std::mt19937_64 rng(n + 1);
  RnsPoly a(context, 3);
  fill_random(a, rng);
  RnsPoly a_ntt = a.clone();
  a_ntt.ntt();
  for (uint64_t g : gs) {
    RnsPoly via_coefficients = a.automorphism(g);
    via_coefficients.ntt();
    const RnsPoly via_ntt = a_ntt.automorphism(g);
    EXPECT_EQ(via_ntt.form(), Form::ntt);
    EXPECT_TRUE(via_coefficients == via_ntt) << "N=" << n << " g=" << g;
  }
}

TEST(Automorphism, NttFormAgreesWithCoefficientFormForEveryOddGAtN16) {
  std::vector<uint64_t> gs;
  for (uint64_t g = 1; g < 32; g += 2)
    gs.push_back(g);
  expect_ntt_and_coefficient_automorphisms_agree(16, gs);
}

TEST(Automorphism, NttFormAgreesWithCoefficientFormAtN4096) {
  const uint64_t n = 4096;
  // Rotation generators 5^k, conjugation 2N - 1, and a few arbitrary odd g.
  std::vector<uint64_t> gs = {1, 3, 5, 25, 125, 2 * n - 1, 2 * n - 5, 4097, 1234567 % (2 * n) | 1};
  uint64_t power = 1;
  for (int k = 0; k < 5; ++k)
    power = power * 5 % (2 * n);
  gs.push_back(power);
  expect_ntt_and_coefficient_automorphisms_agree(n, gs);
}

// sum += a * x(X^g) in one pass against the image taken in coefficient form
// (checked above against substitution), transformed, then multiplied.
TEST(Automorphism, AddProductAutomorphismEqualsProductWithTheImage) {
  for (uint64_t n : {16, 4096}) {
    const auto context = make_context(n, 3, 50);
    std::mt19937_64 rng(n + 7);
    RnsPoly a(context, 3), x(context, 3), sum(context, 3);
    for (RnsPoly* poly : {&a, &x, &sum})
      fill_random(*poly, rng);
    a.ntt();
    sum.ntt();
    RnsPoly x_ntt = x.clone();
    x_ntt.ntt();
    for (uint64_t g : {uint64_t{3}, uint64_t{5}, 2 * n - 1}) {
      RnsPoly image = x.automorphism(g);
      image.ntt();
      RnsPoly expected = sum.clone();
      expected.add_product(a, image);
      RnsPoly got = sum.clone();
      got.add_product_automorphism(a, x_ntt, g);
      EXPECT_TRUE(got == expected) << "N=" << n << " g=" << g;
    }
    // Refused, the sum unchanged: coefficient-form operands, the sum as the
    // permuted operand, an even Galois element.
    const RnsPoly before = sum.clone();
    EXPECT_THROW(sum.add_product_automorphism(a, x, 3), MismatchError);
    EXPECT_THROW(sum.add_product_automorphism(a, sum, 3), InvalidArgument);
    EXPECT_THROW(sum.add_product_automorphism(a, x_ntt, 4), InvalidArgument);
    EXPECT_TRUE(sum == before);
  }
}

TEST(Automorphism, MapIsAPermutationAndComposes) {
  const uint64_t n = 64;
  const auto context = make_context(n, 1, 40);
  const std::span<const uint32_t> map5 = context->ntt_automorphism_map(5);
  std::vector<bool> seen(n, false);
  for (uint32_t index : map5) {
    ASSERT_LT(index, n);
    seen[index] = true;
  }
  EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
  // sigma_5 applied twice is sigma_25.
  std::mt19937_64 rng(2);
  RnsPoly a(context, 1, Form::ntt);
  fill_random(a, rng);
  EXPECT_TRUE(a.automorphism(5).automorphism(5) == a.automorphism(25));
  EXPECT_TRUE(a.automorphism(1) == a);
}

TEST(Automorphism, InvalidGaloisElementsAndOutputsAreRejected) {
  const auto context = make_context(16, 2, 40);
  std::mt19937_64 rng(3);
  RnsPoly a(context, 2);
  fill_random(a, rng);
  const RnsPoly before = a.clone();
  EXPECT_THROW((void)a.automorphism(2), InvalidArgument);
  EXPECT_THROW((void)a.automorphism(33), InvalidArgument);
  EXPECT_THROW((void)context->ntt_automorphism_map(0), InvalidArgument);
  EXPECT_THROW((void)context->ntt_tables(2), InvalidArgument);
  EXPECT_THROW((void)context->modulus(2), InvalidArgument);
  // The public map builder checks N and g itself (it used to return a map
  // that is no permutation, or shift by ctz(0)).
  EXPECT_THROW((void)make_ntt_automorphism_map(12, 3), InvalidArgument);
  EXPECT_THROW((void)make_ntt_automorphism_map(0, 1), InvalidArgument);
  EXPECT_THROW((void)make_ntt_automorphism_map(16, 4), InvalidArgument);
  EXPECT_THROW((void)make_ntt_automorphism_map(16, 33), InvalidArgument);
  RnsPoly wrong_towers(context, 1);
  EXPECT_THROW(a.automorphism(3, wrong_towers), MismatchError);
  EXPECT_THROW(a.automorphism(3, a), InvalidArgument);
  EXPECT_TRUE(a == before);
  RnsPoly out(context, 2, Form::ntt);
  a.automorphism(3, out);
  EXPECT_EQ(out.form(), Form::coefficient);
  EXPECT_TRUE(out == a.automorphism(3));
}

TEST(Automorphism, ConcurrentMapRequestsShareOneCachedMap) {
  const uint64_t n = 1024;
  const auto context = make_context(n, 1, 40);
  constexpr int kThreads = 8;
  std::vector<const uint32_t*> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t g = 1; g < 64; g += 2)
        (void)context->ntt_automorphism_map(g);
      seen[t] = context->ntt_automorphism_map(7).data();
    });
  }
  for (auto& thread : threads)
    thread.join();
  for (int t = 1; t < kThreads; ++t)
    EXPECT_EQ(seen[t], seen[0]);
  const std::vector<uint32_t> fresh = make_ntt_automorphism_map(n, 7);
  const std::span<const uint32_t> cached = context->ntt_automorphism_map(7);
  EXPECT_TRUE(std::equal(fresh.begin(), fresh.end(), cached.begin()));
}

}  // namespace
}  // namespace heft::ring
