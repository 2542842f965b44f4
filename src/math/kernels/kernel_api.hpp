// The contract between the kernel dispatcher and the per-ISA kernel files.
//
// Each ISA level (scalar, avx2, avx512, ifma) implements the functions declared
// below in its own namespace, in translation units compiled with that level's
// compiler flags. Because those units are compiled with flags the rest of the
// library must not use, this header is deliberately plain: POD structs and
// function declarations only. No inline functions, no templates, no standard
// containers: any inline code shared with an ISA unit could be emitted with
// AVX-512 instructions and then picked by the linker for baseline callers,
// which would crash on older CPUs. Kernel files include only this header,
// <cstddef>/<cstdint> and intrinsics headers.
//
// Every kernel's result is fully reduced to [0, q), so all levels are
// bit-identical for the same input. Internally kernels may work lazily.
// "out" may alias an input exactly; partial overlap is not allowed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heft::math::kernels {

// A modulus q < 2^61 with its Barrett constants.
struct ModulusData {
  uint64_t value;       // q
  uint64_t barrett_hi;  // floor(2^128 / q), high word
  uint64_t barrett_lo;  // floor(2^128 / q), low word
  uint64_t barrett64;   // floor(2^64 / q)
};

// Precomputed tables for the negacyclic NTT of length N modulo q (see
// math/ntt_tables.hpp for how they are built). psi is a primitive 2N-th root
// of unity mod q and brv(k) reverses the log2(N) bits of k.
struct NttTableData {
  uint64_t degree;                    // N, a power of two
  uint32_t log_degree;                // log2(N)
  ModulusData modulus;                // q
  const uint64_t* roots;              // roots[k] = psi^brv(k), k in [0, N)
  const uint64_t* roots_shoup;        // floor(roots[k] * 2^64 / q)
  const uint64_t* inv_roots;          // inv_roots[k] = psi^-brv(k)
  const uint64_t* inv_roots_shoup;    // floor(inv_roots[k] * 2^64 / q)
  const uint64_t* roots_shoup52;      // floor(roots[k] * 2^52 / q); null unless q < 2^50
  const uint64_t* inv_roots_shoup52;  // floor(inv_roots[k] * 2^52 / q); null unless q < 2^50
  // The same as doubles for the floating-point paths (null unless q < 2^50):
  // W = roots[k] and W'' = roots_shoup52[k] / 2^52, both exact.
  const double* roots_double;
  const double* roots_ratio;
  const double* inv_roots_double;
  const double* inv_roots_ratio;
  // The same values of the last two stages (t = 2 and t = 1: roots[N/4, N))
  // in the order the AVX-512 transforms read them, one vector per 8
  // consecutive entries (avx512_ntt_schedule.hpp, transposed superblocks):
  // superblock s's t = 2 twiddles for its groups m < 8 at [16s + 8h + m] =
  // roots[N/4 + 16s + 2m + h], h < 2, and its t = 1 twiddles at
  // [N/4 + 32s + 8j + m] = roots[N/2 + 32s + 4m + j], j < 4. Null when
  // N < 64; the shoup52 ones also unless q < 2^50.
  const uint64_t* last_roots;
  const uint64_t* last_roots_shoup;
  const uint64_t* last_inv_roots;
  const uint64_t* last_inv_roots_shoup;
  const uint64_t* last_roots_shoup52;
  const uint64_t* last_inv_roots_shoup52;
  uint64_t inv_degree;          // N^-1 mod q
  uint64_t inv_degree_shoup;    // floor(N^-1 * 2^64 / q)
  uint64_t inv_degree_shoup52;  // floor(N^-1 * 2^52 / q) (0 unless q < 2^50)
  uint64_t inv_degree_root;     // N^-1 * inv_roots[1] mod q (merged into the last stage)
  uint64_t inv_degree_root_shoup;
  uint64_t inv_degree_root_shoup52;
};

// One ISA level's kernels. Ranges are inputs -> outputs.
#define HEFT_DECLARE_KERNELS(isa_namespace)                                                      \
  namespace isa_namespace {                                                                      \
  /* Forward negacyclic NTT in place: natural order in [0, 4q) -> bit-reversed order in [0, q).  \
     Output index k holds a(psi^(2 brv(k) + 1)). */                                              \
  void ntt_forward(uint64_t* values, const NttTableData& table);                                 \
  /* Inverse NTT in place (includes the 1/N factor): bit-reversed order in [0, 2q) ->            \
     natural order in [0, q). */                                                                 \
  void ntt_inverse(uint64_t* values, const NttTableData& table);                                 \
  /* out = a + b, a - b, -a mod q; inputs in [0, q) -> [0, q). */                                \
  void add_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q);       \
  void sub_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n, uint64_t q);       \
  void negate_mod(uint64_t* out, const uint64_t* a, size_t n, uint64_t q);                       \
  /* out = a * b mod q; inputs in [0, q) -> [0, q). */                                           \
  void mul_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, size_t n,                    \
               const ModulusData& q);                                                            \
  /* out = a * w mod q for a fixed w in [0, q) with w_shoup = floor(w 2^64 / q);                 \
     a in [0, q) -> [0, q). */                                                                   \
  void mul_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup, size_t n,  \
                      uint64_t q);                                                               \
  /* out = a * b + c mod q; all inputs in [0, q) -> [0, q). */                                   \
  void fma_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const uint64_t* c, size_t n, \
               const ModulusData& q);                                                            \
  /* out = a * w + c mod q for a fixed w (as mul_scalar_mod); inputs in [0, q) -> [0, q). */     \
  void fma_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t w, uint64_t w_shoup,            \
                      const uint64_t* c, size_t n, uint64_t q);                                  \
  /* out = a + c mod q for a fixed c in [0, q); a in [0, 4q) -> [0, q), so that a residue of a   \
     modulus below 4q needs no reduction pass first. */                                          \
  void add_scalar_mod(uint64_t* out, const uint64_t* a, uint64_t c, size_t n, uint64_t q);       \
  /* out = (a - b) * w (+ c) mod q for a fixed w (as mul_scalar_mod); c null: no addend; inputs  \
     in [0, q) -> [0, q). Modulus switching's subtract-and-scale in one pass. */                 \
  void sub_mul_scalar_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, uint64_t w,       \
                          uint64_t w_shoup, const uint64_t* c, size_t n, uint64_t q);            \
  /* Block permutation of an input of n values (a power of two >= 8) into count outputs (a       \
     multiple of 8), out not overlapping in: for each block b, out[8b + j] = in[8 (map[8b] / 8   \
     mod n / 8) + map[8b + j] mod 8]. For a map that sends each aligned block of 8 onto one (as  \
     the NTT-form automorphism maps do) this is out[k] = in[map[k]], with whole blocks moved by  \
     one vector permute; count < n takes the first outputs only (map, out: count entries). */    \
  void permute_blocks(uint64_t* out, const uint64_t* in, const uint32_t* map, size_t count,      \
                      size_t n);                                                                 \
  /* Reductions to [0, q): from [0, 2q), from [0, 4q), and from any 64-bit word. */              \
  void reduce_from_2q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q);                   \
  void reduce_from_4q(uint64_t* out, const uint64_t* a, size_t n, uint64_t q);                   \
  void reduce_any(uint64_t* out, const uint64_t* a, size_t n, const ModulusData& q);             \
  }

HEFT_DECLARE_KERNELS(scalar)
HEFT_DECLARE_KERNELS(avx2)
HEFT_DECLARE_KERNELS(avx512)
HEFT_DECLARE_KERNELS(ifma)
// Test-only builds of the AVX-512 and IFMA sources on top of SIMDe's portable
// emulation, so that their logic is checked on CPUs without AVX-512.
HEFT_DECLARE_KERNELS(avx512_emulated)
HEFT_DECLARE_KERNELS(ifma_emulated)

// Kernels outside the element-wise set. The out-of-place transforms are
// optional: null where a level has none (scalar), and the dispatcher then
// copies and runs the in-place transform. The two sums are null only in
// HEFT_KERNEL_TABLE's bare tables: every table the dispatcher runs sets them
// (scalar and avx2 in dispatch.cpp, the AVX-512 levels through the macros
// below), and it calls them directly. The contracts:
//   ntt_forward_from / ntt_inverse_from: out = NTT(in) / NTT^-1(in) with the
//     ranges of the in-place transforms; in untouched, in == out allowed.
//   ntt_forward_shifted_from: out = NTT(in + shift), the constant shift added
//     to every coefficient on the way in (modulus switching's centring, which
//     then costs no pass of its own): in + shift < 4q for every coefficient
//     (e.g. in < 3q and shift < q) -> [0, q); in == out allowed.
//   dot_product_pair: key switching's inner product, k terms sharing their
//     left operand: out0 = sum_j x[j] * b[j] and out1 = sum_j x[j] * a[j] mod
//     q; x, b, a hold k pointers to n words, all in [0, q) -> [0, q) (k = 0
//     gives zeros). With accumulate, the sums are added to what out0 and out1
//     hold (in [0, 8q), q < 2^61) instead. With lazy_output the outputs may be
//     left in [0, 8q), congruent (a level may reduce them further), so that a
//     long sum taken a few terms at a time reduces fully only at its end. The
//     outputs must not overlap any input.
//   scaled_sum_double (AVX-512 levels only; null elsewhere, where
//     math::scaled_sum_double runs a portable loop): base conversion's
//     estimate of sum_i y_i / q_i, sums[c] = sum_{i<k} rows[i*stride + c] *
//     factors[i] in doubles for c < n, rows below 2^61; each conversion and
//     each multiply-add rounds to nearest.
//   weighted_sum_mod: base conversion's sum for one target modulus q, and
//     polynomial evaluation's sum of constants times powers:
//     out[c] = sum_{i<k} rows[i][column + c] * w[i] mod q for c < n, with
//     fixed weights w[i] < q (w_shoup[i] = floor(w[i] 2^64 / q)) and inputs
//     below 2^input_bits, input_bits <= 61 (not necessarily below q) ->
//     [0, q); any k. rows holds k pointers (a strided block passes
//     y + i * stride). out must not overlap a row.
// Rows one pass of weighted_sum_mod reads at a time: each row is a stream
// the hardware prefetcher follows, and it follows a few dozen at most (a
// leaf of polynomial evaluation has hundreds of rows, 256 KiB each); a
// longer sum makes several passes, carrying its value in out.
constexpr size_t kRowsPerPass = 16;

#define HEFT_DECLARE_OUT_OF_PLACE_NTT                                                  \
  void ntt_forward_from(uint64_t* out, const uint64_t* in, const NttTableData& table); \
  void ntt_inverse_from(uint64_t* out, const uint64_t* in, const NttTableData& table);
#define HEFT_DECLARE_SHIFTED_NTT                                                   \
  void ntt_forward_shifted_from(uint64_t* out, const uint64_t* in, uint64_t shift, \
                                const NttTableData& table);
#define HEFT_DECLARE_DOT_PRODUCT_PAIR                                                           \
  void dot_product_pair(uint64_t* out0, uint64_t* out1, const uint64_t* const* x,               \
                        const uint64_t* const* b, const uint64_t* const* a, size_t k, size_t n, \
                        const ModulusData& q, bool accumulate, bool lazy_output);
#define HEFT_DECLARE_SUM_KERNELS                                                        \
  HEFT_DECLARE_DOT_PRODUCT_PAIR                                                         \
  void weighted_sum_mod(uint64_t* out, const uint64_t* const* rows, size_t column,      \
                        const uint64_t* w, const uint64_t* w_shoup, size_t k, size_t n, \
                        uint32_t input_bits, const ModulusData& q);

namespace scalar {
HEFT_DECLARE_SUM_KERNELS
}  // namespace scalar

namespace avx2 {
HEFT_DECLARE_OUT_OF_PLACE_NTT
HEFT_DECLARE_SUM_KERNELS
}  // namespace avx2

#define HEFT_DECLARE_SCALED_SUM                                                                    \
  void scaled_sum_double(double* sums, const uint64_t* rows, size_t stride, const double* factors, \
                         size_t k, size_t n);

// The radix-2 stages of a complex FFT (math/complex_fft.hpp), one form per
// vector width: scalar, avx2 (two complex values per vector) and avx512 (four,
// also what the ifma level runs). Complex numbers are interleaved (real,
// imaginary) pairs of doubles; n is a count of complex values, a power of
// two, and the stage of half-length h reads its twiddles at [h, 2h) of the
// table w, entry h + j for butterfly j. Each complex product is two products
// and a sum per part, never fused (these files are built with
// -ffp-contract=off), so every level gives the same bits:
//   fft_forward_stages: stages h = 1, 2, ..., n/2 of the decimation-in-time
//     transform, (x, y) -> (x + w y, x - w y).
//   fft_inverse_stages: stages h = n/2, ..., 1, (x, y) -> (x + y, w (x - y)).
#define HEFT_DECLARE_COMPLEX_FFT                                      \
  void fft_forward_stages(double* values, size_t n, const double* w); \
  void fft_inverse_stages(double* values, size_t n, const double* w);

namespace scalar {
HEFT_DECLARE_COMPLEX_FFT
}  // namespace scalar
namespace avx2 {
HEFT_DECLARE_COMPLEX_FFT
}  // namespace avx2
namespace avx512 {
HEFT_DECLARE_COMPLEX_FFT
}  // namespace avx512
namespace avx512_emulated {
HEFT_DECLARE_COMPLEX_FFT
}  // namespace avx512_emulated

// The AVX-512 levels (and their emulated builds): out-of-place and shifted
// transforms, both sums and the scaled sum in doubles; ifma's inner product
// has a 52-bit form of its own below 2^50, its other sums are avx512's.
namespace avx512 {
HEFT_DECLARE_OUT_OF_PLACE_NTT
HEFT_DECLARE_SHIFTED_NTT
HEFT_DECLARE_SUM_KERNELS
HEFT_DECLARE_SCALED_SUM
}  // namespace avx512
namespace avx512_emulated {
HEFT_DECLARE_OUT_OF_PLACE_NTT
HEFT_DECLARE_SHIFTED_NTT
HEFT_DECLARE_SUM_KERNELS
HEFT_DECLARE_SCALED_SUM
}  // namespace avx512_emulated
namespace ifma {
HEFT_DECLARE_OUT_OF_PLACE_NTT
HEFT_DECLARE_SHIFTED_NTT
HEFT_DECLARE_SUM_KERNELS
HEFT_DECLARE_SCALED_SUM
}  // namespace ifma
namespace ifma_emulated {
HEFT_DECLARE_OUT_OF_PLACE_NTT
HEFT_DECLARE_SHIFTED_NTT
HEFT_DECLARE_SUM_KERNELS
HEFT_DECLARE_SCALED_SUM
}  // namespace ifma_emulated

// Function-pointer table of one level, built by the dispatcher.
struct KernelTable {
  const char* name;
  decltype(&scalar::ntt_forward) ntt_forward;
  decltype(&scalar::ntt_inverse) ntt_inverse;
  decltype(&scalar::add_mod) add_mod;
  decltype(&scalar::sub_mod) sub_mod;
  decltype(&scalar::negate_mod) negate_mod;
  decltype(&scalar::mul_mod) mul_mod;
  decltype(&scalar::mul_scalar_mod) mul_scalar_mod;
  decltype(&scalar::fma_mod) fma_mod;
  decltype(&scalar::fma_scalar_mod) fma_scalar_mod;
  decltype(&scalar::reduce_from_2q) reduce_from_2q;
  decltype(&scalar::reduce_from_4q) reduce_from_4q;
  decltype(&scalar::reduce_any) reduce_any;
  decltype(&scalar::add_scalar_mod) add_scalar_mod;
  decltype(&scalar::sub_mul_scalar_mod) sub_mul_scalar_mod;
  decltype(&scalar::permute_blocks) permute_blocks;
  // Null where the level has none (see above; the sums only in bare tables).
  decltype(&avx2::ntt_forward_from) ntt_forward_from;
  decltype(&avx2::ntt_inverse_from) ntt_inverse_from;
  decltype(&avx512::ntt_forward_shifted_from) ntt_forward_shifted_from;
  decltype(&scalar::dot_product_pair) dot_product_pair;
  decltype(&scalar::weighted_sum_mod) weighted_sum_mod;
  decltype(&avx512::scaled_sum_double) scaled_sum_double;
};

// The table of level `ns` (a namespace inside heft::math::kernels) with its
// mandatory kernels and the given optional ones (null for none), for the
// dispatcher and the tests of the emulated levels.
#define HEFT_KERNEL_TABLE_WITH(ns, forward_from, inverse_from, shifted_from, dot_pair,          \
                               weighted_sum, scaled_sum)                                        \
  ::heft::math::kernels::KernelTable {                                                          \
#ns, &::heft::math::kernels::ns::ntt_forward, &::heft::math::kernels::ns::ntt_inverse,      \
        &::heft::math::kernels::ns::add_mod, &::heft::math::kernels::ns::sub_mod,               \
        &::heft::math::kernels::ns::negate_mod, &::heft::math::kernels::ns::mul_mod,            \
        &::heft::math::kernels::ns::mul_scalar_mod, &::heft::math::kernels::ns::fma_mod,        \
        &::heft::math::kernels::ns::fma_scalar_mod, &::heft::math::kernels::ns::reduce_from_2q, \
        &::heft::math::kernels::ns::reduce_from_4q, &::heft::math::kernels::ns::reduce_any,     \
        &::heft::math::kernels::ns::add_scalar_mod,                                             \
        &::heft::math::kernels::ns::sub_mul_scalar_mod,                                         \
        &::heft::math::kernels::ns::permute_blocks, forward_from, inverse_from, shifted_from,   \
        dot_pair, weighted_sum, scaled_sum                                                      \
  }
// Only the mandatory kernels.
#define HEFT_KERNEL_TABLE(ns) \
  HEFT_KERNEL_TABLE_WITH(ns, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr)
// The AVX-512 levels' tables, with the optional kernels they have.
#define HEFT_AVX512_KERNEL_TABLE(ns)                                           \
  HEFT_KERNEL_TABLE_WITH(ns, &::heft::math::kernels::ns::ntt_forward_from,     \
                         &::heft::math::kernels::ns::ntt_inverse_from,         \
                         &::heft::math::kernels::ns::ntt_forward_shifted_from, \
                         &::heft::math::kernels::ns::dot_product_pair,         \
                         &::heft::math::kernels::ns::weighted_sum_mod,         \
                         &::heft::math::kernels::ns::scaled_sum_double)
#define HEFT_IFMA_KERNEL_TABLE(ns) HEFT_AVX512_KERNEL_TABLE(ns)

}  // namespace heft::math::kernels
