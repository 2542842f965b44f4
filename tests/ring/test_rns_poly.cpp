// RnsPoly: ring operations against per-coefficient modular arithmetic and a
// naive negacyclic convolution (per tower, and over the integers through GMP
// CRT reconstruction), level drops, secrets, and the error contract (typed
// exception, operands unchanged).
#include <gtest/gtest.h>
#include <algorithm>
#include <array>

#include <random>

#include "heft/ring/rns_poly.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::BigInt;
using testing::make_context;

void fill_random(RnsPoly& poly, std::mt19937_64& rng) {
  for (std::size_t i = 0; i < poly.tower_count(); ++i) {
    const uint64_t q = poly.modulus(i).value();
    for (uint64_t& v : poly.tower(i))
      v = rng() % q;
  }
}

uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t q) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % q);
}

// c = a * b in Z_q[X]/(X^N + 1), O(N^2).
std::vector<uint64_t> naive_negacyclic(std::span<const uint64_t> a, std::span<const uint64_t> b,
                                       uint64_t q) {
  const std::size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t product = mul_mod(a[i], b[j], q);
      const std::size_t k = (i + j) % n;
      c[k] = (i + j < n) ? (c[k] + product) % q : (c[k] + q - product) % q;
    }
  }
  return c;
}

// Four random operands of a tensor product in coefficient form, and the same
// four transformed.
struct TensorOperands {
  std::array<RnsPoly, 4> coefficients, transformed;
};

TensorOperands random_tensor_operands(const std::shared_ptr<const heft::ring::PolyContext>& context,
                                      std::size_t towers, uint64_t seed) {
  std::mt19937_64 rng(seed);
  TensorOperands operands;
  for (int k = 0; k < 4; ++k) {
    operands.coefficients[k] = RnsPoly(context, towers);
    fill_random(operands.coefficients[k], rng);
    operands.transformed[k] = operands.coefficients[k].clone();
    operands.transformed[k].ntt();
  }
  return operands;
}

// product (coefficient form) against naive convolutions of the operands:
// {a0 b0, a0 b1 + a1 b0, a1 b1}.
void expect_naive_tensor(const std::array<RnsPoly, 3>& product,
                         const std::array<RnsPoly, 4>& coefficients) {
  for (std::size_t t = 0; t < coefficients[0].tower_count(); ++t) {
    const uint64_t q = coefficients[0].modulus(t).value();
    const auto conv = [&](int x, int y) {
      return naive_negacyclic(coefficients[x].tower(t), coefficients[y].tower(t), q);
    };
    const auto c1_left = conv(0, 3), c1_right = conv(1, 2);
    std::vector<uint64_t> c1(c1_left.size());
    for (std::size_t i = 0; i < c1.size(); ++i)
      c1[i] = (c1_left[i] + c1_right[i]) % q;
    EXPECT_TRUE(std::ranges::equal(product[0].tower(t), conv(0, 2))) << "tower " << t;
    EXPECT_TRUE(std::ranges::equal(product[1].tower(t), c1)) << "tower " << t;
    EXPECT_TRUE(std::ranges::equal(product[2].tower(t), conv(1, 3))) << "tower " << t;
  }
}

TEST(RnsPoly, ConstructionAndAccessors) {
  const auto context = make_context(16, 3, 40);
  RnsPoly poly(context, 2, Form::ntt);
  EXPECT_EQ(poly.degree(), 16u);
  EXPECT_EQ(poly.tower_count(), 2u);
  EXPECT_TRUE(poly.is_ntt());
  EXPECT_EQ(poly.data().size(), 32u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(poly.data().data()) % 64, 0u);
  for (uint64_t v : poly.data())
    EXPECT_EQ(v, 0u);
  EXPECT_EQ(poly.modulus(1), context->modulus(1));
  EXPECT_THROW((void)poly.tower(2), InvalidArgument);
  EXPECT_THROW(RnsPoly(context, 0), InvalidArgument);
  EXPECT_THROW(RnsPoly(context, 4), InvalidArgument);
  EXPECT_THROW(RnsPoly(nullptr, 1), InvalidArgument);
}

TEST(RnsPoly, UninitializedHasTheShapeAndChecksOfTheConstructor) {
  const auto context = make_context(64, 3, 50);
  RnsPoly poly = RnsPoly::uninitialized(context, 2, Form::ntt);
  EXPECT_EQ(poly.tower_count(), 2u);
  EXPECT_EQ(poly.degree(), 64u);
  EXPECT_EQ(poly.form(), Form::ntt);
  EXPECT_FALSE(poly.is_secret());
  // Written in full, it behaves as any polynomial.
  for (std::size_t i = 0; i < 2; ++i)
    std::fill(poly.tower(i).begin(), poly.tower(i).end(), 1);
  RnsPoly ones(context, 2, Form::ntt);
  for (std::size_t i = 0; i < 2; ++i)
    std::fill(ones.tower(i).begin(), ones.tower(i).end(), 1);
  EXPECT_TRUE(poly == ones);
  EXPECT_THROW((void)RnsPoly::uninitialized(context, 0), InvalidArgument);
  EXPECT_THROW((void)RnsPoly::uninitialized(context, 4), InvalidArgument);
  EXPECT_THROW((void)RnsPoly::uninitialized(nullptr, 1), InvalidArgument);
}

TEST(RnsPoly, CoefficientFormIsAnInverseTransformedCopy) {
  const auto context = make_context(64, 3, 50);
  std::mt19937_64 rng(9);
  RnsPoly a(context, 3, Form::ntt);
  fill_random(a, rng);
  a.mark_secret();
  const RnsPoly kept = a.clone();
  RnsPoly expected = a.clone();
  expected.intt();
  const RnsPoly copy = a.coefficient_form();
  EXPECT_TRUE(copy == expected);
  EXPECT_TRUE(copy.is_secret());
  EXPECT_TRUE(a == kept);                                // the source keeps its form and values
  EXPECT_TRUE(expected.coefficient_form() == expected);  // already coefficients: a clone
  EXPECT_THROW((void)RnsPoly().coefficient_form(), InvalidArgument);
}

TEST(RnsPoly, MoveIsCheapAndCloneIsDeep) {
  const auto context = make_context(16, 2, 40);
  std::mt19937_64 rng(1);
  RnsPoly a(context, 2);
  fill_random(a, rng);
  const uint64_t* storage = a.data().data();
  RnsPoly b = std::move(a);
  EXPECT_EQ(b.data().data(), storage);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  RnsPoly c = b.clone();
  EXPECT_NE(c.data().data(), b.data().data());
  EXPECT_TRUE(c == b);
  c.tower(0)[0] ^= 1;
  EXPECT_FALSE(c == b);
  EXPECT_THROW(a.ntt(), InvalidArgument);
}

TEST(RnsPoly, AddSubNegateScalarMatchModularArithmetic) {
  const auto context = make_context(64, 3, 50);
  std::mt19937_64 rng(2);
  for (Form form : {Form::coefficient, Form::ntt}) {
    RnsPoly a(context, 3, form), b(context, 3, form);
    fill_random(a, rng);
    fill_random(b, rng);
    const RnsPoly sum = a + b, difference = a - b, negation = -a;
    RnsPoly scaled = a.clone();
    const uint64_t scalar = rng();  // deliberately larger than the moduli
    scaled.multiply_scalar(scalar);
    RnsPoly per_tower = a.clone();
    const std::vector<uint64_t> scalars = {rng(), 5, 0};
    per_tower.multiply_scalar(scalars);
    for (std::size_t i = 0; i < 3; ++i) {
      const uint64_t q = context->modulus(i).value();
      for (std::size_t k = 0; k < 64; ++k) {
        const uint64_t x = a.tower(i)[k], y = b.tower(i)[k];
        ASSERT_EQ(sum.tower(i)[k], (x + y) % q);
        ASSERT_EQ(difference.tower(i)[k], (x + q - y) % q);
        ASSERT_EQ(negation.tower(i)[k], (q - x) % q);
        ASSERT_EQ(scaled.tower(i)[k], mul_mod(x, scalar % q, q));
        ASSERT_EQ(per_tower.tower(i)[k], mul_mod(x, scalars[i] % q, q));
      }
    }
    EXPECT_EQ(sum.form(), form);
    RnsPoly in_place = a.clone();
    in_place += b;
    EXPECT_TRUE(in_place == sum);
    in_place -= b;
    EXPECT_TRUE(in_place == a);
  }
}

TEST(RnsPoly, NttMultiplyMatchesNaiveNegacyclicConvolutionPerTower) {
  for (uint64_t n : {16, 64}) {
    const auto context = make_context(n, 3, 45);
    std::mt19937_64 rng(n);
    RnsPoly a(context, 3), b(context, 3);
    fill_random(a, rng);
    fill_random(b, rng);
    RnsPoly product_ntt = a.clone();
    product_ntt.ntt();
    RnsPoly b_ntt = b.clone();
    b_ntt.ntt();
    product_ntt *= b_ntt;
    product_ntt.intt();
    for (std::size_t i = 0; i < 3; ++i) {
      const uint64_t q = context->modulus(i).value();
      const std::vector<uint64_t> expected = naive_negacyclic(a.tower(i), b.tower(i), q);
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), product_ntt.tower(i).begin()))
          << "N=" << n << " tower " << i;
    }
    // ntt() then intt() is the identity; add_product accumulates.
    RnsPoly round_trip = a.clone();
    round_trip.ntt();
    round_trip.intt();
    EXPECT_TRUE(round_trip == a);
    RnsPoly a_ntt = a.clone();
    a_ntt.ntt();
    RnsPoly accumulated(context, 3, Form::ntt);
    accumulated.add_product(a_ntt, b_ntt);
    accumulated.add_product(a_ntt, b_ntt);
    RnsPoly twice = a_ntt * b_ntt;
    twice += a_ntt * b_ntt;
    EXPECT_TRUE(accumulated == twice);
  }
}

// The tensor of two degree-1 polynomials in s against per-coefficient
// __int128 products (NTT form multiplies pointwise), at N = 2048 so that
// towers span several of its blocks, with 50- and 60-bit primes (the double
// and integer kernels); and at N = 16 against naive convolution.
TEST(RnsPoly, TensorProductMatchesPointwiseProductsAndConvolution) {
  for (int bits : {50, 60}) {
    const std::size_t n = 2048;
    const auto context = make_context(n, 2, bits);
    std::mt19937_64 rng(bits);
    std::array<RnsPoly, 4> operands;
    for (auto& p : operands) {
      p = RnsPoly(context, 2, Form::ntt);
      fill_random(p, rng);
    }
    const auto [c0, c1, c2] = tensor_product(operands[0], operands[1], operands[2], operands[3]);
    for (std::size_t t = 0; t < 2; ++t) {
      const uint64_t q = context->modulus(t).value();
      const auto at = [&](int k, std::size_t i) { return operands[k].tower(t)[i]; };
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(c0.tower(t)[i], mul_mod(at(0, i), at(2, i), q)) << bits << " bits, i=" << i;
        ASSERT_EQ(c1.tower(t)[i],
                  (mul_mod(at(0, i), at(3, i), q) + mul_mod(at(1, i), at(2, i), q)) % q)
            << bits << " bits, i=" << i;
        ASSERT_EQ(c2.tower(t)[i], mul_mod(at(1, i), at(3, i), q)) << bits << " bits, i=" << i;
      }
    }
  }
  const auto context = make_context(16, 2, 45);
  const auto [coefficients, transformed] = random_tensor_operands(context, 2, 5);
  auto product = tensor_product(transformed[0], transformed[1], transformed[2], transformed[3]);
  for (auto& part : product)
    part.intt();
  expect_naive_tensor(product, coefficients);
  // Operands in coefficient form, or at another tower count, are refused.
  EXPECT_THROW(
      (void)tensor_product(coefficients[0], transformed[1], transformed[2], transformed[3]),
      MismatchError);
  RnsPoly short_one(context, 1, Form::ntt);
  EXPECT_THROW((void)tensor_product(transformed[0], transformed[1], transformed[2], short_one),
               MismatchError);
}

TEST(RnsPoly, TensorProductToCoefficientsMatchesNaiveConvolutionFromEitherForm) {
  const auto context = make_context(16, 2, 45);
  const auto [coefficients, transformed] = random_tensor_operands(context, 2, 11);
  for (const bool from_ntt : {false, true}) {
    const auto& operands = from_ntt ? transformed : coefficients;
    std::array<RnsPoly, 4> kept;
    for (int k = 0; k < 4; ++k)
      kept[k] = operands[k].clone();
    const auto product =
        tensor_product_to_coefficients(operands[0], operands[1], operands[2], operands[3]);
    EXPECT_FALSE(product[0].is_ntt());
    SCOPED_TRACE(from_ntt ? "from NTT form" : "from coefficient form");
    expect_naive_tensor(product, coefficients);
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(operands[k] == kept[k]) << "operand " << k << " changed";
  }
  // Mixed forms, or another tower count, are refused.
  EXPECT_THROW((void)tensor_product_to_coefficients(coefficients[0], transformed[1], transformed[2],
                                                    transformed[3]),
               MismatchError);
  RnsPoly short_one(context, 1);
  EXPECT_THROW((void)tensor_product_to_coefficients(coefficients[0], coefficients[1],
                                                    coefficients[2], short_one),
               MismatchError);
}

TEST(RnsPoly, TensorProductToCoefficientsAgreesWithTensorProductOverManyBlocksAndTowers) {
  // Several product blocks per tower and enough towers for the parallel path
  // (one scratch per chunk of towers); the oracle is tensor_product, itself
  // checked against naive convolution above, followed by intt.
  const auto context = make_context(4096, 6, 55);
  const auto [coefficients, transformed] = random_tensor_operands(context, 6, 12);
  auto expected = tensor_product(transformed[0], transformed[1], transformed[2], transformed[3]);
  for (auto& part : expected)
    part.intt();
  for (const auto* operands : {&coefficients, &transformed}) {
    const auto product = tensor_product_to_coefficients((*operands)[0], (*operands)[1],
                                                        (*operands)[2], (*operands)[3]);
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(product[k] == expected[k]) << "part " << k;
  }
}

TEST(RnsPoly, ProductOfSignedPolynomialsMatchesIntegerConvolutionViaCrt) {
  // Signed inputs with |a_i| < 2^20, |b_i| < 2^20: every coefficient of the
  // integer product is far below Q/2 (Q ~ 2^150), so CRT reconstruction of the
  // RNS product must give the exact integer convolution.
  const uint64_t n = 64;
  const auto context = make_context(n, 3, 50);
  std::mt19937_64 rng(3);
  std::vector<int64_t> a(n), b(n);
  for (auto& v : a)
    v = static_cast<int64_t>(rng() % (1 << 21)) - (1 << 20);
  for (auto& v : b)
    v = static_cast<int64_t>(rng() % (1 << 21)) - (1 << 20);
  RnsPoly pa(context, 3), pb(context, 3);
  pa.set_coefficients(a);
  pb.set_coefficients(b);
  pa.ntt();
  pb.ntt();
  RnsPoly product = pa * pb;
  product.intt();

  const BigInt q = testing::product_of(context->base());
  BigInt half;
  mpz_fdiv_q_2exp(half.get(), q.get(), 1);
  for (std::size_t k = 0; k < n; ++k) {
    BigInt expected(0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = (k + n - i) % n;  // a_i * b_j lands on i + j = k (mod N)
      const __int128 term = static_cast<__int128>(a[i]) * b[j];
      const long term_long = static_cast<long>(term);  // |term| < 2^40
      if (i <= k) {
        if (term_long >= 0)
          mpz_add_ui(expected.get(), expected.get(), term_long);
        else
          mpz_sub_ui(expected.get(), expected.get(), -term_long);
      } else {  // wrapped past X^N = -1
        if (term_long >= 0)
          mpz_sub_ui(expected.get(), expected.get(), term_long);
        else
          mpz_add_ui(expected.get(), expected.get(), -term_long);
      }
    }
    std::vector<uint64_t> residues(3);
    for (std::size_t i = 0; i < 3; ++i)
      residues[i] = product.tower(i)[k];
    BigInt composed(context->base().compose(residues));
    if (mpz_cmp(composed.get(), half.get()) > 0) mpz_sub(composed.get(), composed.get(), q.get());
    ASSERT_EQ(mpz_cmp(composed.get(), expected.get()), 0) << "coefficient " << k;
  }
}

TEST(RnsPoly, SetCoefficientsReducesOneIntegerIntoEveryTower) {
  const auto context = make_context(16, 3, 40);
  std::vector<int64_t> values(16);
  std::mt19937_64 rng(4);
  for (auto& v : values)
    v = static_cast<int64_t>(rng());
  values[0] = 0;
  values[1] = -1;
  values[2] = INT64_MIN;
  values[3] = INT64_MAX;
  values[4] = -static_cast<int64_t>(context->modulus(0).value());
  RnsPoly poly(context, 3, Form::ntt);
  poly.set_coefficients(values);
  EXPECT_EQ(poly.form(), Form::coefficient);
  for (std::size_t i = 0; i < 3; ++i) {
    const uint64_t q = context->modulus(i).value();
    for (std::size_t k = 0; k < 16; ++k) {
      BigInt value;
      mpz_set_si(value.get(), values[k]);
      ASSERT_EQ(poly.tower(i)[k], value.mod(q)) << "tower " << i << " coefficient " << k;
    }
  }
  // Values all below the smallest modulus take the no-reduction path.
  uint64_t smallest = ~uint64_t{0};
  for (std::size_t i = 0; i < 3; ++i)
    smallest = std::min(smallest, context->modulus(i).value());
  for (std::size_t k = 0; k < 16; ++k) {
    values[k] = static_cast<int64_t>(rng() % smallest) * (k % 2 == 0 ? 1 : -1);
  }
  values[0] = static_cast<int64_t>(smallest - 1);
  values[1] = -static_cast<int64_t>(smallest - 1);
  values[2] = 0;
  poly.set_coefficients(values);
  for (std::size_t i = 0; i < 3; ++i) {
    const uint64_t q = context->modulus(i).value();
    for (std::size_t k = 0; k < 16; ++k) {
      BigInt value;
      mpz_set_si(value.get(), values[k]);
      ASSERT_EQ(poly.tower(i)[k], value.mod(q))
          << "small path, tower " << i << " coefficient " << k;
    }
  }
  const std::vector<int64_t> too_short(15);
  EXPECT_THROW(poly.set_coefficients(too_short), MismatchError);
}

TEST(RnsPoly, DropLastTowersKeepsLeadingTowers) {
  const auto context = make_context(16, 4, 40);
  std::mt19937_64 rng(5);
  RnsPoly poly(context, 4);
  fill_random(poly, rng);
  const RnsPoly original = poly.clone();
  poly.drop_last_towers(0);
  EXPECT_TRUE(poly == original);
  poly.drop_last_towers(2);
  ASSERT_EQ(poly.tower_count(), 2u);
  EXPECT_EQ(poly.data().size(), 32u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(std::equal(poly.tower(i).begin(), poly.tower(i).end(), original.tower(i).begin()));
  }
  // A dropped polynomial works with others at its level, and its clone is compact.
  RnsPoly other(context, 2);
  fill_random(other, rng);
  poly += other;
  EXPECT_EQ(poly.clone().data().size(), 32u);
  EXPECT_THROW(poly.drop_last_towers(2), InvalidArgument);
  EXPECT_EQ(poly.tower_count(), 2u);
  EXPECT_THROW(poly += original, MismatchError);
}

TEST(RnsPoly, MismatchesThrowTypedErrorsAndLeaveOperandsUnchanged) {
  const auto context = make_context(16, 3, 40);
  const auto other_context = make_context(16, 3, 40);  // equal parameters, different identity
  std::mt19937_64 rng(6);
  RnsPoly a(context, 3), b(context, 3), fewer(context, 2), foreign(other_context, 3);
  fill_random(a, rng);
  fill_random(b, rng);
  fill_random(fewer, rng);
  fill_random(foreign, rng);
  RnsPoly b_ntt = b.clone();
  b_ntt.ntt();
  const RnsPoly a_before = a.clone(), b_before = b.clone(), b_ntt_before = b_ntt.clone();

  EXPECT_THROW(a += foreign, MismatchError);
  EXPECT_THROW(a -= fewer, MismatchError);
  EXPECT_THROW(a += b_ntt, MismatchError);  // forms differ
  EXPECT_THROW(a *= b, MismatchError);      // coefficient-form multiply is refused
  EXPECT_THROW((void)(a * b), MismatchError);
  EXPECT_THROW(a.intt(), MismatchError);  // already coefficient form
  EXPECT_THROW(b_ntt.ntt(), MismatchError);
  EXPECT_THROW(b_ntt.add_product(b_ntt, a), MismatchError);
  EXPECT_THROW(a.multiply_scalar(std::vector<uint64_t>{1, 2}), MismatchError);
  RnsPoly empty;
  EXPECT_THROW(a += empty, InvalidArgument);
  EXPECT_THROW((void)(empty + a), InvalidArgument);
  EXPECT_TRUE(a == a_before);
  EXPECT_TRUE(b == b_before);
  EXPECT_TRUE(b_ntt == b_ntt_before);
  EXPECT_EQ(a.form(), Form::coefficient);
  EXPECT_EQ(b_ntt.form(), Form::ntt);
}

TEST(RnsPoly, SecretsAreMarkedPropagatedAndWiped) {
  const auto context = make_context(16, 2, 40);
  std::mt19937_64 rng(7);
  RnsPoly secret(context, 2), plain(context, 2);
  fill_random(secret, rng);
  fill_random(plain, rng);
  secret.mark_secret();
  EXPECT_TRUE(secret.is_secret());
  EXPECT_TRUE(secret.clone().is_secret());
  EXPECT_TRUE((plain + secret).is_secret());
  EXPECT_FALSE((plain + plain).is_secret());
  EXPECT_TRUE(secret.automorphism(3).is_secret());
  RnsPoly wiped = secret.clone();
  wiped.wipe();
  for (uint64_t v : wiped.data())
    EXPECT_EQ(v, 0u);
}

}  // namespace
}  // namespace heft::ring
