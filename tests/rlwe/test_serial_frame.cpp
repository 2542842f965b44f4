// Frames (rlwe/serial_frame.cpp): zstd where it helps and only there, every
// truncation and every single-bit flip refused (the checksum), and frames of
// another version, object type or parameter set refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <span>
#include <vector>

#include "error_test_support.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/util/error.hpp"
#include "serialization_test_support.hpp"

namespace heft::rlwe {
namespace {

using namespace testing;

// zstd where it helps: a secret key (2-bit codes of a ternary polynomial,
// about 1.58 bits of entropy each) shrinks; bit-packed uniform residues do
// not, and are then stored uncompressed rather than paid for on every load.
TEST(Serialization, ZstdIsUsedWhereItHelps) {
  CkksFixture f(ckks_params(4096, 2, 1));
  const Bytes secret_plain = save(f.keygen.secret_key());
  const Bytes secret_zstd = save(f.keygen.secret_key(), kZstd);
  EXPECT_EQ(inspect(secret_zstd).compression, Compression::zstd);
  EXPECT_LT(secret_zstd.size(), secret_plain.size() * 9 / 10);
  EXPECT_TRUE(load_secret_key(f.context, secret_zstd).q_part() == f.keygen.secret_key().q_part());
  const Ciphertext ct = Encryptor(f.public_key).encrypt(f.encode(Vec(2048, cd(0.5, 0))));
  const Bytes ct_zstd = save(*f.context, ct, kZstd);
  EXPECT_EQ(inspect(ct_zstd).compression, Compression::none);
  EXPECT_EQ(ct_zstd.size(), save(*f.context, ct).size());
}

// A ciphertext whose payload does compress (all-zero parts, like a trivial
// encryption of 0) goes through zstd and back.
TEST(Serialization, CompressibleCiphertextTakesTheZstdPath) {
  CkksFixture f(ckks_params(2048, 2, 1));
  Ciphertext zero;
  for (int i = 0; i < 3; ++i)
    zero.parts.emplace_back(f.context->ciphertext_ring(), 2, ring::Form::ntt);
  zero.scale = std::ldexp(1.0, 40);
  zero.slots = 1024;
  const Bytes bytes = save(*f.context, zero, kZstd);
  EXPECT_EQ(inspect(bytes).compression, Compression::zstd);
  EXPECT_LT(bytes.size(), save(*f.context, zero).size() / 20);
  expect_same_ciphertext(load_ciphertext(f.context, bytes), zero);
}

TEST(Serialization, EveryTruncationIsRefused) {
  CkksFixture f(ckks_params(1024, 1, 1));
  const Bytes params = save(f.context->parameters());
  for (std::size_t cut = 0; cut < params.size(); ++cut) {
    EXPECT_THROW((void)load_parameters(std::span(params).first(cut)), FormatError) << cut;
  }
  const Bytes secret = save(f.keygen.secret_key());
  const Bytes ct = save(
      *f.context,
      Encryptor(f.keygen.secret_key()).encrypt(f.encode(Vec(f.context->degree() / 2, cd(0.5, 0)))));
  for (std::size_t cut = 0; cut < secret.size(); ++cut) {
    EXPECT_THROW((void)load_secret_key(f.context, std::span(secret).first(cut)), FormatError)
        << cut;
  }
  for (std::size_t cut = 0; cut < ct.size(); ++cut) {
    EXPECT_THROW((void)load_ciphertext(f.context, std::span(ct).first(cut)), FormatError) << cut;
  }
  // Trailing bytes are refused too.
  Bytes longer = ct;
  longer.push_back(0);
  EXPECT_THROW((void)load_ciphertext(f.context, longer), FormatError);
}

TEST(Serialization, EverySingleBitFlipIsRefused) {
  CkksFixture f(ckks_params(1024, 1, 1));
  CkksFixture large(ckks_params(4096, 1, 1));  // a secret key big enough for zstd to shrink
  using Loader = std::function<void(const Bytes&)>;
  struct Case {
    const char* name;
    Bytes bytes;
    Loader load;
  };
  std::vector<Case> cases;
  cases.push_back({"parameters", save(f.context->parameters()),
                   [](const Bytes& b) { (void)load_parameters(b); }});
  cases.push_back({"secret key", save(f.keygen.secret_key()),
                   [&](const Bytes& b) { (void)load_secret_key(f.context, b); }});
  cases.push_back({"secret key (zstd)", save(large.keygen.secret_key(), kZstd),
                   [&](const Bytes& b) { (void)load_secret_key(large.context, b); }});
  ASSERT_EQ(inspect(cases.back().bytes).compression, Compression::zstd);
  cases.push_back(
      {"ciphertext (seeded)",
       save(*f.context, Encryptor(f.keygen.secret_key()).encrypt(f.encode(Vec(512, cd(0.25, 0))))),
       [&](const Bytes& b) { (void)load_ciphertext(f.context, b); }});
  for (const Case& c : cases) {
    std::size_t refused = 0, tried = 0;
    for (std::size_t bit = 0; bit < c.bytes.size() * 8; ++bit) {
      Bytes flipped = c.bytes;
      flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
      ++tried;
      try {
        c.load(flipped);
      } catch (const Error&) {
        ++refused;
      }
    }
    EXPECT_EQ(refused, tried) << c.name;
    std::printf("  %s: %zu of %zu single-bit flips refused\n", c.name, refused, tried);
  }
}

TEST(Serialization, WrongVersionTypeOrParametersAreRefused) {
  CkksFixture f(ckks_params(1024, 2, 1));
  const Ciphertext ct = Encryptor(f.public_key).encrypt(f.encode(Vec(512, cd(1, 0))));
  const Bytes bytes = save(*f.context, ct);

  // Another format version: refused with a message naming the version,
  // whatever the rest of the frame holds.
  Bytes future = bytes;
  future[4] = 4;
  heft::testing::expect_error<FormatError>([&] { (void)load_ciphertext(f.context, future); },
                                           "version 4");

  // Loading under other parameters.
  Parameters changed = f.context->parameters();
  changed.scale *= 2;
  const auto other_context = Context::create(changed);
  EXPECT_THROW((void)load_ciphertext(other_context, bytes), MismatchError);

  // Wrong object type.
  EXPECT_THROW((void)load_public_key(f.context, bytes), FormatError);
  EXPECT_THROW((void)load_galois_keys(f.context, bytes), FormatError);
  // Not a heft object at all.
  Bytes garbage(200, 0x41);
  EXPECT_THROW((void)load_ciphertext(f.context, garbage), FormatError);
}

}  // namespace
}  // namespace heft::rlwe
