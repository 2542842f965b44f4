// Uniform, ternary, sparse-ternary and discrete-Gaussian samplers.
#include "heft/ring/samplers.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include <string.h>  // explicit_bzero (glibc)

#include "heft/util/aligned_buffer.hpp"

namespace heft::ring {
namespace {

// floor(2^64 * P(|X| <= k)) for k = 0..18, X the discrete Gaussian with
// sigma = 3.19 truncated to [-19, 19]: P(|X| = 0) = rho(0)/S and
// P(|X| = k) = 2 rho(k)/S, rho(x) = exp(-x^2 / (2 sigma^2)), S = sum of rho over
// [-19, 19]. Computed offline with 300-bit arithmetic (mpmath) and frozen so
// that every machine draws the same samples from the same seed.
constexpr std::array<uint64_t, kGaussianBound> kGaussianCdt = {
    0x2003f343d8f74a20, 0x5cf9e7df5e1cb374, 0x9194fd0dbd16635a, 0xbabaa2f1bfe45553,
    0xd7e6ab33b4234017, 0xeaa5b9244ea23a05, 0xf591040e384e84d1, 0xfb54cb302e62a284,
    0xfe17022d0b06ad0f, 0xff4953fc5557b681, 0xffc1c2128f9d463e, 0xffecac829c77aaaf,
    0xfffa8924cdc2ff77, 0xfffe9813a4348577, 0xffffabc6b79daa6a, 0xffffee1727926b15,
    0xfffffc8c5391382c, 0xffffff67b9946e35, 0xffffffeabb196c32};

// Buffers the Prng's bytes for the per-coefficient samplers and wipes them
// afterwards (they determine the secret).
class ByteSource {
 public:
  explicit ByteSource(Prng& prng) : prng_(prng) {}
  ~ByteSource() { buffer_.wipe(); }
  uint8_t next() {
    if (position_ == buffer_.size()) {
      prng_.fill(buffer_.span());
      position_ = 0;
    }
    return buffer_[position_++];
  }

 private:
  Prng& prng_;
  AlignedBuffer<uint8_t> buffer_{1024};
  std::size_t position_ = 1024;
};

// Buffers exactly `total` 64-bit words of the Prng's stream, read in blocks
// but in the order (and to the same stream position) that one next_u64() per
// word would give; wipes them afterwards.
class WordSource {
 public:
  WordSource(Prng& prng, std::size_t total) : prng_(prng), left_(total) {}
  ~WordSource() { buffer_.wipe(); }
  uint64_t next() {
    if (position_ == available_) {
      available_ = std::min(buffer_.size(), left_);
      prng_.fill(std::span<uint8_t>(reinterpret_cast<uint8_t*>(buffer_.data()), available_ * 8));
      position_ = 0;
    }
    --left_;
    return buffer_[position_++];  // little-endian words, as next_u64()
  }

 private:
  Prng& prng_;
  std::size_t left_;
  AlignedBuffer<uint64_t> buffer_{512};
  std::size_t available_ = 0, position_ = 0;
};

// A signed scratch polynomial wiped on every exit path.
class WipedSigned {
 public:
  // Uninitialised: every sampler writes all of it.
  explicit WipedSigned(std::size_t size) : values_(size, AlignedBuffer<int64_t>::Uninitialized{}) {}
  ~WipedSigned() { values_.wipe(); }
  std::span<int64_t> span() { return values_.span(); }

 private:
  AlignedBuffer<int64_t> values_;
};

void require_poly(const RnsPoly& out, const char* sampler) {
  if (out.empty()) {
    throw InvalidArgument(std::string(sampler) +
                          ": the output polynomial is empty (create it from a context first)");
  }
}

}  // namespace

void sample_ternary(Prng& prng, std::span<int64_t> out) {
  ByteSource bytes(prng);
  for (int64_t& value : out) {
    // 255 = 3 * 85: bytes 0..254 map uniformly onto {0, 1, 2}.
    uint8_t byte = bytes.next();
    while (byte == 255)
      byte = bytes.next();
    value = static_cast<int64_t>(byte % 3) - 1;
  }
}

void sample_sparse_ternary(Prng& prng, std::size_t hamming_weight, std::span<int64_t> out) {
  const std::size_t n = out.size();
  if (hamming_weight > n) {
    throw InvalidArgument("sample_sparse_ternary: Hamming weight " +
                          std::to_string(hamming_weight) + " exceeds the " + std::to_string(n) +
                          " coefficients");
  }
  if (n == 0) return;
  // Constant-time: the first hamming_weight entries get +-1, then a random
  // permutation is applied by sorting random 62-bit tags with a bitonic
  // network, whose comparisons and memory accesses depend only on n. Each
  // word is tag << 2 | code (code 1 for +1, 2 for -1, 0 for 0), so sorting
  // the words carries the values along. Padding up to a power of two uses
  // all-ones words, which sort last. Ties between tags (probability below
  // n^2 / 2^63) only make the permutation slightly less uniform.
  std::size_t size = 1;
  while (size < n)
    size <<= 1;
  AlignedBuffer<uint64_t> words(size, AlignedBuffer<uint64_t>::Uninitialized{});
  {
    WordSource source(prng, n + (hamming_weight + 63) / 64);
    uint64_t sign_bits = 0;
    for (std::size_t i = 0; i < n; ++i) {
      uint64_t code = 0;
      if (i < hamming_weight) {  // public: depends on the index only
        if (i % 64 == 0) sign_bits = source.next();
        code = 1 + ((sign_bits >> (i % 64)) & 1);
      }
      words[i] = (source.next() << 2) | code;
    }
  }
  for (std::size_t i = n; i < size; ++i)
    words[i] = ~uint64_t{0};
  for (std::size_t block = 2; block <= size; block <<= 1) {
    for (std::size_t stride = block >> 1; stride > 0; stride >>= 1) {
      for (std::size_t start = 0; start < size; start += 2 * stride) {
        // Within a block of the network, ascending or descending by position.
        const bool ascending = (start & block) == 0;
        for (std::size_t i = start; i < start + stride; ++i) {
          uint64_t& low = ascending ? words[i] : words[i + stride];
          uint64_t& high = ascending ? words[i + stride] : words[i];
          // Swap when low > high, through a mask: no branch on the words.
          const uint64_t swap = 0 - static_cast<uint64_t>(low > high);
          const uint64_t difference = (low ^ high) & swap;
          low ^= difference;
          high ^= difference;
        }
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t code = words[i] & 3;
    // code 0 -> 0, 1 -> +1, 2 -> -1, without a branch: (code & 1) - (code >> 1).
    out[i] = static_cast<int64_t>(code & 1) - static_cast<int64_t>(code >> 1);
  }
  words.wipe();
}

void sample_gaussian(Prng& prng, std::span<int64_t> out) {
  // Signs come from a separate word, 64 at a time: every bit of `draw` is
  // needed by the table, so none can double as the sign. Per value: a draw,
  // then a sign word whenever the previous one is used up.
  WordSource words(prng, out.size() + (out.size() + 63) / 64);
  uint64_t sign_bits = 0;
  std::size_t signs_left = 0;
  // Values go in chunks: the words are read in stream order first, then the
  // table lookups of kLanes values run side by side, since one value's 19
  // comparisons form a dependency chain that leaves the core idle.
  constexpr std::size_t kChunk = 256, kLanes = 4;
  std::array<uint64_t, kChunk> draws{}, signs{};
  for (std::size_t first = 0; first < out.size(); first += kChunk) {
    const std::size_t count = std::min(kChunk, out.size() - first);
    for (std::size_t i = 0; i < count; ++i) {
      draws[i] = words.next();
      if (signs_left == 0) {
        sign_bits = words.next();
        signs_left = 64;
      }
      signs[i] = sign_bits & 1;
      sign_bits >>= 1;
      --signs_left;
    }
    for (std::size_t i = count; i < (count + kLanes - 1) / kLanes * kLanes; ++i)
      draws[i] = signs[i] = 0;  // lanes past the end: computed, never stored
    for (std::size_t i = 0; i < count; i += kLanes) {
      // magnitude = #{thresholds <= draw} = 19 - #{thresholds > draw}. The
      // comparisons compile to cmp + adc (the borrow is added; no branch on
      // the draw), four independent chains in registers.
      const uint64_t d0 = draws[i], d1 = draws[i + 1], d2 = draws[i + 2], d3 = draws[i + 3];
      uint64_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
      for (uint64_t threshold : kGaussianCdt) {
        b0 += static_cast<uint64_t>(d0 < threshold);
        b1 += static_cast<uint64_t>(d1 < threshold);
        b2 += static_cast<uint64_t>(d2 < threshold);
        b3 += static_cast<uint64_t>(d3 < threshold);
      }
      const std::array<uint64_t, kLanes> below = {b0, b1, b2, b3};
      for (std::size_t lane = 0; lane < kLanes && i + lane < count; ++lane) {
        // Two's-complement negation when sign = 1: (m ^ -1) + 1 = -m.
        const uint64_t magnitude = kGaussianCdt.size() - below[lane];
        const uint64_t sign_mask = 0 - signs[i + lane];
        out[first + i + lane] = static_cast<int64_t>((magnitude ^ sign_mask) + signs[i + lane]);
      }
    }
  }
  // They determine the secret: a wipe the compiler may not drop.
  explicit_bzero(draws.data(), sizeof(draws));
  explicit_bzero(signs.data(), sizeof(signs));
}

void sample_uniform(Prng& prng, RnsPoly& out) {
  require_poly(out, "sample_uniform");
  // Draws are taken from the stream in blocks, but never more words than
  // values still missing, so exactly the same words are consumed as by one
  // next_u64() per draw: the stream position afterwards, and so every later
  // sample from this Prng, does not depend on the block size.
  constexpr std::size_t kBlock = 1024;
  std::array<uint64_t, kBlock> words{};
  for (std::size_t i = 0; i < out.tower_count(); ++i) {
    const math::Modulus& q = out.modulus(i);
    const int bits = q.bit_count();
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    // Sequential over towers so that the stream maps to values the same way
    // whatever the thread count.
    const std::span<uint64_t> tower = out.tower(i);
    std::size_t filled = 0;
    while (filled < tower.size()) {
      const std::size_t want = std::min(kBlock, tower.size() - filled);
      prng.fill(std::span<uint8_t>(reinterpret_cast<uint8_t*>(words.data()), want * 8));
      for (std::size_t k = 0; k < want; ++k) {
        const uint64_t candidate = words[k] & mask;  // little-endian words, as next_u64()
        tower[filled] = candidate;
        filled += static_cast<std::size_t>(candidate < q.value());
      }
    }
  }
}

void sample_ternary(Prng& prng, RnsPoly& out) {
  require_poly(out, "sample_ternary");
  WipedSigned values(out.degree());
  sample_ternary(prng, values.span());
  out.mark_secret();
  out.set_coefficients(values.span());
}

void sample_sparse_ternary(Prng& prng, std::size_t hamming_weight, RnsPoly& out) {
  require_poly(out, "sample_sparse_ternary");
  WipedSigned values(out.degree());
  sample_sparse_ternary(prng, hamming_weight, values.span());
  out.mark_secret();
  out.set_coefficients(values.span());
}

void sample_gaussian(Prng& prng, RnsPoly& out) {
  require_poly(out, "sample_gaussian");
  WipedSigned values(out.degree());
  sample_gaussian(prng, values.span());
  out.mark_secret();
  out.set_coefficients(values.span());
}

}  // namespace heft::ring
