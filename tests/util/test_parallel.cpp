// parallel_for and the thread pool: serial equivalence, nesting, exceptions,
// slow indices, sleeping workers, concurrent callers, thread-count control.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft {
namespace {

// Restores the thread count a test changed.
struct ThreadCountGuard {
  std::size_t saved = num_threads();
  ~ThreadCountGuard() { set_num_threads(saved); }
};

TEST(ParallelFor, ResultsEqualTheSerialRun) {
  ThreadCountGuard guard;
  std::vector<uint64_t> serial(10007), parallel(10007);
  auto f = [](std::size_t i) { return static_cast<uint64_t>(i) * 2654435761u % 1000003; };
  for (std::size_t i = 0; i < serial.size(); ++i)
    serial[i] = f(i);
  for (std::size_t threads : {1, 2, 3, 8}) {
    set_num_threads(threads);
    std::fill(parallel.begin(), parallel.end(), 0);
    parallel_for(0, parallel.size(), [&](std::size_t i) { parallel[i] = f(i); });
    EXPECT_EQ(parallel, serial) << threads << " threads";
  }
}

TEST(ParallelFor, EveryIndexExactlyOnceAndEmptyRanges) {
  ThreadCountGuard guard;
  set_num_threads(4);
  std::vector<std::atomic<int>> hits(1000);
  parallel_for(0, hits.size(), [&](std::size_t i) { hits[i]++; });
  for (auto& h : hits)
    EXPECT_EQ(h.load(), 1);
  int calls = 0;
  parallel_for(5, 5, [&](std::size_t) { ++calls; });
  parallel_for(7, 3, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, NestedCallsRunSeriallyWithoutDeadlock) {
  ThreadCountGuard guard;
  set_num_threads(4);
  std::vector<std::vector<int>> grid(16, std::vector<int>(64, 0));
  std::mutex thread_ids_mutex;
  std::set<std::thread::id> inner_threads_per_outer_mismatch;
  parallel_for(0, grid.size(), [&](std::size_t row) {
    EXPECT_TRUE(in_parallel_region());
    const auto outer_thread = std::this_thread::get_id();
    parallel_for(0, grid[row].size(), [&](std::size_t col) {
      grid[row][col] = static_cast<int>(row * 100 + col);
      if (std::this_thread::get_id() != outer_thread) {
        std::lock_guard<std::mutex> lock(thread_ids_mutex);
        inner_threads_per_outer_mismatch.insert(std::this_thread::get_id());
      }
    });
  });
  EXPECT_TRUE(inner_threads_per_outer_mismatch.empty()) << "nested loop left its worker thread";
  for (std::size_t r = 0; r < grid.size(); ++r)
    for (std::size_t c = 0; c < grid[r].size(); ++c)
      EXPECT_EQ(grid[r][c], static_cast<int>(r * 100 + c));
  EXPECT_FALSE(in_parallel_region());
}

TEST(ParallelFor, ExceptionsPropagateAfterStartedBodiesFinish) {
  ThreadCountGuard guard;
  for (std::size_t threads : {1, 2, 4}) {
    set_num_threads(threads);
    std::atomic<int> started{0}, finished{0};
    EXPECT_THROW(parallel_for(0, 100,
                              [&](std::size_t i) {
                                started++;
                                if (i == 42) throw std::runtime_error("boom");
                                std::this_thread::sleep_for(std::chrono::microseconds(200));
                                finished++;
                              }),
                 std::runtime_error);
    // Every body that started had finished when the exception arrived, the
    // throwing one aside; and the throwing index itself ran.
    EXPECT_EQ(finished.load(), started.load() - 1) << threads << " threads";
    EXPECT_GE(started.load(), 1);
    // The pool is usable afterwards.
    std::atomic<int> count{0};
    parallel_for(0, 10, [&](std::size_t) { count++; });
    EXPECT_EQ(count.load(), 10);
  }
}

// Runs a loop of 10 indices in which index 0 waits (up to 20 s) for the
// other nine to finish; true if they all did while it waited, i.e. another
// thread of the pool ran them.
bool others_ran_while_index_0_waited() {
  constexpr std::size_t kCount = 10;
  std::atomic<std::size_t> others_done{0};
  std::atomic<bool> saw_all{false};
  parallel_for(0, kCount, [&](std::size_t i) {
    if (i != 0) {
      others_done++;
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (others_done.load() < kCount - 1 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    saw_all = others_done.load() == kCount - 1;
  });
  EXPECT_EQ(others_done.load(), kCount - 1);
  return saw_all.load();
}

// A thread that is free takes indices from another's range: while one
// thread is held up in index 0, the other runs every other index (with fixed
// ranges, indices 1-4 would wait behind index 0 and this would time out).
TEST(ParallelFor, ASlowIndexDoesNotHoldUpTheOthers) {
  ThreadCountGuard guard;
  set_num_threads(2);
  EXPECT_TRUE(others_ran_while_index_0_waited()) << "the other indices waited for index 0";
}

// Idle workers spin for a while and then sleep: a loop right after another
// finds the worker spinning, one after a long pause must wake it from sleep.
// Either way the worker joins in (else the loop above would time out).
TEST(ParallelFor, WorkersJoinWhetherSpinningOrAsleep) {
  ThreadCountGuard guard;
  set_num_threads(2);
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(others_ran_while_index_0_waited()) << "right after a loop, round " << round;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past any spin
    EXPECT_TRUE(others_ran_while_index_0_waited()) << "after 20 ms idle, round " << round;
  }
}

TEST(ParallelFor, OneThreadRunsInlineOnTheCaller) {
  ThreadCountGuard guard;
  set_num_threads(1);
  EXPECT_EQ(num_threads(), 1u);
  const auto caller = std::this_thread::get_id();
  parallel_for(0, 50, [&](std::size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
}

TEST(ParallelFor, ConcurrentCallersFromApplicationThreads) {
  ThreadCountGuard guard;
  set_num_threads(2);
  std::vector<std::thread> callers;
  std::atomic<long> total{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 50; ++rep)
        parallel_for(0, 100, [&](std::size_t i) { total += static_cast<long>(i); });
    });
  }
  for (auto& c : callers)
    c.join();
  EXPECT_EQ(total.load(), 4L * 50 * 4950);
}

TEST(ParallelFor, AbsurdThreadCountsAreRefusedAndThePoolStillWorks) {
  const std::size_t before = num_threads();
  EXPECT_THROW(set_num_threads(std::size_t{1} << 20), InvalidArgument);
  EXPECT_EQ(num_threads(), before);
  std::atomic<long> sum{0};
  parallel_for(0, 1000, [&](std::size_t i) { sum += static_cast<long>(i); });
  EXPECT_EQ(sum.load(), 999L * 1000 / 2);
}

}  // namespace
}  // namespace heft
