// Payload of the integer schemes' own object (docs/format.md): integer
// plaintexts. Frames come from src/rlwe/; BFV and BGV ciphertexts are
// rlwe::Ciphertext and travel as such.
#include "heft/schemes/serialization.hpp"

#include <bit>
#include <string>

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

}  // namespace heft
