// Renderers of a TraceReport: console table, Markdown and JSON
// (`gpugate/trace-analysis/v1`). Pure functions: report in, bytes out.
#pragma once

#include <string>

#include "trace/analysis.h"

namespace gpugate {

inline constexpr const char* kTraceAnalysisSchema = "gpugate/trace-analysis/v1";

/// Plain-text tables for a terminal. Control characters in names are replaced
/// so a hostile kernel name cannot inject terminal escapes.
std::string RenderTraceConsole(const TraceReport& report);

/// Markdown with tables; names are escaped for Markdown/HTML.
std::string RenderTraceMarkdown(const TraceReport& report);

/// Machine-readable JSON, times in integer nanoseconds, percentages 0..100.
std::string RenderTraceJson(const TraceReport& report);

}  // namespace gpugate
