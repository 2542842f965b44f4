// The operand checks and their messages, each written once (see
// operand_checks.hpp), and the public require_ciphertext / require_relin_key.
#include "rlwe/operand_checks.hpp"

#include <bit>
#include <cmath>
#include <numeric>
#include <string>

#include "heft/rlwe/encryptor.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe::detail {
namespace {

std::string prefix(std::string_view operation) {
  return std::string(operation) + ": ";
}

}  // namespace

void throw_different_context(std::string_view operation, std::string_view what) {
  const bool plural = what.ends_with("keys");
  throw MismatchError(prefix(operation) + std::string(what) + (plural ? " belong" : " belongs") +
                      " to a different context");
}

void require_same_context(const Context& context, const Context* owner, std::string_view operation,
                          std::string_view what) {
  if (owner != &context) throw_different_context(operation, what);
}

void require_ciphertext_ring_poly(const Context& context, const ring::RnsPoly& p,
                                  std::string_view operation, std::string_view what) {
  // An empty polynomial is a MismatchError too: it has no ring to match.
  if (p.empty()) throw MismatchError(prefix(operation) + std::string(what) + " is empty");
  if (p.context() != context.ciphertext_ring()) throw_different_context(operation, what);
}

void require_ntt_form(const ring::RnsPoly& p, std::string_view operation, std::string_view what) {
  if (!p.is_ntt())
    throw MismatchError(prefix(operation) + std::string(what) + " must be in NTT form");
}

void require_galois_keys(const Context& context, const GaloisKeys& keys,
                         std::string_view operation) {
  require_same_context(context, keys.context().get(), operation, "the Galois keys");
}

void require_special_primes(const Context& context, std::string_view operation) {
  if (!context.supports_key_switching()) {
    throw InvalidArgument(prefix(operation) +
                          "key switching needs special primes: these parameters have none");
  }
}

void require_relinearized(const Ciphertext& a, std::string_view operation) {
  if (a.size() != 2) {
    throw InvalidArgument(prefix(operation) + "relinearize the ciphertext first (it has " +
                          std::to_string(a.size()) + " parts; this operation takes 2)");
  }
}

void require_product(const Ciphertext& a, std::string_view operation) {
  if (a.size() != 3) {
    throw InvalidArgument(prefix(operation) + "the ciphertext has " + std::to_string(a.size()) +
                          " parts; relinearization takes a 3-part ciphertext (a product)");
  }
}

void require_level(const Context& context, std::size_t level, std::string_view operation) {
  if (level > context.max_level()) {
    throw InvalidArgument(prefix(operation) + "level " + std::to_string(level) +
                          " is above the top level " + std::to_string(context.max_level()) +
                          " of these parameters");
  }
}

void require_lower_level(std::size_t target, std::size_t level, std::string_view operation) {
  if (target > level) {
    throw InvalidArgument(prefix(operation) + "the target level " + std::to_string(target) +
                          " is above the ciphertext's level " + std::to_string(level) +
                          " (levels only go down)");
  }
}

void require_prime_to_drop(std::size_t level, std::string_view operation, std::string_view what) {
  if (level == 0) {
    throw InvalidArgument(prefix(operation) + std::string(what) +
                          " is at level 0, no prime left to divide by (multiplicative depth "
                          "exhausted)");
  }
}

void require_same_level(std::size_t a, std::size_t b, std::string_view operation,
                        std::string_view remedy) {
  if (a != b) {
    throw MismatchError(prefix(operation) + "operands are at levels " + std::to_string(a) +
                        " and " + std::to_string(b) + "; " + std::string(remedy));
  }
}

std::string scale_and_slots_problem(const Context& context, double scale, uint64_t slots) {
  if (!std::isfinite(scale) || scale <= 0) return "the scale is not a positive finite number";
  if (slots > context.degree() / 2 || (slots != 0 && !std::has_single_bit(slots))) {
    return "slot count " + std::to_string(slots) + " is not 0 or a power of two up to N/2";
  }
  return "";
}

std::string correction_problem(uint64_t correction, uint64_t t) {
  if (t < 2) {
    if (correction == 1) return "";
    return "correction factor " + std::to_string(correction) +
           " is not 1 (these parameters have no plaintext modulus t)";
  }
  if (correction == 0 || correction >= t || std::gcd(correction, t) != 1) {
    return "correction factor " + std::to_string(correction) +
           " is not invertible mod t = " + std::to_string(t) +
           " (it must be in [1, t) and coprime to t)";
  }
  return "";
}

void require_error_scale(const Context& context, uint64_t error_scale, std::string_view operation) {
  const uint64_t t = context.parameters().plain_modulus;
  if (error_scale != 1 && (t == 0 || error_scale != t)) {
    throw InvalidArgument(prefix(operation) + "error scale " + std::to_string(error_scale) +
                          " must be 1, or the plaintext modulus t" +
                          (t == 0 ? " (these parameters have none)" : " = " + std::to_string(t)) +
                          " for BGV");
  }
}

void require_ntt_poly(const ring::RnsPoly& p, const std::shared_ptr<const ring::PolyContext>& ring,
                      std::size_t towers, std::string_view operation, std::string_view what) {
  if (p.empty() || p.context() != ring) {
    throw MismatchError(prefix(operation) + std::string(what) +
                        " is not a polynomial of this context");
  }
  if (p.tower_count() != towers) {
    throw MismatchError(prefix(operation) + std::string(what) + " has " +
                        std::to_string(p.tower_count()) + " towers, expected " +
                        std::to_string(towers));
  }
  require_ntt_form(p, operation, what);
}

void require_extended(const Context& context, const ExtendedPoly& x, std::size_t q_towers,
                      std::string_view operation, std::string_view what) {
  require_special_primes(context, operation);
  require_ntt_poly(x.q, context.ciphertext_ring(), q_towers, operation, what);
  require_ntt_poly(x.p, context.special_ring(), context.special_count(), operation, what);
}

void require_secret_key(const Context& context, const SecretKey& key, std::string_view operation) {
  if (!key.context()) throw InvalidArgument(prefix(operation) + "the secret key is empty");
  require_same_context(context, key.context().get(), operation, "the secret key");
  require_ntt_poly(key.q_part(), context.ciphertext_ring(), context.level_count(), operation,
                   "the secret key");
  if (context.supports_key_switching()) {
    require_ntt_poly(key.p_part(), context.special_ring(), context.special_count(), operation,
                     "the secret key");
  }
}

void require_public_key(const Context& context, const PublicKey& key, std::string_view operation) {
  if (!key.context) throw InvalidArgument(prefix(operation) + "the public key is empty");
  require_same_context(context, key.context.get(), operation, "the public key");
  require_ntt_poly(key.b, context.ciphertext_ring(), context.level_count(), operation,
                   "the public key");
  require_ntt_poly(key.a, context.ciphertext_ring(), context.level_count(), operation,
                   "the public key");
  require_error_scale(context, key.error_scale, operation);
}

void require_valid_switch_key(const Context& context, const KeySwitchKey& key,
                              std::string_view operation) {
  if (!key.context) throw InvalidArgument(prefix(operation) + "the key is empty");
  require_same_context(context, key.context.get(), operation, "the key");
  require_special_primes(context, operation);
  // A key made for level l (keys.hpp) holds l + 1 towers and that level's digits.
  const std::size_t towers = key.b.empty() ? 0 : key.b.front().q.tower_count();
  if (towers == 0 || towers > context.level_count()) {
    throw MismatchError(prefix(operation) + "malformed key-switching key: it has " +
                        std::to_string(towers) + " ciphertext towers, these parameters have " +
                        std::to_string(context.level_count()));
  }
  const std::size_t digits = context.digit_count_at(towers - 1);
  if (key.b.size() != digits || key.a.size() != digits) {
    throw MismatchError(prefix(operation) + "malformed key-switching key: it has " +
                        std::to_string(key.b.size()) + " / " + std::to_string(key.a.size()) +
                        " digits, its " + std::to_string(towers) + " towers need " +
                        std::to_string(digits));
  }
  for (std::size_t j = 0; j < key.b.size(); ++j) {
    require_extended(context, key.b[j], towers, operation, "a key digit");
    require_extended(context, key.a[j], towers, operation, "a key digit");
  }
  require_error_scale(context, key.error_scale, operation);
}

void require_key_reaches(const KeySwitchKey& key, std::size_t q_towers,
                         std::string_view operation) {
  if (q_towers <= key.max_level() + 1) return;
  const std::string kind = key.galois_element == 1
                               ? std::string("key")
                               : "Galois key for element " + std::to_string(key.galois_element);
  throw InvalidArgument(prefix(operation) + "the " + kind +
                        " was made for ciphertexts up to level " + std::to_string(key.max_level()) +
                        ", this one is at level " + std::to_string(q_towers - 1) +
                        "; make the key with a max_level of at least that");
}

void require_non_galois_key(const Context& context, const KeySwitchKey& key,
                            std::string_view operation) {
  require_valid_switch_key(context, key, operation);
  if (key.galois_element != 1) {
    throw InvalidArgument(prefix(operation) +
                          "this is a Galois key (for rotations), not a relinearization or "
                          "switching key");
  }
}

void require_decomposed(const Context& context, const DecomposedPoly& digits,
                        std::string_view operation) {
  if (digits.digits.empty()) throw InvalidArgument(prefix(operation) + "nothing was decomposed");
  if (digits.level >= context.level_count() ||
      digits.digits.size() != context.digit_count_at(digits.level)) {
    throw MismatchError(
        prefix(operation) + "the decomposition was not made under this context (level " +
        std::to_string(digits.level) + ", " + std::to_string(digits.digits.size()) + " digits)");
  }
  for (const ExtendedPoly& digit : digits.digits) {
    require_extended(context, digit, digits.level + 1, operation, "a decomposed digit");
  }
}

}  // namespace heft::rlwe::detail

namespace heft::rlwe {

void require_ciphertext(const Context& context, const Ciphertext& ct, const char* operation) {
  if (ct.parts.size() < 2) {
    throw MismatchError(std::string(operation) + ": ciphertext has " +
                        std::to_string(ct.parts.size()) + " parts, needs at least 2");
  }
  for (const auto& part : ct.parts) {
    if (part.empty() || part.context() != context.ciphertext_ring()) {
      detail::throw_different_context(operation, "the ciphertext");
    }
    if (!part.is_ntt() || part.tower_count() != ct.parts[0].tower_count()) {
      throw MismatchError(std::string(operation) +
                          ": malformed ciphertext (parts differ in form or level)");
    }
  }
}

void require_relin_key(const Context& context, const RelinKey& key, const char* operation) {
  if (!key.key.context) {
    throw InvalidArgument(std::string(operation) + ": the relinearization key is empty");
  }
  detail::require_same_context(context, key.key.context.get(), operation,
                               "the relinearization key");
  detail::require_non_galois_key(context, key.key, operation);
}

}  // namespace heft::rlwe
