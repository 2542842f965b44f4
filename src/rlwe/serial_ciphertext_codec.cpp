// Payload codec of ciphertexts, for every scheme: the parts and the whole
// metadata record (docs/format.md, "ciphertext"). Format version 3 stores the
// record in one place for every ciphertext; versions 1 and 2 stored CKKS's
// fields in the ciphertext payload and BGV's after it, in an object of their
// own (type bgv_ciphertext), and both still load.
#include <cmath>
#include <string>

#include "heft/rlwe/encryptor.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/seeded_masks.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft::rlwe::serial {
namespace {

// The first version whose ciphertext payload holds BGV's fields.
constexpr uint16_t kMetadataRecordVersion = 3;

// u32 parts, u32 towers, u8 flags, f64 scale, u64 slots, u64 correction,
// f64 noise estimate, [32-byte seed]: an upper bound, with room to spare.
constexpr std::size_t kCiphertextHeaderBytes = 96;

// The noise estimate as stored: NaN (set by hand) means unknown, as
// infinity does, so that one value stands for it; -infinity is refused.
double saveable_noise(double noise_log2) {
  const double noise = std::isnan(noise_log2) ? kUnknownNoise : noise_log2;
  if (noise == -kUnknownNoise) {
    throw InvalidArgument("save: the ciphertext's noise estimate is -infinity");
  }
  return noise;
}

void require_saveable_metadata(const Context& context, const CiphertextMetadata& metadata) {
  require_saveable_scale_and_slots(context, metadata.scale, metadata.slots);
  const std::string problem =
      detail::correction_problem(metadata.correction, context.parameters().plain_modulus);
  if (!problem.empty()) throw InvalidArgument("save: the ciphertext's " + problem);
}

// Header: u32 parts, u32 towers, u8 flags, f64 scale, u64 slots, u64
// correction factor, f64 noise estimate, [seed].
void write_header(ByteWriter& out, std::size_t parts, std::size_t towers, uint8_t flags,
                  const CiphertextMetadata& metadata, const ring::Prng::Seed* seed) {
  out.u32(static_cast<uint32_t>(parts));
  out.u32(static_cast<uint32_t>(towers));
  out.u8(flags);
  out.f64(metadata.scale);
  out.u64(metadata.slots);
  out.u64(metadata.correction);
  out.f64(saveable_noise(metadata.noise_log2));
  if (seed != nullptr) write_seed(out, *seed);
}

// BGV's fields as read: the correction factor must be invertible mod t (1
// without t), the estimate finite or +infinity.
void read_bgv_fields(ByteReader& in, const Context& context, bool with_noise,
                     CiphertextMetadata& metadata, const char* what) {
  metadata.correction = in.u64("correction factor");
  const std::string problem =
      detail::correction_problem(metadata.correction, context.parameters().plain_modulus);
  if (!problem.empty()) throw FormatError(std::string(what) + ": the " + problem);
  // Version 1 had no estimate: unknown, so the BGV evaluator will not
  // compute on it until one is set (decryption does not need it).
  metadata.noise_log2 = with_noise ? in.f64("noise estimate") : kUnknownNoise;
  if (std::isnan(metadata.noise_log2) || metadata.noise_log2 == -kUnknownNoise) {
    throw FormatError(std::string(what) + ": the noise estimate is NaN or -infinity");
  }
}

}  // namespace

std::size_t max_ciphertext_payload(const Context& context) {
  return kCiphertextHeaderBytes +
         kMaxCiphertextParts * poly_record_bytes(*context.ciphertext_ring(), context.level_count());
}

void write_ciphertext(ByteWriter& out, const Context& context, const Ciphertext& ct,
                      bool allow_seed) {
  require_ciphertext(context, ct, "save");
  require_saveable_metadata(context, ct);
  if (ct.parts.size() > kMaxCiphertextParts) {
    throw InvalidArgument("save: a ciphertext of " + std::to_string(ct.parts.size()) +
                          " parts; the format holds at most " +
                          std::to_string(kMaxCiphertextParts) + " (relinearize first)");
  }
  const std::size_t towers = ct.parts[0].tower_count();
  const bool seeded = allow_seed && ct.c1_seed &&
                      expand_ciphertext_mask(context, *ct.c1_seed, towers) == ct.parts[1];
  out.reserve_more(kCiphertextHeaderBytes + kChecksumBytes +
                   (ct.parts.size() - (seeded ? 1 : 0)) *
                       poly_record_bytes(*context.ciphertext_ring(), towers));
  write_header(
      out, ct.parts.size(), towers,
      static_cast<uint8_t>((seeded ? kSeededFlag : 0) | (ct.needs_rescale ? kNeedsRescaleFlag : 0)),
      ct, seeded ? &*ct.c1_seed : nullptr);
  for (std::size_t i = 0; i < ct.parts.size(); ++i) {
    if (!(seeded && i == 1)) write_poly(out, ct.parts[i]);
  }
}

void write_seeded_ciphertext(ByteWriter& out, const Context& context,
                             const SeededCiphertext& ciphertext) {
  detail::require_ciphertext_ring_poly(context, ciphertext.c0, "save", "the ciphertext");
  detail::require_ntt_form(ciphertext.c0, "save", "the ciphertext");
  CiphertextMetadata metadata;  // a fresh encryption's
  metadata.scale = ciphertext.scale;
  metadata.slots = ciphertext.slots;
  require_saveable_metadata(context, metadata);
  write_header(out, 2, ciphertext.c0.tower_count(), kSeededFlag, metadata, &ciphertext.seed);
  write_poly(out, ciphertext.c0);
}

Ciphertext read_ciphertext(ByteReader& in, const ContextPtr& context, ObjectType type,
                           uint16_t version) {
  const char* what = type == ObjectType::bgv_ciphertext ? "BGV ciphertext" : "ciphertext";
  if (type == ObjectType::bgv_ciphertext && version >= kMetadataRecordVersion) {
    throw FormatError("a BGV ciphertext object (type 10) of format version " +
                      std::to_string(version) +
                      ": only versions 1 and 2 wrote them; version 3 saves every ciphertext "
                      "as a ciphertext (type 8)");
  }
  const uint32_t parts = in.u32("ciphertext part count");
  if (parts < 2 || parts > kMaxCiphertextParts) {
    throw FormatError(std::string(what) + " with " + std::to_string(parts) + " parts (2 to " +
                      std::to_string(kMaxCiphertextParts) + " allowed)");
  }
  const uint32_t towers = read_tower_count(in, *context, what);
  const uint8_t flags = read_flags(in, kSeededFlag | kNeedsRescaleFlag, what);
  Ciphertext ct;
  ct.needs_rescale = (flags & kNeedsRescaleFlag) != 0;
  ct.scale = in.f64("scale");
  ct.slots = in.u64("slot count");
  require_loadable_scale_and_slots(*context, ct.scale, ct.slots, what);
  if (version >= kMetadataRecordVersion) read_bgv_fields(in, *context, true, ct, what);
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
  // Versions 1 and 2: a BGV ciphertext's fields followed its parts (the
  // estimate from version 2 on).
  if (type == ObjectType::bgv_ciphertext) read_bgv_fields(in, *context, version >= 2, ct, what);
  return ct;
}

}  // namespace heft::rlwe::serial
