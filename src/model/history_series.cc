#include "model/history_series.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

namespace {

// Runs of one runner class may run on several CPU models, each at its own
// speed: a series that crosses from one to another would step at the
// change of machine. Each other CPU's runs are divided by its speed against
// the newest run's CPU (the median over the workloads measured on both of
// the difference of their log medians), estimated from all of its runs at
// once, so a change of the code within one CPU's runs stays a step.
void ScaleToTheNewestCpu(const Baseline& b, std::vector<WorkloadHistory>* hs, std::vector<CpuSpeed>* out) {
  if (b.runs.empty()) return;
  const std::string& ref = b.runs.back().run.env.cpu_model;
  std::vector<std::string> models;  // other CPU models, first-seen order
  for (const Results& r : b.runs)
    if (r.run.env.cpu_model != ref &&
        std::find(models.begin(), models.end(), r.run.env.cpu_model) == models.end())
      models.push_back(r.run.env.cpu_model);
  for (const std::string& model : models) {
    CpuSpeed speed;
    speed.cpu_model = model;
    for (const Results& r : b.runs) speed.runs += r.run.env.cpu_model == model;
    std::vector<double> diffs;
    for (const WorkloadHistory& h : *hs) {
      std::vector<double> on_ref, on_model;
      for (size_t i = 0; i < h.runs.size(); ++i) {
        const std::string& m = b.runs[h.runs[i]].run.env.cpu_model;
        if (m == ref) on_ref.push_back(h.values[i]);
        else if (m == model) on_model.push_back(h.values[i]);
      }
      if (!on_ref.empty() && !on_model.empty()) diffs.push_back(Median(on_model) - Median(on_ref));
    }
    speed.workloads = diffs.size();
    if (!diffs.empty()) speed.ratio = std::exp(Median(diffs));
    speed.scaled = diffs.size() >= kMinCpuScaleWorkloads;
    if (speed.scaled) {
      const double shift = std::log(speed.ratio);
      for (WorkloadHistory& h : *hs)
        for (size_t i = 0; i < h.runs.size(); ++i)
          if (b.runs[h.runs[i]].run.env.cpu_model == model) h.values[i] -= shift;
    }
    if (out) out->push_back(std::move(speed));
  }
}

}  // namespace

std::vector<std::string> CpuSpeedLines(const std::vector<CpuSpeed>& cpus, const std::string& newest_cpu) {
  std::vector<std::string> out;
  for (const CpuSpeed& c : cpus) {
    const std::string runs = std::to_string(c.runs) + (c.runs == 1 ? " run" : " runs");
    const std::string workloads = std::to_string(c.workloads) + (c.workloads == 1 ? " workload" : " workloads");
    if (c.scaled) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.3g", c.ratio);
      out.push_back(runs + " on '" + c.cpu_model + "' are read on the scale of the newest run's CPU '" + newest_cpu +
                    "': their values were " + ratio + " times its (the median over " + workloads +
                    " measured on both), as compare removes a CPU's speed");
    } else {
      out.push_back(runs + " on '" + c.cpu_model + "' are left as measured: " + workloads +
                    " measured on both it and the newest run's CPU '" + newest_cpu + "' (at least " +
                    std::to_string(kMinCpuScaleWorkloads) +
                    " needed) cannot tell the CPU's speed from the code's, so a step where the CPU changes may "
                    "be the CPU's");
    }
  }
  return out;
}

std::vector<WorkloadHistory> BuildHistories(const Baseline& b, const std::string& metric,
                                            const std::vector<std::string>& globs,
                                            const ChangePointOptions& options, double min_step,
                                            std::vector<CpuSpeed>* cpus) {
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
  ScaleToTheNewestCpu(b, &hs, cpus);
  for (auto& h : hs) {
    for (const auto& c : DetectChangePoints(h.values, options)) {
      HistoryStep s{h.runs[c.index], std::exp(c.median_after - c.median_before), c.p_value, c.n_before, c.n_after};
      if (std::fabs(s.ratio - 1.0) >= min_step) h.steps.push_back(s);
    }
  }
  return hs;
}

}  // namespace gpugate
