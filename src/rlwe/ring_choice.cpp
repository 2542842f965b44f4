// The key-switching cost model behind rlwe::choose_ring (see ring_choice.hpp).
#include "heft/rlwe/ring_choice.hpp"

#include <cmath>

namespace heft::rlwe {

double key_switch_cost(std::size_t levels, std::size_t dnum, uint64_t degree) {
  const double alpha = std::ceil(static_cast<double>(levels) / static_cast<double>(dnum));
  const double special = alpha;
  const double l = static_cast<double>(levels), d = static_cast<double>(dnum);
  const double log_n = std::log2(static_cast<double>(degree));
  return l + d * (l + special - alpha) + 2 * d * (l + special) * 2 / log_n + 2 * (special + l);
}

}  // namespace heft::rlwe
