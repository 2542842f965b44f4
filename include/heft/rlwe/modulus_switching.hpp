// Division of a polynomial by the last prime of its level, with rounding:
// the common core of CKKS rescaling, BFV modulus reduction and BGV modulus
// switching, done in NTT form with one inverse NTT (the last tower) and one
// forward NTT per remaining tower.
//
// For c at level l (towers q_0..q_l) and a plaintext modulus t (1 for CKKS
// and BFV), the result at level l - 1 is
//   (c - t * y) / q_l,  y = [c * t^-1]_{q_l} taken in (-q_l/2, q_l/2],
// an exact division because c - t y = 0 mod q_l. With t = 1 this is c / q_l
// rounded to the nearest integer; with t > 1 (BGV) the subtracted t y is a
// multiple of t, so the result decrypts to m * q_l^-1 mod t and the caller
// tracks that factor.
#pragma once

#include <cstdint>
#include <span>

#include "heft/export.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"

namespace heft::rlwe {

// Writes the divided polynomial into `out`, which may be `in` itself (its last
// tower is then dropped in place) or any other polynomial (replaced by a new
// one with level l - 1 towers; in is untouched). in must be an NTT-form
// polynomial of the context's ciphertext ring above level 0, and t coprime to
// q_l (InvalidArgument / MismatchError otherwise).
HEFT_EXPORT void divide_by_last_prime(const Context& context, const ring::RnsPoly& in,
                                      ring::RnsPoly& out, uint64_t plain_modulus = 1);
// The same for the parts of a ciphertext: in[k] -> out[k], all at one level.
// out is either the very span in (each part divided in place) or separate
// polynomials (MismatchError for different sizes or levels, or a partial
// overlap). Everything is checked before anything is written. It runs prime
// by prime across the parts, which reads each prime's NTT tables once for
// all of them.
HEFT_EXPORT void divide_by_last_prime(const Context& context, std::span<const ring::RnsPoly> in,
                                      std::span<ring::RnsPoly> out, uint64_t plain_modulus = 1);

}  // namespace heft::rlwe
