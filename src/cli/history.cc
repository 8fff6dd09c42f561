// `gpugate history BASELINE`: step changes over the runs stored in a baseline
// history, per workload, by E-divisive means on the run-level values
// (stats/change_point.h): "step +6.2% at run 14 (sha abc1234, 2026-11-20)".
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cli/command.h"
#include "config/suite.h"
#include "model/baseline.h"
#include "model/history_series.h"
#include "stats/change_point.h"
#include "stats/summary.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/text/escape.h"
#include "util/text/format.h"
#include "util/json_writer.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

using Step = HistoryStep;

/// Untrusted text on a terminal, through the text layer.
std::string Printable(std::string_view s) { return EscapeTerminal(s); }

/// "step +6.2% at run 14 (sha abc1234, 2026-11-20)". The sha and the time
/// come from a results file: cut at a code point, then escaped.
std::string Describe(const Step& s, const Baseline& b) {
  const RunInfo& r = b.runs[s.run].run;
  std::string where = "sha " + (r.git_sha ? Printable(CutAtCodePoint(*r.git_sha, 7)) : std::string("unknown"));
  if (!r.time_utc.empty()) where += ", " + Printable(CutAtCodePoint(r.time_utc, 10));
  char p[32];
  std::snprintf(p, sizeof p, "%.3g", s.p_value);
  return "step " + StepText(s) + " at run " + std::to_string(s.run + 1) + " (" + where + "); " +
         std::to_string(s.n_before) + " runs before, " + std::to_string(s.n_after) + " after, p = " + p;
}

std::string HistoryJson(const std::string& path, const std::string& metric, const Baseline& b,
                        const std::vector<WorkloadHistory>& hs, const ChangePointOptions& o,
                        const std::vector<CpuSpeed>& cpus) {
  JsonStringBuffer sb;
  rapidjson::PrettyWriter<JsonStringBuffer> w(sb);
  w.StartObject();
  w.Key("schema");
  w.String("gpugate/history/v1");
  w.Key("baseline");
  WriteJsonString(w, path);
  w.Key("suite");
  WriteJsonString(w, b.suite);
  w.Key("metric");
  WriteJsonString(w, metric);
  w.Key("runs");
  w.Int64(static_cast<int64_t>(b.runs.size()));
  w.Key("method");
  w.String("e-divisive-means");
  w.Key("alpha");
  WriteJsonDouble(w, o.alpha);
  w.Key("permutations");
  w.Int(o.permutations);
  // The fewest values in which a step can reach alpha (null: none can).
  w.Key("min_runs_for_a_step");
  if (const int n = MinValuesForAStep(o)) w.Int(std::max(n, 2 * o.min_segment)); else w.Null();
  w.Key("seed");
  w.Uint64(o.seed);
  // Runs on other CPU models than the newest run's, and whether their
  // values were put on its scale.
  w.Key("cpu_speeds");
  w.StartArray();
  for (const CpuSpeed& c : cpus) {
    w.StartObject();
    w.Key("cpu_model");
    WriteJsonString(w, c.cpu_model);
    w.Key("runs");
    w.Int64(static_cast<int64_t>(c.runs));
    w.Key("workloads");
    w.Int64(static_cast<int64_t>(c.workloads));
    w.Key("ratio");
    WriteJsonDouble(w, c.ratio);
    w.Key("scaled");
    w.Bool(c.scaled);
    w.EndObject();
  }
  w.EndArray();
  w.Key("workloads");
  w.StartArray();
  for (const auto& h : hs) {
    w.StartObject();
    w.Key("name");
    WriteJsonString(w, h.name);
    // Each run's level as stored; the steps are found in them put on the
    // newest run's CPU's scale (cpu_speeds), on a log scale unless one is 0.
    w.Key("values");
    w.StartArray();
    for (double v : h.levels) WriteJsonDouble(w, v);
    w.EndArray();
    w.Key("log_scale");
    w.Bool(h.log_scale);
    // The search found max_change_points steps, as many as it takes: more may be missing.
    w.Key("search_capped");
    w.Bool(h.search_capped);
    // The run of each value (from 1, oldest): a workload missing from some
    // runs has fewer values than the history has runs.
    w.Key("value_runs");
    w.StartArray();
    for (size_t i = 0; i < h.levels.size() && i < h.runs.size(); ++i) w.Int64(static_cast<int64_t>(h.runs[i]) + 1);
    w.EndArray();
    w.Key("change_points");
    w.StartArray();
    for (const auto& s : h.steps) {
      const RunInfo& r = b.runs[s.run].run;
      w.StartObject();
      w.Key("run");
      w.Int64(static_cast<int64_t>(s.run + 1));
      w.Key("run_id");
      WriteJsonString(w, r.run_id);
      w.Key("git_sha");
      if (r.git_sha) WriteJsonString(w, *r.git_sha); else w.Null();
      w.Key("time_utc");
      WriteJsonString(w, r.time_utc);
      // null where the ratio leaves the doubles (from 0, or beyond 1e308):
      // "change" says it as the text does.
      w.Key("ratio");
      WriteJsonDouble(w, s.ratio);
      w.Key("change");
      WriteJsonString(w, StepText(s));
      w.Key("p_value");
      WriteJsonDouble(w, s.p_value);
      w.Key("runs_before");
      w.Int64(static_cast<int64_t>(s.n_before));
      w.Key("runs_after");
      w.Int64(static_cast<int64_t>(s.n_after));
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize()) + "\n";
}

/// A --filter that matches no workload of the history is said on stderr (a
/// typo in CI would otherwise check nothing), and so is a selection that
/// left nothing to analyse.
void WarnAboutUnmatchedFilters(const std::vector<std::string>& filters, const Baseline& b, const std::string& path,
                               bool nothing_selected) {
  if (filters.empty()) return;
  std::set<std::string> names;
  for (const Results& run : b.runs)
    for (const WorkloadResult& w : run.workloads) names.insert(w.name);
  for (const std::string& f : filters)
    if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return GlobMatch(f, n); }))
      ReportWarning("--filter " + QuoteInput(f) + " matches no workload of " + path +
                    (nothing_selected && filters.size() == 1 ? "; nothing was analysed" : ""));
  if (nothing_selected && filters.size() > 1)
    ReportWarning("no --filter matches a workload of " + path + "; nothing was analysed");
}

}  // namespace

int HistoryCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("baseline", po::value<std::string>()->required(), "baseline history file")
      ("metric", po::value<std::string>()->default_value("time"),
       "time | throughput | peak_memory, or the name of a workload's own primary metric (value, ...)")
      ("filter", po::value<std::vector<std::string>>()->composing(), "only workloads matching this glob")
      ("alpha", po::value<double>()->default_value(0.01), "permutation p-value a step must reach")
      ("permutations", po::value<int>()->default_value(499), "permutations per tested split")
      ("min-step", po::value<double>()->default_value(0.0),
       "ignore steps smaller than this fraction (0.02 = 2%)")
      ("seed", po::value<uint64_t>()->default_value(1), "permutation seed")
      ("json", po::value<std::string>(), "write gpugate/history/v1 JSON to this file ('-' = stdout)");
  po::positional_options_description positional;
  positional.add("baseline", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());

  const std::string metric = vm["metric"].as<std::string>();
  ChangePointOptions cp;
  cp.alpha = vm["alpha"].as<double>();
  cp.permutations = vm["permutations"].as<int>();
  cp.seed = vm["seed"].as<uint64_t>();
  if (!(cp.alpha > 0 && cp.alpha < 1)) return ReportError(InputError("--alpha must be in (0, 1)"));
  if (cp.permutations < 1 || cp.permutations > 100000)
    return ReportError(InputError("--permutations must be from 1 to 100000, got " +
                                  std::to_string(cp.permutations)));
  const double min_step = vm["min-step"].as<double>();
  if (!(min_step >= 0 && min_step <= 10))
    return ReportError(InputError("--min-step must be a fraction from 0 to 10 (0.05 = 5%)"));
  std::vector<std::string> filters;
  if (vm.count("filter")) filters = vm["filter"].as<std::vector<std::string>>();

  const std::string path = vm["baseline"].as<std::string>();
  Result<Baseline> b = ReadBaselineFile(path);
  if (!b.ok()) return ReportError(b.error());
  const bool known = HistoryHasMetric(*b, metric);
  if (!known)
    return ReportError(InputError("--metric: expected time, throughput, peak_memory or a primary "
                                  "metric of the baseline's workloads, got '" + Printable(metric) +
                                  "'"));

  std::vector<CpuSpeed> cpus;
  const std::vector<WorkloadHistory> hs = BuildHistories(*b, metric, filters, cp, min_step, &cpus);
  WarnAboutUnmatchedFilters(filters, *b, path, hs.empty());

  // With --json on stdout the JSON is all stdout holds (a parser reads it).
  const bool json_to_stdout = vm.count("json") && IsStdoutPath(vm["json"].as<std::string>());
  std::ostringstream summary;
  std::ostream& out = json_to_stdout ? static_cast<std::ostream&>(summary) : std::cout;
  int with_steps = 0;
  out << Printable(path) << ": " << FormatCount(b->runs.size(), "run") << " of suite " << Printable(b->suite)
      << ", metric " << Printable(metric) << " (E-divisive means, alpha " << cp.alpha << ")\n";
  if (!b->runs.empty())
    for (const std::string& line : CpuSpeedLines(cpus, b->runs.back().run.env.cpu_model))
      out << "  " << Printable(line) << "\n";
  for (const auto& h : hs) {
    if (h.steps.empty()) continue;
    ++with_steps;
    for (const auto& s : h.steps) out << "  " << Printable(h.name) << ": " << Describe(s, *b) << "\n";
    if (h.search_capped)
      out << "  " << Printable(h.name) << ": the search takes at most " << cp.max_change_points
          << " steps and found as many: more may be missing, and the ratios beside them span merged levels\n";
  }
  // A series shorter than 2·min_segment is not tested, and one a little
  // longer cannot reach alpha however clean its step (MinValuesForAStep).
  const int min_runs = 2 * cp.min_segment;
  const int needed = MinValuesForAStep(cp);
  const int short_of = needed == 0 ? std::numeric_limits<int>::max() : std::max(min_runs, needed);
  int too_short = 0, without = 0;
  std::map<std::string, std::string> newest_metric;  // each workload's metric in the newest run holding it
  for (auto run = b->runs.rbegin(); run != b->runs.rend(); ++run)
    for (const WorkloadResult& w : run->workloads) newest_metric.emplace(w.name, w.metric);
  std::set<std::string> their_metrics;  // what the workloads without this metric measure
  for (const auto& h : hs) {
    if (h.values.empty()) {
      ++without;
      auto it = newest_metric.find(h.name);
      if (it != newest_metric.end() && it->second != metric) their_metrics.insert(it->second);
      continue;
    }
    // (A step found in a short history was found: it is not counted.)
    too_short += static_cast<int>(h.values.size()) < short_of && h.steps.empty();
  }
  out << "  " << with_steps << " of " << FormatCount(hs.size(), "workload") << " with step changes";
  if (too_short > 0 && needed == 0)
    out << "; no step can reach alpha " << cp.alpha << " with " << cp.permutations << " permutations";
  else if (too_short > 0 && short_of > min_runs)
    out << "; " << too_short << " with fewer than " << short_of << " runs: too few runs to find a step reliably at alpha "
        << cp.alpha;
  else if (too_short > 0)
    out << "; " << too_short << " with fewer than " << min_runs << " runs, too short to test";
  if (without > 0) {
    out << "; " << without << " without a " << Printable(metric) << " value";
    if (!their_metrics.empty()) {
      out << " (they measure ";
      bool first = true;
      for (const std::string& m : their_metrics) {
        out << (first ? "" : ", ") << Printable(m);
        first = false;
      }
      out << ": --metric " << Printable(*their_metrics.begin()) << ")";
    }
  }
  out << "\n";

  if (vm.count("json")) {
    if (Status st = WriteFileAtomic(vm["json"].as<std::string>(), HistoryJson(path, metric, *b, hs, cp, cpus)); !st.ok())
      return ReportError(st.error());
  }
  return 0;
}

}  // namespace gpugate
