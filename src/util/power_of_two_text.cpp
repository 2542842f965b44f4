// "2^x" texts for error messages (power_of_two_text.hpp).
#include "util/power_of_two_text.hpp"

#include <cstdio>

namespace heft::detail {

std::string power_of_two_text(double log2_value, std::optional<int> decimals) {
  char buffer[64];
  if (decimals) {
    std::snprintf(buffer, sizeof buffer, "2^%.*f", *decimals, log2_value);
  } else {
    std::snprintf(buffer, sizeof buffer, "2^%.4g", log2_value);
  }
  return buffer;
}

}  // namespace heft::detail
