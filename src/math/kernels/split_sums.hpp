// Split-product sums: the two long modular sums of the kernels
// (dot_product_pair, key switching's inner product, and weighted_sum_mod,
// base conversion's sum) for operands below 2^b, b <= 60, on vector units
// that only multiply 32 x 32 bits (AVX2, AVX-512 without IFMA). Written once
// here over a vector policy; avx2/sums.cpp and avx512/sums.cpp supply the
// policies.
//
// A full 64 x 64-bit product costs four such multiplies plus a carry chain,
// and a 128-bit running sum a carry test per term. Cheaper: split each
// operand at s = ceil(b/2) bits, u = u1 2^s + u0 and v = v1 2^s + v0 (all
// four halves below 2^30, so a 32-bit multiplier takes them as they are), and
// keep three plain 64-bit sums,
//   low = sum u0 v0 (each < 2^2s), middle = sum u0 v1 + u1 v0 (each < 2^(b+1)),
//   high = sum u1 v1 (each < 2^(2(b-s)) <= 2^2s),
// whose value is low + middle 2^s + high 2^2s. Four multiplies and four adds
// per product, no carries. A sum takes first_terms products (8 at b = 60, 16
// at b = 59, 256 at b = 55), then the policy's finish() reduces it to [0, q);
// a longer sum carries that value into the low sum of the next chunk, which
// then takes next_terms products (8, 15 and 255). A sum that starts from the
// outputs' values (accumulate: below 8q, a lazy earlier result) takes
// carried_terms products first (8, 8 and 252).
//
// Included only by kernel files compiled with their level's flags; everything
// is in an anonymous namespace (internal linkage, see kernel_api.hpp).
//
// A policy Ops provides: Vec, kLanes; Halves (u0, u1 of a vector) and Sum
// (low, middle, high); load(p) (unaligned), load_aligned(p),
// store_aligned(p, v), store(p, v) (unaligned); broadcast(w); split(v);
// sum_of(carried_in); add_product(sum, u, v); finish(sum) -> [0, q);
// finish_lazy(sum) -> [0, 8q), congruent (a few instructions fewer: what a
// sum taken a few terms at a time leaves between its parts); and the plan()
// it was built from.
#pragma once

#include <cstddef>
#include <cstdint>

#include "math/kernels/kernel_api.hpp"
#include "math/kernels/key_run_prefetch.hpp"

namespace heft::math::kernels {
namespace {

constexpr int kMaxSplitBits = 60;

// The scalar side of a split sum for q < 2^b: the split point and how many
// products a sum can take.
struct SplitSumPlan {
  int shift;                  // s = ceil(b/2)
  uint64_t two_2s_mod_q;      // 2^2s mod q, the weight of high
  bool low_part_below_4q;     // low + middle 2^s < 2^2s <= 4q (q has b bits)
  std::size_t first_terms;    // products in a sum that starts from 0
  std::size_t next_terms;     // products in a sum that starts from a carried value
  std::size_t carried_terms;  // products in a sum that starts from a value below 8q
};

// b: the bit bound of both operands (2 <= b <= 60), q < 2^b.
inline SplitSumPlan plan_split_sum(uint64_t q, int b) {
  const int s = (b + 1) / 2;
  SplitSumPlan plan;
  plan.shift = s;
  plan.two_2s_mod_q = (uint64_t{1} << (2 * s)) % q;
  plan.low_part_below_4q = 64 - __builtin_clzll(q) == b;
  // Exact bounds, so that no power-of-two slack costs a term: low gets up to
  // (2^s - 1)^2 per product on top of its carried-in value, middle up to
  // 2 (2^s - 1)(2^(b-s) - 1) per product and, in finish(), low >> s; high
  // (at most half middle's per-product bound, as b - s <= s) then has room
  // for middle >> s.
  using u128 = unsigned __int128;
  const u128 limit = (u128{1} << 64) - 1;
  const u128 low_half = (u128{1} << s) - 1, high_half = (u128{1} << (b - s)) - 1;
  const u128 low_per_product = low_half * low_half;
  const u128 middle_terms = (limit - (limit >> s)) / (2 * low_half * high_half);
  const auto terms_from = [&](u128 carried_in) {
    const u128 low_terms = (limit - carried_in) / low_per_product;
    return static_cast<std::size_t>(low_terms < middle_terms ? low_terms : middle_terms);
  };
  plan.first_terms = terms_from(0);
  plan.next_terms = terms_from((u128{1} << b) - 1);     // a finished value is below q < 2^b
  plan.carried_terms = terms_from((u128{8} << b) - 1);  // a lazy one is below 8q < 2^(b+3)
  return plan;
}

// dot_product_pair for coefficients [0, count), count a multiple of
// Ops::kLanes: block by block, the six split sums of each coefficient live in
// arrays while the digits stream past, two digits per pass (half the loads
// and stores of the sums); at the end of each chunk of digits the sums are
// finished and the result carried into the next chunk. With accumulate, the
// outputs' values (below 8q) are carried into the first chunk; with
// lazy_output the last finish leaves the sums in [0, 8q).
template <class Ops>
void dot_product_pair_split(const Ops& ops, uint64_t* out0, uint64_t* out1,
                            const uint64_t* const* x, const uint64_t* const* b,
                            const uint64_t* const* a, std::size_t k, std::size_t count,
                            bool accumulate, bool lazy_output) {
  using Sum = typename Ops::Sum;
  using Halves = typename Ops::Halves;
  // Six 8 KB sum arrays (in L1 or L2); each pass then reads 8 KB runs of
  // every digit and key half, which streams from DRAM better than shorter
  // runs (the key of a large parameter set is far beyond the caches).
  constexpr std::size_t kBlock = 1024;
  constexpr std::size_t kLanes = Ops::kLanes;
  alignas(64) uint64_t sums[6][kBlock];
  // Chunks of an even number of digits (a pass never straddles two): the
  // first of first_even digits (next_even when it starts from a carried
  // value), the others of next_even (both >= 8).
  const std::size_t first_even =
      (accumulate ? ops.plan().carried_terms : ops.plan().first_terms) / 2 * 2;
  const std::size_t next_even = ops.plan().next_terms / 2 * 2;
  const auto starts_chunk = [&](std::size_t j) {
    return j == 0 || (j >= first_even && (j - first_even) % next_even == 0);
  };
  const auto load_sum = [&](int first, std::size_t i) {
    return Sum{ops.load_aligned(sums[first] + i), ops.load_aligned(sums[first + 1] + i),
               ops.load_aligned(sums[first + 2] + i)};
  };
  const auto store_sum = [&](int first, std::size_t i, const Sum& sum) {
    ops.store_aligned(sums[first] + i, sum.low);
    ops.store_aligned(sums[first + 1] + i, sum.middle);
    ops.store_aligned(sums[first + 2] + i, sum.high);
  };
  const KeyRunPrefetcher prefetch_key(b, a, k, count, kBlock);
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t size = count - start < kBlock ? count - start : kBlock;
    for (std::size_t j = 0; j < k; j += 2) {
      // Digits j and j + 1 (j alone at the end of an odd k).
      const bool pair = j + 1 < k;
      const bool first_of_chunk = starts_chunk(j);
      const bool last_of_chunk = j + 2 >= k || starts_chunk(j + 2);
      for (std::size_t i = 0; i < size; i += kLanes) {
        Sum sum0, sum1;
        if (j == 0 && accumulate) {
          sum0 = ops.sum_of(ops.load(out0 + start + i));
          sum1 = ops.sum_of(ops.load(out1 + start + i));
        } else if (j == 0) {
          sum0 = sum1 = ops.sum_of(ops.broadcast(0));
        } else if (first_of_chunk) {
          // The previous chunk's finished value, kept in the low array.
          sum0 = ops.sum_of(ops.load_aligned(sums[0] + i));
          sum1 = ops.sum_of(ops.load_aligned(sums[3] + i));
        } else {
          sum0 = load_sum(0, i);
          sum1 = load_sum(3, i);
        }
        const std::size_t at = start + i;
        prefetch_key(j, start, size, i);
        const Halves xv = ops.split(ops.load(x[j] + at));
        ops.add_product(sum0, xv, ops.split(ops.load(b[j] + at)));
        ops.add_product(sum1, xv, ops.split(ops.load(a[j] + at)));
        if (pair) {
          const Halves xw = ops.split(ops.load(x[j + 1] + at));
          ops.add_product(sum0, xw, ops.split(ops.load(b[j + 1] + at)));
          ops.add_product(sum1, xw, ops.split(ops.load(a[j + 1] + at)));
        }
        if (!last_of_chunk) {
          store_sum(0, i, sum0);
          store_sum(3, i, sum1);
        } else if (j + 2 < k) {
          ops.store_aligned(sums[0] + i, ops.finish(sum0));
          ops.store_aligned(sums[3] + i, ops.finish(sum1));
        } else if (lazy_output) {
          ops.store(out0 + at, ops.finish_lazy(sum0));
          ops.store(out1 + at, ops.finish_lazy(sum1));
        } else {
          ops.store(out0 + at, ops.finish(sum0));
          ops.store(out1 + at, ops.finish(sum1));
        }
      }
    }
  }
}

// weighted_sum_mod for coefficients [0, count), count a multiple of
// 2 Ops::kLanes, two vectors per step so the core has two independent chains
// of sums. kRowsPerPass rows at a time (see kernel_api.hpp): a pass after the
// first carries in what out holds (below q).
template <class Ops>
void weighted_sum_split(const Ops& ops, uint64_t* out, const uint64_t* const* rows,
                        std::size_t column, const uint64_t* w, std::size_t k, std::size_t count) {
  using Sum = typename Ops::Sum;
  using Halves = typename Ops::Halves;
  constexpr std::size_t kLanes = Ops::kLanes;
  Halves weights[kRowsPerPass];
  for (std::size_t pass = 0; pass < k; pass += kRowsPerPass) {
    const std::size_t terms = k - pass < kRowsPerPass ? k - pass : kRowsPerPass;
    for (std::size_t i = 0; i < terms; ++i)
      weights[i] = ops.split(ops.broadcast(w[pass + i]));
    for (std::size_t c = 0; c < count; c += 2 * kLanes) {
      Sum sum0 = ops.sum_of(pass > 0 ? ops.load(out + c) : ops.broadcast(0));
      Sum sum1 = ops.sum_of(pass > 0 ? ops.load(out + c + kLanes) : ops.broadcast(0));
      // products the sums can still take
      std::size_t room = pass > 0 ? ops.plan().next_terms : ops.plan().first_terms;
      for (std::size_t i = 0; i < terms; ++i) {
        const uint64_t* row = rows[pass + i] + column + c;
        ops.add_product(sum0, ops.split(ops.load(row)), weights[i]);
        ops.add_product(sum1, ops.split(ops.load(row + kLanes)), weights[i]);
        if (--room == 0 && i + 1 < terms) {
          sum0 = ops.sum_of(ops.finish(sum0));
          sum1 = ops.sum_of(ops.finish(sum1));
          room = ops.plan().next_terms;
        }
      }
      ops.store(out + c, ops.finish(sum0));
      ops.store(out + c + kLanes, ops.finish(sum1));
    }
  }
}

// Carried-in outputs [first, n), below 8q (q < 2^61), reduced to [0, q) in
// place, for the paths that take a reduced carry-in.
inline void reduce_carried(uint64_t* out, std::size_t first, std::size_t n, uint64_t q) {
  for (std::size_t i = first; i < n; ++i) {
    uint64_t v = out[i];
    v = v >= 4 * q ? v - 4 * q : v;
    v = v >= 2 * q ? v - 2 * q : v;
    out[i] = v >= q ? v - q : v;
  }
}

// dot_product_pair's coefficients [first, n) one product at a time, in
// blocks of `block` coefficients (so the outputs stay in L1 while every term
// is added): the tail that does not fill a vector, and the moduli the sums
// above cannot take. mul_mod and fma_mod are the level's kernels. k >= 1.
// Outputs in [0, q); with accumulate, the outputs' values (below 8q) are
// carried in.
template <class MulMod, class FmaMod>
void dot_product_pair_by_products(MulMod mul_mod, FmaMod fma_mod, uint64_t* out0, uint64_t* out1,
                                  const uint64_t* const* x, const uint64_t* const* b,
                                  const uint64_t* const* a, std::size_t k, std::size_t first,
                                  std::size_t n, std::size_t block, const ModulusData& q,
                                  bool accumulate) {
  if (accumulate) {
    reduce_carried(out0, first, n, q.value);
    reduce_carried(out1, first, n, q.value);
  }
  for (; first < n; first += block) {
    const std::size_t count = n - first < block ? n - first : block;
    if (accumulate) {
      fma_mod(out0 + first, x[0] + first, b[0] + first, out0 + first, count, q);
      fma_mod(out1 + first, x[0] + first, a[0] + first, out1 + first, count, q);
    } else {
      mul_mod(out0 + first, x[0] + first, b[0] + first, count, q);
      mul_mod(out1 + first, x[0] + first, a[0] + first, count, q);
    }
    for (std::size_t j = 1; j < k; ++j) {
      fma_mod(out0 + first, x[j] + first, b[j] + first, out0 + first, count, q);
      fma_mod(out1 + first, x[j] + first, a[j] + first, out1 + first, count, q);
    }
  }
}

}  // namespace
}  // namespace heft::math::kernels
