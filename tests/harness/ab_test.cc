// Tests of interleaved A/B: side specs ({bin}, synthetic slowdown and shared
// drift), the interleaving itself with a fake round runner, the paired
// analysis on literal data, and the acceptance check on the synthetic
// backend: with drift injected between rounds, paired analysis stays silent
// on A/A where an unpaired comparison of two separate runs alarms, and it
// still finds a 5% slowdown.
#include "harness/ab.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "config/policy.h"
#include "stats/benjamini_hochberg.h"
#include "stats/mann_whitney.h"

namespace gpugate {
namespace {

// The one judge on an A/B run: paired rounds.
Verdicts Judge(const AbData& d, const Policy& policy = DefaultPolicy()) {
  CompareOptions o;
  o.paired = true;
  o.today = "2026-01-01";
  return CompareRuns({d.base}, {d.head}, policy, o);
}

Policy WithTimeRule(double threshold, Severity severity) {
  Policy p = DefaultPolicy();
  PolicyRule r;
  r.metric = "time";
  r.threshold = threshold;
  r.severity = severity;
  p.rules.push_back(r);
  return p;
}

WorkloadSpec Synthetic(const std::string& name, double slowdown = 1.0, double round_drift = 0.10,
                       double run_drift = 0.05) {
  WorkloadSpec s;
  s.name = name;
  s.kind = WorkloadKind::kSynthetic;
  s.sampling.warmup = 0;
  s.sampling.rounds = 10;
  s.sampling.min_samples = 100;
  s.sampling.max_samples = 100;
  s.sampling.min_time = 0;
  s.sampling.max_time = 30;
  s.sampling.target_rel_ci = 0;
  s.synthetic.median = 1e-3;
  s.synthetic.cv = 0.02;
  s.synthetic.round_drift_cv = round_drift;
  s.synthetic.run_drift_cv = run_drift;
  s.synthetic.slowdown = slowdown;
  s.synthetic.seed = 7;
  return s;
}

TEST(AbTest, SideSpecSubstitutesBinPerSide) {
  WorkloadSpec c;
  c.name = "prog";
  c.kind = WorkloadKind::kCommand;
  c.argv = {"{bin}/prog", "--data", "{bin}/in.txt", "-n", "5"};
  c.env = {{"LD_LIBRARY_PATH", "{bin}/lib"}};
  c.cwd = "{bin}";
  c.sampling.min_samples = 10;
  c.sampling.max_samples = 200;
  c.sampling.rounds = 5;
  AbOptions o;
  o.base_dir = "/b";
  o.head_dir = "/h";
  EXPECT_TRUE(UsesBinDir(c));
  WorkloadSpec b = AbSideSpec(c, AbSide::kBase, 0, o);
  WorkloadSpec h = AbSideSpec(c, AbSide::kHead, 0, o);
  EXPECT_EQ(b.argv, (std::vector<std::string>{"/b/prog", "--data", "/b/in.txt", "-n", "5"}));
  EXPECT_EQ(h.argv[0], "/h/prog");
  EXPECT_EQ(h.env.at("LD_LIBRARY_PATH"), "/h/lib");
  EXPECT_EQ(b.cwd, "/b");
  EXPECT_EQ(h.sampling.rounds, 1);
  EXPECT_EQ(h.sampling.min_samples, 2);   // ceil(10 / 5)
  EXPECT_EQ(h.sampling.max_samples, 40);  // ceil(200 / 5)
  c.argv = {"python3", "x.py"};
  c.env.clear();
  c.cwd.clear();
  EXPECT_FALSE(UsesBinDir(c));
}

TEST(AbTest, SyntheticSidesShareDriftButNotNoise) {
  WorkloadSpec s = Synthetic("w", 1.2);
  AbOptions o;
  WorkloadSpec b0 = AbSideSpec(s, AbSide::kBase, 0, o), h0 = AbSideSpec(s, AbSide::kHead, 0, o);
  WorkloadSpec b1 = AbSideSpec(s, AbSide::kBase, 1, o);
  EXPECT_DOUBLE_EQ(b0.synthetic.slowdown, 1.0);
  EXPECT_DOUBLE_EQ(h0.synthetic.slowdown, 1.2);
  EXPECT_DOUBLE_EQ(b0.synthetic.median, h0.synthetic.median);  // same round: same drift
  EXPECT_NE(b0.synthetic.median, b1.synthetic.median);         // next round: new drift
  EXPECT_NE(b0.synthetic.seed, h0.synthetic.seed);             // own noise per side
  EXPECT_DOUBLE_EQ(b0.synthetic.round_drift_cv, 0.0);
  EXPECT_DOUBLE_EQ(b0.synthetic.run_drift_cv, 0.0);
}

/// A fake round runner: fixed samples, head `factor` times slower, records calls.
struct FakeRunner {
  double factor = 1.0;
  int fail_head_round = -1;
  std::vector<std::pair<int, AbSide>> calls;
  WorkloadResult operator()(const WorkloadSpec& spec, AbSide side, int round) {
    calls.push_back({round, side});
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    if (side == AbSide::kHead && round == fail_head_round) {
      r.status = WorkloadStatus::kFailed;
      r.reason = "exit code 1: boom";
      return r;
    }
    double drift = 1.0 + 0.2 * (round % 3);  // strong drift between rounds
    double x = 1e-3 * drift * (side == AbSide::kHead ? factor : 1.0);
    r.rounds = {{x * 0.99, x, x * 1.01 + 1e-7 * round}};
    r.summary.median = x;
    return r;
  }
};

// A gbench program in each build's folder, and A/B options over `rounds`.
WorkloadSpec ProgramSpec() {
  WorkloadSpec prog;
  prog.name = "prog";
  prog.kind = WorkloadKind::kGbench;
  prog.argv = {"{bin}/kernels"};
  return prog;
}

AbOptions ProgramOptions(int rounds) {
  AbOptions o;
  o.rounds = rounds;
  o.base_dir = "/base";
  o.head_dir = "/head";
  return o;
}

// One round of a program's benchmark that ran: `prog`/`bench`, 3 samples.
WorkloadResult BenchRound(const std::string& prog, const std::string& bench) {
  WorkloadResult r;
  r.name = prog + "/" + bench;
  r.kind = "gbench";
  r.rounds = {{1e-6, 1e-6, 1.01e-6}};
  return r;
}

// A program that crashed as a whole: one failed result under its name.
WorkloadResult ProgramCrash(const std::string& prog, const std::string& reason) {
  WorkloadResult crash;
  crash.name = prog;
  crash.kind = "gbench";
  crash.status = WorkloadStatus::kFailed;
  crash.reason = reason;
  return crash;
}

TEST(AbTest, BenchmarkProgramsPairPerBenchmark) {
  // A program reports two benchmarks per process; the head's BM_b is 30%
  // slower. Each benchmark pairs its own rounds, so only BM_b regresses.
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  const AbOptions o = ProgramOptions(10);
  std::vector<std::string> argv0;
  AbData d = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int round) {
    EXPECT_EQ(s.sampling.rounds, 1);  // one process per side and round
    argv0.push_back(s.argv[0]);
    std::vector<WorkloadResult> out;
    for (const char* bench : {"BM_a", "BM_b"}) {
      WorkloadResult r;
      r.name = s.name + "/" + bench;
      r.kind = "gbench";
      const double drift = 1.0 + 0.25 * (round % 4);  // strong drift between rounds
      const bool slow = side == AbSide::kHead && std::string(bench) == "BM_b";
      const double x = 1e-6 * drift * (slow ? 1.3 : 1.0) * (1.0 + 0.001 * (round % 3));
      r.rounds = {{x * 0.995, x, x * 1.005}};
      r.summary.median = x;
      out.push_back(std::move(r));
    }
    return out;
  });
  ASSERT_EQ(argv0.size(), 20u);
  for (const std::string& a : argv0) EXPECT_TRUE(a == "/base/kernels" || a == "/head/kernels") << a;
  ASSERT_EQ(d.base.workloads.size(), 2u);
  ASSERT_EQ(d.head.workloads.size(), 2u);
  EXPECT_EQ(d.head.workloads[1].name, "prog/BM_b");
  EXPECT_EQ(d.head.workloads[1].rounds.size(), 10u);
  Verdicts v = Judge(d);
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric != "time") continue;
    if (m.workload == "prog/BM_b") {
      EXPECT_EQ(m.verdict, Verdict::kRegression) << m.sentence;
      EXPECT_NEAR(m.ratio.value_or(0), 1.3, 0.01);
    } else {
      EXPECT_NE(m.verdict, Verdict::kRegression) << m.workload << ": " << m.sentence;
      EXPECT_NE(m.verdict, Verdict::kImprovement) << m.workload << ": " << m.sentence;
    }
  }
}

// The head's program crashes (one failed result under the suite workload's
// name) in every round. When the head ran first in round 1, nothing names a
// benchmark: the base's entry of that name says the head ran first and
// failed. When the base ran first and reported BM_a, the crash is BM_a's,
// and no entry of the suite workload's name is added (probe DB3).
TEST(AbTest, TheSideThatRanBeforeACrashIsNotSaidToHaveRunSecond) {
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    AbOptions o = ProgramOptions(6);
    o.seed = seed;
    AbData d = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int) {
      WorkloadResult r;
      r.kind = "gbench";
      if (side == AbSide::kHead) {
        r.name = s.name;
        r.status = WorkloadStatus::kFailed;
        r.reason = "killed by signal SIGSEGV (11)";
      } else {
        r.name = s.name + "/BM_a";
        r.rounds = {{1e-6, 1e-6, 1e-6}};
      }
      return std::vector<WorkloadResult>{r};
    });
    auto find = [](const Results& r, const std::string& name) -> const WorkloadResult* {
      for (const WorkloadResult& w : r.workloads)
        if (w.name == name) return &w;
      return nullptr;
    };
    const bool head_first = d.head_first[0][0];
    if (head_first) {
      ASSERT_NE(find(d.base, "prog"), nullptr) << "seed " << seed;
      EXPECT_EQ(find(d.base, "prog")->reason, "not run: the head side ran first and failed");
      EXPECT_EQ(find(d.base, "prog/BM_a"), nullptr);
    } else {
      EXPECT_EQ(find(d.base, "prog"), nullptr) << "seed " << seed;
      EXPECT_EQ(find(d.head, "prog"), nullptr) << "seed " << seed;
      ASSERT_NE(find(d.head, "prog/BM_a"), nullptr) << "seed " << seed;
      EXPECT_EQ(find(d.head, "prog/BM_a")->status, WorkloadStatus::kFailed);
      EXPECT_EQ(find(d.head, "prog/BM_a")->reason, "killed by signal SIGSEGV (11)");
      EXPECT_EQ(find(d.base, "prog/BM_a")->status, WorkloadStatus::kOk);
    }
  }
}

// The head's program crashes in round 3 of 6, after two rounds that reported
// both benchmarks: each benchmark fails with the crash, and there is no
// third failed result under the suite workload's name (probe DB3).
TEST(AbTest, ALaterRoundsCrashFailsEachBenchmarkWithItsReason) {
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  const AbOptions o = ProgramOptions(6);
  AbData d = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int round) {
    if (side == AbSide::kHead && round == 2)
      return std::vector{ProgramCrash(s.name, "round 3 of 6: killed by signal SIGSEGV (11)")};
    return std::vector{BenchRound(s.name, "BM_a"), BenchRound(s.name, "BM_b")};
  });
  ASSERT_EQ(d.head.workloads.size(), 2u);
  ASSERT_EQ(d.base.workloads.size(), 2u);
  for (const WorkloadResult& w : d.head.workloads) {
    EXPECT_NE(w.name, "prog");
    EXPECT_EQ(w.status, WorkloadStatus::kFailed) << w.name;
    EXPECT_EQ(w.reason, "round 3 of 6: killed by signal SIGSEGV (11)") << w.name;
  }
  for (const WorkloadResult& w : d.base.workloads) EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.name;
  Verdicts v = Judge(d);
  EXPECT_EQ(v.outcome, Outcome::kError);
  size_t failed = 0;
  for (const MetricVerdict& m : v.metrics) {
    EXPECT_NE(m.workload, "prog");
    if (m.reason != Reason::kCurrentFailed) continue;
    ++failed;
    EXPECT_NE(m.sentence.find("head: failed: round 3 of 6: killed by signal SIGSEGV (11)"), std::string::npos)
        << m.sentence;
  }
  EXPECT_EQ(failed, 2u);
}

TEST(AbTest, ABenchmarkOneRoundLeavesOutFailsInsteadOfPairingOutOfStep) {
  // The head's process of round 2 leaves BM_a out: its later rounds would
  // pair with the base's earlier ones (under drift, identical code read as
  // a regression). It fails, as gpugate run fails such a benchmark; a
  // benchmark first reported in a later round fails too.
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  const AbOptions o = ProgramOptions(6);
  AbData d = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int round) {
    std::vector<WorkloadResult> out;
    for (const char* bench : {"BM_a", "BM_b", "BM_late"}) {
      if (side == AbSide::kHead && round == 1 && std::string(bench) == "BM_a") continue;
      if (std::string(bench) == "BM_late" && round < 2) continue;
      WorkloadResult r;
      r.name = s.name + "/" + bench;
      r.kind = "gbench";
      const double x = 1e-6 * (1.0 + 0.1 * round);
      r.rounds = {{x * 0.995, x, x * 1.005}};
      out.push_back(std::move(r));
    }
    return out;
  });
  auto find = [](const Results& r, const std::string& name) -> const WorkloadResult* {
    for (const WorkloadResult& w : r.workloads)
      if (w.name == name) return &w;
    return nullptr;
  };
  ASSERT_NE(find(d.head, "prog/BM_a"), nullptr);
  EXPECT_EQ(find(d.head, "prog/BM_a")->status, WorkloadStatus::kFailed);
  EXPECT_EQ(find(d.head, "prog/BM_a")->reason,
            "round 2 did not report this benchmark, which earlier rounds of the program did");
  EXPECT_EQ(find(d.base, "prog/BM_a")->status, WorkloadStatus::kOk);
  EXPECT_EQ(find(d.head, "prog/BM_b")->status, WorkloadStatus::kOk);
  EXPECT_EQ(find(d.base, "prog/BM_late")->status, WorkloadStatus::kFailed);
  Verdicts v = Judge(d);
  EXPECT_EQ(v.outcome, Outcome::kError);
}

// Every benchmark of the head already failed (BM_a in round 1, BM_b in
// round 2) when its program crashes in round 3: the crash adds no result of
// the suite workload's name, as in `run` (probe DC1). A benchmark only the
// head reports, from round 3, leaves the base side "not reported", not "not
// run": the base ran every round (probe DC6).
TEST(AbTest, ACrashAfterEveryBenchmarkFailedAddsNoResult) {
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  const AbOptions o = ProgramOptions(6);
  AbData d = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int round) {
    if (side == AbSide::kHead && round == 2)
      return std::vector{ProgramCrash(s.name, "round 3 of 6: killed by signal SIGSEGV (11)")};
    std::vector<WorkloadResult> out;
    for (const char* bench : {"BM_a", "BM_b"}) {
      WorkloadResult r = BenchRound(s.name, bench);
      if (side == AbSide::kHead && round == (std::string(bench) == "BM_a" ? 0 : 1)) {
        r.status = WorkloadStatus::kFailed;
        r.reason = "boom";
        r.rounds.clear();
      }
      out.push_back(std::move(r));
    }
    return out;
  });
  for (const Results* side : {&d.head, &d.base})
    for (const WorkloadResult& w : side->workloads) EXPECT_NE(w.name, "prog");
  ASSERT_EQ(d.head.workloads.size(), 2u);
  for (const WorkloadResult& w : d.head.workloads) EXPECT_EQ(w.reason, "boom") << w.name;

  AbData late = RunAb(suite, {prog}, o, [&](const WorkloadSpec& s, AbSide side, int round) {
    std::vector<WorkloadResult> out = {BenchRound(s.name, "BM_a")};
    if (side == AbSide::kHead && round >= 2) out.push_back(BenchRound(s.name, "BM_c"));
    return out;
  });
  const WorkloadResult* base_c = nullptr;
  for (const WorkloadResult& w : late.base.workloads)
    if (w.name == "prog/BM_c") base_c = &w;
  ASSERT_NE(base_c, nullptr);
  EXPECT_EQ(base_c->reason,
            "no result under this name: the base side did not report it, and the head side failed under it in round 3");
}

// Every verdict of an A/B comparison is an A/B one, a failed side's too:
// the rules give ab's advice for it (probe DC5).
TEST(AbTest, AFailedSidesVerdictIsStillInterleaved) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  AbOptions o;
  o.rounds = 6;
  FakeRunner f;
  f.fail_head_round = 3;
  Verdicts v = Judge(RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
    return std::vector{f(s, side, r)};
  }));
  ASSERT_FALSE(v.metrics.empty());
  for (const MetricVerdict& m : v.metrics) EXPECT_TRUE(m.interleaved) << m.workload << " " << m.metric;
}

// Progress ends each pair with the side that is not ok: a base that
// failed never reads "ok" because its head ran.
TEST(AbTest, ProgressReportsTheFailedSideOfAPair) {
  class Finished final : public ProgressSink {
   public:
    void WorkloadFinished(const WorkloadResult& r) override { status[r.name] = r.status; }
    std::map<std::string, WorkloadStatus> status;
  };
  Suite suite;
  suite.name = "s";
  const WorkloadSpec prog = ProgramSpec();
  Finished progress;
  RunAb(suite, {prog}, ProgramOptions(6), [&](const WorkloadSpec& s, AbSide side, int round) {
    std::vector<WorkloadResult> out;
    if (side == AbSide::kBase && round == 2) {
      WorkloadResult crash;
      crash.name = s.name;
      crash.status = WorkloadStatus::kFailed;
      crash.reason = "round 3 of 6: killed by signal SIGSEGV (11)";
      return std::vector<WorkloadResult>{crash};
    }
    WorkloadResult r;
    r.name = s.name + "/BM_a";
    r.kind = "gbench";
    r.rounds = {{1e-6, 1e-6, 1e-6}};
    return std::vector<WorkloadResult>{r};
  }, &progress);
  ASSERT_EQ(progress.status.count("prog/BM_a"), 1u);
  EXPECT_EQ(progress.status["prog/BM_a"], WorkloadStatus::kFailed);
  EXPECT_EQ(progress.status.count("prog"), 0u);  // the crash is BM_a's, not a result of its own
}

TEST(AbTest, InterleavesWithSeededCoins) {
  Suite suite;
  suite.name = "s";
  std::vector<WorkloadSpec> ws = {Synthetic("a"), Synthetic("b")};
  FakeRunner fake;
  AbOptions o;
  o.rounds = 100;
  o.seed = 5;
  AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{fake(s, side, r)}; });
  ASSERT_EQ(fake.calls.size(), 400u);
  int head_first = 0;
  for (size_t i = 0; i < fake.calls.size(); i += 2) {
    EXPECT_EQ(fake.calls[i].first, fake.calls[i + 1].first);    // both sides in the same round
    EXPECT_NE(fake.calls[i].second, fake.calls[i + 1].second);  // one of each
    head_first += fake.calls[i].second == AbSide::kHead;
  }
  EXPECT_GT(head_first, 70);
  EXPECT_LT(head_first, 130);
  ASSERT_EQ(d.base.workloads.size(), 2u);
  EXPECT_EQ(d.base.workloads[0].rounds.size(), 100u);
  EXPECT_EQ(d.head.workloads[1].rounds.size(), 100u);
  EXPECT_EQ(d.head_first[0].size(), 100u);
  // Same seed, same order.
  FakeRunner again;
  AbData d2 = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{again(s, side, r)}; });
  EXPECT_EQ(d.head_first, d2.head_first);
}

// The order is balanced per workload: each pair of rounds takes both orders,
// so a workload runs base first in half its rounds (independent coins gave
// one workload base first in 9 of 10 at the default seed).
TEST(AbTest, EachPairOfRoundsTakesBothOrders) {
  Suite suite;
  suite.name = "s";
  std::vector<WorkloadSpec> ws = {Synthetic("a"), Synthetic("b"), Synthetic("c")};
  for (int rounds : {10, 7}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      FakeRunner fake;
      AbOptions o;
      o.rounds = rounds;
      o.seed = seed;
      AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{fake(s, side, r)}; });
      ASSERT_EQ(d.head_first.size(), 3u);
      for (const std::vector<bool>& order : d.head_first) {
        ASSERT_EQ(order.size(), static_cast<size_t>(rounds));
        for (int r = 0; r + 1 < rounds; r += 2) EXPECT_NE(order[r], order[r + 1]) << "seed " << seed << " round " << r;
        const int head_first = static_cast<int>(std::count(order.begin(), order.end(), true));
        EXPECT_LE(std::abs(2 * head_first - rounds), 1) << "seed " << seed;
      }
    }
  }
  // Seeded: not the same order for every seed.
  std::set<std::vector<bool>> orders;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    FakeRunner fake;
    AbOptions o;
    o.rounds = 10;
    o.seed = seed;
    orders.insert(RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
                    return std::vector{fake(s, side, r)};
                  }).head_first[0]);
  }
  EXPECT_GT(orders.size(), 1u);
}

TEST(AbTest, PairedAnalysisCancelsDriftAndFindsTenPercent) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  AbOptions o;
  o.rounds = 12;
  FakeRunner slow;
  slow.factor = 1.10;
  AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{slow(s, side, r)}; });
  Verdicts v = Judge(d);
  ASSERT_EQ(v.metrics.size(), 1u);
  EXPECT_EQ(v.metrics[0].verdict, Verdict::kRegression) << v.metrics[0].sentence;
  EXPECT_NEAR(*v.metrics[0].ratio, 1.10, 0.002);  // drift cancels in every pair
  EXPECT_NE(v.metrics[0].sentence.find("12 paired rounds"), std::string::npos) << v.metrics[0].sentence;
  EXPECT_NE(v.metrics[0].sentence.find("exceeds the 3% threshold"), std::string::npos);
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(ExitCodeFor(v), 1);
  // Warn-only severity passes.
  EXPECT_EQ(ExitCodeFor(Judge(d, WithTimeRule(0.05, Severity::kWarn))), 0);
}

// 12 workloads, 10 paired rounds, q = 0.01: the exact signed-rank test
// gives no p below 2^-10 = 0.00098, above the 0.01 / 12 a lone change needs,
// so a +25% slowdown of one workload could never be significant and passed.
// The rounds are then read through their trimmed mean: it is caught, the
// other eleven are not flagged, and every MDE is finite.
TEST(AbTest, ALoneRegressionAmongTwelveIsFoundInTenRounds) {
  Suite suite;
  std::vector<WorkloadSpec> ws;
  for (int i = 0; i < 12; ++i) ws.push_back(Synthetic("w" + std::to_string(i)));
  AbOptions o;
  o.rounds = 10;
  auto runner = [&](const WorkloadSpec& spec, AbSide side, int round) {
    std::mt19937_64 rng(std::hash<std::string>{}(spec.name) * 31 + static_cast<uint64_t>(round) * 2 +
                        (side == AbSide::kHead));
    std::normal_distribution<double> noise(0.0, 0.02);
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    const double drift = 1.0 + 0.2 * (round % 3);
    const double x = 1e-3 * drift * (side == AbSide::kHead && spec.name == "w0" ? 1.25 : 1.0);
    r.rounds = {{x * (1 + noise(rng)), x * (1 + noise(rng)), x * (1 + noise(rng))}};
    r.summary.median = x;
    return std::vector{r};
  };
  const Verdicts v = Judge(RunAb(suite, ws, o, runner));
  ASSERT_EQ(v.Count(Verdict::kRegression), 1) << v.metrics[0].sentence;
  for (const MetricVerdict& m : v.metrics) {
    if (m.workload == "(suite)") continue;
    EXPECT_EQ(m.verdict == Verdict::kRegression, m.workload == "w0") << m.workload << ": " << m.sentence;
    if (m.workload == "w0") {
      EXPECT_NEAR(*m.ratio, 1.25, 0.03);
      EXPECT_NE(m.sentence.find("trimmed mean t on 10 paired rounds"), std::string::npos) << m.sentence;
    }
    if (m.verdict == Verdict::kInconclusive) {
      EXPECT_TRUE(m.mde.has_value()) << m.workload;
    }
  }
  EXPECT_EQ(ExitCodeFor(v), 1);
  // A family small enough for the signed-rank test keeps it.
  ws.resize(5);
  const Verdicts five = Judge(RunAb(suite, ws, o, runner));
  ASSERT_EQ(five.Count(Verdict::kRegression), 1);
  for (const MetricVerdict& m : five.metrics) {
    if (m.workload == "w0") {
      EXPECT_NE(m.sentence.find("Wilcoxon signed-rank on 10 paired rounds"), std::string::npos) << m.sentence;
    }
  }
}

// A 1 us timer on a 20 us benchmark: round medians of 20 or 21 us. The
// choice of test is the design's (n, m, q), never the data's ties: 14 rounds
// against 0.01/12 keep the signed-rank test; and 6 rounds with the head at
// 21 us in five of them give no zero-width interval and no regression.
TEST(AbTest, ACoarseTimerNeitherChoosesTheTestNorGivesAZeroWidthInterval) {
  Suite suite;
  std::vector<WorkloadSpec> ws;
  for (int i = 0; i < 12; ++i) ws.push_back(Synthetic("w" + std::to_string(i)));
  auto quantized = [](const WorkloadSpec& spec, AbSide side, int round) {
    std::mt19937_64 rng(std::hash<std::string>{}(spec.name) * 7 + static_cast<uint64_t>(round) * 2 +
                        (side == AbSide::kHead));
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    const double x = (rng() % 2 ? 21e-6 : 20e-6);
    r.rounds = {{x, x, x}};
    r.summary.median = x;
    return std::vector{r};
  };
  AbOptions o;
  o.rounds = 14;
  const Verdicts v = Judge(RunAb(suite, ws, o, quantized));
  for (const MetricVerdict& m : v.metrics) {
    if (m.workload == "(suite)") continue;
    EXPECT_NE(m.sentence.find("Wilcoxon signed-rank on 14 paired rounds"), std::string::npos) << m.sentence;
    EXPECT_NE(m.verdict, Verdict::kRegression) << m.sentence;
  }
  auto five_of_six = [](const WorkloadSpec& spec, AbSide side, int round) {
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    const double x = side == AbSide::kHead && spec.name == "w0" && round != 3 ? 21e-6 : 20e-6;
    r.rounds = {{x, x, x}};
    r.summary.median = x;
    return std::vector{r};
  };
  o.rounds = 6;
  const Verdicts six = Judge(RunAb(suite, ws, o, five_of_six));
  for (const MetricVerdict& m : six.metrics) {
    if (m.workload != "w0") continue;
    EXPECT_EQ(m.verdict, Verdict::kInconclusive) << m.sentence;
    // The round that read no change counts: the interval runs from it to
    // one tick (+5%), as wide as the ratios' grid, so it is not widened.
    ASSERT_TRUE(m.ci_low && m.ci_high);
    EXPECT_NEAR(*m.ci_low, 1.0, 1e-12);
    EXPECT_NEAR(*m.ci_high, 1.05, 1e-9);
    EXPECT_FALSE(m.mde.has_value());  // 6 rounds cannot reach 0.01/12
  }
  EXPECT_EQ(ExitCodeFor(six), 0);
}

TEST(AbTest, IdenticalSidesAreUnchanged) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  AbOptions o;
  o.rounds = 10;
  auto noisy = [](const WorkloadSpec& spec, AbSide side, int round) {
    std::mt19937_64 rng(static_cast<uint64_t>(round) * 2 + (side == AbSide::kHead));
    std::normal_distribution<double> noise(0.0, 0.005);
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    const double x = 1e-3 * (1.0 + 0.2 * (round % 3));
    r.rounds = {{x * (1 + noise(rng)), x * (1 + noise(rng)), x * (1 + noise(rng))}};
    r.summary.median = x;
    return std::vector{r};
  };
  Verdicts v = Judge(RunAb(suite, ws, o, noisy));
  EXPECT_EQ(v.metrics[0].verdict, Verdict::kUnchanged) << v.metrics[0].sentence;
  EXPECT_EQ(ExitCodeFor(v), 0);
  // Rounds that all read exactly the same ratio measured no spread: a timer
  // coarser than the change reads so. Not "unchanged 0.0% [0.0%, 0.0%]".
  FakeRunner same;
  Verdicts flat = Judge(RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
    return std::vector{same(s, side, r)};
  }));
  EXPECT_EQ(flat.metrics[0].verdict, Verdict::kInconclusive) << flat.metrics[0].sentence;
  EXPECT_NE(flat.metrics[0].sentence.find("every one of the 10 paired rounds read the same ratio"),
            std::string::npos)
      << flat.metrics[0].sentence;
  EXPECT_TRUE(flat.warnings.empty()) << flat.warnings[0];
  EXPECT_EQ(ExitCodeFor(flat), 0);
}

// A side's turn is one paired round however many rounds the harness's
// adaptive stop made of it: kept apart, a side held 18 rounds and the other
// 22 for --rounds 6, paired by position, and identical code read +94%.
TEST(AbTest, ASidesTurnIsOnePairedRoundWhateverTheAdaptiveStopAdded) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  AbOptions o;
  o.rounds = 6;
  auto uneven = [](const WorkloadSpec& spec, AbSide side, int round) {
    WorkloadResult r;
    r.name = spec.name;
    r.kind = "command";
    const double x = 1e-3 * (1.0 + 0.5 * (round % 3));  // strong drift between A/B rounds
    // The head's turn stops after more harness rounds than the base's.
    const int harness_rounds = side == AbSide::kHead ? 2 + round % 3 : 1 + round % 2;
    for (int k = 0; k < harness_rounds; ++k) r.rounds.push_back({x * (1 - 0.001 * k), x * (1 + 0.001 * k)});
    r.cycles = {{100.0 + round}};
    r.summary.median = x;
    return std::vector{r};
  };
  AbData d = RunAb(suite, ws, o, uneven);
  ASSERT_EQ(d.base.workloads[0].rounds.size(), 6u);
  ASSERT_EQ(d.head.workloads[0].rounds.size(), 6u);
  EXPECT_EQ(d.head.workloads[0].rounds[5].size(), 8u);  // 4 harness rounds of 2 samples, one A/B round
  EXPECT_EQ(d.head.workloads[0].cycles.size(), 6u);
  Verdicts v = Judge(d);
  EXPECT_NE(v.metrics[0].verdict, Verdict::kRegression) << v.metrics[0].sentence;
  EXPECT_NE(v.metrics[0].sentence.find("6 paired rounds"), std::string::npos) << v.metrics[0].sentence;
}

TEST(AbTest, TooFewRoundsIsInconclusiveAndPolicyDecides) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  AbOptions o;
  o.rounds = 4;
  FakeRunner slow;
  slow.factor = 1.3;
  AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{slow(s, side, r)}; });
  Verdicts v = Judge(d);
  EXPECT_EQ(v.metrics[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(v.metrics[0].reason, Reason::kTooFewSamples);
  EXPECT_EQ(v.outcome, Outcome::kNotJudged);  // nothing decided: never shown as a pass
  EXPECT_EQ(ExitCodeFor(v), 0);
  Policy strict = DefaultPolicy();
  strict.defaults.on_inconclusive = OnInconclusive::kFail;
  EXPECT_EQ(ExitCodeFor(Judge(d, strict)), 4);
}

// The exact signed-rank test on n rounds has a smallest two-sided p of
// 2^(1-n): 6 rounds reach 95% but not 99%. Below the level, the full range
// of Walsh averages (96.9% coverage for 6) is no 99% interval (probe DB1).
TEST(AbTest, RoundsTooFewForThePolicysConfidenceAreInconclusive) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("w")};
  Policy p99 = DefaultPolicy();
  p99.defaults.confidence = 0.99;
  p99.defaults.fdr_q = 0.05;
  FakeRunner slow;
  slow.factor = 1.3;
  auto runner = [&](const WorkloadSpec& s, AbSide side, int r) { return std::vector{slow(s, side, r)}; };
  AbOptions o;
  o.rounds = 6;
  Verdicts six = Judge(RunAb(suite, ws, o, runner), p99);
  EXPECT_EQ(six.metrics[0].verdict, Verdict::kInconclusive) << six.metrics[0].sentence;
  EXPECT_EQ(six.metrics[0].reason, Reason::kTooFewSamples);
  EXPECT_FALSE(six.metrics[0].ci_low.has_value() && std::isfinite(*six.metrics[0].ci_low));
  EXPECT_NE(six.metrics[0].sentence.find("at least 8"), std::string::npos) << six.metrics[0].sentence;
  o.rounds = 8;
  Verdicts eight = Judge(RunAb(suite, ws, o, runner), p99);
  EXPECT_EQ(eight.metrics[0].verdict, Verdict::kRegression) << eight.metrics[0].sentence;
  // At 95% six rounds still decide.
  Policy p95 = p99;
  p95.defaults.confidence = 0.95;
  o.rounds = 6;
  EXPECT_EQ(Judge(RunAb(suite, ws, o, runner), p95).metrics[0].verdict, Verdict::kRegression);
}

TEST(AbTest, FailedRoundIsAToolError) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("bad"), Synthetic("good")};
  AbOptions o;
  o.rounds = 8;
  FakeRunner f;
  f.fail_head_round = 3;
  AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
    FakeRunner& use = f;
    if (s.name == "good" && side == AbSide::kHead && r == 3) {
      WorkloadResult ok = FakeRunner{}(s, side, r);
      return std::vector{ok};
    }
    return std::vector{use(s, side, r)};
  });
  EXPECT_EQ(d.head.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(d.head.workloads[1].status, WorkloadStatus::kOk);
  Verdicts v = Judge(d);
  EXPECT_EQ(v.metrics[0].verdict, Verdict::kSkipped);
  EXPECT_EQ(v.metrics[0].reason, Reason::kCurrentFailed);
  EXPECT_NE(v.metrics[0].sentence.find("head: failed: exit code 1: boom"), std::string::npos)
      << v.metrics[0].sentence;
  EXPECT_EQ(v.outcome, Outcome::kError);
  EXPECT_EQ(ExitCodeFor(v), 3);
}

// The base build crashes in round 1. Whichever side the coin runs first, the
// verdict names the base, and a head side that never ran is skipped, not
// given the base's failure.
TEST(AbTest, TheSideThatFailedIsNamedWhicheverRanFirst) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("p")};
  int head_first_seen = 0, base_first_seen = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    AbOptions o;
    o.rounds = 4;
    o.seed = seed;
    AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
      WorkloadResult res = FakeRunner{}(s, side, r);
      if (side == AbSide::kBase) {
        res.status = WorkloadStatus::kFailed;
        res.reason = "killed by signal SIGSEGV";
        res.rounds.clear();
      }
      return std::vector{res};
    });
    const bool head_ran = !d.head.workloads.empty() &&
                          d.head.workloads[0].status != WorkloadStatus::kSkipped;
    (head_ran ? head_first_seen : base_first_seen) += 1;
    if (!head_ran && !d.head.workloads.empty()) {
      EXPECT_EQ(d.head.workloads[0].reason, "not run: the base side ran first and failed");
    }
    Verdicts v = Judge(d);
    ASSERT_EQ(v.metrics.size(), 1u);
    EXPECT_EQ(v.metrics[0].reason, Reason::kCurrentFailed);
    EXPECT_EQ(v.metrics[0].sentence, "base: failed: killed by signal SIGSEGV") << seed;
    EXPECT_EQ(ExitCodeFor(v), 3);
  }
  EXPECT_GT(head_first_seen, 0);  // both orders were drawn
  EXPECT_GT(base_first_seen, 0);
}

TEST(AbTest, NotesOfEveryRoundAreKeptPerSide) {
  Suite suite;
  std::vector<WorkloadSpec> ws = {Synthetic("cmd")};
  AbOptions o;
  o.rounds = 3;
  FakeRunner fake;
  AbData d = RunAb(suite, ws, o, [&](const WorkloadSpec& s, AbSide side, int r) {
    WorkloadResult res = fake(s, side, r);
    if (side == AbSide::kHead && r != 1) res.notes = {"ended 1 process the workload left behind (pids 9)"};
    return std::vector{res};
  });
  EXPECT_TRUE(d.base.workloads[0].notes.empty());
  EXPECT_EQ(d.head.workloads[0].notes,
            (std::vector<std::string>{"round 1: ended 1 process the workload left behind (pids 9)",
                                      "round 3: ended 1 process the workload left behind (pids 9)"}));
}

/// Counts per-workload alarms of the two analyses over `suites` suite runs.
struct Figures {
  int workloads = 0, paired_regressions = 0, unpaired_alarms = 0;
  int suites = 0, suites_paired_alarm = 0, suites_unpaired_alarm = 0;
};

Figures Measure(double slowdown, int suites, int per_suite) {
  Figures f;
  Suite suite;
  suite.name = "synthetic-ab";
  std::vector<WorkloadSpec> ws;
  for (int i = 0; i < per_suite; ++i) ws.push_back(Synthetic("syn/" + std::to_string(i), slowdown));
  const Policy policy = WithTimeRule(0.02, Severity::kFail);
  for (int s = 0; s < suites; ++s) {
    ++f.suites;
    // Paired: interleaved A/B with drift shared inside each round.
    AbOptions o;
    o.rounds = 10;
    o.seed = 100 + s;
    Verdicts v = Judge(RunAb(suite, ws, o), policy);
    int reg = v.Count(Verdict::kRegression);
    f.paired_regressions += reg;
    f.suites_paired_alarm += reg > 0;
    // Unpaired: two separate runs (each with its own run and round drift),
    // all samples compared by a Mann-Whitney U test, BH across the suite.
    RunOptions ro;
    ro.run_seed = 2 * s + 1;
    Results base = RunSuite(suite, ws, ro);
    ro.run_seed = 2 * s + 2;
    std::vector<WorkloadSpec> head_ws = ws;
    Results head = RunSuite(suite, head_ws, ro);
    std::vector<double> p;
    for (size_t w = 0; w < ws.size(); ++w) {
      std::vector<double> x = AllSamples(head.workloads[w]), y = AllSamples(base.workloads[w]);
      p.push_back(MannWhitneyU(x, y).p_value);
    }
    std::vector<double> adj = BenjaminiHochbergAdjust(p);
    int alarms = 0;
    for (double a : adj) alarms += a <= 0.05;
    f.unpaired_alarms += alarms;
    f.suites_unpaired_alarm += alarms > 0;
    f.workloads += static_cast<int>(ws.size());
  }
  return f;
}

TEST(AbTest, SyntheticDriftBetweenRoundsPairedVersusUnpaired) {
  // Within-round CV 2%, drift between rounds CV 10%, between runs CV 5%;
  // 10 rounds of 10 samples per side; threshold 2%; paired: the default FDR q
  // (1%); unpaired: BH at q = 5%.
  Figures aa = Measure(1.0, 25, 20);
  std::printf("A/A (%d workloads in %d suites): paired regressions %d (suites with any: %d); "
              "unpaired MW alarms %d (suites with any: %d)\n",
              aa.workloads, aa.suites, aa.paired_regressions, aa.suites_paired_alarm, aa.unpaired_alarms,
              aa.suites_unpaired_alarm);
  EXPECT_EQ(aa.paired_regressions, 0);
  EXPECT_GE(aa.unpaired_alarms, aa.workloads / 2);  // the unpaired comparison alarms on most

  // The unpaired runs are of identical specs (slowdown only applies to the
  // head side of A/B), so the 5% case measures the paired analysis alone.
  Figures slow = Measure(1.05, 25, 20);
  double caught = static_cast<double>(slow.paired_regressions) / slow.workloads;
  std::printf("5%% slowdown (%d workloads): paired regressions %d (%.1f%%)\n", slow.workloads,
              slow.paired_regressions, 100.0 * caught);
  EXPECT_GE(caught, 0.95);
}

}  // namespace
}  // namespace gpugate
