// Primality testing, NTT-friendly prime generation and roots of unity.
#include "heft/math/primes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "heft/math/ntt_tables.hpp"

namespace heft::math {
namespace {

uint64_t mul_mod_u64(uint64_t a, uint64_t b, uint64_t n) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % n);
}

uint64_t pow_mod_u64(uint64_t a, uint64_t e, uint64_t n) {
  uint64_t result = 1 % n;
  a %= n;
  while (e != 0) {
    if (e & 1) result = mul_mod_u64(result, a, n);
    a = mul_mod_u64(a, a, n);
    e >>= 1;
  }
  return result;
}

void require_power_of_two_degree(uint64_t degree) {
  if (!std::has_single_bit(degree) || degree < 2 || degree > (uint64_t{1} << 17)) {
    throw InvalidArgument("polynomial degree N = " + std::to_string(degree) +
                          " must be a power of two between 2 and 2^17");
  }
}

// N a power of two in [2, 2^17], and primes of bit_size bits = 1 mod 2N
// possible: 2N must leave room below 2^bit_size, which must fit a modulus.
void require_degree_and_bit_size(uint64_t degree, int bit_size) {
  require_power_of_two_degree(degree);
  const int log_two_n = __builtin_ctzll(2 * degree);
  if (bit_size > kMaxModulusBits || bit_size < log_two_n + 2) {
    throw InvalidArgument("prime bit size " + std::to_string(bit_size) +
                          " is out of range for N = " + std::to_string(degree) + ": use " +
                          std::to_string(log_two_n + 2) + " to " + std::to_string(kMaxModulusBits) +
                          " bits");
  }
}

}  // namespace

bool is_prime(uint64_t n) noexcept {
  if (n < 2) return false;
  for (uint64_t p : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    if (n % p == 0) return n == p;
  }
  uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  // These 12 bases make Miller-Rabin deterministic for all n < 3.3 * 10^24.
  for (uint64_t a : {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}) {
    uint64_t x = pow_mod_u64(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int r = 1; r < s; ++r) {
      x = mul_mod_u64(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

std::vector<Modulus> generate_ntt_primes(int bit_size, uint64_t degree, std::size_t count,
                                         const std::vector<uint64_t>& exclude) {
  require_degree_and_bit_size(degree, bit_size);
  const uint64_t two_n = 2 * degree;
  // A documented cap (far above any parameter set's prime count) so that an
  // absurd request is refused at once instead of scanning for hours.
  if (count > kMaxGeneratedPrimes) {
    throw InvalidArgument("generate_ntt_primes: " + std::to_string(count) +
                          " primes requested; at most " + std::to_string(kMaxGeneratedPrimes));
  }
  std::vector<Modulus> primes;
  const uint64_t upper = uint64_t{1} << bit_size;
  const uint64_t lower = uint64_t{1} << (bit_size - 1);
  // Largest candidate = 1 mod 2N below 2^bit_size, walking down in steps of 2N.
  uint64_t candidate = (upper - 1) / two_n * two_n + 1;
  if (candidate >= upper) candidate -= two_n;
  while (primes.size() < count && candidate > lower) {
    if (is_prime(candidate) &&
        std::find(exclude.begin(), exclude.end(), candidate) == exclude.end()) {
      primes.emplace_back(candidate);
    }
    candidate -= two_n;
  }
  if (primes.size() < count) {
    throw InvalidArgument("only " + std::to_string(primes.size()) + " primes of " +
                          std::to_string(bit_size) + " bits are = 1 mod " + std::to_string(two_n) +
                          ", " + std::to_string(count) + " were requested");
  }
  return primes;
}

Modulus nearest_ntt_prime(double target, int bit_size, uint64_t degree,
                          const std::vector<uint64_t>& exclude) {
  require_degree_and_bit_size(degree, bit_size);
  const uint64_t two_n = 2 * degree;
  const double lower = std::ldexp(1.0, bit_size - 1), upper = std::ldexp(1.0, bit_size);
  if (!(target >= lower && target <= upper)) {
    throw InvalidArgument("nearest_ntt_prime: target is not a " + std::to_string(bit_size) +
                          "-bit value");
  }
  // Candidates 1 + 2N m, walking outward from the one nearest the target,
  // one step up and one step down at a time, so the first prime found on
  // either side at the smallest distance wins.
  const uint64_t low_m = static_cast<uint64_t>(lower) / two_n + 1;
  const uint64_t high_m = (static_cast<uint64_t>(upper) - 2) / two_n;
  const uint64_t middle = std::clamp<uint64_t>(
      static_cast<uint64_t>(std::llround((target - 1) / static_cast<double>(two_n))), low_m,
      high_m);
  const auto usable = [&](uint64_t m) {
    const uint64_t q = 1 + two_n * m;
    return is_prime(q) && std::find(exclude.begin(), exclude.end(), q) == exclude.end();
  };
  for (uint64_t d = 0; middle >= low_m + d || middle + d <= high_m; ++d) {
    const uint64_t up = middle + d, down = middle - d;
    const bool up_ok = up <= high_m && usable(up);
    const bool down_ok = d > 0 && d <= middle - low_m && usable(down);  // d = 0 is `up`
    if (up_ok && down_ok) {
      const double q_up = static_cast<double>(1 + two_n * up);
      const double q_down = static_cast<double>(1 + two_n * down);
      return Modulus(q_up - target < target - q_down ? 1 + two_n * up : 1 + two_n * down);
    }
    if (up_ok) return Modulus(1 + two_n * up);
    if (down_ok) return Modulus(1 + two_n * down);
  }
  throw InvalidArgument("nearest_ntt_prime: no unused " + std::to_string(bit_size) +
                        "-bit prime = 1 mod " + std::to_string(two_n) + " is left");
}

Modulus generate_batching_prime(int bit_size, uint64_t degree) {
  return generate_ntt_primes(bit_size, degree, 1).front();
}

uint64_t primitive_root_of_unity(uint64_t order, const Modulus& q) {
  const uint64_t p = q.value();
  if (!std::has_single_bit(order) || order < 2 || (p - 1) % order != 0 || !is_prime(p)) {
    throw InvalidArgument("no primitive " + std::to_string(order) + "-th root of unity modulo " +
                          std::to_string(p) + ": q must be prime and = 1 mod " +
                          std::to_string(order));
  }
  // g^((p-1)/order) has order dividing `order`; it is primitive iff its
  // (order/2)-th power is -1.
  for (uint64_t g = 2; g < p; ++g) {
    const uint64_t root = q.pow(g, (p - 1) / order);
    if (q.pow(root, order / 2) == p - 1) return root;
  }
  throw InvalidArgument("no primitive root of unity found modulo " + std::to_string(p));
}

uint64_t minimal_primitive_root_of_unity(uint64_t order, const Modulus& q) {
  // The walk below takes order / 2 steps: orders beyond the NTTs' 2N are refused.
  if (order > 2 * kMaxPolyDegree) {
    throw InvalidArgument("minimal_primitive_root_of_unity: order " + std::to_string(order) +
                          " is above 2^18");
  }
  const uint64_t root = primitive_root_of_unity(order, q);
  // All primitive roots are root^k for odd k; walk them via root^2 steps.
  const uint64_t step = q.mul(root, root);
  uint64_t current = root, smallest = root;
  for (uint64_t i = 0; i < order / 2; ++i) {
    smallest = std::min(smallest, current);
    current = q.mul(current, step);
  }
  return smallest;
}

}  // namespace heft::math
