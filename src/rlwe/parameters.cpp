// Parameter validation and construction from prime bit sizes.
#include "heft/rlwe/parameters.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "heft/math/ntt_tables.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/key_switching_noise.hpp"
#include "heft/util/error.hpp"
#include "util/power_of_two_text.hpp"

namespace heft::rlwe {
namespace {

using heft::detail::power_of_two_text;

int bit_size(uint64_t q) {
  return 64 - __builtin_clzll(q);
}

// The CKKS rule of Parameters::validate (see parameters.hpp). The modulus is
// summed as ckks::Evaluator sums it, so both agree at the boundary.
void require_ckks_scale_fits(double scale, const std::vector<uint64_t>& primes) {
  if (scale == 0) return;  // BFV/BGV
  double log2_modulus = 0;
  for (uint64_t q : primes)
    log2_modulus += std::log2(static_cast<double>(q));
  const bool can_rescale = primes.size() >= 2;
  // The first product's scale as the evaluator computes it (s * s: an
  // overflow to infinity is refused too).
  const double first_scale = can_rescale ? scale * scale : scale;
  if (std::log2(first_scale) < log2_modulus - 1) return;
  const std::string modulus = "the modulus " + power_of_two_text(log2_modulus);
  const double largest = can_rescale ? (log2_modulus - 1) / 2 : log2_modulus - 1;
  throw InvalidArgument(
      "CKKS scale " + power_of_two_text(std::log2(scale)) +
      (can_rescale ? " cannot survive the first multiplication: a product of two fresh "
                     "ciphertexts, at scale " +
                         power_of_two_text(2 * std::log2(scale)) + ", would overflow " + modulus +
                         " of the top level"
                   : " does not fit " + modulus + " of the one ciphertext prime") +
      "; use a scale below 2^" + std::to_string(static_cast<int>(std::floor(largest))) +
      ", or more or larger primes");
}

}  // namespace

static_assert(kMaxRingDegree <= math::kMaxPolyDegree, "the NTT must cover every ring degree");

void require_ring_degree(uint64_t degree, const char* operation) {
  if (degree < kMinRingDegree || degree > kMaxRingDegree || !std::has_single_bit(degree)) {
    const std::string prefix =
        operation != nullptr && *operation != 0 ? std::string(operation) + ": " : "";
    throw InvalidArgument(prefix + "ring degree N = " + std::to_string(degree) +
                          " must be a power of two from " + std::to_string(kMinRingDegree) +
                          " to " + std::to_string(kMaxRingDegree));
  }
}

int Parameters::total_bits() const {
  int total = 0;
  for (uint64_t q : ciphertext_moduli)
    total += bit_size(q);
  for (uint64_t p : special_moduli)
    total += bit_size(p);
  return total;
}

std::size_t Parameters::digit_count() const {
  const std::size_t levels = ciphertext_moduli.size();
  if (dnum != 0) return dnum;
  if (special_moduli.empty() || levels == 0) return std::max<std::size_t>(levels, 1);
  return (levels + special_moduli.size() - 1) / special_moduli.size();
}

std::size_t Parameters::digit_size() const {
  const std::size_t digits = digit_count();
  return (ciphertext_moduli.size() + digits - 1) / digits;
}

void Parameters::validate() const {
  require_ring_degree(degree, "");
  if (ciphertext_moduli.empty())
    throw InvalidArgument("parameters need at least one ciphertext prime");
  if (ciphertext_moduli.size() + special_moduli.size() > kMaxPrimeCount) {
    throw InvalidArgument(std::to_string(ciphertext_moduli.size() + special_moduli.size()) +
                          " primes: parameter sets hold at most " + std::to_string(kMaxPrimeCount) +
                          " (ciphertext and special together)");
  }
  std::set<uint64_t> seen;
  auto require_prime = [&](uint64_t q, const char* role) {
    if (q >= (uint64_t{1} << math::kMaxModulusBits) || !math::is_prime(q) ||
        (q - 1) % (2 * degree) != 0) {
      throw InvalidArgument(
          std::string(role) + " " + std::to_string(q) +
          " must be a prime below 2^61 with q = 1 mod 2N = " + std::to_string(2 * degree));
    }
    if (!seen.insert(q).second) {
      throw InvalidArgument(std::string(role) + " " + std::to_string(q) + " appears twice");
    }
  };
  for (uint64_t q : ciphertext_moduli)
    require_prime(q, "ciphertext prime");
  for (uint64_t p : special_moduli)
    require_prime(p, "special prime");
  const std::size_t levels = ciphertext_moduli.size();
  if (dnum > levels) {
    throw InvalidArgument("dnum = " + std::to_string(dnum) + " key-switching digits for " +
                          std::to_string(levels) + " ciphertext primes: use 1 to " +
                          std::to_string(levels));
  }
  // The same rule as loading parameters: saved parameters always load back.
  if (!std::isfinite(scale) || std::signbit(scale)) {
    throw InvalidArgument("scale " + std::to_string(scale) +
                          " must be a finite number >= 0 (0 for BFV/BGV)");
  }
  require_ckks_scale_fits(scale, ciphertext_moduli);
  if (secret.kind != SecretKind::uniform_ternary && secret.kind != SecretKind::sparse_ternary) {
    throw InvalidArgument("unknown secret distribution " +
                          std::to_string(static_cast<int>(secret.kind)) +
                          ": use uniform_ternary or sparse_ternary");
  }
  if (secret.kind == SecretKind::sparse_ternary &&
      (secret.hamming_weight == 0 || secret.hamming_weight > degree)) {
    throw InvalidArgument("sparse ternary secret needs a Hamming weight in [1, N]; got " +
                          std::to_string(secret.hamming_weight));
  }
  if (plain_modulus != 0) {
    if (plain_modulus < 2 || plain_modulus >= (uint64_t{1} << math::kMaxModulusBits)) {
      throw InvalidArgument("plaintext modulus t = " + std::to_string(plain_modulus) +
                            " must be in [2, 2^61)");
    }
    for (const auto* moduli : {&ciphertext_moduli, &special_moduli}) {
      for (uint64_t q : *moduli) {
        if (q % plain_modulus == 0 || std::gcd(q, plain_modulus) != 1) {
          throw InvalidArgument("plaintext modulus t = " + std::to_string(plain_modulus) +
                                " is not coprime to the prime " + std::to_string(q) +
                                ": choose another t or other primes");
        }
      }
    }
  }
  require_security(degree, total_bits(), security);
  if (const std::string problem = key_switching_noise_problem(*this); !problem.empty()) {
    throw InvalidArgument(problem);
  }
}

Parameters make_parameters(uint64_t degree, const std::vector<int>& ciphertext_bits,
                           const std::vector<int>& special_bits, std::size_t dnum,
                           SecurityLevel security) {
  // Before any prime is generated: the prime generator accepts smaller N, and
  // validate() would then refuse them in other words.
  require_ring_degree(degree, "make_parameters");
  Parameters params;
  params.degree = degree;
  params.dnum = dnum;
  params.security = security;
  // Generate per bit size, excluding everything already taken, so that equal
  // sizes get distinct primes and the order of the request is kept.
  std::vector<uint64_t> taken;
  std::map<int, std::size_t> needed;
  for (int b : ciphertext_bits)
    needed[b]++;
  for (int b : special_bits)
    needed[b]++;
  std::map<int, std::vector<uint64_t>> pool;
  for (auto [bits, count] : needed) {
    for (const auto& q : math::generate_ntt_primes(bits, degree, count, taken)) {
      pool[bits].push_back(q.value());
      taken.push_back(q.value());
    }
  }
  std::map<int, std::size_t> next;
  for (int b : ciphertext_bits)
    params.ciphertext_moduli.push_back(pool[b][next[b]++]);
  for (int b : special_bits)
    params.special_moduli.push_back(pool[b][next[b]++]);
  params.validate();
  return params;
}

std::string describe(const Parameters& p) {
  std::ostringstream out;
  auto range = [](const std::vector<uint64_t>& moduli) {
    int lo = 64, hi = 0;
    for (uint64_t q : moduli) {
      lo = std::min(lo, bit_size(q));
      hi = std::max(hi, bit_size(q));
    }
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
  };
  out << "N=" << p.degree << ", L=" << p.ciphertext_moduli.size() << " ("
      << range(p.ciphertext_moduli) << " bits), K=" << p.special_moduli.size();
  if (!p.special_moduli.empty()) out << " (" << range(p.special_moduli) << " bits)";
  if (p.plain_modulus != 0) out << ", t=" << p.plain_modulus;
  out << ", dnum=" << p.digit_count() << ", log2(QP)=" << p.total_bits() << ", security "
      << to_string(p.security);
  if (p.secret.kind == SecretKind::sparse_ternary)
    out << ", sparse secret h=" << p.secret.hamming_weight;
  return out.str();
}

}  // namespace heft::rlwe
