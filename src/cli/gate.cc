// `gpugate gate SUITE --baseline B`: run the suite, compare with the baseline,
// re-run the workloads that came out inconclusive or regressed (bounded), and
// decide. Every confirmation round is kept in the results.
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/compare_common.h"
#include "cli/inputs.h"
#include "cli/progress.h"
#include "cli/run_summary.h"
#include "compare/compare.h"
#include "harness/runner.h"
#include "model/results_json.h"
#include "stats/summary.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

/// Seeds of confirmation attempts differ from the first run's, so synthetic
/// workloads draw fresh samples (a large odd constant keeps them apart).
uint64_t ConfirmationSeed(uint64_t run_seed, int attempt) {
  return run_seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(attempt);
}

/// Appends a confirmation run's rounds to the first result of a workload.
void AppendConfirmation(WorkloadResult& into, const WorkloadResult& rerun) {
  into.confirmation_reruns += 1;
  if (rerun.status != WorkloadStatus::kOk) {
    into.status = rerun.status;
    into.reason = "confirmation re-run " + std::to_string(into.confirmation_reruns) + ": " +
                  rerun.reason;
    return;
  }
  into.rounds.insert(into.rounds.end(), rerun.rounds.begin(), rerun.rounds.end());
  std::vector<double> all = AllSamples(into);
  into.summary = Summarize(all);
  if (into.work.bytes && into.summary.median > 0)
    into.bytes_per_second = static_cast<double>(*into.work.bytes) / into.summary.median;
  if (into.work.flops && into.summary.median > 0)
    into.flops_per_second = *into.work.flops / into.summary.median;
  into.clocks.insert(into.clocks.end(), rerun.clocks.begin(), rerun.clocks.end());
  into.throttled = into.throttled || rerun.throttled;
}

/// Re-runs `names` once more with a fresh seed. Returns the re-run as a run
/// of its own (the comparison counts it as one more replication unit) and
/// merges its rounds into `results` (the file written with -o).
Results Confirm(const std::vector<std::string>& names, const std::vector<WorkloadSpec>& specs,
                const RunOptions& base_options, int attempt, Results& results,
                ProgressSink* progress) {
  Results rerun_run;
  rerun_run.run = results.run;
  RunOptions options = base_options;
  options.run_seed = ConfirmationSeed(base_options.run_seed, attempt);
  BackendSet backends(options);
  int index = 0;
  for (const auto& name : names) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const WorkloadSpec& s) { return s.name == name; });
    auto result = std::find_if(results.workloads.begin(), results.workloads.end(),
                               [&](const WorkloadResult& w) { return w.name == name; });
    if (spec == specs.end() || result == results.workloads.end()) continue;
    if (result->status != WorkloadStatus::kOk) continue;
    Result<Backend*> backend = backends.For(*spec);
    if (!backend.ok()) continue;
    if (progress) progress->WorkloadStarted(*spec, index++, static_cast<int>(names.size()));
    WorkloadResult rerun = RunWorkload(*spec, **backend, progress);
    AppendConfirmation(*result, rerun);
    rerun_run.workloads.push_back(std::move(rerun));
  }
  return rerun_run;
}

}  // namespace

int GateCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("suite", po::value<std::string>()->required(), "suite file (YAML)")
      ("baseline", po::value<std::string>()->required(),
       "baseline to compare with: gpugate results or a baseline history (any compare input)")
      ("output,o", po::value<std::string>(), "also write the results (with confirmation rounds)")
      ("confirm", po::value<int>()->default_value(kDefaultConfirmations),
       "at most this many confirmation re-runs of inconclusive or regressed workloads (0 = none)")
      ("backend", po::value<std::string>()->default_value("auto"), "auto | cpu | cuda")
      ("seed", po::value<uint64_t>()->default_value(0), "extra seed for synthetic workloads");
  AddSelectionOptions(options);
  AddCompareOptions(options);
  po::positional_options_description positional;
  positional.add("suite", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;

  const int confirm = vm["confirm"].as<int>();
  if (confirm < 0 || confirm > 10)
    return ReportError(InputError("--confirm: expected 0..10, got " + std::to_string(confirm)));
  const std::string backend = vm["backend"].as<std::string>();
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    return ReportError(InputError("--backend: expected auto, cpu or cuda, got '" + backend + "'"));
  Result<Policy> policy = PolicyFromOptions(vm);
  if (!policy.ok()) return ReportError(policy.error());
  Result<SuiteSelection> sel = SelectFromOptions(vm["suite"].as<std::string>(), vm);
  if (!sel.ok()) return ReportError(sel.error());
  if (sel->workloads.empty())
    return ReportError(InputError(vm["suite"].as<std::string>() +
                                  ": no workload matches the --filter/--tag/--shard selection"));
  const std::string baseline_path = vm["baseline"].as<std::string>();
  Result<std::vector<Results>> baseline = LoadRuns(baseline_path);
  if (!baseline.ok())
    return ReportError(baseline.error().WithContext("while loading the baseline"));

  RunOptions run_options;
  run_options.backend = backend;
  run_options.run_seed = vm["seed"].as<uint64_t>();
  TtyProgress progress(StderrIsTty());
  Results results = RunSuite(sel->suite, sel->workloads, run_options, &progress);
  results.run.shard = sel->shard;

  CompareOptions compare_options;
  compare_options.allow_env_mismatch = vm.count("allow-env-mismatch") > 0;
  compare_options.baseline_label = baseline_path;
  compare_options.current_label = "this run";
  std::vector<Results> runs = {results};
  Verdicts verdicts = CompareRuns(*baseline, runs, *policy, compare_options);
  for (int attempt = 1; attempt <= confirm; ++attempt) {
    std::vector<std::string> doubtful = WorkloadsToConfirm(verdicts);
    if (doubtful.empty()) break;
    std::cerr << "gpugate: confirming " << doubtful.size() << " workload"
              << (doubtful.size() == 1 ? "" : "s") << " (re-run " << attempt << " of " << confirm
              << ")\n";
    runs.push_back(Confirm(doubtful, sel->workloads, run_options, attempt, results, &progress));
    verdicts = CompareRuns(*baseline, runs, *policy, compare_options);
  }

  if (vm.count("output")) {
    if (Status st = WriteResultsFile(vm["output"].as<std::string>(), results); !st.ok())
      return ReportError(st.error());
  }
  int code = FinishComparison(verdicts, vm);
  bool failed = std::any_of(results.workloads.begin(), results.workloads.end(),
                            [](const WorkloadResult& w) { return w.status == WorkloadStatus::kFailed; });
  if (failed && (code == 0 || code == 4)) {
    for (const auto& w : results.workloads)
      if (w.status == WorkloadStatus::kFailed)
        std::cerr << "gpugate: error: workload '" << w.name << "' failed: " << w.reason << "\n";
    return static_cast<int>(ExitCode::kToolError);
  }
  return code;
}

}  // namespace gpugate
