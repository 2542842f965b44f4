// Fast RNS base conversion (approximate, exact, exact centered); the contract
// and the exactness argument are in heft/ring/base_converter.hpp.
//
// Layout of the work: coefficients are processed in blocks of kBlock. For a
// block, y_i = [x_i * (Q/q_i)^-1]_{q_i} is computed tower by tower with the
// vectorised mul_scalar_mod kernel into a small scratch array; then, for each
// target modulus p_j, sum_i y_i * [(Q/q_i) mod p_j] is one lazy weighted sum
// (math::weighted_sum_mod) over the scratch rows, which reduces once per
// coefficient instead of once per term. Blocks keep the scratch
// ((L + 1) * kBlock words, alphas included) in cache.
#include "heft/ring/base_converter.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "heft/math/kernels.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/util/aligned_buffer.hpp"
#include "heft/util/parallel.hpp"
#include "ring/multiword.hpp"

namespace heft::ring {
namespace {

constexpr std::size_t kBlock = 256;
// Up to this many source moduli alpha is computed in double precision (the
// error bound in compute_alphas_double needs L <= 64).
constexpr std::size_t kMaxDoubleAlphaSources = 64;
// Below this many multiply-accumulates a conversion runs on the calling thread.
constexpr std::size_t kMinParallelWork = std::size_t{1} << 16;

bool spans_overlap(const uint64_t* a, std::size_t a_size, const uint64_t* b, std::size_t b_size) {
  return a < b + b_size && b < a + a_size;
}

}  // namespace

BaseConverter::BaseConverter(RnsBase from, RnsBase to)
    : BaseConverter(std::move(from), std::move(to), Scaling{}) {}

BaseConverter::BaseConverter(RnsBase from, RnsBase to, const Scaling& scaling)
    : from_(std::move(from)), to_(std::move(to)) {
  if (from_.empty() || to_.empty()) {
    throw InvalidArgument("BaseConverter: both bases must have at least one modulus");
  }
  // The fixed-point sum S < L * 2^64 and the guard width 2L must stay far
  // from overflowing 128 bits; 2^32 moduli is beyond any real parameter set.
  if (from_.size() >= (std::size_t{1} << 32)) {
    throw InvalidArgument("BaseConverter: the source base has too many moduli (limit 2^32 - 1)");
  }
  const std::size_t source_count = from_.size(), target_count = to_.size();
  if (!scaling.output_factors.empty() && scaling.output_factors.size() != target_count) {
    throw MismatchError("BaseConverter: " + std::to_string(scaling.output_factors.size()) +
                        " output factors for " + std::to_string(target_count) + " target moduli");
  }
  if (!scaling.input_factors.empty() && scaling.input_factors.size() != source_count) {
    throw MismatchError("BaseConverter: " + std::to_string(scaling.input_factors.size()) +
                        " input factors for " + std::to_string(source_count) + " source moduli");
  }
  scaled_ = scaling.input_factor != 1 || !scaling.output_factors.empty() ||
            !scaling.input_factors.empty();
  source_multipliers_.resize(source_count);
  for (std::size_t i = 0; i < source_count; ++i) {
    const math::Modulus& q = from_[i];
    const uint64_t factor =
        scaling.input_factors.empty() ? scaling.input_factor : scaling.input_factors[i];
    source_multipliers_[i] = q.mul(from_.punctured_inverse(i), q.reduce(factor));
  }
  punctured_mod_target_.resize(source_count * target_count);
  neg_product_mod_target_.resize(target_count);
  for (std::size_t j = 0; j < target_count; ++j) {
    const math::Modulus& p = to_[j];
    const uint64_t factor =
        scaling.output_factors.empty() ? 1 : p.reduce(scaling.output_factors[j]);
    for (std::size_t i = 0; i < source_count; ++i) {
      punctured_mod_target_[j * source_count + i] =
          p.mul(detail::mod_word(from_.punctured_product(i), p), factor);
    }
    neg_product_mod_target_[j] = p.mul(p.negate(detail::mod_word(from_.product(), p)), factor);
  }
  source_halves_.resize(source_count);
  for (std::size_t i = 0; i < source_count; ++i)
    source_halves_[i] = from_[i].value() >> 1;
  centering_offsets_.assign(target_count, 0);
  for (std::size_t j = 0; j < target_count; ++j) {
    const math::Modulus& p = to_[j];
    for (std::size_t i = 0; i < source_count; ++i) {
      centering_offsets_[j] =
          p.add(centering_offsets_[j],
                p.mul(p.reduce(source_halves_[i]), punctured_mod_target_[j * source_count + i]));
    }
  }
  int widest = 0;
  for (std::size_t i = 0; i < source_count; ++i)
    widest = std::max(widest, from_[i].bit_count());
  input_bits_ = widest;  // y_i < q_i, and alpha < L < every q_i
  for (std::size_t j = 0; j < target_count; ++j) {
    std::vector<uint64_t> row(punctured_mod_target_.begin() + j * source_count,
                              punctured_mod_target_.begin() + (j + 1) * source_count);
    weights_.emplace_back(row, to_[j]);
    row.push_back(neg_product_mod_target_[j]);
    weights_with_alpha_.emplace_back(std::move(row), to_[j]);
  }
  reciprocal_hi_.resize(source_count);
  reciprocal_lo_.resize(source_count);
  inverse_double_.resize(source_count);
  for (std::size_t i = 0; i < source_count; ++i)
    inverse_double_[i] = 1.0 / static_cast<double>(from_[i].value());
  for (std::size_t i = 0; i < source_count; ++i) {
    reciprocal_hi_[i] = from_[i].barrett_hi();
    reciprocal_lo_[i] = from_[i].barrett_lo();
  }
}

void BaseConverter::convert_approximate(std::span<const uint64_t> input, std::span<uint64_t> output,
                                        std::size_t degree) const {
  convert(input, output, degree, Mode::approximate);
}

void BaseConverter::convert_approximate_centered(std::span<const uint64_t> input,
                                                 std::span<uint64_t> output,
                                                 std::size_t degree) const {
  convert(input, output, degree, Mode::approximate_centered);
}

void BaseConverter::convert_exact(std::span<const uint64_t> input, std::span<uint64_t> output,
                                  std::size_t degree) const {
  convert(input, output, degree, Mode::exact_floor);
}

void BaseConverter::convert_exact_centered(std::span<const uint64_t> input,
                                           std::span<uint64_t> output, std::size_t degree) const {
  convert(input, output, degree, Mode::exact_centered);
}

void BaseConverter::convert_approximate(const RnsPoly& input, RnsPoly& output) const {
  convert_poly(input, output, Mode::approximate);
}

void BaseConverter::convert_exact(const RnsPoly& input, RnsPoly& output) const {
  convert_poly(input, output, Mode::exact_floor);
}

void BaseConverter::convert_exact_centered(const RnsPoly& input, RnsPoly& output) const {
  convert_poly(input, output, Mode::exact_centered);
}

void BaseConverter::convert_poly(const RnsPoly& input, RnsPoly& output, Mode mode) const {
  if (input.empty() || output.empty()) {
    throw InvalidArgument(
        "BaseConverter: a polynomial is empty (default-constructed or moved from)");
  }
  if (input.form() != Form::coefficient) {
    throw MismatchError("BaseConverter: the input must be in coefficient form (call intt() first)");
  }
  const auto same_moduli = [](const RnsPoly& poly, const RnsBase& base) {
    if (poly.tower_count() != base.size()) return false;
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (!(poly.modulus(i) == base[i])) return false;
    }
    return true;
  };
  if (!same_moduli(input, from_)) {
    throw MismatchError("BaseConverter: the input's towers are not the converter's source base");
  }
  if (!same_moduli(output, to_)) {
    throw MismatchError("BaseConverter: the output's towers are not the converter's target base");
  }
  if (input.degree() != output.degree()) {
    throw MismatchError("BaseConverter: input and output have different degrees");
  }
  convert(input.data(), output.data(), input.degree(), mode);
  output.declare_form(Form::coefficient);
  if (input.is_secret()) output.mark_secret();
}

void BaseConverter::convert(std::span<const uint64_t> input, std::span<uint64_t> output,
                            std::size_t degree, Mode mode) const {
  const std::size_t target_count = to_.size();
  if (degree == 0) throw InvalidArgument("BaseConverter: degree must be positive");
  // Compared by division: target_count * degree could wrap and pass.
  if (output.size() % degree != 0 || output.size() / degree != target_count) {
    throw MismatchError("BaseConverter: output has " + std::to_string(output.size()) +
                        " words but the target base needs " + std::to_string(target_count) +
                        " towers of " + std::to_string(degree));
  }
  std::vector<uint64_t*> towers(target_count);
  for (std::size_t j = 0; j < target_count; ++j)
    towers[j] = output.data() + j * degree;
  convert_towers(input, towers, degree, mode);
}

void BaseConverter::convert_approximate(std::span<const uint64_t> input,
                                        std::span<uint64_t* const> output_towers,
                                        std::size_t degree) const {
  convert_towers(input, output_towers, degree, Mode::approximate);
}

void BaseConverter::convert_approximate_centered(std::span<const uint64_t> input,
                                                 std::span<uint64_t* const> output_towers,
                                                 std::size_t degree) const {
  convert_towers(input, output_towers, degree, Mode::approximate_centered);
}

void BaseConverter::convert_towers(std::span<const uint64_t> input,
                                   std::span<uint64_t* const> output_towers, std::size_t degree,
                                   Mode mode) const {
  const std::size_t source_count = from_.size(), target_count = to_.size();
  if (degree == 0) throw InvalidArgument("BaseConverter: degree must be positive");
  if (input.size() % degree != 0 || input.size() / degree != source_count) {
    throw MismatchError("BaseConverter: input has " + std::to_string(input.size()) +
                        " words but the source base needs " + std::to_string(source_count) +
                        " towers of " + std::to_string(degree));
  }
  if (output_towers.size() != target_count) {
    throw MismatchError("BaseConverter: got " + std::to_string(output_towers.size()) +
                        " output towers but the target base has " + std::to_string(target_count));
  }
  for (uint64_t* tower : output_towers) {
    if (tower == nullptr) throw InvalidArgument("BaseConverter: an output tower is null");
    if (spans_overlap(input.data(), input.size(), tower, degree)) {
      throw InvalidArgument("BaseConverter: input and output must not overlap");
    }
  }
  for (std::size_t i = 0; i < target_count; ++i) {
    for (std::size_t j = i + 1; j < target_count; ++j) {
      if (spans_overlap(output_towers[i], degree, output_towers[j], degree)) {
        throw InvalidArgument("BaseConverter: output towers " + std::to_string(i) + " and " +
                              std::to_string(j) + " overlap");
      }
    }
  }

  const std::size_t block = std::min(degree, kBlock);
  const std::size_t block_count = (degree + block - 1) / block;
  const bool big_enough = degree * source_count * target_count >= kMinParallelWork;
  const std::size_t chunks =
      (in_parallel_region() || !big_enough) ? 1 : std::min(num_threads(), block_count);
  // One scratch per chunk (not per block), so a conversion allocates at most
  // once per thread.
  parallel_for(0, chunks, [&](std::size_t chunk) {
    // The y_i rows and, after them, the alphas (exact modes).
    AlignedBuffer<uint64_t> scaled((source_count + 1) * block,
                                   AlignedBuffer<uint64_t>::Uninitialized{});
    const std::size_t first = block_count * chunk / chunks;
    const std::size_t last = block_count * (chunk + 1) / chunks;
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t begin = b * block;
      const std::size_t count = std::min(block, degree - begin);
      convert_block(input.data(), output_towers.data(), degree, begin, count, mode, scaled.data());
    }
  });
}

void BaseConverter::convert_block(const uint64_t* input, uint64_t* const* output_towers,
                                  std::size_t degree, std::size_t begin, std::size_t count,
                                  Mode mode, uint64_t* scaled) const {
  const std::size_t source_count = from_.size(), target_count = to_.size();

  if (source_count == 1 && mode == Mode::approximate && !scaled_) {
    // One source prime (hybrid key switching with one prime per digit, as in
    // SEAL's parameters): Q/q = 1, so the conversion is x mod p_j, a plain
    // vector reduction, or a copy when q < p_j.
    const uint64_t q = from_[0].value();
    const std::span<const uint64_t> x(input + begin, count);
    for (std::size_t j = 0; j < target_count; ++j) {
      const std::span<uint64_t> out(output_towers[j] + begin, count);
      if (q <= to_[j].value()) {
        std::copy(x.begin(), x.end(), out.begin());
      } else {
        math::reduce_any(x, out, to_[j]);
      }
    }
    return;
  }

  // y_i = [x_i * (Q/q_i)^-1]_{q_i} (times f when scaled), stored with stride
  // `count` per tower.
  for (std::size_t i = 0; i < source_count; ++i) {
    math::mul_scalar_mod({input + i * degree + begin, count}, source_multipliers_[i],
                         {scaled + i * count, count}, from_[i]);
  }
  if (mode == Mode::approximate_centered) {
    // y_i + h_i, which stands for the centred y_i (the offset C it adds to
    // the sums is the caller's to remove).
    for (std::size_t i = 0; i < source_count; ++i) {
      const std::span<uint64_t> row(scaled + i * count, count);
      math::add_scalar_mod(row, source_halves_[i], row, from_[i]);
    }
  }

  const bool with_alpha = mode == Mode::exact_floor || mode == Mode::exact_centered;
  if (with_alpha && source_count <= kMaxDoubleAlphaSources) {
    compute_alphas_double(scaled, count, mode);
  } else if (with_alpha) {
    // S = sum_i floor(y_i * floor(2^128/q_i) / 2^64) <= v * 2^64 < S + 2L,
    // v = sum_i y_i / q_i. alpha = floor(v) (floor mode) or ceil(v - 1/2)
    // (centered mode) is read from S unless [S, S + 2L) straddles the
    // rounding point; ceil(u - 1/2) = floor(u + 1/2 - 2^-64) in 2^-64 units.
    const unsigned __int128 offset =
        mode == Mode::exact_centered ? (static_cast<unsigned __int128>(1) << 63) - 1 : 0;
    const unsigned __int128 guard = 2 * static_cast<unsigned __int128>(source_count);
    uint64_t* alphas = scaled + source_count * count;
    for (std::size_t c = 0; c < count; ++c) {
      unsigned __int128 sum = offset;
      for (std::size_t i = 0; i < source_count; ++i) {
        const uint64_t y = scaled[i * count + c];
        const uint64_t low_part =
            static_cast<uint64_t>((static_cast<unsigned __int128>(y) * reciprocal_lo_[i]) >> 64);
        sum += static_cast<unsigned __int128>(y) * reciprocal_hi_[i] + low_part;
      }
      const uint64_t lower = static_cast<uint64_t>(sum >> 64);
      const uint64_t upper = static_cast<uint64_t>((sum + guard) >> 64);
      alphas[c] = lower == upper ? lower : resolve_alpha_exactly(scaled + c, count, lower, mode);
    }
  }

  // out_j = sum_i y_i * (Q/q_i mod p_j) (+ alpha * (-Q mod p_j)): one lazy
  // weighted sum per target over the rows of `scaled` (alpha is the row
  // after the last y_i), which takes y_i unreduced mod p_j.
  for (std::size_t j = 0; j < target_count; ++j) {
    const math::FixedWeights& weights = with_alpha ? weights_with_alpha_[j] : weights_[j];
    math::weighted_sum_mod({scaled, (source_count + 1) * count}, count, weights,
                           {output_towers[j] + begin, count}, input_bits_);
  }
}

// alpha from v = sum_i y_i / q_i evaluated in double precision (a few
// operations per term, against two 64 x 64-bit products for the fixed-point
// sum). Each term y_i * fl(1/q_i) is below 1 and off by at most 3 * 2^-53,
// and each of the L additions adds at most L * 2^-53, so for L <= 64 the
// computed v is within 2^-40 of the true one. A coefficient whose v lies
// within kAlphaMargin = 2^-30 of the rounding point goes to the exact
// resolution, so alpha is exact for every input.
void BaseConverter::compute_alphas_double(uint64_t* scaled, std::size_t count, Mode mode) const {
  constexpr double kAlphaMargin = 0x1p-30;
  const std::size_t source_count = from_.size();
  // v per coefficient (math::scaled_sum_double: one multiply-add per term
  // where AVX-512 runs it, else a loop the compiler vectorises).
  double sums[kBlock];
  math::scaled_sum_double({scaled, source_count * count}, count, inverse_double_, {sums, count},
                          input_bits_);
  // Floor mode: alpha = floor(v). Centered: alpha = ceil(v - 1/2), that is
  // floor(u) + 1 for u = v - 1/2 off an integer. floor(u) is u - 1/2 rounded
  // to the nearest integer (adding and subtracting 1.5 * 2^52 does that, as
  // |u| < L is far below 2^51), except that an integer u may come out as
  // u - 1 (a tie): its fraction is then 1, not 0, and either way it is within
  // the margin below, where the exact path decides. Branch-free, so the
  // compiler vectorises it; the decisions come in a separate loop.
  const double shift = mode == Mode::exact_centered ? 0.5 : 0.0;
  double wholes[kBlock];
  for (std::size_t c = 0; c < count; ++c) {
    const double u = sums[c] - shift;
    wholes[c] = ((u - 0.5) + 0x1.8p52) - 0x1.8p52;
    sums[c] = u - wholes[c];  // the fraction, in [0, 1]
  }
  uint64_t* alphas = scaled + source_count * count;
  for (std::size_t c = 0; c < count; ++c) {
    const double fraction = sums[c];
    const int64_t low = static_cast<int64_t>(wholes[c]) + (mode == Mode::exact_centered ? 1 : 0);
    if (fraction > kAlphaMargin && fraction < 1.0 - kAlphaMargin) {
      alphas[c] = static_cast<uint64_t>(low);
    } else if (fraction <= kAlphaMargin && low == 0) {
      alphas[c] = 0;  // v >= 0 exactly, so alpha cannot be -1
    } else {
      // Near the rounding point: alpha is low - 1 or low (fraction just
      // above an integer) or low or low + 1 (just below the next one).
      const int64_t candidate = fraction <= kAlphaMargin ? low - 1 : low;
      alphas[c] = resolve_alpha_exactly(scaled + c, count, static_cast<uint64_t>(candidate), mode);
    }
  }
}

// The rare coefficient whose alpha the fixed-point sum cannot decide: alpha is
// low_candidate or low_candidate + 1; decide with the exact integer
// Z = sum_i y_i * (Q/q_i) (Z = x + alpha*Q).
uint64_t BaseConverter::resolve_alpha_exactly(const uint64_t* scaled, std::size_t stride,
                                              uint64_t low_candidate, Mode mode) const {
  const std::span<const uint64_t> product = from_.product();
  detail::Words sum(product.size() + 2, 0);
  for (std::size_t i = 0; i < from_.size(); ++i) {
    detail::mul_add_word(sum, from_.punctured_product(i), scaled[i * stride]);
  }
  if (mode == Mode::exact_floor) {
    // alpha = floor(Z / Q): take the higher candidate iff Z >= (low + 1) * Q.
    const detail::Words threshold = detail::multiply_word(product, low_candidate + 1);
    return detail::compare(sum, threshold) >= 0 ? low_candidate + 1 : low_candidate;
  }
  // alpha = ceil(Z/Q - 1/2): the higher candidate iff 2Z > (2 low + 1) * Q.
  const detail::Words doubled = detail::multiply_word(sum, 2);
  const detail::Words threshold = detail::multiply_word(product, 2 * low_candidate + 1);
  return detail::compare(doubled, threshold) > 0 ? low_candidate + 1 : low_candidate;
}

}  // namespace heft::ring
