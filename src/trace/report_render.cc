// TraceReport renderers: console, Markdown, HTML, JSON.
#include "trace/report_render.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string_view>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "report/html_page.h"
#include "report/view.h"
#include "trace/memory_chart.h"
#include "util/json_writer.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

constexpr size_t kNameWidth = 110;

std::string Dur(int64_t ns) { return FormatDuration(static_cast<double>(ns) * 1e-9); }

/// The table cell of a memory peak's time from the trace start; "-" unknown.
std::string MemoryPeakAt(const MemoryPeak& m, int64_t trace_start_ns) {
  return m.peak_ts_ns ? Dur(*m.peak_ts_ns - trace_start_ns) : std::string("-");
}
std::string DurD(double ns) { return FormatDuration(ns * 1e-9); }

std::string Pct(double fraction) { return FormatShare(fraction); }

std::string Num(double v, const char* fmt = "%.2f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// Untrusted text for a terminal, through the text layer; long names are
/// shortened so that two of them still read differently.
std::string ConsoleText(std::string_view s, size_t width = kNameWidth) {
  return EscapeTerminal(ShortenText(s, width, true));
}

/// Untrusted text for a Markdown table cell, shortened.
std::string MdText(std::string_view s, size_t width = kNameWidth) {
  return EscapeMarkdown(ShortenText(s, width, true));
}

std::string Pad(std::string_view s, size_t w, bool right = true) {
  return PadText(s, static_cast<int>(w), right);
}

std::string DeviceName(const TraceReport& r, int64_t device) {
  for (const TraceDevice& d : r.info.devices)
    if (d.id == device) return d.name;
  return "";
}

/// "216x1x1": a grid or block; "-" when the trace does not record it.
std::string Dims(const int d[3]) {
  if (d[0] <= 0) return "-";
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

/// Whether some copy of a route has a size (else its bytes are unknown).
bool AnySized(const MemcpyStats& m) { return m.without_bytes < m.count; }

/// A copy route's bytes; "n/a" when no copy of it has a size, and "≥ N"
/// when only some have one.
std::string CopyBytes(const MemcpyStats& m, bool exact) {
  if (!AnySized(m)) return "n/a";
  if (exact) return (m.without_bytes > 0 ? "≥ " : "") + std::to_string(m.bytes);
  return m.without_bytes > 0 ? FormatBytesAtLeast(m.bytes) : FormatBytes(m.bytes);
}

/// A copy route's bandwidth in GB/s; "n/a" when no copy of it has a size.
std::string Gbps(const MemcpyStats& m) {
  const std::optional<double> g = m.BandwidthGBps();
  return g ? Num(*g) : std::string("n/a");
}

/// Milliseconds from the start of the traced span, "12.345 ms".
std::string AtMs(const TraceReport& r, int64_t ns) { return Num((ns - r.span_start_ns) / 1e6, "%.3f ms"); }

/// The recurring copy sizes the text outputs list: the top N by count (the
/// JSON report has all of them).
std::vector<RepeatedCopy> ShownCopies(const TraceReport& r) {
  const size_t n = std::min(r.repeated_h2d.size(), static_cast<size_t>(std::max(r.options.top_n, 0)));
  return {r.repeated_h2d.begin(), r.repeated_h2d.begin() + static_cast<std::ptrdiff_t>(n)};
}

/// "top 10 of 57 sizes" / "2 sizes".
std::string CopiesShown(const TraceReport& r) {
  const size_t shown = ShownCopies(r).size(), all = r.repeated_h2d.size();
  return shown == all ? std::to_string(all) + (all == 1 ? " size" : " sizes")
                      : "top " + std::to_string(shown) + " of " + std::to_string(all) + " sizes";
}

/// The memory-traffic rows the text outputs list: the first N of the report's
/// order (memcpys by bytes, then memsets); the JSON report has all of them.
/// Real traces have a handful of routes; a route is text from the trace, so a
/// hostile one can have a route per event.
std::vector<MemcpyStats> ShownTraffic(const TraceReport& r) {
  const size_t n = std::min(r.memory_traffic.size(), static_cast<size_t>(std::max(r.options.top_n, 0)));
  return {r.memory_traffic.begin(), r.memory_traffic.begin() + static_cast<std::ptrdiff_t>(n)};
}

/// "" when every row is shown, else "first 10 of 57 rows".
std::string TrafficShown(const TraceReport& r) {
  const size_t all = r.memory_traffic.size();
  const size_t shown = std::min(all, static_cast<size_t>(std::max(r.options.top_n, 0)));
  return shown == all ? std::string() : "first " + std::to_string(shown) + " of " + std::to_string(all) + " rows";
}


/// The line under "Findings" when nothing fired.
std::string NoFindings(const TraceReport& r, const TraceFindingSet& f) {
  if (r.devices.empty()) return "none: no GPU activity to judge";
  return "none: no rule of policy '" + f.policy + "' fires";
}

/// The groups of figures that are not exact.
std::vector<const FigureExactness*> Inexact(const TraceReport& r) {
  std::vector<const FigureExactness*> v;
  for (const FigureExactness& e : r.exactness)
    if (!e.exact) v.push_back(&e);
  return v;
}

/// "CUDA graphs: 12 launches ran 480 kernels and 0 copies, 3.2 ms of GPU time".
std::string GraphSentence(const TraceReport& r) {
  const CudaGraphStats& g = r.graphs;
  auto n = [](int64_t v, const char* one, const char* many) { return std::to_string(v) + " " + (v == 1 ? one : many); };
  return n(g.launches, "graph launch", "graph launches") + " ran " + n(g.kernels, "kernel", "kernels") + " and " +
         n(g.copies, "copy", "copies") + ", " + Dur(g.gpu_ns) + " of GPU time";
}

}  // namespace

/// Why there is nothing on a GPU to show: the trace has none, or the device
/// chosen with --device has none (and which GPUs do).
std::string NoGpuActivity(const TraceReport& r) {
  if (!r.options.device) return "no GPU activity: the trace has no kernels, memcpys or memsets";
  std::string o = "no GPU activity on GPU " + std::to_string(*r.options.device);
  if (r.other_devices.empty()) return o + ": the trace has no kernels, memcpys or memsets on any GPU";
  o += ": the trace's GPU activity is on GPU";
  o += r.other_devices.size() > 1 ? "s " : " ";
  for (size_t i = 0; i < r.other_devices.size(); ++i)
    o += (i == 0 ? "" : ", ") + std::to_string(r.other_devices[i]);
  if (r.other_devices.size() >= TraceReport::kMaxOtherDevices) o += ", ...";
  return o;
}

std::string RenderTraceConsole(const TraceReport& r, const TraceFindingSet& f) {
  std::string o;
  o += "trace " + ConsoleText(r.info.path, 200) + ": " + std::to_string(r.info.events) + " events, " +
       FormatBytes(r.info.bytes_read) + (r.info.compressed ? " (gzip)" : "") + ", span " +
       Dur(r.SpanNs()) + "\n";
  if (!r.devices.empty())
    o += "summary: GPU idle " + Pct(r.window_idle_share) + ", compute " + Pct(r.window_compute_share) +
         ", communication " + Pct(r.window_communication_share) + ", memcpy " + Pct(r.window_memcpy_share) +
         ", memset " + Pct(r.window_memset_share) + " of the GPU window; idle " + Pct(r.gpu_idle_share) +
         " of the whole trace\n";
  if (r.devices.empty()) o += NoGpuActivity(r) + "\n";
  if (const auto inexact = Inexact(r); inexact.empty()) {
    o += "exactness: every figure is exact\n";
  } else {
    for (const FigureExactness* e : inexact) o += "approximate: " + e->figures + ": " + e->why + "\n";
  }
  for (const DeviceStats& d : r.devices) {
    std::string name = DeviceName(r, d.device);
    o += "\nGPU " + std::to_string(d.device) + (name.empty() ? "" : " (" + ConsoleText(name, 60) + ")") +
         ": " + std::to_string(d.kernel_count) + " kernels, " + std::to_string(d.memcpy_count) +
         " memcpys, " + std::to_string(d.memset_count) + " memsets\n";
    // Two columns: the device's GPU window (HTA's temporal breakdown) and the
    // whole traced span; only idle time differs between them in nanoseconds.
    o += "  " + Pad("", 14, false) + Pad("GPU window " + Dur(d.WindowNs()), 22) + "   " +
         Pad("whole trace " + Dur(d.span_ns), 22) + "\n";
    auto row = [&](const char* label, int64_t window_ns, int64_t whole_ns) {
      o += "  " + Pad(label, 14, false) + Pad(Dur(window_ns), 12) + Pad(Pct(d.WindowShare(window_ns)), 10) + "   " +
           Pad(Dur(whole_ns), 12) + Pad(Pct(d.Share(whole_ns)), 10) + "\n";
    };
    row("busy", d.busy_ns, d.busy_ns);
    row("compute", d.compute_ns, d.compute_ns);
    row("communication", d.communication_ns, d.communication_ns);
    row("memcpy", d.memcpy_ns, d.memcpy_ns);
    row("memset", d.memset_ns, d.memset_ns);
    row("idle", d.window_idle_ns, d.idle_ns);
    row("  host-wait", d.window_idle.host_wait_ns, d.idle.host_wait_ns);
    row("  kernel-wait", d.window_idle.kernel_wait_ns, d.idle.kernel_wait_ns);
    row("  other", d.window_idle.other_ns, d.idle.other_ns);
    if (d.communication_total_ns > 0)
      o += "  NCCL kernels run " + Dur(d.communication_total_ns) + ", " + Dur(d.comm_compute_overlap_ns) + " (" +
           Pct(static_cast<double>(d.comm_compute_overlap_ns) / static_cast<double>(d.communication_total_ns)) +
           ") overlapped by compute\n";
    for (const StreamStats& s : d.streams)
      o += "  stream " + std::to_string(s.stream) + ": " + std::to_string(s.kernels) + " kernels, " +
           std::to_string(s.memcpys) + " memcpys, " + std::to_string(s.memsets) + " memsets, busy " +
           Dur(s.busy_ns) + "\n";
  }
  if (!r.top_kernels.empty()) {
    o += "\nTop kernels (" + std::to_string(r.top_kernels.size()) + " of " +
         std::to_string(r.distinct_kernels) + ")\n";
    o += "  " + Pad("total", 10) + Pad("count", 8) + Pad("mean", 10) + Pad("min", 10) + Pad("max", 10) +
         Pad("share", 9) + "  name\n";
    for (const KernelStats& k : r.top_kernels)
      o += "  " + Pad(Dur(k.total_ns), 10) + Pad(std::to_string(k.count), 8) + Pad(DurD(k.mean_ns), 10) +
           Pad(Dur(k.min_ns), 10) + Pad(Dur(k.max_ns), 10) + Pad(Pct(k.share), 9) + "  " +
           ConsoleText(k.name) + "\n";
  }
  const LaunchStats& l = r.launch;
  o += "\nLaunches: " + std::to_string(l.kernels) + " kernels with a known launch call";
  if (l.kernels) {
    o += "; delay (launch start -> kernel start) mean " + DurD(l.delay_mean_ns) + ", p50 " +
         Dur(l.delay_p50_ns) + ", p95 " + Dur(l.delay_p95_ns) + ", max " + Dur(l.delay_max_ns) +
         "; launch cost " + Dur(l.launch_cost_ns) + " vs kernel time " + Dur(l.kernel_runtime_ns) + "; " +
         std::to_string(l.shorter_than_launch) + " kernels ran shorter than their launch";
  }
  o += "\n";
  if (r.graphs.launches > 0 || r.graphs.kernels > 0) {
    o += "\nCUDA graphs: " + GraphSentence(r) + "\n";
    for (const KernelStats& k : r.graphs.top_kernels)
      o += "  " + Pad(Dur(k.total_ns), 10) + Pad(std::to_string(k.count), 8) + "  " + ConsoleText(k.name) + "\n";
  }
  if (!r.compiled_regions.empty()) {
    o += "\nCompiled regions (torch.compile)\n  " + Pad("total", 10) + Pad("count", 8) + "  name\n";
    for (const CpuOpStats& c : r.compiled_regions)
      o += "  " + Pad(Dur(c.total_ns), 10) + Pad(std::to_string(c.count), 8) + "  " + ConsoleText(c.name) + "\n";
  }
  if (!r.memory_traffic.empty()) {
    const std::string shown = TrafficShown(r);
    o += "\nMemory traffic" + (shown.empty() ? "" : " (" + shown + ")") + "\n  " + Pad("kind", 7, false) + Pad("memory", 10, false) + Pad("count", 7) +
         Pad("bytes", 12) + Pad("time", 10) + Pad("GB/s", 9) + "  route\n";
    for (const MemcpyStats& m : ShownTraffic(r))
      o += "  " + Pad(ConsoleText(m.kind, 7), 7, false) + Pad(m.memory, 10, false) +
           Pad(std::to_string(m.count), 7) + Pad(CopyBytes(m, false), 12) + Pad(Dur(m.total_ns), 10) +
           Pad(Gbps(m), 9) + "  " + ConsoleText(m.route, 40) + " (GPU " +
           std::to_string(m.device) + ")\n";
  }
  if (!r.cpu_ops.empty()) {
    o += "\nCPU op hotspots (by self time)\n  " + Pad("self", 10) + Pad("total", 10) + Pad("count", 8) +
         "  name\n";
    for (const CpuOpStats& c : r.cpu_ops)
      o += "  " + Pad(Dur(c.self_ns), 10) + Pad(Dur(c.total_ns), 10) + Pad(std::to_string(c.count), 8) + "  " +
           ConsoleText(c.name) + "\n";
  }
  for (const MemoryPeak& m : r.memory)
    o += "\nMemory (" + MemoryDeviceLabel(m.device_type, m.device_id) + "): peak allocated " +
         MemoryPeakBytes(m.peak_allocated) + " " + MemoryPeakWhere(m, r.span_start_ns) + "; peak reserved " +
         MemoryPeakBytes(m.peak_reserved) + " over " + std::to_string(m.events) + " [memory] events\n";
  if (!r.identical_launches.empty()) {
    o += "\nIdentical launches (same kernel, grid and block; top " + std::to_string(r.options.top_n) +
         " per GPU)\n  " + Pad("GPU", 3) + Pad("count", 8) + Pad("mean", 10) + Pad("total", 10) + Pad("grid", 14) +
         Pad("block", 12) + "  name\n";
    for (const RepeatedLaunch& l : r.identical_launches)
      o += "  " + Pad(std::to_string(l.device), 3) + Pad(std::to_string(l.count), 8) + Pad(DurD(l.MeanNs()), 10) +
           Pad(Dur(l.total_ns), 10) + Pad(Dims(l.grid), 14) + Pad(Dims(l.block), 12) + "  " + ConsoleText(l.name) + "\n";
  }
  if (!r.repeated_h2d.empty()) {
    o += "\nRecurring host-to-device copies (" + CopiesShown(r) + ", " + std::to_string(r.profiler_steps) +
         " profiler steps)\n  " +
         Pad("GPU", 3) + Pad("size", 12) + Pad("count", 7) + Pad("time", 10) + Pad("first", 13) + Pad("last", 13) + "\n";
    for (const RepeatedCopy& c : ShownCopies(r))
      o += "  " + Pad(std::to_string(c.device), 3) + Pad(FormatBytes(c.bytes), 12) + Pad(std::to_string(c.count), 7) +
           Pad(Dur(c.total_ns), 10) + Pad(AtMs(r, c.first_ns), 13) + Pad(AtMs(r, c.last_ns), 13) + "\n";
  }
  o += "\nFindings (policy " + ConsoleText(f.policy, 80) + ")\n";
  if (f.items.empty()) o += "  " + ConsoleText(NoFindings(r, f), 200) + "\n";
  for (const Suggestion& s : f.items) {
    o += "  [" + SuggestionLabel(s) + "] " + ConsoleText(s.rule, 80);
    if (const std::string subject = SuggestionSubject(s, [](const std::string& t) { return ConsoleText(t); });
        !subject.empty())
      o += " (" + subject + ")";
    o += ": " + EscapeTerminal(s.message) + "\n";
    if (!s.evidence.empty()) o += "      evidence: " + EscapeTerminal(s.evidence) + "\n";
    if (s.estimated_speedup) o += "      estimated speedup: up to " + SpeedupText(*s.estimated_speedup) + "\n";
    if (!s.hint.empty()) o += "      hint: " + EscapeTerminal(s.hint) + "\n";
    if (!s.source.empty()) o += "      source: " + EscapeTerminal(s.source) + "\n";
  }
  return o;
}

std::string RenderTraceMarkdown(const TraceReport& r, const TraceFindingSet& f) {
  std::string o = "## Trace analysis: " + MdText(r.info.path, 200) + "\n\n";
  o += std::to_string(r.info.events) + " events, traced span " + Dur(r.SpanNs()) + ".";
  if (!r.devices.empty())
    o += " Over the GPU window: idle **" + Pct(r.window_idle_share) + "**, compute " + Pct(r.window_compute_share) +
         ", communication " + Pct(r.window_communication_share) + ", memcpy " + Pct(r.window_memcpy_share) +
         ", memset " + Pct(r.window_memset_share) + "; idle " + Pct(r.gpu_idle_share) + " of the whole trace.";
  o += "\n\n";
  if (r.devices.empty()) o += NoGpuActivity(r) + ".\n\n";
  if (const auto inexact = Inexact(r); inexact.empty()) {
    o += "Every figure is exact.\n\n";
  } else {
    o += "**Approximate figures:**\n\n";
    for (const FigureExactness* e : inexact) o += "- " + e->figures + ": " + e->why + "\n";
    o += "\n";
  }
  o += "### Findings (policy " + MdText(f.policy, 80) + ")\n\n";
  if (f.items.empty()) o += MdText(NoFindings(r, f), 200) + ".\n";
  const auto md = [](const std::string& t) { return EscapeMarkdown(t); };
  for (const Suggestion& s : f.items) {
    o += "- **" + SuggestionLabel(s) + "** " + md(s.rule);
    if (const std::string subject = SuggestionSubject(s, md); !subject.empty()) o += " (" + subject + ")";
    o += ": " + md(s.message) + SuggestionDetail(s, md);
    if (!s.source.empty()) o += " (source: " + md(s.source) + ")";
    o += "\n";
  }
  o += "\n";
  if (!r.devices.empty()) {
    o += "### Temporal breakdown\n\nPer GPU over its GPU window (first to last GPU activity), and idle over the "
         "whole trace.\n\n| GPU | window | busy | compute | communication | memcpy | memset | idle | host-wait | "
         "kernel-wait | other | idle, whole trace |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const DeviceStats& d : r.devices)
      o += "| " + std::to_string(d.device) + " | " + Dur(d.WindowNs()) + " | " + Pct(d.WindowShare(d.busy_ns)) + " | " +
           Pct(d.WindowShare(d.compute_ns)) + " | " + Pct(d.WindowShare(d.communication_ns)) + " | " +
           Pct(d.WindowShare(d.memcpy_ns)) + " | " + Pct(d.WindowShare(d.memset_ns)) + " | " +
           Pct(d.WindowShare(d.window_idle_ns)) + " | " + Pct(d.WindowShare(d.window_idle.host_wait_ns)) + " | " +
           Pct(d.WindowShare(d.window_idle.kernel_wait_ns)) + " | " + Pct(d.WindowShare(d.window_idle.other_ns)) + " | " +
           Pct(d.Share(d.idle_ns)) + " |\n";
    o += "\n";
  }
  if (!r.top_kernels.empty()) {
    o += "### Top kernels\n\n| kernel | count | total | mean | min | max | share |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const KernelStats& k : r.top_kernels)
      o += "| " + MdText(k.name) + " | " + std::to_string(k.count) + " | " + Dur(k.total_ns) + " | " +
           DurD(k.mean_ns) + " | " + Dur(k.min_ns) + " | " + Dur(k.max_ns) + " | " + Pct(k.share) + " |\n";
    o += "\n";
  }
  const LaunchStats& l = r.launch;
  if (l.kernels) {
    o += "### Launches\n\n" + std::to_string(l.kernels) + " kernels with a known launch call: delay mean " +
         DurD(l.delay_mean_ns) + ", p50 " + Dur(l.delay_p50_ns) + ", p95 " + Dur(l.delay_p95_ns) +
         "; launch cost " + Dur(l.launch_cost_ns) + " vs kernel time " + Dur(l.kernel_runtime_ns) + "; " +
         std::to_string(l.shorter_than_launch) + " ran shorter than their launch call.\n\n";
  }
  if (r.graphs.launches > 0 || r.graphs.kernels > 0) {
    o += "### CUDA graphs\n\n" + GraphSentence(r) + ".\n\n";
    if (!r.graphs.top_kernels.empty()) {
      o += "| kernel | count | total |\n| --- | ---: | ---: |\n";
      for (const KernelStats& k : r.graphs.top_kernels)
        o += "| " + MdText(k.name) + " | " + std::to_string(k.count) + " | " + Dur(k.total_ns) + " |\n";
      o += "\n";
    }
  }
  if (!r.compiled_regions.empty()) {
    o += "### Compiled regions\n\n| region | count | total |\n| --- | ---: | ---: |\n";
    for (const CpuOpStats& c : r.compiled_regions)
      o += "| " + MdText(c.name) + " | " + std::to_string(c.count) + " | " + Dur(c.total_ns) + " |\n";
    o += "\n";
  }
  if (!r.memory_traffic.empty()) {
    const std::string shown = TrafficShown(r);
    o += "### Memory traffic\n\n" + (shown.empty() ? "" : shown + ".\n\n") + "| GPU | kind | route | memory | count | bytes | time | GB/s |\n"
         "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: |\n";
    for (const MemcpyStats& m : ShownTraffic(r))
      o += "| " + std::to_string(m.device) + " | " + MdText(m.kind) + " | " + MdText(m.route) + " | " + m.memory +
           " | " + std::to_string(m.count) + " | " + CopyBytes(m, true) + " | " + Dur(m.total_ns) + " | " +
           Gbps(m) + " |\n";
    o += "\n";
  }
  if (!r.memory.empty()) {
    o += "### Memory\n\n| device | peak allocated | peak reserved | peak at | peak in step | [memory] events |\n"
         "| --- | ---: | ---: | ---: | ---: | ---: |\n";
    for (const MemoryPeak& m : r.memory)
      o += "| " + MemoryDeviceLabel(m.device_type, m.device_id) + " | " + MemoryPeakBytes(m.peak_allocated) + " | " +
           MemoryPeakBytes(m.peak_reserved) + " | " + MemoryPeakAt(m, r.span_start_ns) + " | " +
           (m.peak_step ? "ProfilerStep#" + std::to_string(*m.peak_step) : std::string("-")) + " | " +
           std::to_string(m.events) + " |\n";
    o += "\n";
  }
  if (!r.identical_launches.empty()) {
    o += "### Identical launches\n\n| GPU | count | mean | total | grid | block | kernel |\n"
         "| ---: | ---: | ---: | ---: | --- | --- | --- |\n";
    for (const RepeatedLaunch& l : r.identical_launches)
      o += "| " + std::to_string(l.device) + " | " + std::to_string(l.count) + " | " + DurD(l.MeanNs()) + " | " +
           Dur(l.total_ns) + " | " + Dims(l.grid) + " | " + Dims(l.block) + " | " + MdText(l.name) + " |\n";
    o += "\n";
  }
  if (!r.repeated_h2d.empty()) {
    o += "### Recurring host-to-device copies\n\n" + CopiesShown(r) + "; " + std::to_string(r.profiler_steps) +
         " profiler steps.\n\n| GPU | size | count | time | first | last |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const RepeatedCopy& c : ShownCopies(r))
      o += "| " + std::to_string(c.device) + " | " + FormatBytes(c.bytes) + " | " + std::to_string(c.count) + " | " +
           Dur(c.total_ns) + " | " + AtMs(r, c.first_ns) + " | " + AtMs(r, c.last_ns) + " |\n";
    o += "\n";
  }
  if (!r.cpu_ops.empty()) {
    o += "### CPU op hotspots\n\n| op | count | self | total |\n| --- | ---: | ---: | ---: |\n";
    for (const CpuOpStats& c : r.cpu_ops)
      o += "| " + MdText(c.name) + " | " + std::to_string(c.count) + " | " + Dur(c.self_ns) + " | " +
           Dur(c.total_ns) + " |\n";
    o += "\n";
  }
  return o;
}

namespace {

using JsonWriter = rapidjson::PrettyWriter<JsonStringBuffer>;

void Str(JsonWriter& w, std::string_view s) { WriteJsonString(w, s); }

void Idle(JsonWriter& w, const IdleBreakdown& i) {
  w.StartObject();
  w.Key("host_wait_ns"); w.Int64(i.host_wait_ns);
  w.Key("kernel_wait_ns"); w.Int64(i.kernel_wait_ns);
  w.Key("other_ns"); w.Int64(i.other_ns);
  w.EndObject();
}

void Kernel(JsonWriter& w, const KernelStats& k) {
  w.StartObject();
  w.Key("name"); Str(w, k.name);
  w.Key("count"); w.Int64(k.count);
  w.Key("total_ns"); w.Int64(k.total_ns);
  w.Key("mean_ns"); WriteJsonDouble(w, k.mean_ns);
  w.Key("min_ns"); w.Int64(k.min_ns);
  w.Key("max_ns"); w.Int64(k.max_ns);
  w.Key("share"); WriteJsonDouble(w, k.share);
  w.Key("communication"); w.Bool(k.communication);
  if (k.graph_count > 0) { w.Key("graph_count"); w.Int64(k.graph_count); }
  if (k.mean_achieved_occupancy) { w.Key("mean_achieved_occupancy"); WriteJsonDouble(w, *k.mean_achieved_occupancy); }
  if (k.registers_per_thread) { w.Key("registers_per_thread"); WriteJsonDouble(w, *k.registers_per_thread); }
  if (k.shared_memory_bytes) { w.Key("shared_memory_bytes"); WriteJsonDouble(w, *k.shared_memory_bytes); }
  if (k.grid[0]) {
    w.Key("grid"); w.StartArray(); for (int i = 0; i < 3; ++i) w.Int(k.grid[i]); w.EndArray();
    w.Key("block"); w.StartArray(); for (int i = 0; i < 3; ++i) w.Int(k.block[i]); w.EndArray();
  }
  w.EndObject();
}

/// A finding with the fields of a verdicts file's suggestion (report/json.cc);
/// estimated_speedup only when the rule gives one.
void Finding(JsonWriter& w, const Suggestion& s) {
  w.StartObject();
  w.Key("workload"); Str(w, s.workload);
  w.Key("kernel"); Str(w, s.kernel);
  w.Key("rule"); Str(w, s.rule);
  w.Key("priority"); w.Int(s.priority);
  w.Key("severity"); Str(w, s.severity);
  w.Key("message"); Str(w, s.message);
  w.Key("evidence"); Str(w, s.evidence);
  w.Key("hint"); Str(w, s.hint);
  if (s.estimated_speedup) { w.Key("estimated_speedup"); WriteJsonDouble(w, *s.estimated_speedup); }
  w.Key("source"); Str(w, s.source);
  w.EndObject();
}

}  // namespace

std::string RenderTraceJson(const TraceReport& r, const TraceFindingSet& f) {
  JsonStringBuffer buf;
  JsonWriter w(buf);
  w.SetIndent(' ', 1);
  w.StartObject();
  w.Key("schema"); Str(w, kTraceAnalysisSchema);
  w.Key("trace");
  w.StartObject();
  w.Key("path"); Str(w, r.info.path);
  w.Key("compressed"); w.Bool(r.info.compressed);
  w.Key("bytes"); w.Int64(r.info.bytes_read);
  w.Key("events"); w.Int64(r.info.events);
  w.Key("span_start_ns"); w.Int64(r.span_start_ns);
  w.Key("span_end_ns"); w.Int64(r.span_end_ns);
  w.Key("span_ns"); w.Int64(r.SpanNs());
  if (r.info.rank) { w.Key("rank"); w.Int64(*r.info.rank); }
  w.Key("events_by_category");
  w.StartObject();
  for (int c = 0; c < kTraceCategoryCount; ++c)
    if (r.info.events_by_category[c]) {
      w.Key(ToString(static_cast<TraceCategory>(c)));
      w.Int64(r.info.events_by_category[c]);
    }
  w.EndObject();
  w.Key("events_by_phase");
  w.StartObject();
  for (int p = 0; p < 128; ++p)
    if (r.info.events_by_phase[p]) {
      std::string key = p == 0 ? "none" : std::string(1, static_cast<char>(p));
      Str(w, key);
      w.Int64(r.info.events_by_phase[p]);
    }
  w.EndObject();
  w.Key("unknown_categories");
  w.StartObject();
  for (const auto& [name, count] : r.info.unknown_categories) { Str(w, name); w.Int64(count); }
  w.EndObject();
  w.Key("devices");
  w.StartArray();
  for (const TraceDevice& d : r.info.devices) {
    w.StartObject();
    w.Key("id"); w.Int64(d.id);
    w.Key("name"); Str(w, d.name);
    if (d.total_global_mem) { w.Key("total_global_mem"); w.Int64(*d.total_global_mem); }
    if (d.compute_major) { w.Key("compute_capability"); Str(w, std::to_string(*d.compute_major) + "." + std::to_string(d.compute_minor.value_or(0))); }
    if (d.num_sms) { w.Key("num_sms"); w.Int(*d.num_sms); }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();

  w.Key("summary");
  w.StartObject();
  // A trace with no GPU activity has no GPU time to divide: null, not
  // "100% idle".
  auto share = [&](const char* key, double v) {
    w.Key(key);
    if (r.devices.empty()) w.Null(); else WriteJsonDouble(w, v);
  };
  share("gpu_idle_share", r.gpu_idle_share);
  share("compute_share", r.compute_share);
  share("communication_share", r.communication_share);
  share("memcpy_share", r.memcpy_share);
  share("memset_share", r.memset_share);
  share("gpu_window_idle_share", r.window_idle_share);
  share("gpu_window_compute_share", r.window_compute_share);
  share("gpu_window_communication_share", r.window_communication_share);
  share("gpu_window_memcpy_share", r.window_memcpy_share);
  share("gpu_window_memset_share", r.window_memset_share);
  w.Key("exact"); w.Bool(Inexact(r).empty());
  w.Key("top_kernels");
  w.StartArray();
  for (const KernelStats& k : r.top_kernels) Kernel(w, k);
  w.EndArray();
  w.Key("distinct_kernels"); w.Int64(r.distinct_kernels);
  w.Key("profiler_steps"); w.Int64(r.profiler_steps);
  w.Key("findings");
  w.StartArray();
  for (const Suggestion& s : f.items) Finding(w, s);
  w.EndArray();
  w.EndObject();

  w.Key("devices");
  w.StartArray();
  for (const DeviceStats& d : r.devices) {
    w.StartObject();
    w.Key("device"); w.Int64(d.device);
    w.Key("span_ns"); w.Int64(d.span_ns);
    w.Key("busy_ns"); w.Int64(d.busy_ns);
    w.Key("compute_ns"); w.Int64(d.compute_ns);
    w.Key("communication_ns"); w.Int64(d.communication_ns);
    w.Key("memcpy_ns"); w.Int64(d.memcpy_ns);
    w.Key("memset_ns"); w.Int64(d.memset_ns);
    w.Key("idle_ns"); w.Int64(d.idle_ns);
    w.Key("idle"); Idle(w, d.idle);
    w.Key("active_start_ns"); w.Int64(d.active_start_ns);
    w.Key("active_end_ns"); w.Int64(d.active_end_ns);
    w.Key("window_ns"); w.Int64(d.WindowNs());
    w.Key("window_idle_ns"); w.Int64(d.window_idle_ns);
    w.Key("window_idle"); Idle(w, d.window_idle);
    w.Key("communication_total_ns"); w.Int64(d.communication_total_ns);
    w.Key("comm_compute_overlap_ns"); w.Int64(d.comm_compute_overlap_ns);
    w.Key("kernel_count"); w.Int64(d.kernel_count);
    w.Key("memcpy_count"); w.Int64(d.memcpy_count);
    w.Key("memset_count"); w.Int64(d.memset_count);
    w.Key("kernel_time_ns"); w.Int64(d.kernel_time_ns);
    w.Key("streams");
    w.StartArray();
    for (const StreamStats& s : d.streams) {
      w.StartObject();
      w.Key("stream"); w.Int64(s.stream);
      w.Key("kernels"); w.Int64(s.kernels);
      w.Key("memcpys"); w.Int64(s.memcpys);
      w.Key("memsets"); w.Int64(s.memsets);
      w.Key("busy_ns"); w.Int64(s.busy_ns);
      w.Key("first_ns"); w.Int64(s.first_ns);
      w.Key("last_ns"); w.Int64(s.last_ns);
      w.Key("idle"); Idle(w, s.idle);
      w.EndObject();
    }
    w.EndArray();
    w.Key("kernels");
    w.StartArray();
    for (const KernelStats& k : d.kernels) Kernel(w, k);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();

  const LaunchStats& l = r.launch;
  w.Key("launch");
  w.StartObject();
  w.Key("gpu_ops_matched"); w.Int64(l.gpu_ops_matched);
  w.Key("gpu_ops_unmatched"); w.Int64(l.gpu_ops_unmatched);
  w.Key("kernels"); w.Int64(l.kernels);
  // No kernel with a known launch: the delays are unknown, not 0 ns.
  auto delay = [&](const char* key, std::optional<int64_t> v) {
    w.Key(key);
    if (l.delays > 0 && v) w.Int64(*v); else w.Null();
  };
  w.Key("delay_mean_ns");
  if (l.delays > 0) WriteJsonDouble(w, l.delay_mean_ns); else w.Null();
  delay("delay_min_ns", l.delay_min_ns);
  delay("delay_p50_ns", l.delay_p50_ns);
  delay("delay_p95_ns", l.delay_p95_ns);
  delay("delay_max_ns", l.delay_max_ns);
  w.Key("launch_cost_ns"); w.Int64(l.launch_cost_ns);
  w.Key("kernel_runtime_ns"); w.Int64(l.kernel_runtime_ns);
  w.Key("shorter_than_launch"); w.Int64(l.shorter_than_launch);
  w.Key("short_kernels");
  w.StartArray();
  for (const ShortKernel& s : l.short_kernels) {
    w.StartObject();
    w.Key("name"); Str(w, s.name);
    w.Key("count"); w.Int64(s.count);
    w.Key("launch_ns"); w.Int64(s.launch_ns);
    w.Key("kernel_ns"); w.Int64(s.kernel_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();

  w.Key("memory_traffic");
  w.StartArray();
  for (const MemcpyStats& m : r.memory_traffic) {
    w.StartObject();
    w.Key("device"); w.Int64(m.device);
    w.Key("kind"); Str(w, m.kind);
    w.Key("route"); Str(w, m.route);
    w.Key("memory"); Str(w, m.memory);
    w.Key("count"); w.Int64(m.count);
    // The sum over the copies of known size (`without_bytes` counts the
    // others); null when none has one.
    w.Key("bytes");
    if (AnySized(m)) w.Int64(m.bytes); else w.Null();
    w.Key("total_ns"); w.Int64(m.total_ns);
    w.Key("bandwidth_gbps");
    if (const std::optional<double> g = m.BandwidthGBps()) WriteJsonDouble(w, *g); else w.Null();
    w.Key("without_bytes"); w.Int64(m.without_bytes);
    w.EndObject();
  }
  w.EndArray();

  w.Key("identical_launches");
  w.StartArray();
  for (const RepeatedLaunch& l : r.identical_launches) {
    w.StartObject();
    w.Key("device"); w.Int64(l.device);
    w.Key("name"); Str(w, l.name);
    // null where the trace records no launch configuration (ROCm kernels).
    for (const auto& [key, dims] : {std::pair{"grid", l.grid}, std::pair{"block", l.block}}) {
      w.Key(key);
      if (dims[0] <= 0) {
        w.Null();
        continue;
      }
      w.StartArray();
      for (int i = 0; i < 3; ++i) w.Int(dims[i]);
      w.EndArray();
    }
    w.Key("count"); w.Int64(l.count);
    w.Key("total_ns"); w.Int64(l.total_ns);
    w.Key("mean_ns"); WriteJsonDouble(w, l.MeanNs());
    w.EndObject();
  }
  w.EndArray();
  w.Key("launches_untracked"); w.Int64(r.launches_untracked);
  w.Key("repeated_h2d");
  w.StartArray();
  for (const RepeatedCopy& c : r.repeated_h2d) {
    w.StartObject();
    w.Key("device"); w.Int64(c.device);
    w.Key("bytes"); w.Int64(c.bytes);
    w.Key("count"); w.Int64(c.count);
    w.Key("total_ns"); w.Int64(c.total_ns);
    w.Key("first_ns"); w.Int64(c.first_ns);
    w.Key("last_ns"); w.Int64(c.last_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("h2d_copies_untracked"); w.Int64(r.h2d_copies_untracked);

  w.Key("cpu_ops");
  w.StartArray();
  for (const CpuOpStats& c : r.cpu_ops) {
    w.StartObject();
    w.Key("name"); Str(w, c.name);
    w.Key("count"); w.Int64(c.count);
    w.Key("self_ns"); w.Int64(c.self_ns);
    w.Key("total_ns"); w.Int64(c.total_ns);
    w.EndObject();
  }
  w.EndArray();

  w.Key("memory");
  w.StartArray();
  for (const MemoryPeak& m : r.memory) {
    w.StartObject();
    w.Key("device_type"); w.Int64(m.device_type);
    w.Key("device_id"); w.Int64(m.device_id);
    w.Key("events"); w.Int64(m.events);
    auto optional = [&](const char* key, const std::optional<int64_t>& v) {
      w.Key(key);
      if (v) w.Int64(*v); else w.Null();
    };
    optional("peak_allocated", m.peak_allocated);
    optional("peak_reserved", m.peak_reserved);
    optional("peak_ts_ns", m.peak_ts_ns);
    optional("peak_offset_ns", m.peak_ts_ns ? std::optional<int64_t>(*m.peak_ts_ns - r.span_start_ns) : std::nullopt);
    w.Key("peak_step");
    if (m.peak_step) w.Int64(*m.peak_step); else w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.Key("graphs");
  w.StartObject();
  w.Key("launches"); w.Int64(r.graphs.launches);
  w.Key("kernels"); w.Int64(r.graphs.kernels);
  w.Key("copies"); w.Int64(r.graphs.copies);
  w.Key("gpu_ns"); w.Int64(r.graphs.gpu_ns);
  w.Key("top_kernels");
  w.StartArray();
  for (const KernelStats& k : r.graphs.top_kernels) Kernel(w, k);
  w.EndArray();
  w.EndObject();
  w.Key("compiled_regions");
  w.StartArray();
  for (const CpuOpStats& c : r.compiled_regions) {
    w.StartObject();
    w.Key("name"); Str(w, c.name);
    w.Key("count"); w.Int64(c.count);
    w.Key("total_ns"); w.Int64(c.total_ns);
    w.EndObject();
  }
  w.EndArray();

  const Approximations& a = r.approximations;
  w.Key("approximations");
  w.StartObject();
  w.Key("gpu_reorder_overruns"); w.Int64(a.gpu_reorder_overruns);
  w.Key("gpu_reorder_uncertain_ns"); w.Int64(a.gpu_reorder_uncertain_ns);
  w.Key("gpu_reorder_window"); w.Int64(a.gpu_reorder_window);
  w.Key("launch_window_misses"); w.Int64(a.launch_window_misses);
  w.Key("late_launch_calls"); w.Int64(a.late_launch_calls);
  w.Key("launch_window"); w.Int64(a.launch_window);
  w.Key("unmatched_gpu_ops"); w.Int64(a.unmatched_gpu_ops);
  w.Key("cpu_nesting_out_of_order"); w.Int64(a.cpu_nesting_out_of_order);
  w.Key("negative_durations"); w.Int64(a.negative_durations);
  w.Key("delay_quantiles_exact"); w.Bool(a.delay_quantiles_exact);
  w.EndObject();
  w.Key("exactness");
  w.StartArray();
  for (const FigureExactness& e : r.exactness) {
    w.StartObject();
    w.Key("figures"); Str(w, e.figures);
    w.Key("exact"); w.Bool(e.exact);
    if (!e.exact) { w.Key("why"); Str(w, e.why); }
    w.EndObject();
  }
  w.EndArray();

  w.Key("options");
  w.StartObject();
  w.Key("top_n"); w.Int(r.options.top_n);
  if (r.options.device) { w.Key("device"); w.Int64(*r.options.device); }
  w.Key("kernel_wait_threshold_ns"); w.Int64(r.options.kernel_wait_threshold_ns);
  w.Key("policy"); Str(w, f.policy);
  w.EndObject();
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  out += '\n';
  return out;
}

namespace {

std::string H(std::string_view s, size_t width = kNameWidth) { return EscapeHtml(ShortenText(s, width, true)); }

/// One HTML table: a header row and rows of already escaped cells; columns
/// after the first `left` are right-aligned (numbers).
std::string HtmlTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                      size_t left = 1) {
  std::string o = "<table>\n<tr>";
  for (size_t i = 0; i < header.size(); ++i) o += std::string(i < left ? "<th>" : "<th class=\"n\">") + header[i] + "</th>";
  o += "</tr>\n";
  for (const auto& row : rows) {
    o += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) o += std::string(i < left ? "<td>" : "<td class=\"n\">") + row[i] + "</td>";
    o += "</tr>\n";
  }
  return o + "</table>\n";
}

}  // namespace

std::string RenderTraceHtml(const TraceReport& r, const TraceFindingSet& f) {
  // The page head every gpugate page shares (report/html_page.h); the title
  // is escaped there.
  std::string o = HtmlPageHead("gpugate trace analysis: " + ShortenText(r.info.path, 200),
                               "td.n,th.n{text-align:right}li{margin:.4em 0}.p0,.p1{color:#a00}"
                               ".detail{color:#555;font-size:.92em}code{font-size:.92em}\n",
                               PageScript::kNone);
  o += "<h1>Trace analysis: <code>" + H(r.info.path, 200) + "</code></h1>\n";
  o += "<p>" + std::to_string(r.info.events) + " events, traced span " + Dur(r.SpanNs()) + ".";
  if (!r.devices.empty())
    o += " Over the GPU window: idle <strong>" + Pct(r.window_idle_share) + "</strong>, compute " +
         Pct(r.window_compute_share) + ", communication " + Pct(r.window_communication_share) + ", memcpy " +
         Pct(r.window_memcpy_share) + ", memset " + Pct(r.window_memset_share) + "; idle " + Pct(r.gpu_idle_share) +
         " of the whole trace.";
  o += "</p>\n";
  if (r.devices.empty()) o += "<p>" + EscapeHtml(NoGpuActivity(r)) + ".</p>\n";
  if (const auto inexact = Inexact(r); inexact.empty()) {
    o += "<p>Every figure is exact.</p>\n";
  } else {
    o += "<p><strong>Approximate figures:</strong></p>\n<ul>\n";
    for (const FigureExactness* e : inexact) o += "<li>" + EscapeHtml(e->figures) + ": " + EscapeHtml(e->why) + "</li>\n";
    o += "</ul>\n";
  }

  o += "<h2>Findings (policy " + H(f.policy, 80) + ")</h2>\n";
  if (f.items.empty()) o += "<p>" + H(NoFindings(r, f), 200) + ".</p>\n";
  else o += "<ul>\n";
  const auto html = [](const std::string& t) { return EscapeHtml(t); };
  for (const Suggestion& s : f.items) {
    o += "<li><strong class=\"p" + std::to_string(s.priority) + "\">" + SuggestionLabel(s) + "</strong> " +
         EscapeHtml(s.rule);
    if (const std::string subject = SuggestionSubject(s, html); !subject.empty()) o += " (" + subject + ")";
    o += ": " + EscapeHtml(s.message) + "<br><span class=\"detail\">" + SuggestionDetail(s, html);
    if (!s.source.empty()) o += " (source: " + EscapeHtml(s.source) + ")";
    o += "</span></li>\n";
  }
  if (!f.items.empty()) o += "</ul>\n";

  if (!r.devices.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const DeviceStats& d : r.devices)
      rows.push_back({std::to_string(d.device), Dur(d.WindowNs()), Pct(d.WindowShare(d.busy_ns)),
                      Pct(d.WindowShare(d.compute_ns)), Pct(d.WindowShare(d.communication_ns)),
                      Pct(d.WindowShare(d.memcpy_ns)), Pct(d.WindowShare(d.memset_ns)), Pct(d.WindowShare(d.window_idle_ns)),
                      Pct(d.WindowShare(d.window_idle.host_wait_ns)), Pct(d.WindowShare(d.window_idle.kernel_wait_ns)),
                      Pct(d.WindowShare(d.window_idle.other_ns)), Pct(d.Share(d.idle_ns))});
    o += "<h2>Temporal breakdown</h2>\n<p>Per GPU over its GPU window (first to last GPU activity), and idle over "
         "the whole trace.</p>\n" +
         HtmlTable({"GPU", "window", "busy", "compute", "communication", "memcpy", "memset", "idle", "host-wait",
                    "kernel-wait", "other", "idle, whole trace"},
                   rows, 0);
  }
  if (!r.top_kernels.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const KernelStats& k : r.top_kernels)
      rows.push_back({H(k.name), std::to_string(k.count), Dur(k.total_ns), DurD(k.mean_ns), Dur(k.min_ns),
                      Dur(k.max_ns), Pct(k.share)});
    o += "<h2>Top kernels</h2>\n" + HtmlTable({"kernel", "count", "total", "mean", "min", "max", "share"}, rows);
  }
  const LaunchStats& l = r.launch;
  if (l.kernels)
    o += "<h2>Launches</h2>\n<p>" + std::to_string(l.kernels) + " kernels with a known launch call: delay mean " +
         DurD(l.delay_mean_ns) + ", p50 " + Dur(l.delay_p50_ns) + ", p95 " + Dur(l.delay_p95_ns) + "; launch cost " +
         Dur(l.launch_cost_ns) + " vs kernel time " + Dur(l.kernel_runtime_ns) + "; " +
         std::to_string(l.shorter_than_launch) + " ran shorter than their launch call.</p>\n";
  if (r.graphs.launches > 0 || r.graphs.kernels > 0) {
    o += "<h2>CUDA graphs</h2>\n<p>" + EscapeHtml(GraphSentence(r)) + ".</p>\n";
    std::vector<std::vector<std::string>> rows;
    for (const KernelStats& k : r.graphs.top_kernels)
      rows.push_back({H(k.name), std::to_string(k.count), Dur(k.total_ns)});
    if (!rows.empty()) o += HtmlTable({"kernel", "count", "total"}, rows);
  }
  if (!r.compiled_regions.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const CpuOpStats& c : r.compiled_regions) rows.push_back({H(c.name), std::to_string(c.count), Dur(c.total_ns)});
    o += "<h2>Compiled regions</h2>\n" + HtmlTable({"region", "count", "total"}, rows);
  }
  if (!r.identical_launches.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const RepeatedLaunch& x : r.identical_launches)
      rows.push_back({H(x.name), std::to_string(x.device), std::to_string(x.count), DurD(x.MeanNs()), Dur(x.total_ns),
                      Dims(x.grid), Dims(x.block)});
    o += "<h2>Identical launches</h2>\n" +
         HtmlTable({"kernel", "GPU", "count", "mean", "total", "grid", "block"}, rows);
  }
  if (!r.repeated_h2d.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const RepeatedCopy& c : ShownCopies(r))
      rows.push_back({std::to_string(c.device), FormatBytes(c.bytes), std::to_string(c.count), Dur(c.total_ns),
                      AtMs(r, c.first_ns), AtMs(r, c.last_ns)});
    o += "<h2>Recurring host-to-device copies</h2>\n<p>" + CopiesShown(r) + "; " + std::to_string(r.profiler_steps) +
         " profiler steps.</p>\n" +
         HtmlTable({"GPU", "size", "count", "time", "first", "last"}, rows, 0);
  }
  if (!r.memory_traffic.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const MemcpyStats& m : ShownTraffic(r))
      rows.push_back({H(m.kind), H(m.route), m.memory, std::to_string(m.device), std::to_string(m.count),
                      CopyBytes(m, true), Dur(m.total_ns), Gbps(m)});
    const std::string shown = TrafficShown(r);
    o += "<h2>Memory traffic</h2>\n" + (shown.empty() ? "" : "<p>" + shown + ".</p>\n") +
         HtmlTable({"kind", "route", "memory", "GPU", "count", "bytes", "time", "GB/s"}, rows, 3);
  }
  if (!r.memory.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const MemoryPeak& m : r.memory)
      rows.push_back({MemoryDeviceLabel(m.device_type, m.device_id), MemoryPeakBytes(m.peak_allocated),
                      MemoryPeakBytes(m.peak_reserved), MemoryPeakAt(m, r.span_start_ns),
                      m.peak_step ? "ProfilerStep#" + std::to_string(*m.peak_step) : std::string("-"),
                      std::to_string(m.events)});
    o += "<h2>Memory</h2>\n" +
         HtmlTable({"device", "peak allocated", "peak reserved", "peak at", "peak in step", "[memory] events"}, rows) +
         RenderMemorySvgElement(r);
  }
  if (!r.cpu_ops.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const CpuOpStats& c : r.cpu_ops)
      rows.push_back({H(c.name), std::to_string(c.count), Dur(c.self_ns), Dur(c.total_ns)});
    o += "<h2>CPU op hotspots</h2>\n" + HtmlTable({"op", "count", "self", "total"}, rows);
  }
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace gpugate
