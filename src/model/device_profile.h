// The device profile (`gpugate/device-profile/v1`): what `gpugate calibrate`
// measured a device to achieve (peak DRAM bandwidth, FP32 and FP16 FLOP/s,
// launch overhead), the roofs that rules/regime.h places workloads and
// kernels under. A CPU profile (kind "cpu") describes the CPU backend.
// Fields: docs/kernels.md "Device profile".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace gpugate {

inline constexpr const char* kDeviceProfileSchema = "gpugate/device-profile/v1";

struct DeviceProfile {
  std::string device_name;            ///< "NVIDIA A100-SXM4-80GB", or the CPU model
  std::string kind = "gpu";           ///< "gpu" | "cpu"
  double peak_bytes_per_second = 0;   ///< achievable DRAM bandwidth (triad), > 0
  double peak_fp32_flops = 0;         ///< achievable FP32 FLOP/s (FMA = 2), > 0
  std::optional<double> peak_fp16_flops;  ///< null where not measured (CPU profiles)
  double launch_overhead_s = 0;       ///< cost of one launch (GPU) or one timed call (CPU), >= 0
  std::string method;                 ///< how it was measured, one sentence
  std::string measured_utc;           ///< ISO-8601
  std::string tool_version;

  /// Ridge point: peak FP32 FLOP/s / peak bytes/s (FLOPs per byte).
  double Ridge() const { return peak_fp32_flops / peak_bytes_per_second; }
};

/// Pretty JSON with the schema first; ends with a newline.
std::string DeviceProfileToJson(const DeviceProfile& profile);

/// Parses and checks a profile: the schema (major version 1), required
/// fields, positive finite peaks; unknown keys are errors. Errors carry
/// "name:line:col" (exit 2).
Result<DeviceProfile> DeviceProfileFromJson(std::string_view text, const std::string& name);

/// Reads `path` (errors name it) and parses it.
Result<DeviceProfile> ReadDeviceProfileFile(const std::string& path);

}  // namespace gpugate
