// A small fixed thread pool behind parallel_for.
//
// One job runs at a time. Its indices are cut into one contiguous range per
// participating thread (the caller is participant 0); each thread runs its
// own range first, then takes indices still unclaimed in the others'. The
// own ranges keep tower t on the same thread from one loop to the next (key
// switching and then its division by P, say), so its data is still in that
// core's cache; taking the others' leftovers balances indices of unequal
// cost (encryption's three samples) and a vCPU the host ran slower.
// Idle workers, and a caller waiting for its workers, spin for a short while
// before sleeping on a condition variable (spin_until says why).
// A body that calls parallel_for again (thread_local flag set) runs serially,
// which is what keeps nesting free of oversubscription and deadlock. Callers
// from different application threads are serialised on job_mutex_; a caller
// that finds the pool busy runs its loop serially instead of waiting.
#include "heft/util/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "heft/util/error.hpp"

namespace heft {
namespace {

// More threads than any machine heft runs on has cores; a larger request is
// refused rather than attempted (thread creation would fail part-way).
constexpr std::size_t kMaxThreads = 4096;

thread_local bool t_in_parallel_region = false;

std::size_t default_thread_count() {
  if (const char* env = std::getenv("HEFT_NUM_THREADS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(env, &end, 10);
    if (end != nullptr && *end == '\0' && value > 0 && value <= kMaxThreads) return value;
    throw InvalidArgument(std::string("HEFT_NUM_THREADS='") + env +
                          "' is not a thread count: use a positive integer");
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

class ThreadPool {
 public:
  explicit ThreadPool(std::size_t threads) { resize(threads); }
  ~ThreadPool() { stop_workers(); }

  std::size_t size() const { return thread_count_.load(); }

  void resize(std::size_t threads) {
    std::lock_guard<std::mutex> job_lock(job_mutex_);
    stop_workers();
    thread_count_ = std::max<std::size_t>(1, threads);
    ranges_ = std::make_unique<OwnedRange[]>(thread_count_);
    stopping_ = false;
    // New workers start from the current generation so they never mistake the
    // previous job for a fresh one.
    try {
      for (std::size_t i = 1; i < thread_count_; ++i) {
        workers_.emplace_back([this, i, start = generation_.load()] { work(i, start); });
      }
    } catch (const std::system_error& e) {
      // Keep the count the workers that exist can serve, so later jobs
      // never wait for workers that do not exist.
      thread_count_ = workers_.size() + 1;
      throw Error(std::string("set_num_threads: could not start a thread (") + e.what() +
                  "); running with " + std::to_string(thread_count_.load()) + " threads");
    }
  }

  void run(std::size_t begin, std::size_t end, const std::function<void(std::size_t)>& body) {
    const std::size_t count = end - begin;
    std::unique_lock<std::mutex> job_lock(job_mutex_, std::try_to_lock);
    const std::size_t threads = thread_count_.load();
    if (!job_lock.owns_lock() || threads == 1 || count == 1) {
      run_serial(begin, end, body);
      return;
    }
    const std::size_t participants = std::min(threads, count);  // caller included
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      body_ = &body;
      begin_ = begin;
      count_ = count;
      participants_ = participants;
      for (std::size_t p = 0; p < participants; ++p) {
        ranges_[p].next.store(count * p / participants, std::memory_order_relaxed);
        ranges_[p].end = count * (p + 1) / participants;
      }
      failed_.store(false, std::memory_order_relaxed);
      error_ = nullptr;
      pending_.store(participants - 1, std::memory_order_relaxed);
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    wake_.notify_all();  // no system call when every worker is still spinning
    run_claimed(0);
    spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> lock(state_mutex_);
    done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  static void run_serial(std::size_t begin, std::size_t end,
                         const std::function<void(std::size_t)>& body) {
    const bool was_inside = t_in_parallel_region;
    t_in_parallel_region = true;
    try {
      for (std::size_t i = begin; i < end; ++i)
        body(i);
    } catch (...) {
      t_in_parallel_region = was_inside;
      throw;
    }
    t_in_parallel_region = was_inside;
  }

  // Runs indices of the current job for participant `self`: its own range,
  // then what is left of the others', each index claimed with one atomic
  // increment. After a body throws no index is started any more (as the
  // serial loop stops); the first exception is kept for the caller.
  void run_claimed(std::size_t self) {
    for (std::size_t k = 0; k < participants_; ++k) {
      OwnedRange& range = ranges_[(self + k) % participants_];
      while (!failed_.load(std::memory_order_relaxed)) {
        const std::size_t i = range.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= range.end) break;
        try {
          run_serial(begin_ + i, begin_ + i + 1, *body_);
        } catch (...) {
          failed_.store(true, std::memory_order_relaxed);
          std::lock_guard<std::mutex> lock(state_mutex_);
          if (!error_) error_ = std::current_exception();
        }
      }
    }
  }

  // Spins (with the CPU's pause hint) until done() or kSpinTime has passed;
  // returns done(). Between the loops of one operation a worker is idle for
  // microseconds, and waking it from a condition variable costs a futex wake
  // and, in a VM, the host rescheduling a vCPU that had halted: more than
  // many loops' work.
  template <typename Done>
  static bool spin_until(const Done& done) {
    const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
    for (unsigned round = 1;; ++round) {
      if (done()) return true;
      if (round % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  void work(std::size_t worker_index, uint64_t seen_generation) {
    for (;;) {
      const auto has_news = [&] {
        return stopping_.load(std::memory_order_acquire) ||
               generation_.load(std::memory_order_acquire) != seen_generation;
      };
      spin_until(has_news);
      bool participates = false;
      {
        // The job is read under the mutex it was written under: a worker
        // left out of a job could otherwise still be reading participants_
        // when the caller, not waiting for it, writes the next job's.
        std::unique_lock<std::mutex> lock(state_mutex_);
        if (!has_news()) wake_.wait(lock, has_news);
        if (stopping_.load(std::memory_order_relaxed)) return;
        seen_generation = generation_.load(std::memory_order_relaxed);
        participates = worker_index < participants_;  // fewer indices than threads?
      }
      if (!participates) continue;
      run_claimed(worker_index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // The caller may be asleep on done_: notify under the mutex it
        // checks pending_ under, so the wake-up cannot fall between its
        // check and its sleep.
        std::lock_guard<std::mutex> lock(state_mutex_);
        done_.notify_one();
      }
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      stopping_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_)
      w.join();
    workers_.clear();
  }

  // How long an idle worker, or a caller waiting for its workers, spins
  // before sleeping on a condition variable.
  static constexpr std::chrono::microseconds kSpinTime{200};

  std::mutex job_mutex_;    // one job at a time
  std::mutex state_mutex_;  // writes of the job description below
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<std::size_t> thread_count_{1};
  std::atomic<bool> stopping_{false};
  // Bumped after the job's fields are written, under state_mutex_; atomic so
  // that idle workers can watch it without the mutex.
  std::atomic<uint64_t> generation_{0};
  const std::function<void(std::size_t)>* body_ = nullptr;
  std::size_t begin_ = 0, count_ = 0, participants_ = 0;
  std::atomic<std::size_t> pending_{0};  // workers still running the job
  std::exception_ptr error_;             // under state_mutex_
  // Participant p's range of the current job: indices [next, end) relative
  // to begin_ not yet claimed. One cache line each, so that claims by
  // different threads do not contend.
  struct alignas(64) OwnedRange {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };
  std::unique_ptr<OwnedRange[]> ranges_;  // one per thread
  std::atomic<bool> failed_{false};       // a body threw: start no more
};

ThreadPool& pool() {
  static ThreadPool instance(default_thread_count());
  return instance;
}

}  // namespace

std::size_t num_threads() {
  return pool().size();
}

void set_num_threads(std::size_t count) {
  if (t_in_parallel_region)
    throw InvalidArgument("set_num_threads cannot be called from inside a parallel_for body");
  if (count > kMaxThreads) {
    throw InvalidArgument("set_num_threads: " + std::to_string(count) + " threads; at most " +
                          std::to_string(kMaxThreads));
  }
  pool().resize(count == 0 ? std::max(1u, std::thread::hardware_concurrency()) : count);
}

bool in_parallel_region() {
  return t_in_parallel_region;
}

void parallel_for(std::size_t begin, std::size_t end,
                  const std::function<void(std::size_t)>& body) {
  if (end <= begin) return;
  if (t_in_parallel_region) {
    for (std::size_t i = begin; i < end; ++i)
      body(i);
    return;
  }
  pool().run(begin, end, body);
}

}  // namespace heft
