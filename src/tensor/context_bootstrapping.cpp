// TensorContext's bootstrapping: a context on a bootstrapping preset, the
// keys bootstrapping needs (merged into the context's Galois keys), the
// bootstrapper built on first use, and the encryption level it implies.
#include <string>

#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::tensor {

TensorContext::Ptr TensorContext::create_bootstrappable(std::string_view preset_name,
                                                        const BootstrapOptions& options) {
  const circuits::BootstrapPreset preset = circuits::bootstrap_preset(preset_name, options.order);
  if (options.n_threads > 0) set_num_threads(options.n_threads);
  Ptr context = create(preset.parameters);
  circuits::BootstrapParameters parameters = preset.bootstrap;
  parameters.real_slots = options.real_slots;
  context->bootstrap_ = parameters;
  context->bootstrap_depth_ = circuits::Bootstrapper::depth_for(parameters);
  context->global_scale_ = context->ckks_evaluator().scale_at(context->encryption_level());
  return context;
}

std::size_t TensorContext::encryption_level() const noexcept {
  const std::size_t top = context_->max_level();
  if (!bootstrap_) return top;
  return top - bootstrap_depth_;
}

bool TensorContext::has_bootstrap_keys() const {
  if (!bootstrap_ || !galois_keys_ || !relin_key_) return false;
  if (bootstrap_->sparse_secret_weight > 0 && !sparse_keys_) return false;
  // The conjugation key is among every bootstrap's keys; without it the set
  // cannot be complete (bootstrap() names any other missing one).
  return galois_keys_->has(context_->conjugation_galois_element());
}

const circuits::Bootstrapper& TensorContext::bootstrapper(const char* operation) const {
  if (!bootstrap_)
    throw InvalidArgument(std::string(operation) +
                          ": the context cannot bootstrap; make it with create_bootstrappable "
                          "(Python: heft.bootstrappable_context)");
  const std::lock_guard lock(bootstrapper_mutex_);
  if (!bootstrapper_) {
    bootstrapper_ = std::make_shared<circuits::Bootstrapper>(context_, *bootstrap_);
    rehome_sparse_key();
  }
  return *bootstrapper_;
}

void TensorContext::rehome_sparse_key() const {
  const circuits::SparseSecretEncapsulation* encapsulation = bootstrapper_->encapsulation();
  if (!sparse_keys_ || !encapsulation) return;
  const auto& small = encapsulation->small_context();
  if (sparse_keys_->to_sparse.context == small) return;
  // The key (two towers, q_0 and p_0) through its bytes: the same key over
  // the equal parameters of this encapsulation's context object.
  sparse_keys_->to_sparse = rlwe::load_switch_key(small, rlwe::save(sparse_keys_->to_sparse));
}

double TensorContext::bootstrap_key_bytes() const {
  return bootstrapper("bootstrap_key_bytes").key_bytes();
}

void TensorContext::set_auto_bootstrap(bool on) {
  if (on && !is_bootstrappable())
    throw InvalidArgument(
        "TensorContext::set_auto_bootstrap: the context cannot bootstrap (make it with "
        "create_bootstrappable)");
  auto_bootstrap_ = on;
}

void TensorContext::generate_bootstrap_keys(const circuits::KeyProgress& progress) {
  constexpr const char* op = "generate_bootstrap_keys";
  const bool kept = bootstrapper_ != nullptr;
  const rlwe::SecretKey& secret = secret_key(op);
  circuits::BootstrapKeys made = bootstrapper(op).create_keys(secret, progress);
  // A client makes the keys and sends them away: it need not keep the
  // transforms the bootstrapper encoded to find them.
  if (!kept) bootstrapper_.reset();
  if (!relin_key_) relin_key_.emplace(std::move(made.relin));
  if (!galois_keys_) galois_keys_.emplace(context_);
  for (const uint64_t element : made.galois.elements()) {
    // A key already present that reaches at least as high serves both.
    if (galois_keys_->has(element) &&
        galois_keys_->at(element).max_level() >= made.galois.at(element).max_level())
      continue;
    galois_keys_->insert(element, made.galois.extract(element));
  }
  if (made.sparse) sparse_keys_.emplace(std::move(*made.sparse));
  const std::lock_guard lock(bootstrapper_mutex_);
  if (bootstrapper_) rehome_sparse_key();
}

rlwe::Ciphertext TensorContext::bootstrap(const rlwe::Ciphertext& x, const char* operation) const {
  const circuits::Bootstrapper& bootstrapper = this->bootstrapper(operation);
  if (!has_bootstrap_keys())
    throw InvalidArgument(std::string(operation) +
                          ": the context has no bootstrapping keys; call generate_bootstrap_keys() "
                          "on the private context before making it public");
  return bootstrapper.bootstrap(x, *relin_key_, *galois_keys_,
                                sparse_keys_ ? &*sparse_keys_ : nullptr);
}

}  // namespace heft::tensor
