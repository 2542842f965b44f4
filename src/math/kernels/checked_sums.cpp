// The public entry points of the long sums (heft/math/kernels.hpp):
// dot_product_pair and its accumulating and lazy forms, weighted_sum_mod (of
// strided rows or of separate ones) with its FixedWeights, and scaled_sum_double (with a portable
// loop where a level has no kernel). They check their operands, then forward to the chosen level's
// kernels. Compiled for baseline x86-64.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "heft/math/kernels.hpp"
#include "math/kernels/entry_checks.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/table_choice.hpp"

namespace heft::math {
namespace {

// dot_product_pair and its accumulating and lazy forms: the checks, then the
// level's kernel. `name` is the caller's, for the messages.
void run_dot_product_pair(std::span<const std::span<const uint64_t>> x,
                          std::span<const std::span<const uint64_t>> b,
                          std::span<const std::span<const uint64_t>> a, std::span<uint64_t> out0,
                          std::span<uint64_t> out1, const Modulus& q, std::optional<Isa> isa,
                          bool accumulate, bool lazy_output, const char* name) {
  const std::size_t terms = x.size();
  require_same_size(terms, b.size(), name, "list of second operands b");
  require_same_size(terms, a.size(), name, "list of second operands a");
  require_same_size(out0.size(), out1.size(), name, "second output");
  if (overlaps(out0, out1)) {
    throw InvalidArgument(std::string(name) + ": the two outputs overlap");
  }
  std::vector<const uint64_t*> pointers(3 * terms);
  for (std::size_t j = 0; j < terms; ++j) {
    for (const std::span<const uint64_t>* operand : {&x[j], &b[j], &a[j]}) {
      require_same_size(out0.size(), operand->size(), name, "operand");
      if (overlaps(*operand, out0) || overlaps(*operand, out1)) {
        throw InvalidArgument(std::string(name) + ": an output overlaps an input");
      }
    }
    pointers[j] = x[j].data();
    pointers[terms + j] = b[j].data();
    pointers[2 * terms + j] = a[j].data();
  }
  const kernels::ModulusData data = modulus_data(q);
  const kernels::KernelTable& level = kernels::choose(isa, q);
  const uint64_t* const* x_rows = pointers.data();
  const uint64_t* const* b_rows = x_rows + terms;
  const uint64_t* const* a_rows = b_rows + terms;
  level.dot_product_pair(out0.data(), out1.data(), x_rows, b_rows, a_rows, terms, out0.size(), data,
                         accumulate, lazy_output);
}

}  // namespace

void dot_product_pair(std::span<const std::span<const uint64_t>> x,
                      std::span<const std::span<const uint64_t>> b,
                      std::span<const std::span<const uint64_t>> a, std::span<uint64_t> out0,
                      std::span<uint64_t> out1, const Modulus& q, std::optional<Isa> isa) {
  run_dot_product_pair(x, b, a, out0, out1, q, isa, false, false, "dot_product_pair");
}

void dot_product_pair_accumulate(std::span<const std::span<const uint64_t>> x,
                                 std::span<const std::span<const uint64_t>> b,
                                 std::span<const std::span<const uint64_t>> a,
                                 std::span<uint64_t> out0, std::span<uint64_t> out1,
                                 const Modulus& q, std::optional<Isa> isa) {
  run_dot_product_pair(x, b, a, out0, out1, q, isa, true, false, "dot_product_pair_accumulate");
}

void dot_product_pair_lazy(std::span<const std::span<const uint64_t>> x,
                           std::span<const std::span<const uint64_t>> b,
                           std::span<const std::span<const uint64_t>> a, std::span<uint64_t> out0,
                           std::span<uint64_t> out1, const Modulus& q, bool accumulate,
                           std::optional<Isa> isa) {
  run_dot_product_pair(x, b, a, out0, out1, q, isa, accumulate, true, "dot_product_pair_lazy");
}

FixedWeights::FixedWeights(std::vector<uint64_t> weights, const Modulus& q)
    : modulus_(q), weights_(std::move(weights)) {
  shoup_.reserve(weights_.size());
  for (const uint64_t w : weights_) {
    require_scalar_operand(w, q, "FixedWeights");
    shoup_.push_back(q.shoup(w));
  }
}

namespace {

// Row sums take inputs of 1 to 61 bits.
void require_input_bits(int input_bits, const char* name) {
  if (input_bits < 1 || input_bits > 61) {
    throw InvalidArgument(std::string(name) + ": input_bits must be in [1, 61], got " +
                          std::to_string(input_bits));
  }
}

// The checks both strided row sums make: input_bits, and `terms` rows of
// `stride` values, each at least `length` long, within `rows`.
void require_row_sum_operands(std::span<const uint64_t> rows, std::size_t stride, std::size_t terms,
                              std::size_t length, int input_bits, const char* name) {
  require_input_bits(input_bits, name);
  if (terms > 0 && stride < length) {
    throw MismatchError(std::string(name) + ": the row stride " + std::to_string(stride) +
                        " is shorter than the output (" + std::to_string(length) + ")");
  }
  // (terms - 1) * stride + length <= rows.size(), in a form that cannot wrap.
  const bool rows_suffice =
      terms == 0 ||
      (rows.size() >= length && (terms == 1 || stride <= (rows.size() - length) / (terms - 1)));
  if (!rows_suffice) {
    throw MismatchError(std::string(name) + ": " + std::to_string(terms) + " rows of stride " +
                        std::to_string(stride) + " and an output of " + std::to_string(length) +
                        " need more than the " + std::to_string(rows.size()) + " values given");
  }
}

// scaled_sum_double where no level has a kernel: row by row, written so
// that the compiler vectorises it with baseline flags. Below 2^52 a word
// converts to a double by placing it in the mantissa of 2^52 and subtracting
// 2^52 (there is no packed int64 -> double conversion before AVX-512).
void portable_scaled_sum(const uint64_t* rows, std::size_t stride, const double* factors,
                         std::size_t terms, double* sums, std::size_t n, int input_bits) {
  constexpr uint64_t kTwo52Bits = 0x4330000000000000ULL;  // 2^52 as a double's bits
  for (std::size_t c = 0; c < n; ++c)
    sums[c] = 0.0;
  for (std::size_t i = 0; i < terms; ++i) {
    const uint64_t* row = rows + i * stride;
    const double factor = factors[i];
    if (input_bits <= 52) {
      for (std::size_t c = 0; c < n; ++c)
        sums[c] += (std::bit_cast<double>(row[c] | kTwo52Bits) - 0x1p52) * factor;
    } else {
      for (std::size_t c = 0; c < n; ++c)
        sums[c] += static_cast<double>(static_cast<int64_t>(row[c])) * factor;  // < 2^61
    }
  }
}

}  // namespace

void scaled_sum_double(std::span<const uint64_t> rows, std::size_t stride,
                       std::span<const double> factors, std::span<double> sums, int input_bits,
                       std::optional<Isa> isa) {
  const std::size_t terms = factors.size();
  require_row_sum_operands(rows, stride, terms, sums.size(), input_bits, "scaled_sum_double");
  if (overlaps(rows, sums)) throw InvalidArgument("scaled_sum_double: the sums overlap the rows");
  const kernels::KernelTable& level = kernels::level_table(isa);
  if (level.scaled_sum_double != nullptr) {
    level.scaled_sum_double(sums.data(), rows.data(), stride, factors.data(), terms, sums.size());
  } else {
    portable_scaled_sum(rows.data(), stride, factors.data(), terms, sums.data(), sums.size(),
                        input_bits);
  }
}

namespace {

// weighted_sum_mod after its checks: the level's kernel over the rows.
void run_weighted_sum(std::span<const uint64_t* const> rows, const FixedWeights& weights,
                      std::span<uint64_t> out, int input_bits, std::optional<Isa> isa) {
  const Modulus& q = weights.modulus();
  const kernels::ModulusData data = modulus_data(q);
  const kernels::KernelTable& level = kernels::choose(isa, q);
  level.weighted_sum_mod(out.data(), rows.data(), 0, weights.weights().data(),
                         weights.shoup().data(), rows.size(), out.size(),
                         static_cast<uint32_t>(input_bits), data);
}

}  // namespace

void weighted_sum_mod(std::span<const uint64_t> rows, std::size_t stride,
                      const FixedWeights& weights, std::span<uint64_t> out, int input_bits,
                      std::optional<Isa> isa) {
  const std::size_t terms = weights.weights().size();
  require_row_sum_operands(rows, stride, terms, out.size(), input_bits, "weighted_sum_mod");
  if (overlaps(rows, out)) throw InvalidArgument("weighted_sum_mod: the output overlaps the rows");
  // Base conversion calls this per block of 256 coefficients: its few
  // pointers live on the stack.
  constexpr std::size_t kStackRows = 64;
  std::array<const uint64_t*, kStackRows> stack_rows;
  std::vector<const uint64_t*> heap_rows(terms > kStackRows ? terms : 0);
  const std::span<const uint64_t*> row_pointers =
      terms > kStackRows ? std::span(heap_rows) : std::span(stack_rows).first(terms);
  for (std::size_t i = 0; i < terms; ++i)
    row_pointers[i] = rows.data() + i * stride;
  run_weighted_sum(row_pointers, weights, out, input_bits, isa);
}

void weighted_sum_mod(std::span<const std::span<const uint64_t>> rows, const FixedWeights& weights,
                      std::span<uint64_t> out, int input_bits, std::optional<Isa> isa) {
  const std::size_t terms = weights.weights().size();
  require_same_size(terms, rows.size(), "weighted_sum_mod", "list of rows");
  require_input_bits(input_bits, "weighted_sum_mod");
  std::vector<const uint64_t*> row_pointers(terms);
  for (std::size_t i = 0; i < terms; ++i) {
    require_same_size(out.size(), rows[i].size(), "weighted_sum_mod", "row");
    if (overlaps(rows[i], out)) {
      throw InvalidArgument("weighted_sum_mod: the output overlaps a row");
    }
    row_pointers[i] = rows[i].data();
  }
  run_weighted_sum(row_pointers, weights, out, input_bits, isa);
}

}  // namespace heft::math
