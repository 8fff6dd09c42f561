// Renderers of an InspectReport: a console table (names escaped for the
// terminal) and gpugate/inspect/v1 JSON (docs/inspect.md). Pure: bytes in,
// bytes out, no I/O.
#pragma once

#include <string>

#include "static/inspect.h"

namespace gpugate {

/// One row per kernel and architecture, then the notes.
std::string RenderInspectTable(const InspectReport& report);

/// {"schema": "gpugate/inspect/v1", ...}, pretty-printed, ending in "\n".
std::string InspectToJson(const InspectReport& report);

/// "0x" and 16 hex digits.
std::string SassHashText(uint64_t hash);

}  // namespace gpugate
