// The memory pool behind AlignedBuffer: its limit read from
// HEFT_POOL_LIMIT_MB, and the buffers it serves (aligned, zeroed, movable,
// clonable; sizes that overflow refused).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>

#include "heft/util/aligned_buffer.hpp"
#include "heft/util/error.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft {
namespace {

// HEFT_POOL_LIMIT_MB: MiB counts, the default for anything else, and no
// wrap-around for counts beyond the address space (2^44 MiB used to shift to 0).
TEST(MemoryPool, LimitFromEnvironmentText) {
  constexpr std::size_t kDefault = std::size_t{2048} << 20;
  EXPECT_EQ(pool_limit_from_text(nullptr), kDefault);
  EXPECT_EQ(pool_limit_from_text(""), kDefault);
  EXPECT_EQ(pool_limit_from_text("abc"), kDefault);
  EXPECT_EQ(pool_limit_from_text("12x"), kDefault);
  EXPECT_EQ(pool_limit_from_text("-5"), kDefault);
  EXPECT_EQ(pool_limit_from_text("0"), 0u);
  EXPECT_EQ(pool_limit_from_text("12"), std::size_t{12} << 20);
  EXPECT_EQ(pool_limit_from_text("17592186044416"), SIZE_MAX);           // 2^44
  EXPECT_EQ(pool_limit_from_text("99999999999999999999999"), SIZE_MAX);  // beyond 2^64
}

TEST(AlignedBuffer, AlignedZeroedMovableAndClonable) {
  AlignedBuffer<uint64_t> buffer(1000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % kBufferAlignment, 0u);
  for (uint64_t x : buffer)
    EXPECT_EQ(x, 0u);
  std::iota(buffer.begin(), buffer.end(), 1);
  AlignedBuffer<uint64_t> copy = buffer.clone();
  AlignedBuffer<uint64_t> moved = std::move(buffer);
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(moved[999], 1000u);
  EXPECT_EQ(copy[0], 1u);
  copy.wipe();
  for (uint64_t x : copy)
    EXPECT_EQ(x, 0u);
}

TEST(AlignedBuffer, SizesThatOverflowAreRefused) {
  // 2^61 words is 2^64 bytes: the byte count wrapped to 0 and "allocated" it.
  EXPECT_THROW(AlignedBuffer<uint64_t>(std::size_t{1} << 61), InvalidArgument);
  EXPECT_THROW(AlignedBuffer<uint64_t>(SIZE_MAX, AlignedBuffer<uint64_t>::Uninitialized{}),
               InvalidArgument);
}

}  // namespace
}  // namespace heft
