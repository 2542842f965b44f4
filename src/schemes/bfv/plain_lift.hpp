// Internal helpers shared by the BFV encryptor, decryptor and evaluator: the
// RNS base of one level, Delta = floor(Q_l / t) in RNS, and an IntegerPlaintext
// scaled by Delta for encryption and addition (the centred, unscaled lift for
// plaintext multiplication is schemes::lift_centered, shared with BGV).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/ring/rns_base.hpp"
#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"

namespace heft::bfv::detail {

// The plaintext modulus, or InvalidArgument if the parameters have none.
uint64_t plain_modulus_of(const rlwe::Context& context, const char* who);

// q_0 .. q_level as an RnsBase (Q_level).
ring::RnsBase level_base(const rlwe::Context& context, std::size_t level);

// [floor(Q_level / t)]_{q_i} for i <= level.
std::vector<uint64_t> delta_residues(const rlwe::Context& context, std::size_t level);

// Throws InvalidArgument unless plain has N coefficients, all below t, and
// its modulus is t (so values meant for another t are never silently reduced).
void check_plain(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                 const char* operation);

// Delta * m over Q_level, in NTT form (or coefficient form, for encryption,
// which adds it to the error before one transform).
ring::RnsPoly scaled_plain(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                           std::size_t level, ring::Form form = ring::Form::ntt);

}  // namespace heft::bfv::detail
