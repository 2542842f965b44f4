// Frames: header layout, SHA-256 checksum, zstd, and the checks made on load.
#include "rlwe/serial_frame.hpp"

#include <openssl/evp.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <istream>
#include <ostream>
#include <string>

#include "heft/util/error.hpp"
#include "rlwe/serial_bytes.hpp"

namespace heft::rlwe::serial {
namespace {

constexpr std::array<uint8_t, 4> kMagic = {'H', 'E', 'F', 'T'};
constexpr uint16_t kLastObjectType = static_cast<uint16_t>(ObjectType::key_set);

// The first 8 bytes of SHA-256 over header and stored payload.
std::array<uint8_t, kChecksumBytes> checksum(std::span<const uint8_t> header_and_payload) {
  std::array<uint8_t, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(header_and_payload.data(), header_and_payload.size(), digest.data(), &length,
                 EVP_sha256(), nullptr) != 1) {
    throw Error("serialization: SHA-256 failed in OpenSSL");
  }
  std::array<uint8_t, kChecksumBytes> out{};
  std::memcpy(out.data(), digest.data(), kChecksumBytes);
  return out;
}

// Fills the first kHeaderBytes of `frame`; the stored payload follows them.
void write_header(Bytes& frame, ObjectType type, const ParameterHash& hash, Compression compression,
                  uint64_t payload_bytes) {
  ByteWriter header;
  header.bytes(kMagic);
  header.u16(kFormatVersion);
  header.u16(static_cast<uint16_t>(type));
  header.u8(static_cast<uint8_t>(compression));
  for (int i = 0; i < 7; ++i)
    header.u8(0);
  header.bytes(hash);
  header.u64(frame.size() - kHeaderBytes);
  header.u64(payload_bytes);
  std::memcpy(frame.data(), header.buffer().data(), kHeaderBytes);
}

// The header fields, read without any check beyond the length.
struct RawHeader {
  std::array<uint8_t, 4> magic{};
  uint16_t version = 0;
  uint16_t type = 0;
  uint8_t compression = 0;
  std::array<uint8_t, 7> reserved{};
  ParameterHash hash{};
  uint64_t stored_bytes = 0;
  uint64_t payload_bytes = 0;
};

RawHeader parse_header(std::span<const uint8_t> header) {
  ByteReader in(header.first(kHeaderBytes));
  RawHeader h;
  std::memcpy(h.magic.data(), in.bytes(4, "magic").data(), 4);
  h.version = in.u16("version");
  h.type = in.u16("object type");
  h.compression = in.u8("compression");
  std::memcpy(h.reserved.data(), in.bytes(7, "reserved").data(), 7);
  std::memcpy(h.hash.data(), in.bytes(32, "parameter hash").data(), 32);
  h.stored_bytes = in.u64("stored length");
  h.payload_bytes = in.u64("payload length");
  return h;
}

// The checks that need only the header (shared by require_valid_frame and read_object).
void require_known_header_start(const RawHeader& h) {
  if (h.magic != kMagic) throw FormatError("not a heft object (bad magic bytes)");
  if (h.version < kOldestFormatVersion || h.version > kFormatVersion) {
    throw FormatError("heft format version " + std::to_string(h.version) +
                      " is not supported: this build reads versions " +
                      std::to_string(kOldestFormatVersion) + " to " +
                      std::to_string(kFormatVersion));
  }
}

// zstd's output may exceed its input a little on incompressible data.
uint64_t max_stored_bytes(uint64_t payload_limit) {
  return payload_limit + payload_limit / 128 + 4096;
}

// The largest zstd window (log2) a frame of `payload_bytes` needs:
// ZSTD_compress of a known size never declares one above the size rounded up
// to a power of two, nor below zstd's minimum of 2^10 (its limit on 64-bit
// builds is 2^31).
int window_log_bound(std::size_t payload_bytes) {
  const int needed = payload_bytes <= 1 ? 0 : std::bit_width(payload_bytes - 1);
  return std::clamp(needed, 10, 31);
}

Bytes decompress(std::span<const uint8_t> stored, std::size_t payload_bytes) {
  // A zstd frame's header says how much it will produce and how large a
  // window the decoder must allocate; a forged one can ask for a 128 MiB
  // window to make a few bytes. Its declared size must be the heft header's,
  // and the window is bounded by that size, before zstd allocates anything.
  const unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) {
    throw FormatError("compressed payload does not start with a zstd frame header");
  }
  if (declared != payload_bytes) {
    throw FormatError("compressed payload's zstd frame does not declare the " +
                      std::to_string(payload_bytes) + " bytes its heft header says");
  }
  ZSTD_DCtx* context = ZSTD_createDCtx();
  if (context == nullptr) throw Error("serialization: zstd could not allocate a context");
  // zstd refuses (frameParameter_windowTooLarge) a larger window in this
  // frame or any later one of the stream.
  const std::size_t set =
      ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, window_log_bound(payload_bytes));
  if (ZSTD_isError(set)) {
    ZSTD_freeDCtx(context);
    throw Error("serialization: zstd refused its window bound");
  }
  Bytes out;
  // Grown as data actually comes out, so a small forged input cannot make
  // us allocate the whole declared size up front.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  ZSTD_inBuffer input{stored.data(), stored.size(), 0};
  std::size_t status = 1;
  while (status != 0 || input.pos < input.size) {
    if (out.size() == payload_bytes) {
      ZSTD_freeDCtx(context);
      throw FormatError("compressed payload is longer than its header says");
    }
    const std::size_t produced = out.size();
    out.resize(std::min(payload_bytes, produced + kChunk));
    ZSTD_outBuffer output{out.data() + produced, out.size() - produced, 0};
    status = ZSTD_decompressStream(context, &output, &input);
    out.resize(produced + output.pos);
    if (ZSTD_isError(status)) {
      const std::string reason = ZSTD_getErrorName(status);
      ZSTD_freeDCtx(context);
      if (ZSTD_getErrorCode(status) == ZSTD_error_frameParameter_windowTooLarge) {
        throw FormatError("compressed payload asks for a zstd window larger than its " +
                          std::to_string(payload_bytes) + " bytes need");
      }
      throw FormatError("compressed payload is corrupt (zstd: " + reason + ")");
    }
    if (status != 0 && output.pos == 0 && input.pos == input.size) {
      ZSTD_freeDCtx(context);
      throw FormatError("compressed payload is truncated");
    }
  }
  ZSTD_freeDCtx(context);
  if (out.size() != payload_bytes) {
    throw FormatError("compressed payload holds " + std::to_string(out.size()) +
                      " bytes, its header says " + std::to_string(payload_bytes));
  }
  return out;
}

}  // namespace

ByteWriter start_frame() {
  ByteWriter writer;
  writer.buffer().resize(kHeaderBytes);
  return writer;
}

Bytes finish_frame(ByteWriter&& writer, ObjectType type, const ParameterHash& hash,
                   const SaveOptions& options) {
  Bytes& frame = writer.buffer();
  if (frame.size() < kHeaderBytes) throw Error("finish_frame: the writer lost its header room");
  if (options.compression == Compression::zstd) {
    if (options.zstd_level < 1 || options.zstd_level > ZSTD_maxCLevel()) {
      throw InvalidArgument("SaveOptions::zstd_level must be in [1, " +
                            std::to_string(ZSTD_maxCLevel()) + "]");
    }
    const std::span<const uint8_t> payload = std::span<const uint8_t>(frame).subspan(kHeaderBytes);
    Bytes compressed(kHeaderBytes + ZSTD_compressBound(payload.size()) + kChecksumBytes);
    const std::size_t size =
        ZSTD_compress(compressed.data() + kHeaderBytes, compressed.size() - kHeaderBytes,
                      payload.data(), payload.size(), options.zstd_level);
    if (ZSTD_isError(size)) {
      throw Error(std::string("serialization: zstd failed: ") + ZSTD_getErrorName(size));
    }
    if (size < payload.size()) {
      compressed.resize(kHeaderBytes + size);
      const uint64_t payload_bytes = payload.size();
      // The uncompressed copy may hold a secret key: leave nothing behind.
      explicit_bzero(frame.data(), frame.size());
      frame = std::move(compressed);
      write_header(frame, type, hash, Compression::zstd, payload_bytes);
    } else {
      // Bit-packed uniform residues do not compress: store them as they are
      // rather than pay for decompression on every load.
      explicit_bzero(compressed.data(), compressed.size());
      write_header(frame, type, hash, Compression::none, frame.size() - kHeaderBytes);
    }
  } else if (options.compression == Compression::none) {
    write_header(frame, type, hash, options.compression, frame.size() - kHeaderBytes);
  } else {
    throw InvalidArgument("SaveOptions::compression is not a known method");
  }
  const auto sum = checksum(frame);
  writer.bytes(sum);
  return std::move(frame);
}

Bytes make_frame(ObjectType type, const ParameterHash& hash, std::span<const uint8_t> payload,
                 const SaveOptions& options) {
  ByteWriter writer = start_frame();
  writer.bytes(payload);
  return finish_frame(std::move(writer), type, hash, options);
}

ObjectInfo require_valid_frame(std::span<const uint8_t> bytes, const LoadOptions& options) {
  if (bytes.size() < kHeaderBytes + kChecksumBytes) {
    throw FormatError("truncated heft object: " + std::to_string(bytes.size()) +
                      " bytes, the smallest is " + std::to_string(kHeaderBytes + kChecksumBytes));
  }
  const RawHeader h = parse_header(bytes);
  require_known_header_start(h);
  const std::size_t stored_available = bytes.size() - kHeaderBytes - kChecksumBytes;
  if (h.stored_bytes != stored_available) {
    throw FormatError("heft object length mismatch: the header announces " +
                      std::to_string(h.stored_bytes) + " payload bytes, " +
                      std::to_string(stored_available) +
                      " are present (truncated, or trailing bytes)");
  }
  const auto expected_sum = checksum(bytes.first(bytes.size() - kChecksumBytes));
  if (!std::equal(expected_sum.begin(), expected_sum.end(), bytes.end() - kChecksumBytes)) {
    throw FormatError("heft object checksum mismatch: the data is corrupted");
  }
  if (h.type == 0 || h.type > kLastObjectType) {
    throw FormatError("unknown heft object type " + std::to_string(h.type));
  }
  if (h.compression > static_cast<uint8_t>(Compression::zstd)) {
    throw FormatError("unknown compression method " + std::to_string(h.compression));
  }
  if (std::any_of(h.reserved.begin(), h.reserved.end(), [](uint8_t b) { return b != 0; })) {
    throw FormatError("reserved header bytes are not zero (a newer format?)");
  }
  const auto compression = static_cast<Compression>(h.compression);
  if (compression == Compression::none && h.payload_bytes != h.stored_bytes) {
    throw FormatError("uncompressed object whose payload and stored lengths differ");
  }
  if (h.payload_bytes > options.max_bytes) {
    throw InvalidArgument("heft object of " + std::to_string(h.payload_bytes) +
                          " bytes exceeds LoadOptions::max_bytes (" +
                          std::to_string(options.max_bytes) + "): raise it to accept it");
  }
  ObjectInfo info;
  info.type = static_cast<ObjectType>(h.type);
  info.version = h.version;
  info.compression = compression;
  info.parameter_hash = h.hash;
  info.stored_bytes = h.stored_bytes;
  info.payload_bytes = h.payload_bytes;
  return info;
}

Payload open_frame(std::span<const uint8_t> bytes, ObjectType expected, const ParameterHash& hash,
                   std::size_t max_payload, const LoadOptions& options) {
  const ObjectType types[] = {expected};
  return open_frame(bytes, types, hash, max_payload, options);
}

Payload open_frame(std::span<const uint8_t> bytes, std::span<const ObjectType> expected,
                   const ParameterHash& hash, std::size_t max_payload, const LoadOptions& options) {
  const ObjectInfo info = require_valid_frame(bytes, options);
  if (std::find(expected.begin(), expected.end(), info.type) == expected.end()) {
    throw FormatError(std::string("expected a heft ") + to_string(expected.front()) +
                      " object, got a " + to_string(info.type));
  }
  if (info.parameter_hash != hash) {
    throw MismatchError(std::string("the ") + to_string(info.type) +
                        " was made under other parameters than this context's");
  }
  if (info.payload_bytes > max_payload) {
    throw FormatError(std::string("the ") + to_string(info.type) + " announces " +
                      std::to_string(info.payload_bytes) +
                      " bytes, more than any such object of these parameters (" +
                      std::to_string(max_payload) + ")");
  }
  const auto stored = bytes.subspan(kHeaderBytes, info.stored_bytes);
  Payload payload;
  payload.version = info.version;
  payload.type = info.type;
  if (info.compression == Compression::zstd) {
    payload.owned = decompress(stored, info.payload_bytes);
    payload.bytes = payload.owned;
  } else {
    payload.bytes = stored;
  }
  return payload;
}

}  // namespace heft::rlwe::serial

namespace heft::rlwe {

const char* to_string(ObjectType type) noexcept {
  switch (type) {
    case ObjectType::parameters:
      return "parameters";
    case ObjectType::secret_key:
      return "secret key";
    case ObjectType::public_key:
      return "public key";
    case ObjectType::switch_key:
      return "key-switching key";
    case ObjectType::relin_key:
      return "relinearization key";
    case ObjectType::galois_keys:
      return "Galois key set";
    case ObjectType::plaintext:
      return "plaintext";
    case ObjectType::ciphertext:
      return "ciphertext";
    case ObjectType::integer_plaintext:
      return "integer plaintext";
    case ObjectType::bgv_ciphertext:
      return "BGV ciphertext";
    case ObjectType::key_set:
      return "key set";
  }
  return "unknown object";
}

ObjectInfo inspect(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return serial::require_valid_frame(bytes, options);
}

void write_object(std::ostream& out, std::span<const uint8_t> bytes) {
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error("write_object: the stream refused the data");
}

namespace {

// The header of a frame about to be read whole: known, and within the size
// limit (InvalidArgument naming `operation` above it).
serial::RawHeader header_within_limit(std::span<const uint8_t> header, const LoadOptions& options,
                                      const char* operation) {
  const serial::RawHeader h = serial::parse_header(header);
  serial::require_known_header_start(h);
  if (h.stored_bytes > serial::max_stored_bytes(options.max_bytes)) {
    throw InvalidArgument(
        std::string(operation) + ": a heft object of " + std::to_string(h.stored_bytes) +
        " stored bytes exceeds LoadOptions::max_bytes (" + std::to_string(options.max_bytes) + ")");
  }
  return h;
}

}  // namespace

std::size_t object_size(std::span<const uint8_t> bytes, const LoadOptions& options) {
  using namespace serial;
  if (bytes.size() < kHeaderBytes) throw FormatError("truncated data: a heft object header");
  const RawHeader h = header_within_limit(bytes, options, "object_size");
  const uint64_t size = kHeaderBytes + h.stored_bytes + kChecksumBytes;
  if (size > bytes.size()) throw FormatError("truncated data: a heft object");
  return static_cast<std::size_t>(size);
}

Bytes read_object(std::istream& in, const LoadOptions& options) {
  using namespace serial;
  Bytes bytes(kHeaderBytes);
  in.read(reinterpret_cast<char*>(bytes.data()), kHeaderBytes);
  if (in.gcount() != static_cast<std::streamsize>(kHeaderBytes)) {
    throw FormatError("read_object: the stream ended inside a heft object header");
  }
  const RawHeader h = header_within_limit(bytes, options, "read_object");
  // Read in chunks so that memory follows the data actually present, not
  // what a forged header announces.
  std::size_t left = h.stored_bytes + kChecksumBytes;
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  while (left > 0) {
    const std::size_t take = std::min(left, kChunk);
    const std::size_t at = bytes.size();
    bytes.resize(at + take);
    in.read(reinterpret_cast<char*>(bytes.data() + at), static_cast<std::streamsize>(take));
    if (in.gcount() != static_cast<std::streamsize>(take)) {
      throw FormatError("read_object: the stream ended inside a heft object");
    }
    left -= take;
  }
  require_valid_frame(bytes, options);
  return bytes;
}

}  // namespace heft::rlwe
