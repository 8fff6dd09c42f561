// CUPTI's name for a result code ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), for
// every message gpugate builds from a CUPTI failure. Include only from
// translation units that use CUPTI (*_cupti.cc, *_injection.cc).
#pragma once

#include <cupti.h>

#include <string>

namespace gpugate {

inline std::string CuptiText(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr)
    return "CUPTI error " + std::to_string(static_cast<int>(r));
  return text;
}

}  // namespace gpugate
