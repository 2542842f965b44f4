// Little-endian byte writer and bounds-checked reader for the serialization
// format, with the bit-packing of coefficients (docs/format.md).
//
// Bit packing: values of `width` bits are laid one after another, least
// significant bit first, into a stream of bytes; a run of N values takes
// exactly N * width / 8 bytes (N is a multiple of 8 in heft, so no padding).
//
// The reader never reads past its span: every read checks the remaining
// length first and throws heft::FormatError naming what was being read.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heft/util/memory_pool.hpp"

namespace heft::rlwe::serial {

class ByteWriter {
 public:
  void u8(uint8_t value) { bytes_.push_back(value); }
  void u16(uint16_t value) { little_endian(value, 2); }
  void u32(uint32_t value) { little_endian(value, 4); }
  void u64(uint64_t value) { little_endian(value, 8); }
  void f64(double value);
  void bytes(std::span<const uint8_t> data);
  // Appends values.size() * width / 8 bytes; every value must be < 2^width,
  // values.size() a multiple of 8, width in [1, 64].
  void packed(std::span<const uint64_t> values, int width);

  // Makes room for `count` more bytes at once (large objects would otherwise
  // be copied as the buffer doubles).
  // Grows geometrically, so repeated calls stay linear overall; a large
  // buffer is marked for huge pages before it is written.
  void reserve_more(std::size_t count) {
    if (bytes_.capacity() - bytes_.size() < count) {
      bytes_.reserve(std::max(bytes_.size() + count, 2 * bytes_.capacity()));
      advise_huge_pages(bytes_.data(), bytes_.capacity());
    }
  }

  [[nodiscard]] std::vector<uint8_t>& buffer() noexcept { return bytes_; }

 private:
  void little_endian(uint64_t value, int count);
  std::vector<uint8_t> bytes_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data) : data_(data) {}

  uint8_t u8(const char* what);
  uint16_t u16(const char* what) { return static_cast<uint16_t>(little_endian(2, what)); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(little_endian(4, what)); }
  uint64_t u64(const char* what) { return little_endian(8, what); }
  double f64(const char* what);
  std::span<const uint8_t> bytes(std::size_t count, const char* what);
  // Reads out.size() values of `width` bits (out.size() a multiple of 8);
  // throws FormatError if one is >= bound.
  void packed(std::span<uint64_t> out, int width, uint64_t bound, const char* what);

  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - position_; }
  // The unread bytes, without consuming them.
  [[nodiscard]] std::span<const uint8_t> rest() const noexcept { return data_.subspan(position_); }
  // Throws FormatError unless every byte was consumed.
  void expect_end(const char* what) const;

 private:
  uint64_t little_endian(int count, const char* what);
  void require(std::size_t count, const char* what) const;
  std::span<const uint8_t> data_;
  std::size_t position_ = 0;
};

// Bytes taken by `count` values of `width` bits.
constexpr std::size_t packed_bytes(std::size_t count, int width) {
  return count * static_cast<std::size_t>(width) / 8;
}

}  // namespace heft::rlwe::serial
