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
  std::size_t byte = 0;  // next unread byte of `in`
  uint64_t accumulator = 0;
  int available = 0;  // bits pending in the accumulator
  uint64_t too_large = 0;
  for (uint64_t& value : out) {
    if (available >= width) {
      value = accumulator & mask;
      accumulator = width == 64 ? 0 : accumulator >> width;
      available -= width;
    } else {
      // Load the next (up to) 8 bytes; the low `available` bits come first.
      uint64_t word = 0;
      const std::size_t take = std::min<std::size_t>(8, in.size() - byte);
      std::memcpy(&word, in.data() + byte, take);
      byte += take;
      const int loaded = static_cast<int>(take) * 8;
      value = (accumulator | (available == 64 ? 0 : word << available)) & mask;
      const int used = width - available;  // bits taken from `word`
      accumulator = used >= 64 ? 0 : word >> used;
      available = loaded - used;
    }
    too_large |= static_cast<uint64_t>(value >= bound);
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
