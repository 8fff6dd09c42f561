// The gate's loop (see gate.h): run, judge, confirm what is doubtful, judge.
#include "gate/gate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "harness/program_runner.h"
#include "model/static_code.h"
#include "stats/distributions.h"
#include "stats/summary.h"
#include "util/result.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

// The gate stops re-running when no doubtful verdict has this probability of
// becoming a regression within the re-runs left (stochastic curtailment for
// futility, Lan, Simon & Halperin 1982). On the real-noise corpora
// (docs/real-noise.md) 10% kept the detection of re-running to the bound
// within about 2 points and cut the re-runs of identical code from 8 of 8 to
// 1.3-2.0 (1.6-2.5 of the default 12).
constexpr double kFutilityPower = 0.1;

// The first element of each name, looked up by name: every step of the
// loop finds thousands of results by name, which a scan per name made
// quadratic in the doubtful benchmarks (40,000 cost a minute a step).
template <class T>
std::unordered_map<std::string, size_t> IndexByName(const std::vector<T>& items) {
  std::unordered_map<std::string, size_t> out;
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) out.emplace(items[i].name, i);
  return out;
}

template <class T>
T* Lookup(std::vector<T>& items, const std::unordered_map<std::string, size_t>& index, const std::string& name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &items[it->second];
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
        run_suite_(run_suite),
        spec_index_(IndexByName(workloads)) {
    for (const WorkloadSpec& w : workloads)
      if (ReportsBenchmarks(w)) programs_.push_back(&w);
  }

  GateOutcome Run() {
    RunSuite();
    Judge();
    for (int attempt = 1; attempt <= options_.confirmations; ++attempt) {
      const std::vector<WorkloadSpec> doubtful = Doubtful();
      if (doubtful.empty()) break;
      if (!ReRunCouldChangeOutcome(ForConfirming(), policy_.defaults,
                                   static_cast<int>(baseline_runs_.size()),
                                   static_cast<int>(out_.runs.size()), 1 + options_.confirmations)) {
        out_.verdicts.warnings.push_back("gate: stopped after " + std::to_string(attempt - 1) + " of " +
                                         std::to_string(options_.confirmations) +
                                         " confirmation re-runs: " + WhyNoReRunHelps());
        break;
      }
      Confirm(doubtful, attempt);
      Judge();
    }
    return std::move(out_);
  }

 private:
  // --- steps ---------------------------------------------------------------

  // The verdicts as the re-run loop weighs them: an undecided result that an
  // active waiver covers is not re-run, since a regression it could become
  // would be waived (as severity off), unless the policy fails undecided
  // results, which waivers do not cover (on_inconclusive: fail,
  // require_detectable).
  Verdicts ForConfirming() const {
    Verdicts v = out_.verdicts;
    if (policy_.defaults.on_inconclusive == OnInconclusive::kFail || policy_.defaults.require_detectable ||
        policy_.waivers.empty())
      return v;
    for (MetricVerdict& m : v.metrics)
      if (m.verdict == Verdict::kInconclusive && WaiverInForce(policy_, m, options_.compare))
        m.severity = Severity::kOff;
    return v;
  }

  // Why ReRunCouldChangeOutcome said no re-run can change the outcome.
  std::string WhyNoReRunHelps() const {
    bool all_unmeasured = true;
    for (const MetricVerdict& m : ForConfirming().metrics)
      if (WorthConfirming(m) && m.reason != Reason::kCurrentFailed)
        all_unmeasured = all_unmeasured && m.reason == Reason::kBetweenRunNoiseUnmeasured;
    if (all_unmeasured)
      return "the doubtful workloads cannot be judged at all (one baseline run and too few workloads "
             "to measure the noise between runs), and re-runs add current runs, not baseline runs or "
             "workloads";
    return "no doubtful workload leans toward a regression strongly enough that the remaining re-runs "
           "could make it one (conditional power under " +
           std::to_string(static_cast<int>(kFutilityPower * 100)) + "%)";
  }

  void RunSuite() {
    Results first = AnySkipsWhenUnchanged() ? RunStaticFirst()
                                            : run_suite_(workloads_, options_.run, progress_);
    out_.results = first;
    out_.runs.push_back(std::move(first));
  }

  bool AnySkipsWhenUnchanged() const {
    return std::any_of(workloads_.begin(), workloads_.end(), SkipsWhenUnchanged);
  }

  // skip_unchanged: the static workloads run first; a workload whose named
  // static workloads all hold the baseline's SASS is not measured, and each
  // result the baseline has for it becomes a skipped result marked
  // code_unchanged. Everything else runs as usual; the results keep suite
  // order.
  Results RunStaticFirst() {
    std::vector<WorkloadSpec> statics, others;
    for (const WorkloadSpec& w : workloads_) (w.kind == WorkloadKind::kStatic ? statics : others).push_back(w);
    Results first = run_suite_(statics, options_.run, progress_);
    std::set<std::string> unchanged;
    for (const WorkloadResult& r : first.workloads)
      if (const WorkloadResult* base = NewestOk(r.name); base && SameStaticCode(r, *base))
        unchanged.insert(r.name);
    std::map<std::string, std::vector<WorkloadResult>> skipped;  // by spec name
    std::vector<WorkloadSpec> to_run;
    std::map<const std::vector<std::string>*, bool> checked;
    for (const WorkloadSpec& w : others) {
      std::vector<WorkloadResult> kept = UnchangedResults(w, unchanged, &checked);
      if (kept.empty()) {
        to_run.push_back(w);
      } else {
        skipped[w.name] = std::move(kept);
      }
    }
    Results rest = to_run.empty() ? Results{} : run_suite_(to_run, options_.run, progress_);
    Results out;
    out.run = to_run.empty() ? first.run : rest.run;
    std::map<std::string, std::vector<WorkloadResult*>> measured;  // by the spec that made them
    auto take = [](Results& from, const WorkloadSpec& spec) {
      std::vector<WorkloadResult> got;
      for (WorkloadResult& r : from.workloads)
        if (r.name == spec.name || ProgramBenchmarkOf(spec, r.name)) got.push_back(std::move(r));
      return got;
    };
    for (const WorkloadSpec& w : workloads_) {
      std::vector<WorkloadResult> part = w.kind == WorkloadKind::kStatic ? take(first, w)
                                         : skipped.count(w.name)        ? std::move(skipped[w.name])
                                                                        : take(rest, w);
      for (WorkloadResult& r : part) out.workloads.push_back(std::move(r));
    }
    return out;
  }

  // The newest baseline result of `name` that ran.
  const WorkloadResult* NewestOk(const std::string& name) const {
    for (auto run = baseline_runs_.rbegin(); run != baseline_runs_.rend(); ++run)
      if (const WorkloadResult* w = run->Find(name); w && w->status == WorkloadStatus::kOk) return w;
    return nullptr;
  }

  // The results `spec` would give, as skipped code_unchanged results, when
  // every static workload it names is unchanged and the baseline holds its
  // results (a workload the baseline never measured is measured now).
  // `checked` remembers the answer per list of names: `true` shares one list
  // among the workloads, so it is checked once, not once per workload.
  std::vector<WorkloadResult> UnchangedResults(const WorkloadSpec& spec, const std::set<std::string>& unchanged,
                                               std::map<const std::vector<std::string>*, bool>* checked) const {
    if (!SkipsWhenUnchanged(spec)) return {};
    const std::vector<std::string>& named = SkipUnchangedNames(spec);
    auto [known, fresh] = checked->emplace(&named, false);
    if (fresh)
      known->second = std::all_of(named.begin(), named.end(), [&](const std::string& n) { return unchanged.count(n) > 0; });
    if (!known->second) return {};
    // Bounded: `true` names every static workload of the suite.
    const std::string names = JoinAtMost(named, 5);
    std::vector<WorkloadResult> out;
    std::unordered_set<std::string> seen;
    for (auto run = baseline_runs_.rbegin(); run != baseline_runs_.rend(); ++run)
      for (const WorkloadResult& b : run->workloads) {
        if (b.name != spec.name && !ProgramBenchmarkOf(spec, b.name)) continue;
        if (b.status != WorkloadStatus::kOk) continue;
        if (!seen.insert(b.name).second) continue;
        WorkloadResult r;
        r.name = b.name;
        r.kind = b.kind;
        r.backend = b.backend;
        r.params = b.params;
        r.tags = b.tags;
        r.metric = b.metric;
        r.unit = b.unit;
        r.lower_is_better = b.lower_is_better;
        r.deterministic = b.deterministic;
        r.status = WorkloadStatus::kSkipped;
        r.code_unchanged = true;
        r.reason = "not run: the code it runs is unchanged (" + names + " hold the baseline's SASS; skip_unchanged)";
        out.push_back(std::move(r));
      }
    return out;
  }

  void Judge() {
    out_.verdicts = CompareRuns(baseline_runs_, out_.runs, policy_, options_.compare);
    for (const std::string& w : warnings_) out_.verdicts.warnings.push_back(w);
  }

  // The workloads the judge wants re-run (regressed or inconclusive), in its
  // order, that can run again: declared in this suite and not yet failed. A
  // benchmark program is re-run once, for its doubtful benchmarks only
  // (WorkloadSpec::only_benchmarks).
  std::vector<WorkloadSpec> Doubtful() {
    std::vector<WorkloadSpec> specs;
    std::unordered_map<std::string, size_t> spec_at;                 // in `specs`, by name
    std::unordered_map<std::string, std::unordered_set<std::string>> selected;  // per program
    std::set<std::string> whole;  // programs re-run without a filter
    doubtful_names_.clear();
    doubtful_set_.clear();
    whole_why_.clear();
    const std::unordered_map<std::string, size_t> results = IndexByName(out_.results.workloads);
    for (const std::string& name : WorkloadsToConfirm(ForConfirming())) {
      const WorkloadResult* result = Lookup(out_.results.workloads, results, name);
      if (!result || result->status != WorkloadStatus::kOk) continue;
      // A deterministic result (a static workload's, a count) reads the
      // same again: a re-run cannot confirm or clear it.
      if (result->deterministic) continue;
      if (const WorkloadSpec* spec = FindSpec(name)) {
        specs.push_back(*spec);
        AddDoubtful(name);
        continue;
      }
      for (const WorkloadSpec* program : programs_) {
        const WorkloadSpec& spec = *program;
        std::optional<std::string> bench = ProgramBenchmarkOf(spec, name);
        if (!bench) continue;
        auto [at, fresh] = spec_at.emplace(spec.name, specs.size());
        if (fresh) specs.push_back(spec);
        WorkloadSpec& same = specs[at->second];
        // A name cut to its start and a hash (BoundedName) cannot select
        // its benchmark: the program is re-run whole, which names it alike.
        if (IsBoundedName(name) && whole.insert(spec.name).second)
          whole_why_.emplace_back(spec.name, "a doubtful benchmark's name is bounded (cut and hashed: " + QuoteInput(name) +
                                    "), which cannot select it");
        if (whole.count(spec.name)) same.only_benchmarks.clear();
        else if (selected[spec.name].insert(*bench).second)
          same.only_benchmarks.push_back(*bench);
        AddDoubtful(name);
        break;
      }
    }
    // Names past what one command line holds (a Google Benchmark filter is
    // one argument, at most 128 KiB): the program is re-run whole, and only
    // the doubtful benchmarks are kept (Confirm).
    for (WorkloadSpec& spec : specs)
      if (!spec.only_benchmarks.empty() && !SelectionFitsTheCommandLine(spec)) {
        whole_why_.emplace_back(spec.name, "the names of its " + std::to_string(spec.only_benchmarks.size()) +
                                  " doubtful benchmarks do not fit one command line (" +
                                  (spec.kind == WorkloadKind::kGbench ? "a --benchmark_filter of 100 KiB"
                                                                      : "a selection of 1 MiB") +
                                  " or more)");
        spec.only_benchmarks.clear();
      }
    return specs;
  }

  // A benchmark program re-run whole instead of for its doubtful benchmarks
  // alone costs a whole run per re-run: said once per program, on the
  // progress and as a warning of the verdicts (Judge keeps it).
  void SayWholeReRuns() {
    for (const auto& [program, why] : whole_why_) {
      if (!whole_said_.insert(program).second) continue;
      const std::string sentence = "gate: workload " + QuoteInput(program) + ": " + why +
                                   ": its confirmation re-runs run the whole program and keep only the "
                                   "doubtful benchmarks' results";
      warnings_.push_back(sentence);
      if (progress_) progress_->ConfirmationNote(sentence);
    }
  }

  void AddDoubtful(const std::string& name) {
    doubtful_names_.push_back(name);
    doubtful_set_.insert(name);
  }

  const WorkloadSpec* FindSpec(const std::string& name) const {
    auto it = spec_index_.find(name);
    return it == spec_index_.end() ? nullptr : &workloads_[it->second];
  }

  // Re-runs `doubtful` once with the attempt's seed: a run of its own for the
  // judge, and its rounds merged into the results.
  void Confirm(const std::vector<WorkloadSpec>& doubtful, int attempt) {
    SayWholeReRuns();
    if (progress_) progress_->ConfirmationStarted(doubtful_names_, attempt, options_.confirmations);
    RunOptions run = options_.run;
    run.run_seed = ConfirmationSeed(options_.run.run_seed, attempt);
    Results rerun = run_suite_(doubtful, run, progress_);
    rerun.run = out_.runs.front().run;  // part of this gate's run
    rerun.workloads = ForEachBenchmark(std::move(rerun.workloads));
    // A program re-run whole (a benchmark of a bounded name) or a command
    // with `results:` reports benchmarks nobody asked about: only the
    // doubtful ones are confirmed, as a filtered re-run would measure.
    std::erase_if(rerun.workloads, [&](const WorkloadResult& w) {
      return doubtful_set_.count(w.name) == 0 && FindSpec(w.name) == nullptr;
    });
    Unconfirmed(&rerun.workloads);
    const std::unordered_map<std::string, size_t> results = IndexByName(out_.results.workloads);
    for (const WorkloadResult& w : rerun.workloads)
      if (WorkloadResult* into = Lookup(out_.results.workloads, results, w.name)) AppendConfirmation(*into, w);
    out_.runs.push_back(std::move(rerun));
  }

  // A benchmark program that failed as a whole (a crash in its first
  // process) reports one result named after its suite workload: that
  // failure is each of its doubtful benchmarks', so the judge and the
  // results name it where the benchmarks are (a re-run that crashed is an
  // error outcome, never left out).
  std::vector<WorkloadResult> ForEachBenchmark(std::vector<WorkloadResult> rerun) const {
    std::vector<WorkloadResult> out;
    const std::unordered_map<std::string, size_t> results = IndexByName(out_.results.workloads);
    for (WorkloadResult& w : rerun) {
      const WorkloadSpec* spec = w.status == WorkloadStatus::kOk ? nullptr : FindSpec(w.name);
      bool expanded = false;
      if (spec != nullptr && !results.count(w.name))
        for (const std::string& name : doubtful_names_) {
          auto at = results.find(name);
          const WorkloadResult* original = at == results.end() ? nullptr : &out_.results.workloads[at->second];
          if (original == nullptr || !ProgramBenchmarkOf(*spec, name)) continue;
          WorkloadResult failed = w;
          failed.name = original->name;
          failed.params = original->params;
          failed.metric = original->metric;
          failed.unit = original->unit;
          failed.lower_is_better = original->lower_is_better;
          out.push_back(std::move(failed));
          expanded = true;
        }
      if (!expanded) out.push_back(std::move(w));
    }
    return out;
  }

  // A doubtful result the re-run did not measure (a benchmark program that
  // left it out or skipped it) is not confirmed: it fails, as a benchmark a
  // later process of `run` leaves out does, so the judge, the results and
  // the exit code say so instead of keeping the first run's verdict.
  void Unconfirmed(std::vector<WorkloadResult>* rerun) const {
    const std::unordered_map<std::string, size_t> measured = IndexByName(*rerun);
    const std::unordered_map<std::string, size_t> results = IndexByName(out_.results.workloads);
    for (const std::string& name : doubtful_names_) {
      if (auto it = measured.find(name); it != measured.end()) {
        WorkloadResult& w = (*rerun)[it->second];
        if (w.status == WorkloadStatus::kSkipped) {
          w.status = WorkloadStatus::kFailed;
          w.reason = "skipped (" + w.reason + "): the first run's result is not confirmed";
        }
        continue;
      }
      auto at = results.find(name);
      const WorkloadResult* original = at == results.end() ? nullptr : &out_.results.workloads[at->second];
      if (original == nullptr) continue;
      WorkloadResult missing;
      missing.name = original->name;
      missing.kind = original->kind;
      missing.backend = original->backend;
      missing.params = original->params;
      missing.tags = original->tags;
      missing.metric = original->metric;
      missing.unit = original->unit;
      missing.lower_is_better = original->lower_is_better;
      missing.status = WorkloadStatus::kFailed;
      missing.reason = "the program did not report this benchmark, which the first run did: the first run's "
                       "result is not confirmed";
      rerun->push_back(std::move(missing));
    }
  }

  const std::vector<WorkloadSpec>& workloads_;
  const std::vector<Results>& baseline_runs_;
  const Policy& policy_;
  const GateOptions& options_;
  GateProgress* progress_;
  const SuiteRunner& run_suite_;
  std::unordered_map<std::string, size_t> spec_index_;  // workloads_ by name
  std::vector<const WorkloadSpec*> programs_;          // the workloads that report benchmarks
  GateOutcome out_;
  std::vector<std::string> doubtful_names_;  // results behind Doubtful()'s specs
  std::unordered_set<std::string> doubtful_set_;  // the same, to look up
  std::vector<std::pair<std::string, std::string>> whole_why_;  // Doubtful()'s programs re-run whole, and why
  std::set<std::string> whole_said_;        // programs whose whole re-run was said
  std::vector<std::string> warnings_;       // the gate's own, kept through each Judge()
};

}  // namespace

bool ReRunCouldChangeOutcome(const Verdicts& verdicts, const PolicyDefaults& policy,
                             int baseline_runs, int current_runs, int max_current_runs) {
  GPUGATE_CHECK(baseline_runs >= 1 && current_runs >= 1);
  if (max_current_runs <= current_runs) return false;
  int tested = 0;
  for (const MetricVerdict& m : verdicts.metrics) tested += m.p_adjusted.has_value();
  const double first_discovery = verdicts.fdr_q / std::max(1, tested);
  const double z_needed = NormalQuantile(1.0 - first_discovery);
  auto information = [&](int n) { return 1.0 / (1.0 / baseline_runs + 1.0 / n); };
  const double growth = std::sqrt(information(max_current_runs) / information(current_runs));
  // The final z given today's, if the effect is today's estimate: mean
  // z * growth, standard deviation sqrt(1 - 1/growth^2) (the increments of a
  // Brownian motion on the information scale).
  const double spread = std::sqrt(1.0 - 1.0 / (growth * growth));
  for (const MetricVerdict& m : verdicts.metrics) {
    // A workload that failed: the gate's outcome is an error whatever the
    // re-runs show.
    if (!WorthConfirming(m) || m.reason == Reason::kCurrentFailed) continue;
    // Not judged for want of noise between runs (one baseline run and too
    // few workloads or comparisons): re-runs add current runs, never
    // baseline runs or workloads, so it stays not judged whatever they show.
    if (m.reason == Reason::kBetweenRunNoiseUnmeasured) continue;
    if (m.verdict == Verdict::kRegression) return true;  // unwaived: to be confirmed
    // The policy fails it as it stands; more runs may decide it or narrow it.
    if (policy.on_inconclusive == OnInconclusive::kFail || m.reason == Reason::kUndetectable)
      return true;
    if (!m.p_value || !m.ratio) return true;  // nothing to project: measure again
    const bool worse = m.lower_is_better ? *m.ratio > 1.0 : *m.ratio < 1.0;
    if (!worse) continue;
    const double z = NormalQuantile(std::clamp(1.0 - *m.p_value, 0.5, 1.0 - 1e-16));
    if (z * growth >= z_needed + NormalQuantile(kFutilityPower) * spread) return true;
  }
  return false;
}

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
