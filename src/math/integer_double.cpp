// Integer-valued doubles modulo a prime (integer_double.hpp).
#include "math/integer_double.hpp"

#include <cmath>

namespace heft::math {

uint64_t reduce_integer_double(double x, const Modulus& q) {
  const double magnitude = std::abs(x);
  uint64_t r;
  if (magnitude < 9.2e18) {  // below 2^63: the integer itself
    r = q.reduce(static_cast<uint64_t>(magnitude));
  } else {
    int exponent = 0;
    const double fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
    const uint64_t mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
    r = q.mul(q.reduce(mantissa), q.pow(2, static_cast<uint64_t>(exponent - 53)));
  }
  return x < 0 ? q.negate(r) : r;
}

}  // namespace heft::math
