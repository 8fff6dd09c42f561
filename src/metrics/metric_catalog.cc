// The parts of metric planning that need no CUPTI: splitting a metric name
// and suggesting a near name for an unknown one.
#include "metrics/metric_catalog.h"

#include "util/strings.h"

namespace gpugate::detail {

std::string MetricBaseName(const std::string& name) {
  const size_t unit = name.find("__");
  const size_t dot = name.find('.', unit == std::string::npos ? 0 : unit);
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string SuggestMetric(const std::string& name, const std::vector<std::string>& base_names,
                          const std::vector<std::string>& suffixes) {
  const std::string base = MetricBaseName(name);
  const std::string rest = name.substr(base.size());
  for (const std::string& b : base_names) {
    if (b != base) continue;
    // The base is known: the rollup or submetric is wrong (or missing).
    if (rest.empty()) {
      for (const char* preferred : {".sum", ".avg.pct_of_peak_sustained_elapsed", ".avg"})
        for (const std::string& s : suffixes)
          if (s == preferred) return base + s;
      return suffixes.empty() ? "" : base + suffixes.front();
    }
    const std::string s = ClosestMatch(rest, suffixes);
    return s.empty() ? "" : base + s;
  }
  const std::string b = ClosestMatch(base, base_names);
  return b.empty() ? "" : b + rest;
}

}  // namespace gpugate::detail
