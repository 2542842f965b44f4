// Security levels and the Homomorphic Encryption Standard bounds on log2(QP).
//
// The table is the HE Standard's (homomorphicencryption.org, 2018) for
// ternary secrets and error sigma ~3.2, extended to N = 2^16 and 2^17 with the
// lattice estimator, classical attacks. heft measures log2(QP) as the sum of
// the bit sizes of all primes (ciphertext and special), as SEAL does: this
// slightly over-counts the true log2, so it errs on the safe side.
#pragma once

#include <cstdint>
#include <string>

#include "heft/export.hpp"

namespace heft::rlwe {

enum class SecurityLevel {
  none,        // no check: for tests and experiments only, never for real data
  classic128,  // 128-bit classical security
  classic192,
  classic256,
};

HEFT_EXPORT const char* to_string(SecurityLevel level) noexcept;

// Largest total bit count of QP allowed for ring degree N at `level`;
// throws InvalidArgument for `none` or an N outside 2^10 .. 2^17.
HEFT_EXPORT int max_log_qp(uint64_t degree, SecurityLevel level);

// Throws InvalidArgument naming the bound if `total_bits` exceeds what `level`
// allows at degree N. Does nothing for SecurityLevel::none.
HEFT_EXPORT void require_security(uint64_t degree, int total_bits, SecurityLevel level);
// The name require_security had before the checks took one vocabulary.
[[deprecated("use require_security")]] inline void check_security(uint64_t degree, int total_bits,
                                                                  SecurityLevel level) {
  require_security(degree, total_bits, level);
}

}  // namespace heft::rlwe
