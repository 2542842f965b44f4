// BfvBgvBootstrapper: BFV and BGV ciphertexts refreshed, with a lookup
// table applied, through CKKS functional bootstrapping (see the header for
// the phases and why each conversion is exact).
#include "heft/circuits/bfv_bgv_bootstrapper.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <string.h>  // explicit_bzero

#include "circuits/trigonometric_chebyshev.hpp"
#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/circuits/polynomial_evaluator.hpp"
#include "heft/math/modulus.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

constexpr uint64_t kLargestPlainModulus = 4096;

// t, after checking that the two contexts are one chain with and without it.
uint64_t checked_plain_modulus(const std::shared_ptr<const rlwe::Context>& ckks,
                               const std::shared_ptr<const rlwe::Context>& integer) {
  if (!ckks || !integer) throw InvalidArgument("BfvBgvBootstrapper: a context is null");
  const rlwe::Parameters& c = ckks->parameters();
  const rlwe::Parameters& i = integer->parameters();
  if (c.plain_modulus != 0)
    throw InvalidArgument("BfvBgvBootstrapper: the CKKS context has a plaintext modulus");
  const uint64_t t = i.plain_modulus;
  if (t < 2 || t > kLargestPlainModulus)
    throw InvalidArgument("BfvBgvBootstrapper: the plaintext modulus t = " + std::to_string(t) +
                          " is outside [2, " + std::to_string(kLargestPlainModulus) + "]");
  const bool same_secret =
      c.secret.kind == i.secret.kind && c.secret.hamming_weight == i.secret.hamming_weight;
  if (c.degree != i.degree || c.ciphertext_moduli != i.ciphertext_moduli ||
      c.special_moduli != i.special_moduli || c.digit_count() != i.digit_count() || !same_secret)
    throw MismatchError(
        "BfvBgvBootstrapper: the integer context is not the CKKS chain with a plaintext modulus "
        "(make it from BfvBgvBootstrapper::integer_parameters)");
  return t;
}

// The bootstrapper whose phases the tables use: CoeffsToSlots first over
// every coefficient, EvalMod's levels sized for a table of t entries (its
// own sine is never evaluated).
BootstrapParameters table_settings(BootstrapParameters parameters, uint64_t t) {
  parameters.order = BootstrapOrder::coeffs_to_slots_first;
  parameters.real_slots = false;
  parameters.message_ratio_bits = 0;
  parameters.arcsine_degree = 0;
  parameters.sine_degree = FunctionalBootstrapper::table_degree(t, parameters.mod_range);
  return parameters;
}

// Q_level mod t.
uint64_t modulus_mod(const math::Modulus& t, const rlwe::Context& context, std::size_t level) {
  uint64_t r = t.reduce(1);
  for (std::size_t i = 0; i <= level; ++i)
    r = t.mul(r, t.reduce(context.parameters().ciphertext_moduli[i]));
  return r;
}

// log2(Q_level).
double log2_modulus(const rlwe::Context& context, std::size_t level) {
  double bits = 0;
  for (std::size_t i = 0; i <= level; ++i)
    bits += std::log2(static_cast<double>(context.parameters().ciphertext_moduli[i]));
  return bits;
}

// 0, 1, ..., t - 1: the table that only refreshes.
std::vector<uint64_t> identity(uint64_t t) {
  std::vector<uint64_t> table(t);
  std::iota(table.begin(), table.end(), uint64_t{0});
  return table;
}

// Each part multiplied by a scalar given by its residues, one per tower.
void multiply_parts(rlwe::Ciphertext& x, std::span<const uint64_t> residues) {
  for (auto& part : x.parts)
    part.multiply_scalar(residues);
}

std::vector<double> as_doubles(std::span<const uint64_t> table) {
  return {table.begin(), table.end()};
}

}  // namespace

rlwe::Parameters BfvBgvBootstrapper::integer_parameters(const rlwe::Parameters& ckks,
                                                        uint64_t plain_modulus) {
  rlwe::Parameters p = ckks;
  p.scale = 0;
  p.plain_modulus = plain_modulus;
  p.validate();
  return p;
}

BfvBgvBootstrapper::BfvBgvBootstrapper(std::shared_ptr<const rlwe::Context> ckks_context,
                                       std::shared_ptr<const rlwe::Context> integer_context,
                                       const BootstrapParameters& bootstrap)
    : ckks_context_(std::move(ckks_context)),
      integer_context_(std::move(integer_context)),
      plain_modulus_(checked_plain_modulus(ckks_context_, integer_context_)),
      bootstrapper_(ckks_context_, table_settings(bootstrap, plain_modulus_)),
      ckks_evaluator_(ckks_context_),
      bfv_evaluator_(integer_context_) {
  if (bootstrapper_.slots() != ckks_context_->degree() / 2)
    throw InvalidArgument(
        "BfvBgvBootstrapper: every coefficient is a message, so the bootstrapping must use all N/2 "
        "slots (BootstrapParameters::slots 0)");
  // The output's K = Q_out / (t S) must be an integer large enough that
  // its rounding (1 / 2K relative) is far below 1 / t.
  if (output_level_bits() < 2 * std::log2(static_cast<double>(plain_modulus_)) + 20)
    throw InvalidArgument(
        "BfvBgvBootstrapper: the output level " + std::to_string(bootstrapper_.output_level()) +
        " leaves too little modulus above its scale for t = " + std::to_string(plain_modulus_));
  range_ = 2.0 * static_cast<double>(bootstrap.mod_range) + 1.0;
  table_degree_ = FunctionalBootstrapper::table_degree(plain_modulus_, bootstrap.mod_range);
  table_depth_ = bootstrapper_.sine().depth();
}

double BfvBgvBootstrapper::output_level_bits() const {
  const std::size_t level = bootstrapper_.output_level();
  return log2_modulus(*ckks_context_, level) - std::log2(static_cast<double>(plain_modulus_)) -
         std::log2(ckks_evaluator_.scale_at(level));
}

std::size_t BfvBgvBootstrapper::output_level() const noexcept {
  return bootstrapper_.output_level();
}

BootstrapKeys BfvBgvBootstrapper::create_keys(const rlwe::SecretKey& secret,
                                              const KeyProgress& progress) const {
  if (secret.context() != integer_context_)
    throw MismatchError(
        "BfvBgvBootstrapper::create_keys: the secret key is not of the integer "
        "context");
  std::vector<int64_t> coefficients = secret.coefficients();
  // Wiped on every path (explicit_bzero: a plain fill before the vector's
  // end could be optimised away).
  struct Wipe {
    std::vector<int64_t>& v;
    ~Wipe() { explicit_bzero(v.data(), v.size() * sizeof(int64_t)); }
  } wipe{coefficients};
  const rlwe::SecretKey same = rlwe::SecretKey::from_coefficients(ckks_context_, coefficients);
  return bootstrapper_.create_keys(same, progress);
}

void BfvBgvBootstrapper::require_table(std::span<const uint64_t> table) const {
  if (table.size() != plain_modulus_)
    throw InvalidArgument("BfvBgvBootstrapper: a table of " + std::to_string(table.size()) +
                          " entries for t = " + std::to_string(plain_modulus_));
  for (const uint64_t v : table)
    if (v >= plain_modulus_)
      throw InvalidArgument("BfvBgvBootstrapper: a table entry " + std::to_string(v) +
                            " is not below t = " + std::to_string(plain_modulus_));
}

void BfvBgvBootstrapper::require_integer_ciphertext(const rlwe::Ciphertext& x,
                                                    const char* operation) const {
  if (x.parts.size() != 2)
    throw MismatchError(std::string(operation) + ": the ciphertext has " +
                        std::to_string(x.parts.size()) + " parts (relinearize it first)");
  for (const auto& part : x.parts)
    if (part.context() != integer_context_->ciphertext_ring())
      throw MismatchError(std::string(operation) +
                          ": the ciphertext is not of this bootstrapper's integer context");
}

rlwe::Ciphertext BfvBgvBootstrapper::moved_to(const rlwe::Ciphertext& x,
                                              const rlwe::Context& context) {
  rlwe::Ciphertext out;
  for (const auto& part : x.parts) {
    ring::RnsPoly moved =
        ring::RnsPoly::uninitialized(context.ciphertext_ring(), part.tower_count(), part.form());
    std::ranges::copy(part.data(), moved.data().begin());
    out.parts.push_back(std::move(moved));
  }
  return out;
}

rlwe::Ciphertext BfvBgvBootstrapper::phases(const rlwe::Ciphertext& bfv,
                                            const BootstrapKeys& keys) const {
  // Level 0: (q_0 / t) m + e' modulo q_0.
  rlwe::Ciphertext low = bfv.clone();
  while (low.level() > 0)
    low = bfv_evaluator_.mod_switch_to_next(low);
  rlwe::Ciphertext coefficients = moved_to(low, *ckks_context_);
  coefficients.scale = static_cast<double>(ckks_context_->parameters().ciphertext_moduli[0]) /
                       static_cast<double>(plain_modulus_);
  const rlwe::Ciphertext raised = bootstrapper_.raise_coefficients(coefficients, keys);
  return bootstrapper_.coeffs_to_slots(raised, keys.galois);
}

std::vector<rlwe::Ciphertext> BfvBgvBootstrapper::tables_to_bfv(
    const rlwe::Ciphertext& slots, const std::vector<std::vector<uint64_t>>& tables,
    const BootstrapKeys& keys) const {
  const auto& ckks = ckks_evaluator_;
  const uint64_t half = ckks_context_->degree() / 2;
  // u = 2 Re - 1 = 2 (m - t/2) / t + 2I, and the same of the imaginary
  // parts; 2 Im = -i (z - conj z), -i being X^(3N/2).
  const rlwe::Ciphertext conjugate = ckks.conjugate(slots, keys.galois);
  const rlwe::Ciphertext u_real = ckks.sub_scalar(ckks.add(slots, conjugate), 1.0);
  const rlwe::Ciphertext u_imag =
      ckks.sub_scalar(ckks.multiply_monomial(ckks.sub(slots, conjugate), 3 * half), 1.0);
  std::vector<Polynomial> polynomials;
  for (const auto& table : tables)
    polynomials.push_back(Polynomial::chebyshev(
        detail::lookup_table_chebyshev(as_doubles(table), range_, table_degree_), -range_, range_));
  PolynomialEvaluator evaluator(ckks_context_, keys.relin);
  evaluator.allow_transparent_results(true);  // a constant table
  const double scale = ckks.scale_at(bootstrapper_.output_level());
  const auto real = evaluator.evaluate(u_real, polynomials, scale);
  const auto imag = evaluator.evaluate(u_imag, polynomials, scale);

  std::vector<rlwe::Ciphertext> out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const rlwe::Ciphertext w = ckks.add(real[i], ckks.multiply_monomial(imag[i], half));
    const rlwe::Ciphertext c = bootstrapper_.slots_to_coeffs(w, keys.galois);
    // Coefficient k is S f(m_k) + e; times K = round(Q / (t S)): a
    // 53-bit mantissa times a power of two (K far above t, checked at
    // construction).
    const std::size_t level = c.level();
    const double log2_k = log2_modulus(*ckks_context_, level) -
                          std::log2(static_cast<double>(plain_modulus_)) - std::log2(c.scale);
    const auto exponent = static_cast<uint64_t>(std::max(std::floor(log2_k) - 52, 0.0));
    const auto mantissa =
        static_cast<uint64_t>(std::llround(std::exp2(log2_k - static_cast<double>(exponent))));
    std::vector<uint64_t> k_residues(level + 1);
    for (std::size_t j = 0; j <= level; ++j) {
      const auto& q = c.parts[0].modulus(j);
      k_residues[j] = q.mul(q.reduce(mantissa), q.pow(q.reduce(2), exponent));
    }
    rlwe::Ciphertext bfv = moved_to(c, *integer_context_);
    multiply_parts(bfv, k_residues);
    out.push_back(std::move(bfv));
  }
  return out;
}

std::vector<rlwe::Ciphertext> BfvBgvBootstrapper::evaluate_bfv(
    const rlwe::Ciphertext& x, const std::vector<std::vector<uint64_t>>& tables,
    const BootstrapKeys& keys) const {
  if (tables.empty()) throw InvalidArgument("BfvBgvBootstrapper: no table");
  for (const auto& table : tables)
    require_table(table);
  require_integer_ciphertext(x, "BfvBgvBootstrapper::evaluate_bfv");
  return tables_to_bfv(phases(x, keys), tables, keys);
}

rlwe::Ciphertext BfvBgvBootstrapper::evaluate_bfv(const rlwe::Ciphertext& x,
                                                  std::span<const uint64_t> table,
                                                  const BootstrapKeys& keys) const {
  const std::vector<std::vector<uint64_t>> tables = {{table.begin(), table.end()}};
  return std::move(evaluate_bfv(x, tables, keys)[0]);
}

rlwe::Ciphertext BfvBgvBootstrapper::refresh_bfv(const rlwe::Ciphertext& x,
                                                 const BootstrapKeys& keys) const {
  return evaluate_bfv(x, identity(plain_modulus_), keys);
}

rlwe::Ciphertext BfvBgvBootstrapper::evaluate_bgv(const rlwe::Ciphertext& x,
                                                  std::span<const uint64_t> table,
                                                  const BootstrapKeys& keys) const {
  require_table(table);
  require_integer_ciphertext(x, "BfvBgvBootstrapper::evaluate_bgv");
  const uint64_t t = plain_modulus_;
  bgv::require_correction(x.correction, t, "BfvBgvBootstrapper::evaluate_bgv");
  const math::Modulus mod_t(t);
  // m' + t e times t^-1 mod Q_l: a BFV ciphertext of mu = m' k, k = -Q_l^-1
  // mod t, and m = m' c = mu k^-1 c; the table reads m from mu.
  const std::size_t level = x.level();
  const uint64_t k = mod_t.negate(mod_t.inverse(modulus_mod(mod_t, *integer_context_, level)));
  const uint64_t mu_to_m = mod_t.mul(mod_t.inverse(k), x.correction);
  std::vector<uint64_t> through(t);
  for (uint64_t mu = 0; mu < t; ++mu)
    through[mu] = table[mod_t.mul(mu, mu_to_m)];
  rlwe::Ciphertext bfv = x.clone();
  std::vector<uint64_t> t_inverse(level + 1);
  for (std::size_t j = 0; j <= level; ++j) {
    const auto& q = bfv.parts[0].modulus(j);
    t_inverse[j] = q.inverse(q.reduce(t));
  }
  multiply_parts(bfv, t_inverse);
  static_cast<rlwe::CiphertextMetadata&>(bfv) = rlwe::CiphertextMetadata{};
  rlwe::Ciphertext out = evaluate_bfv(bfv, through, keys);
  // (Q / t) f + E times t: -(Q mod t) f + t E, a BGV ciphertext of f with
  // correction (-(Q mod t))^-1 mod t; its noise bound Q 2^-bits.
  const std::size_t out_level = out.level();
  for (auto& part : out.parts)
    part.multiply_scalar(t);
  out.correction = mod_t.inverse(mod_t.negate(modulus_mod(mod_t, *integer_context_, out_level)));
  out.noise_log2 = log2_modulus(*integer_context_, out_level) - kRefreshedPrecisionBits;
  return out;
}

rlwe::Ciphertext BfvBgvBootstrapper::refresh_bgv(const rlwe::Ciphertext& x,
                                                 const BootstrapKeys& keys) const {
  return evaluate_bgv(x, identity(plain_modulus_), keys);
}

}  // namespace heft::circuits
