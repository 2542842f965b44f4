// Randomized agreement test of NTT-form towers with a guessed polynomial
// (see tower_agreement_check.hpp for the argument).
#include "schemes/ckks/tower_agreement_check.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/ring/prng.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks::detail {
namespace {

using u128 = unsigned __int128;

// Products of two words below 2^61 are below 2^122, so 64 of them fit in 128
// bits; sums are reduced once per block of that many.
constexpr std::size_t kBlock = 64;

// Bits of soundness one pair gives for modulus q: a wrong guess passes with
// probability at most ceil(2^32 / q) / 2^32.
std::size_t bits_per_pair(uint64_t q) {
  if (q > (uint64_t{1} << 32)) return 32;
  return static_cast<std::size_t>(std::bit_width(q)) - 2;  // floor(log2 q) - 1
}

// out[p] = sum_j a_pj b_j mod q for kRows rows a_p (row p at a + p * n), with
// every a_pj, b_j < 2^61: one pass over b for all rows.
template <std::size_t kRows>
void dot_mod_rows(const uint64_t* a, const uint64_t* b, std::size_t n, const math::Modulus& q,
                  uint64_t* out) {
  uint64_t total[kRows] = {};
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t end = std::min(n, start + kBlock);
    u128 sum[kRows] = {};
    for (std::size_t j = start; j < end; ++j) {
      for (std::size_t p = 0; p < kRows; ++p)
        sum[p] += static_cast<u128>(a[p * n + j]) * b[j];
    }
    for (std::size_t p = 0; p < kRows; ++p)
      total[p] = q.add(total[p], q.reduce128(sum[p]));
  }
  for (std::size_t p = 0; p < kRows; ++p)
    out[p] = total[p];
}

// x mod q for a signed 128-bit x.
uint64_t reduce_signed(__int128 x, const math::Modulus& q) {
  const u128 magnitude = x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x);
  const uint64_t reduced = q.reduce128(magnitude);
  return x < 0 ? q.negate(reduced) : reduced;
}

}  // namespace

TowerAgreementCheck::TowerAgreementCheck(std::shared_ptr<const ring::PolyContext> ring)
    : ring_(std::move(ring)) {
  if (!ring_) throw InvalidArgument("TowerAgreementCheck: the ring context is null");
  const std::size_t towers = ring_->tower_count();
  for (std::size_t i = 0; i < towers; ++i)
    pairs_ = std::max(pairs_, pair_count(i));
  const std::size_t n = ring_->degree();
  c_ = AlignedBuffer<uint32_t>(pairs_ * n, AlignedBuffer<uint32_t>::Uninitialized{});
  ring::Prng prng = ring::Prng::from_os_entropy();
  prng.fill(std::span<uint8_t>(reinterpret_cast<uint8_t*>(c_.data()), c_.size() * 4));
  towers_ = std::make_unique<TowerWeights[]>(towers);
}

std::size_t TowerAgreementCheck::pair_count(std::size_t tower) const {
  const std::size_t bits = bits_per_pair(ring_->modulus(tower).value());
  return (kSoundnessBits + bits - 1) / bits;
}

std::vector<__int128> TowerAgreementCheck::guess_sums(std::span<const uint64_t> guess) const {
  const std::size_t n = ring_->degree();
  if (guess.size() != n) {
    throw InvalidArgument("TowerAgreementCheck: the guess has " + std::to_string(guess.size()) +
                          " coefficients, not N = " + std::to_string(n));
  }
  // s_j = guess_j - q_0 [guess_j > q_0/2], so sum_j c_j s_j is
  // sum_j c_j guess_j - q_0 sum_{guess_j > q_0/2} c_j: both sums unsigned,
  // below 2^32 * 2^61 * 2^17 = 2^110 and 2^32 * 2^17 (N <= 2^17).
  const uint64_t q0 = ring_->modulus(0).value();
  const uint64_t half = q0 >> 1;
  std::vector<__int128> sums(pairs_);
  for (std::size_t p = 0; p < pairs_; ++p) {
    const uint32_t* c = c_.data() + p * n;
    u128 products = 0;
    uint64_t wrapped = 0;
    for (std::size_t j = 0; j < n; ++j) {
      products += static_cast<u128>(c[j]) * guess[j];
      wrapped += guess[j] > half ? c[j] : 0;
    }
    sums[p] =
        static_cast<__int128>(products) - static_cast<__int128>(static_cast<u128>(q0) * wrapped);
  }
  return sums;
}

const TowerAgreementCheck::TowerWeights& TowerAgreementCheck::built_weights(
    std::size_t tower) const {
  if (tower == 0 || tower >= ring_->tower_count()) {
    throw InvalidArgument("TowerAgreementCheck: tower " + std::to_string(tower) +
                          " is not in [1, " + std::to_string(ring_->tower_count()) + ")");
  }
  TowerWeights& weights = towers_[tower];
  std::call_once(weights.built, [&] {
    const std::size_t n = ring_->degree();
    const std::size_t pairs = pair_count(tower);
    const math::Modulus& q = ring_->modulus(tower);
    const uint64_t inverse_degree = q.inverse(q.reduce128(n));
    AlignedBuffer<uint64_t> r(pairs * n, AlignedBuffer<uint64_t>::Uninitialized{});
    for (std::size_t p = 0; p < pairs; ++p) {
      // r = N^-1 NTT(y), y_0 = c_0, y_m = -c_(N-m).
      const uint32_t* c = c_.data() + p * n;
      uint64_t* row = r.data() + p * n;
      row[0] = q.reduce128(c[0]);
      for (std::size_t m = 1; m < n; ++m)
        row[m] = q.negate(q.reduce128(c[n - m]));
      math::ntt_forward(std::span<uint64_t>(row, n), ring_->ntt_tables(tower));
      for (std::size_t k = 0; k < n; ++k)
        row[k] = q.mul(row[k], inverse_degree);
    }
    weights.r = std::move(r);
  });
  return weights;
}

std::span<const uint32_t> TowerAgreementCheck::coefficient_weights(std::size_t pair) const {
  if (pair >= pairs_) throw InvalidArgument("TowerAgreementCheck: no such pair");
  const std::size_t n = ring_->degree();
  return {c_.data() + pair * n, n};
}

std::span<const uint64_t> TowerAgreementCheck::ntt_weights(std::size_t tower,
                                                           std::size_t pair) const {
  const TowerWeights& weights = built_weights(tower);
  if (pair >= pair_count(tower)) throw InvalidArgument("TowerAgreementCheck: no such pair");
  const std::size_t n = ring_->degree();
  return {weights.r.data() + pair * n, n};
}

bool TowerAgreementCheck::agrees(std::size_t tower, std::span<const uint64_t> ntt_values,
                                 std::span<const __int128> sums) const {
  const std::size_t n = ring_->degree();
  const TowerWeights& weights = built_weights(tower);
  const std::size_t pairs = pair_count(tower);
  if (ntt_values.size() != n || sums.size() < pairs) {
    throw InvalidArgument("TowerAgreementCheck: needs N values and one guess sum per pair");
  }
  const math::Modulus& q = ring_->modulus(tower);
  // Rows two at a time (the usual count), so each pass reads the tower once
  // for two weight vectors.
  for (std::size_t p = 0; p < pairs; p += 2) {
    uint64_t dots[2];
    const uint64_t* rows = weights.r.data() + p * n;
    if (p + 1 < pairs) {
      dot_mod_rows<2>(rows, ntt_values.data(), n, q, dots);
    } else {
      dot_mod_rows<1>(rows, ntt_values.data(), n, q, dots);
    }
    for (std::size_t k = p; k < std::min(pairs, p + 2); ++k) {
      if (dots[k - p] != reduce_signed(sums[k], q)) return false;
    }
  }
  return true;
}

}  // namespace heft::ckks::detail
