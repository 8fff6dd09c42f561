// Roofline regimes: where a workload or kernel with work counts sits under a
// device's roofs (Williams, Waterman & Patterson 2009, "Roofline: an
// insightful visual performance model", CACM 52(4)). Pure functions; the
// thresholds are documented in docs/kernels.md "Regimes".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/device_profile.h"
#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

enum class Regime { kOverheadBound, kMemoryBound, kComputeBound };

/// "overhead-bound", "memory-bound", "compute-bound".
const char* ToString(Regime r);

/// A duration at most this many launch overheads is overhead-bound: below
/// it the fixed cost of starting the work (a kernel launch ~2-5 us, the
/// roofs' ramp-up) is a large share of the time, so neither roof explains it.
inline constexpr double kOverheadLaunches = 4.0;

/// Work of one call and how long it took.
struct Work {
  double duration_s = 0;          ///< per call, > 0
  std::optional<double> bytes;    ///< bytes moved per call
  std::optional<double> flops;    ///< floating-point operations per call
  bool fp16 = false;              ///< the FLOPs are FP16 (the FP16 roof applies)
};

struct Placement {
  Regime regime = Regime::kMemoryBound;
  double duration_s = 0;          ///< the duration placed (per call)
  std::optional<double> arithmetic_intensity;  ///< flops / bytes; null without both
  double ridge = 0;               ///< peak FLOP/s / peak B/s of the roof used
  /// achieved / attainable = max(flops / peak FLOP/s, bytes / peak B/s) /
  /// duration: for flops > 0 exactly achieved FLOP/s / min(peak FLOP/s, AI x
  /// peak B/s). Above 1 when the work beats the calibrated roof (caches).
  double roof_fraction = 0;
};

/// Places `work` under `profile`'s roofs; nullopt without a positive
/// duration or without any work count (no bytes and no flops, or both 0).
/// Regime: overhead-bound when duration <= kOverheadLaunches x launch
/// overhead; else memory-bound when AI < ridge (no FLOPs: AI 0), else
/// compute-bound (no bytes: AI infinite).
std::optional<Placement> Place(const DeviceProfile& profile, const Work& work);

/// A workload's work per invocation (work.bytes / work.flops) against its
/// median time; nullopt without work counts or samples.
std::optional<Placement> PlaceWorkload(const DeviceProfile& profile, const WorkloadResult& w);

/// A kernel's work per call (metrics "bytes" and "flops", and "fp16" = 1
/// when its FLOPs are half precision) against its mean time per call
/// (total_s / count); nullopt without work counts.
std::optional<Placement> PlaceKernel(const DeviceProfile& profile, const KernelResult& k);

/// Sets `regime` on every workload and kernel of `results` that can be
/// placed (results JSON: the optional "regime" objects).
void AddRegimes(const DeviceProfile& profile, Results* results);

/// The warning when `profile` describes another kind of device than a
/// workload of `results` ran on (a CPU profile for `cuda`, trace or nvbench
/// results, a GPU one for `cpu` results): its regime is placed under the
/// wrong roofs. Nothing when every workload that says where it ran matches.
std::optional<std::string> ProfileKindMismatch(const DeviceProfile& profile, const Results& results);

/// The roofline rows of `current` for a report: every placeable workload
/// and kernel, in suite order; also names the profile in `verdicts`.
void AddRoofline(const DeviceProfile& profile, const Results& current, Verdicts* verdicts);

}  // namespace gpugate
