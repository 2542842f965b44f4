// The randomized tower agreement test that lets decoding skip inverse NTTs
// (schemes/ckks/tower_agreement_check.cpp): its weights against direct sums,
// right guesses accepted and wrong ones caught.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ckks_encoder_test_support.hpp"
#include "heft/math/kernels.hpp"
#include "heft/rlwe/context.hpp"
#include "schemes/ckks/tower_agreement_check.hpp"

namespace heft::ckks {
namespace {

using namespace testing;

// The weights of TowerAgreementCheck satisfy their defining identity
// sum_k r_k NTT(x)_k = sum_j c_j x_j (mod q_i) for random x, checked with
// direct 128-bit sums; the pair counts give 2^-64.
TEST(TowerAgreementCheck, WeightsSatisfyTheLinearIdentity) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const auto& ring = context->ciphertext_ring();
  const detail::TowerAgreementCheck check(ring);
  std::mt19937_64 rng(11);
  for (std::size_t i = 1; i < ring->tower_count(); ++i) {
    const math::Modulus& q = ring->modulus(i);
    const int floor_log2 = std::bit_width(q.value()) - 1;
    const int bits_per_pair = q.value() > (uint64_t{1} << 32) ? 32 : floor_log2 - 1;
    EXPECT_GE(static_cast<int>(check.pair_count(i)) * bits_per_pair, 64) << "tower " << i;
    EXPECT_LT((static_cast<int>(check.pair_count(i)) - 1) * bits_per_pair, 64) << "tower " << i;
    for (std::size_t p = 0; p < check.pair_count(i); ++p) {
      const auto c = check.coefficient_weights(p);
      const auto r = check.ntt_weights(i, p);
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<uint64_t> x(degree);
        for (auto& v : x)
          v = rng() % q.value();
        std::vector<uint64_t> transformed = x;
        math::ntt_forward(std::span<uint64_t>(transformed), ring->ntt_tables(i));
        unsigned __int128 left = 0, right = 0;
        for (std::size_t k = 0; k < degree; ++k) {
          ASSERT_LT(r[k], q.value());
          left = (left + static_cast<unsigned __int128>(r[k]) * transformed[k]) % q.value();
          right = (right + static_cast<unsigned __int128>(c[k]) * x[k]) % q.value();
        }
        ASSERT_EQ(static_cast<uint64_t>(left), static_cast<uint64_t>(right))
            << "tower " << i << " pair " << p;
      }
    }
  }
  EXPECT_THROW((void)check.ntt_weights(0, 0), InvalidArgument);
  EXPECT_THROW((void)check.ntt_weights(ring->tower_count(), 0), InvalidArgument);
  EXPECT_THROW((void)check.guess_sums(std::vector<uint64_t>(degree - 1)), InvalidArgument);
}

// A right guess agrees with every tower; a guess that is wrong by a multiple
// of q_0 (a coefficient beyond q_0/2), and a tower changed in one NTT value,
// are caught.
TEST(TowerAgreementCheck, AcceptsTheRightGuessAndCatchesWrongOnes) {
  const uint64_t degree = 1024;
  const auto context = context_for(degree, {60, 50, 40, 55, 61, 30});
  const auto& ring = context->ciphertext_ring();
  const std::size_t towers = ring->tower_count();
  const detail::TowerAgreementCheck check(ring);
  const uint64_t q0 = ring->modulus(0).value();
  std::mt19937_64 rng(12);
  std::vector<Mpz> coefficients(degree);
  for (auto& x : coefficients)
    mpz_set_si(x.v, static_cast<long>(rng() % (q0 / 2)) * (rng() % 2 == 0 ? 1 : -1));
  const auto agree_everywhere = [&](const ring::RnsPoly& poly) {
    ring::RnsPoly tower0 = poly.clone();
    tower0.intt();
    const auto sums = check.guess_sums(tower0.tower(0));
    bool all = true;
    for (std::size_t i = 1; i < towers; ++i)
      all = check.agrees(i, poly.tower(i), sums) && all;
    return all;
  };
  ring::RnsPoly right = poly_from_integers(ring, towers, coefficients);
  right.ntt();
  EXPECT_TRUE(agree_everywhere(right));

  for (long shift : {1L, -1L, 3L}) {  // coefficient 7 moved by shift * q_0
    std::vector<Mpz> moved = coefficients;
    Mpz delta;
    mpz_set_ui(delta.v, q0);
    mpz_mul_si(delta.v, delta.v, shift);
    mpz_add(moved[7].v, moved[7].v, delta.v);
    ring::RnsPoly wrong = poly_from_integers(ring, towers, moved);
    wrong.ntt();
    EXPECT_FALSE(agree_everywhere(wrong)) << "shift " << shift;
  }
  for (std::size_t i = 1; i < towers; ++i) {
    ring::RnsPoly changed = right.clone();
    changed.tower(i)[degree / 3] = ring->modulus(i).add(changed.tower(i)[degree / 3], 1);
    ring::RnsPoly tower0 = right.clone();
    tower0.intt();
    EXPECT_FALSE(check.agrees(i, changed.tower(i), check.guess_sums(tower0.tower(0))))
        << "tower " << i;
  }
}

}  // namespace
}  // namespace heft::ckks
