// Helpers for vectors that span several ciphertexts: how many, and running
// one body per ciphertext on heft's pool (the coarsest grain first; the
// scheme operations inside run serially in each worker, so nothing is
// oversubscribed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor::detail {

inline std::size_t chunk_count(std::size_t size, std::size_t slots) {
  return (size + slots - 1) / slots;
}

// The levels left to the lowest of a non-empty list of CKKS ciphertexts
// (its effective level: a pending product counts as rescaled).
inline std::size_t lowest_level(const ckks::Evaluator& evaluator,
                                const std::vector<rlwe::Ciphertext>& ciphertexts) {
  std::size_t level = evaluator.effective_level(ciphertexts[0]);
  for (const auto& ct : ciphertexts)
    level = std::min(level, evaluator.effective_level(ct));
  return level;
}

// body(c) for every ciphertext c < count, in parallel; the results in order.
// An exception in any body is rethrown here, and nothing is returned.
template <class Body>
std::vector<rlwe::Ciphertext> map_chunks(std::size_t count, const Body& body) {
  std::vector<rlwe::Ciphertext> out(count);
  if (count == 1) {
    out[0] = body(0);  // no pool round trip: the body parallelises inside
  } else {
    parallel_for(0, count, [&](std::size_t c) { out[c] = body(c); });
  }
  return out;
}

}  // namespace heft::tensor::detail
