// ConstantProducts: constants at a chosen scale, multiplied and added in one
// pass per tower (see the header).
#include "constant_products.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "heft/math/kernels.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "math/integer_double.hpp"

namespace heft::circuits::detail {

namespace {

// Work per tower is one pass over N words: worth a thread only when there
// is enough of it.
constexpr std::size_t kParallelWords = std::size_t{1} << 16;

// Runs body(0 .. jobs-1), each one pass over a tower of `degree` words, over
// the threads when there is enough work to pay for them (a large memset or
// copy is otherwise serial too).
template <typename Body>
void run_tower_jobs(std::size_t jobs, std::size_t degree, const Body& body) {
  if (jobs * degree >= kParallelWords) {
    parallel_for(0, jobs, body);
  } else {
    for (std::size_t job = 0; job < jobs; ++job)
      body(job);
  }
}

}  // namespace

ConstantProducts::ConstantProducts(std::shared_ptr<const rlwe::Context> context)
    : context_(std::move(context)) {
  const auto& ring = context_->ciphertext_ring();
  const std::size_t towers = context_->level_count();
  // X^(N/2) in NTT form: the evaluation at psi^(2 brv(k) + 1) is
  // psi^(N/2) * (-1)^brv(k), so slot 0 holds I and the second half -I.
  ring::RnsPoly monomial(ring, towers, ring::Form::coefficient);
  for (std::size_t t = 0; t < towers; ++t)
    monomial.tower(t)[context_->degree() / 2] = 1;
  monomial.ntt();
  imaginary_unit_.resize(towers);
  for (std::size_t t = 0; t < towers; ++t)
    imaginary_unit_[t] = monomial.tower(t)[0];
  double log2_q = 0;
  for (std::size_t t = 0; t < towers; ++t) {
    log2_q += std::log2(static_cast<double>(ring->modulus(t).value()));
    log2_modulus_.push_back(log2_q);
  }
}

rlwe::Ciphertext ConstantProducts::zero(std::size_t level, double scale, std::size_t slots,
                                        std::size_t parts) const {
  rlwe::Ciphertext out;
  const std::size_t towers = level + 1;
  for (std::size_t i = 0; i < parts; ++i)
    out.parts.push_back(
        ring::RnsPoly::uninitialized(context_->ciphertext_ring(), towers, ring::Form::ntt));
  const std::size_t jobs = parts * towers;
  const auto body = [&](std::size_t job) {
    const auto tower = out.parts[job / towers].tower(job % towers);
    std::fill(tower.begin(), tower.end(), uint64_t{0});
  };
  run_tower_jobs(jobs, context_->degree(), body);
  out.scale = scale;
  out.slots = slots;
  out.needs_rescale = level > 0;
  return out;
}

rlwe::Ciphertext ConstantProducts::copy_at_level(const rlwe::Ciphertext& x,
                                                 std::size_t level) const {
  rlwe::Ciphertext out;
  out.scale = x.scale;
  out.slots = x.slots;
  out.needs_rescale = x.needs_rescale && level > 0;
  const std::size_t towers = level + 1;
  for (const auto& part : x.parts)
    out.parts.push_back(ring::RnsPoly::uninitialized(part.context(), towers, part.form()));
  const std::size_t jobs = x.parts.size() * towers;
  const auto body = [&](std::size_t job) {
    const auto from = x.parts[job / towers].tower(job % towers);
    std::copy(from.begin(), from.end(), out.parts[job / towers].tower(job % towers).begin());
  };
  run_tower_jobs(jobs, context_->degree(), body);
  return out;
}

void ConstantProducts::constant_residues(std::complex<double> c, double scale, std::size_t towers,
                                         const char* operation, std::vector<uint64_t>& first_half,
                                         std::vector<uint64_t>& second_half) const {
  const double re = std::round(c.real() * scale);
  const double im = std::round(c.imag() * scale);
  const double limit = std::ldexp(1.0, static_cast<int>(log2_modulus_[towers - 1]) - 1);
  if (!(std::max(std::abs(re), std::abs(im)) < limit)) {
    throw InvalidArgument(std::string(operation) + ": a constant times its scale 2^" +
                          std::to_string(std::log2(scale)) +
                          " does not fit the modulus left at level " + std::to_string(towers - 1));
  }
  first_half.resize(towers);
  second_half.resize(towers);
  const auto& ring = context_->ciphertext_ring();
  for (std::size_t t = 0; t < towers; ++t) {
    const math::Modulus& q = ring->modulus(t);
    const uint64_t r = math::reduce_integer_double(re, q);
    const uint64_t i = q.mul(math::reduce_integer_double(im, q), imaginary_unit_[t]);
    first_half[t] = q.add(r, i);
    second_half[t] = q.sub(r, i);
  }
}

void ConstantProducts::multiply_accumulate(rlwe::Ciphertext& acc, const rlwe::Ciphertext& x,
                                           std::complex<double> c, const char* operation) const {
  const double constant_scale = acc.scale / x.scale;
  if (!(constant_scale >= 256.0) || !std::isfinite(constant_scale)) {
    throw InvalidArgument(std::string(operation) + ": the constant's scale 2^" +
                          std::to_string(std::log2(constant_scale)) +
                          " is too small to encode it (internal scale plan)");
  }
  const std::size_t towers = acc.level() + 1;
  if (x.level() + 1 < towers) {
    throw InvalidArgument(std::string(operation) + ": a term is below the level of its sum");
  }
  if (c == 0.0) return;
  std::vector<uint64_t> first, second;
  constant_residues(c, constant_scale, towers, operation, first, second);
  while (acc.parts.size() < x.parts.size())
    acc.parts.emplace_back(context_->ciphertext_ring(), towers, ring::Form::ntt);
  const std::size_t half = context_->degree() / 2;
  const auto& ring = context_->ciphertext_ring();
  const std::size_t jobs = x.parts.size() * towers;
  const auto body = [&](std::size_t job) {
    const std::size_t part = job / towers, t = job % towers;
    const math::Modulus& q = ring->modulus(t);
    const auto in = x.parts[part].tower(t);
    const auto out = acc.parts[part].tower(t);
    math::fma_scalar_mod(in.first(half), first[t], out.first(half), out.first(half), q);
    math::fma_scalar_mod(in.subspan(half), second[t], out.subspan(half), out.subspan(half), q);
  };
  run_tower_jobs(jobs, context_->degree(), body);
}

void ConstantProducts::add_constant(rlwe::Ciphertext& acc, std::complex<double> c,
                                    const char* operation) const {
  if (c == 0.0) return;
  const std::size_t towers = acc.level() + 1;
  std::vector<uint64_t> first, second;
  constant_residues(c, acc.scale, towers, operation, first, second);
  const std::size_t half = context_->degree() / 2;
  const auto& ring = context_->ciphertext_ring();
  for (std::size_t t = 0; t < towers; ++t) {
    const auto out = acc.parts[0].tower(t);
    math::add_scalar_mod(out.first(half), first[t], out.first(half), ring->modulus(t));
    math::add_scalar_mod(out.subspan(half), second[t], out.subspan(half), ring->modulus(t));
  }
}

void ConstantProducts::multiply_plain_accumulate(rlwe::Ciphertext& acc, const rlwe::Ciphertext& x,
                                                 const rlwe::Plaintext& plain) const {
  const std::size_t towers = acc.level() + 1;
  while (acc.parts.size() < x.parts.size())
    acc.parts.emplace_back(context_->ciphertext_ring(), towers, ring::Form::ntt);
  const auto& ring = context_->ciphertext_ring();
  const std::size_t jobs = x.parts.size() * towers;
  const auto body = [&](std::size_t job) {
    const std::size_t part = job / towers, t = job % towers;
    const auto out = acc.parts[part].tower(t);
    math::fma_mod(x.parts[part].tower(t), plain.poly.tower(t), out, out, ring->modulus(t));
  };
  run_tower_jobs(jobs, context_->degree(), body);
}

}  // namespace heft::circuits::detail
