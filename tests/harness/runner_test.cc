// Tests of the runner recipe: adaptive stopping (synthetic backend), rounds,
// warmup, batching, time budgets and timeouts (fake clock), failure paths and
// backend selection.
#include "harness/runner.h"

#include <gtest/gtest.h>

#include <numeric>

#include "harness/backends/cpu_backend.h"
#include "harness/backends/cuda_backend.h"
#include "harness/backends/process_backend.h"
#include "harness/backends/synthetic_backend.h"
#include "stats/summary.h"

namespace gpugate {
namespace {

WorkloadSpec SyntheticSpecWith(double cv, Sampling sampling) {
  WorkloadSpec spec;
  spec.name = "synthetic/test";
  spec.kind = WorkloadKind::kSynthetic;
  spec.sampling = sampling;
  spec.synthetic.median = 1e-3;
  spec.synthetic.cv = cv;
  spec.synthetic.seed = 7;
  return spec;
}

Sampling QuickSampling() {
  Sampling s;
  s.warmup = 2;
  s.min_samples = 10;
  s.max_samples = 200;
  s.min_time = 0;
  s.max_time = 30;
  s.target_rel_ci = 0.01;
  s.rounds = 5;
  s.timeout = 60;
  return s;
}

int64_t Total(const WorkloadResult& r) { return static_cast<int64_t>(AllSamples(r).size()); }

TEST(RunnerTest, QuietWorkloadStopsAtMinSamples) {
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, QuickSampling()), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(Total(r), 10);
  ASSERT_EQ(r.rounds.size(), 5u);
  for (const auto& round : r.rounds) EXPECT_EQ(round.size(), 2u);
  EXPECT_LE(r.summary.rel_ci_half_width, 0.01);
  EXPECT_EQ(r.summary.n, 10);
  EXPECT_EQ(r.warmup, 2);
  EXPECT_EQ(r.backend, "synthetic");
  EXPECT_EQ(r.kind, "synthetic");
}

TEST(RunnerTest, NoisyWorkloadRunsToMaxSamples) {
  Sampling s = QuickSampling();
  s.max_samples = 60;
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.5, s), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(Total(r), 60);
  EXPECT_GT(r.summary.rel_ci_half_width, 0.01);
  // 5 planned rounds of 2, then extra rounds of 2: 30 rounds in all.
  EXPECT_EQ(r.rounds.size(), 30u);
}

TEST(RunnerTest, ModerateNoiseStopsBetweenMinAndMax) {
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.03, QuickSampling()), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_GT(Total(r), 10);
  EXPECT_LT(Total(r), 200);
  EXPECT_LE(r.summary.rel_ci_half_width, 0.01);
}

TEST(RunnerTest, DriftBetweenRoundsAddsRounds) {
  // Tight samples (CV 0.1%) but 3% drift between rounds: the pooled samples'
  // median interval is narrow at once; the run level's interval over rounds
  // is not, so rounds are added until it reaches 1% or max_samples.
  Sampling s = QuickSampling();
  s.max_samples = 400;
  WorkloadSpec spec = SyntheticSpecWith(0.001, s);
  spec.synthetic.round_drift_cv = 0.03;
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(spec, backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_GT(r.rounds.size(), 5u);
  EXPECT_LE(RoundLevelRelHalfWidth(r.rounds), 0.01);
  // Without drift the planned 5 rounds suffice.
  spec.synthetic.round_drift_cv = 0;
  WorkloadResult quiet = RunWorkload(spec, backend);
  EXPECT_EQ(quiet.rounds.size(), 5u);
}

TEST(RunnerTest, AdaptivePhaseStopsAtTheFirstRoundBothIntervalsAllow) {
  // The stop rule as defined on whole summaries: after the last round both
  // intervals are within the target, and one round earlier one was not.
  // The runner computes it incrementally; this checks it from scratch, over
  // seeds and noise levels with and without drift between rounds.
  int checked = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    WorkloadSpec spec = SyntheticSpecWith(0.01 * static_cast<double>(1 + seed % 4), QuickSampling());
    spec.synthetic.seed = seed;
    spec.synthetic.round_drift_cv = seed % 3 == 0 ? 0.01 : 0.0;
    SyntheticBackend backend;
    WorkloadResult r = RunWorkload(spec, backend);
    ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
    if (Total(r) >= 200 || r.rounds.size() <= 5u) continue;  // budget or planned rounds only
    auto within = [](const std::vector<std::vector<double>>& rounds) {
      WorkloadResult w;
      w.rounds = rounds;
      return Summarize(AllSamples(w)).rel_ci_half_width <= 0.01 &&
             RoundLevelRelHalfWidth(rounds) <= 0.01;
    };
    EXPECT_TRUE(within(r.rounds)) << "seed " << seed;
    std::vector<std::vector<double>> earlier(r.rounds.begin(), r.rounds.end() - 1);
    EXPECT_FALSE(within(earlier)) << "seed " << seed;
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

TEST(RunnerTest, NeverStopsBeforeMinSamples) {
  Sampling s = QuickSampling();
  s.min_samples = 25;
  s.rounds = 4;
  s.target_rel_ci = 1.0;  // converged from the first sample on
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, s), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_GE(Total(r), 25);
  ASSERT_EQ(r.rounds.size(), 4u);
  for (const auto& round : r.rounds) EXPECT_EQ(round.size(), 7u);  // ceil(25 / 4)
}

TEST(RunnerTest, MinTimeIsSharedByRounds) {
  Sampling s = QuickSampling();
  s.min_time = 0.05;  // 10 ms of measured time per round, samples of ~1 ms
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, s), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_EQ(r.rounds.size(), 5u);
  for (const auto& round : r.rounds) {
    double sum = std::accumulate(round.begin(), round.end(), 0.0);
    EXPECT_GE(sum, 0.01);
    EXPECT_LT(sum, 0.0115);  // stops right after reaching its share
  }
}

TEST(RunnerTest, MinTimeNeverStarvesPlannedRounds) {
  Sampling s = QuickSampling();
  s.min_time = 1.0;     // 200 ms per round would need ~200 samples each
  s.max_samples = 60;   // so each planned round is capped at 60 / 5 = 12
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, s), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_EQ(r.rounds.size(), 5u);
  for (const auto& round : r.rounds) EXPECT_EQ(round.size(), 12u);
}

TEST(RunnerTest, MaxSamplesBelowMinSamplesStillTakesMinSamples) {
  Sampling s = QuickSampling();
  s.min_samples = 12;
  s.max_samples = 3;
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.5, s), backend);
  EXPECT_EQ(Total(r), 12);
}

// --- fakes: a clock that only moves when a sample "takes" time -------------

class FakeClock final : public Clock {
 public:
  double Now() override { return now; }
  double now = 1000.0;
};

struct FakeCounters {
  int samples = 0;
  int begin_rounds = 0;
  int verifies = 0;
};

class FakeInstance final : public WorkloadInstance {
 public:
  FakeInstance(FakeClock& clock, FakeCounters& counters, double seconds, int64_t iterations,
               bool fail_verify, int fail_at)
      : clock_(clock), counters_(counters), seconds_(seconds), iterations_(iterations),
        fail_verify_(fail_verify), fail_at_(fail_at) {}
  void BeginRound(int) override { ++counters_.begin_rounds; }
  Result<Sample> RunSample() override {
    ++counters_.samples;
    if (fail_at_ > 0 && counters_.samples == fail_at_) return ToolError("sample exploded");
    // Alternate around the nominal time so the CI never gets narrow.
    double s = seconds_ * (counters_.samples % 2 ? 0.5 : 1.5);
    clock_.now += s;
    Sample out;
    out.seconds = s;
    out.user_seconds = s / 2;
    out.sys_seconds = s / 4;
    out.max_rss_bytes = 1000 + counters_.samples;
    return out;
  }
  WorkCounts Work() const override { return WorkCounts{100, 50.0, 10}; }
  int64_t IterationsPerSample() const override { return iterations_; }
  Status Verify() override {
    ++counters_.verifies;
    if (fail_verify_) return ToolError("output 3 is wrong");
    return Status::Ok();
  }
  void Annotate(WorkloadResult& r) const override { r.counters["annotated"] = 1; }

 private:
  FakeClock& clock_;
  FakeCounters& counters_;
  double seconds_;
  int64_t iterations_;
  bool fail_verify_;
  int fail_at_;
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(FakeClock& clock) : clock_(clock) {}
  std::string Name() const override { return "fake"; }
  std::optional<std::string> Unsupported(const WorkloadSpec&) const override { return unsupported; }
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec&) override {
    if (prepare_error) return *prepare_error;
    return std::unique_ptr<WorkloadInstance>(std::make_unique<FakeInstance>(
        clock_, counters, seconds, iterations, fail_verify, fail_at));
  }
  FakeCounters counters;
  double seconds = 0.125;  // samples of 0.0625 and 0.1875 s: exact in binary
  int64_t iterations = 1;
  bool fail_verify = false;
  int fail_at = 0;
  std::optional<std::string> unsupported;
  std::optional<Error> prepare_error;

 private:
  FakeClock& clock_;
};

WorkloadSpec FakeSpec(Sampling s) {
  WorkloadSpec spec;
  spec.name = "fake";
  spec.kind = WorkloadKind::kBuiltin;
  spec.params = {{"n", "1M"}};
  spec.tags = {"t1"};
  spec.sampling = s;
  return spec;
}

TEST(RunnerTest, MaxTimeEndsAdaptivePhase) {
  FakeClock clock;
  FakeBackend backend(clock);
  Sampling s = QuickSampling();
  s.warmup = 0;
  s.min_samples = 4;
  s.rounds = 2;
  s.max_samples = 1000;
  s.target_rel_ci = 0;  // never converges
  s.max_time = 1.0;     // samples take 0.0625 or 0.1875 s of fake time
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  // 8 samples make exactly 1.0 s; the rule stops once the budget is spent.
  EXPECT_EQ(Total(r), 8);
  EXPECT_EQ(backend.counters.verifies, 1);
}

TEST(RunnerTest, MaxTimeDoesNotCutMinSamples) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.seconds = 10;
  Sampling s = QuickSampling();
  s.warmup = 0;
  s.min_samples = 6;
  s.rounds = 3;
  s.max_time = 1.0;
  s.timeout = 0;  // no timeout
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(Total(r), 6);
  EXPECT_EQ(r.rounds.size(), 3u);
}

TEST(RunnerTest, TimeoutFailsWorkloadAndKeepsSamples) {
  FakeClock clock;
  FakeBackend backend(clock);
  Sampling s = QuickSampling();
  s.warmup = 1;
  s.min_samples = 100;
  s.max_time = 100;
  s.timeout = 2.0;
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  EXPECT_EQ(r.status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.reason, "timed out after 2.00 s");
  // 1 warmup + 15 samples reach exactly 2.0 s of fake time.
  EXPECT_EQ(backend.counters.samples, 16);
  EXPECT_EQ(Total(r), 15);
  EXPECT_EQ(backend.counters.verifies, 0);
}

TEST(RunnerTest, WarmupSamplesAreNotRecorded) {
  FakeClock clock;
  FakeBackend backend(clock);
  Sampling s = QuickSampling();
  s.warmup = 3;
  s.target_rel_ci = 10;  // stop at min_samples
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(backend.counters.samples, 13);
  EXPECT_EQ(Total(r), 10);
  EXPECT_EQ(r.warmup, 3);
  EXPECT_EQ(backend.counters.begin_rounds, 5);
}

TEST(RunnerTest, BatchedSamplesArePerInvocationAndThroughputFollows) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.seconds = 0.4;
  backend.iterations = 4;
  Sampling s = QuickSampling();
  s.warmup = 0;
  s.min_samples = 2;
  s.rounds = 1;
  s.target_rel_ci = 10;
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_EQ(r.rounds.size(), 1u);
  // Samples of 0.2 s and 0.6 s over 4 iterations: 0.05 and 0.15 s per call.
  EXPECT_DOUBLE_EQ(r.rounds[0][0], 0.05);
  EXPECT_DOUBLE_EQ(r.rounds[0][1], 0.15);
  EXPECT_EQ(r.iterations_per_sample, 4);
  EXPECT_DOUBLE_EQ(r.summary.median, 0.1);
  ASSERT_TRUE(r.bytes_per_second.has_value());
  EXPECT_DOUBLE_EQ(*r.bytes_per_second, 1000.0);  // 100 bytes / 0.1 s
  EXPECT_DOUBLE_EQ(*r.flops_per_second, 500.0);
  // rusage fields: means per sample (not per invocation), max of RSS.
  EXPECT_DOUBLE_EQ(*r.user_seconds, 0.2);
  EXPECT_DOUBLE_EQ(*r.sys_seconds, 0.1);
  EXPECT_EQ(*r.peak_memory_bytes, 1002);
  EXPECT_EQ(r.counters.at("annotated"), 1);
  EXPECT_EQ(r.params, (std::vector<std::pair<std::string, std::string>>{{"n", "1M"}}));
  EXPECT_EQ(r.tags, std::vector<std::string>{"t1"});
}

TEST(RunnerTest, UnsupportedIsSkippedWithReason) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.unsupported = "no such device";
  WorkloadResult r = RunWorkload(FakeSpec(QuickSampling()), backend, nullptr, clock);
  EXPECT_EQ(r.status, WorkloadStatus::kSkipped);
  EXPECT_EQ(r.reason, "no such device");
  EXPECT_EQ(backend.counters.samples, 0);
}

TEST(RunnerTest, PrepareErrorFailsWorkload) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.prepare_error = InputError("suite.yaml:4:3: bad kernel");
  WorkloadResult r = RunWorkload(FakeSpec(QuickSampling()), backend, nullptr, clock);
  EXPECT_EQ(r.status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.reason, "suite.yaml:4:3: bad kernel");
}

TEST(RunnerTest, VerifyFailureFailsWorkload) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.fail_verify = true;
  Sampling s = QuickSampling();
  s.target_rel_ci = 10;
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  EXPECT_EQ(r.status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.reason, "verification failed: output 3 is wrong");
  EXPECT_EQ(Total(r), 10);  // measured samples are kept
}

TEST(RunnerTest, SampleErrorFailsWorkload) {
  FakeClock clock;
  FakeBackend backend(clock);
  backend.fail_at = 7;
  Sampling s = QuickSampling();
  s.warmup = 2;
  WorkloadResult r = RunWorkload(FakeSpec(s), backend, nullptr, clock);
  EXPECT_EQ(r.status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.reason, "sample exploded");
  EXPECT_EQ(Total(r), 4);  // samples 3..6 after two warmups
}

class RecordingProgress final : public ProgressSink {
 public:
  void RoundFinished(const WorkloadSpec&, int round, int64_t samples) override {
    rounds.push_back({round, samples});
  }
  std::vector<std::pair<int, int64_t>> rounds;
};

TEST(RunnerTest, ReportsEachRound) {
  SyntheticBackend backend;
  RecordingProgress progress;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, QuickSampling()), backend, &progress);
  ASSERT_EQ(progress.rounds.size(), 5u);
  EXPECT_EQ(progress.rounds[0], (std::pair<int, int64_t>{0, 2}));
  EXPECT_EQ(progress.rounds[4], (std::pair<int, int64_t>{4, 10}));
}

TEST(RunnerTest, RunsRealCpuKernelAndDerivesThroughput) {
  WorkloadSpec spec;
  spec.name = "triad/4096";
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "triad";
  spec.sizes = {{"n", 4096}};
  spec.sampling = QuickSampling();
  spec.sampling.target_rel_ci = 10;
  CpuBackend backend(CpuBackendOptions{1e-4, int64_t{1} << 20});
  WorkloadResult r = RunWorkload(spec, backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(r.backend, "cpu");
  EXPECT_GT(r.iterations_per_sample, 1);
  EXPECT_EQ(*r.work.bytes, 3 * 4096 * 4);
  ASSERT_TRUE(r.bytes_per_second.has_value());
  EXPECT_NEAR(*r.bytes_per_second, 3 * 4096 * 4 / r.summary.median, 1e-6 * *r.bytes_per_second);
  EXPECT_GT(*r.flops_per_second, 0);
}

TEST(RunnerTest, RunsCommandWithRusageAndSpawnOverhead) {
  WorkloadSpec spec;
  spec.name = "true";
  spec.kind = WorkloadKind::kCommand;
  spec.argv = {"/bin/true"};
  spec.sampling = QuickSampling();
  spec.sampling.warmup = 1;
  spec.sampling.min_samples = 3;
  // Exactly three: the stop rule may add a sample when one spawn is an
  // outlier (under ASan one /bin/true took long enough that three samples'
  // interval exceeded even this loose target); the sample count is not what
  // this test checks.
  spec.sampling.max_samples = 3;
  spec.sampling.rounds = 3;
  spec.sampling.target_rel_ci = 10;
  ProcessBackend backend;
  WorkloadResult r = RunWorkload(spec, backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_EQ(r.backend, "process");
  EXPECT_EQ(Total(r), 3);
  EXPECT_TRUE(r.user_seconds.has_value());
  EXPECT_TRUE(r.sys_seconds.has_value());
  // /bin/true's own peak is below this process's resident set, which a
  // process it starts inherits: no peak memory rather than ours, and a note.
  EXPECT_FALSE(r.peak_memory_bytes.has_value()) << *r.peak_memory_bytes;
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].rfind("peak memory not measured: the processes stayed below gpugate's own ", 0), 0u)
      << r.notes[0];
  EXPECT_NE(r.notes[0].find("MiB, which a process it starts inherits"), std::string::npos) << r.notes[0];
  ASSERT_EQ(r.counters.count("spawn_overhead_s"), 1u);
  EXPECT_GT(r.counters.at("spawn_overhead_s"), 0);
  EXPECT_LT(r.counters.at("spawn_overhead_s"), 1.0);
}

// --- backend selection ------------------------------------------------------

TEST(BackendSetTest, PicksBackendByKind) {
  BackendSet set(RunOptions{});
  WorkloadSpec synthetic;
  synthetic.kind = WorkloadKind::kSynthetic;
  WorkloadSpec command;
  command.kind = WorkloadKind::kCommand;
  WorkloadSpec cpu;
  cpu.kind = WorkloadKind::kBuiltin;
  cpu.kernel = "triad";
  cpu.backend = "cpu";
  auto a = set.For(synthetic);
  auto b = set.For(command);
  auto c = set.For(cpu);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a.value()->Name(), "synthetic");
  EXPECT_EQ(b.value()->Name(), "process");
  EXPECT_EQ(c.value()->Name(), "cpu");
  EXPECT_EQ(set.For(synthetic).value(), a.value());  // backends are reused
}

TEST(BackendSetTest, AutoFallsBackToCpuWithoutDevice) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "saxpy";
  spec.backend = "auto";
  BackendSet set(RunOptions{});
  auto b = set.For(spec);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value()->Name(), CudaUnavailableReason() ? "cpu" : "cuda");
}

TEST(BackendSetTest, ForcedCudaWithoutDeviceNamesTheReason) {
  auto why = CudaUnavailableReason();
  if (!why) GTEST_SKIP() << "a CUDA device is present";
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "saxpy";
  spec.backend = "cpu";
  RunOptions options;
  options.backend = "cuda";  // the command line wins over the suite
  BackendSet set(options);
  auto b = set.For(spec);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message, "backend cuda requested but " + *why);
  EXPECT_EQ(b.error().code, ExitCode::kToolError);
}

TEST(BackendSetTest, ForcedAutoOverridesSuiteAndNoneKeepsIt) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "saxpy";
  spec.backend = "cuda";
  RunOptions options;
  options.backend = "auto";  // given on the command line: wins over the suite's cuda
  BackendSet forced(options);
  auto b = forced.For(spec);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value()->Name(), CudaUnavailableReason() ? "cpu" : "cuda");
  BackendSet suite_s(RunOptions{});  // none given: the workload's own
  auto own = suite_s.For(spec);
  EXPECT_EQ(own.ok(), !CudaUnavailableReason());
}

TEST(BackendSetTest, ForcedCpuOverridesSuite) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.kernel = "saxpy";
  spec.backend = "cuda";
  RunOptions options;
  options.backend = "cpu";
  BackendSet set(options);
  auto b = set.For(spec);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value()->Name(), "cpu");
}

TEST(BackendSetTest, UnknownBackendIsInputError) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kBuiltin;
  spec.backend = "tpu";
  BackendSet set(RunOptions{});
  auto b = set.For(spec);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, ExitCode::kInputError);
}

TEST(RunSuiteTest, SkipsCudaWorkloadWithoutDeviceAndRunsTheRest) {
  auto why = CudaUnavailableReason();
  if (!why) GTEST_SKIP() << "a CUDA device is present";
  Suite suite;
  suite.name = "mini";
  WorkloadSpec gpu;
  gpu.name = "saxpy/gpu";
  gpu.kind = WorkloadKind::kBuiltin;
  gpu.kernel = "saxpy";
  gpu.backend = "cuda";
  WorkloadSpec syn = SyntheticSpecWith(0.001, QuickSampling());
  Results r = RunSuite(suite, {gpu, syn}, RunOptions{});
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kSkipped);
  EXPECT_EQ(r.workloads[0].backend, "cuda");
  EXPECT_EQ(r.workloads[0].reason, "backend cuda requested but " + *why);
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.run.suite, "mini");
  EXPECT_FALSE(r.run.env.gpu.name.has_value());
}

// A backend whose samples carry the SM clock they ran at, as the CUDA
// backend's do: 1 ms per sample, the clock alternating 1.5 and 1.0 GHz, and
// every fourth sample without a reading.
class ClockedInstance final : public WorkloadInstance {
 public:
  Result<Sample> RunSample() override {
    Sample s;
    s.seconds = 1e-3;
    if (++calls_ % 4 != 0) s.sm_clock_hz = calls_ % 2 == 0 ? 1.0e9 : 1.5e9;
    return s;
  }

 private:
  int calls_ = 0;
};

class ClockedBackend final : public Backend {
 public:
  std::string Name() const override { return "clocked"; }
  std::optional<std::string> Unsupported(const WorkloadSpec&) const override { return std::nullopt; }
  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec&) override {
    return std::unique_ptr<WorkloadInstance>(std::make_unique<ClockedInstance>());
  }
};

TEST(RunnerTest, StoresCycleSpaceTimePerSampleWhenSamplesCarryAClock) {
  Sampling s = QuickSampling();
  s.warmup = 3;
  s.min_samples = 8;
  s.max_samples = 8;
  s.rounds = 2;
  ClockedBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, s), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  ASSERT_EQ(r.cycles.size(), r.rounds.size());
  // Warmup took calls 1-3; measured samples are calls 4..11.
  std::vector<double> flat;
  for (size_t i = 0; i < r.rounds.size(); ++i) {
    ASSERT_EQ(r.cycles[i].size(), r.rounds[i].size());
    flat.insert(flat.end(), r.cycles[i].begin(), r.cycles[i].end());
  }
  ASSERT_EQ(flat.size(), 8u);
  const std::vector<double> want = {0.0, 1.5e6, 1.0e6, 1.5e6, 0.0, 1.5e6, 1.0e6, 1.5e6};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(flat[i], want[i]) << i;
}

TEST(RunnerTest, NoCyclesWithoutClocks) {
  SyntheticBackend backend;
  WorkloadResult r = RunWorkload(SyntheticSpecWith(0.001, QuickSampling()), backend);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_TRUE(r.cycles.empty());
}

}  // namespace
}  // namespace gpugate
