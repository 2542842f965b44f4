// Integer arithmetic on functional bootstrapping (FunctionalBootstrapper):
// small integers in CKKS slots refreshed exactly, compared, maximised and
// split into digits, each through lookup tables applied while
// bootstrapping. An input slot may hold any integer (within CKKS's
// precision, about 1 / (2p) of one); the tables see it modulo p, because
// ModRaise reads the coefficients modulo q_0 = p (q_0 / p).
//
// Levels: every result is at the bootstrapper's output_level(), at the
// default scale there; inputs must be at its entry_level() or above.
#pragma once

#include <cstddef>
#include <vector>

#include "heft/circuits/functional_bootstrapper.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"

namespace heft::circuits {

// Tables over Z_p (entry m for the residue m; "signed" reads m >= p/2 as
// m - p).
[[nodiscard]] HEFT_EXPORT std::vector<double> identity_table(std::size_t p);
[[nodiscard]] HEFT_EXPORT std::vector<double> sign_table(std::size_t p);  // -1, 0, 1 (signed)
[[nodiscard]] HEFT_EXPORT std::vector<double> relu_table(std::size_t p);  // max(m, 0) (signed)

// x mod p in [0, p), fresh: BFV-style integer messages refreshed (their
// noise is gone, their levels back).
[[nodiscard]] HEFT_EXPORT rlwe::Ciphertext refresh_integers(const FunctionalBootstrapper& fbt,
                                                            const rlwe::Ciphertext& x,
                                                            const BootstrapKeys& keys);
// sign(a - b) in {-1, 0, 1} for integers with |a - b| < p / 2.
[[nodiscard]] HEFT_EXPORT rlwe::Ciphertext compare(const FunctionalBootstrapper& fbt,
                                                   const rlwe::Ciphertext& a,
                                                   const rlwe::Ciphertext& b,
                                                   const BootstrapKeys& keys);
// max(a, b) for integers with |a - b| < p / 2 and b in [0, p): b refreshed
// plus relu(a - b), two bootstraps.
[[nodiscard]] HEFT_EXPORT rlwe::Ciphertext maximum(const FunctionalBootstrapper& fbt,
                                                   const rlwe::Ciphertext& a,
                                                   const rlwe::Ciphertext& b,
                                                   const BootstrapKeys& keys);
// The `count` base-p digits of integers x in [0, p^count), lowest first,
// one bootstrap each: d_0 = x mod p; then, with rest = x - sum d_j p^j =
// p^i x_i kept at the digits' level and scale (no level spent), d_i is read
// from rest with unit p^i (FunctionalBootstrapper::evaluate). x must be
// above output_level() (or at entry_level() or above for one digit).
[[nodiscard]] HEFT_EXPORT std::vector<rlwe::Ciphertext> digits(const FunctionalBootstrapper& fbt,
                                                               const rlwe::Ciphertext& x,
                                                               std::size_t count,
                                                               const BootstrapKeys& keys);

}  // namespace heft::circuits
