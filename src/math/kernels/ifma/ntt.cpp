// AVX512-IFMA52 negacyclic NTT on 8 x 64-bit lanes: the arithmetic policies
// for the schedule in avx512_ntt_schedule.hpp. Below 2^50, 52-bit
// butterflies (described here); from 2^50 to 2^55, the 64-bit butterflies of
// avx512_shoup_arith.hpp with a Shoup quotient made by IFMA
// (IfmaSplitQuotient below); above, the avx512 level's transforms.
//
// The butterflies use 52-bit Shoup constants floor(W 2^52 / q) and the IFMA
// multiply-adds, which read the low 52 bits of their operands, so every lazy
// value must stay below 2^52:
//  - W*y mod q for y < 2^52: Q = madd52hi(y, W') is at most 1 short, so
//    r = W y - Q q is in [0, 2q) < 2^52 and equals the low 52 bits of
//    lo52(W y) + lo52(Q (2^52 - q)) (one mask drops the carry into bit 52).
//  - forward: values in [0, 4q) (4q < 2^52): X is brought to [0, 2q),
//    X + T and X - T + 2q are in [0, 4q); the scalar ranges. Below 2^49 the
//    forward transform reduces X only every other stage and lets values
//    reach 8q (Ifma52HalfReducedArith).
//  - inverse: values in [0, 2q): X + Y is brought back to [0, 2q) and
//    W*(X - Y + 2q) (an operand below 4q) is in [0, 2q).
// Outputs are fully reduced to [0, q), equal to the scalar ones bit for bit.
#include "math/kernels/avx512_intrinsics.hpp"
#include "math/kernels/avx512_ntt_schedule.hpp"
#include "math/kernels/avx512_shoup_arith.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math::kernels::HEFT_IFMA_NAMESPACE {
namespace {

constexpr uint64_t kMask52 = (uint64_t{1} << 52) - 1;

// 52-bit Shoup arithmetic with the lazy ranges above.
struct Ifma52Arith {
  // A twiddle W (per lane) with its 52-bit Shoup constant floor(W 2^52 / q).
  struct Twiddle {
    __m512i w;
    __m512i shoup;
  };

  struct Constants {
    __m512i q, two_q, four_q, neg_q, mask52;  // neg_q = 2^52 - q
  };

  static Twiddle make_twiddle(__m512i w, __m512i shoup) { return {w, shoup}; }
  static Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) { return {set1(w), set1(shoup)}; }
  static Constants make_constants(uint64_t q) {
    return {set1(q), set1(2 * q), set1(4 * q), set1((uint64_t{1} << 52) - q), set1(kMask52)};
  }

  static TwiddleTable forward_table(const NttTableData& t) {
    return {t.roots, t.roots_shoup52, t.last_roots, t.last_roots_shoup52};
  }
  static TwiddleTable inverse_table(const NttTableData& t) {
    return {t.inv_roots, t.inv_roots_shoup52, t.last_inv_roots, t.last_inv_roots_shoup52};
  }
  static InverseScale<Ifma52Arith> inverse_scale(const NttTableData& t) {
    return {broadcast_twiddle(t.inv_degree, t.inv_degree_shoup52),
            broadcast_twiddle(t.inv_degree_root, t.inv_degree_root_shoup52)};
  }

  // W*y mod q in [0, 2q) for y < 2^52 (see the header comment).
  static __m512i mul_shoup_lazy(__m512i y, const Twiddle& w, const Constants& c) {
    const __m512i quotient = _mm512_madd52hi_epu64(_mm512_setzero_si512(), y, w.shoup);
    const __m512i product = _mm512_madd52lo_epu64(_mm512_setzero_si512(), y, w.w);
    return _mm512_and_si512(_mm512_madd52lo_epu64(product, quotient, c.neg_q), c.mask52);
  }

  // The forward range [0, 4q) -> [0, q).
  static __m512i reduce_forward_output(__m512i x, const Constants& c) {
    return reduce_once(reduce_once(x, c.two_q), c.q);
  }

  // Forward (Cooley-Tukey) butterfly: x, y in [0, 4q) -> x + W y, x - W y in [0, 4q).
  HEFT_BUTTERFLY void forward_butterfly(__m512i& x, __m512i& y, const Twiddle& w,
                                        const Constants& c) {
    const __m512i xr = reduce_once(x, c.two_q);  // [0, 2q)
    const __m512i t = mul_shoup_lazy(y, w, c);   // [0, 2q)
    x = _mm512_add_epi64(xr, t);
    y = _mm512_sub_epi64(_mm512_add_epi64(xr, c.two_q), t);
  }
  HEFT_BUTTERFLY void forward_butterfly_second(__m512i& x, __m512i& y, const Twiddle& w,
                                               const Constants& c) {
    forward_butterfly(x, y, w, c);
  }

  // Inverse (Gentleman-Sande) butterfly: x, y in [0, 2q) -> x + y, W (x - y) in [0, 2q).
  HEFT_BUTTERFLY void inverse_butterfly(__m512i& x, __m512i& y, const Twiddle& w,
                                        const Constants& c) {
    const __m512i sum = _mm512_add_epi64(x, y);                              // [0, 4q)
    const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.two_q), y);  // (0, 4q)
    x = reduce_once(sum, c.two_q);
    y = mul_shoup_lazy(diff, w, c);
  }

  // Last inverse stage (m = 1) with 1/N folded in: the products take the
  // unreduced sum and difference (< 4q < 2^52) and land in [0, 2q), then [0, q).
  HEFT_BUTTERFLY void inverse_butterfly_last(__m512i& x, __m512i& y, const Twiddle& inv_n,
                                             const Twiddle& inv_n_root, const Constants& c) {
    const __m512i sum = _mm512_add_epi64(x, y);
    const __m512i diff = _mm512_sub_epi64(_mm512_add_epi64(x, c.two_q), y);
    x = reduce_once(mul_shoup_lazy(sum, inv_n, c), c.q);
    y = reduce_once(mul_shoup_lazy(diff, inv_n_root, c), c.q);
  }
};

// The forward transform for q < 2^49, where 8q < 2^52 leaves room to reduce
// half as often: a stage pair takes values in [0, 8q), the first stage brings
// X to [0, 4q) (one conditional subtraction, of 4q) and outputs [0, 6q), the
// second leaves X as it is (W*Y still has Y < 2^52) and outputs [0, 8q).
// One reduction per two butterflies instead of two.
struct Ifma52HalfReducedArith : Ifma52Arith {
  HEFT_BUTTERFLY void forward_butterfly(__m512i& x, __m512i& y, const Twiddle& w,
                                        const Constants& c) {
    const __m512i xr = reduce_once(x, c.four_q);  // [0, 4q)
    const __m512i t = mul_shoup_lazy(y, w, c);    // [0, 2q)
    x = _mm512_add_epi64(xr, t);                  // [0, 6q)
    y = _mm512_sub_epi64(_mm512_add_epi64(xr, c.two_q), t);
  }
  HEFT_BUTTERFLY void forward_butterfly_second(__m512i& x, __m512i& y, const Twiddle& w,
                                               const Constants& c) {
    const __m512i t = mul_shoup_lazy(y, w, c);  // y < 6q: [0, 2q)
    y = _mm512_sub_epi64(_mm512_add_epi64(x, c.two_q), t);
    x = _mm512_add_epi64(x, t);  // [0, 8q)
  }
  // [0, 8q) -> [0, q).
  static __m512i reduce_forward_output(__m512i x, const Constants& c) {
    return Ifma52Arith::reduce_forward_output(reduce_once(x, c.four_q), c);
  }
};

constexpr uint64_t kHalfReducedBound = uint64_t{1} << 49;

// The Shoup quotient for 2^50 <= q < 2^55 (SEAL's 55-bit primes), where the
// 52-bit butterflies above cannot go but the 64-bit ones of
// avx512_shoup_arith.hpp can take a quotient made with IFMA: for y < 8q <
// 2^58, split y = y1 2^52 + y0 (y1 < 2^6) and
//   A = floor(y1 Wa / 2^6), Wa = floor(W 2^58 / q)  (y1 Wa < 2^64: one vpmullq),
//   B = floor(y0 Wb / 2^52), Wb = floor(W 2^52 / q)  (madd52hi reads y0 = the
//       low 52 bits of y by itself, and adds A).
// Each of A and B is within 2 below its share of y W / q (Wa and Wb are
// floors, then the floor of the quotient), so A + B = floor(y W / q) - e with
// e <= 3: the bound the butterflies need. Four instructions (shift, vpmullq,
// shift, vpmadd52huq) where the 32-bit partial products take seven; both
// constants are shifts of the tables' floor(W 2^64 / q).
struct IfmaSplitQuotient {
  struct Twiddle {
    __m512i w;
    __m512i high_shoup;  // Wa = floor(W 2^58 / q)
    __m512i low_shoup;   // Wb = floor(W 2^52 / q)
  };
  static Twiddle make_twiddle(__m512i w, __m512i shoup) {
    return {w, _mm512_srli_epi64(shoup, 6), _mm512_srli_epi64(shoup, 12)};
  }
  static Twiddle broadcast_twiddle(uint64_t w, uint64_t shoup) {
    return {set1(w), set1(shoup >> 6), set1(shoup >> 12)};
  }
  static __m512i quotient(__m512i y, const Twiddle& w) {
    const __m512i high = _mm512_mullo_epi64(_mm512_srli_epi64(y, 52), w.high_shoup);
    return _mm512_madd52hi_epu64(_mm512_srli_epi64(high, 6), y, w.low_shoup);
  }
};

// Moduli the split quotient serves: 8q must stay below 2^58.
constexpr uint64_t kSplitQuotientBound = uint64_t{1} << 55;

}  // namespace

void ntt_forward_shifted_from(uint64_t* out, const uint64_t* in, uint64_t shift,
                              const NttTableData& table) {
  if (table.roots_shoup52 == nullptr) {  // q >= 2^50: no 52-bit tables
    if (table.modulus.value < kSplitQuotientBound) {
      forward_ntt<ShoupArith<IfmaSplitQuotient>>(out, in, table, shift);
    } else {
      HEFT_AVX512_NAMESPACE::ntt_forward_shifted_from(out, in, shift, table);
    }
    return;
  }
  if (table.modulus.value < kHalfReducedBound) {
    forward_ntt<Ifma52HalfReducedArith>(out, in, table, shift);
  } else {
    forward_ntt<Ifma52Arith>(out, in, table, shift);
  }
}

void ntt_forward_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  ntt_forward_shifted_from(out, in, 0, table);
}

void ntt_inverse_from(uint64_t* out, const uint64_t* in, const NttTableData& table) {
  if (table.inv_roots_shoup52 == nullptr) {  // q >= 2^50: no 52-bit tables
    if (table.modulus.value < kSplitQuotientBound) {
      inverse_ntt<ShoupArith<IfmaSplitQuotient>>(out, in, table);
    } else {
      HEFT_AVX512_NAMESPACE::ntt_inverse_from(out, in, table);
    }
    return;
  }
  inverse_ntt<Ifma52Arith>(out, in, table);
}

void ntt_forward(uint64_t* values, const NttTableData& table) {
  ntt_forward_from(values, values, table);
}

void ntt_inverse(uint64_t* values, const NttTableData& table) {
  ntt_inverse_from(values, values, table);
}

}  // namespace heft::math::kernels::HEFT_IFMA_NAMESPACE
