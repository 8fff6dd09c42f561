#include "model/history_series.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "config/suite.h"
#include "stats/summary.h"

namespace gpugate {

std::optional<double> RunLevelLog(const WorkloadResult& w, const std::string& metric) {
  if (w.status != WorkloadStatus::kOk) return std::nullopt;
  if (metric == w.metric) {
    std::vector<double> all = AllSamples(w);
    if (all.empty()) return std::nullopt;
    double m = Median(all);
    return m > 0 ? std::optional<double>(std::log(m)) : std::nullopt;
  }
  if (metric == "throughput") {
    std::optional<double> t = w.bytes_per_second ? w.bytes_per_second : w.flops_per_second;
    return t && *t > 0 ? std::optional<double>(std::log(*t)) : std::nullopt;
  }
  if (metric == "peak_memory") {
    return w.peak_memory_bytes && *w.peak_memory_bytes > 0
               ? std::optional<double>(std::log(static_cast<double>(*w.peak_memory_bytes)))
               : std::nullopt;
  }
  return std::nullopt;
}

std::string RunLabel(const RunInfo& r) {
  std::string label = r.time_utc.size() >= 16 ? r.time_utc.substr(0, 10) + " " + r.time_utc.substr(11, 5) : r.time_utc;
  if (r.git_sha) label += (label.empty() ? "" : " ") + r.git_sha->substr(0, 7);
  return label.empty() ? r.run_id : label;
}

bool HistoryHasMetric(const Baseline& b, const std::string& metric) {
  bool known = metric == "time" || metric == "throughput" || metric == "peak_memory";
  for (const Results& run : b.runs)
    for (const WorkloadResult& w : run.workloads) known = known || w.metric == metric;
  return known;
}

std::vector<WorkloadHistory> BuildHistories(const Baseline& b, const std::string& metric,
                                            const std::vector<std::string>& globs,
                                            const ChangePointOptions& options, double min_step) {
  std::vector<WorkloadHistory> hs;
  std::unordered_map<std::string, size_t> index;
  // A workload's series is in the unit of its newest run: a history written
  // before gpugate refused a change of unit may hold runs in another, whose
  // values would read as a step.
  std::unordered_map<std::string, std::string> unit;
  for (auto run = b.runs.rbegin(); run != b.runs.rend(); ++run)
    for (const auto& w : run->workloads)
      if (w.metric == metric && w.status == WorkloadStatus::kOk) unit.emplace(w.name, UnitKey(w.unit));
  for (size_t r = 0; r < b.runs.size(); ++r) {
    for (const auto& w : b.runs[r].workloads) {
      if (!globs.empty() &&
          std::none_of(globs.begin(), globs.end(), [&](const std::string& g) { return GlobMatch(g, w.name); }))
        continue;
      auto [it, added] = index.emplace(w.name, hs.size());
      if (added) hs.push_back(WorkloadHistory{w.name, {}, {}, {}});
      WorkloadHistory& h = hs[it->second];
      if (w.metric == metric) {
        auto u = unit.find(w.name);
        if (u != unit.end() && u->second != UnitKey(w.unit)) continue;
      }
      if (auto v = RunLevelLog(w, metric)) {
        h.runs.push_back(r);
        h.values.push_back(*v);
      }
    }
  }
  for (auto& h : hs) {
    for (const auto& c : DetectChangePoints(h.values, options)) {
      HistoryStep s{h.runs[c.index], std::exp(c.median_after - c.median_before), c.p_value, c.n_before, c.n_after};
      if (std::fabs(s.ratio - 1.0) >= min_step) h.steps.push_back(s);
    }
  }
  return hs;
}

}  // namespace gpugate
