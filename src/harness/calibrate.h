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
  int repetitions = 5;            ///< best of this many passes per measurement
};

/// Bytes of each of the three triad arrays: at least 8 x the last-level
/// cache (32 MiB assumed when unknown) and at least 64 MiB, so the triad
/// streams from DRAM.
int64_t TriadArrayBytes(std::optional<int64_t> llc_bytes);

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
/// peak_fp16_flops stays null (not measured on CPUs).
Result<DeviceProfile> CalibrateCpu(const CpuCalibrationOptions& options);

}  // namespace gpugate
