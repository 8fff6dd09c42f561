// Kernel names as people read them: one demangler for every lane (CUPTI
// records, static kernel metrics).
#pragma once

#include <string>

namespace gpugate {

/// "_Z5saxpyifPKfPf" -> "saxpy(int, float, float const*, float*)"; names
/// that are not mangled C++ names (extern "C" kernels, text that does not
/// demangle) come back unchanged. nullptr gives "".
std::string DemangleKernelName(const char* name);

}  // namespace gpugate
