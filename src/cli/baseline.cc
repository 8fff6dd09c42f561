// `gpugate baseline update|show|prune`: keep the history of runs that compare
// uses as its noise model between CI runs (docs/baselines.md).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "cli/command.h"
#include "cli/compare_common.h"
#include "cli/inputs.h"
#include "cli/run_summary.h"
#include "model/baseline.h"
#include "model/environment.h"
#include "util/text/escape.h"
#include "util/text/format.h"
#include "stats/summary.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strings.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {
constexpr int kMaxKeep = kMaxBaselineRuns;

constexpr int kDefaultKeep = 30;
constexpr double kDefaultLockTimeout = 60;

void AddLockTimeoutOption(po::options_description& options) {
  options.add_options()("lock-timeout", po::value<double>()->default_value(kDefaultLockTimeout),
                        "seconds to wait for another update of the same baseline (<baseline>.lock)");
}

/// The exclusive lock that serialises updates of one baseline: a flock on
/// "<baseline>.lock" beside the file a symlink points to (created when
/// missing, removed when let go). Held while the baseline is read, changed
/// and written, so concurrent updates each see the other's run.
Result<FileLock> LockBaseline(const std::string& path, double timeout_s) {
  const std::string lock_path = ResolveFinalSymlinks(path) + ".lock";
  return FileLock::Acquire(lock_path, timeout_s,
                           "another gpugate is updating or pruning this baseline; --lock-timeout sets the wait");
}

// The options update and prune share.
Status CheckKeepAndLockTimeout(int keep, double timeout_s) {
  if (keep < 1 || keep > kMaxKeep)
    return InputError("--keep must be from 1 to " + std::to_string(kMaxKeep) + ", got " + std::to_string(keep));
  if (!(timeout_s >= 0) || timeout_s > 86400)
    return InputError("--lock-timeout must be between 0 and 86400 seconds");
  return Status::Ok();
}

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return (!path.empty() && path.back() == '/') || std::filesystem::is_directory(path, ec);
}

/// Creates the folders above `path` (mkdir -p of its DirName).
Status MakeParentDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(DirName(path), ec);
  if (ec) return ToolError(DirName(path) + ": cannot create folder: " + ec.message());
  return Status::Ok();
}

/// The history `baseline update` appends to, checked before any work: a
/// named file or folder that is not a stream and not the results file read.
Status CheckBaselineTarget(const std::string& path, const std::string& results_path) {
  if (path.empty()) return InputError("--baseline '': an empty name; name a history file or a baselines folder");
  if (path == "-" || IsStdoutPath(path))
    return InputError("--baseline " + path + ": a history is a file that each update reads and "
                      "rewrites, not a stream; name a file or a baselines folder");
  std::error_code ec;
  if (path == results_path || (std::filesystem::equivalent(path, results_path, ec) && !ec))
    return InputError("--baseline " + path + ": that is the --results file; --baseline names the history the "
                      "run is appended to (created when missing) or a baselines folder");
  return Status::Ok();
}

/// Whether the file's first bytes name the results schema (a results file
/// given where a history goes).
// Whether `path` is one run's results: its top-level "schema" says so. A
// history holds results too (its runs), so text alone cannot tell; a file
// that does not parse is neither, and keeps its own error.
bool IsResultsFile(const std::string& path) {
  Result<std::string> text = ReadFile(path, InputKind::kData);
  if (!text.ok()) return false;
  Result<JsonValue> doc = ParseJson(*text, path);
  if (!doc.ok()) return false;
  const JsonValue* schema = doc->Find("schema");
  return schema != nullptr && schema->IsString() && schema->string.starts_with("gpugate/results/");
}

std::string ShortSha(const std::optional<std::string>& sha) { return sha ? EscapeTerminal(ShortenText(*sha, 7)) : "-"; }

/// Runs written by a newer gpugate (a later results minor version) lose the
/// fields this one does not know when the history is rewritten: say so.
void WarnNewerRuns(const std::string& path, const Baseline& baseline) {
  std::string ids;
  int n = 0;
  for (const Results& r : baseline.runs) {
    if (!r.newer_minor) continue;
    if (++n <= 3) ids += (ids.empty() ? "" : ", ") + r.run.run_id;
  }
  if (n == 0) return;
  ReportWarning(path + ": " + FormatCount(static_cast<size_t>(n), "run") + " (" + ids + (n > 3 ? ", ..." : "") +
                (n == 1 ? ") was" : ") were") + " written by a newer gpugate; the fields this one does not know are dropped "
                "from them as the history is rewritten (update histories with the newest gpugate)");
}

int Update(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("results,r", po::value<std::string>()->required(), "results of one complete run (merge shards first)")
      ("baseline,b", po::value<std::string>()->required(),
       "baseline file to update (created when missing); a folder means <folder>/<suite>/<runner class>.json")
      ("keep,k", po::value<int>()->default_value(kDefaultKeep), "keep the K runs added last (the history is in the order runs were added)")
      ("force", "append even when the environment differs: re-keys the baseline and drops its runs of the other "
                "environment; or when a workload's unit changed: drops its older values in the other unit")
      ("run-id", po::value<std::string>(),
       "the id the run is stored under (default: a gpugate run's own; for another tool's file a hash of "
       "its content (of a trace: of what it measured), and for custom JSON also GITHUB_RUN_ID when set, so a re-run of one workflow run "
       "counts once and the next night's identical values are a run of their own)");
  AddLockTimeoutOption(options);
  AddEnvKeyOption(options);
  AddIngestOptions(options, "--results of");
  po::positional_options_description positional;
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  Result<std::optional<std::string>> env_key_or = EnvKeyFrom(vm);
  if (!env_key_or.ok()) return ReportError(env_key_or.error());
  const std::optional<std::string> env_key = *env_key_or;

  const int keep = vm["keep"].as<int>();
  const double lock_timeout = vm["lock-timeout"].as<double>();
  if (Status st = CheckKeepAndLockTimeout(keep, lock_timeout); !st.ok()) return ReportError(st.error());
  const std::string results_path = vm["results"].as<std::string>();
  std::string path = vm["baseline"].as<std::string>();
  if (Status st = CheckBaselineTarget(path, results_path); !st.ok()) return ReportError(st.error());
  Result<std::vector<Results>> runs = LoadRuns(results_path, IngestOptionsFrom(vm));
  if (!runs.ok()) return ReportError(runs.error());
  if (vm.count("bigger-is-better") && !runs->empty() && runs->back().run.source_format != "custom")
    return ReportError(InputError("--bigger-is-better reads custom benchmark JSON ([{name, unit, value}]), and " +
                                  results_path + " is not; other formats carry their own direction"));
  // A history holds many runs: taking its newest would drop the others
  // without a word.
  if (runs->size() > 1)
    return ReportError(InputError(results_path + ": a baseline history of " + std::to_string(runs->size()) +
                                  " runs, not the results of one run; give one run's results "
                                  "(gpugate run -o FILE), or copy the history file to start another"));
  Result<Results> run = std::move(runs->back());
  // Another tool's file takes the hosted runner's class (as compare FOLDER
  // looks it up), unless the history it joins holds its runs without a
  // class (one begun before they took it).
  bool defaulted = false;
  if (env_key) run->run.env.runner_class = env_key;
  else defaulted = DefaultRunnerClassOfIngested(&*run);
  if (vm.count("run-id")) {
    const std::string id = vm["run-id"].as<std::string>();
    if (std::optional<std::string> problem = RunIdProblem(id))
      return ReportError(InputError("--run-id " + QuoteInput(id) + ": " + *problem));
    run->run.run_id = id;
  } else if (run->run.source_format == "custom") {
    // Another tool's file carries no run id: its content names it. Timings
    // (Google Benchmark, nvbench, pytest-benchmark) make that content one
    // run's; custom JSON of sizes or counts repeats it from night to night.
    // The workflow run tells those nights apart.
    const char* gh = std::getenv("GITHUB_RUN_ID");
    if (gh != nullptr && *gh != '\0' && NameProblem(gh) == std::nullopt && std::strlen(gh) <= 64)
      run->run.run_id += "-gh" + std::string(gh);
  }

  if (IsDirectory(path))
    path = defaulted ? FolderFileOfDefaultedClass(path, &*run)
                     : BaselinePath(path, run->run.suite, EnvironmentKey(run->run.env));
  if (Status st = MakeParentDirs(path); !st.ok()) return ReportError(st.error());
  // Read, append and write under the lock: a concurrent update waits and
  // then reads the file this one wrote.
  Result<FileLock> lock = LockBaseline(path, lock_timeout);
  if (!lock.ok()) return ReportError(lock.error());
  Baseline baseline;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    Result<Baseline> read = ReadBaselineFile(path);
    if (!read.ok() && IsResultsFile(path))
      return ReportError(InputError("--baseline " + path + ": this is a results file, not a baseline history; "
                                    "--baseline names the history the run is appended to (created when "
                                    "missing) or a baselines folder"));
    if (!read.ok()) return ReportError(read.error());  // its message starts with the file
    baseline = std::move(read).value();
    if (defaulted && !baseline.runs.empty() && !baseline.runs.back().run.env.runner_class)
      run->run.env.runner_class.reset();
  }
  const size_t before = baseline.runs.size();
  int other_env = 0;
  std::vector<std::string> notes;
  if (Status st = AppendRun(baseline, *run, keep, vm.count("force") > 0, path, &other_env, &notes); !st.ok())
    return ReportError(st.error().WithContext(path + ": appending " + vm["results"].as<std::string>()));
  for (const std::string& note : notes) ReportWarning(path + ": " + note);
  WarnNewerRuns(path, baseline);
  if (Status st = WriteBaselineFile(path, baseline); !st.ok()) return ReportError(st.error());
  const size_t dropped = before + 1 - baseline.runs.size();
  std::cout << EscapeTerminal(path) << ": appended run " << EscapeTerminal(run->run.run_id) << " (sha "
            << ShortSha(run->run.git_sha) << "); " << FormatCount(baseline.runs.size(), "run") << " kept, " << dropped
            << " dropped" << (other_env > 0 ? " (" + std::to_string(other_env) + " of the other environment)" : "")
            << "; environment " << EscapeTerminal(baseline.environment_key) << "\n";
  return 0;
}

/// Between-run spread of one workload: the CV of the run medians (on logs).
std::string BetweenRunCv(const std::vector<double>& medians) {
  if (medians.size() < 2) return "-";
  double mean = 0;
  for (double m : medians) mean += std::log(m);
  mean /= static_cast<double>(medians.size());
  double ss = 0;
  for (double m : medians) ss += (std::log(m) - mean) * (std::log(m) - mean);
  double sd = std::sqrt(ss / static_cast<double>(medians.size() - 1));
  return FormatShare(std::sqrt(std::expm1(sd * sd)), 1);
}

std::string Seconds(double s) {
  char buf[32];
  if (s >= 1) std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f ns", s * 1e9);
  return buf;
}

int Show(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()("baseline", po::value<std::string>()->required(), "baseline file");
  po::positional_options_description positional;
  positional.add("baseline", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  const std::string path = vm["baseline"].as<std::string>();
  Result<Baseline> b = ReadBaselineFile(path);
  if (!b.ok()) return ReportError(b.error());

  std::ostringstream out;
  out << EscapeTerminal(path) << ": suite " << EscapeTerminal(b->suite) << ", environment "
      << EscapeTerminal(b->environment_key) << ", " << FormatCount(b->runs.size(), "run") << ", oldest first\n\n";
  // Every field may come from a pull request: escaped, padded by display width.
  auto run_row = [&out](const std::string& n, const std::string& time, const std::string& sha,
                        const std::string& branch, const std::string& workloads, const std::string& rest) {
    out << "  " << PadText(n, 3, true) << "  " << PadText(time, 20) << "  " << PadText(sha, 8) << "  "
        << PadText(branch, 16) << "  " << PadText(workloads, 9, true) << "  " << rest << "\n";
  };
  run_row("#", "time (UTC)", "sha", "branch", "workloads", "run id / environment");
  // Within a runner class the CPU models may differ: then each run names its own.
  std::set<std::string> cpus;
  for (const auto& run : b->runs) cpus.insert(run.run.env.cpu_model);
  for (size_t i = 0; i < b->runs.size(); ++i) {
    const RunInfo& r = b->runs[i].run;
    std::string key = EnvironmentKey(r.env);
    std::string tag = key == b->environment_key ? "" : "  [" + EscapeTerminal(key) + "]";
    if (cpus.size() > 1) tag += "  (" + EscapeTerminal(r.env.cpu_model) + ")";
    run_row(std::to_string(i + 1), EscapeTerminal(r.time_utc), ShortSha(r.git_sha),
            EscapeTerminal(r.git_branch.value_or("-")), std::to_string(b->runs[i].workloads.size()),
            EscapeTerminal(r.run_id) + tag);
  }
  // Per workload: how many runs hold it, the median of run medians and the
  // spread between runs, which is what compare uses as between-run noise.
  // One pass over the runs: each name's measured results, oldest first.
  std::vector<std::string> names;
  std::unordered_map<std::string, std::vector<const WorkloadResult*>> measured;
  for (const auto& run : b->runs)
    for (const auto& w : run.workloads) {
      auto [it, added] = measured.try_emplace(w.name);
      if (added) names.push_back(w.name);
      if (w.status == WorkloadStatus::kOk) it->second.push_back(&w);
    }
  auto workload_row = [&out](const std::string& name, const std::string& runs, const std::string& median,
                             const std::string& cv) {
    out << "  " << PadText(name, 40) << "  " << PadText(runs, 5, true) << "  " << PadText(median, 14, true)
        << "  " << PadText(cv, 16, true) << "\n";
  };
  if (!names.empty()) {
    out << "\n";
    workload_row("workload", "runs", "median", "between-run CV");
  }
  for (const auto& name : names) {
    std::vector<double> medians;
    const std::vector<const WorkloadResult*>& results = measured[name];
    // The newest run's metric and unit name the row; a run in another (a
    // history written before gpugate refused a change of unit) is left out.
    const WorkloadResult* newest = results.empty() ? nullptr : results.back();
    for (const WorkloadResult* w : results) {
      if (w->metric != newest->metric || UnitKey(w->unit) != UnitKey(newest->unit)) continue;
      std::vector<double> all = AllSamples(*w);
      if (!all.empty()) medians.push_back(Median(all));
    }
    std::string median = "-";
    if (!medians.empty()) {
      median = newest == nullptr || HasTimeMetric(*newest)
                   ? Seconds(Median(medians))
                   : EscapeTerminal(FormatValueInUnit(Median(medians), newest->unit));
    }
    workload_row(EscapeTerminal(ShortenText(name, 40)), std::to_string(medians.size()), median,
                 BetweenRunCv(medians));
  }
  std::cout << out.str();
  return 0;
}

int Prune(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("baseline", po::value<std::string>()->required(), "baseline file")
      ("keep,k", po::value<int>()->required(), "keep the newest K runs");
  AddLockTimeoutOption(options);
  po::positional_options_description positional;
  positional.add("baseline", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  const int keep = vm["keep"].as<int>();
  const double lock_timeout = vm["lock-timeout"].as<double>();
  if (Status st = CheckKeepAndLockTimeout(keep, lock_timeout); !st.ok()) return ReportError(st.error());
  const std::string path = vm["baseline"].as<std::string>();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return ReportError(CannotOpen(path, ENOENT));
  Result<FileLock> lock = LockBaseline(path, lock_timeout);
  if (!lock.ok()) return ReportError(lock.error());
  Result<Baseline> b = ReadBaselineFile(path);
  if (!b.ok()) return ReportError(b.error());
  int dropped = PruneBaseline(*b, keep);
  if (dropped > 0) {
    WarnNewerRuns(path, *b);
    if (Status st = WriteBaselineFile(path, *b); !st.ok()) return ReportError(st.error());
  }
  std::cout << EscapeTerminal(path) << ": " << FormatCount(static_cast<size_t>(dropped), "run") << " dropped, " << b->runs.size() << " kept\n";
  return 0;
}

const CommandSpec kSubcommands[] = {
    {"update", "gpugate baseline update --results R --baseline B [--keep K] [--force] [--lock-timeout S]",
     "Append a run to a baseline history (atomic, serialised by <baseline>.lock), keeping the K runs added last.",
     nullptr},
    {"show", "gpugate baseline show B", "List the runs of a baseline and the noise between them.", nullptr},
    {"prune", "gpugate baseline prune B --keep K [--lock-timeout S]", "Drop all but the K runs added last.", nullptr},
};

}  // namespace

int BaselineCommand(const CommandSpec& self, const Args& args) {
  std::vector<std::string> names;
  for (const auto& s : kSubcommands) names.push_back(s.name);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::ostream& out = args.empty() ? std::cerr : std::cout;
    if (args.empty()) out << "gpugate: error: baseline: name a subcommand (update, show or prune)\n";
    out << "usage: " << self.usage << "\n\n" << self.summary << "\n\nsubcommands:\n";
    for (const auto& s : kSubcommands) out << "  " << s.usage << "\n      " << s.summary << "\n";
    return args.empty() ? 2 : 0;
  }
  Args rest(args.begin() + 1, args.end());
  for (const auto& s : kSubcommands) {
    if (args[0] != s.name) continue;
    CommandSpec spec{"baseline", s.usage, s.summary, nullptr};
    if (args[0] == "update") return Update(spec, rest);
    if (args[0] == "show") return Show(spec, rest);
    return Prune(spec, rest);
  }
  return ReportError(InputError("baseline: unknown subcommand '" + args[0] + "'" + DidYouMean(args[0], names) +
                                " (expected update, show or prune)"));
}

}  // namespace gpugate
