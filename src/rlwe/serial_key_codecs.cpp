// Payload codecs of keys: key-switching keys (one, a relinearization key, a
// Galois key set, loaded in parallel when large) and public keys, each stored
// with its mask's seed where the mask still matches it. The layouts are
// documented field by field in docs/format.md.
#include <algorithm>
#include <string>
#include <vector>

#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/seeded_masks.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft::rlwe::serial {
namespace {

bool switch_key_seed_matches(const Context& context, const KeySwitchKey& key) {
  if (!key.a_seed) return false;
  const std::vector<ExtendedPoly> masks =
      expand_switch_key_masks(context, *key.a_seed, key.galois_element, key.max_level() + 1);
  if (masks.size() != key.a.size()) return false;
  for (std::size_t j = 0; j < masks.size(); ++j) {
    if (!(masks[j].q == key.a[j].q) || !(masks[j].p == key.a[j].p)) return false;
  }
  return true;
}

// Body: u64 Galois element, u64 error scale, u8 flags, u32 digits, [u32
// towers, for a key below the top level], [seed], per digit b.q, b.p and
// (unless seeded) a.q, a.p.
constexpr std::size_t kSwitchKeyFixedBytes = 21;
// Flag: the key holds fewer towers than the parameters' top level, and says
// how many. Top-level keys leave it clear, so their bytes are as before.
constexpr uint8_t kBelowTopFlag = 2;

// The exact size of that body under these parameters, for a key of `towers`
// ciphertext towers.
std::size_t switch_key_bytes(const Context& context, bool seeded, std::size_t towers) {
  if (!context.supports_key_switching()) return kSwitchKeyFixedBytes;  // no key can follow
  const std::size_t digit = poly_record_bytes(*context.ciphertext_ring(), towers) +
                            poly_record_bytes(*context.special_ring(), context.special_count());
  const bool below_top = towers < context.level_count();
  return kSwitchKeyFixedBytes + (below_top ? 4 : 0) + (seeded ? ring::Prng::kSeedBytes : 0) +
         context.digit_count_at(towers - 1) * (seeded ? 1 : 2) * digit;
}

// The size of the switch-key body that starts `bytes`, from its header.
std::size_t switch_key_extent(const Context& context, std::span<const uint8_t> bytes) {
  ByteReader header(bytes);
  header.u64("Galois element");
  header.u64("error scale");
  const uint8_t flags = header.u8("key-switching key flags");
  header.u32("digit count");
  const std::size_t towers = (flags & kBelowTopFlag) != 0
                                 ? read_tower_count(header, context, "key-switching key")
                                 : context.level_count();
  return switch_key_bytes(context, (flags & kSeededFlag) != 0, towers);
}

}  // namespace

std::size_t max_switch_key_payload(const Context& context) {
  // A top-level key is the largest: one below the top has a tower less in
  // every record, far more than its 4-byte tower count.
  return switch_key_bytes(context, false, context.level_count());
}

void write_switch_key(ByteWriter& out, const Context& context, const KeySwitchKey& key,
                      bool allow_seed) {
  const bool seeded = allow_seed && switch_key_seed_matches(context, key);
  const std::size_t towers = key.max_level() + 1;
  const bool below_top = towers < context.level_count();
  out.reserve_more(switch_key_bytes(context, seeded, towers) + kChecksumBytes);
  out.u64(key.galois_element);
  out.u64(key.error_scale);
  out.u8(static_cast<uint8_t>((seeded ? kSeededFlag : 0) | (below_top ? kBelowTopFlag : 0)));
  out.u32(static_cast<uint32_t>(key.b.size()));
  if (below_top) out.u32(static_cast<uint32_t>(towers));
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
      context->ciphertext_ring()->require_galois_element(key.galois_element);
    } catch (const InvalidArgument& e) {
      throw FormatError(std::string("key-switching key: ") + e.what());
    }
  }
  key.error_scale = read_error_scale(in, *context, "key-switching key");
  const uint8_t flags = read_flags(in, kSeededFlag | kBelowTopFlag, "key-switching key");
  const bool seeded = (flags & kSeededFlag) != 0;
  const uint32_t digits = in.u32("digit count");
  const std::size_t levels = (flags & kBelowTopFlag) != 0
                                 ? read_tower_count(in, *context, "key-switching key")
                                 : context->level_count();
  if (digits != context->digit_count_at(levels - 1)) {
    throw FormatError("key-switching key with " + std::to_string(digits) + " digits over " +
                      std::to_string(levels) + " towers; the parameters have " +
                      std::to_string(context->digit_count_at(levels - 1)));
  }
  if (seeded) key.a_seed = read_seed(in);
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
  if (seeded) key.a = expand_switch_key_masks(*context, *key.a_seed, key.galois_element, levels);
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
    detail::require_valid_switch_key(context, key, "save");
    if (key.galois_element != g) {
      throw InvalidArgument("save: the Galois key stored under element " + std::to_string(g) +
                            " is for element " + std::to_string(key.galois_element));
    }
  }
  // Room for all of them at once (unseeded: an upper bound; untouched pages
  // cost nothing), so that gigabytes of keys are not copied as the buffer grows.
  std::size_t total = 4;
  for (uint64_t g : elements)
    total += switch_key_bytes(context, false, keys.at(g).max_level() + 1) + kChecksumBytes;
  out.reserve_more(total);
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
  // Each key's extent follows from its header (seeded flag, tower count), so
  // the keys are found first and then parsed in parallel.
  std::vector<std::span<const uint8_t>> bodies(count);
  for (auto& body : bodies)
    body = in.bytes(switch_key_extent(*context, in.rest()), "Galois key");
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

}  // namespace heft::rlwe::serial
