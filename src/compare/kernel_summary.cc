// One summary per kernel per run (see kernel_summary.h).
#include "compare/kernel_summary.h"

#include <cmath>
#include <vector>

#include "stats/summary.h"

namespace gpugate {

KernelStatistic ChooseKernelStatistic(std::span<const KernelResult* const> kernels) {
  for (const KernelResult* k : kernels)
    if (k->durations_s.empty()) return KernelStatistic::kMeanPerCall;
  return KernelStatistic::kMedianPerCall;
}

std::optional<KernelRunSummary> SummarizeKernelRun(const KernelResult& k, KernelStatistic statistic) {
  std::vector<double> durations;
  for (double d : k.durations_s)
    if (std::isfinite(d) && d > 0) durations.push_back(d);
  KernelRunSummary s;
  if (statistic == KernelStatistic::kMedianPerCall) {
    if (durations.empty()) return std::nullopt;
    s.instances = static_cast<int64_t>(durations.size());
    s.value = MedianInPlace(durations);
  } else {
    const int64_t count = k.count > 0 ? k.count : static_cast<int64_t>(k.durations_s.size());
    double total = k.total_s;
    if (!(total > 0))
      for (double d : durations) total += d;
    if (count <= 0 || !(total > 0) || !std::isfinite(total)) return std::nullopt;
    s.value = total / static_cast<double>(count);
    s.instances = count;
  }
  return s;
}

}  // namespace gpugate
