// Prime generation and roots of unity for NTT-friendly moduli.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/modulus.hpp"

namespace heft::math {

// Deterministic Miller-Rabin, exact for every 64-bit n.
HEFT_EXPORT bool is_prime(uint64_t n) noexcept;

// The most primes one generate_ntt_primes call makes (parameter sets use
// tens; a QP of 2^17 bits would need about 2200 primes of 60 bits).
inline constexpr std::size_t kMaxGeneratedPrimes = std::size_t{1} << 16;

// `count` distinct primes q = 1 (mod 2N) with exactly `bit_size` bits
// (2^(bit_size-1) < q < 2^bit_size), largest first, skipping any value in
// `exclude`. Throws InvalidArgument if N is not a power of two, bit_size is
// outside [2 + log2(2N), 61], count exceeds kMaxGeneratedPrimes, or not
// enough such primes exist.
HEFT_EXPORT std::vector<Modulus> generate_ntt_primes(int bit_size, uint64_t degree,
                                                     std::size_t count,
                                                     const std::vector<uint64_t>& exclude = {});

// The prime q = 1 (mod 2N) with exactly `bit_size` bits nearest to `target`
// (a value of that many bits), skipping any value in `exclude`; ties go to
// the smaller. CKKS chains pick scaling primes this way so that the default
// scales stay close to their nominal value level after level. Throws
// InvalidArgument for a bad N, bit size or target, or if none is left.
HEFT_EXPORT Modulus nearest_ntt_prime(double target, int bit_size, uint64_t degree,
                                      const std::vector<uint64_t>& exclude = {});

// Largest prime t = 1 (mod 2N) with t < 2^bit_size: a plaintext modulus that
// allows batching N values.
HEFT_EXPORT Modulus generate_batching_prime(int bit_size, uint64_t degree);

// Smallest primitive `order`-th root of unity mod prime q (order a power of
// two dividing q - 1); throws InvalidArgument if none exists.
HEFT_EXPORT uint64_t primitive_root_of_unity(uint64_t order, const Modulus& q);

// Smallest of all primitive `order`-th roots (a canonical choice, so that the
// same q and N always give the same NTT); order at most 2^18 (2N for the
// largest N), InvalidArgument otherwise.
HEFT_EXPORT uint64_t minimal_primitive_root_of_unity(uint64_t order, const Modulus& q);

}  // namespace heft::math
