// Context construction: rings, digit layout, key-switching and rescaling constants.
#include "heft/rlwe/context.hpp"

#include <string>

#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"
#include "heft/ring/rns_base.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {

std::shared_ptr<const Context> Context::create(const Parameters& parameters) {
  parameters.validate();
  return std::make_shared<const Context>(PrivateTag{}, parameters);
}

Context::Context(PrivateTag, const Parameters& parameters) : parameters_(parameters) {
  const uint64_t n = parameters.degree;
  ciphertext_ring_ =
      ring::PolyContext::create(n, ring::RnsBase::from_values(parameters.ciphertext_moduli));
  if (!parameters.special_moduli.empty()) {
    special_ring_ =
        ring::PolyContext::create(n, ring::RnsBase::from_values(parameters.special_moduli));
  }
  digit_count_ = parameters.digit_count();
  digit_size_ = parameters.digit_size();
  // The digit size fixes how many digits there really are (e.g. L = 5,
  // dnum = 4 gives digits of 2 and so only 3 digits).
  digit_count_ = (level_count() + digit_size_ - 1) / digit_size_;

  const std::size_t levels = level_count();
  inv_special_product_.resize(levels);
  special_product_mod_q_.resize(levels);
  for (std::size_t i = 0; i < levels; ++i) {
    const math::Modulus& q = ciphertext_ring_->modulus(i);
    uint64_t product = 1;
    for (uint64_t p : parameters.special_moduli)
      product = q.mul(product, q.reduce(p));
    special_product_mod_q_[i] = product;
    inv_special_product_[i] = q.inverse(product);
  }
  inv_last_prime_.resize(levels);
  for (std::size_t level = 1; level < levels; ++level) {
    const uint64_t last = parameters.ciphertext_moduli[level];
    for (std::size_t i = 0; i < level; ++i) {
      const math::Modulus& q = ciphertext_ring_->modulus(i);
      inv_last_prime_[level].push_back(q.inverse(q.reduce(last)));
    }
  }
  mod_up_.resize(levels * digit_count_);
  mod_down_.resize(levels);
  mod_down_to_next_.resize(levels);
}

const std::vector<uint64_t>& Context::inv_last_prime(std::size_t level) const {
  if (level == 0 || level >= level_count()) {
    throw InvalidArgument("no prime to rescale by at level " + std::to_string(level));
  }
  return inv_last_prime_[level];
}

const ring::BaseConverter& Context::mod_up_converter(std::size_t level, std::size_t digit) const {
  if (!supports_key_switching()) throw InvalidArgument("these parameters have no special primes");
  if (level >= level_count() || digit >= digit_count_at(level)) {
    throw InvalidArgument("no key-switching digit " + std::to_string(digit) + " at level " +
                          std::to_string(level));
  }
  std::lock_guard<std::mutex> lock(converter_mutex_);
  auto& slot = mod_up_[level * digit_count_ + digit];
  if (!slot) {
    const auto& q = parameters_.ciphertext_moduli;
    const std::size_t begin = digit * digit_size_;
    const std::size_t end = std::min(begin + digit_size_, level + 1);
    std::vector<uint64_t> from(q.begin() + begin, q.begin() + end);
    std::vector<uint64_t> to;
    for (std::size_t i = 0; i <= level; ++i)
      if (i < begin || i >= end) to.push_back(q[i]);
    to.insert(to.end(), parameters_.special_moduli.begin(), parameters_.special_moduli.end());
    slot = std::make_unique<ring::BaseConverter>(ring::RnsBase::from_values(from),
                                                 ring::RnsBase::from_values(to));
  }
  return *slot;
}

const ring::BaseConverter& Context::mod_down_converter(std::size_t level) const {
  if (!supports_key_switching()) throw InvalidArgument("these parameters have no special primes");
  if (level >= level_count()) throw InvalidArgument("no level " + std::to_string(level));
  std::lock_guard<std::mutex> lock(converter_mutex_);
  auto& slot = mod_down_[level];
  if (!slot) {
    const auto& q = parameters_.ciphertext_moduli;
    std::vector<uint64_t> to(q.begin(), q.begin() + level + 1);
    slot = std::make_unique<ring::BaseConverter>(
        ring::RnsBase::from_values(parameters_.special_moduli), ring::RnsBase::from_values(to));
  }
  return *slot;
}

const ring::BaseConverter& Context::mod_down_to_next_converter(std::size_t level) const {
  if (!supports_key_switching()) throw InvalidArgument("these parameters have no special primes");
  if (level == 0 || level >= level_count()) {
    throw InvalidArgument("no prime to divide by at level " + std::to_string(level));
  }
  std::lock_guard<std::mutex> lock(converter_mutex_);
  auto& slot = mod_down_to_next_[level];
  if (!slot) {
    const auto& q = parameters_.ciphertext_moduli;
    std::vector<uint64_t> from = parameters_.special_moduli;
    from.push_back(q[level]);
    std::vector<uint64_t> to(q.begin(), q.begin() + level);
    slot = std::make_unique<ring::BaseConverter>(ring::RnsBase::from_values(from),
                                                 ring::RnsBase::from_values(to));
  }
  return *slot;
}

std::size_t context_bytes(const Parameters& parameters) {
  std::size_t bytes = 0;
  for (const auto* primes : {&parameters.ciphertext_moduli, &parameters.special_moduli}) {
    for (uint64_t q : *primes)
      bytes += math::NttTables::table_bytes(parameters.degree, q);
  }
  // inv_special_product_, special_product_mod_q_ and inv_last_prime_.
  const std::size_t levels = parameters.ciphertext_moduli.size();
  bytes += (2 * levels + levels * (levels - 1) / 2) * sizeof(uint64_t);
  return bytes;
}

uint64_t Context::galois_element_for_step(int64_t step) const {
  const uint64_t two_n = 2 * degree();
  const uint64_t slots = degree() / 2;
  // 5 has order N/2 modulo 2N, so steps are taken modulo N/2.
  int64_t reduced = step % static_cast<int64_t>(slots);
  if (reduced < 0) reduced += static_cast<int64_t>(slots);
  return math::Modulus(two_n).pow(5, static_cast<uint64_t>(reduced));
}

}  // namespace heft::rlwe
