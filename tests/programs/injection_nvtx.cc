// The injection library hands NVTX to libcupti (NVTX_INJECTION64_PATH names
// it; docs/cupti.md): its InitializeInjectionNvtx2 must reach libcupti's.
// gpugate's entry returns 0 (NVTX stays off) whenever it cannot hand over,
// and libcupti's accepts the handover (1) with or without a device, so 1
// shows the entry reached CUPTI's.
// Usage: injection_nvtx path/to/libgpugate_inject.so
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

namespace {
const void* ExportTable(uint32_t /*id*/) { return nullptr; }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: injection_nvtx LIBRARY\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "injection_nvtx: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  using Entry = int (*)(const void* (*)(uint32_t));
  auto entry = reinterpret_cast<Entry>(dlsym(lib, "InitializeInjectionNvtx2"));
  if (entry == nullptr) {
    std::fprintf(stderr, "injection_nvtx: %s has no InitializeInjectionNvtx2\n", argv[1]);
    return 1;
  }
  const int status = entry(&ExportTable);
  if (status == 0) {
    std::fprintf(stderr, "injection_nvtx: InitializeInjectionNvtx2 returned 0: NVTX was not handed to libcupti\n");
    return 1;
  }
  std::printf("injection_nvtx: libcupti's entry took NVTX (returned %d)\n", status);
  return 0;
}
