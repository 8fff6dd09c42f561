// `gpugate calibrate`: measures what a device achieves (triad bandwidth, FMA
// FLOP/s, launch overhead) into a DeviceProfile (model/device_profile.h).
// GPU: calibrate.cu in harness/backends (CUDA events; built only with CUDA,
// calibrate_unavailable.cc otherwise). CPU: calibrate_cpu.cc (std::thread on
// every core). Measures only; rules/regime.h uses the numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/device_profile.h"
#include "util/result.h"

namespace gpugate {

/// Measures CUDA device `device`: triad bandwidth over a buffer many times
/// L2, FP32 (fmaf) and FP16 (__hfma2) FMA chains, and the launch overhead of
/// an empty kernel, each timed with CUDA events (best of several launches).
/// A ToolError naming the reason when no device can be used or gpugate was
/// built without CUDA. Not verified on hardware (docs/kernels.md).
Result<DeviceProfile> CalibrateGpu(int device);

/// nullopt when CalibrateGpu() can run here, else why not.
std::optional<std::string> GpuCalibrationUnavailable();

struct CpuCalibrationOptions {
  int threads = 0;                ///< 0 = every online CPU
  std::optional<int64_t> llc_bytes;  ///< last-level cache; read from sysfs when unset
  std::optional<int64_t> available_bytes;  ///< memory available; ReadAvailableMemoryBytes() when unset
  int repetitions = 5;            ///< best of this many passes per measurement
};

/// The most --threads may ask for: 4 x the online CPUs (hardware
/// concurrency, 1 when unknown).
int MaxCalibrationThreads();

/// Bytes of each of the three triad arrays before any cap: at least 8 x the
/// last-level cache (32 MiB assumed when unknown) and at least 64 MiB, so the
/// triad streams from DRAM.
int64_t TriadArrayBytes(std::optional<int64_t> llc_bytes);

/// The fixed upper bound on each triad array (3 GiB in all).
inline constexpr int64_t kMaxTriadArrayBytes = int64_t{1} << 30;

/// Each triad array's size and, when it was capped, why ("capped at a
/// quarter of the 6000 MiB of available memory"); empty when not capped.
struct TriadArrays {
  int64_t bytes = 0;
  std::string capped_by;
};

/// TriadArrayBytes capped at kMaxTriadArrayBytes and so that the three
/// arrays take at most a quarter of `available_bytes` (as the GPU path caps
/// at a quarter of free device memory), never below 1 MiB each.
TriadArrays PlanTriadArrays(std::optional<int64_t> llc_bytes, std::optional<int64_t> available_bytes);

/// The MemAvailable line of /proc/meminfo, in bytes; nullopt without one.
std::optional<int64_t> MemAvailableFromMeminfo(std::string_view meminfo);

/// What a memory cgroup still lets its processes use: limit - usage (at
/// least 0), from the texts of memory.max and memory.current (v2) or
/// memory.limit_in_bytes and memory.usage_in_bytes (v1). nullopt for no
/// limit ("max", or v1's near-2^63 "unlimited") or text that is not a count.
/// `reclaimable` (inactive file pages, ReclaimableFromMemoryStat) is taken
/// off the usage: the page cache of a checkout and a build counts in it, and
/// the kernel gives it back on demand, as MemAvailable counts it.
std::optional<int64_t> CgroupHeadroom(std::string_view limit_text, std::string_view usage_text,
                                      int64_t reclaimable = 0);

/// Inactive file pages of a cgroup's memory.stat: `inactive_file` (v2) or
/// `total_inactive_file` (v1), in bytes; 0 without either.
int64_t ReclaimableFromMemoryStat(std::string_view memory_stat);

/// The unified (v2) cgroup path of /proc/self/cgroup's "0::PATH" line;
/// nullopt without one.
std::optional<std::string> CgroupV2Path(std::string_view proc_self_cgroup);

/// Memory this process can use: MemAvailable from /proc/meminfo, lowered
/// to the headroom of its memory cgroup (a container's limit, at each level
/// of a v2 hierarchy up to the root) and to the address-space limit
/// (ulimit -v); nullopt when none is known.
std::optional<int64_t> ReadAvailableMemoryBytes();

/// a[i] = b[i] + s * c[i] for i in [begin, end) (STREAM's triad: 24 bytes
/// and 2 FLOPs per double element).
void TriadRange(double* a, const double* b, const double* c, double s, size_t begin, size_t end);

/// FMA chains for the FLOP/s measurement: `iterations` times, each of the
/// kFmaLanes independent accumulators x = x * m + a (2 FLOPs each); returns
/// their sum so the work cannot be dropped. Uses AVX2/FMA when the CPU has
/// them (runtime dispatch), else portable code.
float FmaChains(int64_t iterations, float m, float a);

/// Independent accumulators in FmaChains (enough to hide FMA latency).
inline constexpr int kFmaLanes = 64;

/// Largest last-level cache of cpu0 from /sys (bytes), if the kernel says.
std::optional<int64_t> ReadLastLevelCacheBytes();

/// Measures this machine's CPU for the CPU backend: triad bandwidth with
/// every thread streaming its slice, FP32 FMA FLOP/s on every core, and the
/// cost of one timed empty call (the CPU backend's "launch"). kind "cpu";
/// peak_fp16_flops stays null (not measured on CPUs); the method says when
/// the triad arrays were capped (PlanTriadArrays). A thread that cannot be
/// started is a ToolError (the started ones are joined first).
Result<DeviceProfile> CalibrateCpu(const CpuCalibrationOptions& options);

}  // namespace gpugate
