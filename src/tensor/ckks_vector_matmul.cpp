// CKKSVector::matmul: vector (n) x plain matrix (n x m). With one
// ciphertext in and out and the Galois keys of its plan present, a
// circuits::LinearTransform of M^T (hoisted baby steps, double hoisting);
// otherwise baby-step giant-step by diagonals over rotations composed from
// the keys present (tensor/diagonal_product.hpp), one output ciphertext at a
// time, each summing over the input ciphertexts.
#include <cmath>
#include <complex>
#include <set>
#include <string>

#include "heft/circuits/linear_transform.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/util/error.hpp"
#include "tensor/chunks.hpp"
#include "tensor/ckks_vector_ops.hpp"
#include "tensor/diagonal_product.hpp"
#include "tensor/messages.hpp"

namespace heft::tensor {

using rlwe::Ciphertext;

namespace {

constexpr const char* kMatmul = "CKKSVector::matmul";

// Number of columns; InvalidArgument / MismatchError for a matrix that is
// not n rows of one length with finite values.
std::size_t require_matrix_shape(const std::vector<std::vector<double>>& matrix, std::size_t n) {
  if (matrix.size() != n)
    throw MismatchError(std::string(kMatmul) + ": the matrix has " + std::to_string(matrix.size()) +
                        " rows, the vector " + std::to_string(n) + " values");
  const std::size_t m = matrix[0].size();
  if (m == 0) throw InvalidArgument(std::string(kMatmul) + ": the matrix has no columns");
  for (const auto& row : matrix) {
    if (row.size() != m)
      throw InvalidArgument(std::string(kMatmul) + ": the matrix rows differ in length");
    for (const double value : row)
      if (!std::isfinite(value))
        throw InvalidArgument(std::string(kMatmul) + ": a matrix entry is not finite");
  }
  return m;
}

// The slots of one block: input ciphertext s (of `sources`), output
// ciphertext `out_chunk`.
detail::SlotLayout block_layout(std::size_t slots, std::size_t n, std::size_t m,
                                std::size_t out_chunk) {
  detail::SlotLayout layout;
  layout.row = slots;
  layout.input_index = [slots, n](std::size_t s, std::size_t q) {
    const std::size_t in = s * slots + q;
    return in < n ? in : detail::kNoIndex;
  };
  layout.output_index = [slots, m, out_chunk](std::size_t p) {
    const std::size_t out = out_chunk * slots + p;
    return out < m ? out : detail::kNoIndex;
  };
  return layout;
}

// The CKKS operations the diagonal product needs.
struct CkksBackend {
  const TensorContext& context;
  const rlwe::GaloisKeys* keys;  // null when the plan has no rotation
  std::vector<Ciphertext> rotations(const Ciphertext& a, std::span<const int64_t> steps) const {
    return context.ckks_evaluator().rotate_hoisted(a, steps, *keys);
  }
  Ciphertext rotate(const Ciphertext& a, int64_t step) const {
    return context.ckks_evaluator().rotate(a, step, *keys);
  }
  Ciphertext multiply_plain(const Ciphertext& a, const std::vector<double>& values) const {
    const auto& evaluator = context.ckks_evaluator();
    const std::size_t level = a.level();
    return evaluator.multiply_plain(
        a, context.ckks_encoder().encode(values, evaluator.scale_at(level), level));
  }
  void add_inplace(Ciphertext& a, const Ciphertext& b) const {
    context.ckks_evaluator().add_inplace(a, b);
  }
};

// The nonzero diagonals of M^T on one ciphertext (k = in - out mod slots).
std::vector<int64_t> single_block_diagonals(std::size_t slots, std::size_t n, std::size_t m) {
  const auto plan = detail::plan_diagonals(block_layout(slots, n, m, 0), 1);
  return {plan.indices[0].begin(), plan.indices[0].end()};
}

}  // namespace

std::vector<int64_t> CKKSVector::matmul_galois_steps(std::size_t rows, std::size_t columns) const {
  require_valid("CKKSVector::matmul_galois_steps");
  const std::size_t slots = context_->slot_count();
  if (rows > slots || columns > slots) return {};  // no single-ciphertext transform
  const auto indices = single_block_diagonals(slots, rows, columns);
  const std::size_t n1 = circuits::LinearTransform::choose_baby_steps(*context_->rlwe_context(),
                                                                      indices, slots, level());
  // The steps LinearTransform::rotation_steps() will list: nonzero baby
  // steps k mod n1 and giant steps (k / n1) n1.
  const auto baby = static_cast<int64_t>(n1);
  std::set<int64_t> steps;
  for (const int64_t k : indices) {
    if (k % baby) steps.insert(k % baby);
    if (k / baby) steps.insert(k / baby * baby);
  }
  return {steps.begin(), steps.end()};
}

CKKSVector CKKSVector::matmul(const std::vector<std::vector<double>>& matrix) const {
  require_valid(kMatmul);
  const std::size_t n = size_, m = require_matrix_shape(matrix, size_);
  if (auto refreshed = refreshed_if_short(1)) return refreshed->matmul(matrix);
  detail::require_levels(1, level(), kMatmul);
  const std::size_t slots = context_->slot_count();
  const auto& evaluator = context_->ckks_evaluator();
  const auto& encoder = context_->ckks_encoder();
  // The inputs with any pending rescale done, at one level.
  std::vector<Ciphertext> sources;
  std::size_t level = this->level();
  for (const auto& ct : chunks_) {
    Ciphertext settled = ct.needs_rescale && ct.level() > 0 ? evaluator.rescale(ct) : ct.clone();
    sources.push_back(evaluator.drop_to_level(settled, level));
  }
  const std::size_t outputs = detail::chunk_count(m, slots);

  if (sources.size() == 1 && outputs == 1 && context_->has_galois_keys()) {
    const auto& keys = context_->galois_keys(kMatmul);
    const auto steps = matmul_galois_steps(n, m);
    bool keys_present = true;
    for (const int64_t step : steps)
      keys_present =
          keys_present &&
          rlwe::direct_rotation_element(*context_->rlwe_context(), keys, step, slots).has_value();
    if (keys_present) {
      const auto indices = single_block_diagonals(slots, n, m);
      circuits::LinearTransformOptions options;
      options.level = level;
      options.slots = slots;
      options.baby_steps = circuits::LinearTransform::choose_baby_steps(*context_->rlwe_context(),
                                                                        indices, slots, level);
      // diag_k[i] = M^T[i][(i + k) mod slots] = M[(i + k) mod slots][i].
      const auto diagonal = [&](int64_t k) {
        std::vector<std::complex<double>> values(slots);
        for (std::size_t i = 0; i < m; ++i) {
          const std::size_t j = (i + static_cast<std::size_t>(k)) % slots;
          if (j < n) values[i] = matrix[j][i];
        }
        return values;
      };
      const auto transform =
          circuits::LinearTransform::from_function(encoder, diagonal, indices, options);
      circuits::LinearTransformEvaluator transforms(context_->rlwe_context());
      transforms.allow_transparent_results(true);  // re-randomised as the result is made
      std::vector<Ciphertext> chunks;
      chunks.push_back(CKKSVectorOps::finish_product(
          *context_, transforms.evaluate(sources[0], transform, keys)));
      return {context_, std::move(chunks), m, true};
    }
  }

  // Baby-step giant-step over composed rotations, every plan's keys checked
  // before any work.
  std::vector<detail::SlotLayout> layouts;
  std::vector<detail::DiagonalPlan> plans;
  std::set<int64_t> all_steps;
  for (std::size_t d = 0; d < outputs; ++d) {
    layouts.push_back(block_layout(slots, n, m, d));
    plans.push_back(detail::plan_diagonals(layouts.back(), sources.size()));
    for (const int64_t step : plans.back().rotation_steps())
      all_steps.insert(step);
  }
  const std::vector<int64_t> steps(all_steps.begin(), all_steps.end());
  context_->require_rotations(steps, false, kMatmul);
  const CkksBackend backend{*context_, steps.empty() ? nullptr : &context_->galois_keys(kMatmul)};
  const auto entry = [&](std::size_t in, std::size_t out) { return matrix[in][out]; };
  std::vector<Ciphertext> chunks;
  for (std::size_t d = 0; d < outputs; ++d) {
    auto product = detail::diagonal_product<double>(backend, std::span<const Ciphertext>(sources),
                                                    layouts[d], plans[d], entry);
    // An all-zero block: an encryption of zeros at the product's level.
    chunks.push_back(CKKSVectorOps::finish_product(
        *context_, product ? std::move(*product)
                           : evaluator.multiply_plain(
                                 sources[0], encoder.encode(std::vector<double>(1, 0.0),
                                                            evaluator.scale_at(level), level))));
  }
  return {context_, std::move(chunks), m, true};
}

}  // namespace heft::tensor
