// libFuzzer target for one serialization load entry point of heft. The
// entry point is chosen at compile time: fuzz/CMakeLists.txt compiles this file
// once per target with HEFT_FUZZ_ENTRY=<target name>, the name of one of the
// fuzz_* functions below.
//
// Every target loads the input with the fixed contexts of fuzz_contexts.hpp
// (the one whose parameter hash the input's header names; the CKKS one when
// it names neither) and fuzz::load_options() (64 MiB of payload, 64 MiB of
// context tables, insecure parameters allowed). Refusing the input
// with a heft::Error is the expected outcome for most inputs. A finding is
// anything else: another exception, a crash, a leak, a sanitizer report, or an
// object that loaded but does not survive being exercised, re-saved and
// loaded again (the target then prints why and aborts).
//
// Set HEFT_FUZZ_CANONICAL=1 in the environment to also require that an
// uncompressed input which loads is byte for byte what saving the loaded
// object gives (one encoding per object); off by default, since the format
// does not promise it.
#include <openssl/evp.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_contexts.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/serialization.hpp"
#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"

#ifndef HEFT_FUZZ_ENTRY
#error "compile with -DHEFT_FUZZ_ENTRY=<one of the fuzz_* functions>"
#endif

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using namespace heft;
using Input = std::span<const uint8_t>;
using rlwe::Bytes;

// The frame layout (docs/format.md): 64-byte header, stored payload, 8-byte
// checksum (the first 8 bytes of SHA-256 over header and payload).
constexpr std::size_t kHeaderBytes = 64;
constexpr std::size_t kChecksumBytes = 8;
constexpr std::size_t kTypeAt = 6;
constexpr std::size_t kCompressionAt = 8;
constexpr std::size_t kHashAt = 16;
constexpr std::size_t kStoredLengthAt = 48;
constexpr std::size_t kPayloadLengthAt = 56;

[[noreturn]] void fail(const char* what, const std::string& why) {
  std::fprintf(stderr, "\n*** heft fuzz finding (%s): %s\n", what, why.c_str());
  std::fflush(stderr);
  std::abort();
}

// The fixed context whose parameter hash the input's header names.
const rlwe::ContextPtr& context_for(Input input) {
  static const rlwe::ParameterHash integer_hash =
      rlwe::parameter_hash(fuzz::integer_context()->parameters());
  if (input.size() >= kHashAt + integer_hash.size() &&
      std::equal(integer_hash.begin(), integer_hash.end(), input.begin() + kHashAt)) {
    return fuzz::integer_context();
  }
  return fuzz::ckks_context();
}

const rlwe::LoadOptions kLoad = fuzz::load_options();

// The round trip saves each loaded object twice: compact and uncompressed (the
// form of most corpus entries), and in full with zstd.
const rlwe::SaveOptions kRoundTrip[] = {
    {.compression = rlwe::Compression::none, .zstd_level = 3, .seeded = true},
    {.compression = rlwe::Compression::zstd, .zstd_level = 1, .seeded = false},
};

bool canonical_mode() {
  static const bool on = [] {
    const char* value = std::getenv("HEFT_FUZZ_CANONICAL");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return on;
}

// Keys record the factor of their errors: 1 (CKKS, BFV) or t (BGV), never 0
// (keys.hpp; the encryptor and the t-aware mod down refuse anything else).
void check_error_scale(const char* what, const rlwe::Context& context, uint64_t error_scale) {
  const uint64_t t = context.parameters().plain_modulus;
  if (error_scale != 1 && (t == 0 || error_scale != t)) {
    fail(what, "a loaded key has error scale " + std::to_string(error_scale) +
                   " (t = " + std::to_string(t) + ")");
  }
}

// Loads the input; if that succeeds, exercises the object and checks, for
// every kRoundTrip option, that it saves, that the saved bytes load again and
// that the reloaded object saves to the same bytes. Only loading the input may
// throw heft::Error (the caller catches it); any failure after a successful
// load is a finding.
template <typename Load, typename Save, typename Exercise>
void check(const char* what, Input input, Load load, Save save, Exercise exercise) {
  using Object = decltype(load(input));
  const Object object = load(input);
  try {
    exercise(object);
  } catch (const Error& e) {
    fail(what, std::string("a loaded object could not be used: ") + e.what());
  }
  for (const rlwe::SaveOptions& options : kRoundTrip) {
    try {
      const Bytes saved = save(object, options);
      const Object reloaded = load(saved);
      if (save(reloaded, options) != saved) fail(what, "save(load(save(x))) != save(x)");
      if (canonical_mode() && &options == &kRoundTrip[0] && input[kCompressionAt] == 0 &&
          !std::equal(saved.begin(), saved.end(), input.begin(), input.end())) {
        fail(what, "the input loads, but saving it gives other bytes (HEFT_FUZZ_CANONICAL)");
      }
    } catch (const Error& e) {
      fail(what, std::string("a loaded object could not be re-saved and reloaded: ") + e.what());
    }
  }
}

// --- one function per load entry point ----------------------------------------

void fuzz_load_parameters(Input input) {
  check(
      "parameters", input, [](Input b) { return rlwe::load_parameters(b, kLoad); },
      [](const rlwe::Parameters& p, const rlwe::SaveOptions& o) { return rlwe::save(p, o); },
      [](const rlwe::Parameters& p) {
        // Loaded parameters are validated: a (small) context must build.
        if (p.degree <= 2048 && p.ciphertext_moduli.size() + p.special_moduli.size() <= 4) {
          (void)rlwe::Context::create(p);
        }
      });
}

void fuzz_load_secret_key(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "secret key", input, [&](Input b) { return rlwe::load_secret_key(context, b, kLoad); },
      [](const rlwe::SecretKey& k, const rlwe::SaveOptions& o) { return rlwe::save(k, o); },
      [](const rlwe::SecretKey& k) {
        for (int64_t c : k.coefficients())
          if (c < -1 || c > 1) fail("secret key", "a loaded coefficient is not ternary");
      });
}

void fuzz_load_public_key(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "public key", input, [&](Input b) { return rlwe::load_public_key(context, b, kLoad); },
      [](const rlwe::PublicKey& k, const rlwe::SaveOptions& o) { return rlwe::save(k, o); },
      [&](const rlwe::PublicKey& k) {
        check_error_scale("public key", *context, k.error_scale);
        // Encrypt zero with it (the key's values are arbitrary but valid).
        rlwe::Plaintext zero{
            ring::RnsPoly(context->ciphertext_ring(), context->level_count(), ring::Form::ntt)};
        (void)rlwe::Encryptor(k).encrypt(zero);
      });
}

void fuzz_load_switch_key(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "key-switching key", input, [&](Input b) { return rlwe::load_switch_key(context, b, kLoad); },
      [](const rlwe::KeySwitchKey& k, const rlwe::SaveOptions& o) { return rlwe::save(k, o); },
      [&](const rlwe::KeySwitchKey& k) {
        check_error_scale("key-switching key", *context, k.error_scale);
      });
}

void fuzz_load_relin_key(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "relinearization key", input,
      [&](Input b) { return rlwe::load_relin_key(context, b, kLoad); },
      [](const rlwe::RelinKey& k, const rlwe::SaveOptions& o) { return rlwe::save(k, o); },
      [&](const rlwe::RelinKey& k) {
        check_error_scale("relinearization key", *context, k.key.error_scale);
      });
}

void fuzz_load_galois_keys(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "Galois key set", input, [&](Input b) { return rlwe::load_galois_keys(context, b, kLoad); },
      [](const rlwe::GaloisKeys& k, const rlwe::SaveOptions& o) { return rlwe::save(k, o); },
      [&](const rlwe::GaloisKeys& k) {
        const std::vector<uint64_t> elements = k.elements();
        for (uint64_t g : elements)
          check_error_scale("Galois key set", *context, k.at(g).error_scale);
        // A subset (every other element) must save and load as well.
        std::vector<uint64_t> subset;
        for (std::size_t i = 0; i < elements.size(); i += 2)
          subset.push_back(elements[i]);
        const rlwe::GaloisKeys part =
            rlwe::load_galois_keys(k.context(), rlwe::save(k, subset), kLoad);
        if (part.size() != subset.size()) fail("Galois key set", "a saved subset lost keys");
      });
}

void fuzz_load_plaintext(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "plaintext", input, [&](Input b) { return rlwe::load_plaintext(context, b, kLoad); },
      [&](const rlwe::Plaintext& p, const rlwe::SaveOptions& o) {
        return rlwe::save(*context, p, o);
      },
      [&](const rlwe::Plaintext& p) {
        // Decoding refuses some loadable metadata (slots 0 or N, huge values).
        static const ckks::Encoder ckks_encoder(fuzz::ckks_context());
        static const ckks::Encoder integer_encoder(fuzz::integer_context());
        try {
          (void)(context == fuzz::ckks_context() ? ckks_encoder : integer_encoder).decode(p);
        } catch (const InvalidArgument&) {
        }
      });
}

void fuzz_load_ciphertext(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "ciphertext", input, [&](Input b) { return rlwe::load_ciphertext(context, b, kLoad); },
      [&](const rlwe::Ciphertext& c, const rlwe::SaveOptions& o) {
        return rlwe::save(*context, c, o);
      },
      [&](const rlwe::Ciphertext& c) {
        static const rlwe::Decryptor ckks(fuzz::fixed_secret_key(fuzz::ckks_context()));
        static const rlwe::Decryptor integer(fuzz::fixed_secret_key(fuzz::integer_context()));
        (void)(context == fuzz::ckks_context() ? ckks : integer).decrypt(c);
      });
}

void fuzz_load_integer_plaintext(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "integer plaintext", input,
      [&](Input b) { return schemes::load_integer_plaintext(context, b, kLoad); },
      [&](const schemes::IntegerPlaintext& p, const rlwe::SaveOptions& o) {
        return schemes::save(*context, p, o);
      },
      [](const schemes::IntegerPlaintext& p) {
        static const schemes::BatchEncoder encoder(fuzz::kDegree, fuzz::kPlainModulus);
        (void)encoder.decode(p);
      });
}

// The BGV ciphertexts of format versions 1 and 2 (type 10): they load into an
// rlwe::Ciphertext, which saves as a ciphertext of version 3 and reloads.
void fuzz_load_bgv_ciphertext(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "BGV ciphertext", input, [&](Input b) { return bgv::load_ciphertext(context, b, kLoad); },
      [&](const bgv::Ciphertext& c, const rlwe::SaveOptions& o) {
        return bgv::save(*context, c, o);
      },
      [](const bgv::Ciphertext& c) {
        // Only the integer context has a t, so this is the context loaded under.
        static const bgv::Decryptor decryptor(fuzz::fixed_secret_key(fuzz::integer_context()));
        (void)decryptor.decrypt(c);
      });
}

void fuzz_load_key_set(Input input) {
  const rlwe::ContextPtr& context = context_for(input);
  check(
      "key set", input, [&](Input b) { return rlwe::load_key_set(context, b, kLoad); },
      [](const rlwe::KeySet& k, const rlwe::SaveOptions& o) {
        return rlwe::save_key_set(k.public_key ? &*k.public_key : nullptr,
                                  k.relin_key ? &*k.relin_key : nullptr,
                                  k.galois_keys ? &*k.galois_keys : nullptr, o);
      },
      [&](const rlwe::KeySet& k) {
        if (k.public_key) check_error_scale("key set", *context, k.public_key->error_scale);
        if (k.relin_key) check_error_scale("key set", *context, k.relin_key->key.error_scale);
        if (k.galois_keys) {
          for (uint64_t g : k.galois_keys->elements())
            check_error_scale("key set", *context, k.galois_keys->at(g).error_scale);
        }
      });
}

// The bytes of NTT tables a built context holds (both rings).
std::size_t table_bytes_held(const rlwe::Context& context) {
  std::size_t bytes = 0;
  for (const auto* ring : {context.ciphertext_ring().get(), context.special_ring().get()}) {
    if (ring == nullptr) continue;
    for (std::size_t i = 0; i < ring->tower_count(); ++i)
      bytes += ring->ntt_tables(i).allocated_bytes();
  }
  return bytes;
}

// Contexts travel as parameters; loading one builds it (all its tables).
// Memory and time are watched: the loader's estimate must cover what the
// context really allocated and stay within LoadOptions::max_context_bytes
// (scripts/fuzz.sh adds libFuzzer's RSS, allocation and time limits for this
// target), and the default options must refuse insecure parameters.
[[maybe_unused]] void fuzz_load_context(Input input) {
  check(
      "context", input, [](Input b) { return rlwe::load_context(b, kLoad); },
      [](const rlwe::ContextPtr& c, const rlwe::SaveOptions& o) { return rlwe::save(*c, o); },
      [&input](const rlwe::ContextPtr& c) {
        if (!c) fail("context", "load_context returned null");
        const std::size_t estimate = rlwe::context_bytes(c->parameters());
        if (estimate > kLoad.max_context_bytes) {
          fail("context", "a context of " + std::to_string(estimate) +
                              " bytes loaded under max_context_bytes = " +
                              std::to_string(kLoad.max_context_bytes));
        }
        const std::size_t held = table_bytes_held(*c);
        if (held > estimate) {
          fail("context", "the context holds " + std::to_string(held) +
                              " bytes of tables, more than the loader's estimate of " +
                              std::to_string(estimate));
        }
        if (c->parameters().security == rlwe::SecurityLevel::none) {
          try {
            (void)rlwe::load_parameters(input);  // default options: no context is built
            fail("context", "insecure parameters loaded under the default LoadOptions");
          } catch (const InvalidArgument& e) {
            if (std::string(e.what()).find("allow_insecure_parameters") == std::string::npos)
              fail("context",
                   std::string("insecure parameters refused for another reason: ") + e.what());
          }
        }
      });
}

// The stream reader: exactly one frame, the first bytes of the stream, which
// inspect() accepts as it is; the frame then goes to its type's loader.
[[maybe_unused]] void fuzz_read_object(Input input) {
  std::istringstream in(std::string(input.begin(), input.end()));
  const Bytes frame = rlwe::read_object(in, kLoad);
  if (frame.size() > input.size() || !std::equal(frame.begin(), frame.end(), input.begin())) {
    fail("read_object", "the frame read is not the start of the stream");
  }
  rlwe::ObjectInfo info;
  try {
    info = rlwe::inspect(frame, kLoad);
  } catch (const Error& e) {
    fail("read_object", std::string("inspect() refused what read_object() returned: ") + e.what());
  }
  if (kHeaderBytes + info.stored_bytes + kChecksumBytes != frame.size()) {
    fail("read_object", "the frame's length differs from what its header says");
  }
  switch (info.type) {
    case rlwe::ObjectType::parameters:
      return fuzz_load_parameters(frame);
    case rlwe::ObjectType::secret_key:
      return fuzz_load_secret_key(frame);
    case rlwe::ObjectType::public_key:
      return fuzz_load_public_key(frame);
    case rlwe::ObjectType::switch_key:
      return fuzz_load_switch_key(frame);
    case rlwe::ObjectType::relin_key:
      return fuzz_load_relin_key(frame);
    case rlwe::ObjectType::galois_keys:
      return fuzz_load_galois_keys(frame);
    case rlwe::ObjectType::plaintext:
      return fuzz_load_plaintext(frame);
    case rlwe::ObjectType::ciphertext:
      return fuzz_load_ciphertext(frame);
    case rlwe::ObjectType::integer_plaintext:
      return fuzz_load_integer_plaintext(frame);
    case rlwe::ObjectType::bgv_ciphertext:
      return fuzz_load_bgv_ciphertext(frame);
    case rlwe::ObjectType::key_set:
      return fuzz_load_key_set(frame);
  }
  fail("read_object", "inspect() returned an unknown object type");
}

// --- the tensor layer's objects (a header of its own, then frames) -----------

// The tensor context the vector and tensor targets load into: the CKKS set
// of fuzz_contexts.hpp with fresh keys (frames name the parameters, not the
// keys, so make_corpus's objects load into it).
const tensor::TensorContext::Ptr& tensor_context() {
  static const tensor::TensorContext::Ptr context =
      tensor::TensorContext::create(fuzz::ckks_parameters(), fuzz::kScale);
  return context;
}

[[maybe_unused]] void fuzz_load_tensor_context(Input input) {
  check(
      "tensor context", input, [](Input b) { return tensor::TensorContext::load(b, kLoad); },
      [](const tensor::TensorContext::Ptr& c, const rlwe::SaveOptions& o) {
        return c->serialize(tensor::TensorContext::SaveParts{}, o);
      },
      [](const tensor::TensorContext::Ptr& c) {
        if (!c) fail("tensor context", "load returned null");
        (void)c->slot_count();
      });
}

[[maybe_unused]] void fuzz_load_ckks_vector(Input input) {
  check(
      "CKKS vector", input,
      [](Input b) { return tensor::CKKSVector::load(tensor_context(), b, kLoad); },
      [](const tensor::CKKSVector& v, const rlwe::SaveOptions& o) { return v.serialize(o); },
      [](const tensor::CKKSVector& v) {
        if (v.decrypt().size() != v.size()) fail("CKKS vector", "decrypt gave another size");
        (void)v.add(v);
      });
}

[[maybe_unused]] void fuzz_load_ckks_tensor(Input input) {
  check(
      "CKKS tensor", input,
      [](Input b) { return tensor::CKKSTensor::load(tensor_context(), b, kLoad); },
      [](const tensor::CKKSTensor& t, const rlwe::SaveOptions& o) { return t.serialize(o); },
      [](const tensor::CKKSTensor& t) {
        std::size_t elements = 1;
        for (const std::size_t d : t.shape())
          elements *= d;
        if (t.decrypt().size() != elements) fail("CKKS tensor", "decrypt gave another size");
        (void)t.add(t);
      });
}

[[maybe_unused]] void fuzz_load_ckks_matrix(Input input) {
  check(
      "CKKS matrix", input,
      [](Input b) { return tensor::CKKSMatrix::load(tensor_context(), b, kLoad); },
      [](const tensor::CKKSMatrix& m, const rlwe::SaveOptions& o) { return m.serialize(o); },
      [](const tensor::CKKSMatrix& m) {
        const auto rows = m.decrypt();
        if (rows.size() != m.rows() || rows[0].size() != m.cols())
          fail("CKKS matrix", "decrypt gave another shape");
        (void)m.add(m);
      });
}

// Makes a mutated frame consistent again: length fields from the actual size,
// for an uncompressed parameters object the parameter hash of its payload
// (which is the canonical encoding it hashes), and a correct checksum, so
// that mutations get past these checks and reach the payload parsers.
void fix_frame(uint8_t* data, std::size_t size) {
  if (size < kHeaderBytes + kChecksumBytes) return;
  const uint64_t stored = size - kHeaderBytes - kChecksumBytes;
  std::memcpy(data + kStoredLengthAt, &stored, 8);  // little-endian host
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (data[kCompressionAt] == 0) {
    std::memcpy(data + kPayloadLengthAt, &stored, 8);
    const auto parameters = static_cast<uint16_t>(rlwe::ObjectType::parameters);
    if (std::memcmp(data + kTypeAt, &parameters, 2) == 0 &&
        EVP_Digest(data + kHeaderBytes, stored, digest, &length, EVP_sha256(), nullptr) == 1) {
      std::memcpy(data + kHashAt, digest, 32);
    }
  }
  if (EVP_Digest(data, size - kChecksumBytes, digest, &length, EVP_sha256(), nullptr) == 1) {
    std::memcpy(data + size - kChecksumBytes, digest, kChecksumBytes);
  }
}

// The header length of a tensor-layer object (docs/format.md, "Tensor
// objects"), 0 for anything else (a frame).
std::size_t tensor_header_bytes(const uint8_t* data, std::size_t size) {
  if (size < 18 || std::memcmp(data, "HEFT", 4) != 0) return 0;
  if (std::memcmp(data + 4, "TCTX", 4) == 0) return 8 + 2 + 3 + 8;
  if (std::memcmp(data + 4, "CKVC", 4) == 0) return 8 + 2 + 8 + 1 + 8;
  if (std::memcmp(data + 4, "CKTN", 4) == 0) {
    uint64_t rank = 0;
    std::memcpy(&rank, data + 10, 8);
    return rank > 16 ? 0 : 8 + 2 + 8 + 8 * rank + 1 + 8;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    HEFT_FUZZ_ENTRY(Input(data, size));
  } catch (const heft::Error&) {
    // Refused: the expected outcome for most inputs.
  }
  return 0;
}

// libFuzzer's own mutations, then, 7 times in 8, fix_frame (the rest keep
// exercising the length and checksum checks).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 8 == 0) return size;
  const std::size_t header = tensor_header_bytes(data, size);
  if (header == 0) {
    fix_frame(data, size);
  } else {
    // A tensor object: fix each frame after its header, as far as the
    // frames' own lengths lead.
    std::size_t at = header;
    while (at <= size && size - at >= kHeaderBytes + kChecksumBytes) {
      uint64_t stored = 0;
      std::memcpy(&stored, data + at + kStoredLengthAt, 8);
      if (stored > size - at - kHeaderBytes - kChecksumBytes) break;
      const std::size_t frame = kHeaderBytes + stored + kChecksumBytes;
      fix_frame(data + at, frame);
      at += frame;
    }
  }
  return size;
}
