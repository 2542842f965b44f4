// Helpers shared by the serialization tests: save options, a small CKKS
// parameter set and a context with keys, encoder and evaluator, and the exact
// comparison of two ciphertexts.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"

namespace heft::rlwe::testing {

using cd = std::complex<double>;
using Vec = std::vector<cd>;

inline const SaveOptions kPlain{};
inline const SaveOptions kZstd{Compression::zstd, 3, true};
inline const SaveOptions kUnseeded{Compression::none, 3, false};
// The test parameter sets are SecurityLevel::none: loading them must say so.
inline const LoadOptions kInsecure{.allow_insecure_parameters = true};

inline Parameters ckks_params(uint64_t n, std::size_t depth, std::size_t dnum,
                              SecurityLevel security = SecurityLevel::none) {
  std::vector<int> bits(depth + 1, 40);
  bits[0] = 50;
  const std::size_t alpha = (bits.size() + dnum - 1) / dnum;
  Parameters p = make_parameters(n, bits, std::vector<int>(alpha, 50), dnum, security);
  p.scale = std::ldexp(1.0, 40);
  return p;
}

// A CKKS context with keys, encoder, evaluator.
struct CkksFixture {
  explicit CkksFixture(const Parameters& params)
      : context(Context::create(params)),
        keygen(context),
        public_key(keygen.create_public_key()),
        relin(keygen.create_relin_key()),
        encoder(context),
        eval(context) {}

  Vec random_vector(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> dist(-1, 1);
    Vec v(context->degree() / 2);
    for (auto& x : v)
      x = {dist(rng), dist(rng)};
    return v;
  }
  Plaintext encode(const Vec& v) const {
    return encoder.encode(v, eval.scale_at(context->max_level()), context->max_level());
  }
  Vec decrypt(const SecretKey& key, const Ciphertext& ct) const {
    return encoder.decode(Decryptor(key).decrypt(ct));
  }

  std::shared_ptr<const Context> context;
  KeyGenerator keygen;
  PublicKey public_key;
  RelinKey relin;
  ckks::Encoder encoder;
  ckks::Evaluator eval;
};

inline double max_error(const Vec& got, const Vec& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got.at(i) - want[i]));
  return worst;
}

inline void expect_same_ciphertext(const Ciphertext& a, const Ciphertext& b) {
  ASSERT_EQ(a.parts.size(), b.parts.size());
  for (std::size_t i = 0; i < a.parts.size(); ++i)
    EXPECT_TRUE(a.parts[i] == b.parts[i]) << "part " << i;
  EXPECT_EQ(a.scale, b.scale);
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.needs_rescale, b.needs_rescale);
}

}  // namespace heft::rlwe::testing
