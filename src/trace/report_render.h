// Renderers of a TraceReport and the rule engine's findings on it
// (trace/findings.h): console table, Markdown, HTML and JSON
// (`gpugate/trace-analysis/v2`). Pure functions: report in, bytes out.
#pragma once

#include <string>
#include <vector>

#include "model/verdicts.h"
#include "trace/analysis.h"

namespace gpugate {

inline constexpr const char* kTraceAnalysisSchema = "gpugate/trace-analysis/v2";

/// What the policy's rules found in a trace (TraceFindings) and the policy's name.
struct TraceFindingSet {
  std::string policy = "default";
  std::vector<Suggestion> items;
};

/// Plain-text tables for a terminal. Control characters in names are replaced
/// so a hostile kernel name cannot inject terminal escapes.
/// Why a report has no GPU figures: the trace has no GPU activity, or the
/// GPU chosen with --device has none (naming the GPUs that do).
std::string NoGpuActivity(const TraceReport& r);

std::string RenderTraceConsole(const TraceReport& report, const TraceFindingSet& findings);

/// Markdown with tables; names are escaped for Markdown/HTML.
std::string RenderTraceMarkdown(const TraceReport& report, const TraceFindingSet& findings);

/// Machine-readable JSON, times in integer nanoseconds, percentages 0..100.
std::string RenderTraceJson(const TraceReport& report, const TraceFindingSet& findings);

/// One self-contained HTML page (inline CSS, no script, no network); every
/// name goes through EscapeHtml.
std::string RenderTraceHtml(const TraceReport& report, const TraceFindingSet& findings);

}  // namespace gpugate
