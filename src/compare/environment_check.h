// Environment comparison: whether two runs measured on the same kind of
// machine. A baseline from another CPU model (CPU workloads), GPU model,
// driver, CUDA version, compute capability or clock regime is incomparable.
#pragma once

#include <vector>

#include "model/results.h"
#include "model/verdicts.h"

namespace gpugate {

/// Relative tolerance for clock readings (max SM / memory clock).
inline constexpr double kClockTolerance = 0.02;

/// True for runs timed on the CPU (Google Benchmark, pytest-benchmark, CPU
/// and process workloads): their CPU model matters.
bool IsCpuTimed(const Results& r);

/// Fields that differ between the baseline and the current run. Runs that
/// name different runner classes differ in runner_class (a run naming none
/// is not a difference: files from other tools carry no class). Within one
/// runner class the CPU model is not a difference (compare removes each
/// run's speed factor and reports the CPUs involved). Otherwise the CPU
/// model counts when either run has CPU-timed workloads (backend cpu or
/// process, or Google Benchmark input); GPU fields count when either run has
/// GPU workloads (backend cuda, or nvbench input) or reports a GPU. A field
/// unknown on one side (empty / null) is not a difference, except the GPU
/// model itself (a run with a GPU against one without).
std::vector<EnvDifference> CompareEnvironments(const Results& baseline, const Results& current);

/// Both runs' environments field by field ("gpu.name", "cpu_model", ...),
/// each value as the run stated it (text, number, flag; unknown where a run
/// does not know it); fields neither run knows are left out, and so are host
/// names.
std::vector<EnvField> DescribeEnvironments(const Results& baseline, const Results& current);

}  // namespace gpugate
