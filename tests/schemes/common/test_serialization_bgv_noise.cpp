// The BGV noise estimate in saved ciphertexts (docs/format.md, format
// version 2): it survives a round trip bit for bit; a version-1 BGV
// ciphertext, which has none, loads with an unknown estimate (decrypts, but
// the evaluator refuses to compute on it until one is set); other version-1
// objects load as before; a NaN or -infinity estimate and unknown versions
// are refused.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/rlwe/context.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/serialization.hpp"
#include "heft/util/error.hpp"
#include "rlwe/serial_frame.hpp"

namespace heft::bgv {
namespace {

using rlwe::Bytes;
using Values = std::vector<uint64_t>;
using heft::testing::expect_error;

// The frame with its version field set and its checksum recomputed.
Bytes with_version(Bytes frame, uint16_t version) {
  frame[4] = static_cast<uint8_t>(version);
  frame[5] = static_cast<uint8_t>(version >> 8);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const std::size_t body = frame.size() - rlwe::serial::kChecksumBytes;
  EXPECT_EQ(EVP_Digest(frame.data(), body, digest, &length, EVP_sha256(), nullptr), 1);
  std::memcpy(frame.data() + body, digest, rlwe::serial::kChecksumBytes);
  return frame;
}

// A frame of `type` around `payload`, at version `version`.
Bytes frame_of(rlwe::ObjectType type, const rlwe::Context& context, const Bytes& payload,
               uint16_t version) {
  return with_version(rlwe::serial::make_frame(type, rlwe::parameter_hash(context.parameters()),
                                               payload, {rlwe::Compression::none}),
                      version);
}

Bytes payload_of(const Bytes& frame) {
  return Bytes(frame.begin() + rlwe::serial::kHeaderBytes,
               frame.end() - rlwe::serial::kChecksumBytes);
}

struct Fixture {
  std::shared_ptr<const rlwe::Context> context = [] {
    const uint64_t n = 2048;
    rlwe::Parameters p = rlwe::make_parameters(n, {60, 50, 50}, {60}, 0, rlwe::SecurityLevel::none);
    p.plain_modulus = math::generate_batching_prime(20, n).value();
    return rlwe::Context::create(p);
  }();
  uint64_t t = context->parameters().plain_modulus;
  rlwe::KeyGenerator keygen = make_key_generator(context);
  rlwe::RelinKey relin = keygen.create_relin_key();
  Encryptor encryptor{keygen.create_public_key()};
  Decryptor decryptor{keygen.secret_key()};
  Evaluator evaluator{context};
  schemes::BatchEncoder encoder{context->degree(), t};
  Values x = [&] {
    std::mt19937_64 rng(3);
    Values v(context->degree());
    for (auto& value : v)
      value = rng() % t;
    return v;
  }();
  Ciphertext fresh = encryptor.encrypt(encoder.encode(x));
};

TEST(BgvNoiseSerialization, TheEstimateRoundTrips) {
  Fixture f;
  const Ciphertext product = f.evaluator.multiply(f.fresh, f.fresh, f.relin);
  Ciphertext unknown = f.fresh.clone();
  unknown.noise_log2 = kUnknownNoise;
  for (const Ciphertext* ct : {&std::as_const(f.fresh), &product, &std::as_const(unknown)}) {
    for (const rlwe::SaveOptions options :
         {rlwe::SaveOptions{}, rlwe::SaveOptions{.compression = rlwe::Compression::zstd}}) {
      const Bytes bytes = bgv::save(*f.context, *ct, options);
      EXPECT_EQ(rlwe::inspect(bytes).version, 2);
      const Ciphertext loaded = bgv::load_ciphertext(f.context, bytes);
      EXPECT_EQ(std::memcmp(&loaded.noise_log2, &ct->noise_log2, sizeof(double)), 0);
      EXPECT_EQ(loaded.correction, ct->correction);
    }
  }
  // NaN, set by hand, means unknown: saved as +infinity.
  Ciphertext nan = f.fresh.clone();
  nan.noise_log2 = std::nan("");
  EXPECT_EQ(bgv::load_ciphertext(f.context, bgv::save(*f.context, nan)).noise_log2, kUnknownNoise);
}

TEST(BgvNoiseSerialization, VersionOneCiphertextsLoadWithoutAnEstimate) {
  Fixture f;
  const Bytes current = bgv::save(*f.context, f.fresh);
  // Version 1: the same payload without its last field, the estimate.
  Bytes payload = payload_of(current);
  payload.resize(payload.size() - 8);
  const Bytes old = frame_of(rlwe::ObjectType::bgv_ciphertext, *f.context, payload, 1);
  const Ciphertext loaded = bgv::load_ciphertext(f.context, old);
  EXPECT_EQ(loaded.noise_log2, kUnknownNoise);
  EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(loaded)), f.x);
  expect_error<NoiseBudgetError>([&] { (void)f.evaluator.add(loaded, f.fresh); },
                                 "add: an operand has no noise estimate");
  // The version-2 payload under a version-1 header has 8 bytes too many.
  EXPECT_THROW((void)bgv::load_ciphertext(f.context, with_version(current, 1)), FormatError);
  // Other objects are the same in both versions.
  const rlwe::Ciphertext rlwe_ct = f.fresh.ct.clone();
  const rlwe::Ciphertext rlwe_loaded =
      rlwe::load_ciphertext(f.context, with_version(rlwe::save(*f.context, rlwe_ct), 1));
  EXPECT_TRUE(rlwe_loaded.parts[0] == rlwe_ct.parts[0]);
  const auto keys = rlwe::load_key_set(
      f.context, with_version(rlwe::save_key_set(nullptr, &f.relin, nullptr), 1));
  EXPECT_TRUE(keys.relin_key.has_value());
}

TEST(BgvNoiseSerialization, BadEstimatesAndUnknownVersionsAreRefused) {
  Fixture f;
  const Bytes current = bgv::save(*f.context, f.fresh);
  for (const double bad : {std::nan(""), -kUnknownNoise}) {
    Bytes payload = payload_of(current);
    std::memcpy(payload.data() + payload.size() - 8, &bad, 8);
    expect_error<FormatError>(
        [&] {
          (void)bgv::load_ciphertext(
              f.context, frame_of(rlwe::ObjectType::bgv_ciphertext, *f.context, payload, 2));
        },
        "the noise estimate is NaN or -infinity");
  }
  Ciphertext minus_infinity = f.fresh.clone();
  minus_infinity.noise_log2 = -kUnknownNoise;
  expect_error<InvalidArgument>([&] { (void)bgv::save(*f.context, minus_infinity); },
                                "save: the ciphertext's noise estimate is -infinity");
  for (const uint16_t version : {uint16_t{0}, uint16_t{3}}) {
    expect_error<FormatError>(
        [&] { (void)bgv::load_ciphertext(f.context, with_version(current, version)); },
        "is not supported: this build reads versions 1 to 2");
  }
}

}  // namespace
}  // namespace heft::bgv
