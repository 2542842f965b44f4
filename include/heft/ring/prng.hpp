// Prng: a deterministic stream of random bytes expanded from a 32-byte seed
// with AES-256 in counter mode (OpenSSL's EVP API).
//
// The stream is exactly the AES-256-CTR keystream for key = seed and an
// all-zero 128-bit initial counter block (the counter is incremented as a
// 128-bit big-endian integer), so the same seed gives the same bytes on every
// machine and with every OpenSSL version; multi-byte values are assembled
// little-endian. Seeds for fresh randomness come from the operating system
// (getrandom(2)). The object is move-only and wipes its key material and
// buffered output when destroyed. Not thread-safe: use one Prng per thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "heft/export.hpp"

namespace heft::ring {

class HEFT_EXPORT Prng {
 public:
  static constexpr std::size_t kSeedBytes = 32;
  using Seed = std::array<uint8_t, kSeedBytes>;

  // Throws Error if OpenSSL cannot set up the cipher.
  explicit Prng(const Seed& seed);
  // A Prng seeded from the operating system.
  static Prng from_os_entropy();
  // kSeedBytes fresh bytes from getrandom(2); throws Error if it fails.
  static Seed os_entropy_seed();

  Prng(Prng&& other) noexcept;
  Prng& operator=(Prng&& other) noexcept;
  Prng(const Prng&) = delete;
  Prng& operator=(const Prng&) = delete;
  ~Prng();

  // The next out.size() bytes of the stream.
  void fill(std::span<uint8_t> out);
  // The next 8 bytes as a little-endian integer.
  uint64_t next_u64();
  // Uniform in [0, bound) without bias (rejection sampling); bound >= 1,
  // throws InvalidArgument on 0.
  uint64_t uniform_below(uint64_t bound);

 private:
  struct State;
  void refill();
  std::unique_ptr<State> state_;
};

}  // namespace heft::ring
