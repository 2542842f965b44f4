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

rlwe::Ciphertext ConstantProducts::uninitialized(std::size_t level, double scale, std::size_t slots,
                                                 std::size_t parts) const {
  rlwe::Ciphertext out;
  for (std::size_t i = 0; i < parts; ++i)
    out.parts.push_back(
        ring::RnsPoly::uninitialized(context_->ciphertext_ring(), level + 1, ring::Form::ntt));
  out.scale = scale;
  out.slots = slots;
  out.needs_rescale = level > 0;
  return out;
}

rlwe::Ciphertext ConstantProducts::zero(std::size_t level, double scale, std::size_t slots,
                                        std::size_t parts) const {
  rlwe::Ciphertext out = uninitialized(level, scale, slots, parts);
  const std::size_t towers = level + 1;
  const std::size_t jobs = parts * towers;
  const auto body = [&](std::size_t job) {
    const auto tower = out.parts[job / towers].tower(job % towers);
    std::fill(tower.begin(), tower.end(), uint64_t{0});
  };
  run_tower_jobs(jobs, context_->degree(), body);
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

double ConstantProducts::checked_constant_scale(double sum_scale, std::size_t towers,
                                                const rlwe::Ciphertext& x, const char* operation) {
  const double constant_scale = sum_scale / x.scale;
  if (!(constant_scale >= 256.0) || !std::isfinite(constant_scale)) {
    throw InvalidArgument(std::string(operation) + ": the constant's scale 2^" +
                          std::to_string(std::log2(constant_scale)) +
                          " is too small to encode it (internal scale plan)");
  }
  if (x.level() + 1 < towers) {
    throw InvalidArgument(std::string(operation) + ": a term is below the level of its sum");
  }
  return constant_scale;
}

void ConstantProducts::multiply_accumulate(rlwe::Ciphertext& acc, const rlwe::Ciphertext& x,
                                           std::complex<double> c, const char* operation) const {
  const std::size_t towers = acc.level() + 1;
  const double constant_scale = checked_constant_scale(acc.scale, towers, x, operation);
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

std::vector<rlwe::Ciphertext> ConstantProducts::linear_combinations(
    std::span<const Combination> combinations, const char* operation) const {
  // Each combination's nonzero terms with their constants' residues, checked
  // as multiply_accumulate checks them, and its output (zero without terms).
  struct Prepared {
    std::vector<const rlwe::Ciphertext*> xs;
    std::vector<std::vector<uint64_t>> first_halves, second_halves;  // [term][tower]
  };
  std::vector<Prepared> prepared(combinations.size());
  std::vector<rlwe::Ciphertext> outs;
  std::size_t max_parts = 0, max_towers = 0;
  for (std::size_t r = 0; r < combinations.size(); ++r) {
    const Combination& combination = combinations[r];
    const std::size_t towers = combination.level + 1;
    Prepared& terms = prepared[r];
    std::size_t parts = 2;
    for (const Term& term : combination.terms) {
      const double constant_scale =
          checked_constant_scale(combination.scale, towers, *term.x, operation);
      if (term.c == 0.0) continue;
      terms.xs.push_back(term.x);
      terms.first_halves.emplace_back();
      terms.second_halves.emplace_back();
      constant_residues(term.c, constant_scale, towers, operation, terms.first_halves.back(),
                        terms.second_halves.back());
      parts = std::max(parts, term.x->parts.size());
    }
    max_parts = std::max(max_parts, parts);
    max_towers = std::max(max_towers, towers);
    outs.push_back(terms.xs.empty() ? zero(combination.level, combination.scale, combination.slots)
                                    : uninitialized(combination.level, combination.scale,
                                                    combination.slots, parts));
  }

  // One job per part, tower and half (the halves take different constants,
  // re + im I and re - im I, see constant_residues). Within a job, block by
  // block of coefficients, every combination's sum: the block of each power
  // is read from memory once and then from cache.
  constexpr std::size_t kBlock = 256;
  const std::size_t half = context_->degree() / 2;
  const auto& ring = context_->ciphertext_ring();
  const std::size_t jobs = max_parts * max_towers * 2;
  const auto body = [&](std::size_t job) {
    const std::size_t part = job / (2 * max_towers), t = job / 2 % max_towers, second = job % 2;
    const math::Modulus& q = ring->modulus(t);
    struct Sum {
      std::vector<std::span<const uint64_t>> rows;
      math::FixedWeights weights;
      std::span<uint64_t> out;
    };
    std::vector<Sum> sums;
    for (std::size_t r = 0; r < combinations.size(); ++r) {
      const Prepared& terms = prepared[r];
      if (terms.xs.empty() || t > combinations[r].level || part >= outs[r].parts.size()) continue;
      std::vector<std::span<const uint64_t>> rows;
      std::vector<uint64_t> weights;
      for (std::size_t j = 0; j < terms.xs.size(); ++j) {
        if (part >= terms.xs[j]->parts.size()) continue;
        rows.push_back(terms.xs[j]->parts[part].tower(t).subspan(second * half, half));
        weights.push_back(second ? terms.second_halves[j][t] : terms.first_halves[j][t]);
      }
      const auto out = outs[r].parts[part].tower(t).subspan(second * half, half);
      if (rows.empty()) {
        std::fill(out.begin(), out.end(), uint64_t{0});
        continue;
      }
      sums.push_back({std::move(rows), math::FixedWeights(std::move(weights), q), out});
    }
    std::vector<std::span<const uint64_t>> block_rows;
    for (std::size_t begin = 0; begin < half; begin += kBlock) {
      const std::size_t length = std::min(kBlock, half - begin);
      for (const Sum& sum : sums) {
        block_rows.clear();
        for (const auto& row : sum.rows)
          block_rows.push_back(row.subspan(begin, length));
        math::weighted_sum_mod(block_rows, sum.weights, sum.out.subspan(begin, length),
                               q.bit_count());
      }
    }
  };
  run_tower_jobs(jobs, half, body);
  return outs;
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
