// libFuzzer entry point of one target; GPUGATE_FUZZ_TARGET names it
// (fuzz/CMakeLists.txt builds one binary per target).
#include <cstdio>
#include <cstdlib>

#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gpugate::fuzz::Target* target = [] {
    const gpugate::fuzz::Target* t = gpugate::fuzz::FindTarget(GPUGATE_FUZZ_TARGET);
    if (t == nullptr) {
      std::fprintf(stderr, "no fuzz target named %s\n", GPUGATE_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  target->run(data, size);
  return 0;
}
