// The payload codecs of heft's objects (docs/format.md), shared by the public
// save/load functions (serialization.cpp) and by the scheme layers: polynomial
// records, parameters, keys and ciphertexts written into / read from a
// payload, the limits used to refuse oversized frames, and the shapes of
// every save and load. The codecs live in serial_codecs.cpp (polynomials,
// parameters), serial_key_codecs.cpp and serial_ciphertext_codec.cpp.
// Internal to heft.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "heft/rlwe/serialization.hpp"
#include "rlwe/serial_bytes.hpp"
#include "rlwe/serial_frame.hpp"

namespace heft::rlwe::serial {

inline constexpr std::size_t kMaxCiphertextParts = 16;
// Keys of a set are loaded on separate threads only when each is at least
// this large: below it, waking the pool costs more than it saves.
inline constexpr std::size_t kParallelKeyBytes = std::size_t{1} << 20;
inline constexpr uint8_t kSeededFlag = 1;
inline constexpr uint8_t kNeedsRescaleFlag = 2;

// ---- small pieces (serial_codecs.cpp) ----

void wipe_bytes(Bytes& bytes);
std::size_t saturating_multiply(std::size_t a, std::size_t b);
void write_seed(ByteWriter& out, const ring::Prng::Seed& seed);
ring::Prng::Seed read_seed(ByteReader& in);
// A flags byte with no bits outside `allowed` (FormatError naming `what`).
uint8_t read_flags(ByteReader& in, uint8_t allowed, const char* what);
// 1 (CKKS/BFV keys) or t (BGV keys): the only error scales heft makes.
uint64_t read_error_scale(ByteReader& in, const Context& context, const char* what);
// A level given as a tower count: 1..L.
uint32_t read_tower_count(ByteReader& in, const Context& context, const char* what);
// FormatError naming `what` unless scale and slots pass
// detail::scale_and_slots_problem.
void require_loadable_scale_and_slots(const Context& context, double scale, uint64_t slots,
                                      const char* what);
// InvalidArgument ("save: ...") unless they do: save refuses what load would.
void require_saveable_scale_and_slots(const Context& context, double scale, uint64_t slots);

// ---- polynomial records (serial_codecs.cpp) ----

// Record: u8 form, u32 tower count, then each tower bit-packed to its prime's
// width.
void write_poly(ByteWriter& out, const ring::RnsPoly& poly);
std::size_t poly_record_bytes(const ring::PolyContext& ring, std::size_t towers);
ring::RnsPoly read_poly(ByteReader& in, const std::shared_ptr<const ring::PolyContext>& ring,
                        std::size_t towers, bool require_ntt, const char* what);

// ---- parameters (serial_codecs.cpp) ----

void write_parameters(ByteWriter& out, const Parameters& p);
Parameters read_parameters(ByteReader& in);
// A parameters object, decoded, validated and held to what the caller
// allows, all before any context is built: the hash must be the parameters'
// own, SecurityLevel::none needs LoadOptions::allow_insecure_parameters, and
// the context must fit LoadOptions::max_context_bytes.
Parameters read_parameters_object(std::span<const uint8_t> bytes, const LoadOptions& options,
                                  const char* operation);

// ---- keys (serial_key_codecs.cpp) ----

std::size_t max_switch_key_payload(const Context& context);
void write_switch_key(ByteWriter& out, const Context& context, const KeySwitchKey& key,
                      bool allow_seed);
KeySwitchKey read_switch_key(ByteReader& in, const ContextPtr& context);
RelinKey read_relin_key(ByteReader& in, const ContextPtr& context);
std::size_t max_public_key_payload(const Context& context);
void write_public_key(ByteWriter& out, const PublicKey& key, bool allow_seed);
PublicKey read_public_key(ByteReader& in, const ContextPtr& context);
std::size_t max_galois_payload(const Context& context);
void write_galois_keys(ByteWriter& out, const GaloisKeys& keys,
                       std::span<const uint64_t> galois_elements, bool allow_seed);
GaloisKeys read_galois_keys(ByteReader& in, const ContextPtr& context);

// ---- ciphertexts (serial_ciphertext_codec.cpp) ----

// Ciphertext payload (docs/format.md, "ciphertext"): c_1 is stored as its seed
// when `allow_seed` is set and ct.c1_seed still matches it.
void write_ciphertext(ByteWriter& out, const Context& context, const Ciphertext& ct,
                      bool allow_seed);
// The same payload for a seeded ciphertext (c_0 and the seed of c_1), with
// the metadata of a fresh encryption.
void write_seeded_ciphertext(ByteWriter& out, const Context& context,
                             const SeededCiphertext& ciphertext);
// The payload of `type` (ciphertext, or the BGV ciphertext of format
// versions 1 and 2) at format `version`.
Ciphertext read_ciphertext(ByteReader& in, const ContextPtr& context, ObjectType type,
                           uint16_t version);
// The largest ciphertext payload these parameters allow.
std::size_t max_ciphertext_payload(const Context& context);

// ---- the shapes of save and load ----

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

// The shape of every load: opens a frame of one of the `types` made under
// `context`'s parameters, at most max_payload(*context) bytes uncompressed,
// runs read(ByteReader&) on the payload (or read(ByteReader&, const
// Payload&), for a payload whose layout depends on the format version or the
// type) and checks that it consumed all of it.
template <typename Read>
auto load_object(const ContextPtr& context, std::span<const uint8_t> bytes,
                 std::span<const ObjectType> types, std::size_t (*max_payload)(const Context&),
                 const LoadOptions& options, Read&& read) {
  require_context(context, "load");
  const Payload payload = open_frame(bytes, types, parameter_hash(context->parameters()),
                                     max_payload(*context), options);
  ByteReader in(payload.bytes);
  auto object = [&] {
    if constexpr (std::is_invocable_v<Read&, ByteReader&, const Payload&>) {
      return read(in, payload);
    } else {
      return read(in);
    }
  }();
  in.expect_end(to_string(payload.type));
  return object;
}

template <typename Read>
auto load_object(const ContextPtr& context, std::span<const uint8_t> bytes, ObjectType type,
                 std::size_t (*max_payload)(const Context&), const LoadOptions& options,
                 Read&& read) {
  const ObjectType types[] = {type};
  return load_object(context, bytes, std::span<const ObjectType>(types), max_payload, options,
                     std::forward<Read>(read));
}

}  // namespace heft::rlwe::serial
