// LinearTransformEvaluator: baby-step giant-step evaluation with hoisted
// baby steps and double hoisting (see heft/circuits/linear_transform.hpp).
#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "heft/circuits/linear_transform.hpp"
#include "heft/math/kernels.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/rlwe/rotation_plan.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::circuits {

namespace {

using ExtendedPair = std::array<rlwe::ExtendedPoly, 2>;

// Key products computed in one pass over the digits, a group at a time
// (more share the reads of the digits but hold more products at once).
constexpr std::size_t kKeysPerPass = 8;

// A pair over Q_l * P: zeroed (a sum to add into), or uninitialized (room
// for a sum written in full before it is read).
ExtendedPair extended_pair(const rlwe::Context& context, std::size_t level, bool zeroed) {
  const auto make = [&](std::shared_ptr<const ring::PolyContext> ring, std::size_t towers) {
    return zeroed ? ring::RnsPoly(std::move(ring), towers, ring::Form::ntt)
                  : ring::RnsPoly::uninitialized(std::move(ring), towers, ring::Form::ntt);
  };
  ExtendedPair out;
  for (auto& part : out) {
    part.q = make(context.ciphertext_ring(), level + 1);
    part.p = make(context.special_ring(), context.special_count());
  }
  return out;
}

void add_into(ExtendedPair& sum, const ExtendedPair& term) {
  for (std::size_t k = 0; k < 2; ++k) {
    sum[k].q += term[k].q;
    sum[k].p += term[k].p;
  }
}

}  // namespace

LinearTransformEvaluator::LinearTransformEvaluator(std::shared_ptr<const rlwe::Context> context)
    : context_(std::move(context)) {
  if (!context_) throw InvalidArgument("LinearTransformEvaluator needs a context");
}

rlwe::Ciphertext LinearTransformEvaluator::evaluate(const rlwe::Ciphertext& x,
                                                    const LinearTransform& m,
                                                    const rlwe::GaloisKeys& keys) const {
  const LinearTransform* one[] = {&m};
  auto results = evaluate(x, one, keys);
  return std::move(results.front());
}

std::vector<rlwe::Ciphertext> LinearTransformEvaluator::evaluate(
    const rlwe::Ciphertext& x, std::span<const LinearTransform* const> transforms,
    const rlwe::GaloisKeys& keys) const {
  const char* operation = "LinearTransformEvaluator::evaluate";
  const rlwe::Context& context = *context_;
  rlwe::detail::require_relinearized(x, operation);
  rlwe::detail::require_ciphertext_ring_poly(context, x.parts[0], operation, "the input");
  if (x.needs_rescale && x.level() > 0) {
    throw InvalidArgument(std::string(operation) + ": the input awaits its rescale; rescale first");
  }
  rlwe::detail::require_galois_keys(context, keys, operation);
  const std::size_t level = x.level();
  // Every key first: the baby steps of all transforms and their giant steps.
  std::set<std::size_t> babies;
  std::map<std::size_t, uint64_t> elements;  // step -> Galois element
  std::vector<int64_t> missing;
  for (const LinearTransform* m : transforms) {
    if (m == nullptr || m->context() != context_) {
      rlwe::detail::throw_different_context(operation, "a transform");
    }
    if (m->level() < level) {
      throw InvalidArgument(std::string(operation) + ": the transform is encoded at level " +
                            std::to_string(m->level()) + ", below the input's level " +
                            std::to_string(level));
    }
    const std::size_t x_slots = x.slots == 0 ? context.degree() / 2 : x.slots;
    if (x_slots != m->slots()) {
      throw MismatchError(std::string(operation) + ": the transform is for " +
                          std::to_string(m->slots()) + " slots, the input has " +
                          std::to_string(x_slots));
    }
    for (const int64_t step : m->rotation_steps()) {
      if (elements.count(static_cast<std::size_t>(step))) continue;
      const auto g = rlwe::direct_rotation_element(context, keys, step, m->slots());
      if (!g) {
        missing.push_back(step);
      } else {
        elements[static_cast<std::size_t>(step)] = *g;
      }
    }
    for (const std::size_t b : m->baby_step_set())
      babies.insert(b);
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
    std::string list;
    for (const int64_t s : missing)
      list += (list.empty() ? "" : ", ") + std::to_string(s);
    throw InvalidArgument(std::string(operation) + ": no Galois key for rotation step(s) " + list +
                          "; generate the keys LinearTransform::rotation_steps() lists");
  }

  // Hoisting: one decomposition of c1 for every baby step, each baby step's
  // key product once, with P c0 added, then its automorphism.
  const rlwe::DecomposedPoly digits = rlwe::decompose(context, x.parts[1]);
  const ExtendedPair lifted = rlwe::lift_to_extended(context, x.parts[0], x.parts[1]);
  std::map<std::size_t, ExtendedPair> baby_products;
  {
    std::vector<std::size_t> keyed;
    for (const std::size_t b : babies)
      if (b) keyed.push_back(b);
    for (std::size_t first = 0; first < keyed.size(); first += kKeysPerPass) {
      std::vector<const rlwe::KeySwitchKey*> group;
      for (std::size_t k = first; k < keyed.size() && group.size() < kKeysPerPass; ++k)
        group.push_back(&keys.at(elements.at(keyed[k])));
      auto products = rlwe::inner_products(context, digits, group);
      for (std::size_t k = 0; k < group.size(); ++k) {
        products[k][0].q += lifted[0].q;
        baby_products.emplace(keyed[first + k], std::move(products[k]));
      }
    }
    // Each baby step's image under its automorphism, taken once: every giant
    // step's terms then multiply it in place (a plain product per term
    // instead of a permuted one).
    std::vector<std::size_t> order(keyed.begin(), keyed.end());
    parallel_for(0, 4 * order.size(), [&](std::size_t job) {
      ExtendedPair& products = baby_products.at(order[job / 4]);
      const uint64_t g = elements.at(order[job / 4]);
      rlwe::ExtendedPoly& part = products[(job % 4) / 2];
      ring::RnsPoly& poly = job % 2 ? part.p : part.q;
      poly = poly.automorphism(g);
    });
  }

  // The giant steps of every transform, spread over the threads.
  struct Job {
    std::size_t transform;
    const LinearTransform::GiantStep* giant;
  };
  std::vector<Job> jobs;
  for (std::size_t t = 0; t < transforms.size(); ++t)
    for (const auto& giant : transforms[t]->giant_steps())
      jobs.push_back({t, &giant});
  std::vector<ExtendedPair> sums;
  for (std::size_t t = 0; t < transforms.size(); ++t)
    sums.push_back(extended_pair(context, level, true));
  std::vector<std::mutex> locks(transforms.size());
  // The inner sum of one giant step over Q_l * P: sum_b diagonal (.)
  // rotate(x, b), both parts at once. Each tower (and half of it, so that two
  // threads share an odd tower count evenly) is one fused product-sum over
  // the terms (math::dot_product_pair): each diagonal is read once for both
  // parts, the sums stay in registers and are reduced once, and no
  // accumulator makes a round trip through memory per term.
  const std::size_t q_towers = level + 1;
  const std::size_t towers = q_towers + context.special_count();
  constexpr std::size_t kPiecesPerTower = 2;
  const std::size_t piece = context.degree() / kPiecesPerTower;
  const auto accumulate_piece = [&](const LinearTransform::GiantStep& giant, ExtendedPair& inner,
                                    std::size_t job) {
    const std::size_t t = job / kPiecesPerTower;
    const std::size_t start = (job % kPiecesPerTower) * piece;
    const bool special = t >= q_towers;
    const std::size_t tower = special ? t - q_towers : t;
    const auto pick = [&](const rlwe::ExtendedPoly& x) {
      return (special ? x.p.tower(tower) : x.q.tower(tower)).subspan(start, piece);
    };
    const std::size_t terms = giant.terms.size();
    std::vector<std::span<const uint64_t>> d(terms), b(terms), a(terms);
    for (std::size_t j = 0; j < terms; ++j) {
      const auto& term = giant.terms[j];
      d[j] = pick(term.diagonal.poly);
      const ExtendedPair& image = term.baby == 0 ? lifted : baby_products.at(term.baby);
      b[j] = pick(image[0]);
      a[j] = pick(image[1]);
    }
    math::dot_product_pair(
        d, b, a,
        (special ? inner[0].p.tower(tower) : inner[0].q.tower(tower)).subspan(start, piece),
        (special ? inner[1].p.tower(tower) : inner[1].q.tower(tower)).subspan(start, piece),
        special ? context.special_ring()->modulus(tower)
                : context.ciphertext_ring()->modulus(tower));
  };
  const auto run_job = [&](const Job& job, bool split_accumulators) {
    ExtendedPair inner = extended_pair(context, level, false);
    if (split_accumulators) {
      parallel_for(0, towers * kPiecesPerTower,
                   [&](std::size_t j) { accumulate_piece(*job.giant, inner, j); });
    } else {
      for (std::size_t j = 0; j < towers * kPiecesPerTower; ++j)
        accumulate_piece(*job.giant, inner, j);
    }
    if (job.giant->giant != 0) {
      // Divide the inner sum by P once, then rotate it by the giant step,
      // leaving the result over Q_l * P for the final division.
      const ring::RnsPoly u0 = rlwe::mod_down(context, std::move(inner[0]));
      const ring::RnsPoly u1 = rlwe::mod_down(context, std::move(inner[1]));
      inner = rlwe::apply_galois_extended(context, u0, rlwe::decompose(context, u1),
                                          keys.at(elements.at(job.giant->giant)));
    }
    const std::lock_guard<std::mutex> lock(locks[job.transform]);
    add_into(sums[job.transform], inner);
  };
  // The coarsest grain first: giant steps over the threads when there are
  // enough of them; otherwise one at a time, each spreading its own work
  // (its accumulators, then the towers of its key switch).
  if (jobs.size() >= 2 * num_threads()) {
    parallel_for(0, jobs.size(), [&](std::size_t j) { run_job(jobs[j], false); });
  } else {
    for (const Job& job : jobs)
      run_job(job, true);
  }

  std::vector<rlwe::Ciphertext> results;
  for (std::size_t t = 0; t < transforms.size(); ++t) {
    rlwe::Ciphertext out;
    out.parts.push_back(rlwe::mod_down(context, std::move(sums[t][0])));
    out.parts.push_back(rlwe::mod_down(context, std::move(sums[t][1])));
    out.scale = x.scale * transforms[t]->scale();
    out.slots = x.slots;
    out.needs_rescale = level > 0;
    check_transparent(out, operation);
    results.push_back(std::move(out));
  }
  return results;
}

}  // namespace heft::circuits
