// End-to-end tests of `compare` and `gate`: the real binary on synthetic
// suites and real third-party files; exit codes, reports and GitHub outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_binary.h"
#include "model/results_json.h"
#include "report/json.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

// Five workloads (one run per side needs five for the machine's speed
// factor, and estimates each workload's noise between runs from at least
// three others); `slowdown` applies to "b" only.
std::string SyntheticSuite(double slowdown) {
  return "version: 1\n"
         "name: e2e\n"
         "defaults: {warmup: 0, min_samples: 40, max_samples: 60, rounds: 5, min_time: 0s}\n"
         "workloads:\n"
         "  - name: a\n    kind: synthetic\n    synthetic: {median: 1ms, cv: 1%, seed: 11}\n"
         "  - name: c\n    kind: synthetic\n    synthetic: {median: 500us, cv: 1%, seed: 13}\n"
         "  - name: d\n    kind: synthetic\n    synthetic: {median: 3ms, cv: 1%, seed: 14}\n"
         "  - name: e\n    kind: synthetic\n    synthetic: {median: 1500us, cv: 1%, seed: 15}\n"
         "  - name: b\n    kind: synthetic\n    synthetic: {median: 2ms, cv: 1%, seed: 12, slowdown: " +
         std::to_string(slowdown) + "}\n";
}

class CompareCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    testing::WriteAll(dir_ + "/base.yaml", SyntheticSuite(1.0));
    testing::WriteAll(dir_ + "/slow.yaml", SyntheticSuite(1.25));
    ASSERT_EQ(RunGpugate({"run", dir_ + "/base.yaml", "-o", dir_ + "/base.json", "-q"}).exit_code, 0);
    ASSERT_EQ(RunGpugate({"run", dir_ + "/base.yaml", "-o", dir_ + "/same.json", "-q", "--seed", "7"})
                  .exit_code,
              0);
    ASSERT_EQ(RunGpugate({"run", dir_ + "/slow.yaml", "-o", dir_ + "/slow.json", "-q", "--seed", "7"})
                  .exit_code,
              0);
  }
  void TearDown() override { testing::RemoveTree(dir_); }
  std::string dir_;
};

TEST_F(CompareCliTest, SameCodePasses) {
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

TEST_F(CompareCliTest, SeveralCurrentRunsAreReplicationUnits) {
  // A baseline history of three runs and three current runs of the slowed
  // build: the t test on run-level values uses all three current runs.
  for (const char* seed : {"21", "22"}) {
    ASSERT_EQ(RunGpugate({"run", dir_ + "/base.yaml", "-o", dir_ + "/b" + seed + ".json", "-q",
                          "--seed", seed}).exit_code, 0);
    ASSERT_EQ(RunGpugate({"run", dir_ + "/slow.yaml", "-o", dir_ + "/s" + seed + ".json", "-q",
                          "--seed", seed}).exit_code, 0);
  }
  const std::string hist = dir_ + "/hist.json";
  for (const char* run : {"/base.json", "/b21.json", "/b22.json"})
    ASSERT_EQ(RunGpugate({"baseline", "update", "--results", dir_ + run, "--baseline", hist})
                  .exit_code, 0);
  auto o = RunGpugate({"compare", hist, dir_ + "/slow.json", dir_ + "/s21.json",
                       dir_ + "/s22.json", "--json", dir_ + "/v.json", "-v"});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("(+2 more runs)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("3 current runs vs a history of 3 runs"), std::string::npos) << o.out;
  // Identical code, two current runs (neither in the history): no regression.
  ASSERT_EQ(RunGpugate({"run", dir_ + "/base.yaml", "-o", dir_ + "/b23.json", "-q", "--seed", "23"})
                .exit_code, 0);
  auto same = RunGpugate({"compare", hist, dir_ + "/same.json", dir_ + "/b23.json"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // Every current file is checked like the first.
  auto bad = RunGpugate({"compare", hist, dir_ + "/slow.json", dir_ + "/missing.json"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("missing.json"), std::string::npos) << bad.err;
  // The same run twice (the same file, or a copy) is one run, not two: its
  // evidence would count twice.
  std::filesystem::copy_file(dir_ + "/s21.json", dir_ + "/copy.json");
  for (const std::string& again : {dir_ + "/s21.json", dir_ + "/copy.json"}) {
    auto twice = RunGpugate({"compare", hist, dir_ + "/s21.json", again});
    EXPECT_EQ(twice.exit_code, 2) << twice.out;
    EXPECT_NE(twice.err.find("gpugate: error: " + again + ": the same run as " + dir_ +
                             "/s21.json (run id "),
              std::string::npos)
        << twice.err;
  }
  // A baseline of one run that is the current run compares it with itself:
  // every workload would read unchanged, a pass that decided nothing.
  for (const std::string& self : {dir_ + "/s21.json", dir_ + "/copy.json"}) {
    auto itself = RunGpugate({"compare", dir_ + "/s21.json", self});
    EXPECT_EQ(itself.exit_code, 2) << itself.out;
    EXPECT_NE(itself.err.find("gpugate: error: " + self + ": the same run as the baseline " + dir_ +
                              "/s21.json (run id "),
              std::string::npos)
        << itself.err;
  }
  // A benchmark file written again (its whitespace changed, as `jq .` does)
  // holds the same timings to the last digit: the same run.
  const std::string gb = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/gbench/gbench_local_repetitions5.json";
  std::string compact;
  for (const char c : testing::ReadAll(gb))
    if (c != '\n') compact.push_back(c);
  testing::WriteAll(dir_ + "/rewritten.json", compact);
  auto rewritten = RunGpugate({"compare", gb, dir_ + "/rewritten.json"});
  EXPECT_EQ(rewritten.exit_code, 2) << rewritten.out;
  EXPECT_NE(rewritten.err.find("the same run as the baseline"), std::string::npos) << rewritten.err;
  EXPECT_NE(rewritten.err.find("(the same timings, to the last digit)"), std::string::npos) << rewritten.err;
  // The same timings with other CPU times are another run (a manual time
  // from a model repeats exactly; the CPU time does not).
  std::string manual = compact;
  const size_t cpu_at = manual.find("\"cpu_time\": ");
  ASSERT_NE(cpu_at, std::string::npos);
  manual.insert(cpu_at + 12, "1");
  testing::WriteAll(dir_ + "/manual.json", manual);
  auto other_cpu = RunGpugate({"compare", gb, dir_ + "/manual.json"});
  EXPECT_NE(other_cpu.exit_code, 2) << other_cpu.err;
  // gpugate's own results of two runs are two runs whatever their values
  // (instruction counts repeat exactly from run to run).
  std::string rerun = testing::ReadAll(dir_ + "/s21.json");
  const size_t id_at = rerun.find("\"run_id\": \"");
  ASSERT_NE(id_at, std::string::npos);
  rerun.insert(id_at + 11, "another-");
  testing::WriteAll(dir_ + "/s21-again.json", rerun);
  auto counts = RunGpugate({"compare", dir_ + "/s21.json", dir_ + "/s21-again.json"});
  EXPECT_NE(counts.exit_code, 2) << counts.err;
  // A history that already holds the current run says so.
  auto inside = RunGpugate({"compare", hist, dir_ + "/b21.json"});
  EXPECT_NE(inside.out.find("is also in the baseline history, so it was compared with itself too"),
            std::string::npos)
      << inside.out;
  auto outside = RunGpugate({"compare", hist, dir_ + "/b23.json"});
  EXPECT_EQ(outside.out.find("is also in the baseline history"), std::string::npos) << outside.out;
}

// A Google Benchmark file of program `exe` with benchmarks `names`, each
// five repetitions around `ms` (times `factor` for the first).
std::string GbenchFile(const std::string& exe, const std::vector<std::string>& names, double factor, int salt) {
  std::string rows;
  for (size_t i = 0; i < names.size(); ++i)
    for (int k = 0; k < 5; ++k) {
      const double t = (10.0 + static_cast<double>(i)) * (i == 0 ? factor : 1.0) * (1 + 0.002 * ((k * 3 + salt) % 5));
      rows += std::string(rows.empty() ? "" : ",") + "{\"name\": \"" + names[i] + "\", \"run_name\": \"" + names[i] +
              "\", \"run_type\": \"iteration\", \"repetitions\": 5, \"repetition_index\": " + std::to_string(k) +
              ", \"threads\": 1, \"iterations\": 100, \"real_time\": " + std::to_string(t) +
              ", \"cpu_time\": " + std::to_string(t) + ", \"time_unit\": \"ms\"}";
    }
  return "{\"context\": {\"executable\": \"" + exe + "\", \"num_cpus\": 2, \"host_name\": \"h\", \"date\": \"2026-11-" +
         std::to_string(10 + salt) + "T10:00:00+00:00\"}, \"benchmarks\": [" + rows + "]}";
}

// Several current files are repeated runs of one suite: another suite's
// gpugate results, or another program's benchmark file, is refused (its
// workloads were left out of every report, a regression among them); a
// later file's extra workloads are named; a folder's history of another
// suite that maps to the same folder is refused for any format; the first
// run's hint keeps --env-key.
TEST_F(CompareCliTest, CurrentFilesOfAnotherSuiteOrProgramAreRefused) {
  testing::WriteAll(dir_ + "/other.yaml", "version: 1\nname: other\nworkloads:\n"
                                          "  - name: z\n    kind: synthetic\n    synthetic: {median: 1ms, cv: 1%}\n");
  ASSERT_EQ(RunGpugate({"run", dir_ + "/other.yaml", "-o", dir_ + "/other.json", "-q"}).exit_code, 0);
  auto suites = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", dir_ + "/other.json"});
  EXPECT_EQ(suites.exit_code, 2) << suites.out;
  EXPECT_NE(suites.err.find("a run of suite 'other', but " + dir_ + "/same.json is of suite 'e2e'"), std::string::npos)
      << suites.err;

  const std::vector<std::string> io = {"BM_a", "BM_b", "BM_c", "BM_d", "BM_e"};
  const std::vector<std::string> mm = {"X1", "X2", "X3", "X4", "X5"};
  testing::WriteAll(dir_ + "/io0.json", GbenchFile("./bench_io", io, 1.0, 0));
  testing::WriteAll(dir_ + "/io1.json", GbenchFile("./bench_io", io, 1.0, 1));
  testing::WriteAll(dir_ + "/mm1.json", GbenchFile("./bench_mm", mm, 1.5, 2));
  auto programs = RunGpugate({"compare", dir_ + "/io0.json", dir_ + "/io1.json", dir_ + "/mm1.json"});
  EXPECT_EQ(programs.exit_code, 2) << programs.out;
  EXPECT_NE(programs.err.find("mm1.json: a run of suite 'bench_mm', but " + dir_ + "/io1.json is of suite 'bench_io'"),
            std::string::npos)
      << programs.err;
  // Two programs whose benchmarks share their names are two suites still.
  testing::WriteAll(dir_ + "/io_double.json", GbenchFile("./bench_double", io, 1.5, 2));
  auto same_names = RunGpugate({"compare", dir_ + "/io0.json", dir_ + "/io1.json", dir_ + "/io_double.json"});
  EXPECT_EQ(same_names.exit_code, 2) << same_names.out;
  // Files known only by their file names are known by their benchmarks.
  testing::WriteAll(dir_ + "/run1.json", GbenchFile("", io, 1.0, 6));
  testing::WriteAll(dir_ + "/run2.json", GbenchFile("", io, 1.0, 7));
  testing::WriteAll(dir_ + "/run3.json", GbenchFile("", mm, 1.0, 8));
  EXPECT_NE(RunGpugate({"compare", dir_ + "/io0.json", dir_ + "/run1.json", dir_ + "/run2.json"}).exit_code, 2);
  auto unnamed = RunGpugate({"compare", dir_ + "/io0.json", dir_ + "/run1.json", dir_ + "/run3.json"});
  EXPECT_EQ(unnamed.exit_code, 2) << unnamed.out;
  EXPECT_NE(unnamed.err.find("run3.json: shares 0 of its 5 workloads with " + dir_ + "/run1.json"), std::string::npos)
      << unnamed.err;

  std::vector<std::string> more = io;
  more.push_back("BM_f");
  testing::WriteAll(dir_ + "/io2.json", GbenchFile("./bench_io", more, 1.0, 3));
  auto extra = RunGpugate({"compare", dir_ + "/io0.json", dir_ + "/io1.json", dir_ + "/io2.json"});
  EXPECT_NE(extra.exit_code, 2) << extra.err;
  // A workload only a later file holds is compared too (new here: the
  // baseline lacks it), not left out.
  EXPECT_NE(extra.out.find("BM_f      time    n/a              n/a           not in the baseline"), std::string::npos)
      << extra.out;
  EXPECT_EQ(extra.out.find("not compared"), std::string::npos) << extra.out;

  // bench-core and bench_core share the folder bench-core/.
  const std::string folder = dir_ + "/bl/";
  testing::WriteAll(dir_ + "/core.json", GbenchFile("./bench_core", io, 1.0, 4));
  testing::WriteAll(dir_ + "/dash.json", GbenchFile("./bench-core", io, 1.0, 5));
  ASSERT_EQ(RunGpugate({"baseline", "update", "--results", dir_ + "/core.json", "--baseline", folder, "--env-key", "ci"})
                .exit_code,
            0);
  auto shared = RunGpugate({"compare", folder, dir_ + "/dash.json", "--env-key", "ci"});
  EXPECT_EQ(shared.exit_code, 2) << shared.out;
  EXPECT_NE(shared.err.find("a baseline of suite 'bench_core', but the current run's suite is 'bench-core'"),
            std::string::npos)
      << shared.err;

  auto first = RunGpugate({"compare", dir_ + "/empty/", dir_ + "/io0.json", "--env-key", "ci"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("--baseline " + dir_ + "/empty/ --env-key ci)"), std::string::npos) << first.out;
}

TEST_F(CompareCliTest, SlowdownFailsAndWritesEveryReport) {
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "--junit",
                       dir_ + "/j.xml", "--markdown", dir_ + "/r.md", "--json", dir_ + "/v.json",
                       "--html", dir_ + "/r.html"});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("regression"), std::string::npos) << o.out;
  EXPECT_NE(testing::ReadAll(dir_ + "/j.xml").find("<failure"), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir_ + "/r.md").find("| "), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir_ + "/v.json").find("gpugate/verdicts/v2"), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir_ + "/r.html").find("<html"), std::string::npos);
}

// A rule or waiver whose match selects nothing (a glob without '*', a stray
// blank) changes nothing: compare says so, at the entry, and the gate's
// outcome is the same.
TEST_F(CompareCliTest, RulesAndWaiversThatMatchNothingAreNamed) {
  testing::WriteAll(dir_ + "/p.yaml",
                    "version: 1\n"
                    "rules:\n"
                    "  - {match: \"b\", threshold: 50%}\n"
                    "  - {match: \"gemm\", threshold: 20%}\n"
                    "  - {match: \"io/*\", metric: throughput, threshold: 20%}\n"
                    "waivers:\n"
                    "  - {match: \"b \", until: 2099-12-31, reason: slower disks}\n");
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "--policy", dir_ + "/p.yaml", "-q"});
  EXPECT_EQ(o.err.find("p.yaml:3:5: rule"), std::string::npos) << o.err;  // 'b' matches workload b
  EXPECT_NE(o.err.find("p.yaml:4:5: rule (match 'gemm') names no workload of this comparison; a name without "
                       "'*' matches that one name only"),
            std::string::npos)
      << o.err;
  // A glob may be meant for other suites that share the policy: not named.
  EXPECT_EQ(o.err.find("p.yaml:5:5"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("p.yaml:7:5: waiver (match 'b ') names no workload of this comparison; a name without '*' "
                       "matches that one name only, blanks included"),
            std::string::npos)
      << o.err;
  // The built-in policy names nothing.
  auto d = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "-q"});
  EXPECT_EQ(d.err.find("names no workload"), std::string::npos) << d.err;
}

TEST_F(CompareCliTest, GithubOutputsWhenRunningInActions) {
  std::string out = dir_ + "/gh_output", summary = dir_ + "/gh_summary";
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "--github", "-q"}, "",
                      {"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + summary});
  EXPECT_EQ(o.exit_code, 1);
  std::string outputs = testing::ReadAll(out);
  EXPECT_NE(outputs.find("verdict=fail"), std::string::npos) << outputs;
  EXPECT_NE(outputs.find("regressions=1"), std::string::npos) << outputs;
  EXPECT_FALSE(testing::ReadAll(summary).empty());
  EXPECT_NE(o.out.find("::error"), std::string::npos) << o.out;
}

TEST_F(CompareCliTest, GithubAnnotationsLeaveAReportOnStdoutWhole) {
  // A report on standard output stays one document: the annotations go to
  // standard error, which the runner reads for workflow commands too.
  const std::vector<std::string> env = {"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + dir_ + "/gh_output",
                                        "GITHUB_STEP_SUMMARY=" + dir_ + "/gh_summary"};
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "--github", "--json", "-"}, "", env);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(o.out.find("::error"), std::string::npos) << o.out.substr(o.out.size() - 300);
  EXPECT_NE(o.err.find("::error"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.back(), '\n');
  EXPECT_EQ(o.out[o.out.find_last_not_of('\n')], '}');
  // So does a results file on standard output (gate -o -).
  auto gate = RunGpugate({"gate", dir_ + "/slow.yaml", "--baseline", dir_ + "/base.json", "--seed", "3", "--confirm",
                          "1", "-o", "-", "--github"}, "", env);
  EXPECT_EQ(gate.exit_code, 1) << gate.err;
  EXPECT_EQ(gate.out.find("::"), std::string::npos) << gate.out.substr(gate.out.size() - 300);
  EXPECT_NE(gate.err.find("::error"), std::string::npos) << gate.err;
  EXPECT_TRUE(ResultsFromJson(gate.out, "stdout").ok());
  EXPECT_NE(gate.err.find("FAIL: 1 regression"), std::string::npos) << gate.err;  // the console report, on stderr
  // Without a report there, they stay on standard output.
  auto console = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/slow.json", "--github"}, "", env);
  EXPECT_NE(console.out.find("::error"), std::string::npos) << console.out;
}

TEST_F(CompareCliTest, AGithubFileThatCannotBeWrittenIsAnErrorBeforeAnyWork) {
  // A step summary or outputs file that cannot take the append fails first,
  // exit 2, with no report written: not exit 3 after reports that say pass.
  for (const std::string& variable : {std::string("GITHUB_STEP_SUMMARY"), std::string("GITHUB_OUTPUT")}) {
    const std::string other = variable == "GITHUB_OUTPUT" ? "GITHUB_STEP_SUMMARY" : "GITHUB_OUTPUT";
    for (const std::string& bad : {dir_ + "/no/such/folder/f", dir_, dir_ + "/base.json/f"}) {
      const std::string json = dir_ + "/v.json";
      std::filesystem::remove(json);
      auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", "--github", "--json", json}, "",
                          {"GITHUB_ACTIONS=true", variable + "=" + bad, other + "=" + dir_ + "/ok"});
      EXPECT_EQ(o.exit_code, 2) << variable << " " << bad << "\n" << o.err;
      EXPECT_NE(o.err.find("gpugate: error: --github: $" + variable), std::string::npos) << o.err;
      EXPECT_FALSE(std::filesystem::exists(json)) << bad;
    }
  }
  // Off GitHub Actions the variables are not read.
  auto off = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", "--github", "-q"}, "",
                        {"GITHUB_ACTIONS=", "GITHUB_STEP_SUMMARY=" + dir_ + "/no/such/f"});
  EXPECT_EQ(off.exit_code, 0) << off.err;
}

TEST_F(CompareCliTest, AReportUnderAFileSaysThatIsNotAFolder) {
  auto o = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", "--json", dir_ + "/base.json/v.json"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find(dir_ + "/base.json is a file, not a folder"), std::string::npos) << o.err;
  auto deeper = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", "--json", dir_ + "/base.json/r/v.json"});
  EXPECT_EQ(deeper.exit_code, 2);
  EXPECT_NE(deeper.err.find(dir_ + "/base.json is a file, not a folder"), std::string::npos) << deeper.err;
}

TEST_F(CompareCliTest, BadInputsExitTwo) {
  testing::WriteAll(dir_ + "/garbage.json", "{\"hello\": ");
  auto truncated = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/garbage.json"});
  EXPECT_EQ(truncated.exit_code, 2);
  EXPECT_NE(truncated.err.find("garbage.json"), std::string::npos) << truncated.err;
  auto missing = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/nope.json"});
  EXPECT_EQ(missing.exit_code, 2);
  // A file name with a line feed cannot make a line of the message pass for
  // gpugate's own output: later lines are indented.
  const std::string forged = dir_ + "/x.json\nPASS: 0 regressions\n::error::y";
  testing::WriteAll(forged, "{\"hello\": 1}");
  auto named = RunGpugate({"compare", dir_ + "/base.json", forged});
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_EQ(named.err.find("\nPASS"), std::string::npos) << named.err;
  EXPECT_NE(named.err.find("\n  PASS: 0 regressions\n  \\x3a:error::y"), std::string::npos) << named.err;
  testing::WriteAll(dir_ + "/bad_policy.yaml", "version: 1\ndefaults:\n  treshold: 5%\n");
  auto policy = RunGpugate({"compare", dir_ + "/base.json", dir_ + "/same.json", "--policy",
                            dir_ + "/bad_policy.yaml"});
  EXPECT_EQ(policy.exit_code, 2);
  EXPECT_NE(policy.err.find("bad_policy.yaml:3:3:"), std::string::npos) << policy.err;
}

TEST_F(CompareCliTest, GateRunsComparesAndConfirms) {
  auto pass = RunGpugate({"gate", dir_ + "/base.yaml", "--baseline", dir_ + "/base.json", "--seed",
                          "3", "-o", dir_ + "/gate.json", "-q"});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_TRUE(ReadResultsFile(dir_ + "/gate.json").ok());
  auto fail = RunGpugate({"gate", dir_ + "/slow.yaml", "--baseline", dir_ + "/base.json", "--seed",
                          "3", "-o", dir_ + "/gate2.json", "-q"});
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  auto r = ReadResultsFile(dir_ + "/gate2.json");
  ASSERT_TRUE(r.ok());
  const WorkloadResult* b = r->Find("b");
  ASSERT_NE(b, nullptr);
  // The regressed workload was re-run before the gate decided, and the extra
  // rounds are kept.
  EXPECT_GE(b->confirmation_reruns, 1);
  EXPECT_GT(b->rounds.size(), 5u);
  // First run: no baseline file yet. Nothing is compared; the outcome is
  // not_judged (exit 0, never a pass) and the report says the run starts it.
  auto no_baseline = RunGpugate({"gate", dir_ + "/base.yaml", "--baseline", dir_ + "/none.json", "-o",
                                 dir_ + "/first.json", "--json", dir_ + "/first_v.json"});
  EXPECT_EQ(no_baseline.exit_code, 0) << no_baseline.err;
  EXPECT_NE(no_baseline.out.find("NOT JUDGED: 0 inconclusive, 5 new (no baseline)"), std::string::npos)
      << no_baseline.out;
  EXPECT_NE(no_baseline.out.find("no baseline yet at " + dir_ + "/none.json: nothing was compared, this run "
                                 "starts it (gpugate baseline update --results " + dir_ + "/first.json"),
            std::string::npos)
      << no_baseline.out;
  EXPECT_NE(testing::ReadAll(dir_ + "/first_v.json").find("\"outcome\": \"not_judged\""), std::string::npos);
  // A folder is a baselines folder: with no file for the suite and runner
  // class there, it is a first run and says so (not "empty file").
  auto folder = RunGpugate({"compare", dir_, dir_ + "/first.json"});
  EXPECT_EQ(folder.exit_code, 0) << folder.err;
  EXPECT_NE(folder.out.find("no baseline yet at " + dir_ + "/e2e/"), std::string::npos) << folder.out;
  EXPECT_NE(folder.out.find(": nothing was compared, this run starts it (gpugate baseline update --results " +
                            dir_ + "/first.json --baseline " + dir_ + "); " + dir_ +
                            " holds no baseline of suite 'e2e' yet"),
            std::string::npos)
      << folder.out;
  EXPECT_NE(folder.out.find("NOT JUDGED"), std::string::npos) << folder.out;
  // Two suite names with one slug share a folder's file: the other suite's
  // history is refused, not compared as new and removed workloads.
  const std::string store = dir_ + "/store";
  ASSERT_TRUE(std::filesystem::create_directories(store));
  auto update = RunGpugate({"baseline", "update", "--results", dir_ + "/first.json", "--baseline", store});
  ASSERT_EQ(update.exit_code, 0) << update.err;
  std::string other = testing::ReadAll(dir_ + "/first.json");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"suite\": \"e2e\"", "\"suite\": \"E2E\""},
                                 {"\"run_id\": \"", "\"run_id\": \"other-"}}) {
    const size_t at = other.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    other.replace(at, from.size(), to);
  }
  testing::WriteAll(dir_ + "/other_suite.json", other);
  auto clash = RunGpugate({"compare", store, dir_ + "/other_suite.json"});
  EXPECT_EQ(clash.exit_code, 2) << clash.out << clash.err;
  EXPECT_NE(clash.err.find("a baseline of suite 'e2e', but the current run's suite is 'E2E'; both names map "
                           "to this file"),
            std::string::npos)
      << clash.err;
}

TEST(CompareIngestCliTest, NvbenchFixturePair) {
  auto o = RunGpugate({"compare", "tests/data/nvbench/nvbench_test_ref.json",
                       "tests/data/nvbench/nvbench_test_cmp.json", "--allow-env-mismatch"});
  EXPECT_NE(o.exit_code, 2) << o.err;
  EXPECT_NE(o.exit_code, 3) << o.err;
}

// --bigger-is-better reads custom JSON; given with other formats only it
// would change nothing, and is refused (as gate and baseline update do).
TEST(CompareIngestCliTest, BiggerIsBetterNeedsACustomFile) {
  const std::string file = "tests/data/gbench/gbench_local_repetitions5.json";
  auto o = RunGpugate({"compare", file, "tests/data/gbench/conbench_arrow_tensor_conversion_repetitions3.json", "--bigger-is-better"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("--bigger-is-better reads custom benchmark JSON ([{name, unit, value}]), and neither the "
                       "baseline nor a current file is"),
            std::string::npos)
      << o.err;
  auto u = RunGpugate({"baseline", "update", "--results", file, "--baseline", testing::MakeTempDir() + "/h.json",
                       "--bigger-is-better"});
  EXPECT_EQ(u.exit_code, 2) << u.err;
  EXPECT_NE(u.err.find("is not; other formats carry their own direction"), std::string::npos) << u.err;
}

TEST(CompareIngestCliTest, GoogleBenchmarkFiles) {
  // The file against itself is one run twice (its run id is its content's).
  const std::string file = "tests/data/gbench/gbench_local_repetitions5.json";
  auto self = RunGpugate({"compare", file, file});
  EXPECT_EQ(self.exit_code, 2) << self.out;
  EXPECT_NE(self.err.find("a run compared with itself cannot show a change"), std::string::npos)
      << self.err;
  // Every timing the same to the last digit under another date: a copy
  // that was edited, not a second process (which never repeats them all).
  const std::string dir = testing::MakeTempDir();
  std::string text = testing::ReadAll(std::string(GPUGATE_SOURCE_DIR) + "/" + file);
  const size_t at = text.find("2026-11-21T22:54:09");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 19, "2026-11-22T08:01:44");
  testing::WriteAll(dir + "/copy.json", text);
  auto copy = RunGpugate({"compare", file, dir + "/copy.json"});
  EXPECT_EQ(copy.exit_code, 2) << copy.out << copy.err;
  // One timing of another process differs: another run.
  const size_t time = text.find("\"real_time\": ");
  ASSERT_NE(time, std::string::npos);
  text.insert(time + 13, "1");
  testing::WriteAll(dir + "/rerun.json", text);
  auto o = RunGpugate({"compare", file, dir + "/rerun.json"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  testing::RemoveTree(dir);
}

TEST(CompareIngestCliTest, IdenticalFilesOfTwoRunsAreComparedWhereTheirIdsAreNotOneRun) {
  const std::string dir = testing::MakeTempDir();
  // Custom benchmark JSON of deterministic values (a size) repeats exactly
  // from commit to commit: two files, two runs.
  const std::string sizes = "[{\"name\": \"binary_size\", \"unit\": \"bytes\", \"value\": 123456}]\n";
  testing::WriteAll(dir + "/base.json", sizes);
  testing::WriteAll(dir + "/head.json", sizes);
  auto custom = RunGpugate({"compare", dir + "/base.json", dir + "/head.json"});
  EXPECT_EQ(custom.exit_code, 0) << custom.out << custom.err;
  // The file itself, by its path or a link, is one run.
  std::filesystem::create_symlink(dir + "/base.json", dir + "/link.json");
  for (const std::string& self : {dir + "/base.json", dir + "/link.json"}) {
    auto o = RunGpugate({"compare", dir + "/base.json", self});
    EXPECT_EQ(o.exit_code, 2) << o.out;
    EXPECT_NE(o.err.find("a run compared with itself cannot show a change"), std::string::npos) << o.err;
  }
  // Traces are named after the file and their first timestamp: two traces
  // called trace.json in two folders are two runs.
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  const std::string trace = testing::ReadAll(std::string(GPUGATE_SOURCE_DIR) +
                                             "/tests/data/traces/kineto_simple_add_a100.json");
  testing::WriteAll(dir + "/a/trace.json", trace);
  testing::WriteAll(dir + "/b/trace.json", trace);
  auto traces = RunGpugate({"compare", dir + "/a/trace.json", dir + "/b/trace.json"});
  EXPECT_EQ(traces.exit_code, 0) << traces.out << traces.err;
  testing::RemoveTree(dir);
}

TEST(CompareIngestCliTest, PytestFilesWithAndWithoutData) {
  const std::string dir = testing::MakeTempDir();
  const std::pair<const char*, const char*> pairs[] = {
      {"textops_base.json", "textops_slow.json"},
      {"textops_base_saved.json", "textops_slow_saved.json"},
      {"textops_base.json", "textops_base_rerun.json"}};
  for (const auto& [base, head] : pairs) {
    SCOPED_TRACE(std::string(base) + " vs " + head);
    const std::string json = dir + "/v.json";
    auto o = RunGpugate({"compare", std::string("tests/data/pytest/") + base,
                         std::string("tests/data/pytest/") + head, "--json", json});
    EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.out << o.err;
    Result<Verdicts> v = VerdictsFromJson(testing::ReadAll(json), json);
    ASSERT_TRUE(v.ok()) << v.error().message;
    int judged = 0;
    for (const MetricVerdict& m : v->metrics)
      if (m.workload.rfind("test_textops.py::", 0) == 0 && m.metric == "time") ++judged;
    EXPECT_EQ(judged, 6);
    if (std::string(head) == "textops_base_rerun.json") {
      // Leaving itself out, test_split_text (+87% between these two
      // processes of identical code) got ~0.5% of noise between runs while
      // the family as a whole shows ~7%: the warning states the range each
      // comparison really got, never the family's figure as a floor.
      std::string warning;
      for (const std::string& w : v->warnings)
        if (w.find("noise between runs, measured on the other workloads") != std::string::npos) warning = w;
      EXPECT_NE(warning.find("added to each comparison: 0.5"), std::string::npos) << warning;
      EXPECT_EQ(warning.find("at least"), std::string::npos) << warning;
    }
  }
  testing::RemoveTree(dir);
}

// Five custom benchmarks in ops/sec; `first` is the first one's value.
std::string CustomFile(double first) {
  std::string out = "[\n";
  const double values[] = {first, 2000, 3000, 4000, 5000};
  for (int i = 0; i < 5; ++i)
    out += std::string(i ? ",\n" : "") + "  {\"name\": \"bench " + std::to_string(i) +
           "\", \"unit\": \"ops/sec\", \"value\": " + std::to_string(values[i]) + "}";
  return out + "\n]\n";
}

TEST(CompareIngestCliTest, CustomFilesInEitherDirection) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/base.json", CustomFile(1000));
  testing::WriteAll(dir + "/head.json", CustomFile(700));
  testing::WriteAll(dir + "/threshold.yaml", "version: 1\ndefaults:\n  no_replication: threshold\n");
  // One value per side: nothing is tested by default (not judged, exit 0).
  auto plain = RunGpugate({"compare", dir + "/base.json", dir + "/head.json"});
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_NE(plain.out.find("one value per side"), std::string::npos) << plain.out;
  // On the threshold alone, smaller is better: a drop is an improvement ...
  auto smaller = RunGpugate({"compare", dir + "/base.json", dir + "/head.json", "--policy",
                             dir + "/threshold.yaml"});
  EXPECT_EQ(smaller.exit_code, 0) << smaller.out << smaller.err;
  // ... and with --bigger-is-better the same drop is a regression, shown in
  // the benchmark's own unit.
  auto bigger = RunGpugate({"compare", dir + "/base.json", dir + "/head.json", "--policy",
                            dir + "/threshold.yaml", "--bigger-is-better", "--markdown",
                            dir + "/r.md"});
  EXPECT_EQ(bigger.exit_code, 1) << bigger.out << bigger.err;
  const std::string md = testing::ReadAll(dir + "/r.md");
  EXPECT_NE(md.find("| bench 0 | value | -30.0% "), std::string::npos) << md;
  EXPECT_NE(md.find("1000 ops/sec \u2192 700 ops/sec"), std::string::npos) << md;
  // A policy can name the metric.
  testing::WriteAll(dir + "/loose.yaml",
                    "version: 1\ndefaults:\n  no_replication: threshold\n  thresholds:\n"
                    "    value: 50%\n");
  auto loose = RunGpugate({"compare", dir + "/base.json", dir + "/head.json", "--policy",
                           dir + "/loose.yaml", "--bigger-is-better"});
  EXPECT_EQ(loose.exit_code, 0) << loose.out << loose.err;
  // The real third-party files: time in ns against another file.
  auto real = RunGpugate(
      {"compare", "tests/data/custom/github-action-benchmark_customSmallerIsBetter_output.json",
       "tests/data/custom/github-action-benchmark_customSmallerIsBetter_output2.json"});
  EXPECT_EQ(real.exit_code, 0) << real.out << real.err;
  testing::RemoveTree(dir);
}

TEST(CompareIngestCliTest, HostileBenchmarkFilesExitTwoWithTheirPosition) {
  const std::string dir = testing::MakeTempDir();
  int cases = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUGATE_SOURCE_DIR) + "/tests/data/bad_ingest")) {
    if (entry.path().extension() != ".json") continue;
    // The first line "# expect: LINE:COL substring" is blanked (bad_ingest_test.cc).
    const std::string text = testing::ReadAll(entry.path().string());
    const size_t eol = text.find('\n');
    const std::string expect = text.substr(10, eol - 10);
    const std::string position = expect.substr(0, expect.find(' '));
    const std::string path = dir + "/" + entry.path().filename().string();
    testing::WriteAll(path, text.substr(eol));
    auto o = RunGpugate({"compare", path, path});
    EXPECT_EQ(o.exit_code, 2) << path << "\n" << o.out << o.err;
    EXPECT_EQ(o.err.rfind("gpugate: error: " + path + ":" + position + ": ", 0), 0u) << o.err;
    EXPECT_NE(o.err.find(expect.substr(expect.find(' ') + 1)), std::string::npos) << o.err;
    ++cases;
  }
  EXPECT_GE(cases, 27);
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate

namespace gpugate {
namespace {

TEST(PolicyCliTest, ShippedPoliciesCheckAndBadOnesFail) {
  for (const char* p : {"policies/default.yaml", "policies/strict.yaml"}) {
    auto o = testing::RunGpugate({"policy", "check", p});
    EXPECT_EQ(o.exit_code, 0) << p << o.err;
    EXPECT_NE(o.out.find("threshold"), std::string::npos) << o.out;
  }
  std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/p.yaml", "version: 1\nrules:\n  - match: '*'\n    severty: warn\n");
  auto bad = testing::RunGpugate({"policy", "check", dir + "/p.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(dir + "/p.yaml:4:5:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'severity'"), std::string::npos) << bad.err;
  testing::RemoveTree(dir);
}

// `gpugate policy FILE` gave the file where the action goes: the error names
// the action, not a missing FILE.
TEST(PolicyCliTest, AFileWithoutTheActionIsNamedAsTheUnknownAction) {
  auto o = testing::RunGpugate({"policy", "policies/default.yaml"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error: policy: unknown action 'policies/default.yaml' (expected 'check'; usage: "
                       "gpugate policy check POLICY.yaml)"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("missing the FILE argument"), std::string::npos) << o.err;
  auto no_file = testing::RunGpugate({"policy", "check"});
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("policy check: missing the FILE argument"), std::string::npos) << no_file.err;
}

}  // namespace
}  // namespace gpugate
