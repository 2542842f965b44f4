// Plaintexts of the exact-integer schemes (BFV and BGV), and the batch
// encoder that packs N integers mod t into one plaintext.
//
// IntegerPlaintext is a polynomial of Z_t[X]/(X^N + 1): N coefficients in
// [0, t). The BFV and BGV encryptors lift it into the ciphertext ring.
//
// Batching (t prime, t = 1 mod 2N): the plaintext ring splits into N slots,
// the values of m at the 2N-th roots of unity mod t. As in SEAL, the slots
// form a 2 x N/2 matrix: row 0, column i holds m(w^(5^i)) and row 1, column i
// holds m(w^(-5^i)), w a primitive 2N-th root mod t. The Galois element 5^r
// rotates both rows left by r columns; 2N - 1 swaps the rows.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "heft/export.hpp"
#include "heft/math/modulus.hpp"
#include "heft/math/ntt_tables.hpp"

namespace heft::schemes {

struct HEFT_EXPORT IntegerPlaintext {
  std::vector<uint64_t> coefficients;  // N values in [0, t)
  uint64_t modulus = 0;                // t
};

class HEFT_EXPORT BatchEncoder {
 public:
  // Throws InvalidArgument unless t is a prime = 1 mod 2N (a "batching prime")
  // and N is a power of two in [8, 2^17].
  BatchEncoder(uint64_t degree, uint64_t plain_modulus);

  [[nodiscard]] std::size_t slot_count() const noexcept { return degree_; }
  [[nodiscard]] uint64_t plain_modulus() const noexcept { return modulus_.value(); }

  // values[r * N/2 + c] goes to row r, column c; missing values are 0. Throws
  // InvalidArgument if there are more than N values or one is >= t.
  [[nodiscard]] IntegerPlaintext encode(std::span<const uint64_t> values) const;
  // Signed values in (-t/2, t/2], stored as value mod t.
  [[nodiscard]] IntegerPlaintext encode_signed(std::span<const int64_t> values) const;
  // MismatchError for a plaintext of another degree or modulus,
  // InvalidArgument if a coefficient is not below t.
  [[nodiscard]] std::vector<uint64_t> decode(const IntegerPlaintext& plain) const;
  // Decoded into (-t/2, t/2].
  [[nodiscard]] std::vector<int64_t> decode_signed(const IntegerPlaintext& plain) const;

 private:
  uint64_t degree_;
  math::Modulus modulus_;
  math::NttTables tables_;
  std::vector<uint32_t>
      slot_to_ntt_index_;  // slot s lives at NTT output index slot_to_ntt_index_[s]
};

// The coefficient encoder: m(X) = sum_i values[i] X^i mod t, for any t >= 2
// (no batching needed). Signed values are stored mod t; decode_signed maps back
// to (-t/2, t/2]. InvalidArgument for N not a power of two in [8, 2^17], t out
// of range, more than N values, or (decoding) a coefficient not below t.
HEFT_EXPORT IntegerPlaintext encode_coefficients(std::span<const int64_t> values, uint64_t degree,
                                                 uint64_t plain_modulus);
HEFT_EXPORT std::vector<int64_t> decode_coefficients_signed(const IntegerPlaintext& plain);

}  // namespace heft::schemes
