// Timeline export and memory timeline rendering.
#include "trace/timeline.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "trace/trace_reader.h"
#include "util/json_writer.h"

namespace gpugate {

namespace {

bool IsGpuSide(TraceCategory c) {
  return c == TraceCategory::kKernel || c == TraceCategory::kGpuMemcpy || c == TraceCategory::kGpuMemset ||
         c == TraceCategory::kCudaSync || c == TraceCategory::kGpuUserAnnotation;
}

using Writer = rapidjson::Writer<JsonStringBuffer>;

void Str(Writer& w, std::string_view s) { WriteJsonString(w, s); }

}  // namespace

TimelineWriter::TimelineWriter(TimelineFilter filter) : filter_(std::move(filter)) {
  out_ = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
}

bool TimelineWriter::Keep(const TraceEvent& e) const {
  if (e.ph == 'M') return filter_.keep_metadata;
  if (!filter_.categories.empty() && !filter_.categories.count(e.cat)) return false;
  if (filter_.device && IsGpuSide(e.category) && e.GpuDevice() != *filter_.device) return false;
  if (e.has_ts) {
    if (filter_.start_ns && e.EndNs() < *filter_.start_ns) return false;
    if (filter_.end_ns && e.ts_ns > *filter_.end_ns) return false;
  }
  if (!filter_.kernels.empty() && e.category == TraceCategory::kKernel && !filter_.kernels.count(e.name))
    return false;
  return true;
}

void TimelineWriter::OnEvent(const TraceEvent& e) {
  if (e.ph != 'M' && seen_.size() < kMaxSeenCategories) seen_.insert(e.cat);
  if (!Keep(e)) return;
  JsonStringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("name"); Str(w, e.name);
  w.Key("ph"); Str(w, e.ph ? std::string(1, e.ph) : std::string("X"));
  w.Key("cat"); Str(w, e.cat);
  std::string ts = NanosToMicrosText(e.has_ts ? e.ts_ns : 0);
  w.Key("ts"); w.RawValue(ts.data(), ts.size(), rapidjson::kNumberType);
  if (e.ph == 'X') {
    std::string dur = NanosToMicrosText(e.dur_ns);
    w.Key("dur"); w.RawValue(dur.data(), dur.size(), rapidjson::kNumberType);
  }
  w.Key("pid");
  if (e.pid_is_num) w.Int64(e.pid_num); else Str(w, e.pid_text);
  w.Key("tid");
  if (e.tid_is_num) w.Int64(e.tid_num); else Str(w, e.tid_text);
  if (!e.id.empty()) { w.Key("id"); Str(w, e.id); }
  if (!e.scope.empty()) { w.Key("s"); Str(w, e.scope); }
  if (e.ph == 'f') { w.Key("bp"); Str(w, "e"); }
  w.Key("args");
  if (!e.args_json.empty()) w.RawValue(e.args_json.data(), e.args_json.size(), rapidjson::kObjectType);
  else { w.StartObject(); w.EndObject(); }
  w.EndObject();
  out_ += written_ ? ",\n" : "\n";
  out_.append(buf.GetString(), buf.GetSize());
  ++written_;
}

std::string TimelineWriter::Finish() {
  std::string doc = std::move(out_);
  doc += "\n]}\n";
  out_.clear();
  return doc;
}

Result<std::string> ExportTimeline(const std::string& path, const TimelineFilter& filter,
                                   std::set<std::string>* seen_categories) {
  TimelineWriter writer(filter);
  auto info = ReadTrace(path, writer);
  if (!info.ok()) return info.error();
  if (seen_categories) *seen_categories = writer.seen_categories();
  return writer.Finish();
}

std::string RenderMemoryTimelineCsv(const std::vector<MemorySample>& samples) {
  std::string out = "ts_ns,device_type,device_id,bytes,total_allocated,total_reserved\n";
  for (const MemorySample& m : samples)
    out += std::to_string(m.ts_ns) + "," + std::to_string(m.device_type) + "," + std::to_string(m.device_id) + "," +
           std::to_string(m.bytes) + "," + (m.total_allocated ? std::to_string(*m.total_allocated) : "") + "," +
           (m.total_reserved ? std::to_string(*m.total_reserved) : "") + "\n";
  return out;
}

std::string RenderMemoryTimelineJson(const std::vector<MemorySample>& samples) {
  JsonStringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("schema"); Str(w, "gpugate/memory-timeline/v1");
  w.Key("samples");
  w.StartArray();
  for (const MemorySample& m : samples) {
    w.StartObject();
    w.Key("ts_ns"); w.Int64(m.ts_ns);
    w.Key("device_type"); w.Int64(m.device_type);
    w.Key("device_id"); w.Int64(m.device_id);
    w.Key("bytes"); w.Int64(m.bytes);
    w.Key("total_allocated");
    if (m.total_allocated) w.Int64(*m.total_allocated); else w.Null();
    w.Key("total_reserved");
    if (m.total_reserved) w.Int64(*m.total_reserved); else w.Null();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace gpugate
