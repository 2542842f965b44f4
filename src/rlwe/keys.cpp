// Key generation: secret keys from the context's distribution, public keys,
// and hybrid key-switching keys (relinearization, Galois).
#include "heft/rlwe/keys.hpp"

#include <string>
#include <vector>

#include "heft/math/kernels.hpp"
#include "heft/ring/prng.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "rlwe/seeded_masks.hpp"

namespace heft::rlwe {
namespace {

// Overwrites a vector of secret integers before it is freed.
void wipe(std::vector<int64_t>& values) {
  volatile int64_t* p = values.data();
  for (std::size_t i = 0; i < values.size(); ++i)
    p[i] = 0;
}

// One integer polynomial reduced into both rings (the first q_towers
// ciphertext primes, every special prime), in NTT form.
ExtendedPoly to_extended(const Context& context, const std::vector<int64_t>& values, bool secret,
                         std::size_t q_towers) {
  ExtendedPoly out;
  out.q = ring::RnsPoly(context.ciphertext_ring(), q_towers);
  if (secret) out.q.mark_secret();
  out.q.set_coefficients(values);
  out.q.ntt();
  if (context.supports_key_switching()) {
    out.p = ring::RnsPoly(context.special_ring(), context.special_count());
    if (secret) out.p.mark_secret();
    out.p.set_coefficients(values);
    out.p.ntt();
  }
  return out;
}

ExtendedPoly sample_gaussian_extended(const Context& context, ring::Prng& prng,
                                      std::size_t q_towers) {
  std::vector<int64_t> e(context.degree());
  ring::sample_gaussian(prng, e);
  ExtendedPoly out = to_extended(context, e, true, q_towers);
  wipe(e);
  return out;
}

}  // namespace

SecretKey::SecretKey(std::shared_ptr<const Context> context, ring::RnsPoly s_q, ring::RnsPoly s_p)
    : context_(std::move(context)), s_q_(std::move(s_q)), s_p_(std::move(s_p)) {
  s_q_.mark_secret();
  if (!s_p_.empty()) s_p_.mark_secret();
}

SecretKey SecretKey::clone() const {
  return SecretKey(context_, s_q_.clone(), s_p_.empty() ? ring::RnsPoly() : s_p_.clone());
}

const KeySwitchKey& GaloisKeys::at(uint64_t galois_element) const {
  return at(galois_element, "GaloisKeys::at");
}

const KeySwitchKey& GaloisKeys::at(uint64_t galois_element, std::string_view operation,
                                   std::optional<int64_t> step) const {
  const auto it = keys_.find(galois_element);
  if (it == keys_.end()) {
    const std::string what = step ? "step " + std::to_string(*step) + " (Galois element " +
                                        std::to_string(galois_element) + ")"
                                  : "Galois element " + std::to_string(galois_element);
    throw InvalidArgument(std::string(operation) + ": no Galois key for " + what +
                          "; generate it with KeyGenerator::create_galois_keys");
  }
  return it->second;
}

void GaloisKeys::insert(uint64_t galois_element, KeySwitchKey key) {
  // Rotations look keys up by element and apply the key's own element, so
  // the two must agree or a rotation would silently go by another step.
  if (key.galois_element != galois_element) {
    throw InvalidArgument("GaloisKeys::insert: the key is for element " +
                          std::to_string(key.galois_element) + ", not " +
                          std::to_string(galois_element));
  }
  if (!context_) throw InvalidArgument("GaloisKeys::insert: these keys have no context");
  detail::require_same_context(*context_, key.context.get(), "GaloisKeys::insert", "the key");
  // A key stored under 0 would later be applied as "no automorphism".
  if (galois_element == 1 || !context_->ciphertext_ring()->is_galois_element(galois_element)) {
    throw InvalidArgument("GaloisKeys::insert: element " + std::to_string(galois_element) +
                          " is not a rotation's automorphism (it must be odd, not 1, and below "
                          "2N = " +
                          std::to_string(2 * context_->degree()) + ")");
  }
  keys_.insert_or_assign(galois_element, std::move(key));
}

KeySwitchKey GaloisKeys::extract(uint64_t galois_element) {
  const auto it = keys_.find(galois_element);
  if (it == keys_.end()) {
    throw InvalidArgument("GaloisKeys::extract: no key for Galois element " +
                          std::to_string(galois_element));
  }
  KeySwitchKey key = std::move(it->second);
  keys_.erase(it);
  return key;
}

std::vector<uint64_t> GaloisKeys::elements() const {
  std::vector<uint64_t> out;
  for (const auto& [g, key] : keys_)
    out.push_back(g);
  return out;
}

SecretKey SecretKey::from_coefficients(std::shared_ptr<const Context> context,
                                       std::span<const int64_t> coefficients) {
  if (!context) throw InvalidArgument("SecretKey::from_coefficients needs a context");
  if (coefficients.size() != context->degree()) {
    throw InvalidArgument("SecretKey::from_coefficients: " + std::to_string(coefficients.size()) +
                          " coefficients given, the ring degree is " +
                          std::to_string(context->degree()));
  }
  int64_t outside = 0;  // branch-free scan: the values are secret
  for (int64_t c : coefficients)
    outside |= static_cast<int64_t>(c < -1) | static_cast<int64_t>(c > 1);
  if (outside != 0) {
    throw InvalidArgument("SecretKey::from_coefficients: coefficients must be in {-1, 0, 1}");
  }
  std::vector<int64_t> values(coefficients.begin(), coefficients.end());
  ExtendedPoly key = to_extended(*context, values, true, context->level_count());
  wipe(values);
  return SecretKey(std::move(context), std::move(key.q), std::move(key.p));
}

std::vector<int64_t> SecretKey::coefficients() const {
  if (!context_) throw InvalidArgument("SecretKey::coefficients: the key is empty");
  ring::RnsPoly tower0 = s_q_.clone();
  tower0.drop_last_towers(tower0.tower_count() - 1);
  tower0.intt();
  const uint64_t q = tower0.modulus(0).value();
  std::vector<int64_t> out(context_->degree());
  const auto residues = tower0.tower(0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    // Centred lift of [0, q) to (-q/2, q/2], without a secret-dependent branch.
    const uint64_t r = residues[i];
    const uint64_t upper = static_cast<uint64_t>(r > q / 2);
    out[i] = static_cast<int64_t>(r) - static_cast<int64_t>(upper * q);
  }
  return out;
}

KeyGenerator::KeyGenerator(std::shared_ptr<const Context> context, uint64_t error_scale)
    : context_(std::move(context)), error_scale_(error_scale) {
  if (!context_) throw InvalidArgument("KeyGenerator needs a context");
  detail::require_error_scale(*context_, error_scale_, "KeyGenerator");
  ring::Prng prng = ring::Prng::from_os_entropy();
  std::vector<int64_t> s(context_->degree());
  const SecretDistribution& distribution = context_->parameters().secret;
  if (distribution.kind == SecretKind::sparse_ternary) {
    ring::sample_sparse_ternary(prng, distribution.hamming_weight, s);
  } else {
    ring::sample_ternary(prng, s);
  }
  ExtendedPoly key = to_extended(*context_, s, true, context_->level_count());
  wipe(s);
  secret_key_ = SecretKey(context_, std::move(key.q), std::move(key.p));
}

KeyGenerator::KeyGenerator(std::shared_ptr<const Context> context, const SecretKey& secret_key,
                           uint64_t error_scale)
    : context_(std::move(context)), secret_key_(secret_key.clone()), error_scale_(error_scale) {
  if (!context_) throw InvalidArgument("KeyGenerator needs a context");
  detail::require_secret_key(*context_, secret_key_, "KeyGenerator");
  detail::require_error_scale(*context_, error_scale_, "KeyGenerator");
}

void KeyGenerator::scale_error(ExtendedPoly& e) const {
  // Skipped at 1 so that CKKS/BFV keys are produced exactly as before.
  if (error_scale_ == 1) return;
  e.q.multiply_scalar(error_scale_);
  if (!e.p.empty()) e.p.multiply_scalar(error_scale_);
}

PublicKey KeyGenerator::create_public_key() const {
  // The mask comes from a seed that may be published (compact serialization);
  // the error from a separate, private stream.
  PublicKey pk;
  pk.context = context_;
  pk.a_seed = ring::Prng::os_entropy_seed();
  pk.a = expand_ciphertext_mask(*context_, *pk.a_seed, context_->level_count());
  ring::Prng prng = ring::Prng::from_os_entropy();
  ExtendedPoly e = sample_gaussian_extended(*context_, prng, context_->level_count());
  scale_error(e);
  pk.error_scale = error_scale_;
  pk.b = pk.a * secret_key_.q_part();
  pk.b.negate();
  pk.b += e.q;
  pk.b.mark_public();
  return pk;
}

KeySwitchKey KeyGenerator::create_switch_key(const ring::RnsPoly& s_prime_q,
                                             std::optional<std::size_t> max_level) const {
  detail::require_special_primes(*context_, "create_switch_key");
  detail::require_ntt_poly(s_prime_q, context_->ciphertext_ring(), context_->level_count(),
                           "create_switch_key", "s'");
  const std::size_t levels = key_tower_count(max_level, "create_switch_key");
  // Masks from a publishable seed, errors from a private stream (as above).
  const ring::Prng::Seed mask_seed = ring::Prng::os_entropy_seed();
  std::vector<ExtendedPoly> masks = expand_switch_key_masks(*context_, mask_seed, 1, levels);
  ring::Prng prng = ring::Prng::from_os_entropy();
  const std::size_t digit_size = context_->digit_size();
  // s over the key's towers only (a copy, wiped like the key).
  ring::RnsPoly s_q = secret_key_.q_part().clone();
  s_q.drop_last_towers(context_->level_count() - levels);
  KeySwitchKey key;
  key.context = context_;
  key.error_scale = error_scale_;
  key.a_seed = mask_seed;
  for (std::size_t digit = 0; digit < context_->digit_count_at(levels - 1); ++digit) {
    ExtendedPoly a = std::move(masks[digit]);
    ExtendedPoly b = sample_gaussian_extended(*context_, prng, levels);
    scale_error(b);
    // b = e - a s, then + P s' on the towers of this digit (P = 0 mod p_k).
    b.q -= a.q * s_q;
    b.p -= a.p * secret_key_.p_part();
    const std::size_t begin = digit * digit_size;
    const std::size_t end = std::min(begin + digit_size, levels);
    for (std::size_t t = begin; t < end; ++t) {
      const math::Modulus& q = context_->ciphertext_ring()->modulus(t);
      math::fma_scalar_mod(s_prime_q.tower(t), context_->special_product_mod_q()[t], b.q.tower(t),
                           b.q.tower(t), q);
    }
    b.q.mark_public();
    b.p.mark_public();
    key.b.push_back(std::move(b));
    key.a.push_back(std::move(a));
  }
  return key;
}

std::size_t KeyGenerator::key_tower_count(std::optional<std::size_t> max_level,
                                          const char* operation) const {
  if (!max_level) return context_->level_count();
  if (*max_level > context_->max_level()) {
    throw InvalidArgument(std::string(operation) + ": max_level " + std::to_string(*max_level) +
                          " is above the top level " + std::to_string(context_->max_level()));
  }
  return *max_level + 1;
}

RelinKey KeyGenerator::create_relin_key() const {
  return RelinKey{create_switch_key(secret_key_.q_part() * secret_key_.q_part())};
}

GaloisKeys KeyGenerator::create_galois_keys_for_elements(
    std::span<const uint64_t> elements, std::optional<std::size_t> max_level) const {
  // Refuses a bad level before any work.
  static_cast<void>(key_tower_count(max_level, "create_galois_keys"));
  GaloisKeys keys(context_);
  for (uint64_t g : elements) {
    context_->ciphertext_ring()->require_galois_element(g);
    if (g == 1 || keys.has(g)) continue;  // 1 is the identity: nothing to switch
    // The key switches from s(X^g) back to s; it is stored permuted by the
    // inverse automorphism so that rotations permute results, not digits.
    const ring::RnsPoly s_g_q = secret_key_.q_part().automorphism(g);
    KeySwitchKey key = create_switch_key(s_g_q, max_level);
    const uint64_t g_inverse = math::Modulus(2 * context_->degree()).inverse(g);
    for (std::vector<ExtendedPoly>* parts : {&key.b, &key.a}) {
      for (ExtendedPoly& part : *parts) {
        part.q = part.q.automorphism(g_inverse);
        part.p = part.p.automorphism(g_inverse);
        part.q.mark_public();
        part.p.mark_public();
      }
    }
    key.galois_element = g;
    keys.insert(g, std::move(key));
  }
  return keys;
}

GaloisKeys KeyGenerator::create_galois_keys(std::span<const int64_t> steps,
                                            bool include_conjugation,
                                            std::optional<std::size_t> max_level) const {
  std::vector<uint64_t> elements;
  for (int64_t step : steps)
    elements.push_back(context_->galois_element_for_step(step));
  if (include_conjugation) elements.push_back(context_->conjugation_galois_element());
  return create_galois_keys_for_elements(elements, max_level);
}

}  // namespace heft::rlwe
