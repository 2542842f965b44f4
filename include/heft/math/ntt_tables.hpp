// Precomputed twiddle factors for the negacyclic NTT of one (N, q).
//
// Built once per prime and shared (read-only) by every polynomial over that
// prime. q must be prime and = 1 (mod 2N); psi is the smallest primitive
// 2N-th root of unity, so tables are reproducible.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heft/export.hpp"
#include "heft/math/modulus.hpp"
#include "heft/util/aligned_buffer.hpp"

namespace heft::math {

namespace kernels {
struct NttTableData;
}

inline constexpr uint64_t kMinPolyDegree = 8;
inline constexpr uint64_t kMaxPolyDegree = uint64_t{1} << 17;

// Throws InvalidArgument (naming `what`) unless degree is a power of two in
// [kMinPolyDegree, kMaxPolyDegree].
HEFT_EXPORT void require_poly_degree(uint64_t degree, const char* what);

class HEFT_EXPORT NttTables {
 public:
  // Throws InvalidArgument if N is not a power of two in [8, 2^17], or q is not
  // a prime = 1 (mod 2N).
  NttTables(uint64_t degree, const Modulus& modulus);
  ~NttTables();
  NttTables(NttTables&&) noexcept;
  NttTables& operator=(NttTables&&) noexcept;
  NttTables(const NttTables&) = delete;
  NttTables& operator=(const NttTables&) = delete;

  // True for a moved-from object, which the transforms refuse.
  [[nodiscard]] bool empty() const noexcept { return data_ == nullptr; }
  [[nodiscard]] uint64_t degree() const noexcept { return degree_; }
  [[nodiscard]] int log_degree() const noexcept { return log_degree_; }
  [[nodiscard]] const Modulus& modulus() const noexcept { return modulus_; }
  // The primitive 2N-th root psi the transform evaluates at.
  [[nodiscard]] uint64_t root() const noexcept { return root_; }
  // psi^brv(k) and psi^-brv(k), k in [0, N).
  [[nodiscard]] const AlignedBuffer<uint64_t>& roots() const noexcept { return roots_; }
  [[nodiscard]] const AlignedBuffer<uint64_t>& inv_roots() const noexcept { return inv_roots_; }

  // Bytes of tables the constructor allocates for (N, q), N in
  // [kMinPolyDegree, kMaxPolyDegree]: 56 a coefficient for q >= 2^50, 116
  // below (the 52-bit and double copies), or 32 and 80 for N < 64. What
  // loading charges a context against LoadOptions::max_context_bytes before
  // building it (rlwe::context_bytes).
  [[nodiscard]] static std::size_t table_bytes(uint64_t degree, uint64_t modulus) noexcept;
  // The bytes this object's tables hold (table_bytes of its N and q).
  [[nodiscard]] std::size_t allocated_bytes() const noexcept;

  // The kernel-facing view (valid while this object lives).
  [[nodiscard]] const kernels::NttTableData& data() const noexcept { return *data_; }

 private:
  void refresh_view();

  uint64_t degree_ = 0;
  int log_degree_ = 0;
  Modulus modulus_;
  uint64_t root_ = 0;
  AlignedBuffer<uint64_t> roots_, roots_shoup_, inv_roots_, inv_roots_shoup_;
  AlignedBuffer<uint64_t> roots_shoup52_, inv_roots_shoup52_;
  // q < 2^50: roots, roots_shoup52 / 2^52 and the inverse pair as doubles,
  // one after the other (4N values).
  AlignedBuffer<double> double_tables_;
  // N >= 64: the twiddles of the last two stages (roots[N/4, N)) in the order
  // the AVX-512 transforms read them (kernels::NttTableData::last_roots),
  // 3N/4 values per table: roots, roots_shoup, inv_roots, inv_roots_shoup,
  // then for q < 2^50 roots_shoup52 and inv_roots_shoup52.
  AlignedBuffer<uint64_t> last_stage_tables_;
  kernels::NttTableData* data_ = nullptr;
};

// Reverses the lowest `bits` bits of x.
HEFT_EXPORT uint64_t reverse_bits(uint64_t x, int bits) noexcept;

}  // namespace heft::math
