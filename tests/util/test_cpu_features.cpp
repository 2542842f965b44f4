// CPU feature detection: the implications between features hold.
#include <gtest/gtest.h>

#include "heft/util/cpu_features.hpp"

namespace heft {
namespace {

TEST(CpuFeatures, ConsistentImplications) {
  const CpuFeatures& f = cpu_features();
  if (f.avx2) EXPECT_TRUE(f.avx);
  if (f.avx512ifma) EXPECT_TRUE(f.avx512f);
  if (f.avx512f) EXPECT_TRUE(f.os_saves_zmm);
  EXPECT_FALSE(f.summary().empty());
}

}  // namespace
}  // namespace heft
