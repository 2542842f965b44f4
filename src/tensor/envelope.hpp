// The container the tensor layer saves its objects in: a short header of
// its own (magic, version, a few fixed-width fields, little-endian) followed
// by frames of heft's rlwe serialization, each self-delimiting
// (docs/format.md, "Tensor objects"). Reading checks every field it takes
// and throws FormatError on short or malformed input.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "heft/rlwe/serialization.hpp"
#include "heft/util/error.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft::tensor::detail {

using Magic = std::array<char, 8>;

class EnvelopeWriter {
 public:
  EnvelopeWriter(const Magic& magic, uint16_t version) {
    bytes_.insert(bytes_.end(), magic.begin(), magic.end());
    u16(version);
  }
  void u8(uint8_t value) { bytes_.push_back(value); }
  void u16(uint16_t value) { little_endian(value, 2); }
  void u64(uint64_t value) { little_endian(value, 8); }
  void f64(double value) { u64(std::bit_cast<uint64_t>(value)); }
  void frame(const rlwe::Bytes& frame) {
    if (bytes_.capacity() - bytes_.size() < frame.size()) {
      // Geometric growth: a tensor is hundreds of frames, each would
      // otherwise copy all before it.
      bytes_.reserve(std::max(bytes_.size() + frame.size() + 1024, 2 * bytes_.capacity()));
      advise_huge_pages(bytes_.data(), bytes_.capacity());
    }
    bytes_.insert(bytes_.end(), frame.begin(), frame.end());
  }
  [[nodiscard]] rlwe::Bytes take() { return std::move(bytes_); }

 private:
  void little_endian(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
      bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }
  rlwe::Bytes bytes_;
};

// Reads in place: frames are views into the bytes given, which must outlive
// the reader and what it returns.
class EnvelopeReader {
 public:
  // FormatError naming `what` unless the bytes start with `magic` and
  // `version`.
  EnvelopeReader(std::span<const uint8_t> bytes, const Magic& magic, uint16_t version,
                 const char* what)
      : bytes_(bytes), what_(what) {
    Magic found{};
    std::memcpy(found.data(), take(found.size()).data(), found.size());
    if (found != magic) fail("not a saved " + std::string(what_) + " (wrong magic)");
    if (u16() != version) fail("unsupported version");
  }
  uint8_t u8() { return static_cast<uint8_t>(little_endian(1)); }
  uint16_t u16() { return static_cast<uint16_t>(little_endian(2)); }
  uint64_t u64() { return little_endian(8); }
  double f64() { return std::bit_cast<double>(u64()); }
  // One rlwe frame, its length from its header (the loaders check the rest).
  std::span<const uint8_t> frame(const rlwe::LoadOptions& options) {
    const std::span<const uint8_t> rest = bytes_.subspan(at_);
    std::size_t size = 0;
    try {
      size = rlwe::object_size(rest, options);
    } catch (const FormatError& e) {
      fail(e.what());
    }
    return take(size);
  }
  // FormatError unless every byte was read.
  void finish() {
    if (at_ != bytes_.size()) fail("trailing bytes");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw FormatError("load " + std::string(what_) + ": " + why);
  }

 private:
  std::span<const uint8_t> take(std::size_t count) {
    if (count > bytes_.size() - at_) fail("truncated");
    const auto out = bytes_.subspan(at_, count);
    at_ += count;
    return out;
  }
  uint64_t little_endian(int bytes) {
    const auto raw = take(static_cast<std::size_t>(bytes));
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
      value |= static_cast<uint64_t>(raw[static_cast<std::size_t>(i)]) << (8 * i);
    return value;
  }

  std::span<const uint8_t> bytes_;
  std::size_t at_ = 0;
  const char* what_;
};

}  // namespace heft::tensor::detail
