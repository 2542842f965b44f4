// Size-keyed free lists behind AlignedBuffer (see memory_pool.hpp for why).
#include "heft/util/memory_pool.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace heft {
namespace {

constexpr std::size_t kAlignment = 64;
// Small blocks are cheap for malloc and would only clutter the pool.
constexpr std::size_t kMinPooledBytes = 16 * 1024;

constexpr std::size_t kDefaultLimitBytes = std::size_t{2048} << 20;

// Blocks of a huge page or more are aligned to it and marked for transparent
// huge pages (where the kernel's policy is "madvise", as on Debian): a key or
// a ciphertext at N = 2^16 is tens of MiB, and faulting it in 4 KiB pages
// cost more than the arithmetic on it (key generation at N = 2^16 spent
// most of its time in the kernel).
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t alignment_for(std::size_t bytes) {
  return bytes >= kHugePage ? kHugePage : kAlignment;
}

struct Pool {
  std::mutex mutex;
  std::unordered_map<std::size_t, std::vector<void*>> free_blocks;
  std::size_t idle_bytes = 0;
  std::size_t limit = pool_limit_from_text(std::getenv("HEFT_POOL_LIMIT_MB"));
};

Pool& pool() {
  // Never destroyed before its last user: leaked on purpose at exit, after
  // static AlignedBuffers that may release into it.
  static Pool* instance = new Pool();
  return *instance;
}

}  // namespace

void* pool_allocate(std::size_t bytes) {
  if (bytes >= kMinPooledBytes) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.free_blocks.find(bytes);
    if (it != p.free_blocks.end() && !it->second.empty()) {
      void* block = it->second.back();
      it->second.pop_back();
      p.idle_bytes -= bytes;
      return block;
    }
  }
  void* block = ::operator new[](bytes, std::align_val_t{alignment_for(bytes)});
  // Advice only: where huge pages are unavailable nothing changes.
  if (bytes >= kHugePage) (void)madvise(block, bytes, MADV_HUGEPAGE);
  return block;
}

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
  if (data == nullptr || bytes < 2 * kHugePage) return;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (start + bytes) & ~(kHugePage - 1);
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

void pool_release(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  if (bytes >= kMinPooledBytes) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.idle_bytes + bytes <= p.limit) {
      try {
        p.free_blocks[bytes].push_back(block);
        p.idle_bytes += bytes;
        return;
      } catch (...) {
        // Out of memory for the bookkeeping: free the block instead.
      }
    }
  }
  ::operator delete[](block, std::align_val_t{alignment_for(bytes)});
}

std::size_t release_idle_memory() noexcept {
  std::unordered_map<std::size_t, std::vector<void*>> blocks;
  std::size_t released = 0;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    blocks.swap(p.free_blocks);
    released = p.idle_bytes;
    p.idle_bytes = 0;
  }
  for (auto& [bytes, list] : blocks)
    for (void* block : list)
      ::operator delete[](block, std::align_val_t{alignment_for(bytes)});
  // And what malloc keeps in its own free lists.
  (void)malloc_trim(0);
  return released;
}

std::size_t pool_limit_from_text(const char* text) noexcept {
  if (text == nullptr || *text < '0' || *text > '9') return kDefaultLimitBytes;
  char* end = nullptr;
  errno = 0;
  const unsigned long long mb = std::strtoull(text, &end, 10);
  if (end == nullptr || *end != '\0') return kDefaultLimitBytes;
  // Shifting a count above SIZE_MAX / 2^20 would wrap to a small limit.
  constexpr std::size_t kMaxMb = SIZE_MAX >> 20;
  if (errno == ERANGE || mb > kMaxMb) return SIZE_MAX;
  return static_cast<std::size_t>(mb) << 20;
}

}  // namespace heft
