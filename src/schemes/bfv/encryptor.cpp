// BFV encryption (Delta * m through the rlwe encryptors) and exact RNS
// decryption and noise budget (see encryptor.hpp for the method).
#include "heft/schemes/bfv/encryptor.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "heft/ring/base_converter.hpp"
#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"
#include "schemes/common/plaintext_lift.hpp"

namespace heft::bfv {
namespace {

// Bit length of a multi-word integer (0 for zero).
int bit_length(std::span<const uint64_t> words) {
  for (std::size_t i = words.size(); i-- > 0;) {
    if (words[i] != 0) return static_cast<int>(64 * i) + 64 - std::countl_zero(words[i]);
  }
  return 0;
}

// a - b for multi-word a >= b of the same length.
std::vector<uint64_t> subtract(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  std::vector<uint64_t> out(a.size());
  uint64_t borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const uint64_t bi = i < b.size() ? b[i] : 0;
    const uint64_t d = a[i] - bi - borrow;
    borrow = (a[i] < bi || (a[i] == bi && borrow)) ? 1 : 0;
    out[i] = d;
  }
  return out;
}

}  // namespace

Encryptor::Encryptor(const rlwe::PublicKey& public_key)
    : context_(public_key.context), encryptor_(public_key) {
  schemes::require_plain_modulus(*context_, "bfv::Encryptor");
}

Encryptor::Encryptor(const rlwe::SecretKey& secret_key)
    : context_(secret_key.context()), encryptor_(secret_key) {
  schemes::require_plain_modulus(*context_, "bfv::Encryptor");
}

Ciphertext Encryptor::encrypt(const IntegerPlaintext& plain) const {
  return encrypt(plain, context_->max_level());
}

Ciphertext Encryptor::encrypt(const IntegerPlaintext& plain, std::size_t level) const {
  rlwe::detail::require_level(*context_, level, "encrypt");
  schemes::require_integer_plaintext(*context_, plain, "encrypt");
  rlwe::Plaintext scaled;
  scaled.poly = schemes::lift_scaled(*context_, plain, level, ring::Form::coefficient);
  scaled.poly.mark_secret();  // the message is what encryption protects
  return encryptor_.encrypt(scaled);
}

Decryptor::Decryptor(const rlwe::SecretKey& secret_key)
    : context_(secret_key.context()), decryptor_(secret_key) {
  schemes::require_plain_modulus(*context_, "bfv::Decryptor");
}

ring::RnsPoly Decryptor::scaled_phase(const Ciphertext& ciphertext, const char* op) const {
  rlwe::require_ciphertext(*context_, ciphertext, op);
  ring::RnsPoly x = decryptor_.decrypt(ciphertext).poly;
  x.intt();
  x.multiply_scalar(context_->parameters().plain_modulus);
  return x;
}

IntegerPlaintext Decryptor::decrypt(const Ciphertext& ciphertext) const {
  ring::RnsPoly r = scaled_phase(ciphertext, "bfv decrypt");
  const uint64_t t = context_->parameters().plain_modulus;
  const ring::RnsBase base = schemes::level_base(*context_, ciphertext.level());
  const math::Modulus t_mod(t);
  const ring::RnsBase t_base({t_mod});
  const ring::BaseConverter to_t(base, t_base);
  std::vector<uint64_t> r_mod_t(context_->degree());
  to_t.convert_exact_centered(r.data(), r_mod_t, context_->degree());
  // m = -r * Q^-1 (mod t): t x - r is Q * round(t x / Q) and t x = 0 mod t.
  const uint64_t q_mod_t = t_base.decompose(base.product())[0];
  const uint64_t neg_q_inv = t_mod.negate(t_mod.inverse(q_mod_t));
  IntegerPlaintext plain;
  plain.modulus = t;
  plain.coefficients.resize(context_->degree());
  for (std::size_t k = 0; k < plain.coefficients.size(); ++k) {
    plain.coefficients[k] = t_mod.mul(r_mod_t[k], neg_q_inv);
  }
  std::fill(r_mod_t.begin(), r_mod_t.end(), 0);  // derived from the secret-keyed phase
  return plain;
}

int Decryptor::invariant_noise_budget(const Ciphertext& ciphertext) const {
  const ring::RnsPoly r = scaled_phase(ciphertext, "invariant_noise_budget");
  const ring::RnsBase base = schemes::level_base(*context_, ciphertext.level());
  const std::span<const uint64_t> q = base.product();
  const std::vector<uint64_t> half_q = [&] {
    std::vector<uint64_t> h(q.begin(), q.end());
    for (std::size_t i = 0; i < h.size(); ++i) {
      h[i] = (h[i] >> 1) | (i + 1 < h.size() ? h[i + 1] << 63 : 0);
    }
    return h;
  }();
  const auto greater = [](std::span<const uint64_t> a, std::span<const uint64_t> b) {
    for (std::size_t i = a.size(); i-- > 0;) {
      if (a[i] != b[i]) return a[i] > b[i];
    }
    return false;
  };
  // ||r||_inf over the centred representatives, by exact CRT per coefficient.
  const std::size_t n = context_->degree();
  const std::size_t towers = r.tower_count();
  std::vector<uint64_t> residues(towers);
  int max_bits = 0;
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < towers; ++i)
      residues[i] = r.tower(i)[k];
    std::vector<uint64_t> value = base.compose(residues);
    if (greater(value, half_q)) value = subtract(q, value);
    max_bits = std::max(max_bits, bit_length(value));
  }
  std::fill(residues.begin(), residues.end(), 0);
  return std::max(0, bit_length(q) - max_bits - 1);
}

}  // namespace heft::bfv
