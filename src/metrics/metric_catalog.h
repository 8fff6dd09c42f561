// Hardware-counter metric planning without a GPU: which chips and metrics
// the CUPTI Profiler Host API knows, whether a metric name can be collected
// on a chip, and how many replay passes a set of metrics needs there. The
// host API works from a chip name alone, so all of this runs on CPU-only
// machines (docs/gpu-metrics.md). Implemented with CUPTI in
// metric_catalog_cupti.cc; in a build without CUDA every entry point says so.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace gpugate {

/// Why metric planning is not available in this build (built without CUDA),
/// or nullopt when it is.
std::optional<std::string> MetricPlanningUnavailableReason();

/// Chips the CUPTI Profiler Host API supports ("GA100", "GH100", ...), in
/// CUPTI's order. Errors: unavailable build (exit 2), CUPTI failure (exit 3).
Result<std::vector<std::string>> SupportedMetricChips();

/// A base metric (no rollup or submetric): "dram__bytes_read".
struct BaseMetric {
  std::string name;
  std::string type;  ///< "counter" | "ratio" | "throughput"
};

/// The replay passes a set of metrics needs on one chip.
struct MetricPlan {
  std::string chip;
  std::vector<std::string> metrics;  ///< as given, duplicates removed, order kept
  size_t passes = 0;                 ///< replay passes of the range profiler
  size_t config_image_bytes = 0;     ///< size of the configuration image
};

/// The metrics of one chip. Open() fails for a chip CUPTI does not support
/// (exit 2, naming the supported chips' nearest match).
class MetricCatalog {
 public:
  static Result<std::unique_ptr<MetricCatalog>> Open(const std::string& chip);
  virtual ~MetricCatalog() = default;

  virtual const std::string& chip() const = 0;

  /// The chip's base metrics, sorted by name.
  virtual Result<std::vector<BaseMetric>> BaseMetrics() = 0;

  /// Ok when `name` (a full metric name with its rollup, like
  /// "dram__bytes_read.sum") can be collected on this chip. An unknown name
  /// is an input error (exit 2) that names the metric and the chip and
  /// suggests a near name when one is close; a CUPTI failure is exit 3.
  virtual Status Check(const std::string& name) = 0;

  /// Checks every name, then counts the replay passes the set needs
  /// (configuration image and pass count of the host API).
  virtual Result<MetricPlan> Plan(const std::vector<std::string>& names) = 0;
};

namespace detail {

/// The base part of a full metric name: "dram__bytes_read" of
/// "dram__bytes_read.sum.per_second" (the text before the first '.' after
/// the unit prefix "xxx__"); the whole name when it has no '.'.
std::string MetricBaseName(const std::string& name);

/// A near name for an unknown metric, or "": a base metric close to the
/// base of `name` with the rest of `name` appended, or, when the base is
/// known, one of its `suffixes` (".sum", ".avg.pct_of_peak_sustained_elapsed")
/// close to the rest.
std::string SuggestMetric(const std::string& name, const std::vector<std::string>& base_names,
                          const std::vector<std::string>& suffixes);

}  // namespace detail

}  // namespace gpugate
