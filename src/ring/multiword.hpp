// Minimal multi-word unsigned integer arithmetic (little-endian uint64 words)
// for the few places the ring layer needs integers wider than 128 bits: the
// CRT product Q, composing residues, and the exact fallback of base conversion.
//
// Deliberately small and scalar: these run during precomputation, in tests and
// encoders, and on the rare ambiguous coefficient of exact base conversion,
// never in a bulk loop. Internal header (not installed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/math/modulus.hpp"

namespace heft::ring::detail {

using Words = std::vector<uint64_t>;

// acc += a * w. acc must be long enough to hold the result (the carry out of
// its top word is dropped, which callers rule out by sizing acc).
inline void mul_add_word(std::span<uint64_t> acc, std::span<const uint64_t> a, uint64_t w) {
  uint64_t carry = 0;
  std::size_t i = 0;
  for (; i < a.size(); ++i) {
    const unsigned __int128 t = static_cast<unsigned __int128>(a[i]) * w + acc[i] + carry;
    acc[i] = static_cast<uint64_t>(t);
    carry = static_cast<uint64_t>(t >> 64);
  }
  for (; carry != 0 && i < acc.size(); ++i) {
    const unsigned __int128 t = static_cast<unsigned __int128>(acc[i]) + carry;
    acc[i] = static_cast<uint64_t>(t);
    carry = static_cast<uint64_t>(t >> 64);
  }
}

// Sign of a - b (-1, 0, 1); the spans may differ in length (missing words are 0).
inline int compare(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  const std::size_t length = std::max(a.size(), b.size());
  for (std::size_t k = length; k-- > 0;) {
    const uint64_t x = k < a.size() ? a[k] : 0;
    const uint64_t y = k < b.size() ? b[k] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// a -= b, requires a >= b and a.size() >= b.size().
inline void sub_in_place(std::span<uint64_t> a, std::span<const uint64_t> b) {
  uint64_t borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const uint64_t y = i < b.size() ? b[i] : 0;
    const uint64_t d = a[i] - y - borrow;
    borrow = (a[i] < y || (a[i] == y && borrow != 0)) ? 1 : 0;
    a[i] = d;
  }
}

// a mod q, Horner from the top word: r <- (r * 2^64 + word) mod q.
inline uint64_t mod_word(std::span<const uint64_t> a, const math::Modulus& q) {
  uint64_t r = 0;
  for (std::size_t k = a.size(); k-- > 0;) {
    r = q.reduce128((static_cast<unsigned __int128>(r) << 64) | a[k]);
  }
  return r;
}

// a * w as a new number one word longer than a.
inline Words multiply_word(std::span<const uint64_t> a, uint64_t w) {
  Words product(a.size() + 1, 0);
  mul_add_word(product, a, w);
  return product;
}

// Drops high zero words, keeping at least one word.
inline void trim(Words& a) {
  while (a.size() > 1 && a.back() == 0)
    a.pop_back();
}

}  // namespace heft::ring::detail
