// The measurement recipe shared by every backend:
//   Prepare -> Warmup -> RunRounds (planned rounds, then adaptive rounds) ->
//   Verify -> Summarize
// and the choice of backend per workload. Semantics: docs/harness.md.
#include "harness/runner.h"
#include "util/text/escape.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <new>
#include <utility>

#include "harness/backends/cpu_backend.h"
#include "harness/backends/cuda_backend.h"
#include "harness/backends/process_backend.h"
#include "harness/backends/synthetic_backend.h"
#include "harness/instruction_runner.h"
#include "harness/program_runner.h"
#include "harness/static_runner.h"
#include "metrics/suite_metrics.h"
#include "model/environment.h"
#include "model/limits.h"
#include "stats/summary.h"

namespace gpugate {

namespace {

// Sampling settings with the invariants the recipe relies on.
struct Plan {
  int warmup;
  int rounds;
  int64_t min_samples;
  int64_t max_samples;
  int64_t per_round;   // ceil(min_samples / rounds)
  int64_t planned_cap; // max(per_round, max_samples / rounds): planned rounds all fit
  double round_time;   // min_time / rounds
  double max_time;
  double target_rel_ci;
  double timeout;      // <= 0: none

  explicit Plan(const Sampling& s)
      : warmup(std::max(0, s.warmup)),
        rounds(std::max(1, s.rounds)),
        min_samples(std::max(1, s.min_samples)),
        max_samples(std::max<int64_t>(s.max_samples, min_samples)),
        per_round((min_samples + rounds - 1) / rounds),
        planned_cap(std::max<int64_t>(per_round, max_samples / rounds)),
        round_time(std::max(0.0, s.min_time) / rounds),
        max_time(s.max_time),
        target_rel_ci(s.target_rel_ci),
        timeout(s.timeout) {}
};

// One workload's run: the recipe's state and its steps.
class Recipe {
 public:
  Recipe(const WorkloadSpec& spec, Backend& backend, ProgressSink* progress, Clock& clock)
      : spec_(spec), backend_(backend), progress_(progress), clock_(clock), plan_(spec.sampling) {}

  WorkloadResult Run() {
    start_ = clock_.Now();
    Describe();
    if (!CheckSupported() || !Prepare()) return std::move(result_);
    Tick();
    if (Warmup() && RunRounds()) VerifyOutputs();
    Summarize();
    return std::move(result_);
  }

 private:
  // --- steps ---------------------------------------------------------------

  void Describe() {
    result_.name = spec_.name;
    result_.kind = ToString(spec_.kind);
    result_.backend = backend_.Name();
    result_.params = spec_.params;
    result_.tags = spec_.tags;
  }

  bool CheckSupported() {
    if (auto why = backend_.Unsupported(spec_)) {
      result_.status = WorkloadStatus::kSkipped;
      result_.reason = *why;
      return false;
    }
    return true;
  }

  bool Prepare() {
    auto prepared = backend_.Prepare(spec_);
    if (!prepared.ok()) return Fail(prepared.error().message);
    instance_ = std::move(prepared).value();
    result_.iterations_per_sample = std::max<int64_t>(1, instance_->IterationsPerSample());
    return true;
  }

  // Untimed samples before round 0: caches, clocks, JIT and page faults settle.
  bool Warmup() {
    for (int i = 0; i < plan_.warmup; ++i) {
      if (TimedOut()) return Fail(detail::TimedOutMessage(plan_.timeout));
      auto s = instance_->RunSample();
      Tick();
      if (!s.ok()) return Fail(s.error().message);
    }
    result_.warmup = plan_.warmup;
    return true;
  }

  // Planned rounds (each at least per_round samples and round_time of
  // measured time), then extra rounds of per_round samples while the median's
  // CI is wider than the target and the sample and time budgets allow.
  bool RunRounds() {
    int round = 0;
    for (; round < plan_.rounds && !BudgetSpent(); ++round) {
      if (!RunRound(round, /*time_share=*/plan_.round_time, plan_.planned_cap)) return false;
    }
    while (!BudgetSpent() && !(CheckDue() && Converged())) {
      if (!RunRound(round++, /*time_share=*/0.0, plan_.per_round)) return false;
    }
    return true;
  }

  bool VerifyOutputs() {
    Status st = instance_->Verify();
    if (!st.ok()) return Fail("verification failed: " + st.error().message);
    return true;
  }

  void Summarize() {
    result_.summary = SummarizeSorted(Sorted());
    if (!instance_) return;
    result_.work = instance_->Work();
    const double median = result_.summary.median;
    if (median > 0 && result_.work.bytes)
      result_.bytes_per_second = static_cast<double>(*result_.work.bytes) / median;
    if (median > 0 && result_.work.flops && *result_.work.flops > 0)
      result_.flops_per_second = *result_.work.flops / median;
    if (max_rss_) result_.peak_memory_bytes = max_rss_;
    if (user_count_ > 0) result_.user_seconds = user_sum_ / static_cast<double>(user_count_);
    if (sys_count_ > 0) result_.sys_seconds = sys_sum_ / static_cast<double>(sys_count_);
    if (any_cycles_) result_.cycles = cycle_rounds_;
    instance_->Annotate(result_);
  }

  // --- helpers -------------------------------------------------------------

  // A round ends once it has `per_round` samples and its time share, or
  // `cap` samples (so every planned round fits into max_samples).
  bool RunRound(int round, double time_share, int64_t cap) {
    instance_->BeginRound(round);
    Tick();
    std::vector<double> samples;
    double measured = 0;
    while (!RoundComplete(samples.size(), measured, time_share, cap)) {
      if (!TakeSample(samples, measured)) {
        KeepRound(round, std::move(samples));
        return false;
      }
    }
    KeepRound(round, std::move(samples));
    return true;
  }

  bool RoundComplete(size_t in_round, double measured, double time_share, int64_t cap) const {
    if (total_ >= plan_.max_samples) return true;
    if (static_cast<int64_t>(in_round) >= cap) return true;
    if (OverMaxTime() && total_ >= plan_.min_samples) return true;
    if (static_cast<int64_t>(in_round) < plan_.per_round) return false;
    return measured >= time_share || OverMaxTime();
  }

  // Runs one sample; stores seconds per invocation (the sample's time over
  // its iterations), so batched and unbatched results compare.
  bool TakeSample(std::vector<double>& samples, double& measured) {
    if (TimedOut()) return Fail(detail::TimedOutMessage(plan_.timeout));
    auto s = instance_->RunSample();
    Tick();
    if (!s.ok()) return Fail(s.error().message);
    const Sample& x = s.value();
    const double seconds = x.seconds / static_cast<double>(result_.iterations_per_sample);
    samples.push_back(seconds);
    round_cycles_.push_back(x.sm_clock_hz ? seconds * *x.sm_clock_hz : 0.0);
    any_cycles_ = any_cycles_ || x.sm_clock_hz.has_value();
    unsorted_.push_back(seconds);
    measured += x.seconds;
    ++total_;
    if (x.user_seconds) {
      user_sum_ += *x.user_seconds;
      ++user_count_;
    }
    if (x.sys_seconds) {
      sys_sum_ += *x.sys_seconds;
      ++sys_count_;
    }
    if (x.max_rss_bytes) max_rss_ = std::max(max_rss_.value_or(0), *x.max_rss_bytes);
    return true;
  }

  void KeepRound(int round, std::vector<double> samples) {
    std::vector<double> cycles = std::move(round_cycles_);
    round_cycles_.clear();
    if (samples.empty()) return;
    AddRoundLevel(samples);
    result_.rounds.push_back(std::move(samples));
    cycle_rounds_.push_back(std::move(cycles));
    if (progress_) progress_->RoundFinished(spec_, round, total_);
  }

  // The round's level for the stop rule (RoundLogMedians of the new round),
  // computed once instead of at every check.
  void AddRoundLevel(const std::vector<double>& samples) {
    scratch_.clear();
    for (double x : samples) scratch_.push_back(std::log(x));
    round_levels_.push_back(MedianInPlace(scratch_));
  }

  bool BudgetSpent() const {
    return total_ >= plan_.max_samples || (total_ >= plan_.min_samples && OverMaxTime());
  }

  // Both the median's interval over all samples and the run level's interval
  // over rounds (which sees drift between rounds) must reach the target.
  // Adaptive rounds can be one sample each, so a check must not cost a
  // summary: the samples taken since the last check are sorted and merged
  // into the sorted ones (the median's interval is then three lookups; the
  // planned rounds, which are not checked, are sorted once), round levels
  // are kept as rounds end, and the t quantile is skipped when the normal
  // bound already says no.
  bool Converged() {
    return MedianRelCiHalfWidthSorted(Sorted()) <= plan_.target_rel_ci &&
           RoundLevelWithin(round_levels_, plan_.target_rel_ci);
  }

  // The stop rule is checked after every extra round while the samples are
  // few; from 1024 on, once they have grown by 1/128 since the last check
  // (each check merges what is new: checking every one-sample round would
  // cost time quadratic in max_samples). A run stops at most 0.8% later.
  bool CheckDue() const {
    return total_ < 1024 || static_cast<int64_t>(unsorted_.size()) * 128 >= total_;
  }

  // Every measured sample, ascending.
  const std::vector<double>& Sorted() {
    if (unsorted_.empty()) return sorted_;
    std::sort(unsorted_.begin(), unsorted_.end());
    const auto middle = static_cast<std::ptrdiff_t>(sorted_.size());
    sorted_.insert(sorted_.end(), unsorted_.begin(), unsorted_.end());
    std::inplace_merge(sorted_.begin(), sorted_.begin() + middle, sorted_.end());
    unsorted_.clear();
    return sorted_;
  }

  // The clock is read once after each step that can take time (Prepare,
  // BeginRound, every sample); the budget checks in between use that reading.
  void Tick() { elapsed_ = clock_.Now() - start_; }
  double Elapsed() const { return elapsed_; }
  bool OverMaxTime() const { return Elapsed() >= plan_.max_time; }
  bool TimedOut() const { return plan_.timeout > 0 && Elapsed() >= plan_.timeout; }

  bool Fail(const std::string& reason) {
    result_.status = WorkloadStatus::kFailed;
    result_.reason = reason;
    return false;
  }

  const WorkloadSpec& spec_;
  Backend& backend_;
  ProgressSink* progress_;
  Clock& clock_;
  const Plan plan_;

  WorkloadResult result_;
  std::unique_ptr<WorkloadInstance> instance_;
  double start_ = 0;
  double elapsed_ = 0;
  int64_t total_ = 0;
  double user_sum_ = 0, sys_sum_ = 0;
  int64_t user_count_ = 0, sys_count_ = 0;
  std::optional<int64_t> max_rss_;
  std::vector<double> sorted_;        // the samples merged so far, ascending (Sorted())
  std::vector<double> unsorted_;      // samples taken since, in order
  std::vector<double> round_cycles_;  // cycle-space times of the round being measured
  std::vector<std::vector<double>> cycle_rounds_;  // of the kept rounds, like result_.rounds
  bool any_cycles_ = false;           // some sample carried its SM clock
  std::vector<double> round_levels_;  // median log-time of each kept round
  std::vector<double> scratch_;       // log-times of the round being kept
};

/// A result without measurements: skipped (no backend can run it) or failed
/// before it measured anything.
WorkloadResult NotRunResult(const WorkloadSpec& spec, const std::string& backend,
                            WorkloadStatus status, const std::string& reason) {
  WorkloadResult r;
  r.name = spec.name;
  r.kind = ToString(spec.kind);
  r.backend = backend;
  r.params = spec.params;
  r.tags = spec.tags;
  r.status = status;
  r.reason = reason;
  return r;
}

}  // namespace

// --- BackendSet --------------------------------------------------------------

BackendSet::BackendSet(const RunOptions& options) : options_(options) {}
BackendSet::~BackendSet() = default;

namespace {

Backend* FindOrCreate(std::vector<std::unique_ptr<Backend>>& backends, const std::string& name,
                      const RunOptions& options) {
  for (auto& b : backends)
    if (b->Name() == name) return b.get();
  std::unique_ptr<Backend> made;
  if (name == "cpu") made = std::make_unique<CpuBackend>();
  else if (name == "process") made = std::make_unique<ProcessBackend>();
  else if (name == "synthetic") made = std::make_unique<SyntheticBackend>(options.run_seed);
  else made = MakeCudaBackend();
  backends.push_back(std::move(made));
  return backends.back().get();
}

}  // namespace

Result<Backend*> BackendSet::For(const WorkloadSpec& spec) {
  switch (spec.kind) {
    case WorkloadKind::kCommand: return FindOrCreate(backends_, "process", options_);
    case WorkloadKind::kSynthetic: return FindOrCreate(backends_, "synthetic", options_);
    case WorkloadKind::kGbench:
    case WorkloadKind::kNvbench:
      return ToolError(std::string("a ") + ToString(spec.kind) +
                       " workload runs as a benchmark program (RunProgramWorkload), not on a backend");
    case WorkloadKind::kStatic:
      return ToolError("a static workload is read by RunStaticWorkload, not run on a backend");
    case WorkloadKind::kBuiltin: break;
  }
  const std::string want = options_.backend.empty() ? spec.backend : options_.backend;
  if (want == "cpu") return FindOrCreate(backends_, "cpu", options_);
  if (want == "cuda" || want == "auto") {
    Backend* cuda = FindOrCreate(backends_, "cuda", options_);
    auto why = cuda->Unsupported(spec);
    if (!why) return cuda;
    if (want == "auto") return FindOrCreate(backends_, "cpu", options_);
    return ToolError("backend cuda requested but " + *why);
  }
  return InputError("unknown backend '" + want + "' (expected auto, cpu or cuda)");
}

// --- entry points ------------------------------------------------------------

WorkloadResult RunWorkload(const WorkloadSpec& spec, Backend& backend, ProgressSink* progress,
                           Clock& clock) {
  return Recipe(spec, backend, progress, clock).Run();
}

WorkloadResult RunWorkload(const WorkloadSpec& spec, Backend& backend, ProgressSink* progress) {
  SteadyClock clock;
  return RunWorkload(spec, backend, progress, clock);
}

Results RunSuite(const Suite& suite, const std::vector<WorkloadSpec>& workloads,
                 const RunOptions& options, ProgressSink* progress) {
  Results results;
  results.run = MakeRunInfo(suite.name);
  BackendSet backends(options);
  const int total = static_cast<int>(workloads.size());
  bool used_gpu = false;
  // Names are unique in a run. A benchmark program names its benchmarks
  // itself, so "<workload>/<benchmark>" can take the name of another
  // workload of the suite (a workload `d/BM_Sum` beside a gbench workload
  // `d` that reports BM_Sum), known only once the program has run.
  std::map<std::string, std::string> taken;  // name -> the workload that reported it
  for (int i = 0; i < total; ++i) {
    const WorkloadSpec& spec = workloads[static_cast<size_t>(i)];
    if (progress) progress->WorkloadStarted(spec, i, total);
    std::vector<WorkloadResult> done;
    const std::string backend_name = options.backend.empty() ? spec.backend : options.backend;
    bool out_of_memory = false;
    try {
      if (ReportsBenchmarks(spec)) {
        done = RunProgramWorkload(spec, progress);
      } else if (spec.kind == WorkloadKind::kCommand && spec.measure == "instructions") {
        done.push_back(RunInstructionWorkload(spec, progress));
      } else if (spec.kind == WorkloadKind::kStatic) {
        done.push_back(RunStaticWorkload(spec));
      } else {
        auto backend = backends.For(spec);
        done.push_back(backend.ok() ? RunWorkload(spec, *backend.value(), progress)
                                    : NotRunResult(spec, backend_name, WorkloadStatus::kSkipped,
                                                   backend.error().message));
        if (done.back().backend == "cuda" && done.back().status == WorkloadStatus::kOk) used_gpu = true;
      }
    } catch (const std::bad_alloc&) {
      // Memory ran out in this workload (its buffers, its samples): it
      // fails, and the run goes on with the memory it released.
      done.clear();
      done.push_back(NotRunResult(spec, backend_name, WorkloadStatus::kFailed,
                                  "out of memory while running it (std::bad_alloc): its inputs or "
                                  "samples do not fit in this process's memory"));
      out_of_memory = true;
    }
    // A benchmark program reports each of its benchmarks as it finishes.
    if (progress && (!ReportsBenchmarks(spec) || out_of_memory)) progress->WorkloadFinished(done.back());
    // A results file holds at most kMaxWorkloadsPerResult workloads (every
    // reader refuses more). The suite is held to it before programs name
    // their benchmarks; a program whose benchmarks would leave no room for
    // the workloads after it fails here, so the run never writes a file that
    // compare and baseline update refuse.
    const size_t after = static_cast<size_t>(total - i - 1);
    const size_t limit = std::min(options.max_workloads, static_cast<size_t>(kMaxWorkloadsPerResult));
    if (results.workloads.size() + done.size() + after > limit) {
      const size_t reported = done.size();
      done.clear();
      done.push_back(NotRunResult(
          spec, backend_name, WorkloadStatus::kFailed,
          "it reported " + std::to_string(reported) + " benchmarks, which with the " +
              std::to_string(results.workloads.size()) + " results before it and the " + std::to_string(after) +
              " workloads after it exceed the " + std::to_string(limit) +
              " workloads a results file holds: split the suite into suites of fewer workloads, or select "
              "benchmarks with the workload's filter"));
      if (progress) progress->WorkloadFinished(done.back());
    }
    NoteMetricsNotCollected(spec, &done);
    for (WorkloadResult& r : done) {
      // A benchmark program's results are "<workload>/<benchmark>", each
      // part within the name limit but the two together maybe not: every
      // reader would refuse the file. Such a name keeps its start and a hash
      // of the whole (the same in every run, so runs still match).
      if (r.name.size() > kMaxNameBytes) {
        r.notes.push_back("its name (" + std::to_string(r.name.size()) + " bytes) is longer than " +
                          std::to_string(kMaxNameBytes) + ": kept as its start and a hash of the whole");
        r.name = BoundedName(r.name);
      }
      auto [it, fresh] = taken.emplace(r.name, spec.name);
      if (!fresh) {
        // The first keeps the name; this one is a failed result under a
        // name of its own, so that the run stays readable and says why.
        const std::string clash = r.name;
        std::string name;
        for (int n = 2; name.empty() || taken.count(name); ++n)
          name = BoundedName(clash + " (duplicate " + std::to_string(n) + ")");
        r.reason = (clash == spec.name
                        ? "workload '" + clash + "' has the name workload '" + it->second +
                              "' already reported"
                        : "workload '" + spec.name + "' reported '" + clash +
                              "', the name workload '" + it->second + "' already has") +
                   "; names must be unique in a run: rename one of them (results kept under "
                   "the first)";
        r.status = WorkloadStatus::kFailed;
        r.rounds.clear();
        r.name = name;
        taken.emplace(name, spec.name);
      }
      results.workloads.push_back(std::move(r));
    }
  }
  if (used_gpu) {
    auto gpu = QueryCudaGpuInfo(0);
    if (gpu.ok()) results.run.env.gpu = gpu.value();
  }
  return results;
}

}  // namespace gpugate
