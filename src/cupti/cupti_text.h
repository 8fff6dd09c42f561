// CUPTI's name for a result code ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), for
// every message gpugate builds from a CUPTI failure, and the parameter-struct
// helper every CUPTI call uses. Include only from
// translation units that use CUPTI (*_cupti.cc, *_injection.cc).
#pragma once

#include <cupti.h>

#include <cstddef>
#include <string>

namespace gpugate {

/// A CUPTI parameter struct, zeroed, with its structSize set (the
/// *_STRUCT_SIZE macro of its header).
template <class P>
P Params(size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

inline std::string CuptiText(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr)
    return "CUPTI error " + std::to_string(static_cast<int>(r));
  return text;
}

}  // namespace gpugate
