// A destroyed secret key leaves no trace in memory. The probe is the memory
// pool: it keeps freed blocks and hands the last one of a size out again, so
// the next pool_allocate of the key's block size returns the very block the
// key lived in, and its contents must be all zeros (they would still hold
// the key's NTT values if the destructor did not wipe them).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "heft/rlwe/context.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft::rlwe {
namespace {

// Whether the `bytes` bytes at `block` are all zero.
bool all_zero(const void* block, std::size_t bytes) {
  const auto* words = static_cast<const uint64_t*>(block);
  for (std::size_t i = 0; i < bytes / sizeof(uint64_t); ++i)
    if (words[i] != 0) return false;
  return true;
}

TEST(SecretWiping, DestroyedSecretKeyMemoryIsZeroed) {
  constexpr uint64_t kDegree = 2048;
  auto context =
      Context::create(make_parameters(kDegree, {50, 40, 40}, {50}, 0, SecurityLevel::none));
  KeyGenerator keygen(context);
  std::optional<SecretKey> key = keygen.secret_key().clone();
  ASSERT_TRUE(key->q_part().is_secret());
  const uint64_t* q_block = key->q_part().tower(0).data();
  const std::size_t q_bytes = key->q_part().tower_count() * kDegree * sizeof(uint64_t);
  ASSERT_FALSE(all_zero(q_block, q_bytes)) << "the key's towers hold its NTT values";

  key.reset();

  // 3 towers: no other live or freed block of the key has this size, so the
  // pool's last freed block of it is the key's s modulo Q.
  void* reused = pool_allocate(q_bytes);
  ASSERT_EQ(reused, static_cast<const void*>(q_block))
      << "the pool did not hand back the key's block; the probe cannot look at it";
  EXPECT_TRUE(all_zero(reused, q_bytes)) << "the destroyed secret key's memory was not wiped";
  pool_release(reused, q_bytes);
}

}  // namespace
}  // namespace heft::rlwe
