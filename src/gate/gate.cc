// The gate's loop (see gate.h): run, judge, confirm what is doubtful, judge.
#include "gate/gate.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "harness/program_runner.h"
#include "stats/summary.h"
#include "util/result.h"

namespace gpugate {

namespace {

WorkloadResult* FindWorkload(Results& results, const std::string& name) {
  auto it = std::find_if(results.workloads.begin(), results.workloads.end(),
                         [&](const WorkloadResult& w) { return w.name == name; });
  return it == results.workloads.end() ? nullptr : &*it;
}

const WorkloadSpec* FindSpec(const std::vector<WorkloadSpec>& specs, const std::string& name) {
  auto it = std::find_if(specs.begin(), specs.end(),
                         [&](const WorkloadSpec& s) { return s.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

// One gate run: its inputs, the outcome being built, and the loop's steps.
class Gate {
 public:
  Gate(const std::vector<WorkloadSpec>& workloads, const std::vector<Results>& baseline_runs,
       const Policy& policy, const GateOptions& options, GateProgress* progress,
       const SuiteRunner& run_suite)
      : workloads_(workloads),
        baseline_runs_(baseline_runs),
        policy_(policy),
        options_(options),
        progress_(progress),
        run_suite_(run_suite) {}

  GateOutcome Run() {
    RunSuite();
    Judge();
    for (int attempt = 1; attempt <= options_.confirmations; ++attempt) {
      const std::vector<WorkloadSpec> doubtful = Doubtful();
      if (doubtful.empty()) break;
      Confirm(doubtful, attempt);
      Judge();
    }
    return std::move(out_);
  }

 private:
  // --- steps ---------------------------------------------------------------

  void RunSuite() {
    Results first = run_suite_(workloads_, options_.run, progress_);
    out_.results = first;
    out_.runs.push_back(std::move(first));
  }

  void Judge() {
    out_.verdicts = CompareRuns(baseline_runs_, out_.runs, policy_, options_.compare);
  }

  // The workloads the judge wants re-run (regressed or inconclusive), in its
  // order, that can run again: declared in this suite and not yet failed. A
  // benchmark program is re-run once, for its doubtful benchmarks only
  // (WorkloadSpec::only_benchmarks).
  std::vector<WorkloadSpec> Doubtful() {
    std::vector<WorkloadSpec> specs;
    doubtful_names_.clear();
    for (const std::string& name : WorkloadsToConfirm(out_.verdicts)) {
      const WorkloadResult* result = FindWorkload(out_.results, name);
      if (!result || result->status != WorkloadStatus::kOk) continue;
      if (const WorkloadSpec* spec = FindSpec(workloads_, name)) {
        specs.push_back(*spec);
        doubtful_names_.push_back(name);
        continue;
      }
      for (const WorkloadSpec& spec : workloads_) {
        std::optional<std::string> bench = ProgramBenchmarkOf(spec, name);
        if (!bench) continue;
        auto same = std::find_if(specs.begin(), specs.end(),
                                 [&](const WorkloadSpec& s) { return s.name == spec.name; });
        if (same == specs.end()) {
          specs.push_back(spec);
          same = specs.end() - 1;
        }
        if (std::find(same->only_benchmarks.begin(), same->only_benchmarks.end(), *bench) ==
            same->only_benchmarks.end())
          same->only_benchmarks.push_back(*bench);
        doubtful_names_.push_back(name);
        break;
      }
    }
    return specs;
  }

  // Re-runs `doubtful` once with the attempt's seed: a run of its own for the
  // judge, and its rounds merged into the results.
  void Confirm(const std::vector<WorkloadSpec>& doubtful, int attempt) {
    if (progress_) progress_->ConfirmationStarted(doubtful_names_, attempt, options_.confirmations);
    RunOptions run = options_.run;
    run.run_seed = ConfirmationSeed(options_.run.run_seed, attempt);
    Results rerun = run_suite_(doubtful, run, progress_);
    rerun.run = out_.runs.front().run;  // part of this gate's run
    for (const WorkloadResult& w : rerun.workloads)
      if (WorkloadResult* into = FindWorkload(out_.results, w.name)) AppendConfirmation(*into, w);
    out_.runs.push_back(std::move(rerun));
  }

  const std::vector<WorkloadSpec>& workloads_;
  const std::vector<Results>& baseline_runs_;
  const Policy& policy_;
  const GateOptions& options_;
  GateProgress* progress_;
  const SuiteRunner& run_suite_;
  GateOutcome out_;
  std::vector<std::string> doubtful_names_;  // results behind Doubtful()'s specs
};

}  // namespace

uint64_t ConfirmationSeed(uint64_t run_seed, int attempt) {
  // Steps of the golden gamma (an odd constant) keep attempts apart.
  return run_seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(attempt);
}

void AppendConfirmation(WorkloadResult& into, const WorkloadResult& rerun) {
  into.confirmation_reruns += 1;
  AppendNotes(into, rerun.notes, "confirmation re-run " + std::to_string(into.confirmation_reruns) + ": ");
  if (rerun.status != WorkloadStatus::kOk) {
    into.status = rerun.status;
    into.reason = "confirmation re-run " + std::to_string(into.confirmation_reruns) + ": " +
                  rerun.reason;
    return;
  }
  into.rounds.insert(into.rounds.end(), rerun.rounds.begin(), rerun.rounds.end());
  into.cycles.insert(into.cycles.end(), rerun.cycles.begin(), rerun.cycles.end());
  into.summary = Summarize(AllSamples(into));
  if (into.work.bytes && into.summary.median > 0)
    into.bytes_per_second = static_cast<double>(*into.work.bytes) / into.summary.median;
  if (into.work.flops && into.summary.median > 0)
    into.flops_per_second = *into.work.flops / into.summary.median;
  into.clocks.insert(into.clocks.end(), rerun.clocks.begin(), rerun.clocks.end());
  into.throttled = into.throttled || rerun.throttled;
}

GateOutcome RunGate(const std::vector<WorkloadSpec>& workloads,
                    const std::vector<Results>& baseline_runs, const Policy& policy,
                    const GateOptions& options, GateProgress* progress,
                    const SuiteRunner& run_suite) {
  GPUGATE_CHECK(!baseline_runs.empty());
  GPUGATE_CHECK(options.confirmations >= 0);
  return Gate(workloads, baseline_runs, policy, options, progress, run_suite).Run();
}

GateOutcome RunGate(const Suite& suite, const std::vector<WorkloadSpec>& workloads,
                    const std::vector<Results>& baseline_runs, const Policy& policy,
                    const GateOptions& options, GateProgress* progress) {
  const SuiteRunner run_suite = [&suite](const std::vector<WorkloadSpec>& specs,
                                         const RunOptions& run, ProgressSink* sink) {
    return RunSuite(suite, specs, run, sink);
  };
  return RunGate(workloads, baseline_runs, policy, options, progress, run_suite);
}

}  // namespace gpugate
