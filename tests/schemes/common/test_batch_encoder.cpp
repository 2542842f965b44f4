// Batch and coefficient encoders of BFV/BGV against independent oracles: the
// slot-wise product equals the negacyclic polynomial product mod t (naive
// convolution), X -> X^5 rotates both rows left by one, X -> X^(2N-1) swaps
// the rows (automorphisms applied naively to the coefficients).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "error_test_support.hpp"
#include "heft/math/primes.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/util/error.hpp"

namespace heft::schemes {
namespace {

using u128 = unsigned __int128;

std::vector<uint64_t> negacyclic_product(const std::vector<uint64_t>& a,
                                         const std::vector<uint64_t>& b, uint64_t t) {
  const std::size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const uint64_t p = static_cast<uint64_t>(static_cast<u128>(a[i]) * b[j] % t);
      const std::size_t k = (i + j) % n;
      c[k] = i + j < n ? (c[k] + p) % t : (c[k] + t - p) % t;
    }
  return c;
}

// m(X) -> m(X^g) mod (X^N + 1, t), coefficient by coefficient.
std::vector<uint64_t> automorphism(const std::vector<uint64_t>& m, uint64_t g, uint64_t t) {
  const std::size_t n = m.size();
  std::vector<uint64_t> out(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t e = i * g % (2 * n);
    if (e < n) {
      out[e] = (out[e] + m[i]) % t;
    } else {
      out[e - n] = (out[e - n] + t - m[i]) % t;
    }
  }
  return out;
}

TEST(BatchEncoder, RoundTripSlotProductsRotationsAndRowSwap) {
  std::mt19937_64 rng(1);
  for (uint64_t n : {uint64_t{8}, uint64_t{64}, uint64_t{256}}) {
    for (int bits : {17, 20, 40}) {
      const uint64_t t = math::generate_batching_prime(bits, n).value();
      BatchEncoder encoder(n, t);
      std::uniform_int_distribution<uint64_t> dist(0, t - 1);
      std::vector<uint64_t> x(n), y(n);
      for (auto& v : x)
        v = dist(rng);
      for (auto& v : y)
        v = dist(rng);
      const IntegerPlaintext px = encoder.encode(x), py = encoder.encode(y);
      EXPECT_EQ(encoder.decode(px), x);
      // Slot-wise product = polynomial product.
      IntegerPlaintext product{negacyclic_product(px.coefficients, py.coefficients, t), t};
      const auto slots = encoder.decode(product);
      for (std::size_t s = 0; s < n; ++s) {
        ASSERT_EQ(slots[s], static_cast<uint64_t>(static_cast<u128>(x[s]) * y[s] % t));
      }
      // X -> X^5: each row rotates left by one column.
      const std::size_t half = n / 2;
      const auto rotated = encoder.decode({automorphism(px.coefficients, 5, t), t});
      for (std::size_t r = 0; r < 2; ++r)
        for (std::size_t c = 0; c < half; ++c)
          ASSERT_EQ(rotated[r * half + c], x[r * half + (c + 1) % half]);
      // X -> X^(2N-1): rows swap.
      const auto swapped = encoder.decode({automorphism(px.coefficients, 2 * n - 1, t), t});
      for (std::size_t c = 0; c < half; ++c) {
        ASSERT_EQ(swapped[c], x[half + c]);
        ASSERT_EQ(swapped[half + c], x[c]);
      }
    }
  }
}

TEST(BatchEncoder, SignedValuesAndErrors) {
  const uint64_t t = math::generate_batching_prime(20, 64).value();
  BatchEncoder encoder(64, t);
  std::vector<int64_t> v = {-1, 5, -static_cast<int64_t>((t - 1) / 2), static_cast<int64_t>(t / 2)};
  auto decoded = encoder.decode_signed(encoder.encode_signed(v));
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(decoded[i], v[i]);
  for (std::size_t i = v.size(); i < 64; ++i)
    EXPECT_EQ(decoded[i], 0);
  EXPECT_THROW(BatchEncoder(64, 65537 + 2), InvalidArgument);  // not prime
  EXPECT_THROW(BatchEncoder(64, 193), InvalidArgument);        // prime, but 193 != 1 mod 128
  EXPECT_THROW((void)encoder.encode(std::vector<uint64_t>(65, 0)), InvalidArgument);
  EXPECT_THROW((void)encoder.encode(std::vector<uint64_t>{t}), InvalidArgument);
  EXPECT_THROW((void)encoder.encode_signed(std::vector<int64_t>{static_cast<int64_t>(t)}),
               InvalidArgument);
  EXPECT_THROW((void)encoder.decode({std::vector<uint64_t>(32, 0), t}), MismatchError);
  // A coefficient not below t (hand-built; decryption never makes one).
  std::vector<uint64_t> unreduced(64, 0);
  unreduced[3] = 5 * t;
  EXPECT_THROW((void)encoder.decode({unreduced, t}), InvalidArgument);
  EXPECT_THROW((void)decode_coefficients_signed({unreduced, t}), InvalidArgument);
  // Degrees that are no power of two in [8, 2^17], checked before 2N is
  // formed (0 and 2^63 used to divide by zero).
  for (uint64_t degree :
       {uint64_t{0}, uint64_t{4}, uint64_t{96}, uint64_t{1} << 18, uint64_t{1} << 63}) {
    EXPECT_THROW(BatchEncoder(degree, 65537), InvalidArgument) << degree;
    EXPECT_THROW((void)encode_coefficients(std::vector<int64_t>{1}, degree, 65537), InvalidArgument)
        << degree;
  }
}

TEST(CoefficientEncoder, AnyModulusRoundTrip) {
  for (uint64_t t : {uint64_t{2}, uint64_t{256}, uint64_t{1000}, uint64_t{65537}}) {
    std::vector<int64_t> v = {0, 1, -1, static_cast<int64_t>(t / 2),
                              -static_cast<int64_t>((t - 1) / 2)};
    const auto plain = encode_coefficients(v, 16, t);
    const auto back = decode_coefficients_signed(plain);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const int64_t expected =
          ((v[i] % static_cast<int64_t>(t)) + static_cast<int64_t>(t)) % static_cast<int64_t>(t);
      const int64_t centered =
          expected > static_cast<int64_t>(t / 2) ? expected - static_cast<int64_t>(t) : expected;
      EXPECT_EQ(back[i], centered) << "t=" << t << " i=" << i;
    }
  }
  EXPECT_THROW(encode_coefficients(std::vector<int64_t>(17, 0), 16, 257), InvalidArgument);
  EXPECT_THROW(encode_coefficients(std::vector<int64_t>(1, 0), 16, 1), InvalidArgument);
  // Decoding refuses the moduli encoding refuses (it used to accept them).
  for (const uint64_t bad_t : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 61}) {
    heft::testing::expect_error<InvalidArgument>(
        [&] {
          (void)decode_coefficients_signed({std::vector<uint64_t>(16, 0), bad_t});
        },
        "coefficient decode: plaintext modulus");
  }
}

}  // namespace
}  // namespace heft::schemes
