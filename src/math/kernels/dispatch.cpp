// Run-time selection of the kernel ISA level and the public, validated
// entry points that forward to it. Compiled for baseline x86-64.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/cpu_features.hpp"
#include "math/kernels/composed_kernels.hpp"
#include "math/kernels/isa_check.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {

void require_supported(Isa isa) {
  if (!isa_supported(isa)) {
    throw UnsupportedError(
        std::string("ISA level '") + to_string(isa) +
        "' is not supported by this CPU (best here: " + to_string(best_supported_isa()) + ")");
  }
}

namespace {

using kernels::KernelTable;

// The levels' tables, with the optional kernels (kernel_api.hpp) each has.
KernelTable scalar_table() {
  KernelTable table = HEFT_KERNEL_TABLE(scalar);
  table.dot_product_pair = &kernels::scalar::dot_product_pair;
  table.weighted_sum_mod = &kernels::scalar::weighted_sum_mod;
  return table;
}

KernelTable avx2_table() {
  KernelTable table = HEFT_KERNEL_TABLE(avx2);
  table.ntt_forward_from = &kernels::avx2::ntt_forward_from;
  table.ntt_inverse_from = &kernels::avx2::ntt_inverse_from;
  table.dot_product_pair = &kernels::avx2::dot_product_pair;
  table.weighted_sum_mod = &kernels::avx2::weighted_sum_mod;
  return table;
}

const KernelTable kTables[] = {scalar_table(), avx2_table(), HEFT_AVX512_KERNEL_TABLE(avx512),
                               HEFT_IFMA_KERNEL_TABLE(ifma)};

// What the ifma level runs for moduli of 2^50 and more: the avx512 kernels,
// except the transforms, whose ifma forms take such moduli too (an IFMA-made
// Shoup quotient below 2^55, the avx512 transforms above).
KernelTable ifma_wide_table() {
  KernelTable table = HEFT_AVX512_KERNEL_TABLE(avx512);
  table.name = "ifma (q >= 2^50)";
  table.ntt_forward = &kernels::ifma::ntt_forward;
  table.ntt_inverse = &kernels::ifma::ntt_inverse;
  table.ntt_forward_from = &kernels::ifma::ntt_forward_from;
  table.ntt_inverse_from = &kernels::ifma::ntt_inverse_from;
  table.ntt_forward_shifted_from = &kernels::ifma::ntt_forward_shifted_from;
  return table;
}
const KernelTable kIfmaWideTable = ifma_wide_table();

constexpr uint64_t kIfmaModulusBound = uint64_t{1} << 50;

Isa initial_isa() {
  if (const char* env = std::getenv("HEFT_ISA"); env != nullptr && *env != '\0') {
    const Isa requested = parse_isa(env);
    if (!isa_supported(requested)) {
      throw UnsupportedError(std::string("HEFT_ISA=") + env +
                             " asks for an instruction set this CPU lacks; supported here: " +
                             to_string(best_supported_isa()) + " and below");
    }
    return requested;
  }
  return best_supported_isa();
}

std::atomic<int>& active_level() {
  static std::atomic<int> level{static_cast<int>(initial_isa())};
  return level;
}

// The table to use for modulus q at level `isa`: ifma's 52-bit kernels
// cannot take q >= 2^50, so those calls go to the avx512 kernels (same
// results, 64-bit lanes), all but the transforms (kIfmaWideTable).
const KernelTable& table_for(Isa isa, uint64_t q) {
  if (isa == Isa::ifma && q >= kIfmaModulusBound) return kIfmaWideTable;
  return kTables[static_cast<int>(isa)];
}

const KernelTable& active_table(uint64_t q) {
  return table_for(active_isa(), q);
}

const KernelTable& pinned_table(Isa isa, const Modulus& q) {
  require_supported(isa);
  check_isa_fits(isa, q);
  return kTables[static_cast<int>(isa)];
}

// The transforms at a pinned level: ifma's take every modulus (above 2^50 in
// kIfmaWideTable), so only a level the CPU lacks is refused.
const KernelTable& pinned_ntt_table(Isa isa, const Modulus& q) {
  require_supported(isa);
  return table_for(isa, q.value());
}

const KernelTable& choose(std::optional<Isa> isa, const Modulus& q) {
  if (q.empty()) {
    throw InvalidArgument("kernel called with an empty (default-constructed) modulus");
  }
  return isa ? pinned_table(*isa, q) : active_table(q.value());
}

// Whether two arrays share memory, whatever their element types.
template <class A, class B>
bool overlaps(std::span<A> a, std::span<B> b) {
  const std::span<const std::byte> x = std::as_bytes(a), y = std::as_bytes(b);
  return !x.empty() && !y.empty() && x.data() < y.data() + y.size() &&
         y.data() < x.data() + x.size();
}

// The element-wise kernels run in vector chunks, so an output may be an
// input exactly (in place) but must not overlap one partially: the chunks
// would read values already overwritten, differently at each ISA level.
void require_in_place_or_disjoint(std::span<const uint64_t> input, std::span<const uint64_t> out,
                                  const char* operation) {
  if (input.data() != out.data() && overlaps(input, out)) {
    throw InvalidArgument(std::string(operation) +
                          ": the output overlaps an input without being the same array");
  }
}

void require_same_size(std::size_t expected, std::size_t actual, const char* operation,
                       const char* what) {
  if (expected != actual) {
    throw MismatchError(std::string(operation) + ": " + what + " has " + std::to_string(actual) +
                        " values but the first operand has " + std::to_string(expected));
  }
}

void check_ntt_span(std::span<uint64_t> values, const NttTables& tables, const char* operation) {
  if (tables.empty()) {
    throw InvalidArgument(std::string(operation) + ": the NTT tables are empty (moved from)");
  }
  if (values.size() != tables.degree()) {
    throw MismatchError(
        std::string(operation) + ": polynomial has " + std::to_string(values.size()) +
        " coefficients but the NTT tables are for N = " + std::to_string(tables.degree()));
  }
}

}  // namespace

const char* to_string(Isa isa) noexcept {
  switch (isa) {
    case Isa::scalar:
      return "scalar";
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
    case Isa::ifma:
      return "ifma";
  }
  return "unknown";
}

Isa parse_isa(std::string_view name) {
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::ifma}) {
    if (name == to_string(isa)) return isa;
  }
  throw InvalidArgument("unknown ISA level '" + std::string(name) +
                        "': use scalar, avx2, avx512 or ifma");
}

bool isa_supported(Isa isa) noexcept {
  const CpuFeatures& f = cpu_features();
  const bool avx2 = f.avx2 && f.bmi2 && f.fma;
  const bool avx512 = avx2 && f.avx512f && f.avx512dq && f.avx512vl && f.avx512bw;
  switch (isa) {
    case Isa::scalar:
      return true;
    case Isa::avx2:
      return avx2;
    case Isa::avx512:
      return avx512;
    case Isa::ifma:
      return avx512 && f.avx512ifma;
  }
  return false;
}

Isa best_supported_isa() noexcept {
  for (Isa isa : {Isa::ifma, Isa::avx512, Isa::avx2}) {
    if (isa_supported(isa)) return isa;
  }
  return Isa::scalar;
}

std::vector<Isa> supported_isas() {
  std::vector<Isa> levels;
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::ifma}) {
    if (isa_supported(isa)) levels.push_back(isa);
  }
  return levels;
}

Isa active_isa() {
  return static_cast<Isa>(active_level().load(std::memory_order_relaxed));
}

void set_isa(Isa isa) {
  if (!isa_supported(isa)) {
    throw UnsupportedError(std::string("cannot select ISA level '") + to_string(isa) +
                           "': this CPU supports up to '" + to_string(best_supported_isa()) + "'");
  }
  active_level().store(static_cast<int>(isa), std::memory_order_relaxed);
}

void check_isa_fits(Isa isa, const Modulus& q) {
  if (isa == Isa::ifma && q.value() >= kIfmaModulusBound) {
    throw InvalidArgument("the ifma level needs moduli below 2^50; " + std::to_string(q.value()) +
                          " has " + std::to_string(q.bit_count()) + " bits");
  }
}

void ntt_forward(std::span<uint64_t> values, const NttTables& tables) {
  check_ntt_span(values, tables, "ntt_forward");
  active_table(tables.modulus().value()).ntt_forward(values.data(), tables.data());
}

namespace {
// Sizes of an out-of-place transform; input and output either coincide or do
// not overlap.
void check_out_of_place(std::span<const uint64_t> input, std::span<uint64_t> output,
                        const NttTables& tables, const char* operation) {
  check_ntt_span(output, tables, operation);
  if (input.size() != output.size()) {
    throw MismatchError(std::string(operation) + ": input has " + std::to_string(input.size()) +
                        " values but the output has " + std::to_string(output.size()));
  }
  require_in_place_or_disjoint(input, output, operation);
}
}  // namespace

void ntt_forward(std::span<const uint64_t> input, std::span<uint64_t> output,
                 const NttTables& tables) {
  check_out_of_place(input, output, tables, "ntt_forward");
  const KernelTable& level = active_table(tables.modulus().value());
  if (level.ntt_forward_from != nullptr) {
    level.ntt_forward_from(output.data(), input.data(), tables.data());
  } else {
    kernels::transform_from(level.ntt_forward, output.data(), input.data(), tables.data());
  }
}

namespace {
kernels::ModulusData modulus_data(const Modulus& q) {
  return {q.value(), q.barrett_hi(), q.barrett_lo(), q.barrett64()};
}

void check_scalar_operand(uint64_t scalar, const Modulus& q, const char* operation) {
  if (scalar >= q.value()) {
    throw InvalidArgument(std::string(operation) + ": scalar " + std::to_string(scalar) +
                          " must be reduced below the modulus " + std::to_string(q.value()));
  }
}
}  // namespace

void ntt_forward_shifted(std::span<const uint64_t> input, uint64_t shift,
                         std::span<uint64_t> output, const NttTables& tables) {
  check_out_of_place(input, output, tables, "ntt_forward_shifted");
  check_scalar_operand(shift, tables.modulus(), "ntt_forward_shifted");
  const KernelTable& level = active_table(tables.modulus().value());
  if (level.ntt_forward_shifted_from != nullptr) {
    level.ntt_forward_shifted_from(output.data(), input.data(), shift, tables.data());
  } else {
    kernels::shifted_transform_from(level.ntt_forward, output.data(), input.data(), shift,
                                    tables.data());
  }
}

void ntt_inverse(std::span<const uint64_t> input, std::span<uint64_t> output,
                 const NttTables& tables) {
  check_out_of_place(input, output, tables, "ntt_inverse");
  const KernelTable& level = active_table(tables.modulus().value());
  if (level.ntt_inverse_from != nullptr) {
    level.ntt_inverse_from(output.data(), input.data(), tables.data());
  } else {
    kernels::transform_from(level.ntt_inverse, output.data(), input.data(), tables.data());
  }
}

void ntt_inverse(std::span<uint64_t> values, const NttTables& tables) {
  check_ntt_span(values, tables, "ntt_inverse");
  active_table(tables.modulus().value()).ntt_inverse(values.data(), tables.data());
}

void ntt_forward(std::span<uint64_t> values, const NttTables& tables, Isa isa) {
  check_ntt_span(values, tables, "ntt_forward");
  pinned_ntt_table(isa, tables.modulus()).ntt_forward(values.data(), tables.data());
}

void ntt_inverse(std::span<uint64_t> values, const NttTables& tables, Isa isa) {
  check_ntt_span(values, tables, "ntt_inverse");
  pinned_ntt_table(isa, tables.modulus()).ntt_inverse(values.data(), tables.data());
}

void add_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "add_mod", "second operand");
  require_same_size(a.size(), out.size(), "add_mod", "output");
  require_in_place_or_disjoint(a, out, "add_mod");
  require_in_place_or_disjoint(b, out, "add_mod");
  choose(isa, q).add_mod(out.data(), a.data(), b.data(), a.size(), q.value());
}

void sub_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "sub_mod", "second operand");
  require_same_size(a.size(), out.size(), "sub_mod", "output");
  require_in_place_or_disjoint(a, out, "sub_mod");
  require_in_place_or_disjoint(b, out, "sub_mod");
  choose(isa, q).sub_mod(out.data(), a.data(), b.data(), a.size(), q.value());
}

void negate_mod(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "negate_mod", "output");
  require_in_place_or_disjoint(a, out, "negate_mod");
  choose(isa, q).negate_mod(out.data(), a.data(), a.size(), q.value());
}

void mul_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "mul_mod", "second operand");
  require_same_size(a.size(), out.size(), "mul_mod", "output");
  require_in_place_or_disjoint(a, out, "mul_mod");
  require_in_place_or_disjoint(b, out, "mul_mod");
  const kernels::ModulusData data = modulus_data(q);
  choose(isa, q).mul_mod(out.data(), a.data(), b.data(), a.size(), data);
}

void mul_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<uint64_t> out,
                    const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "mul_scalar_mod", "output");
  check_scalar_operand(scalar, q, "mul_scalar_mod");
  require_in_place_or_disjoint(a, out, "mul_scalar_mod");
  choose(isa, q).mul_scalar_mod(out.data(), a.data(), scalar, q.shoup(scalar), a.size(), q.value());
}

void fma_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<const uint64_t> c,
             std::span<uint64_t> out, const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "fma_mod", "second operand");
  require_same_size(a.size(), c.size(), "fma_mod", "addend");
  require_same_size(a.size(), out.size(), "fma_mod", "output");
  require_in_place_or_disjoint(a, out, "fma_mod");
  require_in_place_or_disjoint(b, out, "fma_mod");
  require_in_place_or_disjoint(c, out, "fma_mod");
  const kernels::ModulusData data = modulus_data(q);
  choose(isa, q).fma_mod(out.data(), a.data(), b.data(), c.data(), a.size(), data);
}

void fma_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<const uint64_t> c,
                    std::span<uint64_t> out, const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), c.size(), "fma_scalar_mod", "addend");
  require_same_size(a.size(), out.size(), "fma_scalar_mod", "output");
  check_scalar_operand(scalar, q, "fma_scalar_mod");
  require_in_place_or_disjoint(a, out, "fma_scalar_mod");
  require_in_place_or_disjoint(c, out, "fma_scalar_mod");
  choose(isa, q).fma_scalar_mod(out.data(), a.data(), scalar, q.shoup(scalar), c.data(), a.size(),
                                q.value());
}

void add_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<uint64_t> out,
                    const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "add_scalar_mod", "output");
  check_scalar_operand(scalar, q, "add_scalar_mod");
  require_in_place_or_disjoint(a, out, "add_scalar_mod");
  choose(isa, q).add_scalar_mod(out.data(), a.data(), scalar, a.size(), q.value());
}

namespace {

// (a - b) * scalar (+ c when c is not null), for the two public forms.
void sub_mul_scalar(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t scalar,
                    const std::span<const uint64_t>* c, std::span<uint64_t> out, const Modulus& q,
                    std::optional<Isa> isa, const char* operation) {
  require_same_size(a.size(), b.size(), operation, "second operand");
  if (c != nullptr) require_same_size(a.size(), c->size(), operation, "addend");
  require_same_size(a.size(), out.size(), operation, "output");
  check_scalar_operand(scalar, q, operation);
  require_in_place_or_disjoint(a, out, operation);
  require_in_place_or_disjoint(b, out, operation);
  if (c != nullptr) require_in_place_or_disjoint(*c, out, operation);
  choose(isa, q).sub_mul_scalar_mod(out.data(), a.data(), b.data(), scalar, q.shoup(scalar),
                                    c != nullptr ? c->data() : nullptr, a.size(), q.value());
}

}  // namespace

void sub_mul_scalar_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t scalar,
                        std::span<uint64_t> out, const Modulus& q, std::optional<Isa> isa) {
  sub_mul_scalar(a, b, scalar, nullptr, out, q, isa, "sub_mul_scalar_mod");
}

void sub_fma_scalar_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t scalar,
                        std::span<const uint64_t> c, std::span<uint64_t> out, const Modulus& q,
                        std::optional<Isa> isa) {
  sub_mul_scalar(a, b, scalar, &c, out, q, isa, "sub_fma_scalar_mod");
}

namespace {

// The checks both block permutations make: map and output as long as the
// input, a power-of-two length of at least 8 (whole blocks of 8), and an
// output apart from the permuted input.
void require_block_permutation(std::span<const uint64_t> in, std::span<const uint32_t> map,
                               std::span<uint64_t> out, const char* name) {
  require_same_size(in.size(), map.size(), name, "map");
  require_same_size(in.size(), out.size(), name, "output");
  if (in.size() < 8 || (in.size() & (in.size() - 1)) != 0) {
    throw InvalidArgument(std::string(name) + ": the length " + std::to_string(in.size()) +
                          " must be a power of two, at least 8");
  }
  if (overlaps(in, out)) {
    throw InvalidArgument(std::string(name) + ": the output overlaps the permuted input");
  }
}

}  // namespace

void permute_blocks(std::span<const uint64_t> in, std::span<const uint32_t> map,
                    std::span<uint64_t> out, std::optional<Isa> isa) {
  require_block_permutation(in, map, out, "permute_blocks");
  if (isa) require_supported(*isa);
  kTables[static_cast<int>(isa ? *isa : active_isa())].permute_blocks(
      out.data(), in.data(), map.data(), in.size(), in.size());
}

void fma_permuted_mod(std::span<const uint64_t> a, std::span<const uint64_t> in,
                      std::span<const uint32_t> map, std::span<const uint64_t> c,
                      std::span<uint64_t> out, const Modulus& q, std::optional<Isa> isa) {
  constexpr const char* kOperation = "fma_permuted_mod";
  const std::size_t n = in.size();
  require_block_permutation(in, map, out, kOperation);
  require_same_size(n, a.size(), kOperation, "the multiplier");
  require_same_size(n, c.size(), kOperation, "addend");
  require_in_place_or_disjoint(a, out, kOperation);
  require_in_place_or_disjoint(c, out, kOperation);
  const KernelTable& table = choose(isa, q);
  const kernels::ModulusData data = modulus_data(q);
  // 8 KB of gathered values: they stay in L1 between the two kernels.
  constexpr std::size_t kChunk = 1024;
  alignas(64) uint64_t gathered[kChunk];
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t count = std::min(kChunk, n - start);
    table.permute_blocks(gathered, in.data(), map.data() + start, count, n);
    table.fma_mod(out.data() + start, a.data() + start, gathered, c.data() + start, count, data);
  }
}

void reduce_from_2q(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                    std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "reduce_from_2q", "output");
  require_in_place_or_disjoint(a, out, "reduce_from_2q");
  choose(isa, q).reduce_from_2q(out.data(), a.data(), a.size(), q.value());
}

void reduce_from_4q(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                    std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "reduce_from_4q", "output");
  require_in_place_or_disjoint(a, out, "reduce_from_4q");
  choose(isa, q).reduce_from_4q(out.data(), a.data(), a.size(), q.value());
}

void reduce_any(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "reduce_any", "output");
  require_in_place_or_disjoint(a, out, "reduce_any");
  const kernels::ModulusData data = modulus_data(q);
  choose(isa, q).reduce_any(out.data(), a.data(), a.size(), data);
}

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
  const KernelTable& level = choose(isa, q);
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
    check_scalar_operand(w, q, "FixedWeights");
    shoup_.push_back(q.shoup(w));
  }
}

namespace {

// The checks both row sums make: input_bits in [1, 61], and `terms` rows of
// `stride` values, each at least `length` long, within `rows`.
void require_row_sum_operands(std::span<const uint64_t> rows, std::size_t stride, std::size_t terms,
                              std::size_t length, int input_bits, const char* name) {
  if (input_bits < 1 || input_bits > 61) {
    throw InvalidArgument(std::string(name) + ": input_bits must be in [1, 61], got " +
                          std::to_string(input_bits));
  }
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
  if (isa) require_supported(*isa);
  const KernelTable& level = kTables[static_cast<int>(isa ? *isa : active_isa())];
  if (level.scaled_sum_double != nullptr) {
    level.scaled_sum_double(sums.data(), rows.data(), stride, factors.data(), terms, sums.size());
  } else {
    portable_scaled_sum(rows.data(), stride, factors.data(), terms, sums.data(), sums.size(),
                        input_bits);
  }
}

void weighted_sum_mod(std::span<const uint64_t> rows, std::size_t stride,
                      const FixedWeights& weights, std::span<uint64_t> out, int input_bits,
                      std::optional<Isa> isa) {
  const std::size_t terms = weights.weights().size();
  require_row_sum_operands(rows, stride, terms, out.size(), input_bits, "weighted_sum_mod");
  if (overlaps(rows, out)) throw InvalidArgument("weighted_sum_mod: the output overlaps the rows");
  const Modulus& q = weights.modulus();
  const kernels::ModulusData data = modulus_data(q);
  const KernelTable& level = choose(isa, q);
  level.weighted_sum_mod(out.data(), rows.data(), stride, weights.weights().data(),
                         weights.shoup().data(), terms, out.size(),
                         static_cast<uint32_t>(input_bits), data);
}

}  // namespace heft::math
