// Frames (rlwe/serial_frame.cpp): zstd where it helps and only there, every
// truncation and every single-bit flip refused (the checksum), and frames of
// another version, object type or parameter set refused.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

// A frame re-sealed around `stored` (another compressed payload of the same
// object): the stored length in the header and the SHA-256 checksum are
// rewritten, so only the zstd checks can refuse it.
Bytes reseal(const Bytes& frame, const Bytes& stored) {
  constexpr std::size_t kHeader = 64, kChecksum = 8, kStoredLengthAt = 48;
  Bytes out(frame.begin(), frame.begin() + kHeader);
  for (int i = 0; i < 8; ++i)
    out[kStoredLengthAt + i] = static_cast<uint8_t>(uint64_t{stored.size()} >> (8 * i));
  out.insert(out.end(), stored.begin(), stored.end());
  std::array<uint8_t, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EXPECT_EQ(EVP_Digest(out.data(), out.size(), digest.data(), &length, EVP_sha256(), nullptr), 1);
  out.insert(out.end(), digest.begin(), digest.begin() + kChecksum);
  return out;
}

// The zstd frame of `frame`'s payload with its header rewritten (RFC 8878
// section 3.1.1.1): no longer single-segment, a window of 2^window_log, and
// the content size written in 8 bytes, or left out when `declare_size` is
// false. The compressed blocks are the original ones.
Bytes rewrite_zstd_header(const Bytes& frame, int window_log, bool declare_size) {
  const Bytes stored(frame.begin() + 64, frame.end() - 8);
  const uint8_t descriptor = stored[4];
  const bool single_segment = (descriptor >> 5) & 1;
  const int size_flag = descriptor >> 6;
  const std::array<std::size_t, 4> dictionary_bytes{0, 1, 2, 4};
  const std::array<std::size_t, 4> size_bytes{single_segment ? 1u : 0u, 2, 4, 8};
  const std::size_t header_bytes =
      5 + (single_segment ? 0 : 1) + dictionary_bytes[descriptor & 3] + size_bytes[size_flag];
  const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
  EXPECT_NE(content, ZSTD_CONTENTSIZE_UNKNOWN);
  EXPECT_NE(content, ZSTD_CONTENTSIZE_ERROR);

  Bytes rewritten(stored.begin(), stored.begin() + 4);  // the magic number
  // Content-size field 8 bytes (flag 3) or none (flag 0), not single-segment,
  // the content-checksum bit kept, no dictionary.
  rewritten.push_back(static_cast<uint8_t>((declare_size ? 3 << 6 : 0) | (descriptor & 4)));
  rewritten.push_back(static_cast<uint8_t>((window_log - 10) << 3));
  if (declare_size) {
    for (int i = 0; i < 8; ++i)
      rewritten.push_back(static_cast<uint8_t>(content >> (8 * i)));
  }
  rewritten.insert(rewritten.end(), stored.begin() + header_bytes, stored.end());
  return rewritten;
}

// A frame that does not declare its content size makes zstd's streaming
// decoder allocate the whole window the frame asks for (up to 2^31 bytes):
// the fuzzer's find, a few hundred bytes asking for 128 MiB. Such frames are
// refused before zstd sees them (heft always writes the size; with it, zstd
// allocates at most the size). The same blocks under an honest header, or
// under a window of 2^27 with the size declared, still load, so the refusal
// is the missing size's doing.
TEST(Serialization, AZstdFrameMustDeclareItsSize) {
  CkksFixture f(ckks_params(4096, 1, 1));
  const Bytes frame = save(f.keygen.secret_key(), kZstd);
  ASSERT_EQ(inspect(frame).compression, Compression::zstd);
  const uint64_t payload = inspect(frame).payload_bytes;
  const int honest_log = std::max(10, static_cast<int>(std::bit_width(payload - 1)));

  for (int window_log : {honest_log, 27}) {
    const Bytes resealed = reseal(frame, rewrite_zstd_header(frame, window_log, true));
    EXPECT_TRUE(load_secret_key(f.context, resealed).q_part() == f.keygen.secret_key().q_part())
        << window_log;
  }
  heft::testing::expect_error<FormatError>(
      [&] {
        (void)load_secret_key(f.context,
                              reseal(frame, rewrite_zstd_header(frame, honest_log, false)));
      },
      "does not declare the");

  // The fuzzer's input itself (a context frame of 116 bytes whose zstd
  // frame declares no size and a window of 2^27).
  const Bytes found = {0x48, 0x45, 0x46, 0x54, 0x2,  0x0,  0x1,  0x0,  0x1,  0x0,  0x0,  0x0,  0x0,
                       0x0,  0x0,  0x0,  0xb3, 0xb0, 0xe4, 0xc2, 0xca, 0xb0, 0x44, 0x19, 0x9,  0xf7,
                       0x91, 0xc,  0xd5, 0x12, 0xd6, 0x59, 0x77, 0x2e, 0xbb, 0x8d, 0x5,  0xee, 0xf8,
                       0x2d, 0x10, 0xac, 0xca, 0x87, 0x15, 0x22, 0x1d, 0xdb, 0x2c, 0x0,  0x0,  0x0,
                       0x0,  0x0,  0x0,  0x0,  0x46, 0x0,  0x0,  0x0,  0x0,  0x0,  0x0,  0x0,  0x28,
                       0xb5, 0x2f, 0xfd, 0x0,  0x88, 0xe6, 0xff, 0x0,  0x0,  0x0,  0x1,  0x0,  0x14,
                       0xe6, 0xff, 0x0,  0x0,  0x0,  0x1,  0x0,  0xf8, 0xe5, 0xff, 0x0,  0xe7, 0xd9,
                       0x62, 0xd,  0xc6, 0x77, 0x2e, 0xbb, 0x8d, 0x5,  0xee, 0xf8, 0x2d, 0x10, 0xac,
                       0xca, 0x87, 0x8b, 0x7,  0xdc, 0x9d, 0x5d, 0xa4, 0x96, 0xa4, 0xc7, 0xd0};
  ASSERT_EQ(found.size(), 116u);
  EXPECT_THROW((void)load_context(found), FormatError);
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
