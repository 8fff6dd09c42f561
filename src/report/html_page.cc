#include "report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/text/escape.h"

namespace gpugate {

namespace {

constexpr const char* kBaseStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#1f2328;background:#fff;max-width:1200px}
h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.15em;margin:1.6em 0 .5em}
p.context{color:#59636e;margin:0 0 1em}
table{border-collapse:collapse;margin:.3em 0 1em}
th,td{border:1px solid #d1d9e0;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
td{overflow-wrap:anywhere}
a{color:#0969da}
figcaption{color:#59636e;font-size:.9em}
svg text{font:11px system-ui,sans-serif;fill:#1f2328}
svg .axis{stroke:#8c959f;stroke-width:1}
svg .grid{stroke:#d1d9e0;stroke-dasharray:3 3}
svg .cp{stroke:#8250df;stroke-width:1.5;stroke-dasharray:4 3}
.base0{fill:#0969da}.base1{fill:#54aeff}.cur0{fill:#bc4c00}.cur1{fill:#fb8f44}
)css";

struct Scale {
  double lo, hi, px_lo, px_hi;
  double operator()(double v) const {
    if (!(hi > lo) || !std::isfinite(v)) return (px_lo + px_hi) / 2;
    // In halves, so that values across the whole range of the doubles
    // (1e-300 to 1e308, which a results file may hold) do not overflow.
    const double at = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
    return px_lo + (px_hi - px_lo) * std::clamp(at, -1.0, 2.0);
  }
};


}  // namespace

const char* HtmlBaseStyle() { return kBaseStyle; }

std::string HtmlPageHead(const std::string& title, const std::string& extra_css, PageScript script) {
  // A page without script allows none: should escaping ever fail, nothing runs.
  return "<!DOCTYPE html>\n<html lang=\"en\" data-js=\"off\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'" +
         std::string(script == PageScript::kInline ? "; script-src 'unsafe-inline'" : "") + "\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" + EscapeHtml(title) + "</title>\n<style>" + kBaseStyle + extra_css +
         "</style>\n</head>\n<body>\n";
}

std::string SvgNum(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string TrendSvg(const std::vector<TrendPoint>& points, const std::vector<int64_t>& change_points,
                     const std::function<std::string(double)>& format, double width, double height,
                     const std::string& title) {
  if (points.size() < 2) return "";
  double lo = INFINITY, hi = -INFINITY;
  for (const TrendPoint& p : points)
    if (std::isfinite(p.value)) lo = std::min(lo, p.value), hi = std::max(hi, p.value);
  if (!(hi >= lo)) lo = hi = 0;
  const double pad = hi > lo ? (hi / 2 - lo / 2) * 0.16 : std::max(std::fabs(lo) * 0.05, 1e-12);
  const double top = std::numeric_limits<double>::max();
  // Below 80 px it is a sparkline: no axis, no labels.
  const bool spark = height < 80;
  const double left = spark ? 4 : 70;
  const Scale y{std::max(lo - pad, -top), std::min(hi + pad, top), spark ? height - 4 : height - 30, spark ? 4.0 : 10.0};
  const Scale x{0, static_cast<double>(points.size() - 1), left, width - (spark ? 4 : 16)};
  const std::string w = SvgNum(width), h = SvgNum(height);
  std::string out = "<svg role=\"img\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h +
                    "\" xmlns=\"http://www.w3.org/2000/svg\"><title>" + EscapeHtml(title) + "</title>";
  if (!spark) out += "<line class=\"axis\" x1=\"" + SvgNum(left - 4) + "\" x2=\"" + SvgNum(left - 4) + "\" y1=\"6\" y2=\"" +
                    SvgNum(height - 26) + "\"/>";
  for (double v : spark ? std::vector<double>{} : std::vector<double>{lo, hi})
    out += "<text x=\"" + SvgNum(left - 8) + "\" y=\"" + SvgNum(y(v) + 4) + "\" text-anchor=\"end\">" +
           EscapeHtml(format(v)) + "</text>";
  for (int64_t c : change_points) {
    if (c <= 0 || c >= static_cast<int64_t>(points.size())) continue;
    const double cx = x(static_cast<double>(c) - 0.5);
    out += "<line class=\"cp\" x1=\"" + SvgNum(cx) + "\" x2=\"" + SvgNum(cx) + "\" y1=\"2\" y2=\"" +
           SvgNum(spark ? height - 2 : height - 26) + "\"><title>change point: a new level starts at " +
           EscapeHtml(points[static_cast<size_t>(c)].label) + "</title></line>";
  }
  std::string line;
  for (size_t i = 0; i < points.size(); ++i)
    line += SvgNum(x(static_cast<double>(i))) + "," + SvgNum(y(points[i].value)) + " ";
  out += "<polyline points=\"" + line + "\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\"/>";
  for (size_t i = 0; i < points.size(); ++i) {
    const TrendPoint& p = points[i];
    if (spark && !p.highlight) continue;
    out += "<circle cx=\"" + SvgNum(x(static_cast<double>(i))) + "\" cy=\"" + SvgNum(y(p.value)) + "\" r=\"" +
           (spark ? "2" : p.highlight ? "5" : "3") + "\" class=\"" + (p.highlight ? "cur0" : "base0") + "\"><title>" +
           EscapeHtml(p.label + ": " + format(p.value)) + "</title></circle>";
  }
  if (spark) return out + "</svg>";
  out += "<text x=\"" + SvgNum(left) + "\" y=\"" + SvgNum(height - 8) + "\">" +
         EscapeHtml(ShortenText(points.front().label, 30)) + "</text><text x=\"" + SvgNum(width - 16) + "\" y=\"" +
         SvgNum(height - 8) + "\" text-anchor=\"end\">" + EscapeHtml(ShortenText(points.back().label, 30)) + "</text>";
  out += "</svg>";
  return out;
}

}  // namespace gpugate
