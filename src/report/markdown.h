// GitHub-flavoured Markdown report (pull-request comments, the Actions step
// summary): a one-line summary first, regressions first, ratios with their
// confidence intervals, unchanged results folded in <details>.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"

namespace gpugate {

/// Renders the verdicts as GFM. Every untrusted string is escaped with
/// EscapeMarkdown, so names cannot break a table, inject HTML or markup.
/// Pure: no I/O.
std::string RenderMarkdown(const Verdicts& verdicts, const ReportOptions& options = {});

}  // namespace gpugate
