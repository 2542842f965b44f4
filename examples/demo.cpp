// heft demo: placeholder until the kernel timing table lands.
#include <cstdio>

#include "heft/math/kernels.hpp"
#include "heft/util/cpu_features.hpp"

int main() {
  std::printf("CPU: %s\nfeatures: %s\nISA level: %s\n", heft::cpu_features().brand.c_str(),
              heft::cpu_features().summary().c_str(), heft::math::to_string(heft::math::active_isa()));
}
