// CKKS parameter selection: smallest secure N, then the cheapest dnum.
#include "heft/schemes/ckks/parameter_helper.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "heft/math/ntt_tables.hpp"
#include "heft/rlwe/ring_choice.hpp"
#include "heft/util/error.hpp"

namespace heft::ckks {

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
  params.scale = std::ldexp(1.0, request.scale_bits);
  params.validate();
  return params;
}

}  // namespace heft::ckks
