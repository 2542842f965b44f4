// BFV/BGV parameter selection by the noise model in integer_parameters.hpp.
#include "heft/schemes/integer_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "heft/math/primes.hpp"
#include "heft/rlwe/ring_choice.hpp"
#include "heft/util/error.hpp"

namespace heft::schemes {
namespace {

constexpr int kSpecialBits = 60;

int log2_ceil(uint64_t x) {
  return 64 - __builtin_clzll(x - 1);
}

// The plaintext modulus for degree N: the explicit one, or a batching prime
// of plain_bits bits, or 2^plain_bits without batching. 0 if none fits.
uint64_t plain_modulus_for(const IntegerParameterRequest& request, uint64_t degree) {
  if (request.plain_modulus != 0) {
    const uint64_t t = request.plain_modulus;
    if (request.batching && (!math::is_prime(t) || (t - 1) % (2 * degree) != 0)) return 0;
    return t;
  }
  if (!request.batching) return uint64_t{1} << request.plain_bits;
  if (request.plain_bits < log2_ceil(2 * degree) + 2) return 0;
  return math::generate_batching_prime(request.plain_bits, degree).value();
}

// Ciphertext prime sizes for degree N and plaintext modulus t.
std::vector<int> prime_bits(const IntegerParameterRequest& request, uint64_t degree, uint64_t t) {
  const int lt = log2_ceil(t + 1);
  const int ln = log2_ceil(degree);
  const int depth = static_cast<int>(request.depth);
  if (request.scheme == IntegerScheme::bfv) {
    const int total = (lt + ln + 40) + depth * (lt + ln + 6);
    const int count = (total + 59) / 60;
    const int each = std::max((total + count - 1) / count, ln + 4);
    return std::vector<int>(count, each);
  }
  std::vector<int> bits(depth + 1, std::min(60, lt + (3 * ln + 1) / 2 + 12));
  bits[0] = std::min(60, lt + ln + 32);
  return bits;
}

}  // namespace

rlwe::Parameters suggest_integer_parameters(const IntegerParameterRequest& request) {
  if (request.scheme != IntegerScheme::bfv && request.scheme != IntegerScheme::bgv) {
    throw InvalidArgument("unknown IntegerScheme " +
                          std::to_string(static_cast<int>(request.scheme)) + ": use bfv or bgv");
  }
  if (request.depth > rlwe::kMaxHelperDepth) {
    throw InvalidArgument("depth " + std::to_string(request.depth) + " is beyond any ring up to " +
                          "2^17 (at most " + std::to_string(rlwe::kMaxHelperDepth) + ")");
  }
  if (request.plain_modulus == 0 && (request.plain_bits < 2 || request.plain_bits > 40)) {
    throw InvalidArgument("plain_bits " + std::to_string(request.plain_bits) +
                          " out of range: use 2 to 40 (or give plain_modulus)");
  }
  if (request.plain_modulus == 1 || request.plain_modulus >= (uint64_t{1} << 40)) {
    throw InvalidArgument("plaintext modulus " + std::to_string(request.plain_modulus) +
                          " out of range: use 2 to 2^40");
  }
  bool some_t = false;  // whether any N had a plaintext modulus at all
  for (uint64_t degree = 1024; degree <= (uint64_t{1} << 17); degree <<= 1) {
    const uint64_t t = plain_modulus_for(request, degree);
    if (t == 0) continue;  // no batching t of this size for this N
    some_t = true;
    const std::vector<int> bits = prime_bits(request, degree, t);
    int total = 0;
    for (int b : bits)
      total += b;
    // choose_ring walks N itself; pin it to this N (its t and prime sizes).
    const auto choice = rlwe::choose_ring(bits.size(), kSpecialBits, request.security, degree,
                                          [&](uint64_t) { return total; });
    if (!choice || choice->degree != degree) continue;
    rlwe::Parameters params =
        rlwe::make_parameters(degree, bits, std::vector<int>(choice->special_count, kSpecialBits),
                              choice->dnum, request.security);
    params.plain_modulus = t;
    params.validate();
    return params;
  }
  if (!some_t) {
    // Lowering the depth cannot help here: batching needs a prime t = 1 mod 2N.
    throw InvalidArgument(
        "no batching plaintext modulus: batching needs a prime t with t = 1 mod 2N (N >= 1024; "
        "the smallest is 12289); give such a t or more plain_bits, or set batching = false");
  }
  throw InvalidArgument("no ring degree up to 2^17 supports depth " +
                        std::to_string(request.depth) + " with this plaintext modulus at " +
                        rlwe::to_string(request.security) + " security: lower the depth or t");
}

}  // namespace heft::schemes
