// Self-contained HTML report: one file with inline CSS, inline SVG pictures
// and a small inline script (sort, filter, search), no external resources
// (a Content-Security-Policy forbids loading any), so it can be archived as
// a CI artifact, opened offline and printed. docs/reports.md describes it.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts as an HTML5 document. Every untrusted string goes
/// through EscapeHtml. Pure: no I/O.
std::string RenderHtml(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
