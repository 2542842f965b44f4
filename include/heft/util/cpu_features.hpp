// What the processor (and the operating system) let heft use, read once from
// cpuid/xgetbv. The kernel dispatcher picks an ISA level from this.
#pragma once

#include <string>

#include "heft/export.hpp"

namespace heft {

struct HEFT_EXPORT CpuFeatures {
  bool sse42 = false;
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool bmi2 = false;
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512bw = false;
  bool avx512ifma = false;
  bool os_saves_ymm = false;  // XCR0 has SSE+AVX state enabled
  bool os_saves_zmm = false;  // XCR0 has opmask + ZMM state enabled
  std::string brand;          // e.g. "AMD EPYC 9R14"

  // Human-readable list of the flags that matter to heft, e.g. "avx2 bmi2 fma".
  [[nodiscard]] std::string summary() const;
};

// Features of the CPU running this process (computed once, then cached).
HEFT_EXPORT const CpuFeatures& cpu_features();

}  // namespace heft
