// CUPTI activity records as plain C++ structs (no CUDA headers): what the
// tracer keeps of each CUPTI record, and the pure steps on them — memcpy and
// memset naming as Kineto spells it, pairing NVTX start/end markers into
// ranges, correlating runtime/driver calls with the GPU work they launched,
// and per-kernel results for the results model. The adapter from CUPTI's own
// structs is cupti/activity_cupti.h; the Chrome trace writer is
// cupti/chrome_trace.h. Timestamps are integer nanoseconds as CUPTI gives them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/results.h"

namespace gpugate {

/// Direction of a copy (CUpti_ActivityMemcpyKind).
enum class MemcpyKind : uint8_t { kUnknown, kHtoD, kDtoH, kHtoA, kAtoH, kAtoA, kAtoD, kDtoA, kDtoD, kHtoH, kPtoP };
/// Kind of memory on one side of a copy or memset (CUpti_ActivityMemoryKind).
enum class MemoryKind : uint8_t { kUnknown, kPageable, kPinned, kDevice, kArray, kManaged, kDeviceStatic, kManagedStatic };
/// API domain of a CPU-side call.
enum class ApiDomain : uint8_t { kRuntime, kDriver };
/// What a synchronization record waited for (CUpti_ActivitySynchronizationType).
enum class SyncKind : uint8_t { kUnknown, kEventSynchronize, kStreamWaitEvent, kStreamSynchronize, kContextSynchronize };

/// "HtoD", "DtoH", ..., "PtoP" (Kineto's spelling).
const char* ToString(MemcpyKind k);
/// "Pageable", "Pinned", "Device", ... (Kineto's spelling).
const char* ToString(MemoryKind k);
/// "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync".
const char* ToString(SyncKind k);

struct KernelRecord {
  std::string name;               ///< demangled where possible
  int64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers_per_thread = 0;
  int32_t static_shared_bytes = 0;
  int32_t dynamic_shared_bytes = 0;
  int64_t graph_node = 0;         ///< 0 when not launched from a graph
};

struct MemcpyRecord {
  MemcpyKind kind = MemcpyKind::kUnknown;
  MemoryKind src = MemoryKind::kUnknown, dst = MemoryKind::kUnknown;
  int64_t bytes = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation = 0;
  std::optional<uint32_t> src_device, dst_device;  ///< peer copies only
};

struct MemsetRecord {
  MemoryKind memory = MemoryKind::kUnknown;
  int64_t bytes = 0;
  uint32_t value = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t device = 0, context = 0, stream = 0;
  uint32_t correlation = 0;
};

/// A runtime or driver API call on a CPU thread.
struct ApiRecord {
  ApiDomain domain = ApiDomain::kRuntime;
  std::string name;               ///< "cudaLaunchKernel" (version suffix removed)
  uint32_t callback_id = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t process = 0, thread = 0;
  uint32_t correlation = 0;
  uint32_t return_value = 0;
};

struct SyncRecord {
  SyncKind kind = SyncKind::kUnknown;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t context = 0;
  std::optional<uint32_t> stream;  ///< CUPTI reports 0xffffffff when none applies
  uint32_t correlation = 0;
  std::optional<uint32_t> event;
};

/// Time CUPTI itself spent (buffer flushes, instrumentation, ...).
struct OverheadRecord {
  std::string kind;               ///< "CUPTI buffer flush", "Driver compiler", ...
  int64_t start_ns = 0, end_ns = 0;
  uint32_t process = 0, thread = 0;
};

/// One NVTX marker record as CUPTI delivers it: a range start, a range end
/// (same id, no name), or an instantaneous mark.
struct MarkerRecord {
  enum class Phase : uint8_t { kStart, kEnd, kInstant };
  Phase phase = Phase::kInstant;
  uint32_t id = 0;
  int64_t timestamp_ns = 0;
  std::string name;               ///< on start and instant records
  std::string domain;
  uint32_t process = 0, thread = 0;
};

/// An NVTX range (push/pop or start/end) or mark, after pairing.
struct NvtxRange {
  std::string name, domain;
  int64_t start_ns = 0, end_ns = 0;  ///< equal for a mark
  uint32_t process = 0, thread = 0;
};

/// A GPU as CUPTI describes it (CUpti_ActivityDevice5), for deviceProperties.
struct DeviceRecord {
  uint32_t id = 0;
  std::string name;
  int64_t global_memory_bytes = 0;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int max_warps_per_multiprocessor = 0;
  int threads_per_warp = 0;
  int max_registers_per_block = 0, max_registers_per_multiprocessor = 0;
  int64_t max_shared_per_block = 0, max_shared_per_multiprocessor = 0;
  int64_t l2_bytes = 0;
};

/// Everything one trace collected. Records of a kind are in arrival order.
struct TraceRecords {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<ApiRecord> apis;
  std::vector<SyncRecord> syncs;
  std::vector<OverheadRecord> overheads;
  std::vector<MarkerRecord> markers;
  std::vector<DeviceRecord> devices;
  uint32_t process_id = 0;        ///< pid of the traced process (CPU rows)
  int64_t dropped_records = 0;    ///< CUPTI reported dropped records (buffers full)
  /// Kernel, copy, memset and API records CUPTI wrote with start = end = 0
  /// ("timestamp information could not be collected"): left out, since a
  /// 0 ns instance at 1970 would bias durations and stretch the span.
  int64_t untimed_records = 0;

  bool HasGpuActivity() const { return !kernels.empty() || !memcpys.empty() || !memsets.empty(); }
};

/// Kineto's name of a copy: "Memcpy HtoD (Pageable -> Device)".
std::string MemcpyName(const MemcpyRecord& m);
/// Kineto's name of a memset: "Memset (Device)".
std::string MemsetName(const MemsetRecord& m);
/// Whether the host side of a copy is pageable memory (an extra staging copy
/// and a synchronous call): HtoD from, or DtoH to, pageable memory.
bool IsPageableCopy(const MemcpyRecord& m);
/// Whether the host side of a copy is page-locked memory.
bool IsPinnedCopy(const MemcpyRecord& m);

/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cuLaunchKernel_ptsz" stays.
std::string StripApiVersionSuffix(const std::string& name);

/// Pairs NVTX markers into ranges: a start and the end with the same id make
/// one range (nesting and interleaving on any thread are fine, since ids are
/// unique); instantaneous marks become zero-length ranges. A start without an
/// end is closed at `open_end_ns` (the end of the trace); an end without a
/// start is dropped. Ranges are sorted by start, longer first at equal start.
std::vector<NvtxRange> PairMarkers(const std::vector<MarkerRecord>& markers, int64_t open_end_ns);

/// Which API call launched a GPU record, found through correlation ids.
class Correlation {
 public:
  explicit Correlation(const std::vector<ApiRecord>& apis);
  /// The launching call of `correlation`, or nullptr (0 never matches: CUPTI
  /// uses it for work without a launch).
  const ApiRecord* Launch(uint32_t correlation) const;

 private:
  const std::vector<ApiRecord>* apis_;
  std::map<uint32_t, size_t> by_correlation_;
};

/// Earliest start and latest end over all records (0, 0 when there are none).
std::pair<int64_t, int64_t> TraceSpan(const TraceRecords& records);

/// Per kernel name: count, total and every instance's duration in start
/// order (the samples of a per-kernel comparison), plus the metrics
/// `registers_per_thread` and `shared_mem_bytes` (static + dynamic, of the
/// last instance). Sorted by total time, largest first, then by name — the
/// order and names TraceToResults gives for the same trace.
std::vector<KernelResult> KernelResultsFromRecords(const TraceRecords& records);

}  // namespace gpugate
