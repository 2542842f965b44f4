// CKKS parameter selection: smallest secure N, then the cheapest dnum.
#include "heft/schemes/ckks/parameter_helper.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/ring_choice.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks {

namespace {

// The default scales follow s_(l-1) = s_l^2 / q_l (ckks::Evaluator), so with
// scaling primes fixed just below 2^b a relative gap d between q_l and s_l
// doubles at every level, and deep chains drift until the scale no longer
// fits (15 levels of 30-bit primes at N = 2^15 lost three of them). Instead
// each q_l, from the top down, is the b-bit prime nearest the scale it will
// divide, so the gaps add up instead of doubling. The nominal scale starts a
// little below 2^b when needed, so that primes on both sides of the scale
// stay available. The primes keep their bit size, so security is unchanged.
std::vector<uint64_t> scaling_primes_for(const rlwe::Parameters& params, int scale_bits,
                                         double nominal, double& worst_drift_bits) {
  const std::size_t levels = params.ciphertext_moduli.size();
  std::vector<uint64_t> taken(params.special_moduli.begin(), params.special_moduli.end());
  taken.push_back(params.ciphertext_moduli[0]);
  std::vector<uint64_t> primes(levels, 0);
  double scale = nominal;
  worst_drift_bits = 0;
  for (std::size_t level = levels - 1; level > 0; --level) {
    const double target =
        std::clamp(scale, std::ldexp(1.0, scale_bits - 1), std::ldexp(1.0, scale_bits));
    const uint64_t q = math::nearest_ntt_prime(target, scale_bits, params.degree, taken).value();
    taken.push_back(q);
    primes[level] = q;
    scale = scale * scale / static_cast<double>(q);
    worst_drift_bits = std::max(worst_drift_bits, std::abs(std::log2(scale) - scale_bits));
  }
  return primes;
}

void follow_the_scale(rlwe::Parameters& params, int scale_bits) {
  double best_drift = std::numeric_limits<double>::infinity();
  for (const int margin_bits : {0, 20, 16, 12, 8, 6, 4}) {
    const double nominal = std::ldexp(1.0, scale_bits) *
                           (margin_bits == 0 ? 1.0 : 1.0 - std::ldexp(1.0, -margin_bits));
    double drift = 0;
    const std::vector<uint64_t> primes = scaling_primes_for(params, scale_bits, nominal, drift);
    if (drift < best_drift) {
      best_drift = drift;
      for (std::size_t level = 1; level < primes.size(); ++level)
        params.ciphertext_moduli[level] = primes[level];
      params.scale = nominal;
    }
    if (drift < 0.25) return;
  }
}

}  // namespace

rlwe::Parameters suggest_parameters(const ParameterRequest& request) {
  if (request.scale_bits < 20 || request.scale_bits > 60) {
    throw InvalidArgument("scale bits " + std::to_string(request.scale_bits) +
                          " out of range: use 20 to 60");
  }
  if (request.first_prime_bits <= request.scale_bits || request.first_prime_bits > 60) {
    throw InvalidArgument("first prime bits " + std::to_string(request.first_prime_bits) +
                          " must exceed the scale bits (" + std::to_string(request.scale_bits) +
                          ") and be at most 60");
  }
  if (request.depth > rlwe::kMaxHelperDepth) {
    throw InvalidArgument("depth " + std::to_string(request.depth) + " is beyond any ring up to " +
                          "2^17 (at most " + std::to_string(rlwe::kMaxHelperDepth) +
                          "); bootstrap to go deeper");
  }
  if (request.slots > math::kMaxPolyDegree / 2) {
    throw InvalidArgument("slots " + std::to_string(request.slots) + ": at most " +
                          std::to_string(math::kMaxPolyDegree / 2) + " (N = 2^17)");
  }
  const std::size_t levels = request.depth + 1;
  const int special_bits = std::max(request.first_prime_bits, request.scale_bits);
  const int ciphertext_bits =
      request.first_prime_bits + static_cast<int>(request.depth) * request.scale_bits;
  const auto choice = rlwe::choose_ring(levels, special_bits, request.security, 2 * request.slots,
                                        [&](uint64_t) { return ciphertext_bits; });
  if (!choice) {
    throw InvalidArgument("no ring degree up to 2^17 gives depth " + std::to_string(request.depth) +
                          " with " + std::to_string(request.scale_bits) + "-bit scale at " +
                          rlwe::to_string(request.security) +
                          " security: lower the depth or the scale bits (or bootstrap)");
  }
  std::vector<int> bits(levels, request.scale_bits);
  bits[0] = request.first_prime_bits;
  rlwe::Parameters params = rlwe::make_parameters(
      choice->degree, bits, std::vector<int>(choice->special_count, special_bits), choice->dnum,
      request.security);
  params.secret = request.secret;
  follow_the_scale(params, request.scale_bits);
  params.validate();
  return params;
}

}  // namespace heft::ckks
