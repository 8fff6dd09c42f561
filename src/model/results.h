// The results model (`gpugate/results/v1`): what a run measured, in canonical
// units (seconds as double, bytes as int64, fractions for ratios). Every
// producer (harness, gbench/nvbench/trace ingest) fills these structs; every
// consumer (compare, baseline, merge) reads them. JSON I/O: results_json.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpugate {

inline constexpr const char* kResultsSchema = "gpugate/results/v1";
inline constexpr int kResultsMajorVersion = 1;

/// GPU part of the environment fingerprint. All fields are null without a GPU.
struct GpuInfo {
  std::optional<std::string> name;                ///< "NVIDIA A100-SXM4-80GB"
  std::optional<std::string> driver_version;      ///< "550.54.15"
  std::optional<std::string> cuda_version;        ///< runtime, "13.0"
  std::optional<std::string> compute_capability;  ///< "8.0"
  std::optional<int> device_index;
  std::optional<int> sm_count;
  std::optional<double> sm_clock_hz;              ///< default (peak) SM clock, CUDA's
  std::optional<double> mem_clock_hz;
  std::optional<int64_t> memory_bytes;
  std::optional<int64_t> l2_bytes;
  std::optional<bool> ecc_enabled;
  std::optional<bool> mig_enabled;
  std::optional<std::string> uuid;
  std::optional<bool> persistence_mode;           ///< NVML persistence mode on
  std::optional<double> power_limit_w;            ///< enforced power limit (NVML), watts
};

/// Environment fingerprint: enough to tell whether two runs are comparable.
struct Environment {
  std::string host;
  std::string os;              ///< "Linux 6.1.0 x86_64"
  std::string cpu_model;
  int cpu_cores = 0;           ///< logical CPUs online
  std::optional<std::string> cpu_governor;
  std::string compiler;        ///< compiler that built gpugate
  GpuInfo gpu;
  /// The runner class the run belongs to (`--env-key`, GPUGATE_ENV_KEY, or
  /// the GitHub-hosted default "<os>-<arch>-<image>"), as a slug; null when
  /// none was named. Runs of one class share a baseline file even when their
  /// CPU models differ (docs/baselines.md "Runner classes").
  std::optional<std::string> runner_class;
};

/// Why `id` cannot be a run id a user gives (`run --run-id`, `baseline
/// update --run-id`), or nothing: a run id is one token of 1 to 128 letters,
/// digits or . _ : + - (the random default is 32 hex digits).
std::optional<std::string> RunIdProblem(std::string_view id);

/// Where and when a run happened.
struct RunInfo {
  std::string tool_version;    ///< gpugate version
  std::string suite;           ///< suite name (file stem unless named)
  std::string time_utc;        ///< ISO-8601, "2026-11-21T23:59:00Z"
  int64_t time_unix_ns = 0;
  std::optional<std::string> git_sha;
  std::optional<std::string> git_branch;
  std::optional<bool> git_dirty;
  std::optional<std::string> shard;    ///< "i/N" when the run is one shard
  std::string run_id;          ///< unique per run; shards of one run share it
  std::string source_format = "gpugate";  ///< gpugate | gbench | nvbench | trace
  Environment env;
  /// Facts an ingested file states about itself that have no field above
  /// (gbench context: mhz_per_cpu, caches, library_build_type, executable;
  /// nvbench meta: version, argv), as text. Empty for gpugate's own runs.
  std::map<std::string, std::string> source_context;
};

enum class WorkloadStatus { kOk, kFailed, kSkipped };

/// Summary statistics over all samples, in the primary metric's unit (seconds
/// for time). Computed by the producer, recomputed by readers that need them;
/// raw samples are the truth.
struct Summary {
  int64_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
  double mad = 0;              ///< median absolute deviation (unscaled)
  double p5 = 0, p95 = 0;
  double cv = 0;               ///< stddev / mean
  double rel_ci_half_width = 0;  ///< 95% CI half-width of the median / median
};

/// Amount of work one sample does, so throughput can be derived.
struct WorkCounts {
  std::optional<int64_t> bytes;   ///< bytes moved per sample
  std::optional<double> flops;    ///< floating point operations per sample
  std::optional<int64_t> items;   ///< elements processed per sample
};

/// SM clock measured around samples (GPU) for cycle-space checks.
struct ClockReading {
  int round = 0;
  double sm_clock_hz = 0;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<std::string> throttle_reasons;
};

/// Where a workload or kernel sits on a device's roofline, added by `run` or
/// `compare` with `--device-profile` (rules/regime.h, docs/kernels.md).
struct RegimeInfo {
  std::string regime;              ///< "overhead-bound" | "memory-bound" | "compute-bound"
  std::optional<double> arithmetic_intensity;  ///< FLOPs per byte; null without both counts
  double roof_fraction = 0;        ///< achieved / attainable (1 = on the roof)
  std::string device;              ///< the profile's device name
};

/// Per-kernel record from CUPTI or a trace. Instances are the calls of one
/// run; they are not independent samples (compare replicates by run).
struct KernelResult {
  std::string name;
  int64_t count = 0;
  double total_s = 0;
  std::vector<double> durations_s;   ///< per instance, may be empty if only totals
  /// Per instance, parallel to durations_s when the producer knows each
  /// launch's configuration: instances with the same key were launched with
  /// the same grid and block (LaunchGroupKey), the same call size of a
  /// kernel called on tensors of several sizes. Empty when unknown.
  std::vector<uint32_t> launch_groups;
  /// registers, shared_mem_bytes, ...; work counts per call, when a producer
  /// knows them, as "bytes" and "flops" (cpu_kernels.h's convention).
  std::map<std::string, double> metrics;
  /// Facts that are text, not numbers: a static kernel's "arch" ("sm_90"),
  /// "mangled_name", "sass_hash" (16 hex digits, exact) and
  /// "occupancy_limiter" (harness/static_runner.h).
  std::map<std::string, std::string> attributes;
  std::optional<RegimeInfo> regime;  ///< with --device-profile and work counts
};

/// A communication (NCCL) kernel: its name holds "nccl" in any case. A
/// collective's grid is one block per channel by design, so the kernel
/// shape rules leave it alone, and its time is communication, not compute.
inline bool IsCommunicationKernel(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i)
    if ((name[i] | 0x20) == 'n' && (name[i + 1] | 0x20) == 'c' && (name[i + 2] | 0x20) == 'c' &&
        (name[i + 3] | 0x20) == 'l')
      return true;
  return false;
}

/// The launch group of an instance: a hash of its grid and block.
inline uint32_t LaunchGroupKey(const int grid[3], const int block[3]) {
  uint32_t h = 2166136261u;  // FNV-1a over the six dimensions
  for (const int* dims : {grid, block})
    for (int i = 0; i < 3; ++i)
      for (int b = 0; b < 4; ++b) {
        h ^= (static_cast<uint32_t>(dims[i]) >> (8 * b)) & 0xffu;
        h *= 16777619u;
      }
  return h;
}

/// Name of the default primary metric: seconds per invocation.
inline constexpr const char* kTimeMetric = "time";

/// One workload's measurement.
struct WorkloadResult {
  std::string name;              ///< expanded name, unique in a run
  std::string kind;              ///< builtin | command | synthetic | gbench | ...
  std::string backend;           ///< cpu | cuda | process | synthetic | ingest
  std::vector<std::pair<std::string, std::string>> params;  ///< in declared order
  std::vector<std::string> tags;
  WorkloadStatus status = WorkloadStatus::kOk;
  std::string reason;            ///< why failed/skipped; stderr tail for commands
  /// What gpugate did or saw while running the workload that a reader should
  /// know, as sentences ("ended 3 processes the workload left behind (pids
  /// 123, 124, 130)"). Kept through `gate` and `ab`, which merge runs.
  std::vector<std::string> notes;

  /// The primary metric that `rounds` and `summary` hold. "time" (seconds,
  /// lower is better) unless a producer measured something else: a custom
  /// benchmark value in its own unit ("value", "ops/sec"), or a count.
  std::string metric = kTimeMetric;
  std::string unit = "s";        ///< unit of the samples; "s" for time
  bool lower_is_better = true;
  /// The metric does not vary between runs of the same code (a count such as
  /// executed instructions): compare judges it on the threshold alone.
  bool deterministic = false;

  /// Raw samples of the primary metric (seconds for time), grouped by round
  /// (the unit of replication).
  std::vector<std::vector<double>> rounds;
  int64_t iterations_per_sample = 1;  ///< inner repetitions folded into one sample
  int warmup = 0;
  Summary summary;

  WorkCounts work;
  std::optional<double> bytes_per_second;  ///< derived from work.bytes / median
  std::optional<double> flops_per_second;  ///< derived from work.flops / median

  std::optional<int64_t> peak_memory_bytes;  ///< max RSS (process) or device peak
  std::optional<double> user_seconds;        ///< mean per sample (process)
  std::optional<double> sys_seconds;         ///< mean per sample (process)

  std::vector<ClockReading> clocks;
  /// GPU: each sample's cycle-space time (seconds per invocation x the SM
  /// clock measured over the sample), grouped like `rounds`; 0 where the
  /// clock was not read. Empty when no sample carried a clock.
  std::vector<std::vector<double>> cycles;
  bool throttled = false;
  std::vector<KernelResult> kernels;
  /// The GPU this workload ran on when it is not the run's (a trace of
  /// several GPUs: each device is a workload, the run's environment names
  /// one of them). The rules read `device.*` from it.
  std::optional<GpuInfo> gpu;
  std::optional<RegimeInfo> regime;          ///< with --device-profile and work counts
  std::map<std::string, double> counters;    ///< free-form numeric counters
  int confirmation_reruns = 0;               ///< set by `gate`
  /// Not measured because the code it runs did not change: the static
  /// workloads it names (skip_unchanged) hold the same SASS as the baseline's.
  /// Set by `gate` on a skipped result; `reason` says which workloads.
  bool code_unchanged = false;
  /// The CPU model this workload ran on when it differs within the run: set
  /// by `merge` on every workload when the shards of one runner class ran on
  /// different CPU models (compare then gives each CPU's workloads their own
  /// speed factor). Null otherwise: the run's environment.cpu_model holds.
  std::optional<std::string> cpu_model;
};

/// A whole run: metadata plus workloads in suite order.
struct Results {
  std::string schema = kResultsSchema;
  /// Read from a file of a newer minor version than this gpugate writes:
  /// fields it does not know were dropped on reading (not written back).
  bool newer_minor = false;
  RunInfo run;
  std::vector<WorkloadResult> workloads;

  const WorkloadResult* Find(const std::string& name) const {
    for (const auto& w : workloads)
      if (w.name == name) return &w;
    return nullptr;
  }
};

/// Whether the primary metric is the default one (time in seconds).
inline bool HasTimeMetric(const WorkloadResult& w) { return w.metric == kTimeMetric; }

/// All samples of a workload, flattened in round order.
inline std::vector<double> AllSamples(const WorkloadResult& w) {
  std::vector<double> out;
  for (const auto& r : w.rounds) out.insert(out.end(), r.begin(), r.end());
  return out;
}

/// Adds `notes` to `into`'s notes, each with `prefix` in front ("round 3: "),
/// leaving out notes `into` already has.
inline void AppendNotes(WorkloadResult& into, const std::vector<std::string>& notes,
                        const std::string& prefix = "") {
  for (const std::string& n : notes) {
    std::string note = prefix + n;
    bool known = false;
    for (const std::string& have : into.notes) known = known || have == note;
    if (!known) into.notes.push_back(std::move(note));
  }
}

const char* ToString(WorkloadStatus s);

}  // namespace gpugate
