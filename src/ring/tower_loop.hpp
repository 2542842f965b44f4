// for_each_tower: runs per-tower work in parallel only when there is enough of
// it to pay for waking the thread pool (small polynomials in tests and
// encoders stay on the calling thread). Internal header.
#pragma once

#include <cstddef>
#include <functional>

#include "heft/util/parallel.hpp"

namespace heft::ring::detail {

// Below this many words in total, waking the pool costs more than it saves.
inline constexpr std::size_t kMinParallelWords = std::size_t{1} << 14;

inline void for_each_tower(std::size_t towers, std::size_t degree,
                           const std::function<void(std::size_t)>& body) {
  if (towers == 1 || towers * degree < kMinParallelWords) {
    for (std::size_t i = 0; i < towers; ++i)
      body(i);
    return;
  }
  parallel_for(0, towers, body);
}

// Streaming kernels (add, subtract, negate) take about a cycle a word: a
// ciphertext part at N = 8192 with three towers is two microseconds, less
// than waking the pool, so only polynomials of a quarter million words and
// more are split.
inline constexpr std::size_t kMinParallelStreamWords = std::size_t{1} << 18;

inline void for_each_tower_streaming(std::size_t towers, std::size_t degree,
                                     const std::function<void(std::size_t)>& body) {
  if (towers * degree < kMinParallelStreamWords) {
    for (std::size_t i = 0; i < towers; ++i)
      body(i);
    return;
  }
  for_each_tower(towers, degree, body);
}

}  // namespace heft::ring::detail
