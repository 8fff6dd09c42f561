// Timeline export (a filtered Chrome trace that Perfetto and chrome://tracing
// open) and the memory timeline from Kineto "[memory]" instant events.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trace/analysis.h"
#include "trace/trace_event.h"
#include "util/result.h"
#include "util/time_text.h"  // NanosToMicrosText

namespace gpugate {

/// Which events go into the exported timeline. Empty sets mean "all".
struct TimelineFilter {
  std::set<std::string> categories;       ///< "cat" values to keep ("kernel", "cpu_op", ...)
  std::optional<int64_t> device;          ///< GPU-side events of other devices are dropped
  std::optional<int64_t> start_ns;        ///< keep events that end after this (absolute ns)
  std::optional<int64_t> end_ns;          ///< keep events that start before this (absolute ns)
  std::set<std::string> kernels;          ///< kernel events kept only when named here (top N)
  bool keep_metadata = true;              ///< process/thread name events (ph M)
};

/// Streaming sink that writes the selected events as Chrome trace JSON
/// ({"traceEvents": [...], "displayTimeUnit": "ns"}); ts/dur are written in
/// microseconds with three decimals, exact from the integer nanoseconds.
class TimelineWriter : public TraceEventSink {
 public:
  explicit TimelineWriter(TimelineFilter filter);
  void OnEvent(const TraceEvent& event) override;
  bool WantsArgsJson() const override { return true; }
  /// The complete JSON document.
  std::string Finish();
  int64_t written() const { return written_; }
  /// Every event category of the trace (kept or not; at most
  /// kMaxSeenCategories), so a filter naming none of them can be told.
  const std::set<std::string>& seen_categories() const { return seen_; }
  static constexpr size_t kMaxSeenCategories = 64;

 private:
  bool Keep(const TraceEvent& e) const;
  TimelineFilter filter_;
  std::string out_;
  int64_t written_ = 0;
  std::set<std::string> seen_;
};

/// Second streaming pass over `path` writing the filtered timeline. With
/// `seen_categories`, also the categories the trace holds (TimelineWriter).
Result<std::string> ExportTimeline(const std::string& path, const TimelineFilter& filter,
                                   std::set<std::string>* seen_categories = nullptr);

/// Memory timeline as CSV: header
/// "ts_ns,device_type,device_id,bytes,total_allocated,total_reserved", one row
/// per [memory] event in file order; a total the event does not state is an
/// empty field (null in the JSON).
std::string RenderMemoryTimelineCsv(const std::vector<MemorySample>& samples);
/// The same as JSON: {"schema": "gpugate/memory-timeline/v1", "samples": [...]}.
std::string RenderMemoryTimelineJson(const std::vector<MemorySample>& samples);

}  // namespace gpugate
