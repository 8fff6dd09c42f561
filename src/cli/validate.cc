// `gpugate validate SUITE`: parse, expand and list the workloads.
#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cli/command.h"
#include "cli/run_summary.h"
#include "harness/program_runner.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

// One element of an argument vector as validate shows it, terminal-safe
// (EscapeTerminal: a backslash is "\\", a control character "\xNN"): as it
// is when nothing in it could blur where it ends, else in double quotes with
// '"' written '\"', so that [a, "x, y"] and [a, x, y] read apart.
std::string ArgText(const std::string& arg) {
  const std::string text = EscapeTerminal(arg);
  if (!text.empty() && text.find_first_of(" \t,\"\\[]'") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ArgvText(const std::vector<std::string>& argv) {
  std::string d = "[";
  for (size_t i = 0; i < argv.size(); ++i) d += (i ? ", " : "") + ArgText(argv[i]);
  return d + "]";
}

// What a workload runs, one line, terminal-safe: every piece of the suite's
// text in it is escaped.
std::string Describe(const WorkloadSpec& w) {
  std::string d;
  switch (w.kind) {
    case WorkloadKind::kBuiltin:
      d = "kernel=" + EscapeTerminal(w.kernel) + " backend=" + EscapeTerminal(w.backend) +
          (w.l2_cold ? " l2=cold" : " l2=hot");
      break;
    case WorkloadKind::kCommand:
      d = "argv=" + ArgvText(w.argv);
      if (w.shell) d += " shell";
      if (!w.results.empty())
        d += " results=" + EscapeTerminal(w.results) + " (each benchmark in it a workload) " +
             FormatCount(static_cast<size_t>(std::max(0, w.sampling.rounds)), "execution") + ", one round each";
      if (w.measure == "instructions")
        d += std::string(" measure=instructions (under valgrind's cachegrind") +
             (w.cache_sim ? ", cache simulation" : "") + ") " +
             FormatCount(static_cast<size_t>(std::max(0, w.sampling.rounds)), "execution");
      break;
    case WorkloadKind::kGbench:
    case WorkloadKind::kNvbench: {
      d = "runs " + ArgvText(ProgramArgv(w, "<json>")) + " " + std::to_string(w.sampling.rounds) + (w.sampling.rounds == 1 ? " process" : " processes") +
           ", one round each";
      break;
    }
    case WorkloadKind::kSynthetic: {
      char buf[128];
      std::snprintf(buf, sizeof buf, "median=%gs cv=%g slowdown=%g", w.synthetic.median,
                    w.synthetic.cv, w.synthetic.slowdown);
      d = buf;
      break;
    }
    case WorkloadKind::kStatic:
      d = "file=" + EscapeTerminal(w.file) + (w.ptxas_log.empty() ? "" : " ptxas_log=" + EscapeTerminal(w.ptxas_log)) +
          " (static kernel metrics, read once)";
      break;
  }
  if (w.skip_unchanged_all) {
    // One line per workload, however many static workloads the suite has.
    d += " skip_unchanged=true (every static workload: " + EscapeTerminal(JoinAtMost(*w.skip_unchanged_all, 5)) + ")";
  } else if (!w.skip_unchanged.empty()) {
    d += " skip_unchanged=[" + EscapeTerminal(JoinAtMost(w.skip_unchanged, w.skip_unchanged.size())) + "]";
  }
  return d;
}

// A program's results are named "<workload>/<benchmark>": another workload
// named so would be one name twice if the program reports that benchmark
// (gpugate run keeps the first and fails the second as "<name> (duplicate
// 2)"). What a program reports is known only when it runs; say it here.
// The names are sorted once: those that start with "<program>/" are then one
// run found by binary search, so the check costs O(n log n) name compares
// plus the warnings, not one compare per pair of workloads.
void WarnOfBenchmarkLikeNames(const std::vector<WorkloadSpec>& workloads) {
  std::vector<const WorkloadSpec*> by_name;
  by_name.reserve(workloads.size());
  for (const WorkloadSpec& w : workloads) by_name.push_back(&w);
  std::sort(by_name.begin(), by_name.end(),
            [](const WorkloadSpec* a, const WorkloadSpec* b) { return a->name < b->name; });
  for (const WorkloadSpec& program : workloads) {
    if (!ReportsBenchmarks(program)) continue;
    const std::string prefix = program.name + "/";
    auto it = std::lower_bound(by_name.begin(), by_name.end(), prefix,
                               [](const WorkloadSpec* w, const std::string& p) { return w->name < p; });
    for (; it != by_name.end() && (*it)->name.compare(0, prefix.size(), prefix) == 0; ++it) {
      const WorkloadSpec& other = **it;
      ReportWarning((other.location.line > 0 ? other.location.ToString() + ": " : std::string()) + "workload " +
                    QuoteInput(other.name) + " is named like a benchmark of " +
                    (program.location.line > 0 ? "the program at line " + std::to_string(program.location.line) + ", "
                                               : std::string()) +
                    QuoteInput(program.name) + ": if that program reports " +
                    QuoteInput(other.name.substr(prefix.size())) +
                    ", the two results have one name and gpugate run fails the second; rename one");
    }
  }
}

}  // namespace

int ValidateCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()("suite", po::value<std::string>()->required(), "suite file (YAML)");
  AddSelectionOptions(options);
  options.add_options()("bin", po::value<std::string>(),
                        "build folder that {bin} stands for (shown resolved when given)");
  po::positional_options_description positional;
  positional.add("suite", 1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;

  Result<SuiteSelection> sel = SelectFromOptions(vm["suite"].as<std::string>(), vm);
  if (!sel.ok()) return ReportError(sel.error());
  if (sel->workloads.empty())
    ReportWarning(EmptyShardText(*sel) + " (gpugate run writes an empty shard for gpugate merge)");
  if (vm.count("bin"))
    if (Status st = ApplyBinOption(&*sel, vm); !st.ok()) return ReportError(st.error());
  const Suite& suite = sel->suite;
  std::cout << "suite '" << EscapeTerminal(suite.name) << "' (version " << suite.version << "): "
            << FormatCount(suite.workloads.size(), "workload") << ", " << sel->workloads.size() << " selected\n";
  // Each workload's metric plans, by its name (a linear pass: 100,000
  // workloads each with a plan were compared with each other's).
  std::unordered_map<std::string_view, std::vector<const WorkloadMetricPlan*>> plans;
  for (const WorkloadMetricPlan& p : sel->metric_plans) plans[p.workload].push_back(&p);
  for (const auto& w : sel->workloads) {
    std::cout << "  " << EscapeTerminal(w.name) << "  [" << ToString(w.kind) << "] "
              << Describe(w);  // terminal-safe piece by piece
    if (!w.tags.empty()) {
      std::cout << "  tags:";
      for (const auto& t : w.tags) std::cout << " " << EscapeTerminal(t);
    }
    std::cout << "\n";
    if (auto found = plans.find(w.name); found != plans.end())
      for (const WorkloadMetricPlan* p : found->second)
        std::cout << "    metrics on " << EscapeTerminal(p->plan.chip) << ": " << p->plan.metrics.size() << ", "
                  << p->plan.passes << " replay pass" << (p->plan.passes == 1 ? "" : "es")
                  << " per kernel (checked with CUPTI; collected for builtin kernels on a CUDA device)\n";
  }
  WarnOfBenchmarkLikeNames(suite.workloads);
  return 0;
}

}  // namespace gpugate
