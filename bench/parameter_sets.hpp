// The parameter sets the benchmarks share, named after the reference runs in
// ../shared/ANCHORS.md (same ring degree and prime sizes):
//   seal-n16384     N=16384, 8 ciphertext primes of 48-49 bits + 1 special (SEAL's set)
//   seal-n32768     N=32768, 15 x 55-bit + 1 special
//   openfhe-n16384  N=16384, 60 + 10 x 50 bits, 4 special 60-bit primes, dnum 3
//                   (beyond the 128-bit bound at this N, as in OpenFHE's own run)
//   openfhe-n65536  N=65536, the same primes
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heft/rlwe/parameters.hpp"

namespace heft::bench {

struct ParameterSet {
  const char* name;
  uint64_t degree;
  std::vector<int> ciphertext_bits;
  std::vector<int> special_bits;
  std::size_t dnum;
  int scale_bits;
  rlwe::SecurityLevel security;

  // Fresh primes of these sizes, with the CKKS scale 2^scale_bits.
  [[nodiscard]] rlwe::Parameters make() const {
    rlwe::Parameters params =
        rlwe::make_parameters(degree, ciphertext_bits, special_bits, dnum, security);
    params.scale = std::ldexp(1.0, scale_bits);
    return params;
  }
};

inline std::vector<ParameterSet> parameter_sets() {
  using rlwe::SecurityLevel;
  std::vector<int> openfhe_bits(11, 50);
  openfhe_bits[0] = 60;
  return {
      {"seal-n16384",
       16384,
       {48, 48, 48, 49, 49, 49, 49, 49},
       {49},
       8,
       40,
       SecurityLevel::classic128},
      {"seal-n32768", 32768, std::vector<int>(15, 55), {55}, 15, 40, SecurityLevel::classic128},
      {"openfhe-n16384", 16384, openfhe_bits, {60, 60, 60, 60}, 3, 50, SecurityLevel::none},
      {"openfhe-n65536", 65536, openfhe_bits, {60, 60, 60, 60}, 3, 50, SecurityLevel::classic128},
  };
}

}  // namespace heft::bench
