// What the two halves of the CKKS encoder share (encoder.cpp encodes,
// decoder.cpp decodes): a loop over towers or slices that goes to the thread
// pool only when it has enough work, the exponent of a scale in messages, and
// the names both use for 128-bit and multi-word integers.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>

#include "heft/util/parallel.hpp"
#include "ring/multiword.hpp"

namespace heft::ckks::detail {

using u128 = unsigned __int128;
namespace mw = ring::detail;

// Below this many words of work, waking the thread pool costs more than it saves.
inline constexpr std::size_t kMinParallelWords = std::size_t{1} << 14;

// body(i) for every i in [begin, end): on the thread pool when there is
// enough work (words_each words per index), serially when there is not or
// when the caller already runs on the pool.
inline void for_each_index(std::size_t begin, std::size_t end, std::size_t words_each,
                           const std::function<void(std::size_t)>& body) {
  if (end <= begin) return;
  if (end - begin == 1 || (end - begin) * words_each < kMinParallelWords || in_parallel_region()) {
    for (std::size_t i = begin; i < end; ++i)
      body(i);
    return;
  }
  parallel_for(begin, end, body);
}

inline std::string log2_string(double x) {
  return std::to_string(static_cast<int>(std::lround(std::log2(x))));
}

}  // namespace heft::ckks::detail
