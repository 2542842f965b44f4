// Modulus: an integer q in [2, 2^61) with the constants that make arithmetic
// modulo q fast (Barrett reduction, Shoup multiplication by fixed operands).
//
// The member functions here are the scalar building blocks used outside the
// vector kernels: key generation, precomputation, encoders. Bulk arithmetic
// on arrays goes through math/kernels.hpp instead.
#pragma once

#include <cstdint>

#include "heft/export.hpp"
#include "heft/util/error.hpp"

namespace heft::math {

inline constexpr int kMaxModulusBits = 61;  // q < 2^61 keeps 4q below 2^63 for lazy NTTs

class HEFT_EXPORT Modulus {
 public:
  // An empty placeholder (value 0), for containers. Its arithmetic below is
  // not defined (the hot paths do not check); every heft entry point that
  // takes a Modulus refuses an empty one with InvalidArgument.
  Modulus() = default;
  // Throws InvalidArgument unless 2 <= q < 2^61.
  explicit Modulus(uint64_t q);

  [[nodiscard]] bool empty() const noexcept { return value_ == 0; }
  [[nodiscard]] uint64_t value() const noexcept { return value_; }
  [[nodiscard]] int bit_count() const noexcept { return bit_count_; }
  // floor(2^128 / q) as (high, low) words, and floor(2^64 / q).
  [[nodiscard]] uint64_t barrett_hi() const noexcept { return barrett_hi_; }
  [[nodiscard]] uint64_t barrett_lo() const noexcept { return barrett_lo_; }
  [[nodiscard]] uint64_t barrett64() const noexcept { return barrett64_; }

  // a + b, a - b, -a for a, b in [0, q).
  [[nodiscard]] uint64_t add(uint64_t a, uint64_t b) const noexcept {
    uint64_t s = a + b;
    return s >= value_ ? s - value_ : s;
  }
  [[nodiscard]] uint64_t sub(uint64_t a, uint64_t b) const noexcept {
    return a >= b ? a - b : a + value_ - b;
  }
  [[nodiscard]] uint64_t negate(uint64_t a) const noexcept { return a == 0 ? 0 : value_ - a; }

  // Any 64-bit word mod q (Barrett with floor(2^64/q)).
  [[nodiscard]] uint64_t reduce(uint64_t a) const noexcept {
    uint64_t quotient =
        static_cast<uint64_t>((static_cast<unsigned __int128>(a) * barrett64_) >> 64);
    uint64_t r = a - quotient * value_;
    return r >= value_ ? r - value_ : r;
  }

  // Any 128-bit value mod q (Barrett with floor(2^128/q)).
  [[nodiscard]] uint64_t reduce128(unsigned __int128 x) const noexcept {
    const uint64_t x_lo = static_cast<uint64_t>(x);
    const uint64_t x_hi = static_cast<uint64_t>(x >> 64);
    // quotient ~ floor(x * floor(2^128/q) / 2^128), computed from the three
    // partial products that reach the top 128 bits; it undershoots by at most 2.
    unsigned __int128 lo_hi = static_cast<unsigned __int128>(x_lo) * barrett_hi_;
    unsigned __int128 hi_lo = static_cast<unsigned __int128>(x_hi) * barrett_lo_;
    const unsigned __int128 middle = ((static_cast<unsigned __int128>(x_lo) * barrett_lo_) >> 64) +
                                     static_cast<uint64_t>(lo_hi) + static_cast<uint64_t>(hi_lo);
    const uint64_t carry_in = static_cast<uint64_t>(middle >> 64);
    uint64_t quotient = x_hi * barrett_hi_ + static_cast<uint64_t>(lo_hi >> 64) +
                        static_cast<uint64_t>(hi_lo >> 64) + carry_in;
    uint64_t r = x_lo - quotient * value_;
    while (r >= value_)
      r -= value_;
    return r;
  }

  // a * b mod q for any a, b < 2^64.
  [[nodiscard]] uint64_t mul(uint64_t a, uint64_t b) const noexcept {
    return reduce128(static_cast<unsigned __int128>(a) * b);
  }

  // a^e mod q.
  [[nodiscard]] uint64_t pow(uint64_t a, uint64_t e) const noexcept;

  // a^-1 mod q; throws InvalidArgument if gcd(a, q) != 1 or q is empty.
  [[nodiscard]] uint64_t inverse(uint64_t a) const;

  // Shoup constant floor(w * 2^64 / q) for a fixed w in [0, q).
  [[nodiscard]] uint64_t shoup(uint64_t w) const noexcept {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / value_);
  }

  // x * w mod q with w's Shoup constant; any x < 2^64, result in [0, q).
  [[nodiscard]] uint64_t mul_shoup(uint64_t x, uint64_t w, uint64_t w_shoup) const noexcept {
    uint64_t quotient = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * w_shoup) >> 64);
    uint64_t r = x * w - quotient * value_;
    return r >= value_ ? r - value_ : r;
  }

  friend bool operator==(const Modulus& a, const Modulus& b) noexcept {
    return a.value_ == b.value_;
  }

 private:
  uint64_t value_ = 0;
  int bit_count_ = 0;
  uint64_t barrett_hi_ = 0;
  uint64_t barrett_lo_ = 0;
  uint64_t barrett64_ = 0;
};

}  // namespace heft::math
