// Builds the twiddle tables used by every ISA level's NTT kernels.
#include "heft/math/ntt_tables.hpp"

#include <bit>
#include <string>
#include <utility>

#include "heft/math/primes.hpp"
#include "math/kernels/kernel_api.hpp"

namespace heft::math {

uint64_t reverse_bits(uint64_t x, int bits) noexcept {
  uint64_t reversed = 0;
  for (int i = 0; i < bits; ++i) {
    reversed = (reversed << 1) | (x & 1);
    x >>= 1;
  }
  return reversed;
}

namespace {

// Below 2^50 the tables also hold the 52-bit Shoup constants and the double
// copies that the IFMA and floating-point kernels read.
bool has_52_bit_tables(uint64_t q) {
  return q < (uint64_t{1} << 50);
}

uint64_t shoup52(uint64_t w, uint64_t q) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 52) / q);
}

// Copies table[N/4, N) into out[0, 3N/4) in the order of
// kernels::NttTableData::last_roots (N >= 64).
void copy_in_last_stage_order(const uint64_t* table, uint64_t degree, uint64_t* out) {
  const uint64_t quarter = degree / 4, half = degree / 2;
  for (uint64_t s = 0; s < degree / 64; ++s) {
    for (uint64_t m = 0; m < 8; ++m) {
      for (uint64_t h = 0; h < 2; ++h)
        out[16 * s + 8 * h + m] = table[quarter + 16 * s + 2 * m + h];
      for (uint64_t j = 0; j < 4; ++j)
        out[quarter + 32 * s + 8 * j + m] = table[half + 32 * s + 4 * m + j];
    }
  }
}

}  // namespace

void require_poly_degree(uint64_t degree, const char* what) {
  if (degree < kMinPolyDegree || degree > kMaxPolyDegree || !std::has_single_bit(degree)) {
    throw InvalidArgument(std::string(what) + ": N = " + std::to_string(degree) +
                          " must be a power of two in [8, 131072]");
  }
}

NttTables::NttTables(uint64_t degree, const Modulus& modulus) : degree_(degree), modulus_(modulus) {
  require_poly_degree(degree, "NTT length");
  const uint64_t q = modulus.value();
  if ((q - 1) % (2 * degree) != 0 || !is_prime(q)) {
    throw InvalidArgument("NTT modulus " + std::to_string(q) +
                          " must be a prime = 1 mod 2N = " + std::to_string(2 * degree));
  }
  log_degree_ = __builtin_ctzll(degree);
  root_ = minimal_primitive_root_of_unity(2 * degree, modulus);
  const uint64_t inv_root = modulus.inverse(root_);
  const bool small_modulus = has_52_bit_tables(q);

  roots_ = AlignedBuffer<uint64_t>(degree);
  roots_shoup_ = AlignedBuffer<uint64_t>(degree);
  inv_roots_ = AlignedBuffer<uint64_t>(degree);
  inv_roots_shoup_ = AlignedBuffer<uint64_t>(degree);
  if (small_modulus) {
    roots_shoup52_ = AlignedBuffer<uint64_t>(degree);
    inv_roots_shoup52_ = AlignedBuffer<uint64_t>(degree);
  }
  uint64_t power = 1, inv_power = 1;
  for (uint64_t i = 0; i < degree; ++i) {
    const uint64_t k = reverse_bits(i, log_degree_);
    roots_[k] = power;
    inv_roots_[k] = inv_power;
    power = modulus.mul(power, root_);
    inv_power = modulus.mul(inv_power, inv_root);
  }
  for (uint64_t k = 0; k < degree; ++k) {
    roots_shoup_[k] = modulus.shoup(roots_[k]);
    inv_roots_shoup_[k] = modulus.shoup(inv_roots_[k]);
    if (small_modulus) {
      roots_shoup52_[k] = shoup52(roots_[k], q);
      inv_roots_shoup52_[k] = shoup52(inv_roots_[k], q);
    }
  }
  if (small_modulus) {
    // Every value is below 2^52, so each conversion is exact.
    double_tables_ = AlignedBuffer<double>(4 * degree);
    for (uint64_t k = 0; k < degree; ++k) {
      double_tables_[k] = static_cast<double>(roots_[k]);
      double_tables_[degree + k] = static_cast<double>(roots_shoup52_[k]) * 0x1p-52;
      double_tables_[2 * degree + k] = static_cast<double>(inv_roots_[k]);
      double_tables_[3 * degree + k] = static_cast<double>(inv_roots_shoup52_[k]) * 0x1p-52;
    }
  }
  if (degree >= 64) {
    // Tables in the order of NttTableData::last_roots, the 52-bit ones last.
    const AlignedBuffer<uint64_t>* sources[] = {&roots_,         &roots_shoup_,
                                                &inv_roots_,     &inv_roots_shoup_,
                                                &roots_shoup52_, &inv_roots_shoup52_};
    const std::size_t count = small_modulus ? 6 : 4;
    const uint64_t length = 3 * degree / 4;
    last_stage_tables_ = AlignedBuffer<uint64_t>(count * length);
    for (std::size_t i = 0; i < count; ++i) {
      copy_in_last_stage_order(sources[i]->data(), degree, last_stage_tables_.data() + i * length);
    }
  }
  data_ = new kernels::NttTableData{};
  refresh_view();
}

std::size_t NttTables::table_bytes(uint64_t degree, uint64_t modulus) noexcept {
  const bool small_modulus = has_52_bit_tables(modulus);
  // roots, inverse roots and their Shoup constants (64-bit, and 52-bit below
  // 2^50), the four double tables, the last two stages' copies (3N/4 each).
  std::size_t words = (small_modulus ? 6 : 4) * degree + (small_modulus ? 4 : 0) * degree;
  if (degree >= 64) words += (small_modulus ? 6 : 4) * (3 * degree / 4);
  return words * sizeof(uint64_t);
}

std::size_t NttTables::allocated_bytes() const noexcept {
  std::size_t words = 0;
  for (const AlignedBuffer<uint64_t>* table :
       {&roots_, &roots_shoup_, &inv_roots_, &inv_roots_shoup_, &roots_shoup52_,
        &inv_roots_shoup52_, &last_stage_tables_})
    words += table->size();
  return (words + double_tables_.size()) * sizeof(uint64_t);
}

void NttTables::refresh_view() {
  const uint64_t q = modulus_.value();
  const bool small_modulus = has_52_bit_tables(q);
  kernels::NttTableData& d = *data_;
  d.degree = degree_;
  d.log_degree = static_cast<uint32_t>(log_degree_);
  d.modulus = {q, modulus_.barrett_hi(), modulus_.barrett_lo(), modulus_.barrett64()};
  d.roots = roots_.data();
  d.roots_shoup = roots_shoup_.data();
  d.inv_roots = inv_roots_.data();
  d.inv_roots_shoup = inv_roots_shoup_.data();
  d.roots_shoup52 = small_modulus ? roots_shoup52_.data() : nullptr;
  d.inv_roots_shoup52 = small_modulus ? inv_roots_shoup52_.data() : nullptr;
  const double* doubles = small_modulus ? double_tables_.data() : nullptr;
  d.roots_double = doubles;
  d.roots_ratio = small_modulus ? doubles + degree_ : nullptr;
  d.inv_roots_double = small_modulus ? doubles + 2 * degree_ : nullptr;
  d.inv_roots_ratio = small_modulus ? doubles + 3 * degree_ : nullptr;
  const uint64_t* last = last_stage_tables_.empty() ? nullptr : last_stage_tables_.data();
  const uint64_t length = 3 * degree_ / 4;
  const auto last_table = [&](std::size_t i, bool present) {
    return last != nullptr && present ? last + i * length : nullptr;
  };
  d.last_roots = last_table(0, true);
  d.last_roots_shoup = last_table(1, true);
  d.last_inv_roots = last_table(2, true);
  d.last_inv_roots_shoup = last_table(3, true);
  d.last_roots_shoup52 = last_table(4, small_modulus);
  d.last_inv_roots_shoup52 = last_table(5, small_modulus);
  d.inv_degree = modulus_.inverse(degree_ % q);
  d.inv_degree_shoup = modulus_.shoup(d.inv_degree);
  d.inv_degree_shoup52 = small_modulus ? shoup52(d.inv_degree, q) : 0;
  d.inv_degree_root = modulus_.mul(d.inv_degree, inv_roots_[1]);
  d.inv_degree_root_shoup = modulus_.shoup(d.inv_degree_root);
  d.inv_degree_root_shoup52 = small_modulus ? shoup52(d.inv_degree_root, q) : 0;
}

NttTables::~NttTables() {
  delete data_;
}

NttTables::NttTables(NttTables&& other) noexcept
    : degree_(other.degree_),
      log_degree_(other.log_degree_),
      modulus_(other.modulus_),
      root_(other.root_),
      roots_(std::move(other.roots_)),
      roots_shoup_(std::move(other.roots_shoup_)),
      inv_roots_(std::move(other.inv_roots_)),
      inv_roots_shoup_(std::move(other.inv_roots_shoup_)),
      roots_shoup52_(std::move(other.roots_shoup52_)),
      inv_roots_shoup52_(std::move(other.inv_roots_shoup52_)),
      double_tables_(std::move(other.double_tables_)),
      last_stage_tables_(std::move(other.last_stage_tables_)),
      data_(std::exchange(other.data_, nullptr)) {}

NttTables& NttTables::operator=(NttTables&& other) noexcept {
  if (this != &other) {
    delete data_;
    degree_ = other.degree_;
    log_degree_ = other.log_degree_;
    modulus_ = other.modulus_;
    root_ = other.root_;
    roots_ = std::move(other.roots_);
    roots_shoup_ = std::move(other.roots_shoup_);
    inv_roots_ = std::move(other.inv_roots_);
    inv_roots_shoup_ = std::move(other.inv_roots_shoup_);
    roots_shoup52_ = std::move(other.roots_shoup52_);
    inv_roots_shoup52_ = std::move(other.inv_roots_shoup52_);
    double_tables_ = std::move(other.double_tables_);
    last_stage_tables_ = std::move(other.last_stage_tables_);
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

}  // namespace heft::math
