// Linear transforms of CKKS slot vectors: y = M x for a complex matrix M,
// evaluated as the sum of its diagonals times rotations of x,
//   y = sum_k diag_k (.) rotate(x, k),  diag_k[i] = M[i][(i + k) mod n],
// with the baby-step giant-step split k = g n1 + b:
//   y = sum_g rotate( sum_b rotate(diag_(g n1 + b), -g n1) (.) rotate(x, b), g n1 ).
//
// A LinearTransform holds those rotated diagonals encoded once (over Q_l * P,
// for the double-hoisted inner sums) at a chosen level and scale; it is
// immutable and reusable. LinearTransformEvaluator evaluates it:
// - one key-switching decomposition of x for all baby steps (hoisting), and
//   each baby step's key product computed once, its automorphism taken in
//   the same pass as the product with each diagonal;
// - each giant step's inner sum kept over Q_l * P and divided by P once
//   (double hoisting), then rotated by its giant step with the result also
//   kept over Q_l * P, so the whole sum is divided by P once more at the end;
// - work spread over the giant steps first, then the towers inside them.
// The baby-step count n1 comes from a cost model (key products against
// decompositions and divisions by P) unless given. rotation_steps() lists
// exactly the keys evaluation uses.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"

namespace heft::circuits {

struct HEFT_EXPORT LinearTransformOptions {
  std::size_t level = 0;       // the level of the ciphertexts it will take (or above)
  double scale = 0;            // the diagonals' scale (0: q_level, so a rescale restores x's)
  std::size_t slots = 0;       // the slot count n (0: N/2)
  std::size_t baby_steps = 0;  // n1, a power of two (0: chosen by the cost model)
};

class HEFT_EXPORT LinearTransform {
 public:
  // A dense matrix, row-major: rows x n entries, rows <= n (missing rows are
  // zero). Diagonals that are zero everywhere are skipped.
  [[nodiscard]] static LinearTransform from_matrix(const ckks::Encoder& encoder,
                                                   std::span<const std::complex<double>> matrix,
                                                   std::size_t rows,
                                                   const LinearTransformOptions& options);
  // Diagonals by index k (taken modulo n; negative k counts from the end),
  // each n values.
  [[nodiscard]] static LinearTransform from_diagonals(
      const ckks::Encoder& encoder,
      const std::map<int64_t, std::vector<std::complex<double>>>& diagonals,
      const LinearTransformOptions& options);
  // Diagonal k given by a function, for each k in `indices`.
  [[nodiscard]] static LinearTransform from_function(
      const ckks::Encoder& encoder,
      const std::function<std::vector<std::complex<double>>(int64_t)>& diagonal,
      std::span<const int64_t> indices, const LinearTransformOptions& options);

  // The rotation steps evaluation uses: the nonzero baby steps b and the
  // nonzero giant steps g n1, each once, increasing.
  [[nodiscard]] std::vector<int64_t> rotation_steps() const;
  [[nodiscard]] std::size_t baby_steps() const noexcept { return baby_steps_; }
  [[nodiscard]] std::size_t giant_step_count() const noexcept { return giants_.size(); }
  [[nodiscard]] std::size_t diagonal_count() const noexcept;
  [[nodiscard]] std::size_t level() const noexcept { return level_; }
  [[nodiscard]] double scale() const noexcept { return scale_; }
  [[nodiscard]] std::size_t slots() const noexcept { return slots_; }
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& context() const noexcept {
    return context_;
  }

  // The baby-step count the cost model picks for these diagonal indices.
  [[nodiscard]] static std::size_t choose_baby_steps(const rlwe::Context& context,
                                                     std::span<const int64_t> indices,
                                                     std::size_t slots, std::size_t level);

  struct Term {
    std::size_t baby;                  // b
    ckks::ExtendedPlaintext diagonal;  // rotate(diag_(g n1 + b), -g n1)
  };
  struct GiantStep {
    std::size_t giant;  // g n1
    std::vector<Term> terms;
  };
  [[nodiscard]] const std::vector<GiantStep>& giant_steps() const noexcept { return giants_; }
  // The distinct baby steps b of all terms, increasing.
  [[nodiscard]] std::vector<std::size_t> baby_step_set() const;

 private:
  static LinearTransform encode(const ckks::Encoder& encoder,
                                std::map<std::size_t, std::vector<std::complex<double>>> diagonals,
                                const LinearTransformOptions& options, const char* operation);

  std::shared_ptr<const rlwe::Context> context_;
  std::size_t level_ = 0;
  double scale_ = 1;
  std::size_t slots_ = 0;
  std::size_t baby_steps_ = 1;
  std::vector<GiantStep> giants_;
};

// Results that come out transparent (all-zero diagonals) are refused unless
// allowed: see rlwe::TransparentResults.
class HEFT_EXPORT LinearTransformEvaluator : public rlwe::TransparentResults {
 public:
  explicit LinearTransformEvaluator(std::shared_ptr<const rlwe::Context> context);

  // M x: x's level (x must be at the transform's level or below, 2 parts, no
  // rescale pending), scale x.scale * transform.scale, a product awaiting
  // its rescale (needs_rescale set). InvalidArgument naming the missing
  // rotation steps if keys lack any of rotation_steps().
  [[nodiscard]] rlwe::Ciphertext evaluate(const rlwe::Ciphertext& x, const LinearTransform& m,
                                          const rlwe::GaloisKeys& keys) const;
  // Several transforms of one input, sharing its decomposition and the
  // baby steps they have in common.
  [[nodiscard]] std::vector<rlwe::Ciphertext> evaluate(
      const rlwe::Ciphertext& x, std::span<const LinearTransform* const> transforms,
      const rlwe::GaloisKeys& keys) const;

 private:
  std::shared_ptr<const rlwe::Context> context_;
};

}  // namespace heft::circuits
