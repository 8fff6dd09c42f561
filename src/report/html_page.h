// What gpugate's HTML pages share (the report, analyze's page, the history
// dashboard): the document head with its Content-Security-Policy and style,
// and the trend chart drawn as inline SVG. Untrusted text goes through
// EscapeHtml here; callers pass plain text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpugate {

/// Whether a page runs its own inline script (the CSP allows it only then).
enum class PageScript { kNone, kInline };

/// "<!DOCTYPE html>...<body>\n": charset, a CSP that forbids loading
/// anything (inline style, and inline script only with `script`), viewport,
/// the escaped title, the shared style plus `extra_css`.
std::string HtmlPageHead(const std::string& title, const std::string& extra_css = "",
                         PageScript script = PageScript::kInline);

/// The style every page shares (tables, headings, badges, charts).
const char* HtmlBaseStyle();

/// A number for SVG attributes: one decimal.
std::string SvgNum(double x);

/// One point of a trend: a run's level.
struct TrendPoint {
  std::string label;       ///< run time and commit, shown under the axis and in the tooltip
  double value = 0;        ///< in the metric's unit
  bool highlight = false;  ///< drawn larger (this run)
};

/// A line chart of `points` (oldest first) as an inline <svg>: the first and
/// last labels under the axis, the lowest and highest value beside it, each
/// point with a tooltip, and each change point (index of the first point of
/// a new level) as a dashed line with its own tooltip. `format` turns a value
/// into text. Empty for fewer than 2 points.
std::string TrendSvg(const std::vector<TrendPoint>& points, const std::vector<int64_t>& change_points,
                     const std::function<std::string(double)>& format, double width, double height,
                     const std::string& title);

}  // namespace gpugate
