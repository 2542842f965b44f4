// Helpers for vectors that span several ciphertexts: how many, and running
// one body per ciphertext on heft's pool (the coarsest grain first; the
// scheme operations inside run serially in each worker, so nothing is
// oversubscribed).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor::detail {

inline std::size_t chunk_count(std::size_t size, std::size_t slots) {
  return (size + slots - 1) / slots;
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
