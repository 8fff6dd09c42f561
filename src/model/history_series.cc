#include "model/history_series.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>

#include "config/suite.h"
#include "stats/summary.h"
#include "util/text/format.h"

namespace gpugate {

std::optional<double> RunLevel(const WorkloadResult& w, const std::string& metric) {
  if (w.status != WorkloadStatus::kOk) return std::nullopt;
  if (metric == w.metric) {
    std::vector<double> all = AllSamples(w);
    if (all.empty()) return std::nullopt;
    return Median(all);
  }
  if (metric == "throughput") return w.bytes_per_second ? w.bytes_per_second : w.flops_per_second;
  if (metric == "peak_memory" && w.peak_memory_bytes) return static_cast<double>(*w.peak_memory_bytes);
  return std::nullopt;
}

double WorkloadHistory::Level(size_t i) const { return log_scale ? std::exp(values[i]) : values[i]; }

std::string StepText(const HistoryStep& s) {
  if (std::isfinite(s.ratio) && s.ratio > 0) return FormatRatio(s.ratio);
  if (s.log_ratio != 0 && std::isfinite(s.log_ratio)) {
    // Beyond the doubles: the factor as a power of ten, its mantissa
    // rounded to two decimals first (9.999e+316 is 1.00e+317).
    const double decades = s.log_ratio / std::log(10.0);
    double exponent = std::floor(decades);
    double mantissa = std::round(std::pow(10.0, decades - exponent) * 100.0) / 100.0;
    if (mantissa >= 10.0) {
      mantissa /= 10.0;
      exponent += 1;
    }
    char text[48];
    std::snprintf(text, sizeof text, "×%.2fe%+.0f", mantissa, exponent);
    return text;
  }
  if (s.ratio == 0) return "to 0";
  if (std::isinf(s.ratio)) return "from 0";
  return "n/a";
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
// `models` holds the newest run's CPU first; `cpu_of[h][k]` is the model
// (an index into it) value k of history h ran on: the workload's own
// (a merged run's shards may run on several machines) or its run's.
void ScaleToTheNewestCpu(const std::vector<std::string>& models, const std::vector<std::vector<size_t>>& cpu_of,
                         const std::vector<size_t>& runs_on, std::vector<WorkloadHistory>* hs,
                         std::vector<CpuSpeed>* out) {
  const size_t m = models.size();
  if (m < 2) return;
  // Per pair of CPUs that meet (i < j) and workload: the differences
  // log(i) - log(j) where its series passes between them (levels above 0
  // only: no log holds the others). Kept by pair in maps: the models may
  // be as many as the values (every workload of every run on a CPU of its
  // own), and only the pairs that meet hold anything.
  using Pair = std::pair<size_t, size_t>;
  std::map<Pair, std::vector<double>> per_workload;
  for (size_t hi = 0; hi < hs->size(); ++hi) {
    const WorkloadHistory& h = (*hs)[hi];
    std::map<Pair, std::vector<double>> at_changes;
    for (size_t k = 1; k < h.runs.size(); ++k) {
      size_t x = cpu_of[hi][k - 1], y = cpu_of[hi][k];
      if (x == y || !(h.levels[k - 1] > 0) || !(h.levels[k] > 0)) continue;
      double d = std::log(h.levels[k - 1]) - std::log(h.levels[k]);  // log(x) - log(y)
      if (x > y) {
        std::swap(x, y);
        d = -d;
      }
      at_changes[{x, y}].push_back(d);
    }
    for (auto& [pair, diffs] : at_changes) per_workload[pair].push_back(Median(diffs));
  }
  // From the newest run's CPU outwards (breadth first) over pairs that meet
  // in enough workloads: each CPU's log speed against it, and the workloads
  // of the pair that reached it.
  std::vector<std::vector<std::pair<size_t, const std::vector<double>*>>> meets(m);
  for (const auto& [pair, diffs] : per_workload) {
    meets[pair.first].push_back({pair.second, &diffs});
    meets[pair.second].push_back({pair.first, &diffs});
  }
  std::vector<std::optional<double>> shift(m);
  std::vector<size_t> workloads(m, 0);
  shift[0] = 0.0;
  std::deque<size_t> reached = {0};
  while (!reached.empty()) {
    const size_t i = reached.front();
    reached.pop_front();
    for (const auto& [j, diffs] : meets[i]) {
      if (shift[j] || diffs->size() < kMinCpuScaleWorkloads) continue;
      const double d = Median(*diffs);  // log(min) - log(max)
      shift[j] = *shift[i] + (j < i ? d : -d);
      workloads[j] = diffs->size();
      reached.push_back(j);
    }
  }
  // An unreached CPU: the most workloads it shares with any one CPU.
  for (size_t j = 1; j < m; ++j)
    if (!shift[j])
      for (const auto& [i, diffs] : meets[j]) workloads[j] = std::max(workloads[j], diffs->size());
  // One CPU that cannot be reached leaves every run as measured: scaling
  // the others would make steps that are neither the raw ones nor none.
  const bool all = std::all_of(shift.begin(), shift.end(), [](const std::optional<double>& x) { return x.has_value(); });
  for (size_t i = 1; i < m; ++i) {
    CpuSpeed speed;
    speed.cpu_model = models[i];
    speed.runs = runs_on[i];
    speed.workloads = workloads[i];
    speed.scaled = all;
    if (speed.scaled) speed.ratio = std::exp(*shift[i]);
    if (out) out->push_back(std::move(speed));
  }
  if (!all) return;
  // One pass over the values: each on another CPU divided by its speed.
  for (size_t hi = 0; hi < hs->size(); ++hi) {
    WorkloadHistory& h = (*hs)[hi];
    for (size_t k = 0; k < h.runs.size(); ++k) {
      const size_t cpu = cpu_of[hi][k];
      if (cpu == 0) continue;
      if (h.log_scale) h.values[k] -= *shift[cpu];
      else h.values[k] /= std::exp(*shift[cpu]);
    }
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
  std::vector<std::vector<size_t>> cpu_of;  // per history and value: the CPU model it ran on
  if (b.runs.empty()) return hs;
  std::unordered_map<std::string, size_t> index;
  // The CPU models, the newest run's first; and in how many runs each ran
  // a workload (a merged run's shards may run on several).
  std::vector<std::string> models = {b.runs.back().run.env.cpu_model};
  std::vector<size_t> runs_on = {0};
  std::unordered_map<std::string, size_t> model_index = {{models[0], 0}};
  // A workload's series is in the unit of its newest run: a history written
  // before gpugate refused a change of unit may hold runs in another, whose
  // values would read as a step.
  std::unordered_map<std::string, std::string> unit;
  for (auto run = b.runs.rbegin(); run != b.runs.rend(); ++run)
    for (const auto& w : run->workloads)
      if (w.metric == metric && w.status == WorkloadStatus::kOk) unit.emplace(w.name, UnitKey(w.unit));
  for (size_t r = 0; r < b.runs.size(); ++r) {
    std::vector<bool> seen_model(models.size(), false);
    for (const auto& w : b.runs[r].workloads) {
      auto [it, added] = index.emplace(w.name, hs.size());
      if (added) {
        hs.push_back(WorkloadHistory{w.name, {}, {}, {}, true, {}, false});
        cpu_of.emplace_back();
      }
      WorkloadHistory& h = hs[it->second];
      if (w.metric == metric) {
        auto u = unit.find(w.name);
        if (u != unit.end() && u->second != UnitKey(w.unit)) continue;
      }
      std::optional<double> v = RunLevel(w, metric);
      if (!v || !std::isfinite(*v)) continue;
      const std::string& model = w.cpu_model ? *w.cpu_model : b.runs[r].run.env.cpu_model;
      auto [mi, fresh] = model_index.emplace(model, models.size());
      if (fresh) {
        models.push_back(model);
        runs_on.push_back(0);
      }
      if (seen_model.size() < models.size()) seen_model.resize(models.size(), false);
      if (!seen_model[mi->second]) {
        seen_model[mi->second] = true;
        ++runs_on[mi->second];
      }
      h.runs.push_back(r);
      h.levels.push_back(*v);
      cpu_of[it->second].push_back(mi->second);
    }
  }
  for (WorkloadHistory& h : hs) {
    h.log_scale = std::all_of(h.levels.begin(), h.levels.end(), [](double v) { return v > 0; });
    for (double v : h.levels) h.values.push_back(h.log_scale ? std::log(v) : v);
  }
  // Every workload tells the CPUs' speeds; the globs choose what is shown.
  ScaleToTheNewestCpu(models, cpu_of, runs_on, &hs, cpus);
  if (!globs.empty())
    std::erase_if(hs, [&](const WorkloadHistory& h) {
      return std::none_of(globs.begin(), globs.end(), [&](const std::string& g) { return GlobMatch(g, h.name); });
    });
  for (auto& h : hs) {
    const std::vector<ChangePoint> found = DetectChangePoints(h.values, options);
    h.search_capped = static_cast<int>(found.size()) >= options.max_change_points;
    for (const auto& c : found) {
      HistoryStep s{h.runs[c.index], 1.0, 0.0, c.p_value, c.n_before, c.n_after};
      if (h.log_scale) {
        s.log_ratio = c.median_after - c.median_before;
        s.ratio = std::exp(s.log_ratio);
      } else {
        s.ratio = c.median_before != 0 ? c.median_after / c.median_before
                  : c.median_after > 0 ? std::numeric_limits<double>::infinity()
                                       : 1.0;
        if (c.median_before > 0 && c.median_after > 0) s.log_ratio = std::log(c.median_after) - std::log(c.median_before);
      }
      // A ratio beyond the doubles is as large a step as there is.
      const bool huge = !std::isfinite(s.ratio) || s.ratio == 0;
      if (huge || std::fabs(s.ratio - 1.0) >= min_step) h.steps.push_back(s);
    }
  }
  return hs;
}

}  // namespace gpugate
