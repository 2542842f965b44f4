// Bootstrapper: the phases of CKKS bootstrapping (see the header).
#include "heft/circuits/bootstrapper.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <complex>
#include <numbers>
#include <set>
#include <string>

#include "circuits/trigonometric_chebyshev.hpp"
#include "heft/circuits/approximation.hpp"
#include "heft/circuits/homomorphic_dft.hpp"
#include "heft/rlwe/mod_raise.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// sin(pi a) / 2 pi on [-r, r] at the smallest degree 2^k - 1 whose
// interpolant is within 2^-40 (or at `degree` if given).
Polynomial sine_polynomial(double r, std::size_t degree) {
  const auto f = [](double a) { return std::sin(std::numbers::pi * a) / (2 * std::numbers::pi); };
  // Above what sampled interpolation takes (a bootstrapper whose EvalMod
  // levels are sized for a lookup table's degree), the expansion in closed
  // form: sin(pi a) / 2 pi = Re(-i / 2 pi exp(i pi a)).
  if (degree > 4095) {
    const std::vector<std::complex<double>> c = {{0.0, -1.0 / (2 * std::numbers::pi)}};
    return Polynomial::chebyshev(detail::chebyshev_of_waves(c, {std::numbers::pi * r}, degree), -r,
                                 r);
  }
  if (degree != 0) return chebyshev_interpolate(f, -r, r, degree);
  for (std::size_t d = 15; d <= 4095; d = 2 * d + 1) {
    Polynomial p = chebyshev_interpolate(f, -r, r, d);
    if (max_error(p, f, -r, r, 20001) < std::ldexp(1.0, -40)) return p;
  }
  throw InvalidArgument("Bootstrapper: no sine interpolant of degree below 4096 for this range");
}

// arcsin(2 pi y) / 2 pi in the power basis, to `degree` (odd, 3 .. 15):
// sum_k (2k)! / (4^k k!^2 (2k + 1)) (2 pi)^(2k) y^(2k + 1).
Polynomial arcsine_polynomial(std::size_t degree) {
  if (degree < 3 || degree > 15 || degree % 2 == 0)
    throw InvalidArgument("Bootstrapper: arcsine_degree " + std::to_string(degree) +
                          " is not an odd number in [3, 15] (or 0 for none)");
  std::vector<std::complex<double>> c(degree + 1, 0.0);
  double term = 1;  // (2k)! / (4^k k!^2)
  for (std::size_t k = 0; 2 * k + 1 <= degree; ++k) {
    if (k > 0) term *= static_cast<double>((2 * k - 1) * (2 * k)) / static_cast<double>(4 * k * k);
    c[2 * k + 1] = term / static_cast<double>(2 * k + 1) *
                   std::pow(2 * std::numbers::pi, static_cast<double>(2 * k));
  }
  return Polynomial::power(std::move(c));
}

Polynomial sine_for(const BootstrapParameters& parameters) {
  if (parameters.mod_range == 0) throw InvalidArgument("Bootstrapper: mod_range must be >= 1");
  return sine_polynomial(2.0 * static_cast<double>(parameters.mod_range) + 1.0,
                         parameters.sine_degree);
}

// Seconds since `start`, and `start` moved to now.
double lap(std::chrono::steady_clock::time_point& start) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start).count();
  start = now;
  return seconds;
}

}  // namespace

std::size_t Bootstrapper::depth_for(const BootstrapParameters& parameters) {
  std::size_t eval_mod_levels = 0;
  if (parameters.sine_degree != 0) {
    // The depth of a degree-d Chebyshev polynomial on the sine's interval,
    // without interpolating one (functional bootstrapping's tables reach
    // degrees interpolation does not).
    const double r = 2.0 * static_cast<double>(parameters.mod_range) + 1.0;
    const std::vector<double> ones(parameters.sine_degree + 1, 1.0);
    eval_mod_levels = Polynomial::chebyshev(ones, -r, r).depth();
  } else {
    eval_mod_levels = sine_for(parameters).depth();
  }
  if (parameters.arcsine_degree != 0)
    eval_mod_levels += arcsine_polynomial(parameters.arcsine_degree).depth();
  return parameters.coeffs_to_slots_levels + eval_mod_levels + parameters.slots_to_coeffs_levels;
}

Bootstrapper::Bootstrapper(std::shared_ptr<const rlwe::Context> context,
                           const BootstrapParameters& parameters)
    : context_(std::move(context)),
      parameters_(parameters),
      slots_(parameters.slots == 0 ? context_->degree() / 2 : parameters.slots),
      encoder_(context_),
      evaluator_(context_),
      transforms_(context_) {
  if (parameters.sparse_secret_weight > 0)
    encapsulation_.emplace(context_, parameters.sparse_secret_weight);
  if (parameters.message_ratio_bits < 0 || parameters.message_ratio_bits > 60) {
    throw InvalidArgument("Bootstrapper: message_ratio_bits " +
                          std::to_string(parameters.message_ratio_bits) + " is outside [0, 60]");
  }
  const std::size_t n = slots_;
  if (!std::has_single_bit(n) || n < 2 || n > context_->degree() / 2) {
    throw InvalidArgument("Bootstrapper: the slot count " + std::to_string(n) +
                          " is not a power of two in [2, N/2]");
  }
  sine_ = sine_for(parameters);
  if (parameters.arcsine_degree != 0) arcsine_ = arcsine_polynomial(parameters.arcsine_degree);
  const std::size_t needed =
      parameters.coeffs_to_slots_levels + eval_mod_depth() + parameters.slots_to_coeffs_levels;
  if (needed + 1 > context_->level_count()) {
    throw InvalidArgument("Bootstrapper: it needs " + std::to_string(needed) +
                          " levels above level 0; these parameters have " +
                          std::to_string(context_->max_level()));
  }
  const std::size_t top = context_->max_level();
  // After SubSum the coefficients are N / 2n times the message's.
  const double gap = static_cast<double>(context_->degree()) / (2.0 * static_cast<double>(n));
  const auto to_slots = coeffs_to_slots_matrices(n, parameters.coeffs_to_slots_levels, 1.0 / gap);
  for (std::size_t i = 0; i < to_slots.size(); ++i) {
    LinearTransformOptions options;
    options.level = top - i;
    options.slots = n;
    coeffs_to_slots_.push_back(LinearTransform::from_diagonals(encoder_, to_slots[i], options));
  }
  auto to_coeffs = slots_to_coeffs_matrices(n, parameters.slots_to_coeffs_levels, 1.0);
  const bool stc_first = parameters.order == BootstrapOrder::slots_to_coeffs_first;
  // Real slots after EvalMod: the first matrix takes D r, r_0 halved (the
  // file comment says why); r_0 is slot 0, so column 0 is halved.
  if (parameters.real_slots && !stc_first) {
    for (auto& [k, diagonal] : to_coeffs.front())
      diagonal[(n - static_cast<std::size_t>(k)) % n] *= 0.5;
  }
  // SlotsToCoeffs first: on the input's levels entry_level() .. 1, keeping
  // its scale. Otherwise below EvalMod, with the scale-down described at
  // slots_to_coeffs_scale_down.
  const std::size_t first_stc =
      stc_first ? to_coeffs.size() : top - parameters.coeffs_to_slots_levels - eval_mod_depth();
  if (!stc_first)
    slots_to_coeffs_scale_down_ = slots_to_coeffs_scale_down(first_stc - (to_coeffs.size() - 1));
  for (std::size_t i = 0; i < to_coeffs.size(); ++i) {
    LinearTransformOptions options;
    options.level = first_stc - i;
    options.slots = n;
    // The last transform's diagonals are encoded below their prime, so that
    // its rescale brings EvalMod's high output scale down to the output's.
    if (!stc_first && i + 1 == to_coeffs.size()) {
      options.scale = static_cast<double>(context_->parameters().ciphertext_moduli[options.level]) /
                      slots_to_coeffs_scale_down_;
    }
    slots_to_coeffs_.push_back(LinearTransform::from_diagonals(encoder_, to_coeffs[i], options));
  }
}

double Bootstrapper::slots_to_coeffs_scale_down(std::size_t last_level) const {
  // Why: every rescale in SlotsToCoeffs adds a rounding error of fixed size
  // (about sqrt(N h / 12) per slot under a secret of weight h), and before
  // the last transform the slots are the message's coefficients, about
  // sqrt(n) times smaller than its values. At the output's own scale (2^40)
  // that error would cost 2^-18 at N = 2^16; EvalMod's output is raised to
  // about 2^kEvalModOutputBits instead and the last transform takes the
  // excess off, its diagonals keeping at least kMinDiagonalBits.
  constexpr double kEvalModOutputBits = 56;
  constexpr double kMinDiagonalBits = 36;
  const double q0 = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  const double ratio_bits = parameters_.message_ratio_bits > 0
                                ? parameters_.message_ratio_bits
                                : std::log2(q0 / evaluator_.scale_at(0));
  const double wanted =
      kEvalModOutputBits - std::log2(evaluator_.scale_at(output_level())) - ratio_bits;
  const double room =
      std::log2(static_cast<double>(context_->parameters().ciphertext_moduli[last_level])) -
      kMinDiagonalBits;
  return std::exp2(std::floor(std::clamp(wanted, 0.0, std::max(room, 0.0))));
}

std::size_t Bootstrapper::eval_mod_depth() const noexcept {
  return sine_.depth() + (arcsine_ ? arcsine_->depth() : 0);
}

std::size_t Bootstrapper::depth() const noexcept {
  return parameters_.coeffs_to_slots_levels + eval_mod_depth() + parameters_.slots_to_coeffs_levels;
}

std::size_t Bootstrapper::output_level() const noexcept {
  // SlotsToCoeffs first spends the input's levels, not the top's.
  if (parameters_.order == BootstrapOrder::slots_to_coeffs_first)
    return context_->max_level() - parameters_.coeffs_to_slots_levels - eval_mod_depth();
  return context_->max_level() - depth();
}

std::size_t Bootstrapper::entry_level() const noexcept {
  return parameters_.order == BootstrapOrder::slots_to_coeffs_first
             ? parameters_.slots_to_coeffs_levels
             : 0;
}

std::vector<int64_t> Bootstrapper::rotation_steps() const {
  std::set<int64_t> steps;
  for (std::size_t step = slots_; step < context_->degree() / 2; step *= 2)
    steps.insert(static_cast<int64_t>(step));
  for (const auto* group : {&coeffs_to_slots_, &slots_to_coeffs_})
    for (const auto& m : *group)
      for (const int64_t s : m.rotation_steps())
        steps.insert(s);
  return {steps.begin(), steps.end()};
}

std::map<uint64_t, std::size_t> Bootstrapper::galois_key_levels() const {
  std::map<uint64_t, std::size_t> levels;
  const auto use = [&](uint64_t g, std::size_t level) {
    auto [it, fresh] = levels.try_emplace(g, level);
    if (!fresh) it->second = std::max(it->second, level);
  };
  // SubSum right after ModRaise, at the top.
  for (std::size_t step = slots_; step < context_->degree() / 2; step *= 2)
    use(context_->galois_element_for_step(static_cast<int64_t>(step)), context_->max_level());
  // Each transform rotates at its own level (its input's).
  for (const auto* group : {&coeffs_to_slots_, &slots_to_coeffs_})
    for (const auto& m : *group)
      for (const int64_t s : m.rotation_steps())
        use(context_->galois_element_for_step(s), m.level());
  // EvalMod's split into real and imaginary parts, on CoeffsToSlots' output.
  use(context_->conjugation_galois_element(),
      context_->max_level() - parameters_.coeffs_to_slots_levels);
  return levels;
}

rlwe::Ciphertext Bootstrapper::at_level_zero(const rlwe::Ciphertext& x) const {
  return at_level(x, 0);
}

rlwe::Ciphertext Bootstrapper::at_level(const rlwe::Ciphertext& x, std::size_t level) const {
  const std::size_t x_slots = x.slots == 0 ? context_->degree() / 2 : x.slots;
  if (x_slots != slots_) {
    throw InvalidArgument("bootstrap: the ciphertext has " + std::to_string(x_slots) +
                          " slots; this bootstrapper is for " + std::to_string(slots_));
  }
  rlwe::Ciphertext low = x.needs_rescale && x.level() > 0 ? evaluator_.rescale(x) : x.clone();
  if (low.level() < level) {
    throw InvalidArgument(
        "bootstrap: SlotsToCoeffs first needs the input at level >= " + std::to_string(level) +
        " (it spends those levels); this one is at " + std::to_string(low.level()));
  }
  if (low.level() > level) low = evaluator_.drop_to_level(low, level);
  return low;
}

rlwe::Ciphertext Bootstrapper::real_part(const rlwe::Ciphertext& x,
                                         const rlwe::GaloisKeys& keys) const {
  rlwe::Ciphertext twice = evaluator_.add(x, evaluator_.conjugate(x, keys));
  twice.scale *= 2;
  return twice;
}

rlwe::Ciphertext Bootstrapper::scaled_up(const rlwe::Ciphertext& x, std::size_t level,
                                         const rlwe::GaloisKeys& keys) const {
  rlwe::Ciphertext low = at_level(x, level);
  // Made real before the scale-up, whose integer then accounts for the
  // doubled integers through the doubled scale label.
  if (parameters_.real_slots) low = real_part(low, keys);
  if (parameters_.message_ratio_bits == 0) return low;
  // The largest integer that keeps the values (|v| <= 1) at q_0 / 2^bits or
  // below; none when the scale is there already. (With SlotsToCoeffs first
  // this happens before it, so its rescales also round at the higher scale.)
  const double q0 = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  const double factor =
      std::floor(q0 / (low.scale * std::ldexp(1.0, parameters_.message_ratio_bits)));
  if (factor < 2) return low;
  rlwe::Ciphertext up = evaluator_.multiply_integer(low, static_cast<int64_t>(factor));
  up.scale = low.scale * factor;
  return up;
}

void Bootstrapper::require_sparse_keys(const SparseSecretKeys* sparse,
                                       const char* operation) const {
  if (encapsulation_ && sparse == nullptr) {
    throw InvalidArgument(std::string(operation) +
                          ": this bootstrapper runs ModRaise under a sparse secret and needs its "
                          "keys: pass the BootstrapKeys of Bootstrapper::create_keys");
  }
}

rlwe::Ciphertext Bootstrapper::raise(const rlwe::Ciphertext& low, const rlwe::GaloisKeys& keys,
                                     const SparseSecretKeys* sparse) const {
  const std::size_t n = slots_;
  rlwe::Ciphertext raised =
      encapsulation_ ? rlwe::mod_raise(*context_, encapsulation_->to_sparse(low, *sparse),
                                       context_->max_level())
                     : rlwe::mod_raise(*context_, low, context_->max_level());
  if (encapsulation_) raised = encapsulation_->to_dense(raised, *sparse);
  raised.scale = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  // SubSum over the full slot cycle: rotations by n, 2n, ..., N/4.
  raised.slots = context_->degree() / 2;
  for (std::size_t step = n; step < context_->degree() / 2; step *= 2)
    evaluator_.add_inplace(raised, evaluator_.rotate(raised, static_cast<int64_t>(step), keys));
  raised.slots = n;
  return raised;
}

rlwe::Ciphertext Bootstrapper::mod_raise(const rlwe::Ciphertext& x,
                                         const rlwe::GaloisKeys& keys) const {
  require_sparse_keys(nullptr, "Bootstrapper::mod_raise");
  return raise(scaled_up(x, 0, keys), keys, nullptr);
}

rlwe::Ciphertext Bootstrapper::mod_raise(const rlwe::Ciphertext& x,
                                         const BootstrapKeys& keys) const {
  const SparseSecretKeys* sparse = keys.sparse ? &*keys.sparse : nullptr;
  require_sparse_keys(sparse, "Bootstrapper::mod_raise");
  return raise(scaled_up(x, 0, keys.galois), keys.galois, sparse);
}

rlwe::Ciphertext Bootstrapper::raise_coefficients(const rlwe::Ciphertext& level0,
                                                  const BootstrapKeys& keys) const {
  const SparseSecretKeys* sparse = keys.sparse ? &*keys.sparse : nullptr;
  require_sparse_keys(sparse, "Bootstrapper::raise_coefficients");
  return raise(at_level_zero(level0), keys.galois, sparse);
}

rlwe::Ciphertext Bootstrapper::apply_in_turn(const rlwe::Ciphertext& x,
                                             const std::vector<LinearTransform>& transforms,
                                             const rlwe::GaloisKeys& keys) const {
  rlwe::Ciphertext y = x.clone();
  for (const auto& m : transforms)
    y = evaluator_.rescale(transforms_.evaluate(y, m, keys));
  return y;
}

rlwe::Ciphertext Bootstrapper::coeffs_to_slots(const rlwe::Ciphertext& x,
                                               const rlwe::GaloisKeys& keys) const {
  return apply_in_turn(x, coeffs_to_slots_, keys);
}

rlwe::Ciphertext Bootstrapper::eval_mod(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                        const rlwe::GaloisKeys& keys, double target_scale) const {
  const PolynomialEvaluator polynomials(context_, relin);
  const uint64_t half = context_->degree() / 2;
  const rlwe::Ciphertext conjugate = evaluator_.conjugate(x, keys);
  // 2 Re(w) = w + conj(w); 2 Im(w) = -i (w - conj(w)), -i being X^(3N/2).
  const rlwe::Ciphertext real2 = evaluator_.add(x, conjugate);
  const std::size_t level = real2.level() - eval_mod_depth();
  const double scale = target_scale > 0 ? target_scale : evaluator_.scale_at(level);
  // The sine, then the arcsine correction when configured: the sine's
  // output at the scale of the prime the correction's first square divides
  // by (any other scale would cost the correction a level to bring it
  // there), the correction's at `scale`.
  const auto reduce = [&](const rlwe::Ciphertext& doubled) {
    if (!arcsine_) return polynomials.evaluate(doubled, sine_, scale);
    const std::size_t sine_level = doubled.level() - sine_.depth();
    const double prime = static_cast<double>(context_->parameters().ciphertext_moduli[sine_level]);
    return polynomials.evaluate(polynomials.evaluate(doubled, sine_, prime), *arcsine_, scale);
  };
  rlwe::Ciphertext real = reduce(real2);
  if (parameters_.real_slots) return real;  // the imaginary parts are not needed
  const rlwe::Ciphertext imag2 =
      evaluator_.multiply_monomial(evaluator_.sub(x, conjugate), 3 * half);
  const rlwe::Ciphertext imag = reduce(imag2);
  return evaluator_.add(real, evaluator_.multiply_monomial(imag, half));
}

rlwe::Ciphertext Bootstrapper::slots_to_coeffs(const rlwe::Ciphertext& x,
                                               const rlwe::GaloisKeys& keys) const {
  return apply_in_turn(x, slots_to_coeffs_, keys);
}

rlwe::Ciphertext Bootstrapper::run(const rlwe::Ciphertext& low, const rlwe::RelinKey& relin,
                                   const rlwe::GaloisKeys& keys, const SparseSecretKeys* sparse,
                                   BootstrapPhaseTimes* times) const {
  const bool stc_first = parameters_.order == BootstrapOrder::slots_to_coeffs_first;
  const double input_scale = low.scale;
  BootstrapPhaseTimes local;
  BootstrapPhaseTimes& t = times != nullptr ? *times : local;
  auto start = std::chrono::steady_clock::now();
  rlwe::Ciphertext y;
  if (stc_first) {
    // The slots' values become the coefficients (bit-reversed, which the
    // bit reversal CoeffsToSlots leaves out undoes), at level 0.
    y = slots_to_coeffs(low, keys);
    t.slots_to_coeffs = lap(start);
    y = raise(y, keys, sparse);
  } else {
    y = raise(low, keys, sparse);
  }
  t.mod_raise = lap(start);
  y = coeffs_to_slots(y, keys);
  t.coeffs_to_slots = lap(start);
  // EvalMod's scale, so that the output lands on the output level's default
  // (through SlotsToCoeffs' scale-down when it comes after).
  const double q0 = static_cast<double>(context_->parameters().ciphertext_moduli[0]);
  y = eval_mod(
      y, relin, keys,
      evaluator_.scale_at(output_level()) * q0 / input_scale * slots_to_coeffs_scale_down_);
  t.eval_mod = lap(start);
  if (!stc_first) {
    y = slots_to_coeffs(y, keys);
    // Real slots: z = 2 Re(SlotsToCoeffs(D r)) (see the file comment).
    if (parameters_.real_slots) y = evaluator_.add(y, evaluator_.conjugate(y, keys));
    t.slots_to_coeffs = lap(start);
  }
  // The slots hold the input's values times Delta / q_0.
  y.scale *= input_scale / q0;
  return y;
}

rlwe::Ciphertext Bootstrapper::bootstrap(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                         const rlwe::GaloisKeys& keys,
                                         BootstrapPhaseTimes* times) const {
  return bootstrap(x, relin, keys, nullptr, times);
}

rlwe::Ciphertext Bootstrapper::bootstrap(const rlwe::Ciphertext& x, const BootstrapKeys& keys,
                                         BootstrapPhaseTimes* times) const {
  return bootstrap(x, keys.relin, keys.galois, keys.sparse ? &*keys.sparse : nullptr, times);
}

rlwe::Ciphertext Bootstrapper::bootstrap(const rlwe::Ciphertext& x, const rlwe::RelinKey& relin,
                                         const rlwe::GaloisKeys& keys,
                                         const SparseSecretKeys* sparse,
                                         BootstrapPhaseTimes* times) const {
  require_sparse_keys(sparse, "bootstrap");
  return run(scaled_up(x, entry_level(), keys), relin, keys, sparse, times);
}

std::size_t Bootstrapper::key_count() const {
  // Relinearization, each rotation and conjugation, and the two sparse-secret keys.
  return 1 + galois_key_levels().size() + (encapsulation_ ? 2 : 0);
}

double Bootstrapper::key_bytes() const {
  // A key for level l: its digits, each a (b, a) pair over l + 1 ciphertext
  // and K special towers of N words.
  const auto bytes_at = [&](std::size_t level) {
    return 16.0 * static_cast<double>(context_->digit_count_at(level) *
                                      (level + 1 + context_->special_count()) * context_->degree());
  };
  double total = bytes_at(context_->max_level());  // relinearization
  for (const auto& [g, level] : galois_key_levels())
    total += bytes_at(level);
  // Encapsulation: to_dense at the top, to_sparse over {q_0} and {p_0} only.
  if (encapsulation_)
    total += bytes_at(context_->max_level()) + 16.0 * 2 * static_cast<double>(context_->degree());
  return total;
}

BootstrapKeys Bootstrapper::create_keys(const rlwe::SecretKey& secret,
                                        const KeyProgress& progress) const {
  const rlwe::KeyGenerator keygen(context_, secret);
  const std::size_t total = key_count();
  std::size_t done = 0;
  const auto made = [&](std::size_t count) {
    done += count;
    if (progress) progress(done, total);
  };
  BootstrapKeys keys{keygen.create_relin_key(), rlwe::GaloisKeys(context_), std::nullopt};
  made(1);
  for (const auto& [g, level] : galois_key_levels()) {
    rlwe::GaloisKeys one = keygen.create_galois_keys_for_elements(std::span(&g, 1), level);
    keys.galois.insert(g, one.extract(g));
    made(1);
  }
  if (encapsulation_) {
    keys.sparse = encapsulation_->create_keys(secret);
    made(2);
  }
  return keys;
}

}  // namespace heft::circuits
