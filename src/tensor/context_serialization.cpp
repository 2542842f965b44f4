// TensorContext::serialize / load: the layer's header (scheme, flags, global
// scale, which keys follow), then the parameters, the secret key and the key
// set as frames of heft's rlwe serialization.
#include <cmath>

#include "heft/tensor/context.hpp"
#include "tensor/envelope.hpp"

namespace heft::tensor {

namespace {

constexpr detail::Magic kMagic = {'H', 'E', 'F', 'T', 'T', 'C', 'T', 'X'};
constexpr uint16_t kVersion = 1;
// Flag bits and key bits of the header.
constexpr uint8_t kAutoRelin = 1, kAutoRescale = 2, kAutoModSwitch = 4;
constexpr uint8_t kSecretKey = 1, kKeySet = 2;

}  // namespace

rlwe::Bytes TensorContext::serialize(const SaveParts& parts,
                                     const rlwe::SaveOptions& options) const {
  const rlwe::PublicKey* public_key = parts.public_key && public_key_ ? &*public_key_ : nullptr;
  const rlwe::RelinKey* relin_key = parts.relin_keys && relin_key_ ? &*relin_key_ : nullptr;
  const rlwe::GaloisKeys* galois = parts.galois_keys && galois_keys_ ? &*galois_keys_ : nullptr;
  const bool secret = parts.secret_key && secret_key_;
  const bool key_set = public_key || relin_key || galois;

  detail::EnvelopeWriter out(kMagic, kVersion);
  out.u8(static_cast<uint8_t>(scheme_));
  out.u8(static_cast<uint8_t>((auto_relin_ ? kAutoRelin : 0) | (auto_rescale_ ? kAutoRescale : 0) |
                              (auto_mod_switch_ ? kAutoModSwitch : 0)));
  out.u8(static_cast<uint8_t>((secret ? kSecretKey : 0) | (key_set ? kKeySet : 0)));
  out.f64(global_scale_);
  out.frame(rlwe::save(*context_, options));
  if (secret) out.frame(rlwe::save(*secret_key_, options));
  if (key_set) out.frame(rlwe::save_key_set(public_key, relin_key, galois, options));
  return out.take();
}

TensorContext::Ptr TensorContext::load(std::span<const uint8_t> bytes,
                                       const rlwe::LoadOptions& options) {
  detail::EnvelopeReader in(bytes, kMagic, kVersion, "TensorContext");
  const uint8_t scheme = in.u8(), flags = in.u8(), keys = in.u8();
  const double global_scale = in.f64();
  if (scheme > 1) in.fail("unknown scheme " + std::to_string(scheme));
  if (flags > 7 || keys > 3) in.fail("unknown flag bits");
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
  in.finish();
  context->make_crypto_objects();
  return context;
}

}  // namespace heft::tensor
