// The ciphertext payload (src/rlwe/serial_ciphertext_codec.cpp,
// docs/format.md): format version 3 keeps every ciphertext's whole metadata
// record (BGV's correction factor and noise estimate bit for bit, CKKS's
// scale and slots); the BGV ciphertexts of versions 1 and 2 (their own type,
// the fields after the parts) still load: version 1 with an unknown estimate
// (decrypts, but the evaluator refuses to compute on it until one is set),
// version 2 with its estimate, synthesized here and from files that the
// version-2 code wrote (tests/data/format_v2); other version-1 and -2
// objects load as before; a NaN or -infinity estimate, a BGV-type object at
// version 3 and unknown versions are refused.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
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

// A version-3 ciphertext payload rewritten in the layout of `version` (1 or
// 2) for `type`: the correction factor and estimate leave the header
// (offsets 25 to 41, after parts, towers, flags, scale and slots); a BGV
// ciphertext puts them after the parts instead (the estimate from version 2).
Bytes legacy_payload(const Bytes& v3, rlwe::ObjectType type, uint16_t version) {
  constexpr std::size_t kCorrectionAt = 25, kNoiseAt = 33, kPartsAt = 41;
  const std::span<const uint8_t> from(v3);
  Bytes out;
  out.reserve(v3.size());
  const auto append = [&out](std::span<const uint8_t> part) {
    for (const uint8_t byte : part)
      out.push_back(byte);
  };
  append(from.first(kCorrectionAt));
  append(from.subspan(kPartsAt));
  if (type == rlwe::ObjectType::bgv_ciphertext) {
    append(from.subspan(kCorrectionAt, kNoiseAt - kCorrectionAt));
    if (version >= 2) append(from.subspan(kNoiseAt, kPartsAt - kNoiseAt));
  }
  return out;
}

Bytes legacy_frame(const Bytes& v3_frame, rlwe::ObjectType type, const rlwe::Context& context,
                   uint16_t version) {
  return frame_of(type, context, legacy_payload(payload_of(v3_frame), type, version), version);
}

Bytes read_file(const std::string& name) {
  std::ifstream in(std::string(HEFT_SOURCE_DIR) + "/tests/data/format_v2/" + name,
                   std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(CiphertextCodec, TheMetadataRecordRoundTrips) {
  Fixture f;
  const Ciphertext product = f.evaluator.multiply(f.fresh, f.fresh, f.relin);
  ASSERT_NE(product.correction, 1u);  // switched down: the factor is q_l mod t
  Ciphertext unknown = f.fresh.clone();
  unknown.noise_log2 = kUnknownNoise;
  Ciphertext with_ckks_fields = product.clone();  // every field set at once
  with_ckks_fields.scale = std::ldexp(1.0, 33) * 1.25;
  with_ckks_fields.slots = 64;
  with_ckks_fields.needs_rescale = true;
  for (const Ciphertext* ct : {&std::as_const(f.fresh), &product, &std::as_const(unknown),
                               &std::as_const(with_ckks_fields)}) {
    for (const rlwe::SaveOptions options :
         {rlwe::SaveOptions{}, rlwe::SaveOptions{.compression = rlwe::Compression::zstd}}) {
      const Bytes bytes = rlwe::save(*f.context, *ct, options);
      EXPECT_EQ(rlwe::inspect(bytes).version, 3);
      EXPECT_EQ(rlwe::inspect(bytes).type, rlwe::ObjectType::ciphertext);
      const Ciphertext loaded = rlwe::load_ciphertext(f.context, bytes);
      EXPECT_EQ(std::memcmp(&loaded.noise_log2, &ct->noise_log2, sizeof(double)), 0);
      EXPECT_EQ(loaded.correction, ct->correction);
      EXPECT_EQ(loaded.scale, ct->scale);
      EXPECT_EQ(loaded.slots, ct->slots);
      EXPECT_EQ(loaded.needs_rescale, ct->needs_rescale);
      EXPECT_TRUE(loaded.parts[0] == ct->parts[0] && loaded.parts[1] == ct->parts[1]);
    }
  }
  EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(
                rlwe::load_ciphertext(f.context, bgv::save(*f.context, product)))),
            f.encoder.decode(f.decryptor.decrypt(product)));
  // NaN, set by hand, means unknown: saved as +infinity.
  Ciphertext nan = f.fresh.clone();
  nan.noise_log2 = std::nan("");
  EXPECT_EQ(bgv::load_ciphertext(f.context, bgv::save(*f.context, nan)).noise_log2, kUnknownNoise);
}

TEST(CiphertextCodec, VersionOneAndTwoBgvCiphertextsLoad) {
  Fixture f;
  const Ciphertext product = f.evaluator.multiply(f.fresh, f.fresh, f.relin);
  const Values squares = f.encoder.decode(f.decryptor.decrypt(product));
  for (const Ciphertext* ct : {&std::as_const(f.fresh), &product}) {
    const Bytes current = rlwe::save(*f.context, *ct);
    // Version 2: the estimate survives; version 1: it is unknown.
    const Ciphertext v2 = bgv::load_ciphertext(
        f.context, legacy_frame(current, rlwe::ObjectType::bgv_ciphertext, *f.context, 2));
    EXPECT_EQ(v2.noise_log2, ct->noise_log2);
    EXPECT_EQ(v2.correction, ct->correction);
    const Ciphertext v1 = bgv::load_ciphertext(
        f.context, legacy_frame(current, rlwe::ObjectType::bgv_ciphertext, *f.context, 1));
    EXPECT_EQ(v1.noise_log2, kUnknownNoise);
    EXPECT_EQ(v1.correction, ct->correction);
    const Values want = ct == &product ? squares : f.x;
    EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(v1)), want);
    EXPECT_EQ(f.encoder.decode(f.decryptor.decrypt(v2)), want);
    // The estimate of version 2 is used as it was.
    EXPECT_EQ(f.evaluator.add(v2, v2).noise_log2, f.evaluator.add(*ct, *ct).noise_log2);
    expect_error<NoiseBudgetError>([&] { (void)f.evaluator.add(v1, f.fresh); },
                                   "add: an operand has no noise estimate");
  }
  const Bytes current = rlwe::save(*f.context, f.fresh);
  // The version-2 payload under a version-1 header has 8 bytes too many.
  EXPECT_THROW(
      (void)bgv::load_ciphertext(
          f.context,
          frame_of(rlwe::ObjectType::bgv_ciphertext, *f.context,
                   legacy_payload(payload_of(current), rlwe::ObjectType::bgv_ciphertext, 2), 1)),
      FormatError);
  // A plain ciphertext of versions 1 and 2 had no BGV fields: it loads with
  // the record's defaults.
  for (const uint16_t version : {uint16_t{1}, uint16_t{2}}) {
    const Ciphertext loaded = rlwe::load_ciphertext(
        f.context, legacy_frame(current, rlwe::ObjectType::ciphertext, *f.context, version));
    EXPECT_TRUE(loaded.parts[0] == f.fresh.parts[0]);
    EXPECT_EQ(loaded.correction, 1u);
    EXPECT_EQ(loaded.noise_log2, kUnknownNoise);
  }
  // Other objects are the same in every version.
  const auto keys = rlwe::load_key_set(
      f.context, with_version(rlwe::save_key_set(nullptr, &f.relin, nullptr), 1));
  EXPECT_TRUE(keys.relin_key.has_value());
}

// Files the version-2 code wrote (tests/data/format_v2/make_fixture.cpp, run
// against heft at 1431f2c): parameters, secret key, a fresh ciphertext whose
// c1 is stored as its seed, and a relinearized product switched down.
TEST(CiphertextCodec, FilesOfVersionTwoLoad) {
  const rlwe::LoadOptions insecure{.allow_insecure_parameters = true};
  const Bytes parameters = read_file("bgv_parameters.heft");
  ASSERT_EQ(rlwe::inspect(parameters).version, 2);
  const auto context = rlwe::load_context(parameters, insecure);
  const uint64_t t = context->parameters().plain_modulus;
  const rlwe::SecretKey secret = rlwe::load_secret_key(context, read_file("bgv_secret_key.heft"));
  const Decryptor decryptor(secret);
  const schemes::BatchEncoder encoder(context->degree(), t);
  Values x(context->degree()), squares(context->degree());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = (7919 * i + 3) % t;
    squares[i] = x[i] * x[i] % t;
  }

  const Bytes fresh_bytes = read_file("bgv_fresh_ciphertext.heft");
  ASSERT_EQ(rlwe::inspect(fresh_bytes).type, rlwe::ObjectType::bgv_ciphertext);
  ASSERT_EQ(rlwe::inspect(fresh_bytes).version, 2);
  const Ciphertext fresh = bgv::load_ciphertext(context, fresh_bytes);
  EXPECT_EQ(encoder.decode(decryptor.decrypt(fresh)), x);
  EXPECT_EQ(fresh.correction, 1u);
  EXPECT_TRUE(std::isfinite(fresh.noise_log2));
  EXPECT_TRUE(fresh.c1_seed.has_value());

  const Ciphertext product =
      rlwe::load_ciphertext(context, read_file("bgv_product_ciphertext.heft"));
  EXPECT_EQ(encoder.decode(decryptor.decrypt(product)), squares);
  EXPECT_EQ(product.level(), context->max_level() - 1);
  // Switched down once from the top: the factor is the dropped prime mod t.
  EXPECT_EQ(product.correction, context->parameters().ciphertext_moduli.back() % t);
  EXPECT_GT(product.noise_log2, fresh.noise_log2);

  // The loaded estimates drive the evaluator as before, and they survive a
  // save in version 3.
  const Evaluator evaluator(context);
  const Ciphertext sum = evaluator.add(evaluator.mod_switch(fresh), product);
  Values want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = (x[i] + squares[i]) % t;
  EXPECT_EQ(encoder.decode(decryptor.decrypt(sum)), want);
  const Ciphertext resaved = rlwe::load_ciphertext(context, rlwe::save(*context, product));
  EXPECT_EQ(resaved.noise_log2, product.noise_log2);
  EXPECT_EQ(resaved.correction, product.correction);
}

TEST(CiphertextCodec, BadFieldsAndUnknownVersionsAreRefused) {
  Fixture f;
  const Bytes current = rlwe::save(*f.context, f.fresh);
  constexpr std::size_t kCorrectionAt = 25, kNoiseAt = 33;
  // `payload` with 8 bytes at `at` replaced by `value`, loaded as `type` at
  // `version` (a BGV-type payload takes its legacy layout): must be refused.
  const auto expect_refused = [&](std::size_t at, const auto& value, rlwe::ObjectType type,
                                  uint16_t version, const std::string& text) {
    Bytes payload = payload_of(current);
    std::memcpy(payload.data() + at, &value, 8);
    if (type == rlwe::ObjectType::bgv_ciphertext) payload = legacy_payload(payload, type, version);
    expect_error<FormatError>(
        [&] {
          (void)rlwe::load_ciphertext(f.context, frame_of(type, *f.context, payload, version));
        },
        text);
  };
  for (const double bad : {std::nan(""), -kUnknownNoise}) {
    expect_refused(kNoiseAt, bad, rlwe::ObjectType::ciphertext, 3,
                   "ciphertext: the noise estimate is NaN or -infinity");
    // The same in a BGV ciphertext of version 2.
    expect_refused(kNoiseAt, bad, rlwe::ObjectType::bgv_ciphertext, 2,
                   "BGV ciphertext: the noise estimate is NaN or -infinity");
  }
  for (const uint64_t bad : {uint64_t{0}, f.t}) {
    expect_refused(kCorrectionAt, bad, rlwe::ObjectType::ciphertext, 3,
                   "ciphertext: the correction factor");
  }
  // A BGV-type object belongs to versions 1 and 2 only.
  expect_error<FormatError>(
      [&] {
        (void)rlwe::load_ciphertext(
            f.context,
            frame_of(rlwe::ObjectType::bgv_ciphertext, *f.context,
                     legacy_payload(payload_of(current), rlwe::ObjectType::bgv_ciphertext, 2), 3));
      },
      "only versions 1 and 2 wrote them");
  Ciphertext minus_infinity = f.fresh.clone();
  minus_infinity.noise_log2 = -kUnknownNoise;
  expect_error<InvalidArgument>([&] { (void)bgv::save(*f.context, minus_infinity); },
                                "save: the ciphertext's noise estimate is -infinity");
  Ciphertext bad_correction = f.fresh.clone();
  bad_correction.correction = f.t;
  expect_error<InvalidArgument>([&] { (void)rlwe::save(*f.context, bad_correction); },
                                "save: the ciphertext's correction factor");
  for (const uint16_t version : {uint16_t{0}, uint16_t{4}}) {
    expect_error<FormatError>(
        [&] { (void)bgv::load_ciphertext(f.context, with_version(current, version)); },
        "is not supported: this build reads versions 1 to 3");
  }
}

}  // namespace
}  // namespace heft::bgv
