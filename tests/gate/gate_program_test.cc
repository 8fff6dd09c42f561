// The gate's re-runs of a benchmark program (kind gbench): only the doubtful
// benchmarks are measured again, named exactly (WorkloadSpec::only_benchmarks,
// which the program runner turns into an escaped --benchmark_filter).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "gate/gate.h"
#include "harness/program_runner.h"
#include "util/random.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

const std::vector<std::string> kBenchmarks = {"BM_Copy/4096", "BM_Sort/1024", "BM_Hash/64",
                                              "BM_Map<int>(8)", "BM_Sum/65536"};

WorkloadSpec Program() {
  WorkloadSpec s;
  s.name = "prog";
  s.kind = WorkloadKind::kGbench;
  s.argv = {"/opt/bench/kernels"};
  return s;
}

// A stand-in for a gbench program run by the suite runner: every benchmark
// (or only `only_benchmarks`) as "prog/<benchmark>", 8 rounds of 3 samples,
// within-round CV 0.5%; `slow` runs `slowdown` times slower in recorded runs.
class FakeProgramLab {
 public:
  std::string slow;
  double slowdown = 1.0;
  std::vector<std::vector<std::string>> only;  // only_benchmarks of each recorded call
  std::vector<std::string> filters;            // the --benchmark_filter each call would pass
  bool crash_reruns = false;  // re-runs crash in their first process
  bool omit_in_reruns = false;  // re-runs report none of the benchmarks asked for
  bool skip_in_reruns = false;  // re-runs report them skipped
  std::string extra;            // one more benchmark, its result name bounded as the runner does
  std::vector<std::string> more;  // more benchmarks
  std::set<std::string> slow_set;  // more benchmarks that run `slowdown` times slower in recorded runs

  Results Measure(const std::vector<WorkloadSpec>& specs, uint64_t seed, bool record) {
    Results r;
    r.run.run_id = "fake-" + std::to_string(seed);
    r.run.env.cpu_model = "Fake CPU";
    for (const WorkloadSpec& spec : specs) {
      if (record && crash_reruns && !spec.only_benchmarks.empty()) {
        // As ProgramRun reports a program that failed as a whole: one
        // result named after the suite workload.
        only.push_back(spec.only_benchmarks);
        WorkloadResult failed;
        failed.name = spec.name;
        failed.kind = "gbench";
        failed.backend = "process";
        failed.status = WorkloadStatus::kFailed;
        failed.reason = "process 1 of 8: '/opt/bench/kernels' killed by signal SIGSEGV (11)";
        r.workloads.push_back(std::move(failed));
        continue;
      }
      if (record) {
        only.push_back(spec.only_benchmarks);
        std::string filter;
        for (const std::string& a : ProgramArgv(spec, "/tmp/out.json"))
          if (a.rfind("--benchmark_filter=", 0) == 0) filter = a.substr(19);
        filters.push_back(filter);
      }
      std::vector<std::string> benchmarks = kBenchmarks;
      if (!extra.empty()) benchmarks.push_back(extra);
      benchmarks.insert(benchmarks.end(), more.begin(), more.end());
      const std::set<std::string> selected(spec.only_benchmarks.begin(), spec.only_benchmarks.end());
      for (size_t b = 0; b < benchmarks.size(); ++b) {
        const std::string& bench = benchmarks[b];
        if (!selected.empty() && selected.count(bench) == 0) continue;
        const bool rerun = record && !spec.only_benchmarks.empty();
        if (rerun && omit_in_reruns) continue;
        WorkloadResult w;
        w.name = BoundedName(spec.name + "/" + bench);
        w.kind = "gbench";
        w.backend = "process";
        if (rerun && skip_in_reruns) {
          w.status = WorkloadStatus::kSkipped;
          w.reason = "skipped by the benchmark: no device";
          r.workloads.push_back(std::move(w));
          continue;
        }
        RandomStream rng(MixSeeds(seed, Fnv1a64(w.name), 0));
        const double level = 1e-5 * static_cast<double>(b + 1) *
                             (record && (bench == slow || slow_set.count(bench)) ? slowdown : 1.0) * rng.LognormalFactor(0.002);
        for (int k = 0; k < 8; ++k) {
          std::vector<double> round;
          for (int j = 0; j < 3; ++j) round.push_back(level * rng.LognormalFactor(0.005));
          w.rounds.push_back(std::move(round));
        }
        r.workloads.push_back(std::move(w));
      }
    }
    return r;
  }

  std::vector<Results> Baseline() {
    std::vector<Results> runs;
    for (uint64_t s = 2001; s <= 2006; ++s) runs.push_back(Measure({Program()}, s, false));
    return runs;
  }

  SuiteRunner Runner() {
    return [this](const std::vector<WorkloadSpec>& specs, const RunOptions& options, ProgressSink*) {
      return Measure(specs, options.run_seed, true);
    };
  }
};

class Names final : public GateProgress {
 public:
  void ConfirmationStarted(const std::vector<std::string>& workloads, int, int) override {
    started.push_back(workloads);
  }
  void ConfirmationNote(const std::string& sentence) override { notes.push_back(sentence); }
  std::vector<std::vector<std::string>> started;
  std::vector<std::string> notes;
};

// The verdicts' warnings that contain `text`.
int WarningsWith(const Verdicts& v, const std::string& text) {
  int n = 0;
  for (const std::string& w : v.warnings) n += w.find(text) != std::string::npos;
  return n;
}

TEST(GateProgramTest, ReRunsOnlyTheDoubtfulBenchmarkOfAProgram) {
  FakeProgramLab lab;
  lab.slow = "BM_Map<int>(8)";
  lab.slowdown = 1.3;
  Names names;
  GateOptions o;
  o.confirmations = 2;
  o.run.run_seed = 7;
  o.compare.today = "2026-11-23";
  GateOutcome out = RunGate({Program()}, lab.Baseline(), DefaultPolicy(), o, &names, lab.Runner());
  // The first run measures everything; each re-run only the slowed benchmark.
  ASSERT_EQ(lab.only.size(), 3u);
  EXPECT_TRUE(lab.only[0].empty());
  EXPECT_EQ(lab.filters[0], "");
  for (size_t call = 1; call < lab.only.size(); ++call) {
    EXPECT_EQ(lab.only[call], std::vector<std::string>{"BM_Map<int>(8)"});
    EXPECT_EQ(lab.filters[call], "^(BM_Map<int>\\(8\\))$");
  }
  ASSERT_EQ(names.started.size(), 2u);
  EXPECT_EQ(names.started[0], std::vector<std::string>{"prog/BM_Map<int>(8)"});
  for (const MetricVerdict& m : out.verdicts.metrics) {
    if (m.metric != "time") continue;
    EXPECT_EQ(m.verdict, m.workload == "prog/BM_Map<int>(8)" ? Verdict::kRegression : Verdict::kUnchanged)
        << m.workload << ": " << m.sentence;
  }
  // The re-runs' rounds were merged into the slowed benchmark only.
  for (const WorkloadResult& w : out.results.workloads)
    EXPECT_EQ(w.confirmation_reruns, w.name == "prog/BM_Map<int>(8)" ? 2 : 0) << w.name;
}

// The gate of `lab` with BM_Map<int>(8) 30% slower, up to 3 re-runs.
GateOutcome GateWithASlowedBenchmark(FakeProgramLab& lab) {
  lab.slow = "BM_Map<int>(8)";
  lab.slowdown = 1.3;
  GateOptions o;
  o.confirmations = 3;
  o.run.run_seed = 7;
  o.compare.today = "2026-11-23";
  return RunGate({Program()}, lab.Baseline(), DefaultPolicy(), o, nullptr, lab.Runner());
}

TEST(GateProgramTest, AProgramThatCrashesInAReRunIsAnError) {
  // The program crashes in the first process of its re-run: its one failed
  // result stands for the doubtful benchmark, an error outcome (exit 3), not
  // a regression judged without it.
  FakeProgramLab lab;
  lab.crash_reruns = true;
  GateOutcome out = GateWithASlowedBenchmark(lab);
  EXPECT_EQ(out.verdicts.outcome, Outcome::kError);
  EXPECT_EQ(ExitCodeFor(out.verdicts), 3);
  EXPECT_EQ(lab.only.size(), 2u);  // no re-run after the failure
  bool named = false;
  for (const WorkloadResult& w : out.results.workloads)
    if (w.name == "prog/BM_Map<int>(8)") {
      EXPECT_EQ(w.status, WorkloadStatus::kFailed);
      named = w.reason.find("confirmation re-run 1: process 1 of 8") != std::string::npos;
    }
  EXPECT_TRUE(named);
}

// A re-run that does not measure the doubtful benchmark (the program left
// it out, or skipped it) does not confirm the first run's regression: the
// benchmark fails, and the gate's outcome is an error (exit 3) in the
// verdicts and the results alike.
TEST(GateProgramTest, AReRunThatDoesNotMeasureTheBenchmarkConfirmsNothing) {
  for (const bool skip : {false, true}) {
    SCOPED_TRACE(skip ? "skipped" : "left out");
    FakeProgramLab lab;
    (skip ? lab.skip_in_reruns : lab.omit_in_reruns) = true;
    GateOutcome out = GateWithASlowedBenchmark(lab);
    EXPECT_EQ(out.verdicts.outcome, Outcome::kError);
    EXPECT_EQ(ExitCodeFor(out.verdicts), 3);
    for (const MetricVerdict& m : out.verdicts.metrics)
      EXPECT_NE(m.verdict, Verdict::kRegression) << m.workload;
    bool said = false;
    for (const WorkloadResult& w : out.results.workloads)
      if (w.name == "prog/BM_Map<int>(8)") {
        EXPECT_EQ(w.status, WorkloadStatus::kFailed);
        said = w.reason.find("the first run's result is not confirmed") != std::string::npos;
      }
    EXPECT_TRUE(said);
  }
}

// A benchmark whose result name was cut to its start and a hash cannot be
// selected by name: the program is re-run whole, and the slowdown is
// confirmed (a regression, exit 1), not an error for a re-run that "did not
// report" it.
TEST(GateProgramTest, ABenchmarkWithABoundedNameIsReRunWithTheWholeProgram) {
  FakeProgramLab lab;
  lab.extra = "BM_Long/" + std::string(1100, 'x');
  lab.slow = lab.extra;
  lab.slowdown = 1.3;
  GateOptions o;
  o.confirmations = 2;
  o.run.run_seed = 7;
  o.compare.today = "2026-11-23";
  Names progress;
  GateOutcome out = RunGate({Program()}, lab.Baseline(), DefaultPolicy(), o, &progress, lab.Runner());
  ASSERT_EQ(lab.only.size(), 3u);
  for (const auto& only : lab.only) EXPECT_TRUE(only.empty());
  EXPECT_EQ(ExitCodeFor(out.verdicts), 1);
  // Said once for the program, though it was re-run whole twice.
  ASSERT_EQ(progress.notes.size(), 1u);
  EXPECT_EQ(progress.notes[0].rfind("gate: workload 'prog': a doubtful benchmark's name is bounded", 0), 0u)
      << progress.notes[0];
  EXPECT_NE(progress.notes[0].find("its confirmation re-runs run the whole program"), std::string::npos);
  EXPECT_EQ(WarningsWith(out.verdicts, progress.notes[0]), 1);
  const std::string name = BoundedName("prog/" + lab.extra);
  for (const MetricVerdict& m : out.verdicts.metrics) {
    if (m.metric != "time") continue;
    EXPECT_EQ(m.verdict == Verdict::kRegression, m.workload == name) << m.workload;
  }
  // Only the doubtful benchmark takes the re-runs' rounds: the others were
  // measured again but not asked about.
  for (const WorkloadResult& w : out.results.workloads)
    EXPECT_EQ(w.confirmation_reruns, w.name == name ? 2 : 0) << w.name;
}

TEST(GateProgramTest, DoubtfulNamesPastOneArgumentReRunTheWholeProgram) {
  // Linux starts no program with an argument of 128 KiB or more: a filter
  // naming 6,000 doubtful benchmarks made every re-run fail to start
  // ("Argument list too long") and the gate end in errors.
  FakeProgramLab lab;
  for (int i = 0; i < 9000; ++i) {
    lab.more.push_back("BM_ManyBenchmarksOfOneProgram/input_size:" + std::to_string(100000 + i));
    if (i % 3 == 0) lab.slow_set.insert(lab.more.back());  // a third slower: no common shift
  }
  lab.slowdown = 1.5;
  GateOptions o;
  o.confirmations = 1;
  o.run.run_seed = 7;
  o.compare.today = "2026-11-23";
  Names progress;
  GateOutcome out = RunGate({Program()}, lab.Baseline(), DefaultPolicy(), o, &progress, lab.Runner());
  ASSERT_EQ(lab.only.size(), 2u);
  EXPECT_TRUE(lab.only[1].empty()) << lab.only[1].size() << " benchmarks named on the command line";
  EXPECT_TRUE(lab.filters[1].empty());
  // The whole re-run is said, on the progress and in the verdicts.
  ASSERT_EQ(progress.notes.size(), 1u);
  EXPECT_NE(progress.notes[0].find("doubtful benchmarks do not fit one command line (a --benchmark_filter of "
                                   "100 KiB or more): its confirmation re-runs run the whole program"),
            std::string::npos)
      << progress.notes[0];
  EXPECT_EQ(WarningsWith(out.verdicts, "do not fit one command line"), 1);
  // A third of the suite moving at once is not told from a slower machine
  // by one current run: the benchmarks stay doubtful, and every one of
  // them was measured again, none failed.
  int confirmed = 0;
  for (const WorkloadResult& w : out.results.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.name;
    confirmed += w.confirmation_reruns > 0;
  }
  EXPECT_GE(confirmed, 3000);
}

TEST(GateProgramTest, ASelectionFitsTheCommandLineOrTheProgramRunsWhole) {
  WorkloadSpec spec = Program();
  EXPECT_TRUE(SelectionFitsTheCommandLine(spec));
  for (int i = 0; i < 100; ++i) spec.only_benchmarks.push_back("BM_Many/" + std::to_string(i));
  EXPECT_TRUE(SelectionFitsTheCommandLine(spec));
  for (int i = 100; i < 8000; ++i) spec.only_benchmarks.push_back("BM_Many/" + std::to_string(i));
  EXPECT_GT(ExactNamesFilter(spec.only_benchmarks).size(), 100u * 1024);
  EXPECT_FALSE(SelectionFitsTheCommandLine(spec));
  spec.kind = WorkloadKind::kNvbench;  // one --benchmark argument per name
  EXPECT_TRUE(SelectionFitsTheCommandLine(spec));
  spec.only_benchmarks.assign(1, std::string(200 * 1024, 'b'));
  EXPECT_FALSE(SelectionFitsTheCommandLine(spec));
}

TEST(GateProgramTest, NothingDoubtfulMeansNoReRun) {
  FakeProgramLab lab;
  GateOptions o;
  o.confirmations = 3;
  o.run.run_seed = 9;
  o.compare.today = "2026-11-23";
  RunGate({Program()}, lab.Baseline(), DefaultPolicy(), o, nullptr, lab.Runner());
  EXPECT_EQ(lab.only.size(), 1u);
}

}  // namespace
}  // namespace gpugate
