// The memory timeline as a picture: allocated and reserved bytes over time per
// device, downsampled while the trace streams into a fixed number of time
// columns (min and max per column), so the picture takes the same memory for
// a thousand [memory] events as for a hundred million.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpugate {

struct MemoryPeak;
struct TraceReport;

/// One time column of one device: the extremes of the samples that fell in it.
struct MemoryColumn {
  int64_t samples = 0;
  int64_t allocated_min = 0, allocated_max = 0;
  int64_t reserved_min = 0, reserved_max = 0;
};

/// Samples of one device in columns of equal width: column i covers
/// [origin_ns + i * width_ns, origin_ns + (i + 1) * width_ns).
struct MemorySeries {
  int64_t device_type = -1, device_id = -1;
  int64_t origin_ns = 0, width_ns = 1;
  std::vector<MemoryColumn> columns;
};

/// Streaming downsampler. The column width starts at 1 ns and doubles
/// (neighbouring columns merge) whenever a sample falls outside the range, so
/// samples may come in any order; the extremes of every column stay exact.
/// Memory: `columns` * 40 bytes per device.
class MemoryChartBuilder {
 public:
  explicit MemoryChartBuilder(int columns = 1024) : columns_(columns) {}
  void Add(int64_t device_type, int64_t device_id, int64_t ts_ns, int64_t total_allocated, int64_t total_reserved);
  /// Per device (by type, then id).
  std::vector<MemorySeries> Series() const;

 private:
  void Widen(MemorySeries& s, bool leftwards) const;
  int columns_;
  std::map<std::pair<int64_t, int64_t>, MemorySeries> series_;
};

/// "GPU 0", "CPU", or "device type T id I".
std::string MemoryDeviceLabel(int64_t device_type, int64_t device_id);

/// A peak's bytes, or "unknown" when no [memory] event stated a total.
std::string MemoryPeakBytes(const std::optional<int64_t>& bytes);

/// Where a device's allocated peak happened: "at 1.23 s from the trace
/// start, in ProfilerStep#12" (the step part only when the peak lies in a
/// numbered step); "(no [memory] event states a total)" without one.
std::string MemoryPeakWhere(const MemoryPeak& peak, int64_t trace_start_ns);

/// The chart as an <svg> element (for embedding in HTML): per device,
/// reserved and allocated bytes over the traced span (each time column drawn
/// as its min..max band and its max line), the allocated peak marked and
/// labelled with its value, time and step. Empty when there is no [memory]
/// event.
std::string RenderMemorySvgElement(const TraceReport& report);
/// The same as a standalone SVG file (XML declaration first).
std::string RenderMemorySvg(const TraceReport& report);

}  // namespace gpugate
