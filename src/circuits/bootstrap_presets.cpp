// Bootstrapping presets: the prime chain laid out for the circuit, the scale
// chain fitted to the computation levels (see the header).
#include "heft/circuits/bootstrap_presets.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// Bit sizes of each part of the chain (the header's layout).
constexpr int kFirstPrimeBits = 60;
constexpr int kComputeBits = 40;
constexpr int kSlotsToCoeffsBits = 39;
constexpr int kEvalModBits = 60;
constexpr int kCoeffsToSlotsBits = 55;
// CoeffsToSlots primes where the chain has room: 60 bits gave about a bit
// more precision than 55 at N = 2^12 with encapsulation.
constexpr int kWideCoeffsToSlotsBits = 60;

// Sparse-secret encapsulation: h' = 32 as in Bossuat et al. 2022, and K =
// (h' + 1) / 2 rounded down, past which I cannot go.
constexpr std::size_t kEncapsulatedWeight = 32;
constexpr std::size_t kEncapsulatedModRange = 16;
// log2(q_0 / scale) the input is brought to before ModRaise.
// At N = 2^12 with encapsulation, 10 bits measured best (8: 23.9 bits by max
// error, 10: 24.0, 12: 23.3; 0, the input's own 2^20: 11.3).
constexpr int kMessageRatioBits = 10;
// With SlotsToCoeffs first (see bootstrap_preset(name, order)).
constexpr int kMessageRatioBitsSlotsToCoeffsFirst = 14;
// Measured max error with SlotsToCoeffs first, less a margin: small 21.8,
// small-encaps 23.9, n16-encaps 19.7 (the dense n16 was not measured in this order).
constexpr std::pair<std::string_view, int> kSlotsToCoeffsFirstPrecision[] = {
    {"small", 20}, {"small-encaps", 22}, {"n16-encaps", 18}};

// The widths a functional preset's table primes are tried at, widest first
// (functional_bootstrap_preset).
constexpr int kTablePrimeBits[] = {60, 55, 50};
// The lowest SlotsToCoeffs prime where there is room for it (see Layout).
constexpr int kWideSlotsToCoeffsBits = 52;

struct Layout {
  const char* name;
  uint64_t degree;
  rlwe::SecurityLevel security;
  std::size_t compute_levels;
  BootstrapParameters bootstrap;
  std::vector<int> special_bits;
  std::size_t dnum;
  // The lowest SlotsToCoeffs prime: larger where the chain has room, so that
  // the last transform can take EvalMod's raised output scale off with
  // diagonals still precise (Bootstrapper::slots_to_coeffs_scale_down).
  int last_slots_to_coeffs_bits = kSlotsToCoeffsBits;
  int coeffs_to_slots_bits = kCoeffsToSlotsBits;
  // BootstrapPreset::precision_bits: measured max error, less a margin.
  int precision_bits = 0;
  // EvalMod's primes (a functional preset's table runs on them).
  int eval_mod_bits = kEvalModBits;
};

// The top level's scale such that the default scales of levels
// compute_levels .. 0 are all at least 2^kComputeBits. scale_at(l - 1) =
// scale_at(l)^2 / q_l: going down, a deviation of the log doubles per level,
// so the output level's scale is raised by the smallest amount that keeps
// every level below it at 2^kComputeBits or more; going up the chain,
// scale_at(l) = sqrt(scale_at(l - 1) q_l), which settles near the primes.
double fitted_top_scale(const std::vector<uint64_t>& primes, std::size_t output_level) {
  std::vector<double> log_q(primes.size());
  for (std::size_t i = 0; i < primes.size(); ++i)
    log_q[i] = std::log2(static_cast<double>(primes[i]));
  const double target = kComputeBits;
  double raise = 0;
  double log_scale = target;
  for (std::size_t l = output_level; l > 0; --l) {
    log_scale = 2 * log_scale - log_q[l];
    const double shortfall = target - log_scale;
    raise = std::max(raise, shortfall / std::ldexp(1.0, static_cast<int>(output_level - l + 1)));
  }
  // A margin far above the rounding of Evaluator::scale_at's chain.
  log_scale = target + raise + 1e-6;
  for (std::size_t l = output_level + 1; l < primes.size(); ++l)
    log_scale = (log_scale + log_q[l]) / 2;
  return std::exp2(log_scale);
}

BootstrapPreset make_preset(const Layout& layout) {
  const BootstrapParameters& b = layout.bootstrap;
  const std::size_t eval_mod_levels =
      Bootstrapper::depth_for(b) - b.coeffs_to_slots_levels - b.slots_to_coeffs_levels;
  std::vector<int> bits{kFirstPrimeBits};
  bits.insert(bits.end(), layout.compute_levels, kComputeBits);
  bits.push_back(layout.last_slots_to_coeffs_bits);
  bits.insert(bits.end(), b.slots_to_coeffs_levels - 1, kSlotsToCoeffsBits);
  bits.insert(bits.end(), eval_mod_levels, layout.eval_mod_bits);
  bits.insert(bits.end(), b.coeffs_to_slots_levels, layout.coeffs_to_slots_bits);

  BootstrapPreset preset;
  preset.name = layout.name;
  preset.parameters =
      rlwe::make_parameters(layout.degree, bits, layout.special_bits, layout.dnum, layout.security);
  preset.parameters.secret = {rlwe::SecretKind::uniform_ternary, 0};
  preset.parameters.scale =
      fitted_top_scale(preset.parameters.ciphertext_moduli, layout.compute_levels);
  preset.parameters.validate();
  preset.bootstrap = b;
  preset.output_level = layout.compute_levels;
  for (std::size_t l = 0; l <= layout.compute_levels; ++l)
    preset.output_bits += std::bit_width(preset.parameters.ciphertext_moduli[l]);
  preset.output_scale_bits = kComputeBits;
  preset.precision_bits = layout.precision_bits;
  // A dense ternary secret has about 2N/3 nonzero coefficients; under
  // encapsulation ModRaise sees the sparse secret's h'.
  const double weight = b.sparse_secret_weight > 0 ? static_cast<double>(b.sparse_secret_weight)
                                                   : 2.0 * static_cast<double>(layout.degree) / 3.0;
  preset.failure_log2 = eval_mod_failure_log2(layout.degree, weight, b.mod_range);
  return preset;
}

BootstrapParameters bootstrap_parameters(std::size_t levels, std::size_t mod_range,
                                         std::size_t sine_degree,
                                         std::size_t sparse_secret_weight = 0,
                                         int message_ratio_bits = 0) {
  BootstrapParameters p;
  p.slots = 0;
  p.coeffs_to_slots_levels = levels;
  p.slots_to_coeffs_levels = levels;
  p.mod_range = mod_range;
  p.sine_degree = sine_degree;
  p.sparse_secret_weight = sparse_secret_weight;
  p.message_ratio_bits = message_ratio_bits;
  return p;
}

// The layout of the preset named `name` (CoeffsToSlots first).
Layout named_layout(std::string_view name) {
  const uint64_t n16 = uint64_t{1} << 16;
  const uint64_t n12 = uint64_t{1} << 12;
  if (name == "n16") {
    // The HE Standard's 1747 bits are all used: no room for wider primes.
    return Layout({"n16", n16, rlwe::SecurityLevel::classic128, 8,
                   bootstrap_parameters(3, 512, 4095, 0, kMessageRatioBits),
                   std::vector<int>(5, 61), 6, kSlotsToCoeffsBits, kCoeffsToSlotsBits,
                   7});  // 7.6 measured (keys at their levels: 11.5 GiB, peak 20.7 GiB)
  }
  if (name == "n16-encaps") {
    // 23 ciphertext primes; dnum 3 with 8 special primes (each digit's
    // modulus, at most 480 bits, below P's 488) keeps the keys small:
    // 3 x 2 x 31 towers per key.
    return Layout(
        {"n16-encaps", n16, rlwe::SecurityLevel::classic128, 8,
         bootstrap_parameters(3, kEncapsulatedModRange, 0, kEncapsulatedWeight, kMessageRatioBits),
         std::vector<int>(8, 61), 3, kWideSlotsToCoeffsBits, kWideCoeffsToSlotsBits,
         17});  // 18.0 measured
  }
  if (name == "small-encaps") {
    return Layout(
        {"small-encaps",
         n12,
         rlwe::SecurityLevel::none,
         3,
         bootstrap_parameters(2, kEncapsulatedModRange, 0, kEncapsulatedWeight, kMessageRatioBits),
         {60, 60, 60},
         0,
         kWideSlotsToCoeffsBits,
         kWideCoeffsToSlotsBits,
         21});  // 22.5 .. 24.2 measured (64 complex slots the lowest)
  }
  if (name == "small") {
    return Layout({"small",
                   n12,
                   rlwe::SecurityLevel::none,
                   3,
                   bootstrap_parameters(2, 128, 1023, 0, kMessageRatioBits),
                   {60, 60, 60},
                   0,
                   kWideSlotsToCoeffsBits,
                   kWideCoeffsToSlotsBits,
                   20});  // 22.3 measured
  }
  throw InvalidArgument("bootstrap_preset: no preset named '" + std::string(name) +
                        "' (the presets: small, small-encaps, n16, n16-encaps)");
}

BootstrapPreset coeffs_to_slots_first_preset(std::string_view name) {
  return make_preset(named_layout(name));
}

}  // namespace

double eval_mod_failure_log2(std::size_t degree, double hamming_weight, std::size_t mod_range) {
  // |I| <= (h + 1) / 2 always: nothing fails when K reaches that.
  if (static_cast<double>(mod_range) >= std::floor((hamming_weight + 1) / 2))
    return -std::numeric_limits<double>::infinity();
  const double sigma = std::sqrt((hamming_weight + 1) / 12);
  const double tail = std::erfc(static_cast<double>(mod_range) / (sigma * std::sqrt(2.0)));
  return std::log2(static_cast<double>(degree)) + std::log2(tail);
}

double key_switch_key_bytes(const rlwe::KeySwitchKey& key) {
  double words = 0;
  for (const auto* half : {&key.b, &key.a})
    for (const auto& digit : *half)
      words +=
          static_cast<double>((digit.q.tower_count() + digit.p.tower_count()) * digit.q.degree());
  return 8 * words;
}

BootstrapPreset functional_bootstrap_preset(std::string_view name, std::size_t modulus) {
  if (name != "small-encaps" && name != "n16-encaps")
    throw InvalidArgument("functional_bootstrap_preset: no preset named '" + std::string(name) +
                          "' (the presets: small-encaps, n16-encaps)");
  Layout layout = named_layout(name);
  layout.bootstrap.sine_degree =
      FunctionalBootstrapper::table_degree(modulus, layout.bootstrap.mod_range);
  layout.bootstrap.order = BootstrapOrder::slots_to_coeffs_first;
  layout.bootstrap.real_slots = true;
  layout.bootstrap.message_ratio_bits = 0;
  layout.precision_bits = 0;
  // The table's levels are EvalMod's (60-bit primes); under a security
  // level the computation levels make room for them, down to one. Where
  // even one is too many (p = 256 at N = 2^16: 15 table levels), the table
  // gets narrower primes: its rounding errors grow as the primes shrink
  // (p = 256 at N = 2^12: largest error 9.4e-6 at 60 bits, 9.4e-4 at 50),
  // far below the 1/2 that would round an entry wrong.
  const std::size_t compute_levels = layout.compute_levels;
  for (const int table_bits : kTablePrimeBits) {
    layout.eval_mod_bits = table_bits;
    for (layout.compute_levels = compute_levels; layout.compute_levels >= 1;
         --layout.compute_levels) {
      try {
        BootstrapPreset preset = make_preset(layout);
        // SlotsToCoeffs runs on the input's lowest levels: the output is
        // above them (FunctionalBootstrapper::output_level).
        preset.output_level += layout.bootstrap.slots_to_coeffs_levels;
        return preset;
      } catch (const InvalidArgument&) {
      }
    }
  }
  throw InvalidArgument("functional_bootstrap_preset: a table of p = " + std::to_string(modulus) +
                        " does not fit the '" + std::string(name) +
                        "' chain with a computation level left");
}

std::vector<std::string> bootstrap_preset_names() {
  return {"small", "small-encaps", "n16", "n16-encaps"};
}

BootstrapPreset bootstrap_preset(std::string_view name) {
  return bootstrap_preset(name, BootstrapOrder::coeffs_to_slots_first);
}

BootstrapPreset bootstrap_preset(std::string_view name, BootstrapOrder order) {
  BootstrapPreset preset = coeffs_to_slots_first_preset(name);
  if (order == BootstrapOrder::slots_to_coeffs_first) {
    // EvalMod then works on the slots' values, not on coefficients about
    // sqrt(N) smaller: the sine's cubic term needs the higher ratio (at 10
    // it cost 2^-17.3 exactly; 14 measured best, 16 and 18 no better).
    preset.bootstrap.order = order;
    preset.bootstrap.message_ratio_bits = kMessageRatioBitsSlotsToCoeffsFirst;
    const auto it = std::ranges::find_if(kSlotsToCoeffsFirstPrecision,
                                         [&](const auto& entry) { return entry.first == name; });
    preset.precision_bits = it != std::end(kSlotsToCoeffsFirstPrecision) ? it->second : 0;
  }
  return preset;
}

}  // namespace heft::circuits
