// The CKKS decryption the tensors use: with the context's own secret key, or
// with one the caller passes (TenSEAL's decrypt(secret_key), after
// make_context_public()), flooded when the context floods its decryptions
// (TensorContext::set_noise_flooding). Internal to the tensor layer.
#pragma once

#include <optional>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/plaintext.hpp"
#include "heft/schemes/ckks/noise_flooding.hpp"
#include "heft/tensor/context.hpp"

namespace heft::tensor::detail {

class CkksDecryption {
 public:
  // key null: the context's secret key (InvalidArgument naming `operation`
  // on a public context, before any work).
  CkksDecryption(const TensorContext& context, const rlwe::SecretKey* key, const char* operation) {
    if (context.noise_flooding()) {
      flooded_.emplace(key ? *key : context.secret_key(operation), *context.noise_flooding());
    } else if (key) {
      own_.emplace(*key);
    } else {
      exact_ = &context.ckks_decryptor(operation);
    }
  }

  [[nodiscard]] rlwe::Plaintext operator()(const rlwe::Ciphertext& ciphertext) const {
    if (flooded_) return flooded_->decrypt(ciphertext).plain;
    return own_ ? own_->decrypt(ciphertext) : exact_->decrypt(ciphertext);
  }

 private:
  const rlwe::Decryptor* exact_ = nullptr;  // the context's, or own_
  std::optional<rlwe::Decryptor> own_;      // with a key passed in
  std::optional<ckks::FloodingDecryptor> flooded_;
};

}  // namespace heft::tensor::detail
