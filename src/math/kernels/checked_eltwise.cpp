// The public element-wise entry points (heft/math/kernels.hpp): they check
// sizes, overlaps and scalar operands, then forward to the chosen level's
// kernels. Compiled for baseline x86-64.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "heft/math/kernels.hpp"
#include "math/kernels/entry_checks.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/table_choice.hpp"

namespace heft::math {
void add_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "add_mod", "second operand");
  require_same_size(a.size(), out.size(), "add_mod", "output");
  require_in_place_or_disjoint(a, out, "add_mod");
  require_in_place_or_disjoint(b, out, "add_mod");
  kernels::choose(isa, q).add_mod(out.data(), a.data(), b.data(), a.size(), q.value());
}

void sub_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "sub_mod", "second operand");
  require_same_size(a.size(), out.size(), "sub_mod", "output");
  require_in_place_or_disjoint(a, out, "sub_mod");
  require_in_place_or_disjoint(b, out, "sub_mod");
  kernels::choose(isa, q).sub_mod(out.data(), a.data(), b.data(), a.size(), q.value());
}

void negate_mod(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "negate_mod", "output");
  require_in_place_or_disjoint(a, out, "negate_mod");
  kernels::choose(isa, q).negate_mod(out.data(), a.data(), a.size(), q.value());
}

void mul_mod(std::span<const uint64_t> a, std::span<const uint64_t> b, std::span<uint64_t> out,
             const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), b.size(), "mul_mod", "second operand");
  require_same_size(a.size(), out.size(), "mul_mod", "output");
  require_in_place_or_disjoint(a, out, "mul_mod");
  require_in_place_or_disjoint(b, out, "mul_mod");
  const kernels::ModulusData data = modulus_data(q);
  kernels::choose(isa, q).mul_mod(out.data(), a.data(), b.data(), a.size(), data);
}

void mul_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<uint64_t> out,
                    const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "mul_scalar_mod", "output");
  require_scalar_operand(scalar, q, "mul_scalar_mod");
  require_in_place_or_disjoint(a, out, "mul_scalar_mod");
  kernels::choose(isa, q).mul_scalar_mod(out.data(), a.data(), scalar, q.shoup(scalar), a.size(),
                                         q.value());
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
  kernels::choose(isa, q).fma_mod(out.data(), a.data(), b.data(), c.data(), a.size(), data);
}

void fma_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<const uint64_t> c,
                    std::span<uint64_t> out, const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), c.size(), "fma_scalar_mod", "addend");
  require_same_size(a.size(), out.size(), "fma_scalar_mod", "output");
  require_scalar_operand(scalar, q, "fma_scalar_mod");
  require_in_place_or_disjoint(a, out, "fma_scalar_mod");
  require_in_place_or_disjoint(c, out, "fma_scalar_mod");
  kernels::choose(isa, q).fma_scalar_mod(out.data(), a.data(), scalar, q.shoup(scalar), c.data(),
                                         a.size(), q.value());
}

void add_scalar_mod(std::span<const uint64_t> a, uint64_t scalar, std::span<uint64_t> out,
                    const Modulus& q, std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "add_scalar_mod", "output");
  require_scalar_operand(scalar, q, "add_scalar_mod");
  require_in_place_or_disjoint(a, out, "add_scalar_mod");
  kernels::choose(isa, q).add_scalar_mod(out.data(), a.data(), scalar, a.size(), q.value());
}

namespace {

// (a - b) * scalar (+ c when c is not null), for the two public forms.
void sub_mul_scalar(std::span<const uint64_t> a, std::span<const uint64_t> b, uint64_t scalar,
                    const std::span<const uint64_t>* c, std::span<uint64_t> out, const Modulus& q,
                    std::optional<Isa> isa, const char* operation) {
  require_same_size(a.size(), b.size(), operation, "second operand");
  if (c != nullptr) require_same_size(a.size(), c->size(), operation, "addend");
  require_same_size(a.size(), out.size(), operation, "output");
  require_scalar_operand(scalar, q, operation);
  require_in_place_or_disjoint(a, out, operation);
  require_in_place_or_disjoint(b, out, operation);
  if (c != nullptr) require_in_place_or_disjoint(*c, out, operation);
  kernels::choose(isa, q).sub_mul_scalar_mod(out.data(), a.data(), b.data(), scalar,
                                             q.shoup(scalar), c != nullptr ? c->data() : nullptr,
                                             a.size(), q.value());
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
  if (in.size() < 8 || !std::has_single_bit(in.size())) {
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
  kernels::level_table(isa).permute_blocks(out.data(), in.data(), map.data(), in.size(), in.size());
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
  const kernels::KernelTable& table = kernels::choose(isa, q);
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
  kernels::choose(isa, q).reduce_from_2q(out.data(), a.data(), a.size(), q.value());
}

void reduce_from_4q(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                    std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "reduce_from_4q", "output");
  require_in_place_or_disjoint(a, out, "reduce_from_4q");
  kernels::choose(isa, q).reduce_from_4q(out.data(), a.data(), a.size(), q.value());
}

void reduce_any(std::span<const uint64_t> a, std::span<uint64_t> out, const Modulus& q,
                std::optional<Isa> isa) {
  require_same_size(a.size(), out.size(), "reduce_any", "output");
  require_in_place_or_disjoint(a, out, "reduce_any");
  const kernels::ModulusData data = modulus_data(q);
  kernels::choose(isa, q).reduce_any(out.data(), a.data(), a.size(), data);
}

}  // namespace heft::math
