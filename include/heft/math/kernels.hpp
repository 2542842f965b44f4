// Public entry points of the NTT and element-wise kernels, with run-time
// ISA dispatch.
//
// The level is chosen once, at first use, from cpuid: the best of scalar <
// avx2 < avx512 < ifma that the CPU and OS support. HEFT_ISA=scalar|avx2|
// avx512|ifma in the environment, or set_isa(), forces a level (never one the
// CPU lacks: that throws UnsupportedError). The ifma level's 52-bit kernels
// handle moduli below 2^50; calls with larger moduli transparently use the
// avx512 kernels, except the NTTs, which use IFMA for the Shoup quotients of
// moduli below 2^55 and the avx512 transforms above.
//
// Every function validates its arguments' shapes (equal lengths, tables of
// the right size, a constructed modulus, scalars below q, outputs that are
// an input exactly or overlap none) and throws MismatchError /
// InvalidArgument; results are the same, bit for bit, at every level. Input
// VALUES are not checked, since that would cost a pass per call: keeping them
// in each function's documented range ([0, q), or the lazy bounds stated
// below) is the caller's contract, and values outside it give unspecified
// (but memory-safe) results.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"

namespace heft::math {

enum class Isa { scalar = 0, avx2 = 1, avx512 = 2, ifma = 3 };

HEFT_EXPORT const char* to_string(Isa isa) noexcept;
// Parses "scalar", "avx2", "avx512" or "ifma"; throws InvalidArgument otherwise.
HEFT_EXPORT Isa parse_isa(std::string_view name);

// Whether this CPU (and OS) can run the level.
HEFT_EXPORT bool isa_supported(Isa isa) noexcept;
// The best level this CPU supports.
HEFT_EXPORT Isa best_supported_isa() noexcept;
// Every supported level, lowest first.
HEFT_EXPORT std::vector<Isa> supported_isas();
// The level kernels currently use.
HEFT_EXPORT Isa active_isa();
// Forces a level; throws UnsupportedError if the CPU lacks it.
HEFT_EXPORT void set_isa(Isa isa);

// A level that can run for modulus q, or an error: `ifma` needs q < 2^50.
// Used when a caller pins a level explicitly.
HEFT_EXPORT void require_isa_fits(Isa isa, const Modulus& q);
// The name require_isa_fits had before the checks took one vocabulary.
[[deprecated("use require_isa_fits")]] inline void check_isa_fits(Isa isa, const Modulus& q) {
  require_isa_fits(isa, q);
}

// NTT of one polynomial of length tables.degree() modulo tables.modulus().
// Forward: input in natural order, each value in [0, 4q); output in
// bit-reversed order, in [0, q). Inverse: input bit-reversed in [0, 2q);
// output natural in [0, q). The explicit-Isa overloads are for tests and
// benchmarks; they refuse a level the CPU lacks (ifma takes every modulus
// here, as above).
HEFT_EXPORT void ntt_forward(std::span<uint64_t> values, const NttTables& tables);
HEFT_EXPORT void ntt_inverse(std::span<uint64_t> values, const NttTables& tables);
// Forward / inverse NTT out of place (output = NTT(input), input untouched; the same
// array for both is allowed, partial overlap is not): saves the copy when the
// input must be kept, e.g. a digit raised into several towers.
HEFT_EXPORT void ntt_forward(std::span<const uint64_t> input, std::span<uint64_t> output,
                             const NttTables& tables);
HEFT_EXPORT void ntt_inverse(std::span<const uint64_t> input, std::span<uint64_t> output,
                             const NttTables& tables);
// output = NTT(input + shift): the constant shift (below q) added to every
// coefficient on the way in, at no extra pass where the level has a shifted
// transform (AVX-512). Each input + shift must be below 4q (e.g. input below
// 3q); the same array for input and output is allowed.
HEFT_EXPORT void ntt_forward_shifted(std::span<const uint64_t> input, uint64_t shift,
                                     std::span<uint64_t> output, const NttTables& tables);
HEFT_EXPORT void ntt_forward(std::span<uint64_t> values, const NttTables& tables, Isa isa);
HEFT_EXPORT void ntt_inverse(std::span<uint64_t> values, const NttTables& tables, Isa isa);

// Element-wise arithmetic mod q; inputs in [0, q) unless stated, outputs in [0, q).
HEFT_EXPORT void add_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                         std::span<uint64_t> out, const Modulus& q,
                         std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void sub_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                         std::span<uint64_t> out, const Modulus& q,
                         std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void negate_mod(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                            std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void mul_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                         std::span<uint64_t> out, const Modulus& q,
                         std::optional<Isa> isa = std::nullopt);
// out = a * scalar mod q (scalar in [0, q); Shoup multiplication).
HEFT_EXPORT void mul_scalar_mod(std::span<const uint64_t> a, uint64_t scalar,
                                std::span<uint64_t> out, const Modulus& q,
                                std::optional<Isa> isa = std::nullopt);
// out = a * b + c mod q.
HEFT_EXPORT void fma_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                         std::span<const uint64_t> c, std::span<uint64_t> out, const Modulus& q,
                         std::optional<Isa> isa = std::nullopt);
// out = a * scalar + c mod q.
HEFT_EXPORT void fma_scalar_mod(std::span<const uint64_t> a, uint64_t scalar,
                                std::span<const uint64_t> c, std::span<uint64_t> out,
                                const Modulus& q, std::optional<Isa> isa = std::nullopt);
// Key switching's inner product of k = x.size() terms sharing their left
// operand: out0 = sum_j x[j] * b[j] and out1 = sum_j x[j] * a[j] mod q, in
// one pass that reads each x[j] once and reduces each sum once (lazily in
// between). x, b and a hold k spans each; every span has out0's length.
// Inputs in [0, q). The outputs must not overlap any input or each other
// (InvalidArgument); k = 0 gives zeros.
HEFT_EXPORT void dot_product_pair(std::span<const std::span<const uint64_t>> x,
                                  std::span<const std::span<const uint64_t>> b,
                                  std::span<const std::span<const uint64_t>> a,
                                  std::span<uint64_t> out0, std::span<uint64_t> out1,
                                  const Modulus& q, std::optional<Isa> isa = std::nullopt);
// The same sums added to what out0 and out1 hold (in [0, q), or in [0, 8q)
// as dot_product_pair_lazy leaves them): out0 += sum_j x[j] * b[j], out1 +=
// sum_j x[j] * a[j] mod q, in [0, q), so that a long inner product can be
// taken a few terms at a time (key switching raises two digits, then adds
// their terms, while the digits are still in cache). k = 0 reduces the
// outputs' values; the checks are dot_product_pair's.
HEFT_EXPORT void dot_product_pair_accumulate(std::span<const std::span<const uint64_t>> x,
                                             std::span<const std::span<const uint64_t>> b,
                                             std::span<const std::span<const uint64_t>> a,
                                             std::span<uint64_t> out0, std::span<uint64_t> out1,
                                             const Modulus& q,
                                             std::optional<Isa> isa = std::nullopt);
// dot_product_pair (accumulate false) or dot_product_pair_accumulate (true)
// for the parts of such a sum before its last: the outputs are left in
// [0, 8q), congruent to the sums mod q (some levels reduce them fully), which
// saves the full reduction of every part but the last (key switching's
// 55-bit sums: a sixth fewer instructions).
HEFT_EXPORT void dot_product_pair_lazy(std::span<const std::span<const uint64_t>> x,
                                       std::span<const std::span<const uint64_t>> b,
                                       std::span<const std::span<const uint64_t>> a,
                                       std::span<uint64_t> out0, std::span<uint64_t> out1,
                                       const Modulus& q, bool accumulate,
                                       std::optional<Isa> isa = std::nullopt);
// Weights w_0..w_{k-1} below a modulus q with their Shoup constants, computed
// once for weighted_sum_mod (base conversion reuses one set per target
// modulus for every block of coefficients). Throws InvalidArgument if a
// weight is not below q.
class HEFT_EXPORT FixedWeights {
 public:
  FixedWeights(std::vector<uint64_t> weights, const Modulus& q);
  [[nodiscard]] const Modulus& modulus() const noexcept { return modulus_; }
  [[nodiscard]] std::span<const uint64_t> weights() const noexcept { return weights_; }
  [[nodiscard]] std::span<const uint64_t> shoup() const noexcept { return shoup_; }

 private:
  Modulus modulus_;
  std::vector<uint64_t> weights_, shoup_;
};

// Base conversion's inner sum for one modulus: out[c] = sum_i rows[i * stride
// + c] * w_i mod q for c < out.size(), over the k weights. Row values must be
// below 2^input_bits (1 <= input_bits <= 61), not necessarily below q: a
// conversion feeds residues of other primes. Sums are reduced lazily (the
// avx2 level sums exact double remainders when q and the inputs are below
// 2^50). Throws MismatchError if rows is too short for k rows of stride >=
// out.size(), InvalidArgument on a bad input_bits or overlapping out and rows.
HEFT_EXPORT void weighted_sum_mod(std::span<const uint64_t> rows, std::size_t stride,
                                  const FixedWeights& weights, std::span<uint64_t> out,
                                  int input_bits, std::optional<Isa> isa = std::nullopt);
// The same sum over separate rows: out[c] = sum_i rows[i][c] * w_i mod q,
// one row per weight, each as long as out (polynomial evaluation's sum of
// constants times powers, one pass over each power). Any number of terms;
// the sum is reduced once per group of terms that fits (a handful at 55
// bits, 64 at 50). Throws MismatchError if the number of rows or a row's
// length does not match, InvalidArgument on a bad input_bits or an output
// overlapping a row.
HEFT_EXPORT void weighted_sum_mod(std::span<const std::span<const uint64_t>> rows,
                                  const FixedWeights& weights, std::span<uint64_t> out,
                                  int input_bits, std::optional<Isa> isa = std::nullopt);
// Base conversion's estimate of sum_i y_i / q_i in doubles: sums[c] = sum_i
// rows[i * stride + c] * factors[i] for c < sums.size(), over the
// factors.size() rows, row values below 2^input_bits (1 <= input_bits <= 61).
// Each conversion, product and addition may round (once per term where the
// AVX-512 levels fuse them), so with terms below 1 each a sum of k terms is
// within about (3k + k^2) 2^-53 of the exact one, at any level. Throws as
// weighted_sum_mod does for a bad input_bits, short rows or a short stride.
HEFT_EXPORT void scaled_sum_double(std::span<const uint64_t> rows, std::size_t stride,
                                   std::span<const double> factors, std::span<double> sums,
                                   int input_bits, std::optional<Isa> isa = std::nullopt);
// out = a + scalar mod q (scalar in [0, q)); a may be anywhere in [0, 4q), so
// that a residue of a modulus below 4q needs no reduction first.
HEFT_EXPORT void add_scalar_mod(std::span<const uint64_t> a, uint64_t scalar,
                                std::span<uint64_t> out, const Modulus& q,
                                std::optional<Isa> isa = std::nullopt);
// out = (a - b) * scalar mod q, and (a - b) * scalar + c mod q: modulus
// switching's subtract-and-scale in one pass over the operands.
HEFT_EXPORT void sub_mul_scalar_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                                    uint64_t scalar, std::span<uint64_t> out, const Modulus& q,
                                    std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void sub_fma_scalar_mod(std::span<const uint64_t> a, std::span<const uint64_t> b,
                                    uint64_t scalar, std::span<const uint64_t> c,
                                    std::span<uint64_t> out, const Modulus& q,
                                    std::optional<Isa> isa = std::nullopt);
// Moves whole blocks of 8 values: out[8b + j] = in[8 (map[8b] / 8 mod n / 8) +
// map[8b + j] mod 8], n = in.size() a power of two >= 8. For a map that sends
// every aligned block of 8 indices onto one, as the NTT-form automorphism maps
// do (ring/automorphism.hpp), this is the gather out[k] = in[map[k]]; the
// AVX-512 levels move a block with one load and one permute. Any map is
// safe: indices are taken modulo n. out must not overlap in.
HEFT_EXPORT void permute_blocks(std::span<const uint64_t> in, std::span<const uint32_t> map,
                                std::span<uint64_t> out, std::optional<Isa> isa = std::nullopt);
// out = a * permuted + c mod q, where permuted is permute_blocks(in, map): an
// automorphism and a multiply-add in one pass over the output (the permuted
// values are gathered a cache-sized chunk at a time and never stored whole).
// Sizes as permute_blocks; in must not overlap out; a and c may be out.
HEFT_EXPORT void fma_permuted_mod(std::span<const uint64_t> a, std::span<const uint64_t> in,
                                  std::span<const uint32_t> map, std::span<const uint64_t> c,
                                  std::span<uint64_t> out, const Modulus& q,
                                  std::optional<Isa> isa = std::nullopt);
// out = a mod q for a in [0, 2q), [0, 4q), or any 64-bit value.
HEFT_EXPORT void reduce_from_2q(std::span<const uint64_t> a, std::span<uint64_t> out,
                                const Modulus& q, std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void reduce_from_4q(std::span<const uint64_t> a, std::span<uint64_t> out,
                                const Modulus& q, std::optional<Isa> isa = std::nullopt);
HEFT_EXPORT void reduce_any(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                            std::optional<Isa> isa = std::nullopt);

}  // namespace heft::math
