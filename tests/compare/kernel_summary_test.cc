// Tests for the per-run kernel summary (compare/kernel_summary.h) and for
// per-kernel judging by run in Compare(): one summary per run and kernel.
#include "compare/kernel_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compare/compare.h"
#include "report/view.h"

namespace gpugate {
namespace {

KernelResult Kernel(const std::string& name, std::vector<double> durations) {
  KernelResult k;
  k.name = name;
  k.durations_s = std::move(durations);
  k.count = static_cast<int64_t>(k.durations_s.size());
  for (double d : k.durations_s) k.total_s += d;
  return k;
}

TEST(KernelSummaryTest, MedianPerCallWhenEveryRunHasInstances) {
  KernelResult a = Kernel("k", {3e-6, 1e-6, 100e-6, 2e-6});
  KernelResult b = Kernel("k", {5e-6, 4e-6, 6e-6});
  const KernelResult* both[] = {&a, &b};
  ASSERT_EQ(ChooseKernelStatistic(both), KernelStatistic::kMedianPerCall);
  auto s = SummarizeKernelRun(a, KernelStatistic::kMedianPerCall);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->value, 2.5e-6);  // the outlier does not move it
  EXPECT_EQ(s->instances, 4);
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(b, KernelStatistic::kMedianPerCall)->value, 5e-6);
}

// A kernel called at two sizes: 9 large calls (100 us) hold 89% of its time,
// 11 small ones (10 us) are most of its calls. The large calls get 30%
// slower: the median call does not move; each size at its median, weighted
// by its calls, moves as the kernel's time does (+26.7%), and one preempted
// small call does not move it.
TEST(KernelSummaryTest, EachLaunchSizeAtItsMedianWhenLaunchGroupsAreKnown) {
  auto kernel = [](double large, bool preempted) {
    std::vector<double> d;
    std::vector<uint32_t> g;
    for (int i = 0; i < 9; ++i) d.push_back(large), g.push_back(1);
    for (int i = 0; i < 11; ++i) d.push_back(i == 0 && preempted ? 5e-3 : 10e-6), g.push_back(2);
    KernelResult k = Kernel("elem", d);
    k.launch_groups = g;
    return k;
  };
  KernelResult base = kernel(100e-6, false), slow = kernel(130e-6, false), noisy = kernel(100e-6, true);
  const KernelResult* runs[] = {&base, &slow};
  ASSERT_EQ(ChooseKernelStatistic(runs), KernelStatistic::kGroupMedianPerCall);
  const double b = SummarizeKernelRun(base, KernelStatistic::kGroupMedianPerCall)->value;
  const double c = SummarizeKernelRun(slow, KernelStatistic::kGroupMedianPerCall)->value;
  EXPECT_NEAR(b, (9 * 100e-6 + 11 * 10e-6) / 20, 1e-15);
  EXPECT_NEAR(c / b, 1280.0 / 1010.0, 1e-12);
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(noisy, KernelStatistic::kGroupMedianPerCall)->value, b);
  // The median call is a small one on both sides.
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(slow, KernelStatistic::kMedianPerCall)->value,
                   SummarizeKernelRun(base, KernelStatistic::kMedianPerCall)->value);
  // Every call of another size (dynamic shapes): no size has a median of
  // its own, so one stray slow call does not move the kernel.
  std::vector<double> d(20, 10e-6);
  std::vector<uint32_t> g;
  for (uint32_t i = 0; i < 20; ++i) g.push_back(i);
  KernelResult calm = Kernel("dyn", d);
  calm.launch_groups = g;
  d[7] = 200e-6;
  KernelResult stray = Kernel("dyn", d);
  stray.launch_groups = g;
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(stray, KernelStatistic::kGroupMedianPerCall)->value,
                   SummarizeKernelRun(calm, KernelStatistic::kGroupMedianPerCall)->value);
  // A run without launch groups makes every run the plain median.
  KernelResult plain = Kernel("elem", base.durations_s);
  const KernelResult* mixed[] = {&base, &plain};
  EXPECT_EQ(ChooseKernelStatistic(mixed), KernelStatistic::kMedianPerCall);
}

// Group medians compare runs whose calls fall into the same launch
// configurations. Six calls of unchanged durations, two of them given
// another grid, moved the group-median summary by +10.6% (a real A100
// trace's sgemm): runs of other configurations take the plain median. A run
// of more steps (more calls of the same configurations) keeps the groups.
TEST(KernelSummaryTest, RunsOfOtherLaunchConfigurationsTakeThePlainMedian) {
  const std::vector<double> d = {868e-6, 401e-6, 97e-6, 817e-6, 392e-6, 98e-6};
  KernelResult base = Kernel("sgemm", d), regridded = Kernel("sgemm", d);
  base.launch_groups = {1, 1, 1, 1, 1, 1};
  regridded.launch_groups = {1, 1, 2, 1, 1, 2};
  const KernelResult* runs[] = {&base, &regridded};
  const KernelStatistic statistic = ChooseKernelStatistic(runs);
  EXPECT_EQ(statistic, KernelStatistic::kMedianPerCall);
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(base, statistic)->value, SummarizeKernelRun(regridded, statistic)->value);
  // Before: the group medians of the same durations differed.
  EXPECT_NE(SummarizeKernelRun(base, KernelStatistic::kGroupMedianPerCall)->value,
            SummarizeKernelRun(regridded, KernelStatistic::kGroupMedianPerCall)->value);
  // One more step: 9 calls of each of two sizes instead of 6.
  KernelResult six = Kernel("k", std::vector<double>(12, 1e-5)), nine = Kernel("k", std::vector<double>(18, 1e-5));
  for (int i = 0; i < 12; ++i) six.launch_groups.push_back(i % 2);
  for (int i = 0; i < 18; ++i) nine.launch_groups.push_back(i % 2);
  const KernelResult* steps[] = {&six, &nine};
  EXPECT_EQ(ChooseKernelStatistic(steps), KernelStatistic::kGroupMedianPerCall);
}

TEST(KernelSummaryTest, MeanPerCallWhenARunHasTotalsOnly) {
  KernelResult a = Kernel("k", {1e-6, 3e-6});
  KernelResult totals;
  totals.name = "k";
  totals.count = 4;
  totals.total_s = 10e-6;
  const KernelResult* both[] = {&a, &totals};
  ASSERT_EQ(ChooseKernelStatistic(both), KernelStatistic::kMeanPerCall);
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(totals, KernelStatistic::kMeanPerCall)->value, 2.5e-6);
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(a, KernelStatistic::kMeanPerCall)->value, 2e-6);
  EXPECT_FALSE(SummarizeKernelRun(totals, KernelStatistic::kMedianPerCall).has_value());
  KernelResult empty;
  EXPECT_FALSE(SummarizeKernelRun(empty, KernelStatistic::kMeanPerCall).has_value());
}

Results MakeRun(std::vector<KernelResult> kernels, const std::string& id) {
  Results r;
  r.run.run_id = id;
  r.run.env.cpu_model = "Test CPU";
  WorkloadResult w;
  w.name = "w";
  w.rounds = {{1e-3}};
  w.kernels = std::move(kernels);
  r.workloads.push_back(std::move(w));
  return r;
}

const MetricVerdict* Find(const Verdicts& v, const std::string& metric) {
  for (const auto& m : v.metrics)
    if (m.metric == metric) return &m;
  return nullptr;
}

// Five kernels whose instances scatter widely within a run (calls of
// different sizes) but repeat from run to run: instances are not samples,
// so the scatter does not make the comparison inconclusive.
std::vector<KernelResult> Kernels(double slow = 1.0, double noise = 0.0) {
  std::vector<KernelResult> out;
  const char* names[] = {"gemm", "copy", "fill", "scan", "sort"};
  for (int i = 0; i < 5; ++i) {
    std::vector<double> d;
    // Not on whole microseconds: the judge's mechanics, without a clock step.
    for (int j = 0; j < 9; ++j) d.push_back((1 + i) * 1.37e-6 * (1 + 3 * (j % 3)));
    const double f = (i == 0 ? slow : 1.0) * (1.0 + noise * ((i % 2) ? 1 : -1) * (i + 1) / 5.0);
    for (double& x : d) x *= f;
    out.push_back(Kernel(names[i], d));
  }
  return out;
}

TEST(KernelSummaryTest, TwoFilesJudgeEachRunsSummaryAgainstTheOtherKernels) {
  CompareOptions o;
  Verdicts same = Compare({MakeRun(Kernels(), "a")}, MakeRun(Kernels(), "b"), DefaultPolicy(), o);
  for (const char* k : {"kernel:gemm", "kernel:copy", "kernel:sort"}) {
    ASSERT_NE(Find(same, k), nullptr);
    EXPECT_EQ(Find(same, k)->verdict, Verdict::kUnchanged) << Find(same, k)->sentence;
  }
  Verdicts slow = Compare({MakeRun(Kernels(), "a")}, MakeRun(Kernels(1.5), "b"), DefaultPolicy(), o);
  const MetricVerdict* g = Find(slow, "kernel:gemm");
  EXPECT_EQ(g->verdict, Verdict::kRegression) << g->sentence;
  EXPECT_NEAR(*g->ratio, 1.5, 1e-9);
  EXPECT_EQ(g->baseline_n, 9);
  EXPECT_NE(g->sentence.find("one median per call per run over 9 vs 9 instances"), std::string::npos)
      << g->sentence;
  EXPECT_EQ(Find(slow, "kernel:copy")->verdict, Verdict::kUnchanged);
  // Noise between the runs (the others move by up to +-2%) widens the
  // interval: a +1.5% change is no longer called unchanged at a 1% threshold.
  Policy tight = DefaultPolicy();
  tight.defaults.threshold = 0.01;
  Verdicts noisy = Compare({MakeRun(Kernels(), "a")}, MakeRun(Kernels(1.015, 0.02), "b"), tight, o);
  EXPECT_NE(Find(noisy, "kernel:gemm")->verdict, Verdict::kUnchanged) << Find(noisy, "kernel:gemm")->sentence;
}

TEST(KernelSummaryTest, FewerThanFourKernelsDecideNothingWithOneRunPerSide) {
  std::vector<KernelResult> two = {Kernel("a", {1e-6, 2e-6}), Kernel("b", {3e-6, 4e-6})};
  Verdicts v = Compare({MakeRun(two, "a")}, MakeRun(two, "b"), DefaultPolicy(), {});
  EXPECT_EQ(Find(v, "kernel:a")->verdict, Verdict::kInconclusive);
  EXPECT_EQ(Find(v, "kernel:a")->reason, Reason::kBetweenRunNoiseUnmeasured);
}

TEST(KernelSummaryTest, FewerThanFourKernelsHaveNoZeroWidthInterval) {
  std::vector<KernelResult> two = {Kernel("a", {1.3e-6, 2.3e-6}), Kernel("b", {3.3e-6, 4.3e-6})};
  std::vector<KernelResult> slower = {Kernel("a", {2.6e-6, 4.6e-6}), Kernel("b", {3.3e-6, 4.3e-6})};
  Verdicts v = Compare({MakeRun(two, "a")}, MakeRun(slower, "b"), DefaultPolicy(), {});
  const MetricVerdict* a = Find(v, "kernel:a");
  EXPECT_EQ(a->reason, Reason::kBetweenRunNoiseUnmeasured);
  EXPECT_NEAR(*a->ratio, 2.0, 1e-9);
  // One summary per run and side: no interval and no p-value to show.
  EXPECT_FALSE(a->ci_low.has_value());
  EXPECT_FALSE(a->ci_high.has_value());
  EXPECT_FALSE(a->p_value.has_value());
}

// Traces in whole microseconds read calls shorter than 1 us as 0 s. Those
// are readings, not gaps: they count in the median, and a side whose calls
// all read 0 s says so instead of "too few samples".
TEST(KernelSummaryTest, CallsThatReadZeroCountAndAllZeroSaysSo) {
  KernelResult half = Kernel("k", {0, 1e-6, 0, 1e-6, 0, 1e-6});
  EXPECT_DOUBLE_EQ(SummarizeKernelRun(half, KernelStatistic::kMedianPerCall)->value, 0.5e-6);
  KernelResult zero = Kernel("k", {0, 0, 0});
  auto z = SummarizeKernelRun(zero, KernelStatistic::kMeanPerCall);
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(z->value, 0.0);
  KernelResult none;
  none.name = "k";
  EXPECT_FALSE(SummarizeKernelRun(none, KernelStatistic::kMeanPerCall).has_value());

  std::vector<Results> history;
  for (int r = 0; r < 6; ++r) {
    std::vector<KernelResult> ks = Kernels(1.0 + 0.004 * (r % 3));
    ks.push_back(Kernel("tiny", {0, 0, 0, 0}));
    history.push_back(MakeRun(ks, "h" + std::to_string(r)));
  }
  std::vector<KernelResult> cur = Kernels();
  cur.push_back(Kernel("tiny", {50e-6, 50e-6, 50e-6, 50e-6}));
  Verdicts v = Compare(history, MakeRun(cur, "cur"), DefaultPolicy(), {});
  const MetricVerdict* t = Find(v, "kernel:tiny");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->verdict, Verdict::kInconclusive);
  EXPECT_NE(t->sentence.find("the baseline's calls of this kernel read 0 s per call"), std::string::npos)
      << t->sentence;
  EXPECT_NE(t->sentence.find("the current run reads 50.0 us per call"), std::string::npos) << t->sentence;
  EXPECT_EQ(ShortNote(*t), "baseline reads 0 s per call: no ratio");  // not "too few samples"
}

TEST(KernelSummaryTest, HistoryJudgesTheCurrentRunsSummaryAgainstTheRuns) {
  std::vector<Results> history;
  for (int r = 0; r < 6; ++r) history.push_back(MakeRun(Kernels(1.0 + 0.004 * (r % 3)), "h" + std::to_string(r)));
  Verdicts v = Compare(history, MakeRun(Kernels(1.3), "cur"), DefaultPolicy(), {});
  const MetricVerdict* g = Find(v, "kernel:gemm");
  EXPECT_EQ(g->verdict, Verdict::kRegression) << g->sentence;
  EXPECT_EQ(g->baseline_history_runs.value_or(0), 6);
  EXPECT_NE(g->sentence.find("each run's median per call"), std::string::npos) << g->sentence;
  Verdicts same = Compare(history, MakeRun(Kernels(1.002), "cur"), DefaultPolicy(), {});
  EXPECT_EQ(Find(same, "kernel:gemm")->verdict, Verdict::kUnchanged) << Find(same, "kernel:gemm")->sentence;
}

// The clock step a kernel's calls lie on: the coarsest grid of 1 ms, 100 us,
// 10 us and 1 us they all fit, none when they fit none.
TEST(KernelSummaryTest, TheClockStepIsTheCoarsestGridEveryCallFits) {
  auto step = [](std::vector<double> d) {
    return SummarizeKernelRun(Kernel("k", std::move(d)), KernelStatistic::kMedianPerCall)->clock_step_s;
  };
  EXPECT_EQ(step({10e-6, 20e-6, 30e-6}), 1e-5);
  EXPECT_EQ(step({1e-6, 3e-6, 4e-6}), 1e-6);
  EXPECT_EQ(step({2e-3, 4e-3}), 1e-3);
  EXPECT_EQ(step({1.5e-6, 3e-6}), 0.0);
  EXPECT_EQ(step({1.0009e-6}), 0.0);
}

// A trace has one clock: the finest grid any of its kernels fits (a
// kernel whose every call reads 10 us is on the 1 us clock the others show).
TEST(KernelSummaryTest, ARunsClockIsTheFinestGridOfItsKernels) {
  WorkloadResult w;
  w.kernels.push_back(Kernel("even", {10e-6, 10e-6, 10e-6}));
  EXPECT_EQ(RunClockStep(w), 1e-5);
  w.kernels.push_back(Kernel("odd", {37e-6, 38e-6}));
  EXPECT_EQ(KernelClockStep(w.kernels[0]), 1e-5);
  EXPECT_EQ(RunClockStep(w), 1e-6);
  w.kernels.push_back(Kernel("fine", {1.234e-6}));  // a finer kernel does not lower it
  EXPECT_EQ(RunClockStep(w), 1e-6);
  EXPECT_EQ(RunClockStep(WorkloadResult{}), 0.0);
  // Most kernels off every grid: those of several calls on one keep it.
  w.kernels.push_back(Kernel("fine2", {2.5e-6, 2.75e-6}));
  w.kernels.push_back(Kernel("fine3", {7.25e-6, 7.5e-6}));
  EXPECT_EQ(RunClockStep(w), 1e-6);
  // One call each: a single whole microsecond among nanosecond calls is
  // chance; most on a grid is a clock.
  WorkloadResult singles;
  singles.kernels = {Kernel("a", {5e-6}), Kernel("b", {2.125e-6}), Kernel("c", {3.5e-6})};
  EXPECT_EQ(RunClockStep(singles), 0.0);
  singles.kernels[1] = Kernel("b", {2e-6});
  EXPECT_EQ(RunClockStep(singles), 1e-6);
  // A kernel of several calls off every grid shows a finer clock.
  singles.kernels.push_back(Kernel("d", {1.5e-6, 1.25e-6}));
  EXPECT_EQ(RunClockStep(singles), 0.0);
  // A long call a fraction of a microsecond off a millisecond is on no grid;
  // whole microseconds stored as float32 seconds are on theirs.
  EXPECT_EQ(KernelClockStep(Kernel("long", {200000.123e-6})), 0.0);
  EXPECT_EQ(KernelClockStep(Kernel("long", {200000e-6})), 1e-3);
  EXPECT_EQ(KernelClockStep(Kernel("f32", {static_cast<double>(4e-6f), static_cast<double>(37e-6f),
                                            static_cast<double>(0.2f)})),
            1e-6);
}

}  // namespace
}  // namespace gpugate
