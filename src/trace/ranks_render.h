// Renderers of a RanksReport (trace/ranks.h): console, Markdown, HTML and
// JSON (`gpugate/trace-ranks/v1`). Pure functions: report in, bytes out.
// Paths and kernel-derived names are untrusted: every format escapes them
// through the text layer (src/util/text).
#pragma once

#include <string>

#include "trace/ranks.h"

namespace gpugate {

/// What the renderers say about how the report was made.
struct RanksRenderInfo {
  int jobs = 1;    ///< analysis threads
  int top_n = 10;  ///< straggler steps listed in the text formats (JSON: all)
};

std::string RenderRanksConsole(const RanksReport& report, const RanksRenderInfo& info);
std::string RenderRanksMarkdown(const RanksReport& report, const RanksRenderInfo& info);
/// One self-contained page (inline CSS, no script, no network).
std::string RenderRanksHtml(const RanksReport& report, const RanksRenderInfo& info);
/// Times in integer nanoseconds, fractions 0..1.
std::string RenderRanksJson(const RanksReport& report, const RanksRenderInfo& info);

}  // namespace gpugate
