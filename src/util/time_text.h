// Timestamps as Chrome trace text: integer nanoseconds written as a
// microsecond number with three decimals, exactly (no double on the way), as
// the timeline export and the CUPTI trace writer need.
#pragma once

#include <cstdint>
#include <string>

namespace gpugate {

/// Integer nanoseconds as a microsecond literal: 1694039994071305123 ->
/// "1694039994071305.123", -1 -> "-0.001".
std::string NanosToMicrosText(int64_t ns);

}  // namespace gpugate
