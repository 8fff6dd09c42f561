// `gpugate ab SUITE --base DIR --head DIR`: interleaved A/B of two builds on
// one machine (harness/ab.h measures), judged on paired rounds by the one
// judge (compare/), reported and gated like `compare`.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/compare_common.h"
#include "cli/progress.h"
#include "cli/run_summary.h"
#include "compare/compare.h"
#include "compare/estimate.h"
#include "harness/ab.h"
#include "model/environment.h"
#include "model/results_json.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

/// Absolute path of an existing directory, or an input error.
Result<std::string> ExistingDir(const std::string& option, const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    return InputError("--" + option + ": '" + path + "' is not a directory");
  std::filesystem::path abs = std::filesystem::canonical(path, ec);
  if (ec) return InputError("--" + option + ": '" + path + "': " + ec.message());
  return abs.string();
}

}  // namespace

int AbCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("suite", po::value<std::string>()->required(), "suite file (YAML)")
      ("base", po::value<std::string>()->required(), "base build directory (what {bin} stands for in the workloads' argv, cwd, results and file)")
      ("head", po::value<std::string>()->required(), "head build directory (what {bin} stands for in the workloads' argv, cwd, results and file)")
      ("rounds", po::value<int>()->default_value(10), "paired rounds per workload (fewer than 6, or 8 at a 99% confidence, are accepted with a warning, and cannot decide)")
      ("seed", po::value<uint64_t>()->default_value(1), "seed of the run order (and synthetic draws)")
      ("base-results", po::value<std::string>(), "also write the base side's results JSON here")
      ("head-results", po::value<std::string>(), "also write the head side's results JSON here");
  AddBackendOption(options);
  AddSelectionOptions(options);
  AddCompareOptions(options);
  po::positional_options_description positional;
  positional.add("suite", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());

  AbOptions ab;
  ab.rounds = vm["rounds"].as<int>();
  ab.seed = vm["seed"].as<uint64_t>();
  Result<std::string> backend = BackendFrom(vm);
  if (!backend.ok()) return ReportError(backend.error());
  ab.backend = *backend;
  if (ab.rounds < 1 || ab.rounds > kMaxRounds)
    return ReportError(InputError("--rounds must be from 1 to " + std::to_string(kMaxRounds) +
                                  ", got " + std::to_string(ab.rounds)));
  auto base_dir = ExistingDir("base", vm["base"].as<std::string>());
  if (!base_dir.ok()) return ReportError(base_dir.error());
  auto head_dir = ExistingDir("head", vm["head"].as<std::string>());
  if (!head_dir.ok()) return ReportError(head_dir.error());
  ab.base_dir = *base_dir;
  ab.head_dir = *head_dir;

  Result<Policy> policy = PolicyFromOptions(vm);
  if (!policy.ok()) return ReportError(policy.error());
  Result<SuiteSelection> sel = SelectFromOptions(vm["suite"].as<std::string>(), vm);
  if (!sel.ok()) return ReportError(sel.error());
  // An empty shard is a valid, empty part (as for run and gate): nothing is
  // measured or compared, and the reports say so.
  if (const int need = MinPairedRounds(policy->defaults.confidence); ab.rounds < need)
    ReportWarning("--rounds " + std::to_string(ab.rounds) + ": fewer than " + std::to_string(need) +
                  " paired rounds cannot give a " + FormatThreshold(policy->defaults.confidence) +
                  " interval (the policy's confidence); results will be inconclusive");
  int same_code = 0;
  for (const auto& w : sel->workloads)
    same_code += w.kind == WorkloadKind::kBuiltin ||
                 ((w.kind == WorkloadKind::kCommand || w.kind == WorkloadKind::kStatic ||
                   IsBenchmarkProgram(w.kind)) &&
                  !UsesBinDir(w));
  if (same_code > 0)
    ReportWarning(FormatCount(static_cast<size_t>(same_code), "workload") + (same_code == 1 ? " runs" : " run") + " the same code on both sides (builtin, or a "
                  "command, benchmark program or static workload without {bin}): an A/A check for them");

  WarnMetricsNotCollected(sel->workloads);
  TtyProgress progress(ProgressModeFor(vm.count("quiet") > 0));
  AbData data = RunAb(sel->suite, sel->workloads, ab, &progress);
  // A results file that cannot be written costs neither the verdict nor
  // its reports: it is said after them (a tool error, exit 3).
  std::vector<Status> written;
  for (const auto& [opt, side] : {std::pair<const char*, const Results*>{"base-results", &data.base},
                                  std::pair<const char*, const Results*>{"head-results", &data.head}}) {
    if (vm.count(opt)) written.push_back(WriteResultsFile(vm[opt].as<std::string>(), *side));
  }

  CompareOptions compare_options;
  compare_options.paired = true;
  compare_options.baseline_label = "base " + ab.base_dir;
  compare_options.current_label = "head " + ab.head_dir;
  const std::vector<Results> base_runs{data.base}, head_runs{data.head};
  Verdicts verdicts = CompareRuns(base_runs, head_runs, *policy, compare_options);
  if (sel->workloads.empty())
    verdicts.warnings.push_back(EmptyShardText(*sel) + ": nothing was measured or compared");
  std::vector<std::string> reported;
  for (const WorkloadResult& w : data.head.workloads) reported.push_back(w.name);
  return FinishComparison(verdicts, vm, WorkloadSources(sel->workloads, reported), written);
}

}  // namespace gpugate
