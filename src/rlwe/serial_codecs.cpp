// Payload codecs, the small pieces: polynomial records, seeds, flags, error
// scales, levels and scales as the format stores them, and parameter sets
// (the canonical encoding hashed into every frame). The layouts are
// documented field by field in docs/format.md.
#include <cmath>
#include <cstring>
#include <string>

#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft::rlwe::serial {

void wipe_bytes(Bytes& bytes) {
  if (!bytes.empty()) explicit_bzero(bytes.data(), bytes.size());
}

// --- polynomials -----------------------------------------------------------

// Record: u8 form, u32 tower count, then each tower bit-packed to its prime's
// width.
void write_poly(ByteWriter& out, const ring::RnsPoly& poly) {
  out.u8(poly.is_ntt() ? 1 : 0);
  out.u32(static_cast<uint32_t>(poly.tower_count()));
  for (std::size_t i = 0; i < poly.tower_count(); ++i)
    out.packed(poly.tower(i), poly.modulus(i).bit_count());
}

std::size_t poly_record_bytes(const ring::PolyContext& ring, std::size_t towers) {
  std::size_t bytes = 5;
  for (std::size_t i = 0; i < towers; ++i)
    bytes += packed_bytes(ring.degree(), ring.modulus(i).bit_count());
  return bytes;
}

ring::RnsPoly read_poly(ByteReader& in, const std::shared_ptr<const ring::PolyContext>& ring,
                        std::size_t towers, bool require_ntt, const char* what) {
  const uint8_t form = in.u8(what);
  if (form > 1)
    throw FormatError(std::string(what) + ": unknown polynomial form " + std::to_string(form));
  if (require_ntt && form != 1) throw FormatError(std::string(what) + ": must be in NTT form");
  const uint32_t count = in.u32(what);
  if (count != towers) {
    throw FormatError(std::string(what) + ": has " + std::to_string(count) + " towers, expected " +
                      std::to_string(towers));
  }
  // Check the length before allocating.
  if (in.remaining() < poly_record_bytes(*ring, towers) - 5) {
    throw FormatError(std::string("truncated data: ") + what);
  }
  // Every value is read below (a throw discards the polynomial unread): no
  // zeroing first.
  ring::RnsPoly poly = ring::RnsPoly::uninitialized(
      ring, towers, form == 1 ? ring::Form::ntt : ring::Form::coefficient);
  for (std::size_t i = 0; i < towers; ++i)
    in.packed(poly.tower(i), poly.modulus(i).bit_count(), poly.modulus(i).value(), what);
  return poly;
}

// --- helpers ---------------------------------------------------------------

std::size_t saturating_multiply(std::size_t a, std::size_t b) {
  if (a != 0 && b > SIZE_MAX / a) return SIZE_MAX;
  return a * b;
}

void write_seed(ByteWriter& out, const ring::Prng::Seed& seed) {
  out.bytes(seed);
}

ring::Prng::Seed read_seed(ByteReader& in) {
  ring::Prng::Seed seed{};
  const auto bytes = in.bytes(seed.size(), "seed");
  std::memcpy(seed.data(), bytes.data(), seed.size());
  return seed;
}

uint8_t read_flags(ByteReader& in, uint8_t allowed, const char* what) {
  const uint8_t flags = in.u8(what);
  if ((flags & ~allowed) != 0) {
    throw FormatError(std::string(what) + ": unknown flag bits " + std::to_string(flags));
  }
  return flags;
}

// 1 (CKKS/BFV keys) or t (BGV keys) are the only error scales heft makes.
uint64_t read_error_scale(ByteReader& in, const Context& context, const char* what) {
  const uint64_t scale = in.u64(what);
  const uint64_t t = context.parameters().plain_modulus;
  if (scale != 1 && (t == 0 || scale != t)) {
    throw FormatError(std::string(what) + ": error scale " + std::to_string(scale) +
                      " is neither 1 nor the plaintext modulus");
  }
  return scale;
}

// --- parameters ------------------------------------------------------------

void write_parameters(ByteWriter& out, const Parameters& p) {
  out.u64(p.degree);
  out.u32(static_cast<uint32_t>(p.ciphertext_moduli.size()));
  out.u32(static_cast<uint32_t>(p.special_moduli.size()));
  for (uint64_t q : p.ciphertext_moduli)
    out.u64(q);
  for (uint64_t q : p.special_moduli)
    out.u64(q);
  out.u32(static_cast<uint32_t>(p.ciphertext_moduli.empty() ? 0 : p.digit_count()));
  out.u8(static_cast<uint8_t>(p.secret.kind));
  out.u64(p.secret.hamming_weight);
  out.u8(static_cast<uint8_t>(p.security));
  out.f64(p.scale == 0 ? 0.0 : p.scale);  // one encoding of zero (not -0.0)
  out.u64(p.plain_modulus);
}

Parameters read_parameters(ByteReader& in) {
  Parameters p;
  p.degree = in.u64("degree");
  const uint32_t levels = in.u32("prime count");
  const uint32_t specials = in.u32("special prime count");
  // Checked before the primes are read: the counts alone could ask for 2^33.
  if (std::size_t{levels} + specials > kMaxPrimeCount) {
    throw FormatError("parameters: more than " + std::to_string(kMaxPrimeCount) + " primes");
  }
  for (uint32_t i = 0; i < levels; ++i)
    p.ciphertext_moduli.push_back(in.u64("ciphertext prime"));
  for (uint32_t i = 0; i < specials; ++i)
    p.special_moduli.push_back(in.u64("special prime"));
  p.dnum = in.u32("dnum");
  if (p.dnum == 0) throw FormatError("parameters: dnum 0 (the format stores the digit count)");
  const uint8_t kind = in.u8("secret distribution");
  if (kind > static_cast<uint8_t>(SecretKind::sparse_ternary)) {
    throw FormatError("parameters: unknown secret distribution " + std::to_string(kind));
  }
  p.secret.kind = static_cast<SecretKind>(kind);
  p.secret.hamming_weight = in.u64("Hamming weight");
  const uint8_t security = in.u8("security level");
  if (security > static_cast<uint8_t>(SecurityLevel::classic256)) {
    throw FormatError("parameters: unknown security level " + std::to_string(security));
  }
  p.security = static_cast<SecurityLevel>(security);
  p.scale = in.f64("scale");
  if (!std::isfinite(p.scale) || std::signbit(p.scale)) {
    throw FormatError("parameters: the scale is not a finite number >= +0");
  }
  p.plain_modulus = in.u64("plaintext modulus");
  in.expect_end("parameters");
  try {
    p.validate();
  } catch (const InvalidArgument& e) {
    throw FormatError(std::string("parameters are invalid: ") + e.what());
  }
  return p;
}

uint32_t read_tower_count(ByteReader& in, const Context& context, const char* what) {
  const uint32_t towers = in.u32("tower count");
  if (towers < 1 || towers > context.level_count()) {
    throw FormatError(std::string(what) + " with " + std::to_string(towers) +
                      " towers; these parameters have " + std::to_string(context.level_count()));
  }
  return towers;
}

void require_loadable_scale_and_slots(const Context& context, double scale, uint64_t slots,
                                      const char* what) {
  const std::string problem = detail::scale_and_slots_problem(context, scale, slots);
  if (!problem.empty()) throw FormatError(std::string(what) + ": " + problem);
}

void require_saveable_scale_and_slots(const Context& context, double scale, uint64_t slots) {
  const std::string problem = detail::scale_and_slots_problem(context, scale, slots);
  if (!problem.empty()) throw InvalidArgument("save: " + problem);
}

void require_context(const ContextPtr& context, const char* operation) {
  if (!context) throw MismatchError(std::string(operation) + ": no context given");
}

// A parameters object, decoded, validated and held to what the caller
// allows, all before any context is built: the hash must be the parameters'
// own, SecurityLevel::none needs LoadOptions::allow_insecure_parameters, and
// the context must fit LoadOptions::max_context_bytes.
Parameters read_parameters_object(std::span<const uint8_t> bytes, const LoadOptions& options,
                                  const char* operation) {
  const ObjectInfo info = require_valid_frame(bytes, options);
  if (info.type != ObjectType::parameters) {
    throw FormatError(std::string("expected a heft parameters object, got a ") +
                      to_string(info.type));
  }
  const std::size_t max_payload = 64 + 16 * 2 * kMaxPrimeCount;
  // The hash names the parameters themselves; it is checked after decoding.
  const Payload payload =
      open_frame(bytes, ObjectType::parameters, info.parameter_hash, max_payload, options);
  ByteReader in(payload.bytes);
  Parameters parameters = read_parameters(in);
  if (parameter_hash(parameters) != info.parameter_hash) {
    throw FormatError("parameters object whose hash does not match its contents");
  }
  if (parameters.security == SecurityLevel::none && !options.allow_insecure_parameters) {
    throw InvalidArgument(std::string(operation) +
                          ": these parameters have security level none (no HE Standard bound "
                          "is checked); set LoadOptions::allow_insecure_parameters = true to "
                          "load them anyway");
  }
  const std::size_t bytes_needed = context_bytes(parameters);
  if (bytes_needed > options.max_context_bytes) {
    throw InvalidArgument(
        std::string(operation) +
        ": a context for these parameters (N = " + std::to_string(parameters.degree) + ", " +
        std::to_string(parameters.ciphertext_moduli.size() + parameters.special_moduli.size()) +
        " primes) needs " + std::to_string(bytes_needed) +
        " bytes of tables, above LoadOptions::max_context_bytes (" +
        std::to_string(options.max_context_bytes) + "): raise it to load larger contexts");
  }
  return parameters;
}

}  // namespace heft::rlwe::serial
