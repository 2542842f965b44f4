// CKKS parameter selection: smallest secure N, then the cheapest dnum.
#include "heft/schemes/ckks/parameter_helper.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "heft/util/error.hpp"

namespace heft::ckks {

double key_switch_cost(std::size_t levels, std::size_t dnum, uint64_t degree) {
  const double alpha = std::ceil(static_cast<double>(levels) / static_cast<double>(dnum));
  const double special = alpha;
  const double l = static_cast<double>(levels), d = static_cast<double>(dnum);
  const double log_n = std::log2(static_cast<double>(degree));
  return l + d * (l + special - alpha) + 2 * d * (l + special) * 2 / log_n + 2 * (special + l);
}

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
  const std::size_t levels = request.depth + 1;
  const int special_bits = std::max(request.first_prime_bits, request.scale_bits);
  for (uint64_t degree = 1024; degree <= (uint64_t{1} << 17); degree <<= 1) {
    if (request.slots > degree / 2) continue;
    const int base_bits =
        request.first_prime_bits + static_cast<int>(request.depth) * request.scale_bits;
    std::size_t best_dnum = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t dnum = 1; dnum <= levels; ++dnum) {
      const std::size_t alpha = (levels + dnum - 1) / dnum;
      const int total = base_bits + static_cast<int>(alpha) * special_bits;
      if (request.security != rlwe::SecurityLevel::none &&
          total > rlwe::max_log_qp(degree, request.security)) {
        continue;
      }
      const double cost = key_switch_cost(levels, dnum, degree);
      if (cost < best_cost) {
        best_cost = cost;
        best_dnum = dnum;
      }
    }
    if (best_dnum == 0) continue;
    const std::size_t alpha = (levels + best_dnum - 1) / best_dnum;
    std::vector<int> ciphertext_bits(levels, request.scale_bits);
    ciphertext_bits[0] = request.first_prime_bits;
    const std::vector<int> special(alpha, special_bits);
    rlwe::Parameters params =
        rlwe::make_parameters(degree, ciphertext_bits, special, best_dnum, request.security);
    params.secret = request.secret;
    params.scale = std::ldexp(1.0, request.scale_bits);
    params.validate();
    return params;
  }
  throw InvalidArgument("no ring degree up to 2^17 gives depth " + std::to_string(request.depth) +
                        " with " + std::to_string(request.scale_bits) + "-bit scale at " +
                        rlwe::to_string(request.security) +
                        " security: lower the depth or the scale bits (or bootstrap)");
}

}  // namespace heft::ckks
