// `gpugate analyze TRACE`: kernel / idle / launch / memory breakdown of a
// Chrome or Kineto trace and what the policy's rules find in it, with
// optional flame graph, timeline export and memory timeline. One streaming
// pass, plus a second one for --timeline.
// `gpugate analyze DIR|TRACES...` with several traces: one per rank of a
// job, analysed in parallel, and the multi-rank report (trace/ranks.h).
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "config/policy.h"
#include "trace/analysis.h"
#include "trace/findings.h"
#include "trace/flame.h"
#include "trace/memory_chart.h"
#include "trace/ranks.h"
#include "trace/ranks_render.h"
#include "trace/report_render.h"
#include "trace/timeline.h"
#include "trace/to_results.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> inputs;  ///< traces or directories of traces
  std::vector<std::string> baseline;  ///< --baseline: another job's traces (many ranks)
  std::string trace;                ///< the one trace (single-trace analysis)
  int jobs = 0;
  double straggler_pct = 10;
  std::string json, markdown, html, flame, timeline, memory, policy;
  std::string flame_view = "all";
  std::string timeline_categories, timeline_window;
  bool timeline_top_kernels = false;
  bool flame_view_given = false;  ///< --flame-view on the command line
  int top = 10;
  std::optional<int64_t> device;
  int64_t kernel_wait_ns = 30000;
};

/// "--flame F": HTML for .html/.htm, folded stacks for .folded/.txt.
Result<bool> FlameIsHtml(const std::string& path) {
  if (EndsWith(path, ".html") || EndsWith(path, ".htm")) return true;
  if (EndsWith(path, ".folded") || EndsWith(path, ".txt") || IsStdoutPath(path)) return false;
  return InputError("--flame '" + path + "': use a .html (interactive page) or .folded (folded stacks) file name");
}

/// "--flame-view all|cpu|gpu".
Result<FlameView> ParseFlameView(const std::string& text) {
  for (FlameView v : {FlameView::kAll, FlameView::kCpu, FlameView::kGpu})
    if (text == FlameViewName(v)) return v;
  return InputError("--flame-view " + QuoteInput(text) + ": expected all, cpu or gpu");
}

/// "--memory F": CSV, JSON or an SVG picture, by extension.
Status CheckMemoryPath(const std::string& path) {
  if (EndsWith(path, ".csv") || EndsWith(path, ".json") || EndsWith(path, ".svg") || IsStdoutPath(path))
    return Status::Ok();
  return InputError("--memory '" + path + "': use a .csv or .json (every sample) or .svg (picture) file name");
}

/// "A:B" in milliseconds from the start of the trace; either side may be empty.
Status ParseWindow(const std::string& text, int64_t origin_ns, TimelineFilter& filter) {
  size_t colon = text.find(':');
  if (colon == std::string::npos)
    return InputError("--timeline-window " + QuoteInput(text) + ": expected START:END in milliseconds from the trace start");
  auto parse = [&](const std::string& part, std::optional<int64_t>& out) -> Status {
    if (Trim(part).empty()) return Status::Ok();
    try {
      size_t used = 0;
      double ms = std::stod(part, &used);
      // Below 1e12 ms (1e9 s), so the nanoseconds fit in 64 bits.
      if (used != part.size() || !(ms >= 0 && ms < 1e12)) throw std::invalid_argument(part);
      out = origin_ns + static_cast<int64_t>(ms * 1e6);
    } catch (const std::exception&) {
      return InputError("--timeline-window: " + QuoteInput(part) +
                        " is not a number of milliseconds from 0 to below 1e12");
    }
    return Status::Ok();
  };
  if (Status s = parse(text.substr(0, colon), filter.start_ns); !s.ok()) return s;
  if (Status s = parse(text.substr(colon + 1), filter.end_ns); !s.ok()) return s;
  if (filter.start_ns && filter.end_ns && *filter.end_ns < *filter.start_ns)
    return InputError("--timeline-window " + QuoteInput(text) + ": END is before START");
  return Status::Ok();
}

// Every output is rendered first and written as one (WriteFilesAtomic): one
// that fails replaces none of the others.
Status WriteOutputs(const AnalyzeArgs& a, const TraceReport& report, const TraceFindingSet& findings) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!a.json.empty()) files.emplace_back(a.json, RenderTraceJson(report, findings));
  if (!a.markdown.empty()) files.emplace_back(a.markdown, RenderTraceMarkdown(report, findings));
  if (!a.html.empty()) files.emplace_back(a.html, RenderTraceHtml(report, findings));
  if (!a.flame.empty()) {
    auto html = FlameIsHtml(a.flame);
    const FlameGraph& g = *report.flame;
    std::string bytes = *html ? RenderFlameHtml(g, "gpugate flame graph: " + FileStem(report.info.path))
                              : RenderFolded(SelectView(g, *ParseFlameView(a.flame_view)));
    files.emplace_back(a.flame, std::move(bytes));
  }
  if (!a.memory.empty()) {
    std::string bytes = EndsWith(a.memory, ".svg")    ? RenderMemorySvg(report)
                        : EndsWith(a.memory, ".json") ? RenderMemoryTimelineJson(report.memory_timeline)
                                                      : RenderMemoryTimelineCsv(report.memory_timeline);
    if (report.memory.empty())
      ReportWarning(a.trace + ": no [memory] events (" +
                    (report.info.legacy_cpu_events > 0
                         ? std::string("PyTorch's legacy profiler, without Kineto, records none")
                         : std::string("record with profile_memory=True")) +
                    "); wrote an empty timeline");
    files.emplace_back(a.memory, std::move(bytes));
  }
  if (!a.timeline.empty()) {
    TimelineFilter filter;
    filter.device = a.device;
    for (const std::string& c : Split(a.timeline_categories, ','))
      if (!Trim(c).empty()) filter.categories.insert(Trim(c));
    if (!a.timeline_window.empty())
      if (Status s = ParseWindow(a.timeline_window, report.span_start_ns, filter); !s.ok()) return s;
    if (a.timeline_top_kernels)
      for (const KernelStats& k : report.top_kernels) filter.kernels.insert(k.name);
    std::set<std::string> seen;
    auto doc = ExportTimeline(a.trace, filter, &seen);
    if (!doc.ok()) return doc.error();
    // A category the trace does not hold (a typo: "kernels") selects
    // nothing; say so and name the ones it holds.
    for (const std::string& c : filter.categories) {
      if (seen.count(c)) continue;
      std::string held;
      for (const std::string& s : seen) held += (held.empty() ? "" : ", ") + s;
      ReportWarning("--timeline-categories: no event of " + a.trace + " has category '" + c +
                    "'" + (held.empty() ? std::string(" (none of its events has a category)")
                                        : "; its categories: " + held));
    }
    files.emplace_back(a.timeline, std::move(doc).value());
  }
  return WriteFilesAtomic(files);
}

/// The options of the single-trace analysis that a multi-rank run does not
/// have; each one given is an error.
Status CheckManyRanksOptions(const AnalyzeArgs& a, size_t traces) {
  const std::pair<const char*, bool> single_only[] = {
      {"--policy", !a.policy.empty()},     {"--flame", !a.flame.empty()},
      {"--timeline", !a.timeline.empty()}, {"--timeline-categories", !a.timeline_categories.empty()},
      {"--timeline-window", !a.timeline_window.empty()}, {"--timeline-top-kernels", a.timeline_top_kernels},
      {"--memory", !a.memory.empty()},     {"--flame-view", a.flame_view_given}};
  for (const auto& [name, given] : single_only)
    if (given)
      return InputError(std::string("analyze: ") + name + " applies to one trace; got " + std::to_string(traces) +
                        " traces (the multi-rank report has no " + name + ")");
  return Status::Ok();
}

/// Several traces, one per rank: analysed in parallel, reduced to the
/// multi-rank report, rendered.
int AnalyzeManyRanks(const AnalyzeArgs& a, const std::vector<std::string>& traces, const AnalysisOptions& opt) {
  if (Status s = CheckManyRanksOptions(a, traces.size()); !s.ok()) return ReportError(s.error());
  std::vector<RankSummary> baseline;
  if (!a.baseline.empty()) {
    auto base_paths = ExpandTraceInputs(a.baseline);
    if (!base_paths.ok()) return ReportError(base_paths.error().WithContext("--baseline"));
    auto base = AnalyzeRankTraces(*base_paths, opt, a.jobs);
    if (!base.ok()) return ReportError(base.error().WithContext("--baseline"));
    baseline = std::move(base).value();
  }
  auto ranks = AnalyzeRankTraces(traces, opt, a.jobs);
  if (!ranks.ok()) return ReportError(ranks.error());
  for (const RankSummary& r : *ranks)
    if (r.devices == 0) ReportWarning(r.path + ": no GPU activity (rank " + std::to_string(r.rank) + ")");
  // Traces that name no rank and share one worker's name (PyTorch's
  // tensorboard_trace_handler writes <worker>.<time>.pt.trace.json once per
  // profiling cycle of a schedule) are more likely one process's cycles
  // than the ranks of a job: say so, since their "ranks" are time slices.
  if (std::none_of(ranks->begin(), ranks->end(), [](const RankSummary& r) { return r.rank_from_trace; })) {
    std::set<std::string> suites;
    for (const std::string& t : traces) suites.insert(TraceSuiteName(t));
    if (suites.size() == 1)
      ReportWarning(std::to_string(traces.size()) + " traces of one worker '" + EscapeTerminalInline(*suites.begin()) +
                    "' and none names its rank (distributedInfo.rank): successive profiling cycles of one "
                    "process (a profiler schedule), rather than the ranks of a job? They are read as ranks "
                    "in file order; analyse each file on its own to read them as cycles");
  }
  RanksOptions ropt;
  ropt.straggler_threshold = a.straggler_pct / 100;
  RanksReport report = AnalyzeRanks(std::move(ranks).value(), std::move(baseline), ropt);
  RanksRenderInfo info;
  info.jobs = static_cast<int>(std::min(static_cast<size_t>(a.jobs), traces.size()));  // threads that ran
  info.top_n = a.top;
  const bool stdout_taken = IsStdoutPath(a.json) || IsStdoutPath(a.markdown) || IsStdoutPath(a.html);
  if (!stdout_taken) std::cout << RenderRanksConsole(report, info) << std::flush;
  std::vector<std::pair<std::string, std::string>> files;
  if (!a.json.empty()) files.emplace_back(a.json, RenderRanksJson(report, info));
  if (!a.markdown.empty()) files.emplace_back(a.markdown, RenderRanksMarkdown(report, info));
  if (!a.html.empty()) files.emplace_back(a.html, RenderRanksHtml(report, info));
  if (Status s = WriteFilesAtomic(files); !s.ok()) return ReportError(s.error());
  return 0;
}

}  // namespace

int AnalyzeCommand(const CommandSpec& self, const Args& args) {
  AnalyzeArgs a;
  po::options_description options("options");
  options.add_options()
      ("trace", po::value<std::vector<std::string>>(&a.inputs)->required()->multitoken(),
       "Chrome/Kineto trace (.json or .json.gz); several traces or a directory (its *.json, *.json.gz): "
       "one trace per rank of a job, the multi-rank report")
      ("json", po::value<std::string>(&a.json), "write the analysis as JSON ('-' = stdout)")
      ("markdown", po::value<std::string>(&a.markdown), "write a Markdown report ('-' = stdout)")
      ("html", po::value<std::string>(&a.html), "write a self-contained HTML report ('-' = stdout)")
      ("policy", po::value<std::string>(&a.policy),
       "policy whose rules are evaluated on the trace (default: the built-in default policy)")
      ("flame", po::value<std::string>(&a.flame),
       "flame graph: F.html (interactive page with the all, CPU and GPU views; frames below 0.01% of a view's "
       "time fold into [other]) or F.folded (folded stacks, ns, every frame); ProfilerStep#12 and other names "
       "ending in #<digits> merge into one frame (ProfilerStep#*)")
      ("flame-view", po::value<std::string>(&a.flame_view)->default_value("all"),
       "view for --flame F.folded: all (CPU self time + GPU time), cpu (CPU frames only) or gpu (GPU time only, "
       "under the CPU stacks that launched it)")
      ("timeline", po::value<std::string>(&a.timeline), "export selected events as Chrome trace JSON")
      ("timeline-categories", po::value<std::string>(&a.timeline_categories),
       "comma-separated categories for --timeline (default: all)")
      ("timeline-window", po::value<std::string>(&a.timeline_window),
       "START:END in ms from the trace start for --timeline")
      ("timeline-top-kernels", po::bool_switch(&a.timeline_top_kernels),
       "--timeline keeps only the top N kernels (other categories unaffected)")
      ("memory", po::value<std::string>(&a.memory),
       "memory timeline from [memory] events: F.csv or F.json (every sample) or F.svg (allocated and reserved "
       "bytes over time per device, peak marked with its time and profiler step)")
      ("top", po::value<int>(&a.top)->default_value(10), "rows in top-N lists")
      ("device", po::value<int64_t>(), "analyse only this GPU")
      ("kernel-wait-ns", po::value<int64_t>(&a.kernel_wait_ns)->default_value(30000),
       "idle gaps shorter than this (ns) are kernel-wait (HTA's consecutive_kernel_delay: 30 us)")
      ("jobs,j", po::value<int>(&a.jobs)->default_value(0),
       "many ranks: traces analysed at once (default 0: the number of hardware threads)")
      ("straggler-threshold", po::value<double>(&a.straggler_pct)->default_value(10),
       "many ranks: a step is a straggler step when its slowest rank exceeds the median by more than this percent")
      ("baseline", po::value<std::vector<std::string>>(&a.baseline),
       "many ranks: another job's traces to compare with, rank by rank: a directory, or one file per "
       "--baseline (repeat it)");
  po::positional_options_description positional;
  positional.add("trace", -1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());
  if (vm.count("device")) a.device = vm["device"].as<int64_t>();
  if (a.top < 1 || a.top > 10000)
    return ReportError(InputError("analyze: --top must be from 1 to 10000, got " + std::to_string(a.top)));
  if (a.kernel_wait_ns < 0) return ReportError(InputError("analyze: --kernel-wait-ns must not be negative"));
  if (a.jobs < 0 || a.jobs > 1024)
    return ReportError(InputError("analyze: --jobs must be from 0 to 1024, got " + std::to_string(a.jobs)));
  if (a.jobs == 0) a.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!(a.straggler_pct >= 0 && a.straggler_pct <= 10000))
    return ReportError(InputError("analyze: --straggler-threshold must be a percentage from 0 to 10000"));
  auto traces = ExpandTraceInputs(a.inputs);
  if (!traces.ok()) return ReportError(traces.error());
  a.flame_view_given = !vm["flame-view"].defaulted();
  const bool many = traces->size() > 1 || !a.baseline.empty();
  if (!many && !vm["straggler-threshold"].defaulted())
    return ReportError(InputError("analyze: --straggler-threshold applies to several traces (one per rank)"));

  AnalysisOptions opt;
  opt.top_n = a.top;
  opt.device = a.device;
  opt.kernel_wait_threshold_ns = a.kernel_wait_ns;
  if (many) return AnalyzeManyRanks(a, *traces, opt);
  a.trace = traces->front();
  if (!a.flame.empty()) {
    auto html = FlameIsHtml(a.flame);
    if (!html.ok()) return ReportError(html.error());
  }
  auto view = ParseFlameView(a.flame_view);
  if (!view.ok()) return ReportError(view.error());
  if (!vm["flame-view"].defaulted() && (a.flame.empty() || *FlameIsHtml(a.flame)))
    return ReportError(InputError("analyze: --flame-view applies to --flame F.folded (the HTML page carries all "
                                  "three views)"));
  if (!a.memory.empty())
    if (Status s = CheckMemoryPath(a.memory); !s.ok()) return ReportError(s.error());
  // The timeline's options before the trace is read (and before any report
  // is written): they apply to --timeline only, and the window's form and
  // order do not depend on the trace.
  if (a.timeline.empty()) {
    for (const auto& [name, given] :
         {std::pair<const char*, bool>{"--timeline-categories", !a.timeline_categories.empty()},
          {"--timeline-window", !a.timeline_window.empty()},
          {"--timeline-top-kernels", a.timeline_top_kernels}})
      if (given)
        return ReportError(InputError(std::string("analyze: ") + name +
                                      " applies to --timeline F.json, which was not given"));
  } else if (!a.timeline_window.empty()) {
    TimelineFilter probe;
    if (Status s = ParseWindow(a.timeline_window, 0, probe); !s.ok()) return ReportError(s.error());
  }

  // The policy first: a bad policy file fails before the trace is read.
  Result<Policy> policy = a.policy.empty() ? Result<Policy>(DefaultPolicy()) : LoadPolicyFile(a.policy);
  if (!policy.ok()) return ReportError(policy.error());

  opt.collect_flame = !a.flame.empty();
  opt.collect_memory_timeline = !a.memory.empty() && !EndsWith(a.memory, ".svg");
  auto report = AnalyzeTrace(a.trace, opt);
  if (!report.ok()) return ReportError(report.error());
  if (a.device && report->devices.empty())
    ReportWarning(a.trace + ": " + NoGpuActivity(*report));
  if (report->info.legacy_gpu_events > 0)
    ReportWarning(a.trace + ": " + std::to_string(report->info.legacy_gpu_events) +
                  " events of PyTorch's legacy profiler under \"CUDA functions\" or \"CUDA Functions\" "
                  "(use_cuda=True) were not read: they time each op between two CUDA events, nested like the "
                  "ops, and are not kernels; a PyTorch with Kineto (torch.profiler) records the kernels");

  TraceFindingSet findings;
  findings.policy = policy->name;
  findings.items = TraceFindings(*report, policy->expr_rules);

  bool stdout_taken =
      IsStdoutPath(a.json) || IsStdoutPath(a.markdown) || IsStdoutPath(a.html) || IsStdoutPath(a.flame) ||
      IsStdoutPath(a.memory) || IsStdoutPath(a.timeline);
  if (!stdout_taken) std::cout << RenderTraceConsole(*report, findings) << std::flush;
  if (Status s = WriteOutputs(a, *report, findings); !s.ok()) return ReportError(s.error());
  return 0;
}

}  // namespace gpugate
