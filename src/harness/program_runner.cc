// Benchmark programs as workloads (see program_runner.h). Recipe of a run:
//   for each process: Execute -> Merge (one round per benchmark)
//   then Finish (summaries, throughput, counters over processes).
#include "harness/program_runner.h"

#include <stdlib.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_set>
#include <utility>

#include "cupti/tracer.h"
#include "harness/backends/process_backend.h"
#include "ingest/format.h"
#include "ingest/gbench.h"
#include "ingest/nvbench.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

// Fewest processes run before the max_time budget may stop a program early:
// two rounds give the judge a first look at the noise between processes.
constexpr int kMinProcesses = 2;

// Google Benchmark's --benchmark_min_time takes seconds as a number.
std::string MinTimeText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", s);
  return buf;
}

// Counters that describe one process's file, not the merged rounds.
bool PerFileFlag(const std::string& key) {
  return key == "single_sample" || key == "only_aggregates" || key == "only_summary" ||
         key == "summary_is_mean" || key == "sample_file_missing";
}


using Params = std::vector<std::pair<std::string, std::string>>;

// The spec's params, then the program's own (nvbench axes, a `results:`
// file's params). A key both give with the same text is one entry; with
// another text the program's value (what ran) is kept beside the suite's as
// "<key> (program)": no benchmark fails for it, no key is written twice, and
// no two values are taken for one (0.50 and 0.5, 2^10 and 1024, True and
// true, 9007199254740993 and ...992 read alike only to some readers). Those
// names are given first, so "<key> (program)" holds the program's <key>
// whatever the order of its keys; a program key of its own that reads so
// takes one more " (program)".
Params MergeParams(const Params& suite, const Params& own) {
  Params out = suite;
  auto taken = [&out](const std::string& key) {
    return std::any_of(out.begin(), out.end(), [&key](const auto& p) { return p.first == key; });
  };
  std::vector<bool> placed(own.size(), false);
  for (size_t i = 0; i < own.size(); ++i) {
    auto same = std::find_if(suite.begin(), suite.end(), [&](const auto& p) { return p.first == own[i].first; });
    if (same == suite.end()) continue;
    placed[i] = true;
    if (same->second == own[i].second) continue;
    std::string key = own[i].first + " (program)";
    while (taken(key)) key += " (program)";
    out.push_back({key, own[i].second});
  }
  for (size_t i = 0; i < own.size(); ++i) {
    if (placed[i]) continue;
    std::string key = own[i].first;
    while (taken(key)) key += " (program)";
    out.push_back({key, own[i].second});
  }
  return out;
}

// Flattens an ingested workload into one round (one process) named after the
// spec, carrying the spec's params and tags before the program's own params
// (MergeParams).
WorkloadResult AsProcessRound(const WorkloadSpec& spec, WorkloadResult w) {
  WorkloadResult out = std::move(w);
  out.name = spec.name + "/" + out.name;
  out.kind = ToString(spec.kind);
  out.backend = "process";
  out.params = MergeParams(spec.params, out.params);
  std::vector<std::string> tags = spec.tags;
  for (const std::string& t : out.tags)
    if (std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
  out.tags = std::move(tags);
  std::vector<double> samples = AllSamples(out);
  out.rounds.clear();
  if (!samples.empty()) out.rounds.push_back(std::move(samples));
  return out;
}

// The benchmarks of one process, merged over processes.
class ProgramRun {
 public:
  ProgramRun(const WorkloadSpec& spec, ProgressSink* progress, Clock& clock,
             const ProgramExecutor& execute, const ProcessNumbering& numbering)
      : spec_(spec), progress_(progress), clock_(clock), execute_(execute), numbering_(numbering) {}

  std::vector<WorkloadResult> Run() {
    const double start = clock_.Now();
    const int rounds = std::max(1, spec_.sampling.rounds);
    for (int p = 0; p < rounds; ++p) {
      const double elapsed = clock_.Now() - start;
      if (p >= kMinProcesses && elapsed >= spec_.sampling.max_time) break;
      ProgramProcess proc = execute_(spec_, spec_.sampling.timeout);
      leftovers_.Add(proc.leftovers);
      if (proc.cupti) cupti_.Add(*proc.cupti);
      if (proc.failure) {
        Failed(p, rounds, *proc.failure);
        break;
      }
      if (proc.benchmarks.empty()) {
        Failed(p, rounds, "the program reported no benchmark" +
                              std::string(spec_.filter.empty() ? "" : " (filter '" + spec_.filter +
                                                                           "' matched none?)"));
        break;
      }
      Merge(p, std::move(proc.benchmarks));
      if (progress_) progress_->RoundFinished(spec_, p, -1);
    }
    const std::string note = leftovers_.Note();
    for (WorkloadResult& w : out_) {
      if (!note.empty()) w.notes.push_back(note);
      if (spec_.profile == "cupti")
        cupti_.Annotate(w, "the kernels are those of the whole process (every benchmark it ran); "
                           "select one benchmark with 'filter' for its kernels alone");
      Finish(w);
      if (progress_) progress_->WorkloadFinished(w);
    }
    return std::move(out_);
  }

 private:
  // "process 2", or "round 3" in ab: the numbering's name of a process.
  std::string ProcessName(int process) const {
    return numbering_.unit + " " + std::to_string(numbering_.first + process);
  }

  void Failed(int process, int rounds, const std::string& why) {
    const std::string reason = ProcessName(process) + " of " +
                               std::to_string(numbering_.total > 0 ? numbering_.total : rounds) + ": " + why;
    if (out_.empty()) {
      WorkloadResult w;
      w.name = spec_.name;
      w.kind = ToString(spec_.kind);
      w.backend = "process";
      w.params = spec_.params;
      w.tags = spec_.tags;
      w.status = WorkloadStatus::kFailed;
      w.reason = reason;
      out_.push_back(std::move(w));
      return;
    }
    for (WorkloadResult& w : out_) {
      if (w.status != WorkloadStatus::kOk) continue;
      w.status = WorkloadStatus::kFailed;
      w.reason = reason;
    }
  }

  void Merge(int process, std::vector<WorkloadResult> benchmarks) {
    std::vector<char> seen(out_.size(), 0);
    for (WorkloadResult& b : benchmarks) {
      WorkloadResult round = AsProcessRound(spec_, std::move(b));
      auto it = index_.find(round.name);
      if (it == index_.end()) {
        index_[round.name] = out_.size();
        seen.push_back(1);
        if (process > 0 && round.status == WorkloadStatus::kOk) {
          // Every process is one round of every benchmark: one that the
          // earlier processes did not report has fewer rounds than its
          // siblings, from other processes, and is no result.
          round.status = WorkloadStatus::kFailed;
          round.reason = ProcessName(process) + " reported this benchmark, which earlier processes did not";
        }
        Collect(out_.size(), round);
        out_.push_back(std::move(round));
        continue;
      }
      seen[it->second] = 1;
      WorkloadResult& into = out_[it->second];
      if (into.status != WorkloadStatus::kOk) continue;
      if (round.status != WorkloadStatus::kOk) {
        into.status = round.status;
        into.reason = ProcessName(process) + ": " + round.reason;
        continue;
      }
      Collect(it->second, round);
      for (auto& r : round.rounds) into.rounds.push_back(std::move(r));
    }
    for (size_t i = 0; i < out_.size(); ++i) {
      if (seen[i] || out_[i].status != WorkloadStatus::kOk) continue;
      out_[i].status = WorkloadStatus::kFailed;
      out_[i].reason = ProcessName(process) + " did not report this benchmark, which earlier processes did";
    }
  }

  // Per-process readings whose merged value is their median over processes.
  void Collect(size_t i, const WorkloadResult& round) {
    PerProcess& p = per_process_[i];
    if (round.bytes_per_second) p.bytes_per_second.push_back(*round.bytes_per_second);
    if (round.flops_per_second) p.flops_per_second.push_back(*round.flops_per_second);
    for (const auto& [k, v] : round.counters)
      if (!PerFileFlag(k)) p.counters[k].push_back(v);
  }

  void Finish(WorkloadResult& w) {
    auto it = index_.find(w.name);
    if (it == index_.end()) return;  // the failed spec placeholder
    PerProcess& p = per_process_[it->second];
    const size_t processes = w.rounds.size();
    if (processes > 1) {
      for (auto c = w.counters.begin(); c != w.counters.end();)
        c = PerFileFlag(c->first) ? w.counters.erase(c) : std::next(c);
      for (auto& [k, values] : p.counters) w.counters[k] = Median(values);
    }
    if (!p.bytes_per_second.empty()) w.bytes_per_second = Median(p.bytes_per_second);
    if (!p.flops_per_second.empty()) w.flops_per_second = Median(p.flops_per_second);
    w.counters["processes"] = static_cast<double>(processes);
    w.summary = Summarize(AllSamples(w));
  }

  struct PerProcess {
    std::vector<double> bytes_per_second, flops_per_second;
    std::map<std::string, std::vector<double>> counters;
  };

  const WorkloadSpec& spec_;
  ProgressSink* progress_;
  Clock& clock_;
  const ProgramExecutor& execute_;
  const ProcessNumbering numbering_;
  std::vector<WorkloadResult> out_;
  std::map<std::string, size_t> index_;
  std::map<size_t, PerProcess> per_process_;
  LeftoverTally leftovers_;
  CuptiKernelPool cupti_;  ///< profile: cupti, over processes
};

bool IsEreSpecial(char c) {
  switch (c) {
    case '.': case '[': case '{': case '(': case ')': case '*': case '+':
    case '?': case '^': case '$': case '|': case '\\':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string ExactNamesFilter(const std::vector<std::string>& names) {
  std::string out = "^(";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += '|';
    for (char c : names[i]) {
      // ']' and '}' as one-character brackets: libstdc++'s std::regex (which
      // Google Benchmark may use) rejects "\\]" and "\\}"; regcomp accepts both.
      if (c == ']' || c == '}') {
        out += '[';
        out += c;
        out += ']';
        continue;
      }
      if (IsEreSpecial(c)) out += '\\';
      out += c;
    }
  }
  return out + ")$";
}

std::vector<std::string> ProgramArgv(const WorkloadSpec& spec, const std::string& json_path) {
  std::vector<std::string> argv = spec.argv;
  if (spec.kind == WorkloadKind::kCommand) {
    if (!spec.shell) return argv;
    std::vector<std::string> out = {"/bin/sh", "-c", spec.argv[0], "sh"};
    out.insert(out.end(), spec.argv.begin() + 1, spec.argv.end());
    return out;
  }
  if (spec.kind == WorkloadKind::kGbench) {
    const std::string filter = !spec.only_benchmarks.empty() ? ExactNamesFilter(spec.only_benchmarks)
                                                             : spec.filter;
    if (!filter.empty()) argv.push_back("--benchmark_filter=" + filter);
    if (spec.repetitions > 0) argv.push_back("--benchmark_repetitions=" + std::to_string(spec.repetitions));
    if (spec.program_min_time) argv.push_back("--benchmark_min_time=" + MinTimeText(*spec.program_min_time));
    argv.push_back("--benchmark_out=" + json_path);
    argv.push_back("--benchmark_out_format=json");
  } else {
    const std::vector<std::string>& benchmarks =
        !spec.only_benchmarks.empty() ? spec.only_benchmarks : spec.benchmarks;
    if (benchmarks.empty()) {
      for (const std::string& a : spec.axes) argv.insert(argv.end(), {"--axis", a});
    }
    for (const std::string& b : benchmarks) {
      argv.insert(argv.end(), {"--benchmark", b});
      for (const std::string& a : spec.axes) argv.insert(argv.end(), {"--axis", a});
    }
    argv.insert(argv.end(), {"--jsonbin", json_path});
  }
  return argv;
}

bool SelectionFitsTheCommandLine(const WorkloadSpec& spec) {
  // Linux refuses an argument of 32 pages (MAX_ARG_STRLEN, 128 KiB) or more,
  // and the whole of argv and the environment past a quarter of the stack
  // limit (2 MiB by default); these bounds leave room for the rest.
  constexpr size_t kArgument = 100 * 1024;
  constexpr size_t kAll = 1024 * 1024;
  if (spec.only_benchmarks.empty()) return true;
  if (spec.kind == WorkloadKind::kGbench) return ExactNamesFilter(spec.only_benchmarks).size() < kArgument;
  size_t all = 0;
  for (const std::string& b : spec.only_benchmarks) {
    if (b.size() >= kArgument) return false;
    all += b.size() + 1 + (spec.axes.size() + 1) * 16;
    for (const std::string& a : spec.axes) all += a.size() + 1;
  }
  return all < kAll;
}

std::optional<std::string> ProgramBenchmarkOf(const WorkloadSpec& spec, const std::string& result_name) {
  if (!ReportsBenchmarks(spec)) return std::nullopt;
  const std::string prefix = spec.name + "/";
  if (result_name.size() <= prefix.size() || result_name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::string bench = result_name.substr(prefix.size());
  if (spec.kind == WorkloadKind::kNvbench) {
    // "<benchmark>/<state>" or "<benchmark> [devN]": nvbench selects benchmarks.
    bench = bench.substr(0, bench.find('/'));
    const size_t dev = bench.find(" [dev");
    if (dev != std::string::npos) bench.resize(dev);
  }
  return bench;
}

namespace {

// Runs one process of `spec` with `argv` and the spec's environment and cwd.
// Returns why it failed (cannot start, timeout, non-zero exit, signal), or
// nothing; `tail` gets the "; stderr (last lines): ..." suffix for messages.
std::optional<std::string> RunProcess(const WorkloadSpec& spec, std::vector<std::string> argv,
                                      double timeout_seconds, const std::string& who, std::string* tail,
                                      LeftoverReport* leftovers,
                                      const std::vector<std::pair<std::string, std::string>>& extra_env = {}) {
  detail::CommandLine command;
  command.argv = std::move(argv);
  std::vector<std::pair<std::string, std::string>> overrides(spec.env.begin(), spec.env.end());
  overrides.insert(overrides.end(), extra_env.begin(), extra_env.end());
  command.envp = detail::MergeEnvironment(detail::InheritedEnvironment(), overrides);
  command.cwd = spec.cwd;
  auto run = detail::ExecuteOnce(command, timeout_seconds, ProcessBackendOptions{});
  if (!run.ok()) return run.error().message;
  const detail::ExecOutcome& r = run.value();
  *leftovers = r.leftovers;
  *tail = r.stderr_tail.empty() ? "" : "; stderr (last lines):\n" + r.stderr_tail;
  if (r.timed_out) return detail::TimedOutMessage(timeout_seconds) + *tail;
  if (!(WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0))
    return who + " " + detail::DescribeWaitStatus(r.wait_status) + *tail;
  return std::nullopt;
}

// Modification time of a file, or nothing when it does not exist.
std::optional<std::filesystem::file_time_type> ModifiedAt(const std::string& path) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return t;
}

// A command with `results:`: run it, then read the benchmark file it wrote
// (it must have written it in this execution).
ProgramProcess RunCommandWithResults(const WorkloadSpec& spec, double timeout_seconds) {
  ProgramProcess out;
  std::filesystem::path file(spec.results);
  if (file.is_relative() && !spec.cwd.empty()) file = std::filesystem::path(spec.cwd) / file;
  const std::string path = file.string();
  const auto before = ModifiedAt(path);
  std::string tail;
  if (auto failed = RunProcess(spec, ProgramArgv(spec, path), timeout_seconds,
                               "command '" + spec.argv[0] + "'", &tail, &out.leftovers)) {
    out.failure = *failed;
    return out;
  }
  const auto after = ModifiedAt(path);
  if (!after || (before && *after == *before)) {
    out.failure = "the command did not write its results file '" + path + "'" + tail;
    return out;
  }
  IngestOptions options;
  options.bigger_is_better = spec.bigger_is_better;
  Result<std::string> text = ReadWorkloadFile(path);
  if (!text.ok()) {
    out.failure = "results file: " + text.error().message;
    return out;
  }
  Result<Results> parsed = IngestBenchmarkText(*text, path, options);
  if (!parsed.ok()) {
    out.failure = "results file: " + parsed.error().message;
    return out;
  }
  const std::unordered_set<std::string> only(spec.only_benchmarks.begin(), spec.only_benchmarks.end());
  for (WorkloadResult& w : parsed->workloads) {
    if (!only.empty() && only.count(w.name) == 0) continue;
    out.benchmarks.push_back(std::move(w));
  }
  return out;
}

}  // namespace

namespace detail {

std::string EmptyJsonReason(const std::string& program, const std::string& folder,
                            std::optional<int64_t> free_bytes) {
  std::string s = "'" + program + "' exited 0 but reported no benchmark (an empty JSON file: " +
                  "the filter matches none, or the program could not write it";
  if (free_bytes && *free_bytes < kNearlyFullBytes)
    s += ", and the file system of '" + folder + "' is full (" + FormatBytes(*free_bytes) + " free)";
  return s + ")";
}

std::optional<int64_t> FreeBytes(const std::string& folder) {
  struct statvfs st;
  if (::statvfs(folder.c_str(), &st) != 0) return std::nullopt;
  if (st.f_files > 0 && st.f_favail == 0) return 0;
  return static_cast<int64_t>(st.f_bavail) * static_cast<int64_t>(st.f_frsize);
}

}  // namespace detail

ProgramProcess RunProgramOnce(const WorkloadSpec& spec, double timeout_seconds) {
  if (spec.kind == WorkloadKind::kCommand) return RunCommandWithResults(spec, timeout_seconds);
  ProgramProcess out;
  TempDir dir("gpugate-program");
  if (dir.path().empty()) {
    out.failure = "cannot create a temporary folder for the program's JSON";
    return out;
  }
  const std::string json_path = dir.path() + "/out.json";
  if (!spec.cwd.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec)) {
      out.failure = "cwd '" + spec.cwd + "' is not a directory";
      return out;
    }
  }
  // profile: cupti: the injection library traces this process to trace_path.
  std::vector<std::pair<std::string, std::string>> cupti_env;
  const std::string trace_path = dir.path() + "/trace.json";
  if (spec.profile == "cupti") {
    Result<std::string> library = FindInjectionLibrary();
    if (!library.ok()) {
      out.failure = library.error().message;
      return out;
    }
    cupti_env = CuptiExecutionEnvironment(*library, trace_path);
  }
  std::string tail;
  if (auto failed = RunProcess(spec, ProgramArgv(spec, json_path), timeout_seconds,
                               "'" + spec.argv[0] + "'", &tail, &out.leftovers, cupti_env)) {
    out.failure = *failed;
    return out;
  }
  if (spec.profile == "cupti") {
    Result<CuptiExecution> traced = ReadCuptiExecution(trace_path);
    if (!traced.ok()) {
      out.failure = traced.error().message;
      return out;
    }
    out.cupti = std::move(traced).value();
  }
  Result<std::string> text = ReadWorkloadFile(json_path);
  std::error_code exists_error;
  if (!text.ok() && std::filesystem::symlink_status(json_path, exists_error).type() !=
                        std::filesystem::file_type::not_found) {
    // It wrote something that cannot be read as it is (larger than the
    // input limit, not a regular file): that reason, with its remedy.
    out.failure = "'" + spec.argv[0] + "' exited 0, but its JSON cannot be read: " + text.error().message + tail;
    return out;
  }
  if (!text.ok()) {
    out.failure = "'" + spec.argv[0] + "' exited 0 but wrote no JSON (is it a " +
                  std::string(ToString(spec.kind) == std::string("gbench") ? "Google Benchmark"
                                                                           : "nvbench") +
                  " program?)" + tail;
    return out;
  }
  // Google Benchmark leaves its output file empty when no benchmark ran (a
  // filter that matches none; its stderr says so) or when it could not
  // write it (a full disk).
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    const std::string folder = std::filesystem::path(dir.path()).parent_path().string();
    out.failure = detail::EmptyJsonReason(spec.argv[0], folder, detail::FreeBytes(dir.path())) + tail;
    return out;
  }
  const std::string label = spec.name + " (JSON of '" + spec.argv[0] + "')";
  Result<Results> parsed = spec.kind == WorkloadKind::kGbench
                               ? GbenchFromJson(*text, label)
                               : NvbenchFromJson(*text, label, dir.path());
  if (!parsed.ok()) {
    out.failure = "unreadable JSON: " + parsed.error().message + tail;
    return out;
  }
  out.benchmarks = std::move(parsed->workloads);
  return out;
}

std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress,
                                               Clock& clock, const ProgramExecutor& execute) {
  return ProgramRun(spec, progress, clock, execute, ProcessNumbering{}).Run();
}

std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress,
                                               Clock& clock, const ProgramExecutor& execute,
                                               const ProcessNumbering& numbering) {
  return ProgramRun(spec, progress, clock, execute, numbering).Run();
}

std::vector<WorkloadResult> RunProgramWorkload(const WorkloadSpec& spec, ProgressSink* progress,
                                               const ProcessNumbering& numbering) {
  SteadyClock clock;
  const ProgramExecutor execute = RunProgramOnce;
  return RunProgramWorkload(spec, progress, clock, execute, numbering);
}

}  // namespace gpugate
