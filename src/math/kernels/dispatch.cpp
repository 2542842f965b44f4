// Run-time selection of the kernel ISA level (cpuid, HEFT_ISA, set_isa) and
// of the function table a call runs (table_choice.hpp). The public entry
// points that check their arguments and forward to that table are in
// checked_ntt.cpp, checked_eltwise.cpp and checked_sums.cpp. Compiled for
// baseline x86-64.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/util/cpu_features.hpp"
#include "math/kernels/isa_check.hpp"
#include "math/kernels/kernel_api.hpp"
#include "math/kernels/table_choice.hpp"

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

const KernelTable& pinned_table(Isa isa, const Modulus& q) {
  require_supported(isa);
  require_isa_fits(isa, q);
  return kTables[static_cast<int>(isa)];
}

}  // namespace

namespace kernels {

const KernelTable& active_table(uint64_t q) {
  return table_for(active_isa(), q);
}

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

const KernelTable& level_table(std::optional<Isa> isa) {
  if (isa) require_supported(*isa);
  return kTables[static_cast<int>(isa ? *isa : active_isa())];
}

}  // namespace kernels

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

void require_isa_fits(Isa isa, const Modulus& q) {
  if (isa == Isa::ifma && q.value() >= kIfmaModulusBound) {
    throw InvalidArgument("the ifma level needs moduli below 2^50; " + std::to_string(q.value()) +
                          " has " + std::to_string(q.bit_count()) + " bits");
  }
}

}  // namespace heft::math
