// `gpugate gate SUITE --baseline B`: run the suite, compare with the baseline,
// re-run the workloads that came out inconclusive or regressed (bounded), and
// decide (the loop is gate/gate.h). Every confirmation round is kept in the
// results.
#include <filesystem>
#include <iostream>
#include <set>
#include <string_view>
#include <unordered_map>

#include "cli/command.h"
#include "cli/compare_common.h"
#include "cli/inputs.h"
#include "cli/progress.h"
#include "cli/run_summary.h"
#include "compare/compare.h"
#include "gate/gate.h"
#include "harness/backends/cuda_backend.h"
#include "model/baseline.h"
#include "model/environment.h"
#include "model/results_json.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

/// The terminal's progress, plus a line on stderr when a re-run starts.
class GateCliProgress final : public GateProgress {
 public:
  explicit GateCliProgress(ProgressMode mode) : tty_(mode), quiet_(mode == ProgressMode::kOff) {}
  void WorkloadStarted(const WorkloadSpec& spec, int index, int total) override {
    tty_.WorkloadStarted(spec, index, total);
  }
  void RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) override {
    tty_.RoundFinished(spec, round, samples);
  }
  void WorkloadFinished(const WorkloadResult& result) override { tty_.WorkloadFinished(result); }
  void ConfirmationStarted(const std::vector<std::string>& workloads, int attempt,
                           int max_attempts) override {
    if (quiet_) return;  // -q: no progress on stderr
    // The names, escaped (they are untrusted text); a long list is cut.
    constexpr size_t kShown = 10;
    std::cerr << "gpugate: confirming " << workloads.size() << " workload"
              << (workloads.size() == 1 ? "" : "s") << " (re-run " << attempt << " of "
              << max_attempts << "):";
    for (size_t i = 0; i < workloads.size() && i < kShown; ++i)
      std::cerr << (i ? ", " : " ") << EscapeTerminal(workloads[i]);
    if (workloads.size() > kShown) std::cerr << ", and " << workloads.size() - kShown << " more";
    std::cerr << "\n";
  }
  void ConfirmationNote(const std::string& sentence) override {
    if (!quiet_) std::cerr << "gpugate: " << EscapeTerminal(sentence) << "\n";
  }

 private:
  TtyProgress tty_;
  bool quiet_;
};

}  // namespace

int GateCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("suite", po::value<std::string>()->required(), "suite file (YAML)")
      ("baseline", po::value<std::string>()->required(),
       "baseline to compare with: gpugate results or a baseline history (any compare input), or "
       "a baselines folder, where <suite>/<runner class>.json is used; a missing file is a first "
       "run (nothing judged, exit 0)")
      ("output,o", po::value<std::string>(), "also write the results (with confirmation rounds)")
      ("confirm", po::value<int>()->default_value(kDefaultConfirmations),
       "at most this many confirmation re-runs of inconclusive or regressed workloads (0 = none, "
       "up to 20); the gate stops sooner once no doubtful workload could become a regression "
       "in the re-runs left")
      ("seed", po::value<uint64_t>()->default_value(0), "extra seed for synthetic workloads");
  AddBackendOption(options);
  AddSelectionOptions(options);
  AddBinOption(options);
  AddEnvKeyOption(options);
  AddCompareOptions(options);
  AddIngestOptions(options, "a --baseline of");
  po::positional_options_description positional;
  positional.add("suite", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());
  if (Status st = ApplyEnvKeyOption(vm); !st.ok()) return ReportError(st.error());

  const int confirm = vm["confirm"].as<int>();
  if (confirm < 0 || confirm > 20)
    return ReportError(InputError("--confirm: expected 0..20, got " + std::to_string(confirm)));
  Result<std::string> backend = BackendFrom(vm);
  if (!backend.ok()) return ReportError(backend.error());
  Result<Policy> policy = PolicyFromOptions(vm);
  if (!policy.ok()) return ReportError(policy.error());
  Result<SuiteSelection> sel = SelectFromOptions(vm["suite"].as<std::string>(), vm);
  if (!sel.ok()) return ReportError(sel.error());
  // An empty shard is a valid, empty part: nothing is measured or compared,
  // and the reports say so (not judged).
  const std::string empty_shard_text =
      sel->workloads.empty() ? EmptyShardText(*sel) + ": nothing was measured or compared" : "";
  if (Status st = ApplyBinOption(&*sel, vm); !st.ok()) return ReportError(st.error());
  WarnMetricsNotCollected(sel->workloads);
  std::string baseline_path = vm["baseline"].as<std::string>();
  std::error_code ec;
  // A baselines folder: the file of this suite and runner class. Without a
  // named class the key is the CPU's, or the GPU's when a device is present
  // (whichever file exists; the run's own results decide what update writes).
  std::string folder;
  std::string first_run_text;
  // What stores this run as the first of its history.
  const std::string store =
      vm.count("output") ? "gpugate baseline update --results " + vm["output"].as<std::string>() +
                               " --baseline " + baseline_path
                         : "write it with -o, then gpugate baseline update --results FILE --baseline " +
                               baseline_path;
  if ((!baseline_path.empty() && baseline_path.back() == '/') ||
      std::filesystem::is_directory(baseline_path, ec)) {
    folder = baseline_path;
    const Environment env = DetectEnvironment();
    std::vector<std::string> keys = {EnvironmentKey(env)};
    if (!env.runner_class) {
      if (Result<GpuInfo> gpu = QueryCudaGpuInfo(0); gpu.ok()) {
        Environment with_gpu = env;
        with_gpu.gpu = *gpu;
        keys.insert(keys.begin(), EnvironmentKey(with_gpu));
      }
    }
    BaselineInFolder found = FindBaselineInFolder(folder, sel->suite.name, keys);
    baseline_path = found.path;
    if (!found.exists) {
      first_run_text = FirstRunText(baseline_path, store, &found, folder, sel->suite.name, keys.front());
      ReportWarning(first_run_text);  // now, before the suite runs
    } else {
      if (!vm.count("quiet")) std::cerr << "gpugate: baseline " << EscapeTerminal(baseline_path) << "\n";
    }
  }
  // First run: no baseline file yet. The suite is measured and every
  // workload is new (outcome not_judged, exit 0); the results start it.
  const bool first_run = !std::filesystem::exists(baseline_path, ec) && !ec;
  if (first_run && first_run_text.empty()) {
    first_run_text = FirstRunText(baseline_path, store, nullptr, "", "", "");
    ReportWarning(first_run_text);  // now, before the suite runs, as for a folder
  }
  Result<std::vector<Results>> baseline = std::vector<Results>{};
  if (first_run) {
    Results empty;
    empty.run.suite = sel->suite.name;
    empty.run.run_id = "none";
    empty.run.env = DetectEnvironment();
    baseline->push_back(std::move(empty));
  } else {
    baseline = LoadRuns(baseline_path, IngestOptionsFrom(vm));
    if (!baseline.ok()) return ReportError(baseline.error());  // FILE:LINE:COL first, as every input error
    // The run the gate measures takes each workload's direction from the
    // suite (a command's `bigger_is_better`): the option reads only a
    // baseline of custom JSON, and elsewhere would change nothing.
    if (vm.count("bigger-is-better") && baseline->back().run.source_format != "custom")
      return ReportError(InputError(
          "--bigger-is-better reads a --baseline of custom benchmark JSON, and " + baseline_path +
          " is not one; the suite's workloads take their direction from their 'bigger_is_better' key"));
    // gpugate's own results name their suite: another suite's baseline
    // (a wrong path) would compare nothing and read as new and removed
    // workloads. `baseline update` refuses it the same way.
    const Results& ref = baseline->back();
    if (ref.run.source_format == "gpugate" && !ref.run.suite.empty() && ref.run.suite != sel->suite.name)
      return ReportError(InputError(baseline_path + ": a baseline of suite '" + ref.run.suite +
                                    "', but the suite is '" + sel->suite.name +
                                    "'; gate a suite against its own baseline"));
  }

  // A selection (--filter, --tag, --shard) measures part of the suite: the
  // baseline's other workloads are not "removed", they were not asked for.
  std::string unselected_text;
  if (!first_run && (vm.count("filter") || vm.count("tag") || sel->shard)) {
    std::set<std::string> selected, left_out;
    for (const WorkloadSpec& s : sel->workloads) selected.insert(s.name);
    // A result belongs to the workload of its own name, else to the program
    // whose name is its longest prefix ("bench/BM_x" of gbench "bench"):
    // looked up by name, since suite and baseline may each hold 100,000.
    std::unordered_map<std::string_view, const WorkloadSpec*> by_name;
    for (const WorkloadSpec& s : sel->suite.workloads) by_name.emplace(s.name, &s);
    auto owner = [&](const std::string& name) -> const WorkloadSpec* {
      if (auto it = by_name.find(name); it != by_name.end()) return it->second;
      for (size_t cut = name.rfind('/'); cut != std::string::npos && cut > 0; cut = name.rfind('/', cut - 1)) {
        auto it = by_name.find(std::string_view(name).substr(0, cut));
        if (it != by_name.end() && ReportedBy(*it->second, name)) return it->second;
      }
      return nullptr;
    };
    for (Results& r : *baseline) {
      std::erase_if(r.workloads, [&](const WorkloadResult& w) {
        const WorkloadSpec* s = owner(w.name);
        if (s != nullptr && selected.count(s->name)) return false;
        left_out.insert(w.name);
        return true;
      });
    }
    if (!left_out.empty())
      unselected_text = FormatCount(left_out.size(), "workload") + " of the baseline " +
                        (left_out.size() == 1 ? "is" : "are") + " outside this run's "
                        "--filter/--tag/--shard selection and were not compared; workloads removed from the suite "
                        "show as removed only when the whole suite runs";
  }

  GateOptions gate;
  gate.confirmations = confirm;
  gate.run.backend = *backend;
  gate.run.run_seed = vm["seed"].as<uint64_t>();
  gate.compare.allow_env_mismatch = vm.count("allow-env-mismatch") > 0;
  gate.compare.baseline_label = baseline_path;
  gate.compare.current_label = "this run";
  GateCliProgress progress(ProgressModeFor(vm.count("quiet") > 0));
  if (first_run) gate.confirmations = 0;  // nothing to confirm against
  GateOutcome outcome = RunGate(sel->suite, sel->workloads, *baseline, *policy, gate, &progress);
  outcome.results.run.shard = sel->shard;
  if (!empty_shard_text.empty()) {
    outcome.verdicts.warnings.push_back(empty_shard_text);
  } else if (!unselected_text.empty()) {
    outcome.verdicts.warnings.push_back(unselected_text);
  }
  // Of the whole suite only: a selection leaves rules for the others unused.
  if (!first_run && !vm.count("filter") && !vm.count("tag") && !sel->shard)
    for (std::string& unused : PolicyEntriesMatchingNothing(*policy, outcome.verdicts)) {
      if (vm.count("quiet")) ReportWarning(unused);
      outcome.verdicts.warnings.push_back(std::move(unused));
    }
  if (first_run) {
    outcome.verdicts.environment_matches = true;
    outcome.verdicts.env_differences.clear();
    outcome.verdicts.warnings.insert(
        outcome.verdicts.warnings.begin(),
        first_run_text);
  }

  // A results file that cannot be written costs neither the verdict nor
  // its reports: it is said after them (a tool error, exit 3).
  std::vector<Status> written;
  if (vm.count("output")) written.push_back(WriteResultsFile(vm["output"].as<std::string>(), outcome.results));
  // A workload that failed in the run or in a re-run is in the verdicts (an
  // error outcome): the exit code is theirs alone.
  std::vector<std::string> reported;
  for (const WorkloadResult& w : outcome.results.workloads) reported.push_back(w.name);
  return FinishComparison(outcome.verdicts, vm, WorkloadSources(sel->workloads, reported), written);
}

}  // namespace gpugate
