// Lifting an integer plaintext (BFV/BGV) into the ciphertext ring. Internal:
// the BFV and BGV encryptors and evaluators use it, the public API does not.
#pragma once

#include <cstddef>

#include "heft/ring/rns_poly.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/schemes/batch_encoder.hpp"

namespace heft::schemes {

// m with each coefficient taken in (-t/2, t/2] and reduced into the first
// level + 1 ciphertext towers, in NTT form (or coefficient form, which
// encryption takes without a transform of its own). The centred lift keeps
// the norm of m at t/2, which halves the noise growth of plaintext products.
// InvalidArgument for a level above the top or a length other than N; the
// coefficients must already be below t (the schemes check that first).
ring::RnsPoly lift_centered(const rlwe::Context& context, const IntegerPlaintext& plain,
                            std::size_t level, ring::Form form = ring::Form::ntt);

}  // namespace heft::schemes
