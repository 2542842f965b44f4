// Shortest compositions of rotation keys (rotation_plan.hpp).
#include "heft/rlwe/rotation_plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace {

// The step as users write it: residue r modulo n shown in (-n/2, n/2].
int64_t signed_step(uint64_t residue, uint64_t slots) {
  return residue > slots / 2 ? static_cast<int64_t>(residue) - static_cast<int64_t>(slots)
                             : static_cast<int64_t>(residue);
}

// "1, 2, -4" for the first few steps (a key set can hold dozens).
std::string steps_text(const std::map<uint64_t, uint64_t>& edges, uint64_t slots) {
  constexpr std::size_t kShown = 12;
  std::vector<int64_t> steps;
  for (const auto& [residue, element] : edges)
    steps.push_back(signed_step(residue, slots));
  std::sort(steps.begin(), steps.end(), [](int64_t a, int64_t b) {
    return std::abs(a) != std::abs(b) ? std::abs(a) < std::abs(b) : a > b;
  });
  std::string text;
  for (std::size_t i = 0; i < steps.size() && i < kShown; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(steps[i]);
  if (steps.size() > kShown) text += " and " + std::to_string(steps.size() - kShown) + " more";
  return text;
}

uint64_t reduce_step(int64_t step, uint64_t slots) {
  const int64_t n = static_cast<int64_t>(slots);
  const int64_t r = step % n;
  return static_cast<uint64_t>(r < 0 ? r + n : r);
}

void require_rotation_cycle(const Context& context, std::size_t slots, std::string_view operation) {
  const uint64_t half = context.degree() / 2;
  if (slots == 0 || slots > half || !std::has_single_bit(slots)) {
    throw InvalidArgument(std::string(operation) + ": a rotation cycle of " +
                          std::to_string(slots) +
                          " slots is not a power of two up to N/2 = " + std::to_string(half));
  }
}

}  // namespace

std::optional<uint64_t> rotation_step_of(const Context& context, uint64_t galois_element) {
  const uint64_t two_n = 2 * context.degree();
  // The powers of 5 modulo 2N are exactly the residues 1 mod 4 (a cyclic
  // group of order N/2); -5^k, conjugations, are 3 mod 4.
  if (galois_element >= two_n || galois_element % 4 != 1) return std::nullopt;
  // The exponent, one bit at a time: with 5^step = g mod 2^j, 5^step and g
  // agree or differ by 2^j modulo 2^(j+1), and multiplying by
  // 5^(2^(j-2)) = 1 + 2^j mod 2^(j+1) repairs the difference.
  uint64_t step = 0, power = 1, factor = 5;  // power = 5^step, factor = 5^(2^bit)
  for (uint64_t bit = 0, modulus = 8; modulus <= two_n; ++bit, modulus <<= 1) {
    if (power % modulus != galois_element % modulus) {
      step |= uint64_t{1} << bit;
      power = power * factor % two_n;
    }
    factor = factor * factor % two_n;
  }
  return step;
}

std::optional<uint64_t> direct_rotation_element(const Context& context, const GaloisKeys& keys,
                                                int64_t step, std::size_t slots) {
  require_rotation_cycle(context, slots, "direct_rotation_element");
  const auto reduced = static_cast<int64_t>(reduce_step(step, slots));
  // With slots < N/2, steps that agree modulo slots act alike on the slots,
  // so a key made for the negative equivalent (-1 for slots - 1) or for the
  // step as given serves as well as one for the reduced step.
  for (const int64_t candidate : {reduced, reduced - static_cast<int64_t>(slots), step}) {
    const uint64_t g = context.galois_element_for_step(candidate);
    if (keys.has(g)) return g;
  }
  return std::nullopt;
}

std::vector<uint64_t> plan_rotation(const Context& context, const GaloisKeys& keys, int64_t step,
                                    std::size_t slots, std::string_view operation) {
  detail::require_galois_keys(context, keys, operation);
  require_rotation_cycle(context, slots, operation);
  const uint64_t target = reduce_step(step, slots);
  if (target == 0) return {};
  if (const auto g = direct_rotation_element(context, keys, step, slots)) return {*g};

  // The distinct nonzero steps modulo slots that the keys give, each with
  // the (smallest) element that gives it.
  std::map<uint64_t, uint64_t> edges;
  for (const uint64_t g : keys.elements()) {
    const auto s = rotation_step_of(context, g);
    if (s && *s % slots != 0) edges.emplace(*s % slots, g);
  }
  // Sums of the steps reach exactly the multiples of their gcd with slots.
  uint64_t reach = slots;
  for (const auto& [residue, element] : edges)
    reach = std::gcd(reach, residue);
  if (target % reach != 0) {
    const std::string head = std::string(operation) + ": no Galois key for step " +
                             std::to_string(step) + ", and it cannot be composed ";
    const std::string advice = "; generate a key for step " + std::to_string(step) +
                               " with KeyGenerator::create_galois_keys";
    if (edges.empty()) throw InvalidArgument(head + "(no rotation keys are present)" + advice);
    throw InvalidArgument(head + "from the keys present (steps " + steps_text(edges, slots) +
                          "): they reach only multiples of " + std::to_string(reach) + " modulo " +
                          std::to_string(slots) + advice);
  }

  // Breadth-first from step 0: the first time the target is reached is by a
  // shortest sum. `via[r]`: the edge that first reached r.
  const std::vector<std::pair<uint64_t, uint64_t>> edge_list(edges.begin(), edges.end());
  constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> via(slots, kUnreached);
  std::vector<uint64_t> frontier = {0};
  via[0] = 0;  // the root; never followed back
  for (std::size_t head = 0; via[target] == kUnreached; ++head) {
    const uint64_t from = frontier[head];
    for (uint32_t e = 0; e < edge_list.size(); ++e) {
      const uint64_t to = (from + edge_list[e].first) % slots;
      if (via[to] != kUnreached) continue;
      via[to] = e;
      frontier.push_back(to);
    }
  }
  std::vector<uint64_t> plan;
  for (uint64_t at = target; at != 0;) {
    const auto& [residue, element] = edge_list[via[at]];
    plan.push_back(element);
    at = (at + slots - residue) % slots;
  }
  return plan;
}

}  // namespace heft::rlwe
