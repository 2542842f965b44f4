// Saving and loading heft objects as bytes: parameter sets, keys, plaintexts
// and ciphertexts. The format is documented in docs/format.md.
//
// Every object travels as one self-delimiting frame: a 64-byte header (magic,
// format version, object type, compression, a SHA-256 hash of the parameters
// the object belongs to, lengths), the payload and an 8-byte checksum.
// Coefficients are bit-packed to each prime's width; a ciphertext or key whose
// uniform half was expanded from a seed (secret-key encryption, every key
// heft generates) stores the 32-byte seed instead, halving its size; zstd can
// be applied on top.
//
// Bytes may come from anyone: loading checks the frame, the checksum, the
// parameter hash, every length against the context, every enum value and every
// coefficient against its prime before it builds anything, and throws
// heft::FormatError (malformed, truncated, corrupted, wrong version or type),
// heft::MismatchError (made under other parameters) or InvalidArgument (too
// large for LoadOptions::max_bytes or max_context_bytes, or parameters of
// SecurityLevel::none without LoadOptions::allow_insecure_parameters). It
// never returns a half-built object.
//
// Streams: write_object() writes a saved frame, read_object() reads exactly
// one frame back (checking its header before it reads the rest), and the
// load_* functions take what it returns:
//   heft::rlwe::write_object(out, heft::rlwe::save(context, ciphertext));
//   auto ct = heft::rlwe::load_ciphertext(context, heft::rlwe::read_object(in));
//
// Secret keys: the bytes of a saved secret key are the secret; wipe the
// buffer (explicit_bzero) once written where it belongs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/plaintext.hpp"

namespace heft::rlwe {

using Bytes = std::vector<uint8_t>;

// The object types of the format (values are part of it: never renumber).
enum class ObjectType : uint16_t {
  parameters = 1,
  secret_key = 2,
  public_key = 3,
  switch_key = 4,  // one key-switching key, e.g. a single Galois key
  relin_key = 5,
  galois_keys = 6,  // a set of Galois keys (all, or a chosen subset)
  plaintext = 7,    // an rlwe::Plaintext (CKKS-encoded)
  ciphertext = 8,   // an rlwe::Ciphertext of any scheme, with its metadata record
  integer_plaintext = 9,
  // A BGV ciphertext of format versions 1 and 2 (read, never written: from
  // version 3 a BGV ciphertext is a `ciphertext` like any other).
  bgv_ciphertext = 10,
  key_set = 11,  // public, relinearization and Galois keys together (each optional)
};
HEFT_EXPORT const char* to_string(ObjectType type) noexcept;

enum class Compression : uint8_t { none = 0, zstd = 1 };

struct HEFT_EXPORT SaveOptions {
  // zstd is applied where it makes the object smaller (plaintexts, secret
  // keys, structured data); bit-packed uniform residues (ciphertexts, keys)
  // gain nothing from it and are then stored uncompressed.
  Compression compression = Compression::none;
  int zstd_level = 3;  // 1 (fast) .. 19 (small)
  // Store seeds in place of uniform halves where the object has one (and it
  // still matches). False writes every polynomial in full.
  bool seeded = true;
};

struct HEFT_EXPORT LoadOptions {
  // Largest object accepted, in bytes of uncompressed payload. Lengths are
  // checked against it before anything is allocated.
  std::size_t max_bytes = std::size_t{4} << 30;
  // Parameters are a few hundred bytes that make a context of up to
  // gigabytes, so they have a bound of their own: load_parameters and
  // load_context refuse a set whose context would allocate more than this
  // (rlwe::context_bytes, which building takes time in proportion to) before
  // building anything. The default, 1 GiB, admits every parameter set at
  // N <= 2^16 that meets a security level, and at N = 2^17 every 128-bit set
  // whose primes average 50 bits or more (up to 70 primes); raise it to load
  // larger contexts.
  std::size_t max_context_bytes = std::size_t{1} << 30;
  // Parameters with SecurityLevel::none (no HE Standard bound checked) are
  // refused on load unless this is set: a peer cannot hand over insecure
  // parameters to a caller who did not ask for them.
  bool allow_insecure_parameters = false;
};

using ParameterHash = std::array<uint8_t, 32>;
// SHA-256 of the canonical encoding of the parameters (dnum resolved), the
// value every frame carries to name the parameters it belongs to.
HEFT_EXPORT ParameterHash parameter_hash(const Parameters& parameters);

// What a frame's header says, after the frame and its checksum are checked.
struct HEFT_EXPORT ObjectInfo {
  ObjectType type{};
  uint16_t version = 0;
  Compression compression = Compression::none;
  ParameterHash parameter_hash{};
  std::size_t stored_bytes = 0;   // the payload as stored (compressed or not)
  std::size_t payload_bytes = 0;  // the payload uncompressed
};
HEFT_EXPORT ObjectInfo inspect(std::span<const uint8_t> bytes, const LoadOptions& options = {});

// The length of the heft object (frame) that starts `bytes`, from its header,
// for containers that hold frames back to back: FormatError for a bad header
// or fewer bytes than it announces, InvalidArgument above
// LoadOptions::max_bytes. Only the header is checked here; the load_*
// functions check the rest of the frame.
HEFT_EXPORT std::size_t object_size(std::span<const uint8_t> bytes,
                                    const LoadOptions& options = {});

// Streams: one frame out, one frame in (FormatError on a short or bad read).
HEFT_EXPORT void write_object(std::ostream& out, std::span<const uint8_t> bytes);
HEFT_EXPORT Bytes read_object(std::istream& in, const LoadOptions& options = {});

// Parameter sets (loaded ones are validated like new ones: Parameters::validate;
// then held to LoadOptions::max_context_bytes and allow_insecure_parameters).
HEFT_EXPORT Bytes save(const Parameters& parameters, const SaveOptions& options = {});
HEFT_EXPORT Parameters load_parameters(std::span<const uint8_t> bytes,
                                       const LoadOptions& options = {});

// Keys. Galois keys can be saved in full or for chosen elements (each must be
// in the set; see Context::galois_element_for_step for steps).
HEFT_EXPORT Bytes save(const SecretKey& key, const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const PublicKey& key, const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const KeySwitchKey& key, const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const RelinKey& key, const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const GaloisKeys& keys, const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const GaloisKeys& keys, std::span<const uint64_t> galois_elements,
                       const SaveOptions& options = {});

// Keys for the party that evaluates, saved as one object: pass nullptr for
// any key to leave out (at least one must be given, all of one context).
HEFT_EXPORT Bytes save_key_set(const PublicKey* public_key, const RelinKey* relin_key,
                               const GaloisKeys* galois_keys, const SaveOptions& options = {});
// What load_key_set returns: the keys that were saved.
struct HEFT_EXPORT KeySet {
  std::optional<PublicKey> public_key;
  std::optional<RelinKey> relin_key;
  std::optional<GaloisKeys> galois_keys;
};
// The Galois keys of left rotations by `steps` (and conjugation if asked).
HEFT_EXPORT Bytes save_galois_steps(const GaloisKeys& keys, std::span<const int64_t> steps,
                                    bool include_conjugation = false,
                                    const SaveOptions& options = {});

using ContextPtr = std::shared_ptr<const Context>;
HEFT_EXPORT KeySet load_key_set(const ContextPtr& context, std::span<const uint8_t> bytes,
                                const LoadOptions& options = {});

// Contexts travel as the parameters that rebuild them; load_context checks
// them as load_parameters does before it builds the context.
HEFT_EXPORT Bytes save(const Context& context, const SaveOptions& options = {});
HEFT_EXPORT ContextPtr load_context(std::span<const uint8_t> bytes,
                                    const LoadOptions& options = {});
HEFT_EXPORT SecretKey load_secret_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                                      const LoadOptions& options = {});
HEFT_EXPORT PublicKey load_public_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                                      const LoadOptions& options = {});
HEFT_EXPORT KeySwitchKey load_switch_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                                         const LoadOptions& options = {});
HEFT_EXPORT RelinKey load_relin_key(const ContextPtr& context, std::span<const uint8_t> bytes,
                                    const LoadOptions& options = {});
HEFT_EXPORT GaloisKeys load_galois_keys(const ContextPtr& context, std::span<const uint8_t> bytes,
                                        const LoadOptions& options = {});

// Plaintexts and ciphertexts, with level, scale, slots and flags, and a
// ciphertext's whole metadata record (rlwe::CiphertextMetadata: also BGV's
// correction factor and noise estimate). A loaded seeded ciphertext is
// expanded and keeps its seed, so saving it again stays compact.
// load_ciphertext also reads the BGV ciphertexts of format versions 1 and 2
// (type bgv_ciphertext), the noise estimate of version 1 unknown.
HEFT_EXPORT Bytes save(const Context& context, const Plaintext& plain,
                       const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const Context& context, const Ciphertext& ciphertext,
                       const SaveOptions& options = {});
HEFT_EXPORT Bytes save(const Context& context, const SeededCiphertext& ciphertext,
                       const SaveOptions& options = {});
HEFT_EXPORT Plaintext load_plaintext(const ContextPtr& context, std::span<const uint8_t> bytes,
                                     const LoadOptions& options = {});
HEFT_EXPORT Ciphertext load_ciphertext(const ContextPtr& context, std::span<const uint8_t> bytes,
                                       const LoadOptions& options = {});

}  // namespace heft::rlwe
