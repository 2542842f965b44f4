// The payload codecs that scheme layers reuse for their own objects (a BGV
// ciphertext is an RLWE ciphertext plus a correction factor): polynomials and
// ciphertexts written into / read from a payload, and the limits used to
// refuse oversized frames. Internal to heft.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "heft/rlwe/serialization.hpp"
#include "rlwe/serial_bytes.hpp"
#include "rlwe/serial_frame.hpp"

namespace heft::rlwe::serial {

// Ciphertext payload (docs/format.md, "ciphertext"): c_1 is stored as its seed
// when `allow_seed` is set and ct.c1_seed still matches it.
void write_ciphertext(ByteWriter& out, const Context& context, const Ciphertext& ct,
                      bool allow_seed);
Ciphertext read_ciphertext(ByteReader& in, const ContextPtr& context);
// The largest ciphertext payload these parameters allow.
std::size_t max_ciphertext_payload(const Context& context);

// Throws MismatchError unless `context` is set (for load_* entry points).
void require_context(const ContextPtr& context, const char* operation);

// The shape of every save: a frame of `type` under `context`'s parameters
// whose payload write(ByteWriter&) produces.
template <typename Write>
Bytes save_object(ObjectType type, const Context& context, const SaveOptions& options,
                  Write&& write) {
  ByteWriter payload = start_frame();
  write(payload);
  return finish_frame(std::move(payload), type, parameter_hash(context.parameters()), options);
}

// The shape of every load: opens a frame of `type` made under `context`'s
// parameters, at most max_payload(*context) bytes uncompressed, runs
// read(ByteReader&) on the payload (or read(ByteReader&, version), for a
// payload whose layout changed between format versions) and checks that it
// consumed all of it.
template <typename Read>
auto load_object(const ContextPtr& context, std::span<const uint8_t> bytes, ObjectType type,
                 std::size_t (*max_payload)(const Context&), const LoadOptions& options,
                 Read&& read) {
  require_context(context, "load");
  const Payload payload = open_frame(bytes, type, parameter_hash(context->parameters()),
                                     max_payload(*context), options);
  ByteReader in(payload.bytes);
  auto object = [&] {
    if constexpr (std::is_invocable_v<Read&, ByteReader&, uint16_t>) {
      return read(in, payload.version);
    } else {
      return read(in);
    }
  }();
  in.expect_end(to_string(type));
  return object;
}

}  // namespace heft::rlwe::serial
