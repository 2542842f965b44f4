// Relinearization of ciphertexts for every scheme (relinearization.hpp).
#include "rlwe/relinearization.hpp"

#include <utility>

#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/key_switching.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::rlwe {
namespace {

Ciphertext with_two_parts(const Ciphertext& a, std::array<ring::RnsPoly, 2> parts) {
  Ciphertext out = Ciphertext::with_metadata(a);
  out.parts.push_back(std::move(parts[0]));
  out.parts.push_back(std::move(parts[1]));
  return out;
}

}  // namespace

void require_relinearization_operands(const Context& context, const Ciphertext& a,
                                      const RelinKey& key, const char* operation) {
  require_ciphertext(context, a, operation);
  require_relin_key(context, key, operation);
  detail::require_product(a, operation);
}

Ciphertext relinearize_unchecked(const Context& context, const Ciphertext& a, const RelinKey& key) {
  return with_two_parts(a,
                        switch_key_and_add(context, a.parts[2], key.key, a.parts[0], a.parts[1]));
}

Ciphertext relinearize_and_divide_unchecked(const Context& context, const Ciphertext& a,
                                            const RelinKey& key) {
  return with_two_parts(
      a, switch_key_and_divide(context, a.parts[2], key.key, a.parts[0], a.parts[1]));
}

}  // namespace heft::rlwe
