// TraceReport -> Results conversion (see to_results.h).
#include "trace/to_results.h"


#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "model/environment.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/random.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

std::string IsoUtc(int64_t unix_ns) {
  std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void FillGpu(const TraceDevice& d, GpuInfo& gpu) {
  if (!d.name.empty()) gpu.name = d.name;
  gpu.device_index = static_cast<int>(d.id);
  if (d.compute_major)
    gpu.compute_capability = std::to_string(*d.compute_major) + "." + std::to_string(d.compute_minor.value_or(0));
  gpu.sm_count = d.num_sms;
  gpu.memory_bytes = d.total_global_mem;
}

/// The device's recurring HtoD copy sizes (TraceReport::repeated_h2d) as the
/// counters behind trace.repeated_h2d_* and trace.profiler_steps.
void SetRepeatedCopyCounters(const TraceReport& report, const DeviceStats& d, WorkloadResult& w) {
  int64_t copies = 0, bytes = 0, ns = 0, pinned = 0;
  const RepeatedCopy* top = nullptr;  // repeated_h2d is sorted by count
  for (const RepeatedCopy& c : report.repeated_h2d) {
    if (c.device != d.device) continue;
    if (top == nullptr) top = &c;
    copies += c.count;
    pinned += c.pinned;
    bytes += c.count * c.bytes;
    ns += c.total_ns;
  }
  w.counters["profiler_steps"] = static_cast<double>(report.profiler_steps);
  w.counters["repeated_h2d_count"] = static_cast<double>(copies);
  w.counters["repeated_h2d_pinned_count"] = static_cast<double>(pinned);
  w.counters["repeated_h2d_bytes"] = static_cast<double>(bytes);
  w.counters["repeated_h2d_time_s"] = static_cast<double>(ns) * 1e-9;
  w.counters["repeated_h2d_busy_fraction"] = d.busy_ns > 0 ? static_cast<double>(ns) / d.busy_ns : 0;
  if (top != nullptr) {
    w.counters["repeated_h2d_size"] = static_cast<double>(top->bytes);
    w.counters["repeated_h2d_size_count"] = static_cast<double>(top->count);
  }
}

/// The device's most launched kernel configuration (name, grid, block) as the
/// counters behind trace.identical_launch*.
void SetIdenticalLaunchCounters(const TraceReport& report, const DeviceStats& d, WorkloadResult& w) {
  for (const RepeatedLaunch& l : report.identical_launches) {  // most launched first per device
    if (l.device != d.device) continue;
    w.counters["identical_launch_count"] = static_cast<double>(l.count);
    w.counters["identical_launch_mean_s"] = l.MeanNs() * 1e-9;
    w.counters["identical_launch_time_s"] = static_cast<double>(l.total_ns) * 1e-9;
    w.counters["identical_launch_busy_fraction"] =
        d.busy_ns > 0 ? static_cast<double>(l.total_ns) / d.busy_ns : 0;
    return;
  }
}

// A digest of what the trace measured (per device: busy time, window, and
// each kernel's count and total), for the run id: two traces under one
// name whose timestamps both start at 0 are two runs; the same trace read
// twice is one.
uint64_t MeasuredDigest(const TraceReport& report) {
  std::string bytes;
  auto add = [&bytes](int64_t v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  add(report.span_start_ns);
  add(report.span_end_ns);
  for (const DeviceStats& d : report.devices) {
    add(d.device);
    add(d.busy_ns);
    add(d.active_start_ns);
    add(d.active_end_ns);
    add(d.memcpy_count);
    add(d.memset_count);
    for (const KernelStats& k : d.kernels) {
      bytes += k.name;
      bytes.push_back('\0');
      add(k.count);
      add(k.total_ns);
      add(k.min_ns);
      add(k.max_ns);
      for (int64_t ns : k.durations_ns) add(ns);
      for (uint32_t key : k.launch_keys) add(key);
    }
  }
  for (const MemcpyStats& m : report.memory_traffic) {
    add(m.device);
    add(m.count);
    add(m.bytes);
    add(m.total_ns);
    bytes += m.kind + '\0' + m.memory + '\0' + m.route;
  }
  return Fnv1a64(bytes);
}

}  // namespace

std::string TraceSuiteName(const std::string& path, const std::vector<int64_t>& host_pids) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  auto digits = [](std::string_view t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // PyTorch's tensorboard_trace_handler: <worker>.<time in ns>.pt.trace.json.
  // The time differs in every run of one program.
  if (name.ends_with(".pt.trace") && name.size() > 9) {
    name.resize(name.size() - 9);
    const size_t dot = name.rfind('.');
    if (dot != std::string::npos && dot > 0 && name.size() - dot - 1 >= 10 &&
        digits(std::string_view(name).substr(dot + 1)))
      name.resize(dot);
  }
  // The worker's default, <host>_<pid>, differs too: a last part that is the
  // id of the process this trace profiled goes. Only that process's id, and
  // only from 1000 on: in a container the profiled process can be pid 1 to a
  // few hundred (the same in every run there), and "rank_1" keeps its number.
  const size_t sep = name.find_last_of("._");
  if (sep != std::string::npos && sep > 0 && name.size() - sep - 1 <= 10 &&
      digits(std::string_view(name).substr(sep + 1))) {
    const int64_t number = std::stoll(name.substr(sep + 1));
    if (number >= 1000 && std::find(host_pids.begin(), host_pids.end(), number) != host_pids.end()) name.resize(sep);
  }
  return NameFromFileName(name.empty() ? FileStem(FileStem(path)) : name);
}

Results TraceReportToResults(const TraceReport& report) {
  Results r;
  r.run.tool_version = GPUGATE_VERSION;
  r.run.suite = TraceSuiteName(report.info.path, report.info.host_pids);  // "x.json.gz" -> "x"
  r.run.source_format = "trace";
  r.run.time_unix_ns = report.span_start_ns;
  r.run.time_utc = IsoUtc(report.span_start_ns);
  char digest[24];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(MeasuredDigest(report)));
  r.run.run_id = "trace-" + r.run.suite + "-" + digest;
  // The GPU of the first analysed device (all devices of one trace are one machine).
  int64_t first = report.devices.empty() ? 0 : report.devices.front().device;
  for (const TraceDevice& d : report.info.devices)
    if (d.id == first) FillGpu(d, r.run.env.gpu);

  for (const DeviceStats& d : report.devices) {
    WorkloadResult w;
    w.name = "gpu" + std::to_string(d.device);
    w.kind = "trace";
    w.backend = "ingest";
    w.params = {{"device", std::to_string(d.device)}};
    // Another device than the run's: its own GPU, for the rules' device.*.
    // Every analysed device's fingerprint is compared device by device.
    for (const TraceDevice& td : report.info.devices) {
      if (td.id != d.device) continue;
      GpuInfo g;
      FillGpu(td, g);
      r.run.source_context[kGpuDeviceContextPrefix + std::to_string(d.device)] = GpuFingerprint(g);
      if (d.device != first) w.gpu = g;
    }
    w.tags = {"trace"};
    w.rounds = {{static_cast<double>(d.busy_ns) * 1e-9}};
    std::vector<double> all = AllSamples(w);
    w.summary = Summarize(all);
    for (const KernelStats& k : d.kernels) {
      KernelResult kr;
      kr.name = BoundedName(k.name);
      kr.count = k.count;
      kr.total_s = static_cast<double>(k.total_ns) * 1e-9;
      kr.durations_s.reserve(k.durations_ns.size());
      for (int64_t ns : k.durations_ns) kr.durations_s.push_back(static_cast<double>(ns) * 1e-9);
      if (k.launch_keys.size() == k.durations_ns.size()) kr.launch_groups = k.launch_keys;
      if (k.mean_achieved_occupancy) kr.metrics["achieved_occupancy"] = *k.mean_achieved_occupancy;
      if (k.registers_per_thread) kr.metrics["registers_per_thread"] = *k.registers_per_thread;
      if (k.shared_memory_bytes) kr.metrics["shared_mem_bytes"] = *k.shared_memory_bytes;
      // The main launch configuration (most of the kernel's time), when the
      // trace records one, and the share of the time it holds.
      if (k.config_share) kr.metrics["launch_config_share"] = *k.config_share;
      // Calls a CUDA graph launch made: the host paid one launch per graph.
      if (k.graph_count > 0) kr.metrics["graph_launches"] = static_cast<double>(k.graph_count);
      if (k.grid[0] > 0 && k.block[0] > 0) {
        kr.metrics["grid_blocks"] = static_cast<double>(k.grid[0]) * std::max(1, k.grid[1]) * std::max(1, k.grid[2]);
        kr.metrics["block_threads"] = static_cast<double>(k.block[0]) * std::max(1, k.block[1]) * std::max(1, k.block[2]);
      }
      w.kernels.push_back(std::move(kr));
    }
    int64_t memcpy_bytes = 0, copies = 0, unsized = 0;
    for (const MemcpyStats& m : report.memory_traffic)
      if (m.device == d.device && m.kind != "Memset") {
        memcpy_bytes += m.bytes;
        copies += m.count;
        unsized += m.without_bytes;
      }
    w.counters["span_s"] = static_cast<double>(d.span_ns) * 1e-9;
    w.counters["busy_s"] = static_cast<double>(d.busy_ns) * 1e-9;
    w.counters["idle_fraction"] = d.span_ns ? static_cast<double>(d.idle_ns) / d.span_ns : 0;
    w.counters["compute_fraction"] = d.span_ns ? static_cast<double>(d.compute_ns) / d.span_ns : 0;
    w.counters["communication_fraction"] = d.span_ns ? static_cast<double>(d.communication_ns) / d.span_ns : 0;
    // Shares of the busy time: copies and NCCL kernels that overlap no compute.
    w.counters["memcpy_busy_fraction"] = d.busy_ns ? static_cast<double>(d.memcpy_ns) / d.busy_ns : 0;
    w.counters["communication_busy_fraction"] =
        d.busy_ns ? static_cast<double>(d.communication_ns) / d.busy_ns : 0;
    w.counters["kernel_count"] = static_cast<double>(d.kernel_count);
    w.counters["kernel_time_s"] = static_cast<double>(d.kernel_time_ns) * 1e-9;
    w.counters["memcpy_count"] = static_cast<double>(d.memcpy_count);
    // Unknown (absent) when the trace gives no copy a size: not 0 B.
    // A lower bound when some copies have none (memcpy_unsized_count > 0).
    if (copies == 0 || unsized < copies) w.counters["memcpy_bytes"] = static_cast<double>(memcpy_bytes);
    w.counters["memcpy_unsized_count"] = static_cast<double>(unsized);
    // What the rule engine's trace.* names read (rules/engine.cc).
    w.counters["window_idle_fraction"] =
        d.WindowNs() > 0 ? static_cast<double>(d.window_idle_ns) / static_cast<double>(d.WindowNs()) : 0;
    w.counters["window_host_wait_fraction"] =
        d.window_idle.Total() > 0 ? static_cast<double>(d.window_idle.host_wait_ns) / d.window_idle.Total() : 0;
    w.counters["idle_host_wait_fraction"] =
        d.idle.Total() > 0 ? static_cast<double>(d.idle.host_wait_ns) / d.idle.Total() : 0;
    int64_t pageable = 0, pageable_bytes = 0, pageable_unsized = 0;
    for (const MemcpyStats& m : report.memory_traffic)
      if (m.device == d.device && m.memory == "pageable" && m.kind != "Memset") {
        pageable += m.count;
        pageable_bytes += m.bytes;
        pageable_unsized += m.without_bytes;
      }
    w.counters["pageable_memcpy_count"] = static_cast<double>(pageable);
    // Unknown when no pageable copy has a size, a lower bound when some have.
    if (pageable == 0 || pageable_unsized < pageable)
      w.counters["pageable_memcpy_bytes"] = static_cast<double>(pageable_bytes);
    w.counters["pageable_memcpy_unsized_count"] = static_cast<double>(pageable_unsized);
    SetRepeatedCopyCounters(report, d, w);
    SetIdenticalLaunchCounters(report, d, w);
    // This device's own: another GPU's launches say nothing of this one.
    w.counters["launches_matched"] = static_cast<double>(d.launches_matched);
    w.counters["shorter_than_launch"] = static_cast<double>(d.shorter_than_launch);
    r.workloads.push_back(std::move(w));
  }
  return r;
}

namespace {

Result<Results> ReportToResults(const Result<TraceReport>& report, const std::string& name) {
  if (!report.ok()) return report.error();
  if (report->devices.empty())
    return InputError(name + ": no GPU activity (kernels, memcpys or memsets) in the trace; nothing to compare");
  return TraceReportToResults(*report);
}

AnalysisOptions ResultsOptions() {
  AnalysisOptions options;
  options.keep_kernel_samples = true;
  return options;
}

}  // namespace

Result<Results> TraceToResults(const std::string& path) {
  return ReportToResults(AnalyzeTrace(path, ResultsOptions()), path);
}

Result<Results> TraceTextToResults(std::string_view bytes, const std::string& name) {
  return ReportToResults(AnalyzeTraceText(bytes, name, ResultsOptions()), name);
}

}  // namespace gpugate
