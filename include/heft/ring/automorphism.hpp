// Automorphisms X -> X^g of Z_q[X]/(X^N + 1), g odd in [1, 2N).
//
// Coefficient form: coefficient i moves to position (i*g mod 2N); positions
// N..2N-1 wrap to (i*g mod 2N) - N with a sign flip, because X^N = -1.
//
// NTT form: heft's forward NTT stores a(psi^(2*brv(k)+1)) at index k, where psi
// is the primitive 2N-th root of the tables and brv reverses log2(N) bits.
// Since b(X) = a(X^g) gives b(psi^e) = a(psi^(e*g)), the automorphism is the
// pure permutation
//   b[k] = a[map[k]],  map[k] = brv(((g * (2*brv(k) + 1)) mod 2N - 1) / 2),
// with no sign changes and no arithmetic.
//
// The map moves aligned blocks of 8 slots as wholes: for k = 8b + j, brv(k)
// is brv(b) plus brv(j) N/8 (the top three bits), so e*g mod 2N changes by
// multiples of N/4 within a block, which after the halving and the bit
// reversal change only the low three bits of map[k]. A block is therefore
// one vector load and one permute (math::permute_blocks).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"

namespace heft::ring {

// map[k] for the NTT-form automorphism X -> X^g at degree N (a power of two
// in [8, 2^17], g odd in [1, 2N); InvalidArgument otherwise). PolyContext
// caches the maps it uses.
HEFT_EXPORT std::vector<uint32_t> make_ntt_automorphism_map(uint64_t degree,
                                                            uint64_t galois_element);

}  // namespace heft::ring
