// Timestamps as Chrome trace text (see time_text.h).
#include "util/time_text.h"

namespace gpugate {

std::string NanosToMicrosText(int64_t ns) {
  const bool negative = ns < 0;
  // The magnitude as unsigned: also right for INT64_MIN.
  const uint64_t v = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::string frac = std::to_string(v % 1000);
  frac.insert(0, 3 - frac.size(), '0');
  return (negative ? "-" : "") + std::to_string(v / 1000) + "." + frac;
}

}  // namespace gpugate
