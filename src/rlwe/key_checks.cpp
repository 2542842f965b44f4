// Shape checks for keys and key-switching operands (see key_checks.hpp).
#include "rlwe/key_checks.hpp"

#include <bit>
#include <cmath>
#include <string>

#include "heft/util/error.hpp"

namespace heft::rlwe::detail {
namespace {

std::string prefix(const char* operation) {
  return std::string(operation) + ": ";
}

void require_special_primes(const Context& context, const char* operation) {
  if (!context.supports_key_switching()) {
    throw InvalidArgument(prefix(operation) +
                          "key switching needs special primes: these parameters have none");
  }
}

}  // namespace

void require_error_scale(const Context& context, uint64_t error_scale, const char* operation) {
  const uint64_t t = context.parameters().plain_modulus;
  if (error_scale != 1 && (t == 0 || error_scale != t)) {
    throw InvalidArgument(prefix(operation) + "error scale " + std::to_string(error_scale) +
                          " must be 1, or the plaintext modulus t" +
                          (t == 0 ? " (these parameters have none)" : " = " + std::to_string(t)) +
                          " for BGV");
  }
}

void require_ntt_poly(const ring::RnsPoly& p, const std::shared_ptr<const ring::PolyContext>& ring,
                      std::size_t towers, const char* operation, const char* what) {
  if (p.empty() || p.context() != ring) {
    throw MismatchError(prefix(operation) + what + " is not a polynomial of this context");
  }
  if (p.tower_count() != towers) {
    throw MismatchError(prefix(operation) + what + " has " + std::to_string(p.tower_count()) +
                        " towers, expected " + std::to_string(towers));
  }
  if (!p.is_ntt()) throw MismatchError(prefix(operation) + what + " must be in NTT form");
}

void require_extended(const Context& context, const ExtendedPoly& x, std::size_t q_towers,
                      const char* operation, const char* what) {
  require_special_primes(context, operation);
  require_ntt_poly(x.q, context.ciphertext_ring(), q_towers, operation, what);
  require_ntt_poly(x.p, context.special_ring(), context.special_count(), operation, what);
}

void require_secret_key(const Context& context, const SecretKey& key, const char* operation) {
  if (key.context().get() != &context) {
    throw MismatchError(prefix(operation) + "the secret key belongs to a different context");
  }
  require_ntt_poly(key.q_part(), context.ciphertext_ring(), context.level_count(), operation,
                   "the secret key");
  if (context.supports_key_switching()) {
    require_ntt_poly(key.p_part(), context.special_ring(), context.special_count(), operation,
                     "the secret key");
  }
}

void require_public_key(const Context& context, const PublicKey& key, const char* operation) {
  if (key.context.get() != &context) {
    throw MismatchError(prefix(operation) + "the public key belongs to a different context");
  }
  require_ntt_poly(key.b, context.ciphertext_ring(), context.level_count(), operation,
                   "the public key");
  require_ntt_poly(key.a, context.ciphertext_ring(), context.level_count(), operation,
                   "the public key");
  require_error_scale(context, key.error_scale, operation);
}

std::string scale_and_slots_problem(const Context& context, double scale, uint64_t slots) {
  if (!std::isfinite(scale) || scale <= 0) return "the scale is not a positive finite number";
  if (slots > context.degree() / 2 || (slots != 0 && !std::has_single_bit(slots))) {
    return "slot count " + std::to_string(slots) + " is not 0 or a power of two up to N/2";
  }
  return "";
}

void require_switch_key(const Context& context, const KeySwitchKey& key, const char* operation) {
  if (!key.context) throw InvalidArgument(prefix(operation) + "the key is empty");
  if (key.context.get() != &context) {
    throw MismatchError(prefix(operation) + "the key belongs to a different context");
  }
  require_special_primes(context, operation);
  if (key.b.size() != context.digit_count() || key.a.size() != context.digit_count()) {
    throw MismatchError(prefix(operation) + "malformed key-switching key: it has " +
                        std::to_string(key.b.size()) + " / " + std::to_string(key.a.size()) +
                        " digits, these parameters have " + std::to_string(context.digit_count()));
  }
  for (std::size_t j = 0; j < key.b.size(); ++j) {
    require_extended(context, key.b[j], context.level_count(), operation, "a key digit");
    require_extended(context, key.a[j], context.level_count(), operation, "a key digit");
  }
  require_error_scale(context, key.error_scale, operation);
}

void require_switching_key(const Context& context, const KeySwitchKey& key, const char* operation) {
  require_switch_key(context, key, operation);
  if (key.galois_element != 1) {
    throw InvalidArgument(prefix(operation) +
                          "this is a Galois key (for rotations), not a relinearization or "
                          "switching key");
  }
}

void require_decomposed(const Context& context, const DecomposedPoly& digits,
                        const char* operation) {
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

void check_relin_key(const Context& context, const RelinKey& key, const char* operation) {
  if (!key.key.context) {
    throw InvalidArgument(std::string(operation) + ": the relinearization key is empty");
  }
  if (key.key.context.get() != &context) {
    throw MismatchError(std::string(operation) +
                        ": the relinearization key belongs to a different context");
  }
  detail::require_switching_key(context, key.key, operation);
}

}  // namespace heft::rlwe
