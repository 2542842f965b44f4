// Reads cpuid and xgetbv once to learn which instruction sets may be used.
// Compiled for baseline x86-64: this file runs before anything is known.
#include "heft/util/cpu_features.hpp"

#include <cpuid.h>

#include <cstdint>
#include <cstring>

namespace heft {
namespace {

uint64_t read_xcr0() {
  uint32_t eax = 0, edx = 0;
  // xgetbv with ecx = 0; only called when cpuid reports OSXSAVE.
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return f;
  const unsigned max_leaf = eax;

  __cpuid(1, eax, ebx, ecx, edx);
  f.sse42 = (ecx >> 20) & 1;
  f.fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool cpu_avx = (ecx >> 28) & 1;
  if (osxsave) {
    const uint64_t xcr0 = read_xcr0();
    f.os_saves_ymm = (xcr0 & 0x6) == 0x6;    // SSE and AVX state
    f.os_saves_zmm = (xcr0 & 0xe6) == 0xe6;  // plus opmask, ZMM_Hi256, Hi16_ZMM
  }
  f.avx = cpu_avx && f.os_saves_ymm;
  if (!f.avx) f.fma = false;

  if (max_leaf >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    f.avx2 = f.avx && ((ebx >> 5) & 1);
    f.bmi2 = (ebx >> 8) & 1;
    const bool zmm = f.os_saves_zmm;
    f.avx512f = zmm && ((ebx >> 16) & 1);
    f.avx512dq = zmm && ((ebx >> 17) & 1);
    f.avx512ifma = zmm && ((ebx >> 21) & 1);
    f.avx512bw = zmm && ((ebx >> 30) & 1);
    f.avx512vl = zmm && ((ebx >> 31) & 1);
  }

  char brand[49] = {};
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) != 0 && eax >= 0x80000004) {
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      unsigned regs[4];
      __cpuid(0x80000002 + leaf, regs[0], regs[1], regs[2], regs[3]);
      std::memcpy(brand + 16 * leaf, regs, 16);
    }
  }
  f.brand = brand;
  while (!f.brand.empty() && f.brand.back() == ' ')
    f.brand.pop_back();
  return f;
}

}  // namespace

std::string CpuFeatures::summary() const {
  std::string s;
  auto add = [&s](bool present, const char* name) {
    if (!present) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(sse42, "sse4.2");
  add(avx, "avx");
  add(avx2, "avx2");
  add(fma, "fma");
  add(bmi2, "bmi2");
  add(avx512f, "avx512f");
  add(avx512dq, "avx512dq");
  add(avx512vl, "avx512vl");
  add(avx512bw, "avx512bw");
  add(avx512ifma, "avx512ifma");
  return s.empty() ? std::string("(baseline x86-64 only)") : s;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace heft
