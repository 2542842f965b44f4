// The HE Standard table of maximal log2(QP) per ring degree and security level.
#include "heft/rlwe/security.hpp"

#include <array>

#include "heft/util/error.hpp"

namespace heft::rlwe {
namespace {

struct Row {
  uint64_t degree;
  int bits128, bits192, bits256;
};

constexpr std::array<Row, 8> kTernaryTable = {{
    {1024, 27, 19, 14},
    {2048, 54, 37, 29},
    {4096, 109, 75, 58},
    {8192, 218, 152, 118},
    {16384, 438, 305, 237},
    {32768, 881, 611, 476},
    {65536, 1747, 1199, 929},
    {131072, 3523, 2411, 1866},
}};

}  // namespace

const char* to_string(SecurityLevel level) noexcept {
  switch (level) {
    case SecurityLevel::none:
      return "none";
    case SecurityLevel::classic128:
      return "128-bit";
    case SecurityLevel::classic192:
      return "192-bit";
    case SecurityLevel::classic256:
      return "256-bit";
  }
  return "unknown";
}

int max_log_qp(uint64_t degree, SecurityLevel level) {
  if (level == SecurityLevel::none) {
    throw InvalidArgument("security level 'none' has no log2(QP) bound");
  }
  // An enum value cast from an integer the enum does not name.
  if (level != SecurityLevel::classic128 && level != SecurityLevel::classic192 &&
      level != SecurityLevel::classic256) {
    throw InvalidArgument("unknown security level " + std::to_string(static_cast<int>(level)) +
                          ": use none, classic128, classic192 or classic256");
  }
  for (const Row& row : kTernaryTable) {
    if (row.degree != degree) continue;
    switch (level) {
      case SecurityLevel::classic128:
        return row.bits128;
      case SecurityLevel::classic192:
        return row.bits192;
      case SecurityLevel::classic256:
        return row.bits256;
      case SecurityLevel::none:
        break;
    }
  }
  throw InvalidArgument("no security bound for ring degree N = " + std::to_string(degree) +
                        ": secure parameter sets use N = 1024 .. 131072 (a power of two)");
}

void require_security(uint64_t degree, int total_bits, SecurityLevel level) {
  if (level == SecurityLevel::none) return;
  const int bound = max_log_qp(degree, level);
  if (total_bits > bound) {
    throw InvalidArgument("parameters are not " + std::string(to_string(level)) +
                          " secure: log2(QP) = " + std::to_string(total_bits) +
                          " bits exceeds the HE Standard bound of " + std::to_string(bound) +
                          " bits for N = " + std::to_string(degree) +
                          "; use fewer or smaller primes, a larger N, or a lower security level");
  }
}

}  // namespace heft::rlwe
