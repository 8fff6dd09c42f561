// One event of a Chrome / Kineto trace as the streaming reader hands it to its
// consumers, plus the trace-level metadata (deviceProperties, distributedInfo).
// Timestamps are absolute integer nanoseconds, durations integer nanoseconds:
// a double keeps only ~0.25 us at epoch scale (DESIGN.md, "Files").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpugate {

/// Kineto event categories ("cat"). Anything else is kUnknown (counted, not fatal).
enum class TraceCategory : uint8_t {
  kNone,              ///< no "cat" member (metadata, instant markers)
  kKernel,
  kGpuMemcpy,
  kGpuMemset,
  kCudaRuntime,
  kCudaDriver,
  kCudaSync,
  kCpuOp,
  kPythonFunction,
  kUserAnnotation,
  kGpuUserAnnotation,
  kAc2g,              ///< CPU-to-GPU flow; older traces call it async_cpu_to_gpu
  kCpuInstantEvent,   ///< "cpu_instant_event" (carries the [memory] events)
  kUnknown,
};
inline constexpr int kTraceCategoryCount = static_cast<int>(TraceCategory::kUnknown) + 1;

/// Spelling used in reports ("kernel", "gpu_memcpy", ..., "unknown").
const char* ToString(TraceCategory c);
/// Category of a "cat" string (case-sensitive, as Kineto writes it).
TraceCategory CategoryFromString(std::string_view cat);

/// One trace event. Strings are owned by the reader and reused between events:
/// consumers copy what they keep.
struct TraceEvent {
  char ph = 0;                   ///< 'X', 'i', 'I', 's', 'f', 't', 'M', 'B', 'E', ... ; 0 if absent
  TraceCategory category = TraceCategory::kNone;
  std::string cat;               ///< raw "cat" text
  std::string name;
  bool has_ts = false;
  int64_t ts_ns = 0;             ///< absolute, integer nanoseconds
  bool has_dur = false;
  int64_t dur_ns = 0;            ///< >= 0 (negative durations are clamped and counted)
  /// pid/tid: numbers are kept in *_num with *_is_num set; strings in *_text.
  bool pid_is_num = false, tid_is_num = false;
  int64_t pid_num = 0, tid_num = 0;
  std::string pid_text, tid_text;
  std::string id;                ///< flow id ("id"), as text
  std::string scope;             ///< "s" member of instant events

  // Kineto args (-1 / nullopt when absent).
  int64_t correlation = -1;
  int64_t external_id = -1;
  int64_t stream = -1;
  int64_t device = -1;
  int grid[3] = {0, 0, 0};
  int block[3] = {0, 0, 0};
  std::optional<double> registers_per_thread;
  std::optional<double> shared_memory;
  std::optional<double> occupancy_pct;      ///< "est. achieved occupancy %"
  std::optional<int64_t> bytes;             ///< memcpy/memset "bytes"
  std::optional<double> bandwidth_gbps;     ///< "memory bandwidth (GB/s)"
  // [memory] instant events.
  std::optional<int64_t> mem_bytes;         ///< "Bytes" (negative on free)
  std::optional<int64_t> mem_total_allocated;
  std::optional<int64_t> mem_total_reserved;
  std::optional<int64_t> mem_device_id;     ///< "Device Id"
  std::optional<int64_t> mem_device_type;   ///< "Device Type" (0 CPU, 1 CUDA)

  bool has_args = false;
  /// The whole "args" object re-serialised as compact JSON; filled only when
  /// the sink asks for it (TraceEventSink::WantsArgsJson).
  std::string args_json;

  /// Device of a GPU-side event: args.device, else a numeric pid.
  int64_t GpuDevice() const { return device >= 0 ? device : (pid_is_num ? pid_num : -1); }
  /// Stream of a GPU-side event: args.stream, else a numeric tid.
  int64_t GpuStream() const { return stream >= 0 ? stream : (tid_is_num ? tid_num : -1); }
  int64_t EndNs() const { return ts_ns + dur_ns; }
};

/// One entry of the trace's "deviceProperties" array.
struct TraceDevice {
  int64_t id = -1;
  std::string name;
  std::optional<int64_t> total_global_mem;
  std::optional<int> compute_major, compute_minor;
  std::optional<int> num_sms;
  std::optional<int> max_threads_per_sm;
  std::optional<int> regs_per_sm;
  std::optional<int64_t> shared_mem_per_sm;
  std::optional<int> warp_size;
};

/// Trace-level metadata and reader counters.
struct TraceInfo {
  std::string path;
  bool compressed = false;         ///< read through zlib
  bool bare_array = false;         ///< top level was the event array itself
  std::optional<int64_t> schema_version;
  std::string trace_name;
  std::string display_time_unit;   ///< "ns" / "ms" / "" (presentation only)
  std::vector<TraceDevice> devices;
  std::optional<int64_t> rank, world_size;
  std::string distributed_backend;
  int64_t bytes_read = 0;          ///< decompressed bytes parsed
  int64_t events = 0;
  int64_t events_by_phase[128] = {};  ///< indexed by the ph character
  int64_t events_by_category[kTraceCategoryCount] = {};
  int64_t negative_durations = 0;  ///< clamped to 0
  std::vector<std::pair<std::string, int64_t>> unknown_categories;  ///< name, count (first 64)
  /// Numeric pids of host-side events (CPU ops, Python functions, CUDA
  /// runtime and driver calls, user annotations): the profiled processes
  /// (first 16).
  std::vector<int64_t> host_pids;
  /// Events of PyTorch's legacy exporter (the autograd profiler of a
  /// PyTorch built without Kineto, and libtorch's C++ writer): no "cat",
  /// pid "CPU functions" (or "CPU Functions"), read as cpu_op
  /// (ProfilerStep#N as steps); and (PyTorch before 1.8 with use_cuda=True)
  /// each op's time between two CUDA events, pid "CUDA functions" (or "CUDA
  /// Functions"): not kernels, counted and not read; such traces hold no [memory] events.
  int64_t legacy_cpu_events = 0, legacy_gpu_events = 0;
};

/// Receives events one at a time while the file streams by.
class TraceEventSink {
 public:
  virtual ~TraceEventSink() = default;
  virtual void OnEvent(const TraceEvent& event) = 0;
  /// True when args_json must be filled (costs time; off by default).
  virtual bool WantsArgsJson() const { return false; }
};

}  // namespace gpugate
