// The frame around every serialized object (docs/format.md): header, payload
// (optionally zstd-compressed) and checksum. Building and opening frames is
// all this file knows; what a payload holds is serialization.cpp's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/rlwe/serialization.hpp"
#include "rlwe/serial_bytes.hpp"

namespace heft::rlwe::serial {

// Written: kFormatVersion. Read: kOldestFormatVersion to kFormatVersion.
// Version 2 added the noise estimate to BGV ciphertexts; version 3 gave every
// ciphertext one metadata record (BGV's correction factor and noise estimate
// beside CKKS's scale and slots) and writes BGV ciphertexts as plain
// ciphertexts (docs/format.md). Every other payload is the same in all three.
inline constexpr uint16_t kFormatVersion = 3;
inline constexpr uint16_t kOldestFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 64;
inline constexpr std::size_t kChecksumBytes = 8;

// Frames are written in place: start_frame() gives a writer whose buffer
// begins with room for the header; write the payload into it, then
// finish_frame() fills the header and appends the checksum (compressing the
// payload first if the options ask, and wiping the uncompressed copy).
ByteWriter start_frame();
Bytes finish_frame(ByteWriter&& writer, ObjectType type, const ParameterHash& hash,
                   const SaveOptions& options);
// The same for a payload already in a buffer.
Bytes make_frame(ObjectType type, const ParameterHash& hash, std::span<const uint8_t> payload,
                 const SaveOptions& options);

// An opened frame's payload: a view into the loaded bytes, or into `owned`
// when it had to be decompressed.
struct Payload {
  Bytes owned;
  std::span<const uint8_t> bytes;
  uint16_t version = kFormatVersion;  // of the frame
  ObjectType type{};                  // of the frame: one of those asked for
};

// Checks magic, version, lengths, checksum, type, compression and reserved
// bytes, and the payload size against options.max_bytes; returns the header.
ObjectInfo require_valid_frame(std::span<const uint8_t> bytes, const LoadOptions& options);

// require_valid_frame, then: the type must be one of `expected` (the first names
// what was expected in the error), the hash `hash` (else MismatchError), the
// uncompressed payload at most `max_payload` bytes. Returns the uncompressed
// payload.
Payload open_frame(std::span<const uint8_t> bytes, std::span<const ObjectType> expected,
                   const ParameterHash& hash, std::size_t max_payload, const LoadOptions& options);
Payload open_frame(std::span<const uint8_t> bytes, ObjectType expected, const ParameterHash& hash,
                   std::size_t max_payload, const LoadOptions& options);

}  // namespace heft::rlwe::serial
