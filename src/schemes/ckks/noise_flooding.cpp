// Noise-flooded CKKS decryption and the noise measurement of an estimation
// run (see heft/schemes/ckks/noise_flooding.hpp for the sizing).
#include "heft/schemes/ckks/noise_flooding.hpp"

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "heft/ring/prng.hpp"
#include "heft/util/error.hpp"
#include "heft/util/parallel.hpp"

namespace heft::ckks {

namespace {

using int128 = __int128;

// The low bits a double cannot carry: a flooding value z * sigma is taken as
// round(z * sigma / 2^k) * 2^k plus a uniform value below 2^k, so that its
// every bit varies (a bare double would leave the noise's low bits
// untouched: zeros that hide nothing).
constexpr int kDoubleBits = 50;

// A standard normal value by Box-Muller from two 53-bit uniforms. Decryption
// is the secret-key side, whose timing docs/security.md leaves out of scope.
double standard_normal(ring::Prng& prng) {
  const double u1 = static_cast<double>((prng.next_u64() >> 11) + 1) * 0x1p-53;  // (0, 1]
  const double u2 = static_cast<double>(prng.next_u64() >> 11) * 0x1p-53;        // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// One integer of the flooding distribution: a Gaussian of deviation
// 2^sigma_bits, every bit random.
int128 flooding_value(ring::Prng& prng, double sigma_bits, int low_bits) {
  const double z = standard_normal(prng);
  const double high = std::nearbyint(z * std::exp2(sigma_bits - low_bits));
  int128 value = static_cast<int128>(static_cast<int64_t>(high));
  if (low_bits == 0) return value;
  value <<= low_bits;
  // A uniform value below 2^low_bits, in at most two pieces: decrypt()
  // refuses sigma from 2^114, so low_bits <= 64.
  const int first = low_bits < 64 ? low_bits : 63;
  value += static_cast<int128>(prng.uniform_below(uint64_t{1} << first));
  if (low_bits > 63) {
    const int rest = low_bits - 63;
    value += static_cast<int128>(prng.uniform_below(uint64_t{1} << rest)) << 63;
  }
  return value;
}

uint64_t reduce(int128 value, uint64_t q) {
  const int128 r = value % static_cast<int128>(q);
  return static_cast<uint64_t>(r < 0 ? r + q : r);
}

double log2_modulus(const ring::RnsPoly& poly) {
  double bits = 0;
  for (std::size_t t = 0; t < poly.tower_count(); ++t)
    bits += std::log2(static_cast<double>(poly.modulus(t).value()));
  return bits;
}

}  // namespace

double flooding_bits(const FloodingOptions& options) {
  if (!std::isfinite(options.noise_bits) || options.noise_bits < 0) {
    throw InvalidArgument("flooding_bits: the noise bound's log2 must be finite and at least 0");
  }
  if (options.statistical_security < 1) {
    throw InvalidArgument("flooding_bits: the statistical security parameter must be at least 1");
  }
  if (options.decryptions == 0) {
    throw InvalidArgument("flooding_bits: the number of decryptions must be at least 1");
  }
  return options.noise_bits + options.statistical_security / 2.0 +
         std::log2(64.0 * static_cast<double>(options.decryptions)) / 2.0;
}

FloodingDecryptor::FloodingDecryptor(const rlwe::SecretKey& secret_key,
                                     const FloodingOptions& options)
    : decryptor_(secret_key), options_(options) {
  (void)flooding_bits(options_);  // its checks, before any decryption
}

FloodedPlaintext FloodingDecryptor::decrypt(const rlwe::Ciphertext& ciphertext) const {
  const double sigma_bits = flooding_bits(options_);
  FloodedPlaintext out;
  out.plain = decryptor_.decrypt(ciphertext);
  ring::RnsPoly& poly = out.plain.poly;
  // About 2^-30 of the samples reach 6 sigma; beyond half the modulus the
  // sum would wrap and decode to nothing like the message.
  const double modulus_bits = log2_modulus(poly);
  if (sigma_bits + 6 >= modulus_bits - 1) {
    throw InvalidArgument(
        "FloodingDecryptor::decrypt: flooding noise of 2^" + std::to_string(sigma_bits) +
        " does not fit the ciphertext's modulus of " + std::to_string(modulus_bits) +
        " bits; decrypt at a higher level or lower the noise bound");
  }
  if (sigma_bits + 6 >= 120) {
    throw InvalidArgument(
        "FloodingDecryptor::decrypt: flooding noise above 2^114 is not supported");
  }
  const int low_bits = sigma_bits > kDoubleBits ? static_cast<int>(sigma_bits) - kDoubleBits : 0;
  const std::size_t n = poly.degree();
  ring::RnsPoly noise(poly.context(), poly.tower_count(), ring::Form::coefficient);
  noise.mark_secret();  // with the decryption it adds to, it is the message
  ring::Prng prng = ring::Prng::from_os_entropy();
  for (std::size_t i = 0; i < n; ++i) {
    const int128 value = flooding_value(prng, sigma_bits, low_bits);
    for (std::size_t t = 0; t < noise.tower_count(); ++t)
      noise.tower(t)[i] = reduce(value, noise.modulus(t).value());
  }
  noise.ntt();
  poly += noise;
  out.flooding_bits = sigma_bits;
  out.slot_error =
      std::exp2(sigma_bits) * std::sqrt(static_cast<double>(n) / 2.0) / out.plain.scale;
  return out;
}

double measure_noise_bits(const rlwe::Decryptor& decryptor, const Encoder& encoder,
                          const rlwe::Ciphertext& ciphertext,
                          std::span<const std::complex<double>> expected) {
  rlwe::Plaintext decrypted = decryptor.decrypt(ciphertext);
  const rlwe::Plaintext ideal =
      encoder.encode(expected, ciphertext.scale, ciphertext.level(), ciphertext.slots);
  ring::RnsPoly difference = decrypted.poly.clone();
  difference -= ideal.poly;
  difference.intt();
  // The noise is small: each tower holds the same centred integer. Tower 0
  // gives it; every other tower must agree, or the difference is not small.
  const auto far = [] {
    return InvalidArgument(
        "measure_noise_bits: the decryption is far from the expected values (not the result of "
        "this circuit on them?)");
  };
  const uint64_t q0 = difference.modulus(0).value();
  double largest = 0;
  for (std::size_t i = 0; i < difference.degree(); ++i) {
    const uint64_t r = difference.tower(0)[i];
    const int64_t centred = r > q0 / 2 ? -static_cast<int64_t>(q0 - r) : static_cast<int64_t>(r);
    if (static_cast<uint64_t>(std::llabs(centred)) >= q0 / 4) throw far();
    for (std::size_t t = 1; t < difference.tower_count(); ++t) {
      const uint64_t q = difference.modulus(t).value();
      const uint64_t magnitude = static_cast<uint64_t>(std::llabs(centred)) % q;
      const uint64_t residue = centred < 0 && magnitude != 0 ? q - magnitude : magnitude;
      if (difference.tower(t)[i] != residue) throw far();
    }
    largest = std::max(largest, std::fabs(static_cast<double>(centred)));
  }
  // Noise as large as the scale leaves no bit of the result: such a
  // "measurement" means the expected values are not this circuit's result.
  if (largest >= ciphertext.scale) {
    throw InvalidArgument(
        "measure_noise_bits: the noise would reach the scale (no precision left): the expected "
        "values are not the result of this circuit on its inputs");
  }
  return largest < 1 ? 0.0 : std::log2(largest);
}

}  // namespace heft::ckks
