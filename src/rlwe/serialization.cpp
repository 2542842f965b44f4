// Saving and loading heft's objects (heft/rlwe/serialization.hpp): the public
// entry points, each a frame around one payload codec (serial_objects.hpp)
// plus the checks of what is saved. The layouts are documented field by
// field in docs/format.md.
#include "heft/rlwe/serialization.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft::rlwe {

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
  detail::require_valid_switch_key(*key.context, key, "save");
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
  detail::require_valid_switch_key(*key.key.context, key.key, "save");
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
    detail::require_valid_switch_key(*context, relin_key->key, "save_key_set");
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
  detail::require_ciphertext_ring_poly(context, plain.poly, "save", "the plaintext");
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
        require_loadable_scale_and_slots(*context, plain.scale, plain.slots, "plaintext");
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
  detail::require_ciphertext_ring_poly(context, ciphertext.c0, "save", "the ciphertext");
  detail::require_ntt_form(ciphertext.c0, "save", "the ciphertext");
  require_saveable_scale_and_slots(context, ciphertext.scale, ciphertext.slots);
  if (!options.seeded) return save(context, expand_seeded(context, ciphertext), options);
  return save_object(ObjectType::ciphertext, context, options,
                     [&](ByteWriter& out) { write_seeded_ciphertext(out, context, ciphertext); });
}

Ciphertext load_ciphertext(const ContextPtr& context, std::span<const uint8_t> bytes,
                           const LoadOptions& options) {
  // Also the BGV ciphertexts of format versions 1 and 2, which had a type of
  // their own (read_ciphertext refuses that type at later versions).
  const ObjectType types[] = {ObjectType::ciphertext, ObjectType::bgv_ciphertext};
  return load_object(context, bytes, std::span<const ObjectType>(types), max_ciphertext_payload,
                     options, [&](ByteReader& in, const Payload& payload) {
                       return read_ciphertext(in, context, payload.type, payload.version);
                     });
}

}  // namespace heft::rlwe
