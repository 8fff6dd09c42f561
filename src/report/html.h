// Self-contained HTML report: one file with inline CSS and no external
// resources (no scripts, fonts or images), so it can be archived as a CI
// artifact and opened offline.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts as an HTML5 document. Every untrusted string goes
/// through EscapeHtml. Pure: no I/O.
std::string RenderHtml(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
