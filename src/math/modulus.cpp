// Modulus construction (Barrett constants), exponentiation and inversion.
#include "heft/math/modulus.hpp"

#include <string>

namespace heft::math {

Modulus::Modulus(uint64_t q) {
  if (q < 2 || q >= (uint64_t{1} << kMaxModulusBits)) {
    throw InvalidArgument("modulus " + std::to_string(q) +
                          " is out of range: heft needs 2 <= q < 2^" +
                          std::to_string(kMaxModulusBits));
  }
  value_ = q;
  bit_count_ = 64 - __builtin_clzll(q);
  // floor(2^128 / q) = floor((2^128 - 1) / q) since q is not a power of two or,
  // if it is, 2^128 / q is exact and (2^128 - 1) / q is one less: handle that.
  const unsigned __int128 all_ones = ~static_cast<unsigned __int128>(0);
  unsigned __int128 ratio = all_ones / q;
  if (all_ones % q == q - 1) ratio += 1;  // q divides 2^128
  barrett_hi_ = static_cast<uint64_t>(ratio >> 64);
  barrett_lo_ = static_cast<uint64_t>(ratio);
  uint64_t ratio64 = ~uint64_t{0} / q;
  if (~uint64_t{0} % q == q - 1) ratio64 += 1;
  barrett64_ = ratio64;
}

uint64_t Modulus::pow(uint64_t a, uint64_t e) const noexcept {
  uint64_t base = reduce(a);
  uint64_t result = 1 % value_;
  while (e != 0) {
    if (e & 1) result = mul(result, base);
    base = mul(base, base);
    e >>= 1;
  }
  return result;
}

uint64_t Modulus::inverse(uint64_t a) const {
  if (empty()) throw InvalidArgument("inverse: the modulus is empty (default-constructed)");
  // Extended Euclid on signed 128-bit values (q < 2^61, so no overflow).
  __int128 r0 = value_, r1 = reduce(a);
  __int128 t0 = 0, t1 = 1;
  while (r1 != 0) {
    const __int128 quotient = r0 / r1;
    __int128 tmp = r0 - quotient * r1;
    r0 = r1;
    r1 = tmp;
    tmp = t0 - quotient * t1;
    t0 = t1;
    t1 = tmp;
  }
  if (r0 != 1) {
    throw InvalidArgument(std::to_string(a) + " has no inverse modulo " + std::to_string(value_) +
                          " (they share a factor)");
  }
  if (t0 < 0) t0 += value_;
  return static_cast<uint64_t>(t0);
}

}  // namespace heft::math
