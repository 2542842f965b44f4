// What the circuits tests share: an insecure small-ring CKKS context with
// many levels (fast to test deep circuits), its keys, and helpers to encrypt
// and decrypt complex vectors, and the max error between two of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::circuits::testing {

// N = 4096, a 60-bit first prime, `levels` 45-bit primes, special primes of
// 60 bits, scale 2^45, no security level.
inline std::shared_ptr<const rlwe::Context> make_deep_context(std::size_t levels,
                                                              std::vector<int> special = {60}) {
  std::vector<int> bits{60};
  for (std::size_t i = 0; i < levels; ++i)
    bits.push_back(45);
  auto params = rlwe::make_parameters(4096, bits, special, 0, rlwe::SecurityLevel::none);
  params.scale = std::ldexp(1.0, 45);
  return rlwe::Context::create(params);
}

// max_i |got_i - want_i| over want's entries.
inline double max_error(const std::vector<std::complex<double>>& got,
                        const std::vector<std::complex<double>>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

struct CkksSetup {
  explicit CkksSetup(std::shared_ptr<const rlwe::Context> c) : context(std::move(c)) {}

  rlwe::Ciphertext encrypt(const std::vector<std::complex<double>>& x, std::size_t level,
                           std::size_t slots = 0) const {
    return encryptor.encrypt(encoder.encode(x, evaluator.scale_at(level), level, slots));
  }
  std::vector<std::complex<double>> decrypt(const rlwe::Ciphertext& ct) const {
    return encoder.decode(decryptor.decrypt(ct));
  }

  std::shared_ptr<const rlwe::Context> context;
  rlwe::KeyGenerator keygen{context};
  rlwe::RelinKey relin = keygen.create_relin_key();
  ckks::Encoder encoder{context};
  ckks::Evaluator evaluator{context};
  rlwe::Encryptor encryptor{keygen.create_public_key()};
  rlwe::Decryptor decryptor{keygen.secret_key()};
};

}  // namespace heft::circuits::testing
