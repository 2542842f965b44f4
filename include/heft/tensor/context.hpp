// TensorContext: what every encrypted tensor of heft::tensor shares: the
// parameters (an rlwe::Context), the keys, the encoders and evaluators, and
// TenSEAL's behaviour flags.
//
// Built from TenSEAL's arguments (scheme, poly_modulus_degree,
// coeff_mod_bit_sizes whose LAST entry is the special prime, plain_modulus,
// global_scale, n_threads) or from heft's parameter helpers (depth and
// precision). A private context holds the secret key; make_context_public()
// drops it, after which decryption is refused with a typed error. Keys made
// at creation: public and relinearization; Galois keys on request
// (generate_galois_keys: the power-of-two steps +-2^i and the row swap /
// conjugation, as SEAL's default, or exactly the steps given).
//
// Flags (TenSEAL's, all true by default):
// - auto_relin: products of ciphertexts are relinearized (else they keep
//   three parts, and operations that need two refuse them);
// - auto_rescale: CKKS products are rescaled;
// - auto_mod_switch: CKKS operands at different levels are brought to the
//   lower one.
// - auto_bootstrap (off by default; bootstrappable contexts only): an
//   operation on CKKS vectors or tensors that needs more levels than its
//   operand has left bootstraps the operand first (refresh_for), so that
//   depth is unbounded. The caller promises values within bootstrapping's
//   range (about [-1, 1]), as for bootstrap(); a runtime setting, not saved.
// With auto_rescale and auto_mod_switch both on, operations go through
// ckks::ScaleMode::automatic (lazy rescaling, exact scale alignment); with
// either off, through ScaleMode::manual, the vector doing only what the flags
// that are on ask for (operands whose scales differ are then refused with
// MismatchError, as SEAL refuses them in TenSEAL).
//
// Bootstrapping (CKKS): a context made from a bootstrapping preset
// (create_bootstrappable) holds the bootstrapper's settings; its keys come
// from generate_bootstrap_keys (the rotations the transforms use, each at the
// level it is used at, merged into the Galois keys, and the sparse-secret
// keys of encapsulation), and they serialize with the context. Fresh
// encryptions then start at the bootstrapper's output level, the top of the
// levels left for computation (the levels above it are the bootstrapping
// circuit's own, and a ciphertext there only costs more to send and to
// compute on), and CKKSVector::bootstrap refreshes a vector back to it.
//
// A context is shared by the tensors made under it (std::shared_ptr).
// Operations on tensors only read it; the mutating calls (keys, flags,
// make_context_public) must not run while other threads use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "heft/circuits/bootstrapper.hpp"
#include "heft/export.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/noise_flooding.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/schemes/integer_parameters.hpp"

namespace heft::tensor {

enum class Scheme : uint8_t { ckks = 0, bfv = 1 };

// How a bootstrappable context bootstraps (create_bootstrappable).
struct HEFT_EXPORT BootstrapOptions {
  circuits::BootstrapOrder order = circuits::BootstrapOrder::coeffs_to_slots_first;
  // Bootstrap the real parts only (about half EvalMod's work): for tensors,
  // whose values are real, always right; the default.
  bool real_slots = true;
  std::size_t n_threads = 0;  // > 0: heft::set_num_threads(n_threads) (process-wide)
};

// TenSEAL's ts.context(...) arguments.
struct HEFT_EXPORT TenSEALArguments {
  Scheme scheme = Scheme::ckks;
  uint64_t poly_modulus_degree = 8192;
  // Bit sizes of the primes; the last one is the special prime of key
  // switching (TenSEAL's convention). Empty for BFV: SEAL's BFVDefault sizes
  // for the degree (128-bit security). CKKS needs them.
  std::vector<int> coeff_mod_bit_sizes;
  uint64_t plain_modulus = 0;  // BFV: the batching prime t
  // CKKS: the scale of fresh encryptions (0: 2^(bits of q_1)). When the
  // primes sit so far from it that rescaling would drift more than a bit
  // away by the last level (TenSEAL's MNIST set: 2^21 over 21-bit primes
  // below 2^20.8), the levels' scales are chained from the bottom, which
  // holds 2^21 there, and fresh encryptions take the top level's scale
  // (global_scale() reports it: 2^20.4 for that set).
  double global_scale = 0;
  std::size_t n_threads = 0;  // > 0: heft::set_num_threads(n_threads) (process-wide)
  rlwe::SecurityLevel security = rlwe::SecurityLevel::classic128;
};

class HEFT_EXPORT TensorContext {
  struct PrivateTag {};

 public:
  using Ptr = std::shared_ptr<TensorContext>;

  // TenSEAL's constructor. InvalidArgument for a CKKS request without bit
  // sizes, a BFV request without plain modulus, sizes that make no valid or
  // secure set (the message of rlwe::Parameters::validate).
  [[nodiscard]] static Ptr create(const TenSEALArguments& arguments);
  // From heft's helpers: the depth and precision a computation needs.
  // global_scale 0: the parameters' nominal scale.
  [[nodiscard]] static Ptr create_ckks(const ckks::ParameterRequest& request,
                                       double global_scale = 0);
  [[nodiscard]] static Ptr create_bfv(const schemes::IntegerParameterRequest& request);
  // From a parameter set (CKKS when it has a scale, BFV when it has a plain
  // modulus), with fresh keys.
  [[nodiscard]] static Ptr create(const rlwe::Parameters& parameters, double global_scale = 0);

  // A CKKS context on a bootstrapping preset's parameters
  // (circuits::bootstrap_preset: "n16-encaps", "n16", and the insecure
  // "small-encaps" / "small" for tests), with public and relinearization
  // keys; bootstrapping keys come from generate_bootstrap_keys. The global
  // scale is the default scale of the encryption level. InvalidArgument
  // naming the presets for an unknown name.
  [[nodiscard]] static Ptr create_bootstrappable(std::string_view preset,
                                                 const BootstrapOptions& options = {});

  TensorContext(PrivateTag, std::shared_ptr<const rlwe::Context> context, double global_scale);

  [[nodiscard]] Scheme scheme() const noexcept { return scheme_; }
  [[nodiscard]] const std::shared_ptr<const rlwe::Context>& rlwe_context() const noexcept {
    return context_;
  }
  // Values one ciphertext holds: N/2 for CKKS, N for BFV (two rows of N/2).
  [[nodiscard]] std::size_t slot_count() const noexcept;
  [[nodiscard]] double global_scale() const noexcept { return global_scale_; }
  // The scale later encryptions use (TenSEAL's settable global_scale); it
  // need not be the parameters' nominal scale. InvalidArgument unless
  // positive, finite and small enough that a fresh value fits the modulus.
  void set_global_scale(double scale);

  // ---- flags ----
  [[nodiscard]] bool auto_relin() const noexcept { return auto_relin_; }
  [[nodiscard]] bool auto_rescale() const noexcept { return auto_rescale_; }
  [[nodiscard]] bool auto_mod_switch() const noexcept { return auto_mod_switch_; }
  void set_auto_relin(bool on) noexcept { auto_relin_ = on; }
  void set_auto_rescale(bool on) noexcept { auto_rescale_ = on; }
  void set_auto_mod_switch(bool on) noexcept { auto_mod_switch_ = on; }
  [[nodiscard]] bool auto_bootstrap() const noexcept { return auto_bootstrap_; }
  // InvalidArgument when turning it on for a context that cannot bootstrap.
  void set_auto_bootstrap(bool on);

  // ---- keys ----
  [[nodiscard]] bool is_private() const noexcept { return secret_key_.has_value(); }
  [[nodiscard]] bool is_public() const noexcept { return !is_private(); }
  [[nodiscard]] bool has_public_key() const noexcept { return public_key_.has_value(); }
  [[nodiscard]] bool has_relin_keys() const noexcept { return relin_key_.has_value(); }
  [[nodiscard]] bool has_galois_keys() const noexcept { return galois_keys_.has_value(); }
  // The steps the default Galois key set covers: +-2^i below the row length.
  [[nodiscard]] std::vector<int64_t> default_galois_steps() const;
  // Adds keys for the default steps and the row swap / conjugation.
  // InvalidArgument on a public context or parameters without key switching.
  void generate_galois_keys();
  // Adds keys for exactly these steps (and the swap / conjugation if asked),
  // for ciphertexts at `max_level` or below (all levels when absent): keys
  // for a lower level are smaller (rlwe::KeyGenerator::create_galois_keys).
  void generate_galois_keys(std::span<const int64_t> steps, bool include_swap = false,
                            std::optional<std::size_t> max_level = std::nullopt);
  void generate_relin_keys();
  // Drops the secret key (generating the Galois / relinearization keys first
  // when asked, while the secret is still there).
  void make_context_public(bool generate_galois_keys = false, bool generate_relin_keys = false);

  // The keys; InvalidArgument naming `operation` when absent (the message
  // says how to get them).
  [[nodiscard]] const rlwe::SecretKey& secret_key(const char* operation) const;
  [[nodiscard]] const rlwe::PublicKey& public_key(const char* operation) const;
  [[nodiscard]] const rlwe::RelinKey& relin_key(const char* operation) const;
  [[nodiscard]] const rlwe::GaloisKeys& galois_keys(const char* operation) const;
  // InvalidArgument naming `operation` and the steps without a key or a
  // composition of keys (rlwe::plan_rotation over `cycle` positions), and the
  // swap when asked for and absent.
  void require_rotations(std::span<const int64_t> steps, bool swap, const char* operation) const;

  // ---- bootstrapping (create_bootstrappable) ----
  [[nodiscard]] bool is_bootstrappable() const noexcept { return bootstrap_.has_value(); }
  // The Galois keys and, with encapsulation, the sparse-secret keys are present.
  [[nodiscard]] bool has_bootstrap_keys() const;
  [[nodiscard]] const std::optional<circuits::BootstrapParameters>& bootstrap_parameters()
      const noexcept {
    return bootstrap_;
  }
  // Makes the keys bootstrapping needs (progress after each, as
  // Bootstrapper::create_keys counts them), adding the Galois keys to those
  // present (a key already there for a level at least as high is kept).
  // InvalidArgument on a context that is not bootstrappable or is public.
  void generate_bootstrap_keys(const circuits::KeyProgress& progress = {});
  // The bytes those keys take, from their shapes (before making them).
  [[nodiscard]] double bootstrap_key_bytes() const;
  // The bootstrapper, built on first use (its transforms take a few seconds
  // and, at N = 2^16, gigabytes; a client that only makes keys and encrypts
  // never keeps one). InvalidArgument naming `operation` when the context is
  // not bootstrappable.
  [[nodiscard]] const circuits::Bootstrapper& bootstrapper(const char* operation) const;
  // One ciphertext refreshed to the encryption level. InvalidArgument naming
  // `operation` without the keys (the message says how to make them).
  [[nodiscard]] rlwe::Ciphertext bootstrap(const rlwe::Ciphertext& x, const char* operation) const;
  // The level fresh encryptions start at: the top level, or the
  // bootstrapper's output level for a bootstrappable context.
  [[nodiscard]] std::size_t encryption_level() const noexcept;

  // ---- scheme objects (CKKS ones throw for BFV and back) ----
  [[nodiscard]] const ckks::Encoder& ckks_encoder() const;
  // The evaluator the flags select (see the file comment).
  [[nodiscard]] const ckks::Evaluator& ckks_evaluator() const;
  [[nodiscard]] const schemes::BatchEncoder& batch_encoder() const;
  [[nodiscard]] const bfv::Evaluator& bfv_evaluator() const;
  [[nodiscard]] uint64_t plain_modulus() const noexcept {
    return context_->parameters().plain_modulus;
  }
  // Encryption with the public key, decryption with the secret key
  // (InvalidArgument naming `operation` without it).
  [[nodiscard]] const rlwe::Encryptor& ckks_encryptor(const char* operation) const;
  [[nodiscard]] const rlwe::Decryptor& ckks_decryptor(const char* operation) const;
  [[nodiscard]] const bfv::Encryptor& bfv_encryptor(const char* operation) const;
  [[nodiscard]] const bfv::Decryptor& bfv_decryptor(const char* operation) const;

  // ---- transparent results (docs/security.md) ----
  // The evaluators here allow transparent results (a product by zero, x - x,
  // a null polynomial: TenSEAL programs compute them), and every vector and
  // tensor re-randomises them as it is made: each ciphertext whose mask
  // cancelled gets a fresh encryption of zero (with the public key) added, so
  // none ever holds its values in the clear. Without a public key:
  // TransparentCiphertextError.
  void rerandomize_transparent(std::vector<rlwe::Ciphertext>& ciphertexts) const;

  // ---- noise flooding of CKKS decryptions (docs/security.md) ----
  // With options set, every CKKS decryption through this context
  // (CKKSVector::decrypt, CKKSTensor::decrypt, with its own key or one kept
  // aside) is flooded (ckks::FloodingDecryptor): results may then be shared
  // with the party that computed them. Off by default: flooding needs the
  // noise bound of an estimation run (CKKSVector::measure_noise_bits) and a
  // scale with room for the precision it costs, which the defaults of
  // TenSEAL-style parameters do not have. A client-side setting: not
  // serialized, so a context loaded from bytes starts without it.
  // InvalidArgument for a BFV context or options flooding_bits() refuses.
  void set_noise_flooding(std::optional<ckks::FloodingOptions> options);
  [[nodiscard]] const std::optional<ckks::FloodingOptions>& noise_flooding() const noexcept {
    return flooding_;
  }

  // ---- serialization ----
  // Parameters, flags and global scale, and each kind of key asked for and
  // present, in heft's format (docs/format.md: frames of rlwe serialization
  // after a short header of this layer).
  struct SaveParts {
    bool public_key = true;
    bool secret_key = true;
    bool galois_keys = true;
    bool relin_keys = true;
    bool bootstrap_keys = true;  // the bootstrapper's settings and the sparse-secret keys
  };
  [[nodiscard]] rlwe::Bytes serialize(const SaveParts& parts,
                                      const rlwe::SaveOptions& options = {}) const;
  [[nodiscard]] rlwe::Bytes serialize() const { return serialize(SaveParts{}); }
  // FormatError for malformed bytes, MismatchError for keys of other
  // parameters (and what rlwe's loaders throw).
  [[nodiscard]] static Ptr load(std::span<const uint8_t> bytes,
                                const rlwe::LoadOptions& options = {});

 private:
  void require_scheme(Scheme scheme, const char* operation) const;
  [[nodiscard]] const rlwe::KeyGenerator& key_generator(const char* operation) const;
  void make_scheme_objects();
  // (Re)makes the encryptor and decryptor from the keys present.
  void make_crypto_objects();
  // The to_sparse key moved under bootstrapper_'s small context (a key made
  // or loaded under another object of the same parameters).
  void rehome_sparse_key() const;

  std::shared_ptr<const rlwe::Context> context_;
  Scheme scheme_ = Scheme::ckks;
  double global_scale_ = 0;
  bool auto_relin_ = true, auto_rescale_ = true, auto_mod_switch_ = true;
  bool auto_bootstrap_ = false;

  std::optional<rlwe::SecretKey> secret_key_;
  std::optional<rlwe::KeyGenerator> keygen_;  // present with the secret key
  std::optional<rlwe::PublicKey> public_key_;
  std::optional<rlwe::RelinKey> relin_key_;
  std::optional<rlwe::GaloisKeys> galois_keys_;

  std::optional<ckks::Encoder> ckks_encoder_;
  std::optional<ckks::Evaluator> ckks_automatic_, ckks_manual_;
  std::optional<schemes::BatchEncoder> batch_encoder_;
  std::optional<bfv::Evaluator> bfv_evaluator_;
  // Made from the keys above (and dropped with them).
  // With the public key, for either scheme: CKKS encryption, and the fresh
  // encryptions of zero that re-randomise transparent results.
  std::optional<rlwe::Encryptor> public_encryptor_;
  std::optional<rlwe::Decryptor> ckks_decryptor_;
  std::optional<bfv::Encryptor> bfv_encryptor_;
  std::optional<bfv::Decryptor> bfv_decryptor_;
  std::optional<ckks::FloodingOptions> flooding_;

  std::optional<circuits::BootstrapParameters> bootstrap_;
  std::size_t bootstrap_depth_ = 0;  // Bootstrapper::depth_for(*bootstrap_), found once
  // Mutable: bootstrapper() moves the to_sparse key under the small context
  // of the bootstrapper it builds (each encapsulation makes its own).
  mutable std::optional<circuits::SparseSecretKeys> sparse_keys_;
  // Built by bootstrapper() on first use, under the mutex.
  mutable std::shared_ptr<const circuits::Bootstrapper> bootstrapper_;
  mutable std::mutex bootstrapper_mutex_;
};

}  // namespace heft::tensor
