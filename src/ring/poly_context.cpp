// PolyContext construction and the thread-safe automorphism map cache.
#include "heft/ring/poly_context.hpp"

#include <string>
#include <utility>

#include "heft/ring/automorphism.hpp"

namespace heft::ring {

std::shared_ptr<const PolyContext> PolyContext::create(uint64_t degree, RnsBase base) {
  return std::make_shared<const PolyContext>(PrivateTag{}, degree, std::move(base));
}

PolyContext::PolyContext(PrivateTag, uint64_t degree, RnsBase base)
    : degree_(degree), base_(std::move(base)) {
  if (base_.empty()) throw InvalidArgument("PolyContext needs a non-empty RNS base");
  // NttTables validates N (power of two in [8, 2^17]) and each modulus
  // (prime, = 1 mod 2N) with messages that name the offending value.
  ntt_tables_.reserve(base_.size());
  for (const math::Modulus& q : base_.moduli())
    ntt_tables_.emplace_back(degree, q);
  log_degree_ = __builtin_ctzll(degree);
}

void PolyContext::require_galois_element(uint64_t galois_element) const {
  if (!is_galois_element(galois_element)) {
    throw InvalidArgument(
        "Galois element " + std::to_string(galois_element) +
        " is not an automorphism of Z[X]/(X^N + 1) for N = " + std::to_string(degree_) +
        ": it must be odd and below 2N = " + std::to_string(2 * degree_));
  }
}

std::span<const uint32_t> PolyContext::ntt_automorphism_map(uint64_t galois_element) const {
  require_galois_element(galois_element);
  // Building a map is O(N) and rare, so holding the lock while building is
  // simpler than double-checked insertion and costs nothing measurable.
  std::lock_guard<std::mutex> lock(automorphism_mutex_);
  auto& slot = automorphism_maps_[galois_element];
  if (!slot) {
    slot = std::make_unique<const std::vector<uint32_t>>(
        make_ntt_automorphism_map(degree_, galois_element));
  }
  return *slot;
}

}  // namespace heft::ring
