// Transparent ciphertexts (a mask that cancelled): the test and the refusal
// the evaluators make (heft/rlwe/ciphertext.hpp, docs/security.md).
#include <algorithm>
#include <string>

#include "heft/rlwe/ciphertext.hpp"
#include "heft/util/error.hpp"

namespace heft::rlwe {

bool is_transparent(const Ciphertext& ciphertext) noexcept {
  if (ciphertext.parts.size() < 2) return false;
  for (std::size_t i = 1; i < ciphertext.parts.size(); ++i) {
    const auto values = ciphertext.parts[i].data();
    if (std::any_of(values.begin(), values.end(), [](uint64_t v) { return v != 0; })) return false;
  }
  return true;
}

void refuse_transparent(const Ciphertext& result, const char* operation) {
  if (is_transparent(result)) throw_transparent(operation);
}

void throw_transparent(const char* operation) {
  throw TransparentCiphertextError(
      std::string(operation) +
      ": the result would be transparent (its mask cancelled, as in a product by zero or x - x: "
      "it would carry its values in the clear); compute the zero another way, or add a fresh "
      "encryption of zero (the tensor layer does this itself)");
}

}  // namespace heft::rlwe
