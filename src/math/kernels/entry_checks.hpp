// The argument checks that the checked entry points (checked_ntt.cpp,
// checked_eltwise.cpp, checked_sums.cpp) share: sizes, overlaps, scalar
// operands, and the modulus data the kernels take.
//
// Baseline code, included only by those files; in an anonymous namespace so
// that each keeps its own internal copy, as when they were one file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "heft/math/modulus.hpp"
#include "heft/util/error.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {
namespace {

// Whether two arrays share memory, whatever their element types.
template <class A, class B>
bool overlaps(std::span<A> a, std::span<B> b) {
  const std::span<const std::byte> x = std::as_bytes(a), y = std::as_bytes(b);
  return !x.empty() && !y.empty() && x.data() < y.data() + y.size() &&
         y.data() < x.data() + x.size();
}

// The element-wise kernels run in vector chunks, so an output may be an
// input exactly (in place) but must not overlap one partially: the chunks
// would read values already overwritten, differently at each ISA level.
inline void require_in_place_or_disjoint(std::span<const uint64_t> input,
                                         std::span<const uint64_t> out, const char* operation) {
  if (input.data() != out.data() && overlaps(input, out)) {
    throw InvalidArgument(std::string(operation) +
                          ": the output overlaps an input without being the same array");
  }
}

inline void require_same_size(std::size_t expected, std::size_t actual, const char* operation,
                              const char* what) {
  if (expected != actual) {
    throw MismatchError(std::string(operation) + ": " + what + " has " + std::to_string(actual) +
                        " values but the first operand has " + std::to_string(expected));
  }
}

inline kernels::ModulusData modulus_data(const Modulus& q) {
  return {q.value(), q.barrett_hi(), q.barrett_lo(), q.barrett64()};
}

inline void require_scalar_operand(uint64_t scalar, const Modulus& q, const char* operation) {
  if (scalar >= q.value()) {
    throw InvalidArgument(std::string(operation) + ": scalar " + std::to_string(scalar) +
                          " must be reduced below the modulus " + std::to_string(q.value()));
  }
}

}  // namespace
}  // namespace heft::math
