// LinearTransform: diagonals from a matrix, a map or a function, the
// baby-step count, and the encoding of the rotated diagonals (see the header).
#include "heft/circuits/linear_transform.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::circuits {

namespace {

std::size_t resolve_slots(const rlwe::Context& context, std::size_t slots, const char* operation) {
  const std::size_t max_slots = context.degree() / 2;
  if (slots == 0) return max_slots;
  if (!std::has_single_bit(slots) || slots > max_slots) {
    throw InvalidArgument(std::string(operation) + ": the slot count " + std::to_string(slots) +
                          " is not a power of two in [1, N/2 = " + std::to_string(max_slots) + "]");
  }
  return slots;
}

std::size_t index_mod(int64_t k, std::size_t n) {
  const auto m = static_cast<int64_t>(n);
  return static_cast<std::size_t>(((k % m) + m) % m);
}

bool all_zero(const std::vector<std::complex<double>>& v) {
  return std::all_of(v.begin(), v.end(), [](const std::complex<double>& x) { return x == 0.0; });
}

}  // namespace

std::size_t LinearTransform::choose_baby_steps(const rlwe::Context& context,
                                               std::span<const int64_t> indices, std::size_t slots,
                                               std::size_t level) {
  // Costs per coefficient in modular products (a transform of N values is
  // about log2(N) / 2 per value): a baby step is one key product (2 parts x
  // digits x towers); a giant step divides its inner sum by P, decomposes
  // it and takes a key product.
  const double towers = static_cast<double>(level + 1);
  const double special = static_cast<double>(context.special_count());
  const double digits = static_cast<double>(context.digit_count_at(level));
  const double extended = towers + special;
  const double transform = std::log2(static_cast<double>(context.degree())) / 2;
  const double baby_cost = 2 * digits * extended;
  const double giant_cost = 2 * (special + towers) * transform + 2 * special * towers +
                            towers * transform + digits * extended * (transform + 2);
  std::size_t best = 1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t n1 = 1; n1 <= slots; n1 *= 2) {
    std::set<std::size_t> babies, giants;
    for (const int64_t k : indices) {
      const std::size_t i = index_mod(k, slots);
      if (i % n1) babies.insert(i % n1);
      if (i / n1) giants.insert(i / n1);
    }
    const double cost = static_cast<double>(babies.size()) * baby_cost +
                        static_cast<double>(giants.size()) * giant_cost;
    if (cost < best_cost) {
      best_cost = cost;
      best = n1;
    }
  }
  return best;
}

LinearTransform LinearTransform::encode(
    const ckks::Encoder& encoder,
    std::map<std::size_t, std::vector<std::complex<double>>> diagonals,
    const LinearTransformOptions& options, const char* operation) {
  const auto& context = encoder.context();
  LinearTransform out;
  out.context_ = context;
  out.slots_ = resolve_slots(*context, options.slots, operation);
  if (options.level > context->max_level()) {
    throw InvalidArgument(std::string(operation) + ": level " + std::to_string(options.level) +
                          " is above the top level " + std::to_string(context->max_level()));
  }
  if (!context->supports_key_switching()) {
    throw InvalidArgument(std::string(operation) + ": these parameters have no special primes");
  }
  out.level_ = options.level;
  out.scale_ = options.scale > 0
                   ? options.scale
                   : static_cast<double>(context->parameters().ciphertext_moduli[options.level]);
  std::vector<int64_t> indices;
  for (const auto& [k, values] : diagonals)
    indices.push_back(static_cast<int64_t>(k));
  if (options.baby_steps != 0) {
    if (!std::has_single_bit(options.baby_steps) || options.baby_steps > out.slots_) {
      throw InvalidArgument(std::string(operation) + ": baby_steps " +
                            std::to_string(options.baby_steps) +
                            " is not a power of two up to the slot count");
    }
    out.baby_steps_ = options.baby_steps;
  } else {
    out.baby_steps_ = choose_baby_steps(*context, indices, out.slots_, options.level);
  }
  const std::size_t n = out.slots_, n1 = out.baby_steps_;
  std::map<std::size_t,
           std::vector<std::pair<std::size_t, const std::vector<std::complex<double>>*>>>
      by_giant;
  for (const auto& [k, values] : diagonals)
    by_giant[(k / n1) * n1].push_back({k % n1, &values});
  // Every term encoded in parallel (a convolution over 16 channels has 144
  // diagonals, each an FFT and an NTT per tower), then put in place.
  struct Pending {
    std::size_t giant, baby;
    const std::vector<std::complex<double>>* values;
  };
  std::vector<Pending> pending;
  for (const auto& [giant, terms] : by_giant)
    for (const auto& [baby, values] : terms)
      pending.push_back({giant, baby, values});
  std::vector<ckks::ExtendedPlaintext> encoded(pending.size());
  parallel_for(0, pending.size(), [&](std::size_t t) {
    // rotate(diag_k, -giant): entry j is diag_k[j - giant].
    std::vector<std::complex<double>> rotated(n);
    for (std::size_t j = 0; j < n; ++j)
      rotated[j] = (*pending[t].values)[(j + n - pending[t].giant) % n];
    encoded[t] = encoder.encode_extended(rotated, out.scale_, options.level, out.slots_);
  });
  for (std::size_t t = 0; t < pending.size(); ++t) {
    if (out.giants_.empty() || out.giants_.back().giant != pending[t].giant)
      out.giants_.push_back(GiantStep{pending[t].giant, {}});
    out.giants_.back().terms.push_back({pending[t].baby, std::move(encoded[t])});
  }
  return out;
}

LinearTransform LinearTransform::from_matrix(const ckks::Encoder& encoder,
                                             std::span<const std::complex<double>> matrix,
                                             std::size_t rows,
                                             const LinearTransformOptions& options) {
  const char* operation = "LinearTransform::from_matrix";
  const std::size_t n = resolve_slots(*encoder.context(), options.slots, operation);
  if (rows == 0 || rows > n || matrix.size() != rows * n) {
    throw InvalidArgument(std::string(operation) + ": expected rows (1 to " + std::to_string(n) +
                          ") x " + std::to_string(n) + " entries, got " +
                          std::to_string(matrix.size()) + " for " + std::to_string(rows) + " rows");
  }
  std::map<std::size_t, std::vector<std::complex<double>>> diagonals;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<std::complex<double>> d(n, 0.0);
    for (std::size_t i = 0; i < rows; ++i)
      d[i] = matrix[i * n + (i + k) % n];
    if (!all_zero(d)) diagonals.emplace(k, std::move(d));
  }
  return encode(encoder, std::move(diagonals), options, operation);
}

LinearTransform LinearTransform::from_diagonals(
    const ckks::Encoder& encoder,
    const std::map<int64_t, std::vector<std::complex<double>>>& diagonals,
    const LinearTransformOptions& options) {
  const char* operation = "LinearTransform::from_diagonals";
  const std::size_t n = resolve_slots(*encoder.context(), options.slots, operation);
  std::map<std::size_t, std::vector<std::complex<double>>> normalized;
  for (const auto& [k, values] : diagonals) {
    if (values.size() != n) {
      throw InvalidArgument(std::string(operation) + ": diagonal " + std::to_string(k) + " has " +
                            std::to_string(values.size()) + " values for " + std::to_string(n) +
                            " slots");
    }
    const std::size_t i = index_mod(k, n);
    if (normalized.count(i)) {
      throw InvalidArgument(std::string(operation) + ": diagonal " + std::to_string(k) +
                            " is given twice (indices are taken modulo the slot count)");
    }
    if (!all_zero(values)) normalized.emplace(i, values);
  }
  return encode(encoder, std::move(normalized), options, operation);
}

LinearTransform LinearTransform::from_function(
    const ckks::Encoder& encoder,
    const std::function<std::vector<std::complex<double>>(int64_t)>& diagonal,
    std::span<const int64_t> indices, const LinearTransformOptions& options) {
  std::map<int64_t, std::vector<std::complex<double>>> diagonals;
  for (const int64_t k : indices)
    diagonals.emplace(k, diagonal(k));
  return from_diagonals(encoder, diagonals, options);
}

std::vector<std::size_t> LinearTransform::baby_step_set() const {
  std::set<std::size_t> babies;
  for (const auto& giant : giants_)
    for (const auto& term : giant.terms)
      babies.insert(term.baby);
  return {babies.begin(), babies.end()};
}

std::vector<int64_t> LinearTransform::rotation_steps() const {
  std::set<int64_t> steps;
  for (const std::size_t b : baby_step_set())
    if (b) steps.insert(static_cast<int64_t>(b));
  for (const auto& giant : giants_)
    if (giant.giant) steps.insert(static_cast<int64_t>(giant.giant));
  return {steps.begin(), steps.end()};
}

std::size_t LinearTransform::diagonal_count() const noexcept {
  std::size_t count = 0;
  for (const auto& giant : giants_)
    count += giant.terms.size();
  return count;
}

}  // namespace heft::circuits
