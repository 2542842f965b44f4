// TensorContext::serialize / load: the layer's header (scheme, flags, global
// scale, which keys follow), then the parameters, the secret key and the key
// set as frames of heft's rlwe serialization; for a bootstrappable context,
// the bootstrapper's settings and the sparse-secret keys after them.
#include <cmath>

#include "heft/circuits/sparse_secret_encapsulation.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor {

namespace {

constexpr detail::Magic kMagic = {'H', 'E', 'F', 'T', 'T', 'C', 'T', 'X'};
constexpr uint16_t kVersion = 1;
// Flag bits and key bits of the header.
constexpr uint8_t kAutoRelin = 1, kAutoRescale = 2, kAutoModSwitch = 4;
constexpr uint8_t kSecretKey = 1, kKeySet = 2, kBootstrap = 4;

void write_bootstrap(detail::EnvelopeWriter& out, const circuits::BootstrapParameters& p) {
  for (const std::size_t value : {p.slots, p.coeffs_to_slots_levels, p.slots_to_coeffs_levels,
                                  p.mod_range, p.sine_degree, p.sparse_secret_weight})
    out.u64(value);
  out.u64(static_cast<uint64_t>(static_cast<int64_t>(p.message_ratio_bits)));
  out.u8(static_cast<uint8_t>(p.order));
  out.u8(p.real_slots ? 1 : 0);
}

circuits::BootstrapParameters read_bootstrap(detail::EnvelopeReader& in) {
  circuits::BootstrapParameters p;
  for (std::size_t* field : {&p.slots, &p.coeffs_to_slots_levels, &p.slots_to_coeffs_levels,
                             &p.mod_range, &p.sine_degree, &p.sparse_secret_weight}) {
    const uint64_t value = in.u64();
    if (value > (uint64_t{1} << 32)) in.fail("bad bootstrapping settings");
    *field = static_cast<std::size_t>(value);
  }
  const auto ratio = static_cast<int64_t>(in.u64());
  if (ratio < 0 || ratio > 60) in.fail("bad bootstrapping message ratio");
  p.message_ratio_bits = static_cast<int>(ratio);
  const uint8_t order = in.u8(), real = in.u8();
  if (order > 1 || real > 1) in.fail("bad bootstrapping settings");
  p.order = static_cast<circuits::BootstrapOrder>(order);
  p.real_slots = real == 1;
  return p;
}

}  // namespace

rlwe::Bytes TensorContext::serialize(const SaveParts& parts,
                                     const rlwe::SaveOptions& options) const {
  const rlwe::PublicKey* public_key = parts.public_key && public_key_ ? &*public_key_ : nullptr;
  const rlwe::RelinKey* relin_key = parts.relin_keys && relin_key_ ? &*relin_key_ : nullptr;
  const rlwe::GaloisKeys* galois = parts.galois_keys && galois_keys_ ? &*galois_keys_ : nullptr;
  const bool secret = parts.secret_key && secret_key_;
  const bool key_set = public_key || relin_key || galois;
  const bool bootstrap = parts.bootstrap_keys && bootstrap_;

  detail::EnvelopeWriter out(kMagic, kVersion);
  out.u8(static_cast<uint8_t>(scheme_));
  out.u8(static_cast<uint8_t>((auto_relin_ ? kAutoRelin : 0) | (auto_rescale_ ? kAutoRescale : 0) |
                              (auto_mod_switch_ ? kAutoModSwitch : 0)));
  out.u8(static_cast<uint8_t>((secret ? kSecretKey : 0) | (key_set ? kKeySet : 0) |
                              (bootstrap ? kBootstrap : 0)));
  out.f64(global_scale_);
  out.frame(rlwe::save(*context_, options));
  if (secret) out.frame(rlwe::save(*secret_key_, options));
  if (key_set) out.frame(rlwe::save_key_set(public_key, relin_key, galois, options));
  if (bootstrap) {
    write_bootstrap(out, *bootstrap_);
    out.u8(sparse_keys_ ? 1 : 0);
    if (sparse_keys_) {
      out.frame(rlwe::save(sparse_keys_->to_sparse, options));
      out.frame(rlwe::save(sparse_keys_->to_dense, options));
    }
  }
  return out.take();
}

TensorContext::Ptr TensorContext::load(std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options) {
  detail::EnvelopeReader in(bytes, kMagic, kVersion, "TensorContext");
  const uint8_t scheme = in.u8(), flags = in.u8(), keys = in.u8();
  const double global_scale = in.f64();
  if (scheme > 1) in.fail("unknown scheme " + std::to_string(scheme));
  if (flags > 7 || keys > 7) in.fail("unknown flag bits");
  auto rlwe_context = rlwe::load_context(in.frame(options), options);
  if ((rlwe_context->parameters().plain_modulus != 0) != (scheme == 1))
    in.fail("the scheme does not match the parameters");
  if (scheme == 0 && !(global_scale > 0 && std::isfinite(global_scale)))
    in.fail("bad global scale");
  auto context =
      std::make_shared<TensorContext>(PrivateTag{}, rlwe_context, scheme == 0 ? global_scale : 0.0);
  context->auto_relin_ = flags & kAutoRelin;
  context->auto_rescale_ = flags & kAutoRescale;
  context->auto_mod_switch_ = flags & kAutoModSwitch;
  if (keys & kSecretKey) {
    context->secret_key_.emplace(rlwe::load_secret_key(rlwe_context, in.frame(options), options));
    context->keygen_.emplace(rlwe_context, *context->secret_key_);
  }
  if (keys & kKeySet) {
    auto set = rlwe::load_key_set(rlwe_context, in.frame(options), options);
    if (set.public_key) context->public_key_.emplace(std::move(*set.public_key));
    if (set.relin_key) context->relin_key_.emplace(std::move(*set.relin_key));
    if (set.galois_keys) context->galois_keys_.emplace(std::move(*set.galois_keys));
  }
  if (keys & kBootstrap) {
    if (scheme != 0) in.fail("bootstrapping settings on a BFV context");
    const circuits::BootstrapParameters parameters = read_bootstrap(in);
    // Bounds before any work: the sine's degree and range set how long
    // building it takes (the presets use K <= 512, degree <= 4095).
    if (parameters.mod_range > 1024 || parameters.sine_degree > 8191 ||
        parameters.coeffs_to_slots_levels > 64 || parameters.slots_to_coeffs_levels > 64 ||
        parameters.sparse_secret_weight > rlwe_context->degree())
      in.fail("bootstrapping settings out of range");
    std::size_t depth = 0;
    try {
      depth = circuits::Bootstrapper::depth_for(parameters);
    } catch (const Error&) {
      in.fail("bootstrapping settings that make no bootstrapper");
    }
    if (depth >= rlwe_context->max_level() || parameters.slots > rlwe_context->degree() / 2)
      in.fail("bootstrapping settings that do not fit the parameters");
    const uint8_t has_sparse = in.u8();
    if (has_sparse > 1 || (has_sparse == 1 && parameters.sparse_secret_weight == 0))
      in.fail("the sparse-secret keys do not match the bootstrapping settings");
    if (has_sparse) {
      const circuits::SparseSecretEncapsulation encapsulation(rlwe_context,
                                                              parameters.sparse_secret_weight);
      auto to_sparse =
          rlwe::load_switch_key(encapsulation.small_context(), in.frame(options), options);
      auto to_dense = rlwe::load_switch_key(rlwe_context, in.frame(options), options);
      context->sparse_keys_.emplace(
          circuits::SparseSecretKeys{std::move(to_sparse), std::move(to_dense)});
    }
    context->bootstrap_ = parameters;
    context->bootstrap_depth_ = depth;
  }
  in.finish();
  context->make_crypto_objects();
  return context;
}

}  // namespace heft::tensor
