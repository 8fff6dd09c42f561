// The in-process profiler (include/gpugate/profiler.h) on the CPU: scopes,
// Profile(), statistics, threads, the summary's escaping and the results
// export read back by gpugate's own reader.
#include <gpugate/profiler.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "model/results_json.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

Results ReadBack(Profiler& profiler) {
  Result<Results> r = ResultsFromJson(profiler.ResultsJson(), "profile.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Results{};
}

const OperationStats* FindOp(const std::vector<OperationStats>& ops, const std::string& name) {
  for (const OperationStats& s : ops)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(ProfilerTest, ScopesRecordOneSampleEach) {
  Profiler profiler;
  for (int i = 0; i < 3; ++i) {
    auto s = profiler.Scope("work");
    EXPECT_TRUE(s.active());
  }
  const std::vector<OperationStats> ops = profiler.Operations();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].name, "work");
  EXPECT_EQ(ops[0].count, 3);
  EXPECT_EQ(ops[0].backend, ProfileBackend::kCpu);
  EXPECT_GE(ops[0].min, 0.0);
  EXPECT_LE(ops[0].min, ops[0].mean);
  EXPECT_LE(ops[0].mean, ops[0].max);
}

TEST(ProfilerTest, DisabledScopesAreInactiveAndRecordNothing) {
  Profiler profiler(ProfilerOptions{.enabled = false});
  {
    auto s = profiler.Scope("work");
    EXPECT_FALSE(s.active());
  }
  profiler.Record("direct", 1.0);
  EXPECT_TRUE(profiler.Operations().empty());
  profiler.SetEnabled(true);
  { auto s = profiler.Scope("work"); }
  EXPECT_EQ(profiler.Operations().size(), 1u);
}

TEST(ProfilerTest, StopEndsTheScopeOnce) {
  Profiler profiler;
  {
    auto s = profiler.Scope("work");
    s.Stop();
    EXPECT_FALSE(s.active());
  }
  EXPECT_EQ(profiler.Operations()[0].count, 1);
}

TEST(ProfilerTest, StatisticsAreWelfordOverAllSamples) {
  Profiler profiler;
  for (double x : {1.0, 2.0, 3.0, 4.0}) profiler.Record("op", x);
  const OperationStats s = profiler.Operations().at(0);
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.total, 10.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);  // n - 1 denominator
}

TEST(ProfilerTest, InvalidRecordedValuesAreIgnored) {
  Profiler profiler;
  profiler.Record("op", -1.0);
  profiler.Record("op", std::nan(""));
  profiler.Record("op", 1.5e9);  // nanoseconds passed as seconds: no results file holds it
  profiler.Record("op", 0.5);
  profiler.RecordMemorySeries("mem", {1000, int64_t{1} << 62});
  EXPECT_EQ(profiler.Operations().at(0).count, 1);
  // The file is still readable, and says what was left out.
  const Results r = ReadBack(profiler);
  ASSERT_EQ(r.workloads.size(), 2u);
  ASSERT_EQ(r.workloads[0].notes.size(), 1u);
  EXPECT_EQ(r.workloads[0].notes[0], "3 samples not recorded: negative, not finite, or 1e9 s or more (no results file holds them)");
  ASSERT_EQ(r.workloads[1].notes.size(), 1u);
  EXPECT_NE(r.workloads[1].notes[0].find("1 reading not recorded"), std::string::npos);
}

// A per-element time below a nanosecond is written as it was recorded; only
// a reading of 0 becomes the clock's step.
TEST(ProfilerTest, SubNanosecondSamplesAreWrittenAsRecorded) {
  Profiler profiler;
  profiler.RecordRound("per_element", {2e-10, 2.1e-10, 0.0});
  const Results r = ReadBack(profiler);
  ASSERT_EQ(r.workloads.size(), 1u);
  ASSERT_EQ(r.workloads[0].rounds.at(0).size(), 3u);
  EXPECT_DOUBLE_EQ(r.workloads[0].rounds[0][0], 2e-10);
  EXPECT_DOUBLE_EQ(r.workloads[0].rounds[0][1], 2.1e-10);
  EXPECT_DOUBLE_EQ(r.workloads[0].rounds[0][2], 1e-9);
}

// Names that must be escaped or cut stay within the readers' 1024 bytes with
// their suffix, and the same raw name is the same workload name in every run,
// whichever operation took longer.
TEST(ProfilerTest, NamesAreBoundedAndTheSameInEveryRun) {
  const std::string common(1100, 'T');
  const std::string a = common + "<A>", b = common + "<B>";
  auto names = [&](double a_time, double b_time) {
    Profiler profiler;
    profiler.Record(a, a_time);
    profiler.Record(b, b_time);
    profiler.Record("a" + std::string(1000, '\x0b'), 0.001);       // escapes to 4 bytes each
    profiler.Record(std::string(1024, 'c'), 0.001);                  // exactly at the limit...
    profiler.Record(std::string(1024, 'c'), 0.001, ProfileBackend::kCuda);  // ... and with " [cuda]"
    std::map<std::string, std::string> out;  // by the start of the name
    for (const WorkloadResult& w : ReadBack(profiler).workloads) {
      EXPECT_LE(w.name.size(), kMaxNameBytes) << w.name.substr(0, 40);
      EXPECT_FALSE(NameProblem(w.name)) << w.name.substr(0, 40);
      out[w.name] = w.name;
    }
    return out;
  };
  const auto first = names(0.002, 0.001), second = names(0.001, 0.002);
  EXPECT_EQ(first.size(), 5u);
  EXPECT_EQ(first, second);
}

TEST(ProfilerTest, ThreadsRecordConcurrentlyAndMergeExactly) {
  Profiler profiler;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 5000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&profiler, t] {
      for (int i = 0; i < kPerThread; ++i) {
        { auto s = profiler.Scope("shared"); }
        profiler.Record("values", static_cast<double>(t + 1));
      }
    });
  }
  // A reader while the writers run.
  for (int i = 0; i < 20; ++i) (void)profiler.Operations();
  for (auto& th : threads) th.join();
  const std::vector<OperationStats> ops = profiler.Operations();
  ASSERT_NE(FindOp(ops, "shared"), nullptr);
  EXPECT_EQ(FindOp(ops, "shared")->count, kThreads * kPerThread);
  const OperationStats* v = FindOp(ops, "values");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->count, kThreads * kPerThread);
  EXPECT_DOUBLE_EQ(v->total, kPerThread * (1.0 + 2 + 3 + 4));
  EXPECT_NEAR(v->mean, 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(v->min, 1.0);
  EXPECT_DOUBLE_EQ(v->max, 4.0);
  // Population variance of {1,2,3,4} is 1.25; sample variance over n = 20000.
  const double n = kThreads * kPerThread;
  EXPECT_NEAR(v->stddev, std::sqrt(1.25 * n / (n - 1)), 1e-9);
}

TEST(ProfilerTest, TopNOrdersByTotalTime) {
  Profiler profiler;
  profiler.Record("small", 1.0);
  profiler.Record("large", 5.0);
  profiler.Record("medium", 2.0);
  profiler.Record("medium", 2.0);
  const std::vector<OperationStats> top = profiler.TopN(2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "large");
  EXPECT_EQ(top[1].name, "medium");
}

TEST(ProfilerTest, ProfileRunsWarmupAndIterationsAsOneRound) {
  Profiler profiler;
  int calls = 0;
  profiler.Profile("f", [&] { ++calls; }, {.warmup = 3, .iterations = 20});
  profiler.Profile("f", [&] { ++calls; }, {.warmup = 0, .iterations = 4});
  EXPECT_EQ(calls, 27);
  EXPECT_EQ(profiler.Operations().at(0).count, 24);
  const Results r = ReadBack(profiler);
  ASSERT_EQ(r.workloads.size(), 1u);
  ASSERT_EQ(r.workloads[0].rounds.size(), 2u);
  EXPECT_EQ(r.workloads[0].rounds[0].size(), 20u);
  EXPECT_EQ(r.workloads[0].rounds[1].size(), 4u);
  EXPECT_EQ(r.workloads[0].warmup, 3);
}

TEST(ProfilerTest, DisabledProfileStillRunsTheCallable) {
  Profiler profiler(ProfilerOptions{.enabled = false});
  int calls = 0;
  profiler.Profile("f", [&] { ++calls; }, {.warmup = 2, .iterations = 5});
  EXPECT_EQ(calls, 7);
  EXPECT_TRUE(profiler.Operations().empty());
}

TEST(ProfilerTest, NextRoundStartsANewRoundOfScopeSamples) {
  Profiler profiler;
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i <= r; ++i) profiler.Record("op", 0.001);
    profiler.NextRound();
  }
  const Results res = ReadBack(profiler);
  ASSERT_EQ(res.workloads.size(), 1u);
  const auto& rounds = res.workloads[0].rounds;
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0].size(), 1u);
  EXPECT_EQ(rounds[1].size(), 2u);
  EXPECT_EQ(rounds[2].size(), 3u);
}

TEST(ProfilerTest, ExportIsAResultsFileOfProfilerWorkloads) {
  Profiler profiler(ProfilerOptions{.suite = "my-app"});
  profiler.Record("a", 0.002);
  profiler.Record("a", 0.004);
  profiler.Record("b", 0.0);  // below the clock's resolution: written as 1 ns
  const Results r = ReadBack(profiler);
  EXPECT_EQ(r.run.suite, "my-app");
  ASSERT_EQ(r.workloads.size(), 2u);
  const WorkloadResult& a = r.workloads[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.kind, "profiler");
  EXPECT_EQ(a.backend, "cpu");
  EXPECT_EQ(a.summary.n, 2);
  EXPECT_DOUBLE_EQ(a.summary.median, 0.003);
  EXPECT_DOUBLE_EQ(a.counters.at("count"), 2.0);
  EXPECT_DOUBLE_EQ(r.workloads[1].rounds.at(0).at(0), 1e-9);
}

TEST(ProfilerTest, HostileNamesAreEscapedAndUniqueInTheExport) {
  Profiler profiler;
  profiler.Record("evil\x1b[31m", 0.001);
  profiler.Record("evil\\x1b[31m", 0.001);  // what the first escapes to
  profiler.Record("", 0.001);
  profiler.Record(std::string(2000, 'n'), 0.001);
  const Results r = ReadBack(profiler);  // the reader refuses unprintable or repeated names
  ASSERT_EQ(r.workloads.size(), 4u);
  std::set<std::string> names;
  for (const WorkloadResult& w : r.workloads) names.insert(w.name);
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(names.count("(empty name)"), 1u);
}

TEST(ProfilerTest, SummaryEscapesNamesForTheTerminal) {
  Profiler profiler;
  profiler.Record("evil\x1b]0;title\x07", 0.001);
  profiler.Record("plain", 0.002);
  std::ostringstream out;
  profiler.PrintSummary(out);
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("evil\\x1b]0;title\\x07"), std::string::npos) << text;
  EXPECT_NE(text.find("2 operations"), std::string::npos) << text;
  // Largest total first.
  EXPECT_LT(text.find("plain"), text.find("evil"));
}

TEST(ProfilerTest, SummaryShowsOnlyTheTopN) {
  Profiler profiler;
  for (int i = 0; i < 5; ++i) profiler.Record("op" + std::to_string(i), 1.0 + i);
  std::ostringstream out;
  profiler.PrintSummary(out, 2);
  EXPECT_NE(out.str().find("op4"), std::string::npos);
  EXPECT_NE(out.str().find("op3"), std::string::npos);
  EXPECT_EQ(out.str().find("op2"), std::string::npos);
  EXPECT_NE(out.str().find("the top 2"), std::string::npos);
}

TEST(ProfilerTest, SamplesBeyondTheCapAreCountedButNotKept) {
  Profiler profiler(ProfilerOptions{.max_samples_per_operation = 3});
  for (int i = 0; i < 10; ++i) profiler.Record("op", 0.001);
  const OperationStats s = profiler.Operations().at(0);
  EXPECT_EQ(s.count, 10);
  EXPECT_EQ(s.samples_kept, 3);
  const Results r = ReadBack(profiler);
  EXPECT_EQ(r.workloads[0].summary.n, 3);
  ASSERT_EQ(r.workloads[0].notes.size(), 1u);
  EXPECT_NE(r.workloads[0].notes[0].find("kept 3 of 10"), std::string::npos);
}

TEST(ProfilerTest, MemorySeriesIsAUsedBytesWorkload) {
  Profiler profiler;
  profiler.RecordMemorySeries("gpu-memory", {100, 300, 200});
  const Results r = ReadBack(profiler);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].metric, "used_bytes");
  EXPECT_EQ(r.workloads[0].unit, "B");
  EXPECT_EQ(r.workloads[0].peak_memory_bytes, 300);
  EXPECT_TRUE(profiler.Operations().empty());  // not a timed operation
}

TEST(ProfilerTest, ResetForgetsSamples) {
  Profiler profiler;
  profiler.Record("op", 1.0);
  profiler.Reset();
  EXPECT_TRUE(profiler.Operations().empty());
  profiler.Record("op", 2.0);
  EXPECT_DOUBLE_EQ(profiler.Operations().at(0).total, 2.0);
}

TEST(ProfilerTest, WriteResultsIsReadableAndReportsFailures) {
  Profiler profiler;
  profiler.Record("op", 0.001);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("gpugate_profiler_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "profile.json").string();
  std::string error;
  ASSERT_TRUE(profiler.WriteResults(path, &error)) << error;
  Result<Results> r = ReadResultsFile(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->workloads.at(0).name, "op");
  EXPECT_FALSE(profiler.WriteResults((dir / "missing" / "p.json").string(), &error));
  EXPECT_FALSE(error.empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpugate
