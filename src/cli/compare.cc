// `gpugate compare BASELINE CURRENT [CURRENT...]`: load both sides (any
// supported format), compare under a policy, write the reports, exit with the
// gate's code. Several current files are repeated runs of the same code.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/compare_common.h"
#include "cli/inputs.h"
#include "cli/reports.h"
#include "cli/run_summary.h"
#include "compare/compare.h"
#include "model/baseline.h"
#include "model/device_profile.h"
#include "model/environment.h"
#include "rules/regime.h"
#include "util/fs.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

/// Whether two loaded runs are one run: the same file (by any path), or the
/// same run id where the id stands for one run. gpugate's run ids are made
/// per run; Google Benchmark, nvbench and pytest files take theirs from their
/// content, and timings repeat to the last digit only in a copy. Custom
/// benchmark JSON (often deterministic values: sizes, counts) and traces
/// (named after the file and the first timestamp) are told apart by the file.
/// Why two loaded runs are one run, or nullopt when they are two: "(run id
/// ...)" or "(the same timings, to the last digit)".
std::optional<std::string> SameRun(const Results& a, const std::string& path_a, const Results& b,
                                   const std::string& path_b) {
  std::error_code ec;
  const std::string id = "(run id " + a.run.run_id + ")";
  if (std::filesystem::equivalent(path_a, path_b, ec) && !ec) return id;
  if (a.run.source_format != b.run.source_format) return std::nullopt;
  if (a.run.source_format == "custom" || a.run.source_format == "trace") return std::nullopt;
  if (!a.run.run_id.empty() && a.run.run_id == b.run.run_id) return id;
  // Files of other tools whose ids are their content's: the same timings,
  // to the last digit, workload by workload, are a copy written again
  // (pretty-printed, `jq .`), whose bytes and so id differ. Not gpugate's
  // own results, whose ids are per run and whose counts (instructions) do
  // repeat exactly.
  if (a.run.source_format != "gbench" && a.run.source_format != "nvbench" && a.run.source_format != "pytest")
    return std::nullopt;
  if (a.workloads.size() != b.workloads.size()) return std::nullopt;
  // Two runs whose times repeat exactly (a manual time from a model or a
  // simulator) still differ in their other figures (CPU times, counters); a
  // copy whose date or host alone was edited does not.
  size_t values = 0;
  for (size_t i = 0; i < a.workloads.size(); ++i) {
    const WorkloadResult& x = a.workloads[i];
    const WorkloadResult& y = b.workloads[i];
    if (x.name != y.name || x.deterministic || x.rounds != y.rounds || x.counters != y.counters) return std::nullopt;
    for (const std::vector<double>& r : x.rounds) values += r.size();
  }
  if (values < 3) return std::nullopt;
  return std::string("(the same timings, to the last digit)");
}

}  // namespace

void AddCompareOptions(po::options_description& options) {
  options.add_options()
      ("policy", po::value<std::string>(), "policy file (default: the built-in default policy)")
      ("allow-env-mismatch", "compare even when the environments differ (differences are listed)")
      ("verbose,v", "list unchanged results row by row and every verdict's full sentence on the console")
      ("quiet,q", "no console report on stdout (gate, ab: no progress on stderr either)");
  AddReportOptions(options);
}

void AddIngestOptions(po::options_description& options, const char* applies_to) {
  options.add_options()
      ("bigger-is-better",
       (std::string(applies_to) + " custom benchmark JSON ([{name, unit, value}]): its values in units "
                                  "other than time are bigger-is-better (github-action-benchmark's "
                                  "customBiggerIsBetter); default: smaller is better")
           .c_str());
}

IngestOptions IngestOptionsFrom(const po::variables_map& vm) {
  IngestOptions o;
  o.bigger_is_better = vm.count("bigger-is-better") > 0;
  return o;
}

Result<Policy> PolicyFromOptions(const po::variables_map& vm) {
  if (!vm.count("policy")) return DefaultPolicy();
  Result<Policy> policy = LoadPolicyFile(vm["policy"].as<std::string>());
  if (!policy.ok()) return policy.error();
  return policy;
}

std::vector<std::string> PolicyEntriesMatchingNothing(const Policy& policy, const Verdicts& verdicts) {
  std::vector<std::string> out;
  // The built-in policy's rules are general on purpose; and with nothing
  // compared, every rule would be named.
  if (policy.path.empty() || verdicts.metrics.empty()) return out;
  // A glob ('*', '?', '[') that selects nothing here may be meant for other
  // suites sharing the policy (kernels, a family of benchmarks), so only a
  // plain name that names no workload, or a match with blanks at its ends,
  // is said: those look like a mistyped glob.
  auto suspicious = [&](const std::string& match) {
    const bool glob = match.find_first_of("*?[") != std::string::npos;
    const bool blanks = !match.empty() && (std::isspace(static_cast<unsigned char>(match.front())) ||
                                           std::isspace(static_cast<unsigned char>(match.back())));
    if (glob && !blanks) return false;
    return std::none_of(verdicts.metrics.begin(), verdicts.metrics.end(),
                        [&](const MetricVerdict& m) { return GlobMatch(match, m.workload); });
  };
  auto warn = [&](const char* what, const std::string& match, const SourceLocation& at) {
    out.push_back(at.ToString() + ": " + what + " (match " + QuoteInput(match) +
                  ") names no workload of this comparison; a name without '*' matches that one name only" +
                  (match.find_first_of(" \t") != std::string::npos ? ", blanks included" : ""));
  };
  for (const PolicyRule& r : policy.rules)
    if (suspicious(r.match)) warn("rule", r.match, r.location);
  for (const Waiver& w : policy.waivers)
    if (suspicious(w.match)) warn("waiver", w.match, w.location);
  return out;
}

int FinishComparison(const Verdicts& verdicts, const po::variables_map& vm,
                     const std::map<std::string, ReportOptions::Source>& sources) {
  if (Status st = EmitReports(verdicts, vm, vm.count("quiet") > 0, sources); !st.ok())
    return ReportError(st.error());
  return ExitCodeFor(verdicts);
}

int FinishComparison(const Verdicts& verdicts, const po::variables_map& vm,
                     const std::map<std::string, ReportOptions::Source>& sources,
                     const std::vector<Status>& written) {
  const int code = FinishComparison(verdicts, vm, sources);
  bool failed = false;
  for (const Status& st : written) {
    if (st.ok()) continue;
    ReportError(st.error());
    failed = true;
  }
  return failed ? static_cast<int>(ExitCode::kToolError) : code;
}

bool ReportedBy(const WorkloadSpec& w, const std::string& name) {
  return w.name == name || (ReportsBenchmarks(w) && name.size() > w.name.size() &&
                            name.compare(0, w.name.size() + 1, w.name + "/") == 0);
}

std::map<std::string, ReportOptions::Source> WorkloadSources(const std::vector<WorkloadSpec>& workloads,
                                                             const std::vector<std::string>& reported) {
  std::map<std::string, ReportOptions::Source> out;
  for (const std::string& name : reported) {
    for (const WorkloadSpec& w : workloads) {
      if (!ReportedBy(w, name)) continue;
      if (!w.location.file.empty()) out[name] = ReportOptions::Source{w.location.file, w.location.line};
      break;
    }
  }
  return out;
}

int CompareCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("baseline", po::value<std::string>()->required(),
       "baseline: gpugate results or baseline history, Google Benchmark, nvbench, custom or "
       "pytest-benchmark JSON, trace; or a baselines folder, where the current run's "
       "<suite>/<runner class>.json is used")
      ("current", po::value<std::vector<std::string>>()->required()->multitoken(),
       "current run, in any of the same formats; several files are separate runs of one suite's "
       "code (processes), each one more replication unit; every workload any of them holds is "
       "compared (shards of one run: join them with gpugate merge first)")
      ("device-profile", po::value<std::string>(),
       "device profile (gpugate calibrate): the reports add a roofline section with each "
       "workload's and kernel's regime and % of roof in the (first) current run; needs work counts");
  AddEnvKeyOption(options);
  AddCompareOptions(options);
  AddIngestOptions(options, "files of");
  po::positional_options_description positional;
  positional.add("baseline", 1).add("current", -1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;

  Result<Policy> policy = PolicyFromOptions(vm);
  if (!policy.ok()) return ReportError(policy.error());
  std::optional<DeviceProfile> profile;
  if (vm.count("device-profile")) {
    Result<DeviceProfile> loaded = ReadDeviceProfileFile(vm["device-profile"].as<std::string>());
    if (!loaded.ok()) return ReportError(loaded.error());
    profile = std::move(loaded).value();
  }
  std::string baseline_path = vm["baseline"].as<std::string>();
  const std::vector<std::string> current_paths = vm["current"].as<std::vector<std::string>>();
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());
  const IngestOptions ingest = IngestOptionsFrom(vm);
  std::vector<Results> current;
  for (const std::string& path : current_paths) {
    Result<Results> run = LoadRun(path, ingest);
    if (!run.ok()) return ReportError(run.error());
    // Several current files are separate runs: the same run twice would
    // count its evidence twice and halve its p-values.
    for (size_t i = 0; i < current.size(); ++i) {
      // Shards (`run --shard i/N`) are parts of one run: merge joins them,
      // with each CPU's part and the shards checked (and needs one
      // --run-id). As several runs, each part's speed would be unknown.
      if (run->run.shard && current[i].run.shard && *run->run.shard != *current[i].run.shard)
        return ReportError(InputError(path + ": shard " + *run->run.shard + " beside " + current_paths[i] +
                                      ", shard " + *current[i].run.shard +
                                      ": shards are parts of one run; join them with gpugate merge SHARDS... -o "
                                      "RUN.json (their runs share one --run-id), then compare RUN.json"));
      const std::optional<std::string> same = SameRun(*run, path, current[i], current_paths[i]);
      if (!same) continue;
      return ReportError(InputError(path + ": the same run as " + current_paths[i] + " " + *same +
                                    ": several current files must be separate runs of the code, each given once"));
    }
    // ... of one suite: another program's file would be read as a repeat
    // of the first, and its workloads left out of every report (a +50%
    // regression of the second program passed). A suite named by the run
    // (gpugate's own, or a program's name) must be the first's; files known
    // only by their file names are known by their benchmarks, which a
    // repeat run shares for the most part.
    if (!current.empty()) {
      const Results& first = current.front();
      auto named = [](const Results& r, const std::string& file) {
        return r.run.source_format == "gpugate" || r.run.suite != NameFromFileName(DataFileStem(file));
      };
      if (named(first, current_paths.front()) && named(*run, path)) {
        if (first.run.suite != run->run.suite)
          return ReportError(InputError(path + ": a run of suite '" + run->run.suite + "', but " +
                                        current_paths.front() + " is of suite '" + first.run.suite +
                                        "': several current files are repeated runs of one suite; compare each "
                                        "suite against its own baseline"));
      } else {
        std::set<std::string> names;
        for (const WorkloadResult& w : first.workloads) names.insert(w.name);
        size_t shared = 0;
        for (const WorkloadResult& w : run->workloads) shared += names.count(w.name);
        if (2 * shared < run->workloads.size())
          return ReportError(InputError(
              path + ": shares " + std::to_string(shared) + " of its " +
              FormatCount(run->workloads.size(), "workload") + " with " + current_paths.front() +
              ": several current files are repeated runs of the same benchmarks; compare each program against "
              "its own baseline"));
      }
    }
    current.push_back(std::move(run).value());
  }
  // --env-key (or GPUGATE_ENV_KEY) names the class of the current runs: the
  // one class for files that carry none (other tools' JSON), and the one the
  // user states for those that recorded another.
  Result<std::optional<std::string>> env_key = EnvKeyFrom(vm);
  if (!env_key.ok()) return ReportError(env_key.error());
  if (*env_key)
    for (Results& r : current) r.run.env.runner_class = **env_key;

  // A baselines folder: the file of the current run's suite and runner
  // class. None there is a first run, as for gate: every workload is new and
  // nothing is judged (exit 0, outcome not_judged), with a warning that says
  // which classes the folder holds.
  std::error_code ec;
  std::string first_run;
  Result<std::vector<Results>> baseline = std::vector<Results>{};
  const bool folder = (!baseline_path.empty() && baseline_path.back() == '/') ||
                      std::filesystem::is_directory(baseline_path, ec);
  if (folder) {
    // In a folder, another tool's file (which records no class) belongs to
    // the GitHub-hosted runner's class, as a run gpugate measures there; a
    // history of such files begun before they took it is still theirs. A
    // file given by name is compared as it is.
    bool defaulted = false;
    if (!*env_key)
      for (Results& r : current) defaulted = DefaultRunnerClassOfIngested(&r) || defaulted;
    if (defaulted) {
      FolderFileOfDefaultedClass(baseline_path, &current.front());
      if (!current.front().run.env.runner_class)
        for (Results& r : current) r.run.env.runner_class.reset();
    }
    const std::string key = EnvironmentKey(current.front().run.env);
    BaselineInFolder found = FindBaselineInFolder(baseline_path, current.front().run.suite, {key});
    if (!found.exists) {
      first_run = FirstRunText(found.path,
                               "gpugate baseline update --results " + current_paths.front() +
                                   " --baseline " + baseline_path +
                                   (*env_key ? " --env-key " + **env_key : std::string()),
                               &found, baseline_path, current.front().run.suite, key);
      Results empty;
      empty.run.suite = current.front().run.suite;
      empty.run.run_id = "none";
      empty.run.env = current.front().run.env;
      baseline->push_back(std::move(empty));
    }
    baseline_path = found.path;
  }
  if (first_run.empty()) baseline = LoadRuns(baseline_path, ingest);
  if (!baseline.ok()) return ReportError(baseline.error());
  // --bigger-is-better reads custom benchmark JSON: with none among the
  // inputs it would change nothing, and is refused as gate refuses it.
  if (ingest.bigger_is_better) {
    auto custom = [](const Results& r) { return r.run.source_format == "custom"; };
    if (std::none_of(current.begin(), current.end(), custom) && std::none_of(baseline->begin(), baseline->end(), custom))
      return ReportError(InputError("--bigger-is-better reads custom benchmark JSON ([{name, unit, value}]), and "
                                    "neither the baseline nor a current file is; other formats carry their own "
                                    "direction"));
  }
  // A folder's file is found by the suite's slug, which two names may share
  // ("GEMM tests" and "gemm-tests"): another suite's history would compare
  // nothing and read as new and removed workloads. gate and `baseline
  // update` refuse it the same way.
  if (folder && first_run.empty()) {
    const Results& ref = baseline->back();
    const std::string& suite = current.front().run.suite;
    if (!ref.run.suite.empty() && ref.run.suite != suite)
      return ReportError(InputError(baseline_path + ": a baseline of suite '" + ref.run.suite +
                                    "', but the current run's suite is '" + suite +
                                    "'; both names map to this file: rename one suite, or give the "
                                    "baseline file itself"));
  }
  // A baseline of one run that is a current run (the same file twice, or a
  // copy, compressed or not) compares the run with itself: every workload
  // would read unchanged, a pass that decided nothing. (A history that holds
  // the current run among others gets a warning from the judge.)
  if (baseline->size() == 1) {
    for (size_t i = 0; i < current.size(); ++i) {
      const std::optional<std::string> same = SameRun(current[i], current_paths[i], baseline->front(), baseline_path);
      if (!same) continue;
      return ReportError(InputError(current_paths[i] + ": the same run as the baseline " + baseline_path + " " +
                                    *same + ": a run compared with itself cannot show a change; give "
                                            "the results of another run as the baseline"));
    }
  }
  for (size_t i = 0; i < current.size(); ++i)
    if (std::optional<std::string> conflict = DirectionConflict(*baseline, current[i]))
      return ReportError(InputError(current_paths[i] + ": " + *conflict));
  if (*env_key)
    for (Results& r : *baseline)
      if (!r.run.env.runner_class) r.run.env.runner_class = current.front().run.env.runner_class;

  CompareOptions compare_options;
  compare_options.allow_env_mismatch = vm.count("allow-env-mismatch") > 0;
  compare_options.baseline_label = baseline_path;
  compare_options.current_label = current_paths.front();
  if (current_paths.size() > 1)
    compare_options.current_label += " (+" + std::to_string(current_paths.size() - 1) +
                                      " more run" + (current_paths.size() == 2 ? "" : "s") + ")";
  // The rules' workload.regime and kernel.regime are the profile's, the
  // same placement as the report's roofline section.
  if (profile)
    for (Results& r : current) AddRegimes(*profile, &r);
  Verdicts verdicts = CompareRuns(*baseline, current, *policy, compare_options);
  if (profile) {
    AddRoofline(*profile, current.front(), &verdicts);
    // The rules follow the profile's regimes: a profile of another kind of
    // device is said in every report, as `run` says it.
    if (auto mismatch = ProfileKindMismatch(*profile, current.front())) verdicts.warnings.push_back(*mismatch);
  }
  for (std::string& unused : PolicyEntriesMatchingNothing(*policy, verdicts)) {
    if (vm.count("quiet")) ReportWarning(unused);  // -q: no report on stdout to carry it
    verdicts.warnings.push_back(std::move(unused));
  }
  if (!first_run.empty()) {
    verdicts.warnings.insert(verdicts.warnings.begin(), first_run);
    if (vm.count("quiet")) ReportWarning(first_run);  // -q: no report on stdout to carry it
  }
  return FinishComparison(verdicts, vm);
}

}  // namespace gpugate
