// Trace analyses computed while a Chrome/Kineto trace streams by: kernel
// breakdown, temporal breakdown (compute / communication / memcpy / memset /
// idle, idle split into host-wait, kernel-wait and other), launch statistics,
// memory traffic, CPU op hotspots, [memory] events, recurring copies and
// launches (the facts the trace rules read, rules/engine.cc), and the flame
// graph. Memory does not grow with the number of events: GPU activities
// pass through a bounded reorder window and are swept into running interval
// unions, launch delays go to a bounded quantile sketch, and CPU events are
// aggregated on the fly (unless a flame graph is requested, which keeps every
// frame). Definitions: docs/trace.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/flame.h"
#include "trace/memory_chart.h"
#include "trace/trace_event.h"
#include "util/result.h"

namespace gpugate {

struct AnalysisOptions {
  int top_n = 10;                         ///< rows in top-N lists
  std::optional<int64_t> device;          ///< only this GPU (default: all)
  /// Idle gaps shorter than this, not caused by the host, are "kernel wait".
  /// HTA's consecutive_kernel_delay is 30 in trace units, which are
  /// microseconds in Kineto traces: 30 us.
  int64_t kernel_wait_threshold_ns = 30000;
  bool keep_kernel_samples = false;       ///< fill KernelStats::durations_ns
  bool collect_flame = false;             ///< build TraceReport::flame
  bool collect_memory_timeline = false;   ///< fill TraceReport::memory_timeline
  /// Runtime calls (and GPU activities waiting for theirs) remembered for
  /// correlation matching; the oldest are forgotten first. Kineto writes a
  /// launch and its GPU activity close together, so a window suffices.
  size_t launch_window = size_t{1} << 16;
  /// GPU activities held in a min-heap by start time before they are swept
  /// into the per-device interval unions. Unions, idle gaps and per-stream
  /// figures are exact when no activity arrives more than this many GPU
  /// activities out of start-time order; a GPU activity must meet its launch
  /// call while it is in this window to count as matched.
  size_t gpu_reorder_window = size_t{1} << 16;
};

namespace detail {

/// Quantiles of an integer stream in bounded memory: values are kept exactly
/// while there are at most `exact_cap` of them; beyond that they go to a
/// signed log-bucket histogram whose buckets are 1% wide in relative terms
/// (|v| in [1.01^i, 1.01^(i+1)) ns for 1 ns <= |v| < 1000 s, plus one bucket
/// for 0; larger magnitudes share the outermost bucket). A histogram quantile
/// is an integer inside its bucket (the one nearest the bucket's geometric
/// middle), clamped to the observed [min, max]; every value in the bucket is
/// within 1% of it, so its relative error is at most 1% (the bucket width)
/// for |v| < 1000 s.
/// Rank rule (both modes): the value of rank round(q * (n - 1)) in sorted
/// order. Memory: exact_cap values, then about 45 KB.
class BoundedQuantiles {
 public:
  explicit BoundedQuantiles(size_t exact_cap = 100000);
  void Add(int64_t v);
  /// q in [0, 1]; 0 when empty.
  int64_t Quantile(double q);
  int64_t count() const { return count_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  double mean() const {
    return count_ > 0 ? static_cast<double>(static_cast<long double>(sum_) / static_cast<long double>(count_)) : 0;
  }
  bool exact() const { return !histogram_; }

  static constexpr double kBucketRatio = 1.01;
  static constexpr int kBuckets = 2777;  ///< 1.01^2777 > 1e12: 1 ns .. 1000 s

 private:
  int Bucket(int64_t magnitude) const;
  int64_t Representative(int bucket) const;  ///< magnitude reported for a bucket
  void Spill();
  size_t exact_cap_;
  int64_t count_ = 0, min_ = 0, max_ = 0;
  __int128 sum_ = 0;  ///< exact: up to 2^63 values of up to 2^63 ns
  std::vector<int64_t> exact_;
  bool histogram_ = false;
  std::vector<int64_t> pos_, neg_;  ///< kBuckets counts each
  std::vector<double> lower_;       ///< lower_[i] = 1.01^i, i <= kBuckets
  int64_t zero_ = 0;
};

}  // namespace detail

struct IdleBreakdown {
  int64_t host_wait_ns = 0;    ///< the launch of the next GPU work came after the gap began
  int64_t kernel_wait_ns = 0;  ///< short gap (< threshold) between back-to-back work
  int64_t other_ns = 0;        ///< anything else (syncs, events, unknown launches)
  int64_t Total() const { return host_wait_ns + kernel_wait_ns + other_ns; }
};

struct KernelStats {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0, min_ns = 0, max_ns = 0;
  double mean_ns = 0;
  double share = 0;             ///< fraction of the kernel time (sum of durations) on its device(s)
  bool communication = false;   ///< NCCL kernel (name contains "nccl")
  /// Mean of the trace's "est. achieved occupancy %", as a fraction.
  std::optional<double> mean_achieved_occupancy;
  std::optional<double> registers_per_thread;
  std::optional<double> shared_memory_bytes;
  int grid[3] = {0, 0, 0};      ///< main launch configuration: the one that holds most of its time
  int block[3] = {0, 0, 0};
  /// Share of the kernel's time in that configuration (1 when every launch
  /// has it); unknown when the launches were not grouped.
  std::optional<double> config_share;
  std::vector<int64_t> durations_ns;  ///< every instance in time order (keep_kernel_samples)
  std::vector<uint32_t> launch_keys;  ///< their LaunchGroupKey, parallel to durations_ns
  int64_t graph_count = 0;      ///< instances launched by a CUDA graph launch
};

struct StreamStats {
  int64_t device = -1, stream = -1;
  int64_t kernels = 0, memcpys = 0, memsets = 0;
  int64_t busy_ns = 0;                 ///< union of the stream's activity
  int64_t first_ns = 0, last_ns = 0;   ///< first start, last end
  IdleBreakdown idle;                  ///< gaps between first and last activity
};

struct DeviceStats {
  int64_t device = -1;
  // Whole-trace figures: over the traced span, the same for every device.
  int64_t span_ns = 0;                 ///< the traced span (same for every device)
  int64_t busy_ns = 0;                 ///< union of kernels, memcpys and memsets
  int64_t compute_ns = 0;              ///< time at least one non-NCCL kernel runs
  int64_t communication_ns = 0;        ///< NCCL kernels, when no compute kernel runs
  int64_t memcpy_ns = 0;               ///< memcpy only (no kernel running)
  int64_t memset_ns = 0;               ///< memset only
  int64_t idle_ns = 0;                 ///< span - busy
  IdleBreakdown idle;                  ///< idle_ns by class (leading and trailing gaps included)
  int64_t active_start_ns = 0, active_end_ns = 0;  ///< first GPU start, last GPU end
  // GPU-window figures (HTA's temporal breakdown): over this device's own
  // active window, from its first GPU start to its last GPU end.
  int64_t window_idle_ns = 0;          ///< window - busy
  IdleBreakdown window_idle;           ///< window_idle_ns by class (gaps between GPU work only)
  /// Union of NCCL kernels, whether or not a compute kernel runs beside them,
  /// and the part of it that overlaps compute (communication_total_ns -
  /// communication_ns).
  int64_t communication_total_ns = 0, comm_compute_overlap_ns = 0;
  int64_t kernel_count = 0, memcpy_count = 0, memset_count = 0;
  int64_t kernel_time_ns = 0;          ///< sum of kernel durations (not merged)
  /// This device's kernels with a known launch call, and of those (not
  /// launched by a graph) the ones that ran shorter than their call: the
  /// LaunchStats figures of this device alone.
  int64_t launches_matched = 0, shorter_than_launch = 0;
  std::vector<KernelStats> kernels;    ///< all kernels, by total time, descending
  std::vector<StreamStats> streams;
  /// `part` as a fraction of the traced span (0 when the span is empty).
  double Share(int64_t part) const {
    return span_ns > 0 ? static_cast<double>(part) / static_cast<double>(span_ns) : 0;
  }
  int64_t WindowNs() const { return active_end_ns - active_start_ns; }
  /// `part` as a fraction of the device's GPU window (0 when it is empty).
  double WindowShare(int64_t part) const {
    return WindowNs() > 0 ? static_cast<double>(part) / static_cast<double>(WindowNs()) : 0;
  }
};

/// One "ProfilerStep#N" annotation (CPU side).
struct ProfilerStep {
  int64_t number = -1;                 ///< N, or -1 when the name has no number
  int64_t start_ns = 0, end_ns = 0;
};

struct MemcpyStats {
  std::string kind;     ///< "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... ; "Memset" for memsets
  std::string route;    ///< "Pageable -> Device" (from the event name)
  std::string memory;   ///< "pageable", "pinned", "device", "managed" or "unknown"
  int64_t device = -1;
  int64_t count = 0, bytes = 0, total_ns = 0;
  /// Copies whose size the trace does not give (no or an impossible
  /// `bytes`), and the time of those whose size it does: the bandwidth is
  /// the known bytes over the time that moved them.
  int64_t without_bytes = 0, sized_ns = 0;
  /// Bytes per ns (GB/s) of the copies of known size; unknown without one.
  std::optional<double> BandwidthGBps() const {
    if (sized_ns <= 0) return std::nullopt;
    return static_cast<double>(bytes) / static_cast<double>(sized_ns);
  }
};

struct ShortKernel {
  std::string name;
  int64_t count = 0;            ///< instances whose launch call outlasted the kernel
  int64_t launch_ns = 0;        ///< their summed launch cost
  int64_t kernel_ns = 0;        ///< their summed run time
};

struct LaunchStats {
  int64_t gpu_ops_matched = 0;      ///< GPU activities whose runtime call was found
  int64_t gpu_ops_unmatched = 0;
  int64_t kernels = 0;              ///< kernels with a known launch
  /// Launch delay: kernel start - start of its runtime launch call, over
  /// `delays` kernels (none: the delay figures are unknown, null in JSON).
  int64_t delays = 0;
  double delay_mean_ns = 0;
  int64_t delay_min_ns = 0, delay_p50_ns = 0, delay_p95_ns = 0, delay_max_ns = 0;
  int64_t launch_cost_ns = 0;       ///< summed duration of those launch calls
  int64_t kernel_runtime_ns = 0;    ///< summed duration of those kernels
  int64_t shorter_than_launch = 0;  ///< kernels that ran shorter than their launch call
  std::vector<ShortKernel> short_kernels;  ///< top N by count
};

struct CpuOpStats {
  std::string name;
  int64_t count = 0, total_ns = 0, self_ns = 0;
};

struct MemorySample {
  int64_t ts_ns = 0;
  int64_t device_type = -1;  ///< 0 CPU, 1 CUDA (Kineto's c10::DeviceType)
  int64_t device_id = -1;
  int64_t bytes = 0;         ///< this allocation (negative: free)
  /// As the event states them; null when it states none (PyTorch 1.8/1.9).
  std::optional<int64_t> total_allocated, total_reserved;
};

struct MemoryPeak {
  int64_t device_type = -1, device_id = -1;
  int64_t events = 0;
  /// The largest "Total Allocated" / "Total Reserved" a sample states; null
  /// when no sample states one (Kineto of PyTorch 1.8/1.9 wrote only each
  /// allocation's "Bytes").
  std::optional<int64_t> peak_allocated, peak_reserved;
  std::optional<int64_t> peak_ts_ns;      ///< first sample with the peak allocated
  /// N of the "ProfilerStep#N" whose CPU span contains peak_ts_ns (none when
  /// the peak falls outside every numbered step).
  std::optional<int64_t> peak_step;
};

/// Host-to-device copies of one byte size on one device that recur through
/// the trace (docs/trace.md, "Repeated host-to-device copies").
struct RepeatedCopy {
  int64_t device = -1;
  int64_t bytes = 0;                  ///< size of each copy
  int64_t count = 0, total_ns = 0;    ///< copies of this size, their summed duration
  int64_t first_ns = 0, last_ns = 0;  ///< start of the first and of the last copy
  int64_t pinned = 0;                 ///< of the copies, those from pinned host memory
};

/// Launches of one kernel with one launch configuration (name, grid, block)
/// on one device (docs/trace.md, "Identical launches").
struct RepeatedLaunch {
  int64_t device = -1;
  std::string name;
  int grid[3] = {0, 0, 0};
  int block[3] = {0, 0, 0};
  int64_t count = 0, total_ns = 0;
  double MeanNs() const { return count > 0 ? static_cast<double>(total_ns) / count : 0; }
};

/// GPU work launched by CUDA graph launches (cudaGraphLaunch / cuGraphLaunch):
/// every activity whose correlation id is a graph launch call's.
struct CudaGraphStats {
  int64_t launches = 0;              ///< graph launch calls in the trace
  int64_t kernels = 0, copies = 0;   ///< kernels and memcpys/memsets they ran
  int64_t gpu_ns = 0;                ///< summed duration of those activities
  std::vector<KernelStats> top_kernels;  ///< kernels launched by graphs, top N by time
};

/// What the streaming analysis could not do exactly (docs/trace.md,
/// "Exactness"). Zero everywhere means every figure is exact.
struct Approximations {
  /// GPU activities that arrived after a later-starting activity of their
  /// device had left the reorder window; each time, the window doubles (up
  /// to kMaxReorderWindow).
  int64_t gpu_reorder_overruns = 0;
  /// Upper bound on the busy time those activities may have been miscounted
  /// by (the part of each that lay before the union's frontier).
  int64_t gpu_reorder_uncertain_ns = 0;
  int64_t gpu_reorder_window = 0;    ///< the window when the trace ended
  /// GPU activities whose launch call had already been forgotten by the launch
  /// window (it doubles at each, up to kMaxLaunchWindow); they count as unmatched.
  int64_t launch_window_misses = 0;
  /// Launch calls that came after their GPU activity had stopped waiting
  /// for them (evicted by the launch window, or swept by the reorder window
  /// first); the launch window doubles at each. Their activities count as
  /// unmatched.
  int64_t late_launch_calls = 0;
  int64_t launch_window = 0;         ///< the launch window when the trace ended
  int64_t unmatched_gpu_ops = 0;     ///< GPU activities with no launch call (launch.gpu_ops_unmatched)
  int64_t cpu_nesting_out_of_order = 0;  ///< CPU frames beyond the per-thread nesting window
  int64_t negative_durations = 0;    ///< clamped to 0 by the reader
  bool delay_quantiles_exact = true; ///< false: launch-delay quantiles are within 1% (sketch)
  static constexpr size_t kMaxReorderWindow = size_t{1} << 20;
  static constexpr size_t kMaxLaunchWindow = size_t{1} << 22;
};

/// Whether one group of figures is exact, and if not, why.
struct FigureExactness {
  std::string figures;  ///< "device breakdown and idle classes", ...
  bool exact = true;
  std::string why;      ///< empty when exact
};

struct TraceReport {
  TraceInfo info;
  AnalysisOptions options;
  int64_t span_start_ns = 0, span_end_ns = 0;  ///< all timed non-metadata events
  std::vector<DeviceStats> devices;            ///< devices with GPU activity
  /// With options.device: the other GPUs the trace has activity on, which
  /// the filter left out (ascending; at most kMaxOtherDevices).
  std::vector<int64_t> other_devices;
  static constexpr size_t kMaxOtherDevices = 64;
  std::vector<KernelStats> top_kernels;        ///< all devices merged, top N by total
  int64_t distinct_kernels = 0;
  std::vector<MemcpyStats> memory_traffic;     ///< memcpy by kind/route, then memsets
  LaunchStats launch;
  std::vector<CpuOpStats> cpu_ops;             ///< top N by self time
  int64_t cpu_nesting_out_of_order = 0;        ///< CPU events outside the reorder window
  // Summary (fractions of the traced span; over all analysed devices).
  double gpu_idle_share = 0, compute_share = 0, communication_share = 0;
  double memcpy_share = 0, memset_share = 0;
  // The same over the devices' GPU windows (sum of parts / sum of windows).
  double window_idle_share = 0, window_compute_share = 0, window_communication_share = 0;
  double window_memcpy_share = 0, window_memset_share = 0;
  int64_t profiler_steps = 0;                  ///< steps: distinct "ProfilerStep#N" numbers
  /// The profiler steps in start order (at most kMaxSteps; profiler_steps
  /// counts them all).
  std::vector<ProfilerStep> steps;
  static constexpr size_t kMaxSteps = 1 << 20;
  /// HtoD copy sizes that recur (at least once per profiler step, or 10 times
  /// without steps, spread over half the device's active span), by count.
  std::vector<RepeatedCopy> repeated_h2d;
  int64_t h2d_copies_untracked = 0;            ///< HtoD copies of sizes beyond the size cap
  /// Per device, the top N compute-kernel launch configurations by launches
  /// (most first); the device's first one feeds trace.identical_launches.
  std::vector<RepeatedLaunch> identical_launches;
  int64_t launches_untracked = 0;              ///< launches of configurations beyond the cap
  std::vector<MemoryPeak> memory;              ///< per device, from [memory] events
  std::vector<MemorySample> memory_timeline;   ///< collect_memory_timeline
  CudaGraphStats graphs;
  /// torch.compile regions ("Torch-Compiled Region: ..." CPU annotations), by total time.
  std::vector<CpuOpStats> compiled_regions;
  Approximations approximations;
  std::vector<FigureExactness> exactness;      ///< every group of figures, exact or not
  /// Allocated and reserved bytes per device over time, downsampled to a
  /// fixed number of columns (always collected; bounded).
  std::vector<MemorySeries> memory_chart;
  std::unique_ptr<FlameGraph> flame;           ///< collect_flame

  int64_t SpanNs() const { return span_end_ns - span_start_ns; }
};

/// Streaming analyser: feed it to ReadTrace, then call Finish once.
class TraceAnalyzer : public TraceEventSink {
 public:
  explicit TraceAnalyzer(AnalysisOptions options);
  ~TraceAnalyzer() override;
  void OnEvent(const TraceEvent& event) override;
  /// Computes the report. `info` is what ReadTrace returned.
  TraceReport Finish(const TraceInfo& info);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// ReadTrace + TraceAnalyzer in one call.
Result<TraceReport> AnalyzeTrace(const std::string& path, const AnalysisOptions& options);
/// Same over a trace already in memory (plain or gzip); `name` names it in messages.
Result<TraceReport> AnalyzeTraceText(std::string_view bytes, const std::string& name,
                                     const AnalysisOptions& options);

/// Memcpy kind and route from a Kineto name: "Memcpy HtoD (Pageable -> Device)"
/// -> {"HtoD", "Pageable -> Device", "pageable"}.
MemcpyStats ClassifyMemcpy(std::string_view name);

}  // namespace gpugate
