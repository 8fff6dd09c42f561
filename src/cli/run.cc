// `gpugate run SUITE -o RESULTS`: load, select, run, write, summarise.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/progress.h"
#include "cli/run_summary.h"
#include "config/suite.h"
#include "harness/ab.h"
#include "harness/runner.h"
#include "model/baseline.h"
#include "model/device_profile.h"
#include "model/environment.h"
#include "model/results_json.h"
#include "rules/regime.h"
#include "util/file_write.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

Result<SuiteSelection> SelectWorkloads(const std::string& suite_path,
                                       const std::vector<std::string>& filters,
                                       const std::vector<std::string>& tags,
                                       const std::string& shard_text) {
  Result<Suite> suite = LoadSuiteFile(suite_path);
  if (!suite.ok()) return suite.error();
  for (const std::string& w : suite->warnings) ReportWarning(w);
  SuiteSelection sel;
  sel.suite = std::move(suite).value();
  Result<std::vector<WorkloadMetricPlan>> plans = PlanSuiteMetrics(sel.suite.workloads);
  if (!plans.ok()) return plans.error();
  sel.metric_plans = std::move(plans).value();
  sel.workloads = FilterWorkloads(sel.suite.workloads, filters, tags);
  sel.before_shard = sel.workloads.size();
  if (!shard_text.empty()) {
    Result<std::pair<int, int>> shard = ParseShard(shard_text);
    if (!shard.ok()) return shard.error().WithContext("--shard");
    sel.workloads = SelectShard(sel.workloads, shard->first, shard->second);
    sel.shard = shard_text;
  }
  return sel;
}

void AddSelectionOptions(po::options_description& options) {
  options.add_options()
      ("filter", po::value<std::vector<std::string>>()->composing(),
       "only workloads whose name matches this glob (repeatable)")
      ("tag", po::value<std::vector<std::string>>()->composing(),
       "only workloads carrying this tag (repeatable)")
      ("shard", po::value<std::string>()->default_value(""),
       "run shard i of N (\"i/N\", 1-based; a stable partition by workload name)");
}

void AddBinOption(po::options_description& options) {
  options.add_options()("bin", po::value<std::string>(),
                        "build folder that {bin} stands for in command, gbench, nvbench and static workloads");
}

Status ApplyBinOption(SuiteSelection* selection, const po::variables_map& vm) {
  if (!vm.count("bin")) {
    for (const WorkloadSpec& w : selection->workloads)
      if (UsesBinDir(w))
        return InputError((w.location.line > 0 ? w.location.ToString() + ": " : std::string()) +
                          "workload '" + w.name +
                          "' uses {bin}: pass --bin DIR (its build folder), or compare two builds "
                          "with gpugate ab --base DIR --head DIR");
    return Status::Ok();
  }
  std::error_code ec;
  const std::string dir = vm["bin"].as<std::string>();
  if (!std::filesystem::is_directory(dir, ec)) return InputError("--bin: " + QuoteInput(dir) + " is not a directory");
  const std::string abs = std::filesystem::absolute(dir, ec).lexically_normal().string();
  // Every {bin} grows by the folder's length: bounded like params expansion
  // (kMaxSuiteTextBytes), before anything is copied.
  uint64_t growth = 0;
  for (const WorkloadSpec& w : selection->workloads) {
    growth += BinDirGrowth(w, abs.size());
    if (growth > kMaxSuiteTextBytes)
      return InputError("--bin " + QuoteInput(dir) + ": putting its " + std::to_string(abs.size()) +
                        "-byte path in place of every {bin} of the suite's workloads would add more than " +
                        std::to_string(kMaxSuiteTextBytes >> 20) +
                        " MiB of text; use a shorter build folder path or fewer {bin}s");
  }
  for (WorkloadSpec& w : selection->workloads) w = WithBinDir(w, abs);
  return Status::Ok();
}

void AddEnvKeyOption(po::options_description& options) {
  options.add_options()("env-key", po::value<std::string>(),
                        "runner class the run belongs to: its baseline file is <suite>/<class>.json, "
                        "and runs of one class are compared across CPU models (default: "
                        "GPUGATE_ENV_KEY, or <os>-<arch>-<image> on GitHub-hosted runners, else the "
                        "CPU or GPU model)");
}

void AddBackendOption(po::options_description& options) {
  options.add_options()("backend", po::value<std::string>(),
                        "where builtin kernels run, for every workload whatever its 'backend:' "
                        "says: auto (cuda when a device is present, else cpu) | cpu | cuda "
                        "(default: each workload's 'backend:', auto unless set)");
}

Result<std::string> BackendFrom(const po::variables_map& vm) {
  if (!vm.count("backend")) return std::string();
  const std::string backend = vm["backend"].as<std::string>();
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    return InputError("--backend: expected auto, cpu or cuda, got " + QuoteInput(backend));
  return backend;
}

Result<std::optional<std::string>> EnvKeyFrom(const po::variables_map& vm) {
  if (vm.count("env-key")) {
    Result<std::string> key = ParseRunnerClass(vm["env-key"].as<std::string>());
    if (!key.ok()) return key.error().WithContext("--env-key");
    return std::optional<std::string>(*key);
  }
  // The variable names the class as the option does, and is checked alike:
  // one that cannot be a class would otherwise send the run to another
  // baseline file without a word.
  const char* set = std::getenv("GPUGATE_ENV_KEY");
  if (set == nullptr || *set == '\0') return std::optional<std::string>();
  Result<std::string> key = ParseRunnerClass(set);
  if (!key.ok()) return key.error().WithContext("GPUGATE_ENV_KEY");
  return std::optional<std::string>(*key);
}

bool DefaultRunnerClassOfIngested(Results* r) {
  if (r->run.env.runner_class || r->run.source_format == "gpugate") return false;
  r->run.env.runner_class = RunnerClassFromVariables([](const char* name) { return std::getenv(name); });
  return r->run.env.runner_class.has_value();
}

std::string FolderFileOfDefaultedClass(const std::string& folder, Results* r) {
  const std::string path = BaselinePath(folder, r->run.suite, EnvironmentKey(r->run.env));
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return path;
  Environment plain = r->run.env;
  plain.runner_class.reset();
  const std::string before = BaselinePath(folder, r->run.suite, EnvironmentKey(plain));
  if (!std::filesystem::exists(before, ec)) return path;
  r->run.env.runner_class.reset();
  return before;
}

Status ApplyEnvKeyOption(const po::variables_map& vm) {
  Result<std::optional<std::string>> key = EnvKeyFrom(vm);
  if (!key.ok()) return key.error();
  if (!vm.count("env-key")) return Status::Ok();
  // Through the process environment, so every run of this command (and its
  // confirmation re-runs) records the class.
  if (::setenv("GPUGATE_ENV_KEY", (*key)->c_str(), 1) != 0)
    return ToolError("--env-key: cannot set GPUGATE_ENV_KEY");
  return Status::Ok();
}

void WarnMetricsNotCollected(const std::vector<WorkloadSpec>& workloads) {
  size_t with_metrics = 0;
  for (const WorkloadSpec& w : workloads) with_metrics += !w.metrics.empty() && w.kind != WorkloadKind::kBuiltin;
  if (with_metrics == 0) return;
  ReportWarning(FormatCount(with_metrics, "workload") + (with_metrics == 1 ? " lists" : " list") + " metrics, which gpugate collects only for "
                "builtin kernels on a CUDA device; their results hold timings and a note saying so "
                "(docs/gpu-metrics.md)");
}

Result<SuiteSelection> SelectFromOptions(const std::string& suite_path, const po::variables_map& vm) {
  std::vector<std::string> filters, tags;
  if (vm.count("filter")) filters = vm["filter"].as<std::vector<std::string>>();
  if (vm.count("tag")) tags = vm["tag"].as<std::vector<std::string>>();
  Result<SuiteSelection> sel = SelectWorkloads(suite_path, filters, tags, vm["shard"].as<std::string>());
  // A selection of nothing is an error (exit 2); an empty shard of a
  // selection that holds workloads (a matrix of more shards than the
  // partition fills) is a valid, empty part of the run.
  if (sel.ok() && sel->workloads.empty() && !(sel->shard && sel->before_shard > 0))
    return InputError(suite_path + ": no workload matches the --filter/--tag/--shard selection");
  return sel;
}

std::string EmptyShardText(const SuiteSelection& sel) {
  if (!sel.workloads.empty() || !sel.shard) return "";
  return "shard " + *sel.shard + " holds none of the " + std::to_string(sel.before_shard) + " selected workloads";
}

int RunCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("suite", po::value<std::string>()->required(), "suite file (YAML)")
      ("output,o", po::value<std::string>()->required(), "results file to write ('-' = stdout)")
      ("seed", po::value<uint64_t>()->default_value(0),
       "extra seed for synthetic workloads (0 = the suite's seeds)")
      ("run-id", po::value<std::string>(),
       "run id to record: 1 to 128 letters, digits or . _ : + - (default: random); shards of one "
       "run must share it to be merged")
      ("device-profile", po::value<std::string>(),
       "device profile (gpugate calibrate): add each workload's and kernel's roofline regime "
       "and % of roof to the results (needs work counts)")
      ("quiet,q", "no summary table on stdout, no progress on stderr");
  AddBackendOption(options);
  AddSelectionOptions(options);
  AddBinOption(options);
  AddEnvKeyOption(options);
  po::positional_options_description positional;
  positional.add("suite", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());
  if (Status st = ApplyEnvKeyOption(vm); !st.ok()) return ReportError(st.error());

  // A run id names the run in histories, merges and reports.
  if (vm.count("run-id")) {
    const std::string id = vm["run-id"].as<std::string>();
    if (std::optional<std::string> problem = RunIdProblem(id))
      return ReportError(InputError("--run-id " + QuoteInput(id) + ": " + *problem));
  }
  Result<std::string> backend = BackendFrom(vm);
  if (!backend.ok()) return ReportError(backend.error());

  Result<SuiteSelection> sel = SelectFromOptions(vm["suite"].as<std::string>(), vm);
  if (!sel.ok()) return ReportError(sel.error());
  // An empty shard is a valid, empty part of the run: merge takes it.
  if (sel->workloads.empty()) ReportWarning(EmptyShardText(*sel) + "; writing an empty shard for gpugate merge");
  if (Status st = ApplyBinOption(&*sel, vm); !st.ok()) return ReportError(st.error());

  std::optional<DeviceProfile> profile;
  if (vm.count("device-profile")) {
    Result<DeviceProfile> loaded = ReadDeviceProfileFile(vm["device-profile"].as<std::string>());
    if (!loaded.ok()) return ReportError(loaded.error());
    profile = std::move(loaded).value();
  }
  WarnMetricsNotCollected(sel->workloads);

  RunOptions run_options;
  run_options.backend = *backend;
  run_options.run_seed = vm["seed"].as<uint64_t>();
  TtyProgress progress(ProgressModeFor(vm.count("quiet") > 0));
  Results results = RunSuite(sel->suite, sel->workloads, run_options, &progress);
  results.run.shard = sel->shard;
  if (vm.count("run-id")) results.run.run_id = vm["run-id"].as<std::string>();
  if (profile) {
    if (auto mismatch = ProfileKindMismatch(*profile, results)) ReportWarning(*mismatch);
    AddRegimes(*profile, &results);
  }

  const std::string out = vm["output"].as<std::string>();
  if (Status st = WriteResultsFile(out, results); !st.ok()) return ReportError(st.error());
  if (!vm.count("quiet") && !IsStdoutPath(out)) std::cout << RenderRunSummary(results, StdoutWantsColor());
  for (const auto& w : results.workloads)
    if (w.status == WorkloadStatus::kFailed) return static_cast<int>(ExitCode::kToolError);
  return 0;
}

}  // namespace gpugate
