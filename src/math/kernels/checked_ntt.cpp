// The public NTT entry points (heft/math/kernels.hpp): they check the
// polynomial against the tables and forward to the chosen level's
// transforms, or compose an optional transform the level lacks
// (composed_kernels.hpp). Compiled for baseline x86-64.
#include <cstdint>
#include <span>
#include <string>

#include "heft/math/kernels.hpp"
#include "math/kernels/composed_kernels.hpp"
#include "math/kernels/entry_checks.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/table_choice.hpp"

namespace heft::math {
namespace {

void require_ntt_span(std::span<uint64_t> values, const NttTables& tables, const char* operation) {
  if (tables.empty()) {
    throw InvalidArgument(std::string(operation) + ": the NTT tables are empty (moved from)");
  }
  if (values.size() != tables.degree()) {
    throw MismatchError(
        std::string(operation) + ": polynomial has " + std::to_string(values.size()) +
        " coefficients but the NTT tables are for N = " + std::to_string(tables.degree()));
  }
}

// Sizes of an out-of-place transform; input and output either coincide or do
// not overlap.
void require_out_of_place(std::span<const uint64_t> input, std::span<uint64_t> output,
                          const NttTables& tables, const char* operation) {
  require_ntt_span(output, tables, operation);
  if (input.size() != output.size()) {
    throw MismatchError(std::string(operation) + ": input has " + std::to_string(input.size()) +
                        " values but the output has " + std::to_string(output.size()));
  }
  require_in_place_or_disjoint(input, output, operation);
}

}  // namespace

void ntt_forward(std::span<uint64_t> values, const NttTables& tables) {
  require_ntt_span(values, tables, "ntt_forward");
  kernels::active_table(tables.modulus().value()).ntt_forward(values.data(), tables.data());
}

void ntt_forward(std::span<const uint64_t> input, std::span<uint64_t> output,
                 const NttTables& tables) {
  require_out_of_place(input, output, tables, "ntt_forward");
  const kernels::KernelTable& level = kernels::active_table(tables.modulus().value());
  if (level.ntt_forward_from != nullptr) {
    level.ntt_forward_from(output.data(), input.data(), tables.data());
  } else {
    kernels::transform_from(level.ntt_forward, output.data(), input.data(), tables.data());
  }
}

void ntt_forward_shifted(std::span<const uint64_t> input, uint64_t shift,
                         std::span<uint64_t> output, const NttTables& tables) {
  require_out_of_place(input, output, tables, "ntt_forward_shifted");
  require_scalar_operand(shift, tables.modulus(), "ntt_forward_shifted");
  const kernels::KernelTable& level = kernels::active_table(tables.modulus().value());
  if (level.ntt_forward_shifted_from != nullptr) {
    level.ntt_forward_shifted_from(output.data(), input.data(), shift, tables.data());
  } else {
    kernels::shifted_transform_from(level.ntt_forward, output.data(), input.data(), shift,
                                    tables.data());
  }
}

void ntt_inverse(std::span<const uint64_t> input, std::span<uint64_t> output,
                 const NttTables& tables) {
  require_out_of_place(input, output, tables, "ntt_inverse");
  const kernels::KernelTable& level = kernels::active_table(tables.modulus().value());
  if (level.ntt_inverse_from != nullptr) {
    level.ntt_inverse_from(output.data(), input.data(), tables.data());
  } else {
    kernels::transform_from(level.ntt_inverse, output.data(), input.data(), tables.data());
  }
}

void ntt_inverse(std::span<uint64_t> values, const NttTables& tables) {
  require_ntt_span(values, tables, "ntt_inverse");
  kernels::active_table(tables.modulus().value()).ntt_inverse(values.data(), tables.data());
}

void ntt_forward(std::span<uint64_t> values, const NttTables& tables, Isa isa) {
  require_ntt_span(values, tables, "ntt_forward");
  kernels::pinned_ntt_table(isa, tables.modulus()).ntt_forward(values.data(), tables.data());
}

void ntt_inverse(std::span<uint64_t> values, const NttTables& tables, Isa isa) {
  require_ntt_span(values, tables, "ntt_inverse");
  kernels::pinned_ntt_table(isa, tables.modulus()).ntt_inverse(values.data(), tables.data());
}

}  // namespace heft::math
