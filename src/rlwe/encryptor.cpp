// Public- and secret-key encryption, seeded ciphertexts, decryption.
#include "heft/rlwe/encryptor.hpp"

#include <array>
#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/seeded_masks.hpp"

namespace heft::rlwe {
namespace {

// The first `towers` towers of p, as a new polynomial.
ring::RnsPoly first_towers(const ring::RnsPoly& p, std::size_t towers) {
  ring::RnsPoly out = p.clone();
  if (towers < out.tower_count()) out.drop_last_towers(out.tower_count() - towers);
  return out;
}

// e <- t e for BGV's error scale t; skipped at 1 so that CKKS/BFV encryption
// is unchanged.
void scale_error(ring::RnsPoly& e, uint64_t error_scale) {
  if (error_scale != 1) e.multiply_scalar(error_scale);
}

// A fresh error times error_scale, plus the plaintext when it is in
// coefficient form (then added before the transform: one NTT for both), in
// NTT form.
ring::RnsPoly gaussian_poly(const Context& context, ring::Prng& prng, std::size_t towers,
                            uint64_t error_scale, const ring::RnsPoly& plain) {
  auto e = ring::RnsPoly::uninitialized(context.ciphertext_ring(), towers);  // sampled in full
  ring::sample_gaussian(prng, e);
  scale_error(e, error_scale);
  if (!plain.is_ntt()) e += plain;
  e.ntt();
  return e;
}

void require_plaintext(const Context& context, const Plaintext& plain) {
  detail::require_ciphertext_ring_poly(context, plain.poly, "encrypt", "the plaintext");
}

}  // namespace

Encryptor::Encryptor(const PublicKey& public_key)
    : context_(public_key.context),
      public_key_(std::make_shared<const PublicKey>(
          PublicKey{public_key.context, public_key.b.clone(), public_key.a.clone(),
                    public_key.error_scale, public_key.a_seed})),
      error_scale_(public_key.error_scale) {
  if (!context_) throw InvalidArgument("Encryptor: the public key is empty");
  detail::require_public_key(*context_, public_key, "Encryptor");
}

Encryptor::Encryptor(const SecretKey& secret_key, uint64_t error_scale)
    : context_(secret_key.context()),
      secret_key_(std::make_shared<const SecretKey>(secret_key.clone())),
      error_scale_(error_scale) {
  if (!context_) throw InvalidArgument("Encryptor: the secret key is empty");
  detail::require_secret_key(*context_, secret_key, "Encryptor");
  detail::require_error_scale(*context_, error_scale_, "Encryptor");
}

Ciphertext Encryptor::encrypt(const Plaintext& plain) const {
  require_plaintext(*context_, plain);
  const std::size_t towers = plain.poly.tower_count();
  Ciphertext ct;
  ct.scale = plain.scale;
  ct.slots = plain.slots;
  if (public_key_ != nullptr) {
    // (b u + e_0 + m, a u + e_1) with u ternary. The three samples come from
    // independent streams, so they are drawn in parallel (a stream is
    // sequential, and sampling was the serial part of encryption); then all
    // their towers are transformed in one parallel loop.
    std::array<ring::RnsPoly, 3> samples;  // u, e_0, e_1
    parallel_for(0, 3, [&](std::size_t k) {
      ring::Prng prng = ring::Prng::from_os_entropy();
      samples[k] = ring::RnsPoly::uninitialized(context_->ciphertext_ring(), towers);
      if (k == 0) {
        ring::sample_ternary(prng, samples[k]);
      } else {
        ring::sample_gaussian(prng, samples[k]);
      }
    });
    scale_error(samples[1], error_scale_);
    scale_error(samples[2], error_scale_);
    // A plaintext in coefficient form joins e_0 before the transform.
    const bool plain_in_ntt = plain.poly.is_ntt();
    if (!plain_in_ntt) samples[1] += plain.poly;
    parallel_for(0, 3 * towers, [&](std::size_t task) {
      ring::RnsPoly& poly = samples[task / towers];
      const std::size_t tower = task % towers;
      math::ntt_forward(poly.tower(tower), context_->ciphertext_ring()->ntt_tables(tower));
    });
    for (auto& poly : samples)
      poly.declare_form(ring::Form::ntt);
    // c0 = b u + e_0 + m and c1 = a u + e_1, written over e_0 and e_1: one
    // fused multiply-add per tower, reading the key's first towers in place.
    const ring::RnsPoly& u = samples[0];
    ring::RnsPoly c0 = std::move(samples[1]);
    ring::RnsPoly c1 = std::move(samples[2]);
    const auto& ring = *context_->ciphertext_ring();
    parallel_for(0, towers, [&](std::size_t i) {
      const math::Modulus& q = ring.modulus(i);
      math::fma_mod(public_key_->b.tower(i), u.tower(i), c0.tower(i), c0.tower(i), q);
      if (plain_in_ntt) math::add_mod(c0.tower(i), plain.poly.tower(i), c0.tower(i), q);
      math::fma_mod(public_key_->a.tower(i), u.tower(i), c1.tower(i), c1.tower(i), q);
    });
    c0.mark_public();
    c1.mark_public();
    ct.parts.push_back(std::move(c0));
    ct.parts.push_back(std::move(c1));
    return ct;
  }
  SeededCiphertext seeded = encrypt_seeded(plain);
  return expand_seeded(*context_, seeded);
}

SeededCiphertext Encryptor::encrypt_seeded(const Plaintext& plain) const {
  if (secret_key_ == nullptr) {
    throw InvalidArgument(
        "seeded encryption needs the secret key: construct the Encryptor with it");
  }
  require_plaintext(*context_, plain);
  const std::size_t towers = plain.poly.tower_count();
  ring::Prng prng = ring::Prng::from_os_entropy();
  SeededCiphertext out;
  out.seed = ring::Prng::os_entropy_seed();
  out.scale = plain.scale;
  out.slots = plain.slots;
  // c_0 = -a s + e + m with a expanded from the seed.
  const ring::RnsPoly a = expand_ciphertext_mask(*context_, out.seed, towers);
  out.c0 = a * first_towers(secret_key_->q_part(), towers);
  out.c0.negate();
  out.c0 += gaussian_poly(*context_, prng, towers, error_scale_, plain.poly);
  if (plain.poly.is_ntt()) out.c0 += plain.poly;
  out.c0.mark_public();
  return out;
}

Ciphertext expand_seeded(const Context& context, const SeededCiphertext& seeded) {
  detail::require_ciphertext_ring_poly(context, seeded.c0, "expand_seeded", "the ciphertext");
  if (!seeded.c0.is_ntt()) {
    throw MismatchError("expand_seeded: c0 must be in NTT form, as encrypt_seeded makes it");
  }
  Ciphertext ct;
  ct.scale = seeded.scale;
  ct.slots = seeded.slots;
  ct.parts.push_back(seeded.c0.clone());
  ct.parts.push_back(expand_ciphertext_mask(context, seeded.seed, seeded.c0.tower_count()));
  ct.c1_seed = seeded.seed;
  return ct;
}

Decryptor::Decryptor(const SecretKey& secret_key)
    : secret_key_(std::make_shared<const SecretKey>(secret_key.clone())) {
  if (!secret_key.context()) throw InvalidArgument("Decryptor: the secret key is empty");
  detail::require_secret_key(*secret_key.context(), secret_key, "Decryptor");
}

Plaintext Decryptor::decrypt(const Ciphertext& ct) const {
  const Context& context = *secret_key_->context();
  require_ciphertext(context, ct, "decrypt");
  const std::size_t towers = ct.parts[0].tower_count();
  const ring::RnsPoly& s = secret_key_->q_part();
  // Horner per tower, reading the key's first towers in place (no copy of
  // the key): m = ((c_k s + c_{k-1}) s + ...) s + c_0.
  ring::RnsPoly m = ct.parts.back().clone();
  m.mark_secret();  // the message is what the key protects
  parallel_for(0, towers, [&](std::size_t t) {
    const math::Modulus& q = m.modulus(t);
    auto tower = m.tower(t);
    for (std::size_t i = ct.parts.size() - 1; i-- > 0;) {
      math::fma_mod(tower, s.tower(t), ct.parts[i].tower(t), tower, q);
    }
  });
  Plaintext plain;
  plain.poly = std::move(m);
  plain.scale = ct.scale;
  plain.slots = ct.slots;
  return plain;
}

}  // namespace heft::rlwe
