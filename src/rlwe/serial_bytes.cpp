// Byte writer/reader and coefficient bit-packing (see serial_bytes.hpp).
#include "rlwe/serial_bytes.hpp"

#include <bit>
#include <cstring>

#include "heft/util/error.hpp"

namespace heft::rlwe::serial {

void ByteWriter::little_endian(uint64_t value, int count) {
  for (int i = 0; i < count; ++i)
    bytes_.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void ByteWriter::bytes(std::span<const uint8_t> data) {
  const std::size_t at = bytes_.size();
  bytes_.resize(at + data.size());
  if (!data.empty()) std::memcpy(bytes_.data() + at, data.data(), data.size());
}

void ByteWriter::f64(double value) {
  u64(std::bit_cast<uint64_t>(value));
}

void ByteWriter::packed(std::span<const uint64_t> values, int width) {
  const std::size_t begin = bytes_.size();
  bytes_.resize(begin + packed_bytes(values.size(), width));
  uint8_t* out = bytes_.data() + begin;
  // A 64-bit accumulator holds `filled` pending bits; full words go out whole.
  uint64_t accumulator = 0;
  int filled = 0;
  for (const uint64_t value : values) {
    accumulator |= value << filled;
    if (filled + width < 64) {
      filled += width;
      continue;
    }
    std::memcpy(out, &accumulator, 8);  // little-endian host (x86-64)
    out += 8;
    const int used = 64 - filled;  // bits of `value` that fitted
    accumulator = used == 64 ? 0 : value >> used;
    filled = width - used;
  }
  std::memcpy(out, &accumulator, static_cast<std::size_t>((filled + 7) / 8));
}

void ByteReader::require(std::size_t count, const char* what) const {
  if (count > remaining()) {
    throw FormatError("truncated data: " + std::string(what) + " needs " + std::to_string(count) +
                      " bytes, " + std::to_string(remaining()) + " left");
  }
}

uint8_t ByteReader::u8(const char* what) {
  require(1, what);
  return data_[position_++];
}

uint64_t ByteReader::little_endian(int count, const char* what) {
  require(static_cast<std::size_t>(count), what);
  uint64_t value = 0;
  for (int i = 0; i < count; ++i)
    value |= static_cast<uint64_t>(data_[position_ + i]) << (8 * i);
  position_ += static_cast<std::size_t>(count);
  return value;
}

double ByteReader::f64(const char* what) {
  return std::bit_cast<double>(u64(what));
}

std::span<const uint8_t> ByteReader::bytes(std::size_t count, const char* what) {
  require(count, what);
  const auto out = data_.subspan(position_, count);
  position_ += count;
  return out;
}

void ByteReader::packed(std::span<uint64_t> out, int width, uint64_t bound, const char* what) {
  const std::span<const uint8_t> in = bytes(packed_bytes(out.size(), width), what);
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t too_large = 0;
  std::size_t i = 0;
  if (width <= 57) {
    // Value i starts at bit i * width: one unaligned 8-byte load covers it
    // (bit offset within the byte <= 7, 7 + 57 <= 64). Stop while 8 bytes
    // remain readable; the tail takes the general path below.
    const std::size_t direct = in.size() >= 8 ? ((in.size() - 8) * 8) / width + 1 : 0;
    for (; i < std::min(direct, out.size()); ++i) {
      const std::size_t bit = i * static_cast<std::size_t>(width);
      uint64_t word;
      std::memcpy(&word, in.data() + bit / 8, 8);  // little-endian host (x86-64)
      out[i] = (word >> (bit % 8)) & mask;
      too_large |= static_cast<uint64_t>(out[i] >= bound);
    }
  }
  // General path: bit by bit through a 128-bit window.
  for (; i < out.size(); ++i) {
    const std::size_t bit = i * static_cast<std::size_t>(width);
    const std::size_t first = bit / 8;
    const std::size_t last = (bit + static_cast<std::size_t>(width) - 1) / 8;
    unsigned __int128 window = 0;
    for (std::size_t b = last + 1; b-- > first;)
      window = (window << 8) | in[b];
    out[i] = static_cast<uint64_t>(window >> (bit % 8)) & mask;
    too_large |= static_cast<uint64_t>(out[i] >= bound);
  }
  if (too_large != 0) {
    throw FormatError(std::string(what) + ": a coefficient is not below its modulus");
  }
}

void ByteReader::expect_end(const char* what) const {
  if (remaining() != 0) {
    throw FormatError(std::string(what) + ": " + std::to_string(remaining()) +
                      " unexpected bytes after the end of the object");
  }
}

}  // namespace heft::rlwe::serial
