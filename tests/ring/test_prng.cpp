// Prng: the AES-256-CTR known answer, the same stream for the same seed
// however it is drawn, OS seeds that differ, and unbiased draws below a bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "heft/ring/prng.hpp"
#include "ring_test_support.hpp"

namespace heft::ring {
namespace {

using testing::counting_seed;

TEST(Prng, StreamIsTheAes256CtrKeystreamWithZeroCounter) {
  // `head -c 64 /dev/zero | openssl enc -aes-256-ctr -K 000102..1f -iv 0`;
  // the first block is also AES-256_K(0^128) from FIPS-197 style ECB.
  const std::vector<uint8_t> expected = {
      0xf2, 0x90, 0x00, 0xb6, 0x2a, 0x49, 0x9f, 0xd0, 0xa9, 0xf3, 0x9a, 0x6a, 0xdd,
      0x2e, 0x77, 0x80, 0xf0, 0x5d, 0x76, 0xae, 0x4a, 0xb9, 0x9f, 0xe5, 0xa6, 0xf6,
      0x9b, 0x31, 0x48, 0xc2, 0x36, 0x3d, 0x0e, 0xbc, 0xb5, 0xde, 0xb5, 0x2c, 0x83,
      0xbd, 0x08, 0xa8, 0xa9, 0x35, 0x18, 0x2c, 0x91, 0x99, 0xd2, 0x43, 0x56, 0x53,
      0x28, 0x81, 0x60, 0x2f, 0x80, 0x9e, 0xb3, 0x83, 0xc5, 0xff, 0x5d, 0x56};
  Prng prng(counting_seed());
  std::vector<uint8_t> bytes(64);
  prng.fill(bytes);
  EXPECT_EQ(bytes, expected);
  // next_u64 reads the same stream little-endian.
  Prng again(counting_seed());
  EXPECT_EQ(again.next_u64(), 0xd09f492ab60090f2ull);
}

TEST(Prng, SameSeedSameStreamWhateverTheChunking) {
  Prng whole(counting_seed(7)), pieces(counting_seed(7));
  std::vector<uint8_t> a(10000), b(10000);
  whole.fill(a);
  std::size_t done = 0;
  for (std::size_t chunk : {1, 7, 4095, 3, 4097, 1797}) {
    pieces.fill(std::span(b).subspan(done, chunk));
    done += chunk;
  }
  ASSERT_EQ(done, b.size());
  EXPECT_EQ(a, b);
  Prng other(counting_seed(8));
  std::vector<uint8_t> c(10000);
  other.fill(c);
  EXPECT_NE(a, c);
}

TEST(Prng, OsEntropySeedsDiffer) {
  EXPECT_NE(Prng::os_entropy_seed(), Prng::os_entropy_seed());
  Prng a = Prng::from_os_entropy(), b = Prng::from_os_entropy();
  EXPECT_NE(a.next_u64(), b.next_u64());
}

TEST(Prng, UniformBelowIsUnbiased) {
  Prng prng(counting_seed(1));
  EXPECT_THROW((void)prng.uniform_below(0), InvalidArgument);
  EXPECT_EQ(prng.uniform_below(1), 0u);
  // A bound just above 2^63 rejects almost half the draws: a biased
  // "r % bound" would put 2/3 of the mass below 2^64 - bound.
  const uint64_t bound = (uint64_t{1} << 63) + (uint64_t{1} << 61);
  const uint64_t low_region = 0 - bound;  // 2^64 - bound
  int low = 0;
  const int draws = 20000;
  for (int i = 0; i < draws; ++i)
    low += prng.uniform_below(bound) < low_region ? 1 : 0;
  const double expected = draws * static_cast<double>(low_region) / static_cast<double>(bound);
  EXPECT_NEAR(low, expected, 5 * std::sqrt(expected));
}

}  // namespace
}  // namespace heft::ring
