// Metric planning in a build without CUDA: every entry point says that the
// CUPTI Profiler Host API is not part of this build.
#ifndef GPUGATE_HAVE_CUDA

#include "metrics/metric_catalog.h"

namespace gpugate {

namespace {
constexpr const char* kNoCupti =
    "metric planning is not available: gpugate was built without CUDA (CUPTI); rebuild with "
    "-DGPUGATE_WITH_CUDA=ON";
}  // namespace

std::optional<std::string> MetricPlanningUnavailableReason() { return std::string(kNoCupti); }

Result<std::vector<std::string>> SupportedMetricChips() { return InputError(kNoCupti); }

Result<std::unique_ptr<MetricCatalog>> MetricCatalog::Open(const std::string& /*chip*/) {
  return InputError(kNoCupti);
}

}  // namespace gpugate

#endif  // GPUGATE_HAVE_CUDA
