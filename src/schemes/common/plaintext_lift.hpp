// Integer plaintexts (BFV, BGV) in the ciphertext ring: the checks an integer
// plaintext or constant passes before any scheme uses it, and its two lifts
// into Q_level: centred (BGV's messages, and both schemes' plaintext
// products) and scaled by Delta = floor(Q_level / t) (BFV's messages).
// Internal: the BFV and BGV encryptors and evaluators use it, the public API
// does not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/ring/rns_base.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"

namespace heft::schemes {

// The context's plaintext modulus t; MismatchError naming `operation` if the
// parameters have none (CKKS parameters: BFV and BGV need t >= 2).
uint64_t require_plain_modulus(const rlwe::Context& context, const char* operation);

// plain holds N coefficients, each below t, and its modulus is the context's
// t (so that values meant for another t are never silently reduced):
// MismatchError for another t or length, InvalidArgument for a coefficient
// >= t.
void require_integer_plaintext(const rlwe::Context& context, const IntegerPlaintext& plain,
                               const char* operation);

// value < t: a plaintext coefficient, or (`what`) a constant for every slot
// (add_scalar, multiply_scalar). InvalidArgument otherwise.
void require_below_plain_modulus(uint64_t value, uint64_t t, const char* operation,
                                 const char* what = "plaintext coefficient");

// q_0 .. q_level as an RnsBase (Q_level).
ring::RnsBase level_base(const rlwe::Context& context, std::size_t level);

// [floor(Q_level / t)]_{q_i} for i <= level.
std::vector<uint64_t> delta_residues(const rlwe::Context& context, std::size_t level);

// m with each coefficient taken in (-t/2, t/2] and reduced into the first
// level + 1 ciphertext towers, in NTT form (or coefficient form, which
// encryption takes without a transform of its own). The centred lift keeps
// the norm of m at t/2, which halves the noise growth of plaintext products.
// InvalidArgument for a level above the top or a length other than N; the
// coefficients must already be below t (require_integer_plaintext, made on
// every path that reaches here).
ring::RnsPoly lift_centered(const rlwe::Context& context, const IntegerPlaintext& plain,
                            std::size_t level, ring::Form form = ring::Form::ntt);

// Delta * m over Q_level, m's coefficients in [0, t), in NTT form (or
// coefficient form, for encryption, which adds it to the error before one
// transform). The same checks as lift_centered.
ring::RnsPoly lift_scaled(const rlwe::Context& context, const IntegerPlaintext& plain,
                          std::size_t level, ring::Form form = ring::Form::ntt);

}  // namespace heft::schemes
