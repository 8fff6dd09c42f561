// GitHub-flavoured Markdown report (pull-request comments, the Actions step
// summary): a one-line headline first (a pass mark only for a pass), what the
// comparison could have seen, failed workloads and regressions first, ratios
// with their confidence intervals, unchanged results folded in <details>.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

/// The smallest room RenderMarkdownFitted fits a report into.
inline constexpr size_t kMinFittedMarkdownBytes = 4096;

/// The Markdown report fitted into `limit` bytes (at least
/// kMinFittedMarkdownBytes), for a place that takes no more (GitHub's step
/// summary, a pull-request comment): the report as it is when it fits; else
/// without its folded sections, which a note counts; else also with every
/// text longer than 1/128 of the room shortened (…), which a note says;
/// else also without the rows past the first that fit, in the report's
/// order (result tables, then the kernel, roofline and environment tables),
/// each table counting what it left out, the lists after them giving way to
/// the first 10 rows; else cut at the end of a line, with a note. Never cuts
/// inside a <details> block or a line. The headline, what could have been
/// seen and the counts always describe every result. `place` ("a
/// pull-request comment") and `complete` ("the --markdown and --json
/// reports list every row") make the notes.
std::string RenderMarkdownFitted(const Verdicts& verdicts, size_t limit, std::string_view place,
                                 std::string_view complete);

}  // namespace gpugate
