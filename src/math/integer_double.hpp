// An integer-valued double of any magnitude reduced modulo a prime, exactly:
// what turns a rounded constant (a CKKS scalar times its scale, possibly far
// beyond 2^64) into residues. Internal to heft.
#pragma once

#include <cstdint>

#include "heft/math/modulus.hpp"

namespace heft::math {

// x mod q for an integer-valued double x (any sign and magnitude): a double
// is mantissa * 2^exponent, so both factors are reduced.
uint64_t reduce_integer_double(double x, const Modulus& q);

}  // namespace heft::math
