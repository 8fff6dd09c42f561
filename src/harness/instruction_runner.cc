// The instruction lane (see instruction_runner.h). Recipe of a run:
//   FindValgrind -> for each execution: Execute under cachegrind -> Count
//   (sum the files of every process) -> one round -> Summarize.
#include "harness/instruction_runner.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>

#include "harness/backends/process_backend.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/strings.h"

namespace gpugate {

namespace {

// Events of cachegrind's cache simulation, in the order it writes them.
constexpr const char* kL1Events[] = {"I1mr", "D1mr", "D1mw"};
constexpr const char* kLLEvents[] = {"ILmr", "DLmr", "DLmw"};

std::string At(const std::string& name, int line, int column, const std::string& message) {
  return name + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

bool IsExecutable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// Non-negative decimal integers of a cost line, or nothing when a field is not
// one (or overflows int64).
std::optional<std::vector<int64_t>> Numbers(std::string_view text, int* bad_column) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    const size_t start = i;
    unsigned __int128 v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      v = v * 10 + static_cast<unsigned>(text[i] - '0');
      if (v > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
        *bad_column = static_cast<int>(start);
        return std::nullopt;
      }
      ++i;
    }
    if (i == start || (i < text.size() && text[i] != ' ')) {
      *bad_column = static_cast<int>(i);
      return std::nullopt;
    }
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}


double SteadyClockSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One execution of a workload under cachegrind.
class InstructionRun {
 public:
  InstructionRun(const WorkloadSpec& spec, ProgressSink* progress) : spec_(spec), progress_(progress) {}

  WorkloadResult Run() {
    Describe();
    Result<std::string> valgrind = FindValgrind();
    if (!valgrind.ok()) return Fail(valgrind.error().message);
    valgrind_ = *valgrind;
    if (!Prepare()) return std::move(result_);
    const int rounds = std::max(1, spec_.sampling.rounds);
    std::vector<int64_t> cycles, l1, ll;
    double wall = 0;
    // `timeout` bounds the workload, as for every other kind: the
    // executions share it.
    deadline_ = SteadyClockSeconds() + spec_.sampling.timeout;
    for (int r = 0; r < rounds; ++r) {
      Result<InstructionCounts> counts = ExecuteOnce(&wall);
      if (!counts.ok()) return Fail("execution " + std::to_string(r + 1) + " of " + std::to_string(rounds) +
                                    ": " + counts.error().message);
      result_.rounds.push_back({static_cast<double>(counts->instructions)});
      if (auto c = counts->EstimatedCycles()) cycles.push_back(*c);
      if (counts->l1_misses) l1.push_back(*counts->l1_misses);
      if (counts->ll_misses) ll.push_back(*counts->ll_misses);
      if (progress_) progress_->RoundFinished(spec_, r, -1);
    }
    auto median = [](const std::vector<int64_t>& v) {
      std::vector<double> d(v.begin(), v.end());
      return Median(d);
    };
    if (!cycles.empty()) result_.counters["estimated_cycles"] = median(cycles);
    if (!l1.empty()) result_.counters["l1_misses"] = median(l1);
    if (!ll.empty()) result_.counters["ll_misses"] = median(ll);
    result_.counters["valgrind_wall_s"] = wall / rounds;
    result_.summary = Summarize(AllSamples(result_));
    AddLeftoverNote();
    return std::move(result_);
  }

 private:
  void Describe() {
    result_.name = spec_.name;
    result_.kind = ToString(spec_.kind);
    result_.backend = "cachegrind";
    result_.params = spec_.params;
    result_.tags = spec_.tags;
    result_.metric = "instructions";
    result_.unit = "instructions";
    result_.lower_is_better = true;
    result_.deterministic = true;
  }

  bool Prepare() {
    if (spec_.shell) {
      command_.argv = {"/bin/sh", "-c", spec_.argv[0], "sh"};
      command_.argv.insert(command_.argv.end(), spec_.argv.begin() + 1, spec_.argv.end());
    } else {
      command_.argv = spec_.argv;
    }
    std::vector<std::pair<std::string, std::string>> overrides(spec_.env.begin(), spec_.env.end());
    command_.envp = detail::MergeEnvironment(detail::InheritedEnvironment(), overrides);
    if (!spec_.cwd.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_directory(spec_.cwd, ec)) {
        Fail("cwd '" + spec_.cwd + "' is not a directory");
        return false;
      }
      command_.cwd = spec_.cwd;
    }
    return true;
  }

  Result<InstructionCounts> ExecuteOnce(double* wall) {
    TempDir dir("gpugate-cachegrind");
    if (dir.path().empty()) return ToolError("cannot create a temporary folder for cachegrind's output");
    detail::CommandLine run = command_;
    run.argv = CachegrindArgv(valgrind_, command_.argv, dir.path(), spec_.cache_sim);
    const double remaining = deadline_ - SteadyClockSeconds();
    if (remaining <= 0) return ToolError(detail::TimedOutMessage(spec_.sampling.timeout) + " under valgrind");
    auto outcome = detail::ExecuteOnce(run, remaining, ProcessBackendOptions{});
    if (!outcome.ok()) return outcome.error();
    const detail::ExecOutcome& o = outcome.value();
    leftovers_.Add(o.leftovers);
    *wall += o.wall_seconds;
    const std::string tail = o.stderr_tail.empty() ? "" : "; stderr (last lines):\n" + o.stderr_tail;
    if (o.timed_out) return ToolError(detail::TimedOutMessage(spec_.sampling.timeout) + " under valgrind" + tail);
    if (!(WIFEXITED(o.wait_status) && WEXITSTATUS(o.wait_status) == 0))
      return ToolError("'" + spec_.argv[0] + "' under valgrind " + detail::DescribeWaitStatus(o.wait_status) + tail);
    InstructionCounts total;
    int files = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path(), ec)) {
      // A process the command left behind was ended wherever it had got to:
      // its count is not part of the workload.
      if (LeftBehind(o.leftovers, entry.path().filename().string())) continue;
      Result<std::string> text = ReadWorkloadFile(entry.path().string());
      if (!text.ok()) return text.error();
      Result<InstructionCounts> c = ParseCachegrindOut(*text, entry.path().filename().string());
      if (!c.ok()) return c.error();
      total.instructions += c->instructions;
      if (c->l1_misses) total.l1_misses = total.l1_misses.value_or(0) + *c->l1_misses;
      if (c->ll_misses) total.ll_misses = total.ll_misses.value_or(0) + *c->ll_misses;
      ++files;
    }
    if (files == 0) return ToolError("valgrind wrote no cachegrind output" + tail);
    return total;
  }

  WorkloadResult Fail(const std::string& reason) {
    result_.status = WorkloadStatus::kFailed;
    result_.reason = reason;
    result_.summary = Summarize(AllSamples(result_));
    AddLeftoverNote();
    return std::move(result_);
  }

  // "cg.<pid>" of a process in `leftovers`.
  static bool LeftBehind(const LeftoverReport& leftovers, const std::string& file) {
    if (file.rfind("cg.", 0) != 0) return false;
    const std::string pid = file.substr(3);
    for (pid_t p : leftovers.ended)
      if (pid == std::to_string(p)) return true;
    return false;
  }

  void AddLeftoverNote() {
    if (std::string note = leftovers_.Note(); !note.empty()) result_.notes.push_back(std::move(note));
  }

  const WorkloadSpec& spec_;
  ProgressSink* progress_;
  std::string valgrind_;
  detail::CommandLine command_;
  WorkloadResult result_;
  LeftoverTally leftovers_;
  double deadline_ = 0;  // steady-clock time the workload must end by
};

}  // namespace

std::optional<int64_t> InstructionCounts::EstimatedCycles() const {
  if (!l1_misses || !ll_misses) return std::nullopt;
  return instructions + 10 * *l1_misses + 100 * *ll_misses;
}

Result<std::string> FindValgrind() {
  if (const char* env = std::getenv("GPUGATE_VALGRIND"); env && *env) {
    if (IsExecutable(env)) return std::string(env);
    return ToolError(std::string("GPUGATE_VALGRIND='") + env + "' is not an executable file");
  }
  const char* path = std::getenv("PATH");
  for (const std::string& dir : Split(path ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/valgrind";
    if (IsExecutable(candidate)) return candidate;
  }
  return ToolError(
      "measure: instructions needs valgrind, which is not installed (not on PATH): install the "
      "'valgrind' package (apt-get install valgrind) or set GPUGATE_VALGRIND to its path");
}

std::vector<std::string> CachegrindArgv(const std::string& valgrind, const std::vector<std::string>& argv,
                                        const std::string& out_dir, bool cache_sim) {
  std::vector<std::string> out = {valgrind,
                                  "--tool=cachegrind",
                                  std::string("--cache-sim=") + (cache_sim ? "yes" : "no"),
                                  "--branch-sim=no",
                                  "--trace-children=yes",
                                  "--cachegrind-out-file=" + out_dir + "/cg.%p",
                                  "-q"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

Result<InstructionCounts> ParseCachegrindOut(std::string_view text, const std::string& name) {
  std::vector<std::string> events;
  int events_line = 0;
  std::optional<std::vector<int64_t>> summary;
  std::vector<int64_t> sums;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (StartsWith(line, "events:")) {
      if (!events.empty()) return InputError(At(name, line_no, 1, "a second 'events:' line"));
      for (const std::string& e : Split(Trim(line.substr(7)), ' '))
        if (!e.empty()) events.push_back(e);
      if (events.empty()) return InputError(At(name, line_no, 8, "'events:' names no event"));
      events_line = line_no;
      sums.assign(events.size(), 0);
      continue;
    }
    if (StartsWith(line, "summary:") || StartsWith(line, "totals:")) {
      const size_t skip = line[0] == 's' ? 8 : 7;
      if (events.empty()) return InputError(At(name, line_no, 1, "a summary before the 'events:' line"));
      int bad = 0;
      auto v = Numbers(line.substr(skip), &bad);
      if (!v) return InputError(At(name, line_no, static_cast<int>(skip) + bad + 1, "not a count"));
      if (v->size() > events.size())
        return InputError(At(name, line_no, 1, "more counts than the " + std::to_string(events.size()) +
                                                   " events of line " + std::to_string(events_line)));
      v->resize(events.size(), 0);
      if (line[0] == 's') summary = std::move(v);
      continue;
    }
    if (line[0] >= '0' && line[0] <= '9') {
      if (events.empty()) return InputError(At(name, line_no, 1, "a cost line before the 'events:' line"));
      int bad = 0;
      auto v = Numbers(line, &bad);
      if (!v || v->empty()) return InputError(At(name, line_no, bad + 1, "not a cost line"));
      // First number: the source line; then one count per event (missing = 0).
      if (v->size() - 1 > events.size())
        return InputError(At(name, line_no, 1, "more counts than events"));
      for (size_t i = 1; i < v->size(); ++i) {
        if (sums[i - 1] > std::numeric_limits<int64_t>::max() - (*v)[i])
          return InputError(At(name, line_no, 1, "counts overflow"));
        sums[i - 1] += (*v)[i];
      }
      continue;
    }
    // desc:, cmd:, fl=, fn=, fi=, fe=, ob= and other header lines carry no counts.
  }
  if (events.empty()) return InputError(At(name, 1, 1, "not a cachegrind output file: no 'events:' line"));
  const std::vector<int64_t>& total = summary ? *summary : sums;
  auto index = [&](const char* e) -> std::optional<size_t> {
    auto it = std::find(events.begin(), events.end(), e);
    if (it == events.end()) return std::nullopt;
    return static_cast<size_t>(it - events.begin());
  };
  auto ir = index("Ir");
  if (!ir) return InputError(At(name, events_line, 1, "the events do not include Ir (instructions)"));
  InstructionCounts c;
  c.instructions = total[*ir];
  auto add = [&](const char* const (&names)[3]) -> std::optional<int64_t> {
    int64_t s = 0;
    for (const char* e : names) {
      auto i = index(e);
      if (!i) return std::nullopt;
      s += total[*i];
    }
    return s;
  };
  c.l1_misses = add(kL1Events);
  c.ll_misses = add(kLLEvents);
  return c;
}

WorkloadResult RunInstructionWorkload(const WorkloadSpec& spec, ProgressSink* progress) {
  return InstructionRun(spec, progress).Run();
}

}  // namespace gpugate
