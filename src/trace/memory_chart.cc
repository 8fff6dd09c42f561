// Bounded downsampling of the memory timeline (see memory_chart.h).
#include "trace/memory_chart.h"

#include <algorithm>
#include <cstdio>

#include "trace/analysis.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

void Merge(MemoryColumn& into, const MemoryColumn& c) {
  if (c.samples == 0) return;
  if (into.samples == 0) {
    into = c;
    return;
  }
  into.samples += c.samples;
  into.allocated_min = std::min(into.allocated_min, c.allocated_min);
  into.allocated_max = std::max(into.allocated_max, c.allocated_max);
  into.reserved_min = std::min(into.reserved_min, c.reserved_min);
  into.reserved_max = std::max(into.reserved_max, c.reserved_max);
}

}  // namespace

/// Doubles the column width: to the right (origin kept) or to the left (the
/// range grows by its own length before the origin).
void MemoryChartBuilder::Widen(MemorySeries& s, bool leftwards) const {
  const int64_t n = columns_;
  std::vector<MemoryColumn> merged(s.columns.size());
  const int64_t shift = leftwards ? n : 0;
  for (int64_t i = 0; i < n; ++i) Merge(merged[(shift + i) / 2], s.columns[i]);
  if (leftwards) s.origin_ns -= n * s.width_ns;
  s.width_ns *= 2;
  s.columns = std::move(merged);
}

void MemoryChartBuilder::Add(int64_t device_type, int64_t device_id, int64_t ts_ns, int64_t total_allocated,
                             int64_t total_reserved) {
  auto [it, fresh] = series_.try_emplace({device_type, device_id});
  MemorySeries& s = it->second;
  if (fresh) {
    s.device_type = device_type;
    s.device_id = device_id;
    s.origin_ns = ts_ns;
    s.columns.resize(static_cast<size_t>(columns_));
  }
  // Widths stay below 2^62 / columns, so the range end does not overflow.
  const int64_t n = columns_;
  while (ts_ns < s.origin_ns && s.width_ns < (int64_t{1} << 52)) Widen(s, true);
  while ((ts_ns - s.origin_ns) / s.width_ns >= n && s.width_ns < (int64_t{1} << 52)) Widen(s, false);
  int64_t col = std::clamp<int64_t>(ts_ns >= s.origin_ns ? (ts_ns - s.origin_ns) / s.width_ns : 0, 0, n - 1);
  MemoryColumn one;
  one.samples = 1;
  one.allocated_min = one.allocated_max = total_allocated;
  one.reserved_min = one.reserved_max = total_reserved;
  Merge(s.columns[static_cast<size_t>(col)], one);
}

std::vector<MemorySeries> MemoryChartBuilder::Series() const {
  std::vector<MemorySeries> out;
  for (const auto& [key, s] : series_) out.push_back(s);
  return out;
}

std::string MemoryDeviceLabel(int64_t device_type, int64_t device_id) {
  if (device_type == 1) return "GPU " + std::to_string(device_id);
  if (device_type == 0) return "CPU";
  return "device type " + std::to_string(device_type) + " id " + std::to_string(device_id);
}

std::string MemoryPeakBytes(const std::optional<int64_t>& bytes) {
  return bytes ? FormatBytes(*bytes) : std::string("unknown");
}

std::string MemoryPeakWhere(const MemoryPeak& peak, int64_t trace_start_ns) {
  if (!peak.peak_ts_ns) return "(no [memory] event states a total)";
  std::string out =
      "at " + FormatDuration(static_cast<double>(*peak.peak_ts_ns - trace_start_ns) * 1e-9) + " from the trace start";
  if (peak.peak_step) out += ", in ProfilerStep#" + std::to_string(*peak.peak_step);
  return out;
}

namespace {

constexpr double kWidth = 900, kLeft = 80, kRight = 20, kPanel = 230, kTop = 40, kPlot = 150;

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

struct Axes {
  double t0, t1, y_max, top;
  double X(double ts) const {
    double f = t1 > t0 ? (ts - t0) / (t1 - t0) : 0.5;
    return kLeft + std::clamp(f, 0.0, 1.0) * (kWidth - kLeft - kRight);
  }
  double Y(double bytes) const { return top + kPlot - std::clamp(bytes / y_max, 0.0, 1.0) * kPlot; }
};

/// One series as a min..max band (polygon) and its max line (polyline).
std::string SeriesShapes(const MemorySeries& s, const Axes& a, bool reserved, const char* colour) {
  std::string top, bottom_rev;
  std::vector<std::string> bottom;
  for (size_t i = 0; i < s.columns.size(); ++i) {
    const MemoryColumn& c = s.columns[i];
    if (c.samples == 0) continue;
    double x = a.X(static_cast<double>(s.origin_ns) + (static_cast<double>(i) + 0.5) * static_cast<double>(s.width_ns));
    double hi = static_cast<double>(reserved ? c.reserved_max : c.allocated_max);
    double lo = static_cast<double>(reserved ? c.reserved_min : c.allocated_min);
    top += Fixed(x) + "," + Fixed(a.Y(hi)) + " ";
    bottom.push_back(Fixed(x) + "," + Fixed(a.Y(lo)) + " ");
  }
  for (size_t i = bottom.size(); i-- > 0;) bottom_rev += bottom[i];
  std::string out = "<polygon points=\"" + top + bottom_rev + "\" fill=\"" + colour +
                    "\" fill-opacity=\"0.25\" stroke=\"none\"/>\n";
  out += "<polyline points=\"" + top + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\"/>\n";
  return out;
}

std::string Text(double x, double y, const std::string& text, const char* extra = "") {
  return "<text x=\"" + Fixed(x) + "\" y=\"" + Fixed(y) + "\"" + extra + ">" + EscapeXmlText(text) + "</text>\n";
}

std::string SvgChart(const TraceReport& r, bool standalone) {
  if (r.memory_chart.empty()) return "";
  const double height = kPanel * static_cast<double>(r.memory_chart.size()) + 10;
  std::string o = std::string(standalone ? "<svg xmlns=\"http://www.w3.org/2000/svg\"" : "<svg") + " width=\"" + Fixed(kWidth) + "\" height=\"" +
                  Fixed(height) + "\" viewBox=\"0 0 " + Fixed(kWidth) + " " + Fixed(height) +
                  "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n"
                  "<title>Memory over time: allocated and reserved bytes per device</title>\n";
  for (size_t d = 0; d < r.memory_chart.size(); ++d) {
    const MemorySeries& s = r.memory_chart[d];
    const MemoryPeak* peak = nullptr;
    for (const MemoryPeak& p : r.memory)
      if (p.device_type == s.device_type && p.device_id == s.device_id) peak = &p;
    Axes a;
    a.top = kPanel * static_cast<double>(d) + kTop;
    a.t0 = static_cast<double>(r.span_start_ns);
    a.t1 = static_cast<double>(r.span_end_ns);
    int64_t y_max = 1;
    for (const MemoryColumn& c : s.columns)
      if (c.samples) y_max = std::max({y_max, c.allocated_max, c.reserved_max});
    a.y_max = static_cast<double>(y_max);
    std::string label = MemoryDeviceLabel(s.device_type, s.device_id);
    if (peak)
      label += ": peak allocated " + MemoryPeakBytes(peak->peak_allocated) + " " +
               MemoryPeakWhere(*peak, r.span_start_ns) + "; peak reserved " + MemoryPeakBytes(peak->peak_reserved);
    o += Text(kLeft, a.top - 22, label, " font-weight=\"bold\"");
    // Frame, axis labels, legend.
    o += "<rect x=\"" + Fixed(kLeft) + "\" y=\"" + Fixed(a.top) + "\" width=\"" + Fixed(kWidth - kLeft - kRight) +
         "\" height=\"" + Fixed(kPlot) + "\" fill=\"none\" stroke=\"#999\"/>\n";
    o += Text(kLeft - 6, a.top + 10, FormatBytes(y_max), " text-anchor=\"end\"");
    o += Text(kLeft - 6, a.top + kPlot, "0 B", " text-anchor=\"end\"");
    o += Text(kLeft, a.top + kPlot + 15, "0 s");
    o += Text(kWidth - kRight, a.top + kPlot + 15, FormatDuration(static_cast<double>(r.SpanNs()) * 1e-9),
              " text-anchor=\"end\"");
    o += Text((kLeft + kWidth - kRight) / 2, a.top + kPlot + 15, "time from the trace start", " text-anchor=\"middle\"");
    o += "<rect x=\"" + Fixed(kWidth - kRight - 190) + "\" y=\"" + Fixed(a.top - 14) +
         "\" width=\"10\" height=\"10\" fill=\"#e07b00\"/>\n" +
         Text(kWidth - kRight - 176, a.top - 5, "reserved") + "<rect x=\"" + Fixed(kWidth - kRight - 110) +
         "\" y=\"" + Fixed(a.top - 14) + "\" width=\"10\" height=\"10\" fill=\"#1f5fbf\"/>\n" +
         Text(kWidth - kRight - 96, a.top - 5, "allocated");
    o += SeriesShapes(s, a, /*reserved=*/true, "#e07b00");
    o += SeriesShapes(s, a, /*reserved=*/false, "#1f5fbf");
    if (peak && peak->peak_allocated && peak->peak_ts_ns) {
      double x = a.X(static_cast<double>(*peak->peak_ts_ns)), y = a.Y(static_cast<double>(*peak->peak_allocated));
      o += "<line x1=\"" + Fixed(x) + "\" y1=\"" + Fixed(a.top) + "\" x2=\"" + Fixed(x) + "\" y2=\"" +
           Fixed(a.top + kPlot) + "\" stroke=\"#c00\" stroke-dasharray=\"3,3\"/>\n";
      o += "<circle cx=\"" + Fixed(x) + "\" cy=\"" + Fixed(y) + "\" r=\"4\" fill=\"#c00\"/>\n";
      std::string tag = "peak " + FormatBytes(*peak->peak_allocated);
      if (peak->peak_step) tag += ", ProfilerStep#" + std::to_string(*peak->peak_step);
      bool right_half = x > (kLeft + kWidth - kRight) / 2;
      o += Text(right_half ? x - 6 : x + 6, std::max(a.top + 12, y - 6), tag,
                right_half ? " text-anchor=\"end\" fill=\"#c00\"" : " fill=\"#c00\"");
    }
  }
  o += "</svg>\n";
  return o;
}

}  // namespace

std::string RenderMemorySvgElement(const TraceReport& r) { return SvgChart(r, false); }

std::string RenderMemorySvg(const TraceReport& r) {
  std::string svg = SvgChart(r, true);
  if (svg.empty()) {
    // Nothing to chart: no [memory] event, or none that states a total
    // (Kineto of PyTorch 1.8/1.9 wrote only each allocation's "Bytes").
    int64_t events = 0;
    for (const MemoryPeak& p : r.memory) events += p.events;
    const std::string why = events == 0 ? "no [memory] events in this trace"
                                        : std::to_string(events) + (events == 1 ? " [memory] event" : " [memory] events") +
                                              " in this trace, none stating Total Allocated: nothing to chart";
    svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"40\">"
          "<text x=\"10\" y=\"25\">" + why + "</text></svg>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg;
}

}  // namespace gpugate
