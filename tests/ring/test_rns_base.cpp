// RnsBase: validation, CRT constants and compose/decompose, checked against
// GMP big-integer arithmetic.
#include <gtest/gtest.h>

#include "heft/ring/rns_base.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::BigInt;
using testing::GmpRandom;
using testing::product_of;

TEST(RnsBase, RejectsEmptyDuplicateAndNonCoprimeModuli) {
  EXPECT_THROW(RnsBase(std::vector<math::Modulus>{}), InvalidArgument);
  const std::vector<uint64_t> duplicate = {97, 101, 97};
  EXPECT_THROW(RnsBase::from_values(duplicate), InvalidArgument);
  const std::vector<uint64_t> shared_factor = {15, 22, 21};  // 15 and 21 share 3
  EXPECT_THROW(RnsBase::from_values(shared_factor), InvalidArgument);
  const std::vector<uint64_t> coprime_composites = {15, 22, 49};
  EXPECT_NO_THROW(RnsBase::from_values(coprime_composites));
}

TEST(RnsBase, ProductAndPuncturedConstantsMatchGmp) {
  GmpRandom random(1);
  for (std::size_t count : {1, 2, 5, 8}) {
    for (int bits : {30, 45, 60}) {
      const RnsBase base = RnsBase::from_values(random.primes(bits, count));
      const BigInt q = product_of(base);
      EXPECT_EQ(base.product().size(), q.words().size());
      EXPECT_EQ(BigInt(base.product()).words(), q.words());
      for (std::size_t i = 0; i < count; ++i) {
        BigInt qi(base[i].value()), punctured, inverse;
        mpz_divexact(punctured.get(), q.get(), qi.get());
        EXPECT_EQ(BigInt(base.punctured_product(i)).words(), punctured.words());
        ASSERT_NE(mpz_invert(inverse.get(), punctured.get(), qi.get()), 0);
        EXPECT_EQ(base.punctured_inverse(i), inverse.words()[0]);
        EXPECT_EQ(base.punctured_inverse_shoup(i), base[i].shoup(base.punctured_inverse(i)));
      }
    }
  }
}

TEST(RnsBase, ComposeDecomposeRoundTripMatchesGmp) {
  GmpRandom random(2);
  for (std::size_t count = 1; count <= 8; ++count) {
    for (int bits : {30, 41, 52, 60}) {
      const RnsBase base = RnsBase::from_values(random.primes(bits, count));
      const BigInt q = product_of(base);
      std::vector<BigInt> values;
      for (int trial = 0; trial < 40; ++trial)
        values.push_back(random.below(q));
      BigInt q_minus_one;
      mpz_sub_ui(q_minus_one.get(), q.get(), 1);
      values.push_back(BigInt(0));
      values.push_back(BigInt(1));
      values.push_back(q_minus_one);
      for (const BigInt& x : values) {
        std::vector<uint64_t> expected_residues;
        for (const math::Modulus& m : base.moduli())
          expected_residues.push_back(x.mod(m.value()));
        const std::vector<uint64_t> words = x.words();
        EXPECT_EQ(base.decompose(words), expected_residues);
        const std::vector<uint64_t> composed = base.compose(expected_residues);
        EXPECT_EQ(composed.size(), base.product().size());
        EXPECT_EQ(mpz_cmp(BigInt(composed).get(), x.get()), 0);
      }
    }
  }
}

TEST(RnsBase, DecomposeAcceptsValuesAboveQ) {
  GmpRandom random(3);
  const RnsBase base = RnsBase::from_values(random.primes(50, 3));
  BigInt bound(1);
  mpz_mul_2exp(bound.get(), bound.get(), 400);
  const BigInt x = random.below(bound);
  const std::vector<uint64_t> residues = base.decompose(x.words());
  for (std::size_t i = 0; i < base.size(); ++i)
    EXPECT_EQ(residues[i], x.mod(base[i].value()));
}

TEST(RnsBase, ComposeRejectsBadInput) {
  const std::vector<uint64_t> values = {97, 101};
  const RnsBase base = RnsBase::from_values(values);
  const std::vector<uint64_t> too_few = {1};
  EXPECT_THROW((void)base.compose(too_few), MismatchError);
  const std::vector<uint64_t> unreduced = {97, 3};
  EXPECT_THROW((void)base.compose(unreduced), InvalidArgument);
  // An empty base (compose used to loop forever), indices past the end, and
  // a default-constructed modulus (whose arithmetic divides by zero).
  EXPECT_THROW((void)RnsBase().compose({}), InvalidArgument);
  EXPECT_THROW((void)RnsBase().decompose(values), InvalidArgument);
  EXPECT_THROW((void)base[2], InvalidArgument);
  EXPECT_THROW((void)base.punctured_product(2), InvalidArgument);
  EXPECT_THROW((void)base.punctured_inverse(5), InvalidArgument);
  EXPECT_THROW((void)base.punctured_inverse_shoup(2), InvalidArgument);
  EXPECT_THROW(RnsBase(std::vector<math::Modulus>(1)), InvalidArgument);
  EXPECT_THROW(RnsBase(std::vector<math::Modulus>{math::Modulus(97), math::Modulus()}),
               InvalidArgument);
}

TEST(RnsBase, DropLastAndConcat) {
  const std::vector<uint64_t> values = {97, 101, 103, 107};
  const RnsBase base = RnsBase::from_values(values);
  const RnsBase shorter = base.drop_last(2);
  ASSERT_EQ(shorter.size(), 2u);
  EXPECT_EQ(shorter[0].value(), 97u);
  EXPECT_EQ(shorter[1].value(), 101u);
  EXPECT_EQ(BigInt(shorter.product()).words()[0], 97u * 101u);
  EXPECT_EQ(base.drop_last(0), base);
  EXPECT_THROW((void)base.drop_last(4), InvalidArgument);

  const std::vector<uint64_t> more = {109, 113};
  const RnsBase joined = shorter.concat(RnsBase::from_values(more));
  ASSERT_EQ(joined.size(), 4u);
  EXPECT_EQ(joined[2].value(), 109u);
  EXPECT_EQ(joined[3].value(), 113u);
  EXPECT_EQ(BigInt(joined.product()).words()[0], 97u * 101u * 109u * 113u);
  // Joining a base with itself repeats moduli: refused.
  EXPECT_THROW((void)base.concat(shorter), InvalidArgument);
}

}  // namespace
}  // namespace heft::ring
