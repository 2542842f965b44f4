// AVX512-IFMA52 long sums for q < 2^50: dot_product_pair (key switching's
// inner product) accumulates the 52-bit halves of its products and reduces
// only every few terms (see below); wider operands take avx512's sums
// (floating-point quotients below 2^55, split sums above). weighted_sum_mod
// and scaled_sum_double are avx512's.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_lane_ops.hpp"
#include "math/kernels/ifma/modular_arith.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/key_run_prefetch.hpp"

namespace heft::math::kernels::HEFT_IFMA_NAMESPACE {
namespace {

// Key switching's inner product (dot_product_pair in kernel_api.hpp) for
// q < 2^50, with no reduction per term. Each product p = x b < q^2 < 2^100 is
// added to two accumulators by the multiply-adds themselves: lo += p mod 2^52
// and hi += floor(p / 2^52) < 2^48. Every kFoldTerms terms, and at the end,
// the pair is folded back into one value in [0, 4q), congruent to
// hi 2^52 + lo: H = hi + floor(lo / 2^52) times (2^52 mod q), plus
// (lo mod 2^52) times 1, both Shoup products (H < 2^52 is required). Between
// folds lo < 8q + 8 * 2^52 < 2^56 (a fold's value or a carried-in output,
// both below 8q) and hi < 8 * 2^48, so H < 2^51 + 16. A lazy output is the
// fold's value, in [0, 4q).
constexpr std::size_t kFoldTerms = 8;
static_assert(kFoldTerms % 2 == 0, "dot_product_pair folds at the end of a two-digit pass");

struct ProductFolder {
  ShoupProduct by_two52;  // times 2^52 mod q
  ShoupProduct by_one;    // times 1: reduces a value below 2^52 lazily
  __m512i mask52;

  // Shoup constants floor(w 2^64 / q), which ShoupProduct shifts to 52 bits.
  static uint64_t shoup64(uint64_t w, uint64_t q) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / q);
  }
  explicit ProductFolder(uint64_t q)
      : by_two52((uint64_t{1} << 52) % q, shoup64((uint64_t{1} << 52) % q, q), q),
        by_one(1, shoup64(1, q), q),
        mask52(set1(kMask52)) {}

  // [0, 4q), congruent to hi 2^52 + lo.
  __m512i fold(__m512i lo, __m512i hi) const {
    const __m512i high = _mm512_add_epi64(hi, _mm512_srli_epi64(lo, 52));
    const __m512i low = by_one.lazy(_mm512_and_si512(lo, mask52), by_one.zero);  // [0, 2q)
    return by_two52.lazy(high, low);                                             // + [0, 2q)
  }
  // [0, q), or [0, 4q) when lazy.
  __m512i finish(__m512i lo, __m512i hi, bool lazy) const {
    const __m512i folded = fold(lo, hi);
    return lazy ? folded : reduce_once(reduce_once(folded, by_one.two_q), by_one.q);
  }
};

// One term of both sums: lo += lo52(x y), hi += hi52(x y) for y = b and a.
struct PairSums {
  __m512i lo0, hi0, lo1, hi1;
  void add(__m512i xv, __m512i bv, __m512i av) {
    lo0 = _mm512_madd52lo_epu64(lo0, xv, bv);
    hi0 = _mm512_madd52hi_epu64(hi0, xv, bv);
    lo1 = _mm512_madd52lo_epu64(lo1, xv, av);
    hi1 = _mm512_madd52hi_epu64(hi1, xv, av);
  }
  void fold(const ProductFolder& folder) {
    lo0 = folder.fold(lo0, hi0);
    lo1 = folder.fold(lo1, hi1);
    hi0 = hi1 = _mm512_setzero_si512();
  }
};

// The last n - first (< 8) coefficients, in one masked vector that reads and
// writes nothing past n.
void dot_product_pair_tail(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                           const uint64_t* const* b, const uint64_t* const* a, size_t k,
                           size_t first, size_t n, const ProductFolder& folder, bool accumulate,
                           bool lazy_output) {
  const __mmask8 lanes = static_cast<__mmask8>((1u << (n - first)) - 1);
  const __m512i zero = _mm512_setzero_si512();
  PairSums sums{zero, zero, zero, zero};
  if (accumulate) {
    sums.lo0 = _mm512_maskz_loadu_epi64(lanes, out0 + first);
    sums.lo1 = _mm512_maskz_loadu_epi64(lanes, out1 + first);
  }
  for (size_t j = 0; j < k; ++j) {
    sums.add(_mm512_maskz_loadu_epi64(lanes, x[j] + first),
             _mm512_maskz_loadu_epi64(lanes, b[j] + first),
             _mm512_maskz_loadu_epi64(lanes, a[j] + first));
    if ((j + 1) % kFoldTerms == 0 && j + 1 < k) sums.fold(folder);
  }
  _mm512_mask_storeu_epi64(out0 + first, lanes, folder.finish(sums.lo0, sums.hi0, lazy_output));
  _mm512_mask_storeu_epi64(out1 + first, lanes, folder.finish(sums.lo1, sums.hi1, lazy_output));
}

}  // namespace

// Block by block, the four sums of each coefficient live in L1-resident
// arrays while the digits stream past two at a time: six input streams at
// once instead of 3k, which the hardware prefetchers follow far better when
// the key comes from DRAM (the split sums of avx512 are organised the same
// way, split_sums.hpp).
void dot_product_pair(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,
                      const uint64_t* const* b, const uint64_t* const* a, size_t k, size_t n,
                      const ModulusData& q, bool accumulate, bool lazy_output) {
  if (q.value >= kModulusBound || k == 0) {  // avx512's also handles k = 0
    HEFT_AVX512_NAMESPACE::dot_product_pair(out0, out1, x, b, a, k, n, q, accumulate, lazy_output);
    return;
  }
  const ProductFolder folder(q.value);
  const __m512i zero = _mm512_setzero_si512();
  constexpr size_t kBlock = 512;
  alignas(64) uint64_t stored[4][kBlock];
  const size_t full = n / 8 * 8;
  const KeyRunPrefetcher prefetch_key(b, a, k, full, kBlock);
  for (size_t start = 0; start < full; start += kBlock) {
    const size_t size = full - start < kBlock ? full - start : kBlock;
    for (size_t j = 0; j < k; j += 2) {
      // Digits j and j + 1 (j alone at the end of an odd k).
      const bool last_pass = j + 2 >= k;
      for (size_t i = 0; i < size; i += 8) {
        PairSums sums{zero, zero, zero, zero};
        if (j == 0 && accumulate) {  // values below 8q: within lo's carried-in bound
          sums.lo0 = _mm512_loadu_si512(out0 + start + i);
          sums.lo1 = _mm512_loadu_si512(out1 + start + i);
        } else if (j > 0) {
          sums = {_mm512_load_si512(stored[0] + i), _mm512_load_si512(stored[1] + i),
                  _mm512_load_si512(stored[2] + i), _mm512_load_si512(stored[3] + i)};
        }
        const size_t at = start + i;
        prefetch_key(j, start, size, i);
        for (size_t d = j; d < j + 2 && d < k; ++d) {
          sums.add(_mm512_loadu_si512(x[d] + at), _mm512_loadu_si512(b[d] + at),
                   _mm512_loadu_si512(a[d] + at));
        }
        // kFoldTerms is even, so a fold falls at the end of a pass.
        if (!last_pass && (j + 2) % kFoldTerms == 0) sums.fold(folder);
        if (last_pass) {
          _mm512_storeu_si512(out0 + at, folder.finish(sums.lo0, sums.hi0, lazy_output));
          _mm512_storeu_si512(out1 + at, folder.finish(sums.lo1, sums.hi1, lazy_output));
        } else {
          _mm512_store_si512(stored[0] + i, sums.lo0);
          _mm512_store_si512(stored[1] + i, sums.hi0);
          _mm512_store_si512(stored[2] + i, sums.lo1);
          _mm512_store_si512(stored[3] + i, sums.hi1);
        }
      }
    }
  }
  if (full < n) {
    dot_product_pair_tail(out0, out1, x, b, a, k, full, n, folder, accumulate, lazy_output);
  }
}

// weighted_sum_mod is avx512's: its floating-point quotients take five
// instructions per term against four 52-bit multiplies here and ran faster
// (bench_poly's WeightedSum/avx512/16384/50 against /ifma/), and they take
// any number of terms in groups.
void weighted_sum_mod(uint64_t* out, const uint64_t* const* rows, size_t column, const uint64_t* w,
                      const uint64_t* w_shoup, size_t k, size_t n, uint32_t input_bits,
                      const ModulusData& q) {
  HEFT_AVX512_NAMESPACE::weighted_sum_mod(out, rows, column, w, w_shoup, k, n, input_bits, q);
}

void scaled_sum_double(double* sums, const uint64_t* rows, size_t stride, const double* factors,
                       size_t k, size_t n) {
  HEFT_AVX512_NAMESPACE::scaled_sum_double(sums, rows, stride, factors, k, n);
}

}  // namespace heft::math::kernels::HEFT_IFMA_NAMESPACE
