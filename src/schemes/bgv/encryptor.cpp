// BGV keys (error scale t), encryption of integer plaintexts, decryption by
// exact CRT reconstruction, and the invariant noise budget.
#include "heft/schemes/bgv/encryptor.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "heft/math/modulus.hpp"
#include "heft/ring/rns_base.hpp"
#include "heft/schemes/bgv/noise_model.hpp"
#include "heft/util/error.hpp"
#include "ring/multiword.hpp"
#include "rlwe/operand_checks.hpp"
#include "schemes/common/plaintext_lift.hpp"

namespace heft::bgv {
namespace {

// log2 of a multi-word little-endian integer (-1 for 0).
double log2_words(std::span<const uint64_t> x) {
  long double value = 0;
  for (std::size_t i = x.size(); i-- > 0;)
    value = value * 18446744073709551616.0L + static_cast<long double>(x[i]);
  return value == 0 ? -1.0 : static_cast<double>(std::log2(value));
}

}  // namespace

uint64_t plain_modulus(const rlwe::Context& context) {
  return schemes::require_plain_modulus(context, "BGV");
}

rlwe::KeyGenerator make_key_generator(std::shared_ptr<const rlwe::Context> context) {
  if (!context) throw InvalidArgument("make_key_generator needs a context");
  const uint64_t t = plain_modulus(*context);
  return rlwe::KeyGenerator(std::move(context), t);
}

rlwe::KeyGenerator make_key_generator(std::shared_ptr<const rlwe::Context> context,
                                      const rlwe::SecretKey& secret_key) {
  if (!context) throw InvalidArgument("make_key_generator needs a context");
  const uint64_t t = plain_modulus(*context);
  return rlwe::KeyGenerator(std::move(context), secret_key, t);
}

void require_correction(uint64_t correction, uint64_t t, const char* operation) {
  const std::string problem = rlwe::detail::correction_problem(correction, t);
  if (!problem.empty()) {
    throw InvalidArgument(std::string(operation) + ": the ciphertext's " + problem);
  }
}

void require_plaintext(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                       const char* operation) {
  schemes::require_integer_plaintext(context, plain, operation);
}

ring::RnsPoly lift_plaintext(const rlwe::Context& context, const schemes::IntegerPlaintext& plain,
                             std::size_t level) {
  require_plaintext(context, plain, "lift_plaintext");
  return schemes::lift_centered(context, plain, level);
}

Encryptor::Encryptor(const rlwe::PublicKey& public_key)
    : context_(public_key.context), encryptor_(public_key) {
  if (public_key.error_scale != plain_modulus(*context_)) {
    throw MismatchError(
        "BGV encryption needs a public key with errors scaled by t: make it with "
        "bgv::make_key_generator");
  }
  fresh_noise_log2_ = NoiseModel(*context_).fresh(true);
}

Encryptor::Encryptor(const rlwe::SecretKey& secret_key)
    : context_(secret_key.context()),
      encryptor_(secret_key, secret_key.context()
                                 ? plain_modulus(*secret_key.context())
                                 : throw InvalidArgument("Encryptor: the secret key is empty")),
      fresh_noise_log2_(NoiseModel(*context_).fresh(false)) {}

Ciphertext Encryptor::encrypt(const schemes::IntegerPlaintext& plain,
                              std::optional<std::size_t> level) const {
  require_plaintext(*context_, plain, "encrypt");
  const std::size_t l = level.value_or(context_->max_level());
  rlwe::detail::require_level(*context_, l, "encrypt");
  rlwe::Plaintext lifted;
  // Coefficient form: encryption adds it to the error before one transform.
  lifted.poly = schemes::lift_centered(*context_, plain, l, ring::Form::coefficient);
  Ciphertext out = encryptor_.encrypt(lifted);
  out.noise_log2 = fresh_noise_log2_;
  return out;
}

Decryptor::Decryptor(const rlwe::SecretKey& secret_key)
    : context_(secret_key.context()), decryptor_(secret_key) {
  plain_modulus(*context_);
  const ring::RnsBase& full = context_->ciphertext_ring()->base();
  const ring::RnsBase plain_base({math::Modulus(plain_modulus(*context_))});
  for (std::size_t l = 0; l < context_->level_count(); ++l) {
    level_bases_.push_back(l + 1 == full.size() ? full : full.drop_last(full.size() - l - 1));
    to_plain_.push_back(std::make_unique<ring::BaseConverter>(level_bases_.back(), plain_base));
  }
}

template <typename F>
void Decryptor::for_each_composed(const Ciphertext& ct, F&& f) const {
  rlwe::Plaintext raw = decryptor_.decrypt(ct);  // checks the ciphertext
  raw.poly.intt();
  const ring::RnsBase& base = level_bases_[ct.level()];
  const std::size_t towers = base.size();
  const std::size_t n = context_->degree();
  std::vector<uint64_t> residues(towers);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < towers; ++k)
      residues[k] = raw.poly.tower(k)[i];
    std::vector<uint64_t> x = base.compose(residues);
    f(i, std::span<const uint64_t>(x), base.product());
    std::fill(x.begin(), x.end(), 0);  // it carries the message
  }
  std::fill(residues.begin(), residues.end(), 0);
}

schemes::IntegerPlaintext Decryptor::decrypt(const Ciphertext& ct) const {
  const math::Modulus t(plain_modulus(*context_));
  require_correction(ct.correction, t.value(), "decrypt");
  rlwe::Plaintext raw = decryptor_.decrypt(ct);  // checks the ciphertext
  raw.poly.intt();
  schemes::IntegerPlaintext out;
  out.modulus = t.value();
  out.coefficients.resize(context_->degree());
  // m = ([c0 + c1 s]_Q centered) mod t, exactly, by base conversion to {t}.
  to_plain_[ct.level()]->convert_exact_centered(raw.poly.data(), out.coefficients,
                                                context_->degree());
  const uint64_t correction_shoup = t.shoup(ct.correction);
  for (auto& m : out.coefficients)
    m = t.mul_shoup(m, ct.correction, correction_shoup);
  return out;
}

int Decryptor::invariant_noise_budget(const Ciphertext& ct) const {
  rlwe::require_ciphertext(*context_, ct, "invariant_noise_budget");
  double max_log = -1.0;
  double log_q = 0.0;
  for_each_composed(ct, [&](std::size_t, std::span<const uint64_t> x, std::span<const uint64_t> q) {
    // The centred size of x: x itself, or q - x when that is smaller.
    ring::detail::Words negated(q.begin(), q.end());
    ring::detail::sub_in_place(negated, x);
    const double l = log2_words(ring::detail::compare(x, negated) > 0 ? negated : x);
    max_log = std::max(max_log, l);
    log_q = log2_words(q);
  });
  const double budget = (log_q - 1.0) - std::max(max_log, 0.0);
  return budget <= 0 ? 0 : static_cast<int>(std::floor(budget));
}

}  // namespace heft::bgv
