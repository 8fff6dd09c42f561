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
// the newest run's CPU, read where CPUs meet: for two CPUs that meet, the
// median over the places where a workload's series passes from one to the
// other of the difference between the two runs there (log scale), then the
// median over the workloads (at least kMinCpuScaleWorkloads). A CPU that
// never meets the newest one is reached through those it meets (A, then B,
// then the newest C: A's speed is A against B times B against C). Only the
// runs beside a change of CPU enter, so a change of the code elsewhere
// stays a step; one at the very run where the CPU changes is read as the
// CPU's.
void ScaleToTheNewestCpu(const Baseline& b, std::vector<WorkloadHistory>* hs, std::vector<CpuSpeed>* out) {
  if (b.runs.empty()) return;
  const std::string& ref = b.runs.back().run.env.cpu_model;
  std::vector<std::string> models = {ref};  // first the newest run's, then first-seen order
  for (const Results& r : b.runs)
    if (std::find(models.begin(), models.end(), r.run.env.cpu_model) == models.end())
      models.push_back(r.run.env.cpu_model);
  if (models.size() < 2) return;
  const size_t m = models.size();
  auto index_of = [&models](const std::string& model) {
    return static_cast<size_t>(std::find(models.begin(), models.end(), model) - models.begin());
  };
  // Per pair of CPUs (i < j) and workload: the differences log(i) - log(j)
  // where its series passes between them.
  std::vector<std::vector<double>> per_workload(m * m);
  for (const WorkloadHistory& h : *hs) {
    std::vector<std::vector<double>> at_changes(m * m);
    for (size_t k = 1; k < h.runs.size(); ++k) {
      size_t x = index_of(b.runs[h.runs[k - 1]].run.env.cpu_model), y = index_of(b.runs[h.runs[k]].run.env.cpu_model);
      if (x == y) continue;
      double d = h.values[k - 1] - h.values[k];  // log(x) - log(y)
      if (x > y) {
        std::swap(x, y);
        d = -d;
      }
      at_changes[x * m + y].push_back(d);
    }
    for (size_t e = 0; e < m * m; ++e)
      if (!at_changes[e].empty()) per_workload[e].push_back(Median(at_changes[e]));
  }
  // From the newest run's CPU outwards over pairs that meet in enough
  // workloads: each CPU's log speed against it, and the workloads of the
  // pair that reached it.
  std::vector<std::optional<double>> shift(m);
  std::vector<size_t> workloads(m, 0);
  shift[0] = 0.0;
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < m; ++j) {
        if (i == j || !shift[i] || shift[j]) continue;
        const std::vector<double>& diffs = per_workload[std::min(i, j) * m + std::max(i, j)];
        workloads[j] = std::max(workloads[j], diffs.size());
        if (diffs.size() < kMinCpuScaleWorkloads) continue;
        const double d = Median(diffs);  // log(min) - log(max)
        shift[j] = *shift[i] + (j < i ? d : -d);
        workloads[j] = diffs.size();
        grew = true;
      }
  }
  for (size_t j = 1; j < m; ++j) {
    if (shift[j]) continue;
    for (size_t i = 0; i < m; ++i)
      if (i != j) workloads[j] = std::max(workloads[j], per_workload[std::min(i, j) * m + std::max(i, j)].size());
  }
  // One CPU that cannot be reached leaves every run as measured: scaling
  // the others would make steps that are neither the raw ones nor none.
  const bool all = std::all_of(shift.begin(), shift.end(), [](const std::optional<double>& x) { return x.has_value(); });
  for (size_t i = 1; i < m; ++i) {
    CpuSpeed speed;
    speed.cpu_model = models[i];
    for (const Results& r : b.runs) speed.runs += r.run.env.cpu_model == models[i];
    speed.workloads = workloads[i];
    speed.scaled = all;
    if (speed.scaled) {
      speed.ratio = std::exp(*shift[i]);
      for (WorkloadHistory& h : *hs)
        for (size_t k = 0; k < h.runs.size(); ++k)
          if (b.runs[h.runs[k]].run.env.cpu_model == models[i]) h.values[k] -= *shift[i];
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
                    "': their values were " + ratio + " times its (where the series pass from one CPU to the other, "
                    "the median over " + workloads + "), as compare removes a CPU's speed");
    } else {
      out.push_back(runs + " on '" + c.cpu_model + "' are left as measured, as are the other CPUs' runs: "
                    "not every CPU of the history meets the newest run's CPU '" + newest_cpu +
                    "', directly or through others, in at least " + std::to_string(kMinCpuScaleWorkloads) +
                    " workloads (this one at most in " + workloads +
                    "), so the CPU's speed cannot be told from the code's, and a step where the CPU changes "
                    "may be the CPU's");
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
