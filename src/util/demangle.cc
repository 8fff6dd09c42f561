#include "util/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace gpugate {

std::string DemangleKernelName(const char* name) {
  if (name == nullptr) return "";
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

}  // namespace gpugate
