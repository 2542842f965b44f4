// Payloads of the integer schemes' own objects (docs/format.md): integer
// plaintexts, and BGV ciphertexts (an RLWE ciphertext plus its correction
// factor). Frames and RLWE parts come from src/rlwe/.
#include "heft/schemes/serialization.hpp"

#include <bit>
#include <cmath>
#include <numeric>
#include <string>

#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/util/error.hpp"
#include "rlwe/serial_bytes.hpp"
#include "rlwe/serial_objects.hpp"

namespace heft {
namespace {

using rlwe::serial::ByteReader;
using rlwe::serial::ByteWriter;

uint64_t require_plain_modulus(const rlwe::Context& context, const char* operation) {
  const uint64_t t = context.parameters().plain_modulus;
  if (t < 2) {
    throw MismatchError(std::string(operation) +
                        ": these parameters have no plaintext modulus (not BFV/BGV)");
  }
  return t;
}

int value_width(uint64_t t) {
  return std::bit_width(t - 1) == 0 ? 1 : std::bit_width(t - 1);
}

}  // namespace

namespace schemes {

// Payload: u64 t, u64 N, then N coefficients bit-packed to the width of t - 1.
rlwe::Bytes save(const rlwe::Context& context, const IntegerPlaintext& plain,
                 const rlwe::SaveOptions& options) {
  const uint64_t t = require_plain_modulus(context, "save");
  if (plain.modulus != t || plain.coefficients.size() != context.degree()) {
    throw MismatchError("save: the integer plaintext does not match the context's t and N");
  }
  for (uint64_t c : plain.coefficients) {
    if (c >= t) throw InvalidArgument("save: an integer plaintext coefficient is >= t");
  }
  return rlwe::serial::save_object(rlwe::ObjectType::integer_plaintext, context, options,
                                   [&](ByteWriter& out) {
                                     out.u64(t);
                                     out.u64(context.degree());
                                     out.packed(plain.coefficients, value_width(t));
                                   });
}

IntegerPlaintext load_integer_plaintext(const rlwe::ContextPtr& context,
                                        std::span<const uint8_t> bytes,
                                        const rlwe::LoadOptions& options) {
  rlwe::serial::require_context(context, "load_integer_plaintext");
  const uint64_t t = require_plain_modulus(*context, "load_integer_plaintext");
  const auto max_payload = [](const rlwe::Context& c) {
    return 16 + rlwe::serial::packed_bytes(c.degree(), 64);
  };
  return rlwe::serial::load_object(
      context, bytes, rlwe::ObjectType::integer_plaintext, +max_payload, options,
      [&](ByteReader& in) {
        const std::size_t n = context->degree();
        if (in.u64("plaintext modulus") != t || in.u64("degree") != n) {
          throw FormatError("integer plaintext: t or N differ from the parameters'");
        }
        IntegerPlaintext plain;
        plain.modulus = t;
        plain.coefficients.resize(n);
        in.packed(plain.coefficients, value_width(t), t, "integer plaintext");
        return plain;
      });
}

}  // namespace schemes

namespace bgv {

// Payload: the RLWE ciphertext payload, u64 correction factor, then (from
// format version 2) f64 noise estimate: finite, or +infinity for unknown.
rlwe::Bytes save(const rlwe::Context& context, const Ciphertext& ciphertext,
                 const rlwe::SaveOptions& options) {
  const uint64_t t = require_plain_modulus(context, "save");
  check_correction(ciphertext.correction, t, "save");
  // NaN (set by hand) means unknown, as infinity does: one encoding for it.
  const double noise = std::isnan(ciphertext.noise_log2) ? kUnknownNoise : ciphertext.noise_log2;
  if (noise == -kUnknownNoise) {
    throw InvalidArgument("save: the ciphertext's noise estimate is -infinity");
  }
  return rlwe::serial::save_object(
      rlwe::ObjectType::bgv_ciphertext, context, options, [&](ByteWriter& out) {
        rlwe::serial::write_ciphertext(out, context, ciphertext.ct, options.seeded);
        out.u64(ciphertext.correction);
        out.f64(noise);
      });
}

Ciphertext load_ciphertext(const rlwe::ContextPtr& context, std::span<const uint8_t> bytes,
                           const rlwe::LoadOptions& options) {
  rlwe::serial::require_context(context, "bgv::load_ciphertext");
  const uint64_t t = require_plain_modulus(*context, "bgv::load_ciphertext");
  const auto max_payload = [](const rlwe::Context& c) {
    return rlwe::serial::max_ciphertext_payload(c) + 16;
  };
  return rlwe::serial::load_object(
      context, bytes, rlwe::ObjectType::bgv_ciphertext, +max_payload, options,
      [&](ByteReader& in, uint16_t version) {
        Ciphertext ct;
        ct.ct = rlwe::serial::read_ciphertext(in, context);
        ct.correction = in.u64("correction factor");
        if (ct.correction == 0 || ct.correction >= t || std::gcd(ct.correction, t) != 1) {
          throw FormatError("BGV ciphertext: the correction factor is not invertible mod t");
        }
        // Version 1 had no estimate: unknown, so the evaluator will not
        // compute on it until one is set (decryption does not need it).
        ct.noise_log2 = version < 2 ? kUnknownNoise : in.f64("noise estimate");
        if (std::isnan(ct.noise_log2) || ct.noise_log2 == -kUnknownNoise) {
          throw FormatError("BGV ciphertext: the noise estimate is NaN or -infinity");
        }
        return ct;
      });
}

}  // namespace bgv
}  // namespace heft
