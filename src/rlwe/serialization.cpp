// Payloads of the RLWE objects (parameters, keys, plaintexts, ciphertexts):
// what each holds and every check made when it is read back. The layouts are
// documented field by field in docs/format.md.
#include "heft/rlwe/serialization.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/key_checks.hpp"
#include "rlwe/seeded_masks.hpp"
#include "rlwe/serial_bytes.hpp"
#include "rlwe/serial_frame.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft::rlwe {
namespace serial {
namespace {

constexpr std::size_t kMaxCiphertextParts = 16;
// Keys of a set are loaded on separate threads only when each is at least
// this large: below it, waking the pool costs more than it saves.
constexpr std::size_t kParallelKeyBytes = std::size_t{1} << 20;
constexpr uint8_t kSeededFlag = 1;
constexpr uint8_t kNeedsRescaleFlag = 2;

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
  ring::RnsPoly poly(ring, towers, form == 1 ? ring::Form::ntt : ring::Form::coefficient);
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

// --- keys ------------------------------------------------------------------

bool switch_key_seed_matches(const Context& context, const KeySwitchKey& key) {
  if (!key.a_seed) return false;
  const std::vector<ExtendedPoly> masks =
      expand_switch_key_masks(context, *key.a_seed, key.galois_element);
  if (masks.size() != key.a.size()) return false;
  for (std::size_t j = 0; j < masks.size(); ++j) {
    if (!(masks[j].q == key.a[j].q) || !(masks[j].p == key.a[j].p)) return false;
  }
  return true;
}

// Body: u64 Galois element, u64 error scale, u8 flags, u32 digits, [seed],
// per digit b.q, b.p and (unless seeded) a.q, a.p.
constexpr std::size_t kSwitchKeyFlagsAt = 16;
constexpr std::size_t kSwitchKeyFixedBytes = 21;

// The exact size of that body under these parameters.
std::size_t switch_key_bytes(const Context& context, bool seeded) {
  if (!context.supports_key_switching()) return kSwitchKeyFixedBytes;  // no key can follow
  const std::size_t digit = poly_record_bytes(*context.ciphertext_ring(), context.level_count()) +
                            poly_record_bytes(*context.special_ring(), context.special_count());
  return kSwitchKeyFixedBytes + (seeded ? ring::Prng::kSeedBytes : 0) +
         context.digit_count() * (seeded ? 1 : 2) * digit;
}

std::size_t max_switch_key_payload(const Context& context) {
  return switch_key_bytes(context, false);
}

void write_switch_key(ByteWriter& out, const Context& context, const KeySwitchKey& key,
                      bool allow_seed) {
  const bool seeded = allow_seed && switch_key_seed_matches(context, key);
  out.reserve_more(switch_key_bytes(context, seeded) + kChecksumBytes);
  out.u64(key.galois_element);
  out.u64(key.error_scale);
  out.u8(seeded ? kSeededFlag : 0);
  out.u32(static_cast<uint32_t>(key.b.size()));
  if (seeded) write_seed(out, *key.a_seed);
  for (std::size_t j = 0; j < key.b.size(); ++j) {
    write_poly(out, key.b[j].q);
    write_poly(out, key.b[j].p);
    if (!seeded) {
      write_poly(out, key.a[j].q);
      write_poly(out, key.a[j].p);
    }
  }
}

KeySwitchKey read_switch_key(ByteReader& in, const ContextPtr& context) {
  if (!context->supports_key_switching()) {
    throw FormatError("a key-switching key, but these parameters have no special primes");
  }
  KeySwitchKey key;
  key.context = context;
  key.galois_element = in.u64("Galois element");
  if (key.galois_element != 1) {
    try {
      context->ciphertext_ring()->check_galois_element(key.galois_element);
    } catch (const InvalidArgument& e) {
      throw FormatError(std::string("key-switching key: ") + e.what());
    }
  }
  key.error_scale = read_error_scale(in, *context, "key-switching key");
  const bool seeded = (read_flags(in, kSeededFlag, "key-switching key") & kSeededFlag) != 0;
  const uint32_t digits = in.u32("digit count");
  if (digits != context->digit_count()) {
    throw FormatError("key-switching key with " + std::to_string(digits) +
                      " digits; the parameters have " + std::to_string(context->digit_count()));
  }
  if (seeded) key.a_seed = read_seed(in);
  const std::size_t levels = context->level_count();
  const std::size_t specials = context->special_count();
  for (std::size_t j = 0; j < digits; ++j) {
    ExtendedPoly b{read_poly(in, context->ciphertext_ring(), levels, true, "key part b"),
                   read_poly(in, context->special_ring(), specials, true, "key part b")};
    key.b.push_back(std::move(b));
    if (!seeded) {
      ExtendedPoly a{read_poly(in, context->ciphertext_ring(), levels, true, "key part a"),
                     read_poly(in, context->special_ring(), specials, true, "key part a")};
      key.a.push_back(std::move(a));
    }
  }
  if (seeded) key.a = expand_switch_key_masks(*context, *key.a_seed, key.galois_element);
  return key;
}

std::size_t max_public_key_payload(const Context& context) {
  return 64 + 2 * poly_record_bytes(*context.ciphertext_ring(), context.level_count());
}

// Public key body: u8 flags (1: seeded), u64 error scale, [seed], b, [a].
void write_public_key(ByteWriter& out, const PublicKey& key, bool allow_seed) {
  const Context& context = *key.context;
  if (key.b.empty() || key.b.context() != context.ciphertext_ring() || key.a.empty() ||
      key.a.context() != context.ciphertext_ring()) {
    throw MismatchError("save: malformed public key");
  }
  const bool seeded = allow_seed && key.a_seed &&
                      expand_ciphertext_mask(context, *key.a_seed, context.level_count()) == key.a;
  out.reserve_more(max_public_key_payload(context) / (seeded ? 2 : 1) + kChecksumBytes);
  out.u8(seeded ? kSeededFlag : 0);
  out.u64(key.error_scale);
  if (seeded) write_seed(out, *key.a_seed);
  write_poly(out, key.b);
  if (!seeded) write_poly(out, key.a);
}

PublicKey read_public_key(ByteReader& in, const ContextPtr& context) {
  PublicKey key;
  key.context = context;
  const bool seeded = (read_flags(in, kSeededFlag, "public key") & kSeededFlag) != 0;
  key.error_scale = read_error_scale(in, *context, "public key");
  if (seeded) key.a_seed = read_seed(in);
  key.b = read_poly(in, context->ciphertext_ring(), context->level_count(), true, "public key b");
  key.a = seeded ? expand_ciphertext_mask(*context, *key.a_seed, context->level_count())
                 : read_poly(in, context->ciphertext_ring(), context->level_count(), true,
                             "public key a");
  return key;
}

// Galois key set body: u32 count, then the keys in increasing element order.
void write_galois_keys(ByteWriter& out, const GaloisKeys& keys,
                       std::span<const uint64_t> galois_elements, bool allow_seed) {
  const Context& context = *keys.context();
  std::vector<uint64_t> elements(galois_elements.begin(), galois_elements.end());
  std::sort(elements.begin(), elements.end());
  elements.erase(std::unique(elements.begin(), elements.end()), elements.end());
  for (uint64_t g : elements) {
    const KeySwitchKey& key = keys.at(g);  // names a missing element
    detail::require_switch_key(context, key, "save");
    if (key.galois_element != g) {
      throw InvalidArgument("save: the Galois key stored under element " + std::to_string(g) +
                            " is for element " + std::to_string(key.galois_element));
    }
  }
  out.u32(static_cast<uint32_t>(elements.size()));
  // Serial on purpose: writing keys on separate threads into separate
  // buffers and appending them measured no faster on 2 cores (the copy and
  // fresh pages cost what the threads saved).
  for (uint64_t g : elements)
    write_switch_key(out, context, keys.at(g), allow_seed);
}

// At most one key per odd element in [3, 2N).
std::size_t max_galois_payload(const Context& context) {
  return saturating_multiply(context.degree(), max_switch_key_payload(context));
}

GaloisKeys read_galois_keys(ByteReader& in, const ContextPtr& context) {
  const uint32_t count = in.u32("Galois key count");
  if (count > context->degree()) throw FormatError("Galois key set with too many keys");
  // Each key's extent follows from its seeded flag, so the keys are found
  // first and then parsed in parallel.
  std::vector<std::span<const uint8_t>> bodies(count);
  for (auto& body : bodies) {
    if (in.remaining() < kSwitchKeyFixedBytes) throw FormatError("truncated data: Galois key");
    const bool seeded = (in.rest()[kSwitchKeyFlagsAt] & kSeededFlag) != 0;
    body = in.bytes(switch_key_bytes(*context, seeded), "Galois key");
  }
  std::vector<KeySwitchKey> parsed(count);
  const auto parse = [&](std::size_t i) {
    ByteReader key_in(bodies[i]);
    parsed[i] = read_switch_key(key_in, context);
    key_in.expect_end("Galois key");
  };
  if (max_switch_key_payload(*context) < kParallelKeyBytes) {
    for (std::size_t i = 0; i < count; ++i)
      parse(i);
  } else {
    parallel_for(0, count, parse);
  }
  GaloisKeys keys(context);
  uint64_t previous = 1;
  for (KeySwitchKey& key : parsed) {
    if (key.galois_element <= previous) {
      throw FormatError("Galois key set: elements must be distinct, above 1 and increasing");
    }
    previous = key.galois_element;
    keys.insert(key.galois_element, std::move(key));
  }
  return keys;
}

RelinKey read_relin_key(ByteReader& in, const ContextPtr& context) {
  KeySwitchKey key = read_switch_key(in, context);
  if (key.galois_element != 1) throw FormatError("relinearization key with a Galois element");
  return RelinKey{std::move(key)};
}

}  // namespace

// --- ciphertexts (shared with the scheme layers) ---------------------------

void require_context(const ContextPtr& context, const char* operation) {
  if (!context) throw MismatchError(std::string(operation) + ": no context given");
}

std::size_t max_ciphertext_payload(const Context& context) {
  return 64 +
         kMaxCiphertextParts * poly_record_bytes(*context.ciphertext_ring(), context.level_count());
}

namespace {

using detail::scale_and_slots_problem;  // save refuses what load would refuse

void require_saveable_scale_and_slots(const Context& context, double scale, uint64_t slots) {
  const std::string problem = scale_and_slots_problem(context, scale, slots);
  if (!problem.empty()) throw InvalidArgument("save: " + problem);
}

}  // namespace

// Header: u32 parts, u32 towers, u8 flags, f64 scale, u64 slots, [seed]; then
// the parts (c_1 omitted when seeded).
void write_ciphertext(ByteWriter& out, const Context& context, const Ciphertext& ct,
                      bool allow_seed) {
  check_ciphertext(context, ct, "save");
  require_saveable_scale_and_slots(context, ct.scale, ct.slots);
  if (ct.parts.size() > kMaxCiphertextParts) {
    throw InvalidArgument("save: a ciphertext of " + std::to_string(ct.parts.size()) +
                          " parts; the format holds at most " +
                          std::to_string(kMaxCiphertextParts) + " (relinearize first)");
  }
  const std::size_t towers = ct.parts[0].tower_count();
  const bool seeded = allow_seed && ct.c1_seed &&
                      expand_ciphertext_mask(context, *ct.c1_seed, towers) == ct.parts[1];
  out.reserve_more(64 + kChecksumBytes +
                   (ct.parts.size() - (seeded ? 1 : 0)) *
                       poly_record_bytes(*context.ciphertext_ring(), towers));
  out.u32(static_cast<uint32_t>(ct.parts.size()));
  out.u32(static_cast<uint32_t>(towers));
  out.u8(static_cast<uint8_t>((seeded ? kSeededFlag : 0) |
                              (ct.needs_rescale ? kNeedsRescaleFlag : 0)));
  out.f64(ct.scale);
  out.u64(ct.slots);
  if (seeded) write_seed(out, *ct.c1_seed);
  for (std::size_t i = 0; i < ct.parts.size(); ++i) {
    if (!(seeded && i == 1)) write_poly(out, ct.parts[i]);
  }
}

namespace {

// A level given as a tower count: 1..L.
uint32_t read_tower_count(ByteReader& in, const Context& context, const char* what) {
  const uint32_t towers = in.u32("tower count");
  if (towers < 1 || towers > context.level_count()) {
    throw FormatError(std::string(what) + " with " + std::to_string(towers) +
                      " towers; these parameters have " + std::to_string(context.level_count()));
  }
  return towers;
}

void check_scale_and_slots(const Context& context, double scale, uint64_t slots, const char* what) {
  const std::string problem = scale_and_slots_problem(context, scale, slots);
  if (!problem.empty()) throw FormatError(std::string(what) + ": " + problem);
}

}  // namespace

Ciphertext read_ciphertext(ByteReader& in, const ContextPtr& context) {
  const uint32_t parts = in.u32("ciphertext part count");
  if (parts < 2 || parts > kMaxCiphertextParts) {
    throw FormatError("ciphertext with " + std::to_string(parts) + " parts (2 to " +
                      std::to_string(kMaxCiphertextParts) + " allowed)");
  }
  const uint32_t towers = read_tower_count(in, *context, "ciphertext");
  const uint8_t flags = read_flags(in, kSeededFlag | kNeedsRescaleFlag, "ciphertext");
  Ciphertext ct;
  ct.needs_rescale = (flags & kNeedsRescaleFlag) != 0;
  ct.scale = in.f64("scale");
  ct.slots = in.u64("slot count");
  check_scale_and_slots(*context, ct.scale, ct.slots, "ciphertext");
  const bool seeded = (flags & kSeededFlag) != 0;
  if (seeded) ct.c1_seed = read_seed(in);
  for (uint32_t i = 0; i < parts; ++i) {
    if (seeded && i == 1) {
      ct.parts.push_back(expand_ciphertext_mask(*context, *ct.c1_seed, towers));
    } else {
      ct.parts.push_back(
          read_poly(in, context->ciphertext_ring(), towers, true, "ciphertext part"));
    }
  }
  return ct;
}

// A parameters object, decoded, validated and held to what the caller
// allows, all before any context is built: the hash must be the parameters'
// own, SecurityLevel::none needs LoadOptions::allow_insecure_parameters, and
// the context must fit LoadOptions::max_context_bytes.
Parameters read_parameters_object(std::span<const uint8_t> bytes, const LoadOptions& options,
                                  const char* operation) {
  const ObjectInfo info = check_frame(bytes, options);
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

}  // namespace serial

using namespace serial;

ParameterHash parameter_hash(const Parameters& parameters) {
  ByteWriter canonical;
  write_parameters(canonical, parameters);
  ParameterHash hash{};
  unsigned int length = 0;
  if (EVP_Digest(canonical.buffer().data(), canonical.buffer().size(), hash.data(), &length,
                 EVP_sha256(), nullptr) != 1) {
    throw Error("parameter_hash: SHA-256 failed in OpenSSL");
  }
  return hash;
}

// --- parameters ------------------------------------------------------------

Bytes save(const Parameters& parameters, const SaveOptions& options) {
  parameters.validate();  // at most kMaxPrimeCount primes, what the format holds
  ByteWriter payload = start_frame();
  write_parameters(payload, parameters);
  return finish_frame(std::move(payload), ObjectType::parameters, parameter_hash(parameters),
                      options);
}

Parameters load_parameters(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return read_parameters_object(bytes, options, "load_parameters");
}

// --- secret key --------------------------------------------------------------

// Payload: u8 encoding (0: ternary), then N 2-bit codes (0 -> 0, 1 -> 1,
// 2 -> -1; 3 is invalid).
Bytes save(const SecretKey& key, const SaveOptions& options) {
  if (!key.context()) throw InvalidArgument("save: the secret key is empty");
  const Context& context = *key.context();
  std::vector<int64_t> coefficients = key.coefficients();
  std::vector<uint64_t> codes(coefficients.size());
  uint64_t outside = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const int64_t c = coefficients[i];
    outside |= static_cast<uint64_t>(c < -1 || c > 1);
    codes[i] = static_cast<uint64_t>(c) & 3;  // -1 -> 3, fixed below
    codes[i] -= static_cast<uint64_t>(codes[i] == 3);
  }
  // The key must be exactly the ternary polynomial in every tower of Q and P.
  bool consistent = outside == 0;
  if (consistent) {
    const SecretKey rebuilt = SecretKey::from_coefficients(key.context(), coefficients);
    consistent = rebuilt.q_part() == key.q_part() &&
                 (key.p_part().empty() || rebuilt.p_part() == key.p_part());
  }
  explicit_bzero(coefficients.data(), coefficients.size() * sizeof(int64_t));
  if (!consistent) {
    explicit_bzero(codes.data(), codes.size() * sizeof(uint64_t));
    throw InvalidArgument("save: the secret key is not one ternary polynomial in every tower");
  }
  ByteWriter payload = start_frame();
  payload.buffer().reserve(kHeaderBytes + 1 + packed_bytes(codes.size(), 2) + kChecksumBytes);
  payload.u8(0);
  payload.packed(codes, 2);
  explicit_bzero(codes.data(), codes.size() * sizeof(uint64_t));
  return finish_frame(std::move(payload), ObjectType::secret_key,
                      parameter_hash(context.parameters()), options);
}

SecretKey load_secret_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                          const LoadOptions& options) {
  require_context(context, "load_secret_key");
  const std::size_t n = context->degree();
  Payload payload = open_frame(bytes, ObjectType::secret_key, parameter_hash(context->parameters()),
                               1 + n / 4, options);
  ByteReader in(payload.bytes);
  std::vector<uint64_t> codes(n);
  std::vector<int64_t> coefficients(n);
  try {
    if (in.u8("secret key encoding") != 0) throw FormatError("secret key: unknown encoding");
    in.packed(codes, 2, 3, "secret key");
    in.expect_end("secret key");
    std::size_t weight = 0;
    for (std::size_t i = 0; i < n; ++i) {
      coefficients[i] = static_cast<int64_t>(codes[i]) - 3 * static_cast<int64_t>(codes[i] == 2);
      weight += static_cast<std::size_t>(codes[i] != 0);
    }
    const SecretDistribution& distribution = context->parameters().secret;
    if (distribution.kind == SecretKind::sparse_ternary && weight != distribution.hamming_weight) {
      throw FormatError("secret key's Hamming weight differs from the parameters'");
    }
    SecretKey key = SecretKey::from_coefficients(context, coefficients);
    explicit_bzero(codes.data(), codes.size() * sizeof(uint64_t));
    explicit_bzero(coefficients.data(), coefficients.size() * sizeof(int64_t));
    wipe_bytes(payload.owned);
    return key;
  } catch (...) {
    explicit_bzero(codes.data(), codes.size() * sizeof(uint64_t));
    explicit_bzero(coefficients.data(), coefficients.size() * sizeof(int64_t));
    wipe_bytes(payload.owned);
    throw;
  }
}

// --- public key ----------------------------------------------------------------

Bytes save(const PublicKey& key, const SaveOptions& options) {
  if (!key.context) throw InvalidArgument("save: the public key is empty");
  return save_object(ObjectType::public_key, *key.context, options,
                     [&](ByteWriter& out) { write_public_key(out, key, options.seeded); });
}

PublicKey load_public_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                          const LoadOptions& options) {
  return load_object(context, bytes, ObjectType::public_key, max_public_key_payload, options,
                     [&](ByteReader& in) { return read_public_key(in, context); });
}

// --- key-switching keys ------------------------------------------------------

Bytes save(const KeySwitchKey& key, const SaveOptions& options) {
  if (!key.context) throw InvalidArgument("save: the key-switching key is empty");
  detail::require_switch_key(*key.context, key, "save");
  return save_object(ObjectType::switch_key, *key.context, options, [&](ByteWriter& out) {
    write_switch_key(out, *key.context, key, options.seeded);
  });
}

KeySwitchKey load_switch_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                             const LoadOptions& options) {
  return load_object(context, bytes, ObjectType::switch_key, max_switch_key_payload, options,
                     [&](ByteReader& in) { return read_switch_key(in, context); });
}

Bytes save(const RelinKey& key, const SaveOptions& options) {
  if (!key.key.context) throw InvalidArgument("save: the relinearization key is empty");
  detail::require_switch_key(*key.key.context, key.key, "save");
  if (key.key.galois_element != 1) {
    throw InvalidArgument("save: a relinearization key cannot carry a Galois element");
  }
  return save_object(ObjectType::relin_key, *key.key.context, options, [&](ByteWriter& out) {
    write_switch_key(out, *key.key.context, key.key, options.seeded);
  });
}

RelinKey load_relin_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                        const LoadOptions& options) {
  return load_object(context, bytes, ObjectType::relin_key, max_switch_key_payload, options,
                     [&](ByteReader& in) { return read_relin_key(in, context); });
}

// --- Galois key sets ---------------------------------------------------------

Bytes save(const GaloisKeys& keys, std::span<const uint64_t> galois_elements,
           const SaveOptions& options) {
  if (!keys.context()) throw InvalidArgument("save: the Galois key set is empty");
  return save_object(ObjectType::galois_keys, *keys.context(), options, [&](ByteWriter& out) {
    write_galois_keys(out, keys, galois_elements, options.seeded);
  });
}

Bytes save(const GaloisKeys& keys, const SaveOptions& options) {
  const std::vector<uint64_t> elements = keys.elements();
  return save(keys, elements, options);
}

Bytes save_galois_steps(const GaloisKeys& keys, std::span<const int64_t> steps,
                        bool include_conjugation, const SaveOptions& options) {
  if (!keys.context()) throw InvalidArgument("save: the Galois key set is empty");
  std::vector<uint64_t> elements;
  for (int64_t step : steps)
    elements.push_back(keys.context()->galois_element_for_step(step));
  if (include_conjugation) elements.push_back(keys.context()->conjugation_galois_element());
  return save(keys, elements, options);
}

GaloisKeys load_galois_keys(const ContextPtr& context, std::span<const uint8_t> bytes,
                            const LoadOptions& options) {
  return load_object(context, bytes, ObjectType::galois_keys, max_galois_payload, options,
                     [&](ByteReader& in) { return read_galois_keys(in, context); });
}

// --- key sets ----------------------------------------------------------------

// Payload: u8 flags (1: public key, 2: relinearization key, 4: Galois keys),
// then the payload of each present key in that order.
Bytes save_key_set(const PublicKey* public_key, const RelinKey* relin_key,
                   const GaloisKeys* galois_keys, const SaveOptions& options) {
  const std::shared_ptr<const Context>& context =
      public_key
          ? public_key->context
          : (relin_key ? relin_key->key.context : (galois_keys ? galois_keys->context() : nullptr));
  if (!context) throw InvalidArgument("save_key_set: no key given");
  for (const Context* other : {public_key ? public_key->context.get() : context.get(),
                               relin_key ? relin_key->key.context.get() : context.get(),
                               galois_keys ? galois_keys->context().get() : context.get()}) {
    if (other != context.get()) throw MismatchError("save_key_set: the keys mix contexts");
  }
  if (relin_key) {
    detail::require_switch_key(*context, relin_key->key, "save_key_set");
    if (relin_key->key.galois_element != 1) {
      throw InvalidArgument("save_key_set: a relinearization key cannot carry a Galois element");
    }
  }
  return save_object(ObjectType::key_set, *context, options, [&](ByteWriter& out) {
    out.u8(
        static_cast<uint8_t>((public_key ? 1 : 0) | (relin_key ? 2 : 0) | (galois_keys ? 4 : 0)));
    if (public_key) write_public_key(out, *public_key, options.seeded);
    if (relin_key) write_switch_key(out, *context, relin_key->key, options.seeded);
    if (galois_keys) {
      const std::vector<uint64_t> elements = galois_keys->elements();
      write_galois_keys(out, *galois_keys, elements, options.seeded);
    }
  });
}

KeySet load_key_set(const ContextPtr& context, std::span<const uint8_t> bytes,
                    const LoadOptions& options) {
  const auto max_payload = [](const Context& c) {
    return 1 + max_public_key_payload(c) + max_switch_key_payload(c) +
           std::min(max_galois_payload(c), SIZE_MAX / 2);
  };
  return load_object(context, bytes, ObjectType::key_set, +max_payload, options,
                     [&](ByteReader& in) {
                       const uint8_t flags = read_flags(in, 7, "key set");
                       if (flags == 0) throw FormatError("key set without any key");
                       KeySet keys;
                       if ((flags & 1) != 0) keys.public_key = read_public_key(in, context);
                       if ((flags & 2) != 0) keys.relin_key = read_relin_key(in, context);
                       if ((flags & 4) != 0) keys.galois_keys = read_galois_keys(in, context);
                       return keys;
                     });
}

// --- contexts ----------------------------------------------------------------

Bytes save(const Context& context, const SaveOptions& options) {
  return save(context.parameters(), options);
}

ContextPtr load_context(std::span<const uint8_t> bytes, const LoadOptions& options) {
  return Context::create(read_parameters_object(bytes, options, "load_context"));
}

// --- plaintexts and ciphertexts ---------------------------------------------

// Payload: u32 towers, f64 scale, u64 slots, the polynomial.
Bytes save(const Context& context, const Plaintext& plain, const SaveOptions& options) {
  if (plain.poly.empty()) throw InvalidArgument("save: the plaintext is empty");
  if (plain.poly.context() != context.ciphertext_ring()) {
    throw MismatchError("save: the plaintext belongs to a different context");
  }
  require_saveable_scale_and_slots(context, plain.scale, plain.slots);
  return save_object(ObjectType::plaintext, context, options, [&](ByteWriter& out) {
    out.u32(static_cast<uint32_t>(plain.poly.tower_count()));
    out.f64(plain.scale);
    out.u64(plain.slots);
    write_poly(out, plain.poly);
  });
}

Plaintext load_plaintext(const ContextPtr& context, std::span<const uint8_t> bytes,
                         const LoadOptions& options) {
  const auto max_payload = [](const Context& c) {
    return 64 + poly_record_bytes(*c.ciphertext_ring(), c.level_count());
  };
  return load_object(
      context, bytes, ObjectType::plaintext, +max_payload, options, [&](ByteReader& in) {
        const uint32_t towers = read_tower_count(in, *context, "plaintext");
        Plaintext plain;
        plain.scale = in.f64("scale");
        plain.slots = in.u64("slot count");
        check_scale_and_slots(*context, plain.scale, plain.slots, "plaintext");
        plain.poly = read_poly(in, context->ciphertext_ring(), towers, false, "plaintext");
        return plain;
      });
}

Bytes save(const Context& context, const Ciphertext& ciphertext, const SaveOptions& options) {
  return save_object(ObjectType::ciphertext, context, options, [&](ByteWriter& out) {
    write_ciphertext(out, context, ciphertext, options.seeded);
  });
}

Bytes save(const Context& context, const SeededCiphertext& ciphertext, const SaveOptions& options) {
  if (ciphertext.c0.empty() || ciphertext.c0.context() != context.ciphertext_ring()) {
    throw MismatchError("save: the ciphertext belongs to a different context");
  }
  if (!ciphertext.c0.is_ntt()) throw MismatchError("save: the ciphertext must be in NTT form");
  require_saveable_scale_and_slots(context, ciphertext.scale, ciphertext.slots);
  if (!options.seeded) return save(context, expand_seeded(context, ciphertext), options);
  return save_object(ObjectType::ciphertext, context, options, [&](ByteWriter& out) {
    out.u32(2);
    out.u32(static_cast<uint32_t>(ciphertext.c0.tower_count()));
    out.u8(kSeededFlag);
    out.f64(ciphertext.scale);
    out.u64(ciphertext.slots);
    write_seed(out, ciphertext.seed);
    write_poly(out, ciphertext.c0);
  });
}

Ciphertext load_ciphertext(const ContextPtr& context, std::span<const uint8_t> bytes,
                           const LoadOptions& options) {
  return load_object(context, bytes, ObjectType::ciphertext, max_ciphertext_payload, options,
                     [&](ByteReader& in) { return read_ciphertext(in, context); });
}

}  // namespace heft::rlwe
