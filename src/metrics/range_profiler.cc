// The plain part of metric collection: ranges into per-kernel results.
#include "metrics/range_profiler.h"

#include <cctype>

namespace gpugate::detail {

std::map<std::string, double> MetricCounters(const std::vector<MetricRange>& ranges) {
  // Sum and count per kernel and metric, then the mean over its launches.
  std::map<std::string, std::map<std::string, std::pair<double, int>>> sums;
  for (const MetricRange& r : ranges)
    for (const auto& [metric, value] : r.values) {
      auto& [sum, n] = sums[r.name][metric];
      sum += value;
      ++n;
    }
  std::map<std::string, double> out;
  const bool one_kernel = sums.size() == 1;
  for (const auto& [kernel, metrics] : sums)
    for (const auto& [metric, sum_n] : metrics)
      out["metric:" + metric + (one_kernel ? "" : "@" + kernel)] = sum_n.first / sum_n.second;
  return out;
}

std::string ChipMismatch(const std::string& planned_chip, const std::string& device_chip) {
  auto upper = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  if (planned_chip.empty() || upper(planned_chip) == upper(device_chip)) return "";
  return "the suite plans its metrics for chip " + planned_chip + " but the device is " + device_chip +
         " (set chip: " + device_chip + " and check the names with 'gpugate metrics --chip " + device_chip +
         "')";
}

}  // namespace gpugate::detail
