// Checking a suite's metrics against their chips (PlanSuiteMetrics) and the
// note that says they were not collected.
#include "metrics/suite_metrics.h"

#include <map>
#include <memory>
#include <utility>

namespace gpugate {

namespace {

Error At(const SourceLocation& where, const Error& e) {
  return Error{where.ToString() + ": " + e.message, e.code};
}

std::vector<std::string> Names(const WorkloadSpec& spec) {
  std::vector<std::string> names;
  for (const MetricRequest& m : spec.metrics) names.push_back(m.name);
  return names;
}

class SuitePlanner {
 public:
  Result<MetricPlan> Plan(const WorkloadSpec& spec) {
    const auto key = std::make_pair(spec.chip, Names(spec));
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    if (std::optional<std::string> reason = MetricPlanningUnavailableReason())
      return At(spec.metrics.front().location, InputError("'metrics' cannot be checked: " + *reason));
    Result<MetricCatalog*> catalog = Catalog(spec);
    if (!catalog.ok()) return catalog.error();
    for (const MetricRequest& m : spec.metrics)
      if (Status st = (*catalog)->Check(m.name); !st.ok()) return At(m.location, st.error());
    Result<MetricPlan> plan = (*catalog)->Plan(key.second);
    if (!plan.ok()) return At(spec.metrics.front().location, plan.error());
    plans_.emplace(key, *plan);
    return plan;
  }

 private:
  Result<MetricCatalog*> Catalog(const WorkloadSpec& spec) {
    if (auto it = catalogs_.find(spec.chip); it != catalogs_.end()) return it->second.get();
    Result<std::unique_ptr<MetricCatalog>> opened = MetricCatalog::Open(spec.chip);
    if (!opened.ok()) return At(spec.chip_location, opened.error());
    MetricCatalog* raw = opened->get();
    catalogs_.emplace(spec.chip, std::move(*opened));
    return raw;
  }

  std::map<std::string, std::unique_ptr<MetricCatalog>> catalogs_;
  std::map<std::pair<std::string, std::vector<std::string>>, MetricPlan> plans_;
};

}  // namespace

Result<std::vector<WorkloadMetricPlan>> PlanSuiteMetrics(const std::vector<WorkloadSpec>& workloads) {
  SuitePlanner planner;
  std::vector<WorkloadMetricPlan> out;
  for (const WorkloadSpec& w : workloads) {
    if (w.metrics.empty()) continue;
    Result<MetricPlan> plan = planner.Plan(w);
    if (!plan.ok()) return plan.error();
    out.push_back(WorkloadMetricPlan{w.name, std::move(*plan)});
  }
  return out;
}

std::string MetricsNotCollectedNote(const WorkloadSpec& spec) {
  if (spec.metrics.empty()) return "";
  std::string list;
  for (const MetricRequest& m : spec.metrics) list += (list.empty() ? "" : ", ") + m.name;
  return "metrics not collected (" + list + " on " + spec.chip +
         "): gpugate collects hardware-counter metrics only for builtin kernels run on a CUDA device; "
         "the result holds timings only (docs/gpu-metrics.md)";
}

void NoteMetricsNotCollected(const WorkloadSpec& spec, std::vector<WorkloadResult>* results) {
  const std::string note = MetricsNotCollectedNote(spec);
  if (note.empty()) return;
  for (WorkloadResult& r : *results)
    if (!r.counters.count("metric_ranges")) AppendNotes(r, {note});  // the backend tried: its note says how
}

}  // namespace gpugate
