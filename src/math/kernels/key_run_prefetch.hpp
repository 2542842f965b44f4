// Software prefetch for key switching's inner product (dot_product_pair).
//
// The kernels walk their operands block by block: for each block of
// coefficients, the digits two at a time, each pass reading one run of the
// block's coefficients from both key halves of both digits. The runs lie
// megabytes apart in memory and the key of a large parameter set comes from
// DRAM; the hardware prefetchers retrain at every run, and the multiplies
// then wait on memory instead of overlapping it (at N = 32768 on Zen 5 the
// inner product took the sum of its compute and memory times). Asking for
// the key a fixed distance ahead along this sequence of runs, crossing into
// the next pass's run near the end of each, keeps the stream going.
//
// Included only by kernel files compiled with their level's flags.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heft::math::kernels {
namespace {

class KeyRunPrefetcher {
 public:
  // 256 coefficients (2 KB, 32 lines per row) ahead: the best of 64 to 1024
  // for both the 55-bit split sums (N = 32768, 15 digits) and the IFMA sums
  // (N = 16384, 8 digits).
  static constexpr std::size_t kDistance = 256;

  // b, a: the k key halves' rows; count: the coefficients the kernel walks
  // (each row holds at least that many); block: its block size.
  KeyRunPrefetcher(const uint64_t* const* b, const uint64_t* const* a, std::size_t k,
                   std::size_t count, std::size_t block)
      : b_(b), a_(a), k_(k), count_(count), block_(block) {}

  // At offset i of the pass over digits j and j + 1 (j alone when j + 1 = k)
  // and coefficients [start, start + size): fetch the key lines kDistance
  // coefficients further along the walk.
  void operator()(std::size_t j, std::size_t start, std::size_t size, std::size_t i) const {
    std::size_t ahead = i + kDistance;
    std::size_t digit = j;
    if (ahead >= size) {
      ahead -= size;
      if (j + 2 < k_) {
        digit = j + 2;  // the next pass over this block
      } else {
        digit = 0;  // the first pass over the next block
        start += block_;
      }
    }
    const std::size_t at = start + ahead;
    if (at >= count_) return;
    fetch(b_[digit] + at);
    fetch(a_[digit] + at);
    if (digit + 1 < k_) {
      fetch(b_[digit + 1] + at);
      fetch(a_[digit + 1] + at);
    }
  }

 private:
  // prefetcht0: measured faster than prefetcht1 and prefetchnta here.
  // In asm because GCC 12 drops __builtin_prefetch here: its pure-const
  // analysis counts the builtin as free of side effects, marks operator() pure
  // when it is not inlined early, and then deletes the calls as unused (the
  // kernels compiled without a single prefetch until this was found).
  static void fetch(const uint64_t* line) {
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*line));
#else
    __builtin_prefetch(line, 0, 3);
#endif
  }

  const uint64_t* const* b_;
  const uint64_t* const* a_;
  std::size_t k_, count_, block_;
};

}  // namespace
}  // namespace heft::math::kernels
