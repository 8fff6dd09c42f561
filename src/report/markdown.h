// GitHub-flavoured Markdown report (pull-request comments, the Actions step
// summary): a one-line headline first (a pass mark only for a pass), what the
// comparison could have seen, failed workloads and regressions first, ratios
// with their confidence intervals, unchanged results folded in <details>.
#pragma once

#include <string>

#include "model/verdicts.h"
#include "report/options.h"
#include "report/view.h"

namespace gpugate {

/// Renders the verdicts as GFM. Every untrusted string is escaped with
/// EscapeMarkdown, so names cannot break a table, inject HTML or markup.
/// Pure: no I/O.
std::string RenderMarkdown(const Verdicts& verdicts, const ReportOptions& options = {});

/// The same from a view (BuildView), for callers that trim it first (the
/// step summary drops unchanged rows to fit GitHub's size limit).
std::string RenderMarkdownView(const ReportView& view);

}  // namespace gpugate
