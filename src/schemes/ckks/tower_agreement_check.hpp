// A randomized test that the towers of a plaintext, held in NTT form, are the
// residues of a known integer polynomial, without inverse NTTs.
//
// CKKS decoding guesses every coefficient from tower 0 and must confirm the
// guess s against every other tower i (see decoder.cpp). Transforming tower i
// back to coefficients costs (N/2) log2 N butterflies; this test costs one
// or two multiplications per coefficient and tower.
//
// The NTT is linear: NTT(x)_k = x(w_k) for the N roots w_k of X^N + 1. For
// integer weights c_j there are r_k mod q_i with
//   sum_k r_k NTT(x)_k = sum_j c_j x_j (mod q_i)   for every x,
// namely r = N^-1 NTT(y) with y_0 = c_0 and y_m = -c_(N-m) for m >= 1 (the
// inverse of NTT^T, from w_k^-j = -w_k^(N-j)). So tower i agrees with the
// guess when sum_k r_k x^_k = G mod q_i, with G = sum_j c_j s_j computed once
// over the integers for all towers. If d = x - s is not 0 modulo q_i, some
// d_j is not, and with c_j uniform in [0, 2^32) the sum sum_j c_j d_j
// vanishes modulo q_i with probability at most 2^-32 (q_i > 2^32; for
// smaller q_i at most 2^-(floor(log2 q_i) - 1)). A right guess always passes.
// Independent weight vectors ("pairs" (c, r)) are used until a wrong guess
// passes with probability at most 2^-64, whatever the plaintext, as long as
// the plaintext does not depend on the weights: they come from the operating
// system's entropy and never leave this object.
//
// Memory: the c vectors (pairs * N 32-bit words) and, for each tower checked,
// its r vectors (pairs * N words), built once (thread-safe) on first use, so
// only the towers of levels that are actually decoded cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "heft/ring/poly_context.hpp"
#include "heft/util/aligned_buffer.hpp"

namespace heft::ckks::detail {

class TowerAgreementCheck {
 public:
  // The largest probability of accepting a wrong guess, as a power of 2.
  static constexpr int kSoundnessBits = 64;

  // Throws InvalidArgument on a null ring.
  explicit TowerAgreementCheck(std::shared_ptr<const ring::PolyContext> ring);

  // G_p = sum_j c_pj s_j for each pair p, exactly, where s_j is guess_j
  // centered modulo q_0 into (-q_0/2, q_0/2] (guess: tower 0's N
  // coefficients, each below q_0).
  [[nodiscard]] std::vector<__int128> guess_sums(std::span<const uint64_t> guess) const;

  // Whether tower `tower` >= 1 (its N values in NTT form, each below
  // q_tower) agrees with the guess whose guess_sums() are given. Never false
  // for a right guess; over all towers, true for a wrong one with probability
  // at most 2^-kSoundnessBits.
  [[nodiscard]] bool agrees(std::size_t tower, std::span<const uint64_t> ntt_values,
                            std::span<const __int128> sums) const;

  // How many pairs `tower` uses (guess_sums() gives one sum for each pair
  // any tower uses).
  [[nodiscard]] std::size_t pair_count(std::size_t tower) const;
  // For tests: c of pair p (N words below 2^32), and r of pair p for `tower`
  // (N words below q_tower).
  [[nodiscard]] std::span<const uint32_t> coefficient_weights(std::size_t pair) const;
  [[nodiscard]] std::span<const uint64_t> ntt_weights(std::size_t tower, std::size_t pair) const;

 private:
  struct TowerWeights {
    std::once_flag built;
    AlignedBuffer<uint64_t> r;  // pair_count(tower) rows of N
  };
  const TowerWeights& built_weights(std::size_t tower) const;

  std::shared_ptr<const ring::PolyContext> ring_;
  std::size_t pairs_ = 0;
  AlignedBuffer<uint32_t> c_;  // pairs_ rows of N
  std::unique_ptr<TowerWeights[]> towers_;
};

}  // namespace heft::ckks::detail
