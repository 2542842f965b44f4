// Pieces of the tensor layer's error messages, and the checks every tensor
// operation shares (enough levels left, the same context).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "heft/util/error.hpp"
#include "rlwe/operand_checks.hpp"

namespace heft::tensor::detail {

// "1, 2, -4" (or "none").
inline std::string join(std::span<const int64_t> values) {
  if (values.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

// InvalidArgument naming `operation` unless `available` levels cover `needed`.
inline void require_levels(std::size_t needed, std::size_t available, const char* operation) {
  if (available >= needed) return;
  throw InvalidArgument(std::string(operation) + ": needs " + std::to_string(needed) +
                        (needed == 1 ? " level" : " levels") + ", the operand has " +
                        std::to_string(available) +
                        " left (multiplicative depth exhausted; use parameters with more "
                        "primes)");
}

// InvalidArgument naming `operation` unless bootstrapping, which gives back
// `available` levels (`bootstrappable` false: it cannot), covers `needed`
// where `left` are left: refresh_for's check on vectors and tensors alike.
inline void require_refreshable(std::size_t needed, std::size_t left, bool bootstrappable,
                                std::size_t available, const char* operation) {
  if (bootstrappable && needed <= available) return;
  throw InvalidArgument(std::string(operation) + ": " + std::to_string(needed) +
                        " levels are needed and " + std::to_string(left) + " are left" +
                        (bootstrappable
                             ? " (bootstrapping gives back " + std::to_string(available) + ")"
                             : "; the context cannot bootstrap"));
}

// MismatchError naming `operation` unless both operands share a context.
template <class Pointer>
void require_same_context(const Pointer& a, const Pointer& b, const char* operation) {
  if (a != b) rlwe::detail::throw_different_context(operation, "the second operand");
}

// MismatchError naming `operation` unless the sizes agree.
inline void require_same_size(std::size_t a, std::size_t b, const char* operation) {
  if (a != b)
    throw MismatchError(std::string(operation) + ": sizes differ (" + std::to_string(a) + " and " +
                        std::to_string(b) + ")");
}

}  // namespace heft::tensor::detail
