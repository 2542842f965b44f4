// parallel_for on a process-wide thread pool.
//
// Rules that the layers above rely on:
// - With one thread (HEFT_NUM_THREADS=1 or set_num_threads(1)) the body runs
//   inline on the caller's thread: exactly the serial path, no pool, no locks.
// - A parallel_for called from inside another parallel_for body runs serially
//   in that worker, so nesting never oversubscribes and never deadlocks.
// - If bodies throw, every body already started still finishes, no further
//   index is started, and the first exception is rethrown on the calling
//   thread.
#pragma once

#include <cstddef>
#include <functional>

#include "heft/export.hpp"

namespace heft {

// Threads parallel_for may use (>= 1). Defaults to HEFT_NUM_THREADS, else all cores.
HEFT_EXPORT std::size_t num_threads();

// Changes the thread count for later calls (0 means "all cores"); InvalidArgument
// above 4096, Error if the threads cannot be started (the pool keeps those it has).
HEFT_EXPORT void set_num_threads(std::size_t count);

// True while the current thread is executing a parallel_for body.
HEFT_EXPORT bool in_parallel_region();

// Calls body(i) for every i in [begin, end), spread over the pool. Iterations
// must be independent. Each thread starts on its own contiguous range (the
// same range for the same count and thread count, so body(i) for the same i
// usually runs on the same thread from one call to the next) and then takes
// what is left of the others'. Each index costs an atomic increment, so it
// should stand for real work (a tower, a digit, a chunk the caller sized).
HEFT_EXPORT void parallel_for(std::size_t begin, std::size_t end,
                              const std::function<void(std::size_t)>& body);

}  // namespace heft
