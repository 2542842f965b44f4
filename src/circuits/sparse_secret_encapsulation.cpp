// Sparse-secret encapsulation: the small context, the two keys, and the
// switches to and from the sparse secret (see the header).
#include "heft/circuits/sparse_secret_encapsulation.hpp"

#include <string.h>  // explicit_bzero (glibc)

#include <algorithm>
#include <string>
#include <vector>

#include "heft/ring/prng.hpp"
#include "heft/ring/samplers.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "heft/util/error.hpp"

namespace heft::circuits {

namespace {

// Zeroes a vector of secret coefficients (explicit_bzero: not elided).
void wipe(std::vector<int64_t>& values) {
  explicit_bzero(values.data(), values.size() * sizeof(int64_t));
}

// `poly` (one tower of q_0, either form) as a coefficient-form polynomial of
// `ring`, whose first tower is the same prime q_0.
ring::RnsPoly copy_tower_zero(const ring::RnsPoly& poly,
                              const std::shared_ptr<const ring::PolyContext>& ring) {
  const ring::RnsPoly coefficients = poly.coefficient_form();
  ring::RnsPoly out = ring::RnsPoly::uninitialized(ring, 1, ring::Form::coefficient);
  std::ranges::copy(coefficients.tower(0), out.tower(0).begin());
  return out;
}

}  // namespace

SparseSecretEncapsulation::SparseSecretEncapsulation(std::shared_ptr<const rlwe::Context> context,
                                                     std::size_t hamming_weight)
    : context_(std::move(context)), hamming_weight_(hamming_weight) {
  if (!context_) throw InvalidArgument("SparseSecretEncapsulation needs a context");
  if (hamming_weight_ == 0 || hamming_weight_ > context_->degree()) {
    throw InvalidArgument("SparseSecretEncapsulation: the Hamming weight " +
                          std::to_string(hamming_weight_) +
                          " is outside [1, N = " + std::to_string(context_->degree()) + "]");
  }
  if (!context_->supports_key_switching()) {
    throw InvalidArgument("SparseSecretEncapsulation: the parameters have no special prime");
  }
  const rlwe::Parameters& main = context_->parameters();
  rlwe::Parameters small;
  small.degree = main.degree;
  small.ciphertext_moduli = {main.ciphertext_moduli.front()};
  small.special_moduli = {main.special_moduli.front()};
  small.dnum = 1;
  small.secret = {rlwe::SecretKind::sparse_ternary, hamming_weight_};
  // Its security is that of sparse RLWE at about 121 bits of modulus (see
  // the header), which the HE Standard table does not cover.
  small.security = rlwe::SecurityLevel::none;
  small_context_ = rlwe::Context::create(small);
}

SparseSecretKeys SparseSecretEncapsulation::create_keys(const rlwe::SecretKey& dense) const {
  if (dense.context() != context_) {
    throw MismatchError(
        "SparseSecretEncapsulation::create_keys: the secret key is of another context");
  }
  ring::Prng prng = ring::Prng::from_os_entropy();
  std::vector<int64_t> sparse(context_->degree());
  ring::sample_sparse_ternary(prng, hamming_weight_, sparse);
  std::vector<int64_t> dense_coefficients = dense.coefficients();
  const rlwe::SecretKey sparse_small = rlwe::SecretKey::from_coefficients(small_context_, sparse);
  const rlwe::SecretKey sparse_main = rlwe::SecretKey::from_coefficients(context_, sparse);
  const rlwe::SecretKey dense_small =
      rlwe::SecretKey::from_coefficients(small_context_, dense_coefficients);
  wipe(sparse);
  wipe(dense_coefficients);
  SparseSecretKeys keys;
  keys.to_sparse =
      rlwe::KeyGenerator(small_context_, sparse_small).create_switch_key(dense_small.q_part());
  keys.to_dense = rlwe::KeyGenerator(context_, dense).create_switch_key(sparse_main.q_part());
  return keys;
}

rlwe::Ciphertext SparseSecretEncapsulation::to_sparse(const rlwe::Ciphertext& x,
                                                      const SparseSecretKeys& keys) const {
  if (x.size() != 2 || x.level() != 0) {
    throw InvalidArgument(
        "SparseSecretEncapsulation::to_sparse: needs a two-part ciphertext at "
        "level 0 (this one has " +
        std::to_string(x.size()) + " parts at level " + std::to_string(x.level()) + ")");
  }
  if (keys.to_sparse.context != small_context_) {
    throw MismatchError(
        "SparseSecretEncapsulation::to_sparse: the key is not this "
        "encapsulation's (create_keys makes it)");
  }
  const auto& small_ring = small_context_->ciphertext_ring();
  const ring::RnsPoly c1 = copy_tower_zero(x.parts[1], small_ring);
  auto [d0, d1] = rlwe::switch_key(*small_context_, c1, keys.to_sparse);
  ring::RnsPoly c0 = copy_tower_zero(x.parts[0], small_ring);
  c0.ntt();
  d0 += c0;
  // Back into the main ring, in x's form.
  rlwe::Ciphertext out = rlwe::Ciphertext::with_metadata(x);
  for (const ring::RnsPoly* part : {&d0, &d1}) {
    ring::RnsPoly main_part = copy_tower_zero(*part, context_->ciphertext_ring());
    if (x.parts[0].is_ntt()) main_part.ntt();
    out.parts.push_back(std::move(main_part));
  }
  return out;
}

rlwe::Ciphertext SparseSecretEncapsulation::to_dense(const rlwe::Ciphertext& x,
                                                     const SparseSecretKeys& keys) const {
  if (x.size() != 2) {
    throw InvalidArgument("SparseSecretEncapsulation::to_dense: needs a two-part ciphertext");
  }
  if (keys.to_dense.context != context_) {
    throw MismatchError("SparseSecretEncapsulation::to_dense: the key is not of this context");
  }
  auto [d0, d1] = rlwe::switch_key(*context_, x.parts[1], keys.to_dense);
  rlwe::Ciphertext out = rlwe::Ciphertext::with_metadata(x);
  if (x.parts[0].is_ntt()) {
    d0 += x.parts[0];
  } else {
    d0 += [&] {
      ring::RnsPoly c0 = x.parts[0].clone();
      c0.ntt();
      return c0;
    }();
    d0.intt();
    d1.intt();
  }
  out.parts.push_back(std::move(d0));
  out.parts.push_back(std::move(d1));
  return out;
}

}  // namespace heft::circuits
