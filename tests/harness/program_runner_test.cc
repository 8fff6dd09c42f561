// Benchmark programs as workloads (harness/program_runner.h): the command line
// gpugate builds, the exact-name filter of re-runs, how processes merge into
// rounds (through a fake executor and a fake clock), and real processes: the
// example Google Benchmark program, a crash, a program that writes no JSON.
#include "harness/program_runner.h"
#include "harness/runner.h"

#include <gtest/gtest.h>
#include <regex.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "model/results_json.h"

namespace gpugate {
namespace {

WorkloadSpec Gbench(std::vector<std::string> argv) {
  WorkloadSpec s;
  s.name = "prog";
  s.kind = WorkloadKind::kGbench;
  s.argv = std::move(argv);
  s.sampling.rounds = 3;
  s.sampling.timeout = 30;
  s.sampling.max_time = 1000;
  return s;
}

class FakeClock final : public Clock {
 public:
  double Now() override { return now; }
  double now = 0;
};

WorkloadResult Bench(const std::string& name, std::vector<double> samples) {
  WorkloadResult w;
  w.name = name;
  w.kind = "gbench";
  w.backend = "ingest";
  for (double s : samples) w.rounds.push_back({s});  // ingest: one round per repetition
  w.counters["gbench_repetitions"] = static_cast<double>(samples.size());
  if (samples.size() == 1) w.counters["single_sample"] = 1;
  return w;
}

TEST(ProgramArgvTest, GbenchAddsSelectionAndOutput) {
  WorkloadSpec s = Gbench({"/b/kernels", "--benchmark_enable_random_interleaving=true"});
  s.filter = "BM_Sort.*";
  s.repetitions = 3;
  s.program_min_time = 0.05;
  EXPECT_EQ(ProgramArgv(s, "/t/out.json"),
            (std::vector<std::string>{"/b/kernels", "--benchmark_enable_random_interleaving=true",
                                      "--benchmark_filter=BM_Sort.*", "--benchmark_repetitions=3",
                                      "--benchmark_min_time=0.05", "--benchmark_out=/t/out.json",
                                      "--benchmark_out_format=json"}));
  s.only_benchmarks = {"BM_Sort/8", "BM_Sort/64"};
  EXPECT_EQ(ProgramArgv(s, "/t/o.json")[2], "--benchmark_filter=^(BM_Sort/8|BM_Sort/64)$");
  s.only_benchmarks = {"BM_x[1]{2}"};
  EXPECT_EQ(ProgramArgv(s, "/t/o.json")[2], "--benchmark_filter=^(BM_x\\[1[]]\\{2[}])$");
}

TEST(ProgramArgvTest, NvbenchSelectsBenchmarksAndAxes) {
  WorkloadSpec s = Gbench({"/b/nvbench_prog"});
  s.kind = WorkloadKind::kNvbench;
  s.benchmarks = {"copy", "triad"};
  s.axes = {"Elements=[1024,4096]"};
  EXPECT_EQ(ProgramArgv(s, "/t/out.json"),
            (std::vector<std::string>{"/b/nvbench_prog", "--benchmark", "copy", "--axis",
                                      "Elements=[1024,4096]", "--benchmark", "triad", "--axis",
                                      "Elements=[1024,4096]", "--jsonbin", "/t/out.json"}));
  s.benchmarks.clear();
  EXPECT_EQ(ProgramArgv(s, "/t/out.json"),
            (std::vector<std::string>{"/b/nvbench_prog", "--axis", "Elements=[1024,4096]",
                                      "--jsonbin", "/t/out.json"}));
}

TEST(ExactNamesFilterTest, MatchesExactlyTheNamesAndNothingElse) {
  const std::vector<std::string> names = {"BM_a/8", "BM_b<int>(2)", "x.y*z+[q]{1}|^$\\?"};
  const std::string filter = ExactNamesFilter(names);
  // Google Benchmark compiles the filter as a POSIX extended regex, with
  // std::regex or regcomp depending on the build: both must read it.
  const std::regex re(filter, std::regex::extended);
  regex_t posix;
  ASSERT_EQ(regcomp(&posix, filter.c_str(), REG_EXTENDED | REG_NOSUB), 0) << filter;
  for (const std::string& n : names) {
    EXPECT_TRUE(std::regex_search(n, re)) << n;
    EXPECT_EQ(regexec(&posix, n.c_str(), 0, nullptr, 0), 0) << n;
  }
  for (const char* other : {"BM_a/80", "xBM_a/8", "BM_b<int>2", "xxyyz+[q]{1}|^$\\?", "BM_a"}) {
    EXPECT_FALSE(std::regex_search(std::string(other), re)) << other;
    EXPECT_NE(regexec(&posix, other, 0, nullptr, 0), 0) << other;
  }
  regfree(&posix);
}

TEST(ProgramBenchmarkOfTest, SplitsTheSpecName) {
  WorkloadSpec s = Gbench({"/b/k"});
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog/BM_x/8"), "BM_x/8");
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog2/BM_x"), std::nullopt);
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog/"), std::nullopt);
  s.kind = WorkloadKind::kNvbench;
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog/copy/Elements=1024"), "copy");
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog/copy [dev1]"), "copy");
  s.kind = WorkloadKind::kCommand;
  EXPECT_EQ(ProgramBenchmarkOf(s, "prog/BM_x"), std::nullopt);
}

TEST(RunProgramWorkloadTest, EachProcessIsOneRoundOfEveryBenchmark) {
  FakeClock clock;
  int calls = 0;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ++calls;
    ProgramProcess p;
    p.benchmarks = {Bench("BM_a", {1e-6 * calls, 1.1e-6 * calls}), Bench("BM_b", {2e-6, 2.2e-6})};
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  EXPECT_EQ(calls, 3);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "prog/BM_a");
  EXPECT_EQ(out[1].name, "prog/BM_b");
  for (const WorkloadResult& w : out) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk);
    EXPECT_EQ(w.kind, "gbench");
    EXPECT_EQ(w.backend, "process");
    ASSERT_EQ(w.rounds.size(), 3u);
    for (const auto& r : w.rounds) EXPECT_EQ(r.size(), 2u);
    EXPECT_EQ(w.counters.at("processes"), 3);
    EXPECT_EQ(w.counters.count("single_sample"), 0u);
    EXPECT_EQ(w.summary.n, 6);
  }
  EXPECT_DOUBLE_EQ(out[0].rounds[2][0], 3e-6);
}

TEST(RunProgramWorkloadTest, FirstProcessFailingIsOneFailedWorkload) {
  FakeClock clock;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ProgramProcess p;
    p.failure = "'/b/k' killed by signal SIGSEGV (11)";
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "prog");
  EXPECT_EQ(out[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(out[0].reason, "process 1 of 3: '/b/k' killed by signal SIGSEGV (11)");
}

TEST(RunProgramWorkloadTest, LaterFailureAndVanishedBenchmarkFailTheirWorkloads) {
  FakeClock clock;
  int calls = 0;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ++calls;
    ProgramProcess p;
    p.benchmarks = {Bench("BM_a", {1e-6})};
    if (calls == 1) p.benchmarks.push_back(Bench("BM_gone", {1e-6}));
    if (calls == 3) p.failure = "'/b/k' exited with status 2";
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(out[0].reason, "process 3 of 3: '/b/k' exited with status 2");
  EXPECT_EQ(out[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(out[1].reason, "process 2 did not report this benchmark, which earlier processes did");
}

// The converse: a benchmark first reported by a later process has fewer
// rounds than its siblings, from other processes; it fails, as in ab.
TEST(RunProgramWorkloadTest, ABenchmarkALaterProcessAddsFailsItsWorkload) {
  FakeClock clock;
  int calls = 0;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ++calls;
    ProgramProcess p;
    p.benchmarks = {Bench("BM_a", {1e-6})};
    if (calls >= 2) p.benchmarks.push_back(Bench("BM_late", {1e-6}));
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(out[0].rounds.size(), 3u);
  EXPECT_EQ(out[1].name, "prog/BM_late");
  EXPECT_EQ(out[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(out[1].reason, "process 2 reported this benchmark, which earlier processes did not");
}

// ab runs one process per side and round: a failure carries the round's
// number, as its other messages do, not "process 1 of 1".
TEST(RunProgramWorkloadTest, AFailureIsNamedByTheNumberingItIsGiven) {
  FakeClock clock;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ProgramProcess p;
    p.failure = "'/b/k' timed out after 5.0s";
    return p;
  };
  WorkloadSpec one = Gbench({"/b/k"});
  one.sampling.rounds = 1;
  std::vector<WorkloadResult> out = RunProgramWorkload(one, nullptr, clock, exec, {"round", 3, 6});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(out[0].reason, "round 3 of 6: '/b/k' timed out after 5.0s");
}

TEST(RunProgramWorkloadTest, SkippedBenchmarkKeepsTheProgramsReason) {
  FakeClock clock;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ProgramProcess p;
    WorkloadResult skipped = Bench("BM_gpu", {});
    skipped.status = WorkloadStatus::kSkipped;
    skipped.reason = "no CUDA device";
    p.benchmarks = {Bench("BM_a", {1e-6}), skipped};
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(out[1].status, WorkloadStatus::kSkipped);
  EXPECT_EQ(out[1].reason, "no CUDA device");
}

TEST(RunProgramWorkloadTest, MaxTimeStopsAfterTwoProcesses) {
  FakeClock clock;
  int calls = 0;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ++calls;
    clock.now += 10;  // each process takes 10 s
    ProgramProcess p;
    p.benchmarks = {Bench("BM_a", {1e-6})};
    return p;
  };
  WorkloadSpec s = Gbench({"/b/k"});
  s.sampling.rounds = 10;
  s.sampling.max_time = 5;
  std::vector<WorkloadResult> out = RunProgramWorkload(s, nullptr, clock, exec);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rounds.size(), 2u);
}

TEST(RunProgramWorkloadTest, NoBenchmarkReportedIsAFailure) {
  FakeClock clock;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) { return ProgramProcess{}; };
  WorkloadSpec s = Gbench({"/b/k"});
  s.filter = "BM_nothing";
  std::vector<WorkloadResult> out = RunProgramWorkload(s, nullptr, clock, exec);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kFailed);
  EXPECT_NE(out[0].reason.find("reported no benchmark (filter 'BM_nothing' matched none?)"),
            std::string::npos);
}

TEST(RunProgramWorkloadTest, ASuiteParamTheProgramAlsoGivesIsOneEntryAndAnotherValueIsKeptBesideIt) {
  // `name: copy/{Elements}`, `params: {Elements: [1024]}`, argv `--axis
  // Elements=[{Elements}]`: nvbench gives the axis as a param of that name.
  // Written twice, the results file was refused and the whole run lost;
  // failing the benchmark whose value differed failed real suites whose
  // values were one in other spellings (0.50 and nvbench's 0.5, a pow2
  // axis's 10 and 1024, True and pytest's true).
  FakeClock clock;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ProgramProcess p;
    WorkloadResult same = Bench("copy/Elements=1024", {1e-6});
    same.params = {{"Elements", "1024"}, {"Block", "256"}};
    WorkloadResult other = Bench("copy/Elements=2048", {2e-6});
    other.params = {{"Elements", "2048"}};
    p.benchmarks = {same, other};
    return p;
  };
  WorkloadSpec s = Gbench({"/b/nv"});
  s.kind = WorkloadKind::kNvbench;
  s.name = "copy/1024";
  s.params = {{"Elements", "1024"}};
  std::vector<WorkloadResult> out = RunProgramWorkload(s, nullptr, clock, exec);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, WorkloadStatus::kOk) << out[0].reason;
  EXPECT_EQ(out[0].params, (std::vector<std::pair<std::string, std::string>>{{"Elements", "1024"}, {"Block", "256"}}));
  EXPECT_EQ(out[0].rounds.size(), 3u);
  EXPECT_EQ(out[1].status, WorkloadStatus::kOk) << out[1].reason;
  EXPECT_EQ(out[1].params, (std::vector<std::pair<std::string, std::string>>{{"Elements", "1024"},
                                                                             {"Elements (program)", "2048"}}));
  // Every key once: the results file is written, the other workloads with it.
  Results r;
  r.workloads = out;
  EXPECT_EQ(RepeatedKeyProblem(r), std::nullopt);
}

TEST(RunProgramWorkloadTest, APytestResultsFilesParamsMergeWithTheSuitesAsAProgramsDo) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("gpugate-params-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "src.json") << R"js({"machine_info": {}, "benchmarks": [
      {"name": "test_a", "params": {"n": 10, "mode": "fast"}, "stats": {"rounds": 1, "median": 0.001}},
      {"name": "test_b", "params": {"n": 20}, "stats": {"rounds": 1, "median": 0.002}},
      {"name": "test_c", "params": {"n (program)": 2, "n": 1}, "stats": {"rounds": 1, "median": 0.003}},
      {"name": "test_d", "params": {"n": 1, "n (program)": 2}, "stats": {"rounds": 1, "median": 0.004}}]})js";
  }
  WorkloadSpec s;
  s.name = "py";
  s.kind = WorkloadKind::kCommand;
  s.argv = {"/bin/sh", "-c", "cp src.json out.json"};
  s.cwd = dir.string();
  s.results = "out.json";
  s.params = {{"n", "10"}};
  s.sampling.rounds = 1;
  s.sampling.timeout = 30;
  s.sampling.max_time = 1000;
  std::vector<WorkloadResult> out = RunProgramWorkload(s, nullptr, ProcessNumbering{});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(out.size(), 4u) << out[0].reason;
  EXPECT_EQ(out[0].name, "py/test_a");
  EXPECT_EQ(out[0].status, WorkloadStatus::kOk) << out[0].reason;
  EXPECT_EQ(out[0].params, (std::vector<std::pair<std::string, std::string>>{{"n", "10"}, {"mode", "fast"}}));
  EXPECT_EQ(out[1].status, WorkloadStatus::kOk) << out[1].reason;
  EXPECT_EQ(out[1].params, (std::vector<std::pair<std::string, std::string>>{{"n", "10"}, {"n (program)", "20"}}));
  // "n (program)" holds the program's n whatever the order of its keys; a
  // key of the program's own that reads so takes one more suffix.
  for (int i : {2, 3}) {
    EXPECT_EQ(out[i].params, (std::vector<std::pair<std::string, std::string>>{
                                 {"n", "10"}, {"n (program)", "1"}, {"n (program) (program)", "2"}}))
        << out[i].name;
  }
  Results r;
  r.workloads = out;
  EXPECT_EQ(RepeatedKeyProblem(r), std::nullopt);
}

// ---- real processes ---------------------------------------------------------

// A Google Benchmark stand-in that reports `count` benchmarks named by `stem`.
std::string ManyBenchmarksProgram(const std::string& dir, const std::string& stem, int count) {
  std::string rows;
  for (int i = 0; i < count; ++i)
    rows += std::string(i ? "," : "") + "{\"name\":\"" + stem + std::to_string(i) +
            "\",\"run_type\":\"iteration\",\"repetitions\":1,\"repetition_index\":0,\"threads\":1,"
            "\"iterations\":100,\"real_time\":1.0,\"cpu_time\":1.0,\"time_unit\":\"ns\"}";
  const std::string path = dir + "/" + stem + ".sh";
  std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --benchmark_out=*) "
                         "out=\"${a#--benchmark_out=}\";; esac; done\nprintf '%s' '{\"benchmarks\":["
                      << rows << "]}' > \"$out\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

// Programs name their benchmarks after the suite was held to the results
// file's limit: one whose benchmarks would pass it fails, with room kept for
// every workload after it, so the run never writes a file no reader takes.
TEST(RunSuiteProgramsTest, BenchmarksPastTheResultsLimitFailTheirProgram) {
  char tmpl[] = "/tmp/gpugate_limit_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::vector<WorkloadSpec> specs;
  for (const auto& [stem, count] : {std::pair{"a", 3}, std::pair{"b", 3}, std::pair{"c", 2}}) {
    WorkloadSpec s = Gbench({ManyBenchmarksProgram(dir, stem, count)});
    s.name = stem;
    s.sampling.rounds = 1;
    specs.push_back(s);
  }
  RunOptions options;
  options.max_workloads = 6;  // a: 3, then b's 3 would leave no room for c; c's 2 fit after b failed
  Suite suite;
  suite.name = "limit";
  const Results r = RunSuite(suite, specs, options);
  ASSERT_EQ(r.workloads.size(), 6u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.workloads[static_cast<size_t>(i)].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[3].name, "b");
  EXPECT_EQ(r.workloads[3].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[3].reason,
            "it reported 3 benchmarks, which with the 3 results before it and the 1 workloads after it exceed "
            "the 6 workloads a results file holds: split the suite into suites of fewer workloads, or select "
            "benchmarks with the workload's filter");
  EXPECT_EQ(r.workloads[4].name, "c/c0");
  EXPECT_EQ(r.workloads[4].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[5].status, WorkloadStatus::kOk);
  std::filesystem::remove_all(dir);
}

TEST(RunProgramOnceTest, CrashAndNonZeroExitAreFailuresWithStderr) {
  WorkloadSpec s = Gbench({"/bin/sh", "-c", "echo broken >&2; exit 3"});
  ProgramProcess p = RunProgramOnce(s, 10);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("exited with status 3"), std::string::npos) << *p.failure;
  EXPECT_NE(p.failure->find("broken"), std::string::npos) << *p.failure;
  s.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  p = RunProgramOnce(s, 10);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("SIGSEGV"), std::string::npos) << *p.failure;
}

TEST(RunProgramOnceTest, NoJsonAndBrokenJsonAreFailures) {
  ProgramProcess p = RunProgramOnce(Gbench({"/bin/true"}), 10);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("wrote no JSON (is it a Google Benchmark program?)"), std::string::npos)
      << *p.failure;
  // Writes "{bad" to the --benchmark_out file.
  p = RunProgramOnce(Gbench({"/bin/sh", "-c",
                             "for a; do case $a in --benchmark_out=*) printf '{bad' > \"${a#--benchmark_out=}\";; "
                             "esac; done", "sh"}),
                     10);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("unreadable JSON: prog (JSON of '/bin/sh'):1:"), std::string::npos) << *p.failure;
  // A JSON it wrote that cannot be read as it is (here a link to a device,
  // not a regular file) is that reason, not "wrote no JSON".
  p = RunProgramOnce(Gbench({"/bin/sh", "-c",
                             "for a; do case $a in --benchmark_out=*) ln -sf /dev/zero \"${a#--benchmark_out=}\";; "
                             "esac; done", "sh"}),
                     10);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.failure->find("wrote no JSON"), std::string::npos) << *p.failure;
  EXPECT_NE(p.failure->find("exited 0, but its JSON cannot be read: "), std::string::npos) << *p.failure;
  EXPECT_NE(p.failure->find("not a regular file"), std::string::npos) << *p.failure;
}

// The program of a gbench workload is found on the workload's PATH.
TEST(RunProgramOnceTest, BareProgramIsFoundOnTheWorkloadsPath) {
  char tmpl[] = "/tmp/gpugate-program-path-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir = tmpl;
  {
    std::ofstream script(dir / "true");
    script << "#!/bin/sh\necho from-newbin >&2\nexit 5\n";
  }
  std::filesystem::permissions(dir / "true", std::filesystem::perms::owner_all);
  WorkloadSpec s = Gbench({"true"});
  s.env = {{"PATH", dir.string() + ":/usr/bin:/bin"}};
  ProgramProcess p = RunProgramOnce(s, 10);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("exited with status 5"), std::string::npos) << *p.failure;
  EXPECT_NE(p.failure->find("from-newbin"), std::string::npos) << *p.failure;
}

// An empty JSON file comes from a filter that matches nothing or from a
// write that failed (Google Benchmark does not check it): both are named,
// and a full folder is said.
TEST(RunProgramOnceTest, AnEmptyJsonNamesTheFilterAndAFailedWrite) {
  ProgramProcess p = RunProgramOnce(
      Gbench({"/bin/sh", "-c",
              "for a; do case $a in --benchmark_out=*) : > \"${a#--benchmark_out=}\";; esac; done", "sh"}),
      10);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("exited 0 but reported no benchmark (an empty JSON file: the filter matches none, "
                            "or the program could not write it"),
            std::string::npos)
      << *p.failure;
  EXPECT_EQ(detail::EmptyJsonReason("/b/k", "/tmp", int64_t{12} << 10),
            "'/b/k' exited 0 but reported no benchmark (an empty JSON file: the filter matches none, or the "
            "program could not write it, and the file system of '/tmp' is full (12.0 KiB free))");
  EXPECT_EQ(detail::EmptyJsonReason("/b/k", "/tmp", int64_t{5} << 30).find("full"), std::string::npos);
  EXPECT_EQ(detail::EmptyJsonReason("/b/k", "/tmp", std::nullopt).find("full"), std::string::npos);
  EXPECT_TRUE(detail::FreeBytes("/"));
  EXPECT_FALSE(detail::FreeBytes("/no/such/folder"));
}

TEST(RunProgramOnceTest, TimeoutKillsTheProgram) {
  ProgramProcess p = RunProgramOnce(Gbench({"/bin/sh", "-c", "sleep 30", "sh"}), 0.3);
  ASSERT_TRUE(p.failure);
  EXPECT_NE(p.failure->find("timed out after 300 ms"), std::string::npos) << *p.failure;
}

TEST(RunProgramWorkloadTest, LeftoversOfTheProcessesAreANoteOnEveryBenchmark) {
  FakeClock clock;
  int calls = 0;
  ProgramExecutor exec = [&](const WorkloadSpec&, double) {
    ++calls;
    ProgramProcess p;
    p.benchmarks = {Bench("BM_a", {1e-6}), Bench("BM_b", {2e-6})};
    if (calls == 2) p.leftovers.ended = {4242};
    return p;
  };
  std::vector<WorkloadResult> out = RunProgramWorkload(Gbench({"/b/k"}), nullptr, clock, exec);
  ASSERT_EQ(out.size(), 2u);
  for (const WorkloadResult& w : out)
    EXPECT_EQ(w.notes, (std::vector<std::string>{
                           "ended 1 process the workload left behind in 1 of 3 executions (pids 4242)"}));
}

TEST(RunProgramOnceTest, ABackgroundChildOfTheProgramIsEnded) {
  // Writes "{bad" as its JSON and leaves a sleeper behind: the failure is
  // the JSON's, and the sleeper was ended all the same.
  ProgramProcess p = RunProgramOnce(
      Gbench({"/bin/sh", "-c",
              "sleep 30 & for a; do case $a in --benchmark_out=*) printf '{bad' > \"${a#--benchmark_out=}\";; "
              "esac; done", "sh"}),
      10);
  ASSERT_TRUE(p.failure);
  EXPECT_EQ(p.leftovers.ended.size(), 1u);
  EXPECT_EQ(p.leftovers.needed_sigkill, 0);
}

#ifdef GPUGATE_GBENCH_EXAMPLE_DIR
TEST(RunProgramWorkloadTest, RunsTheExampleGoogleBenchmarkProgram) {
  WorkloadSpec s = Gbench({std::string(GPUGATE_GBENCH_EXAMPLE_DIR) + "/base/gbench_kernels"});
  s.filter = "BM_(HashChain|StringAppend)";
  s.repetitions = 2;
  s.program_min_time = 0.01;
  s.sampling.rounds = 2;
  std::vector<WorkloadResult> out = RunProgramWorkload(s);
  ASSERT_EQ(out.size(), 2u) << (out.empty() ? "" : out[0].reason);
  EXPECT_EQ(out[0].name, "prog/BM_HashChain/4096");
  EXPECT_EQ(out[1].name, "prog/BM_StringAppend/256");
  for (const WorkloadResult& w : out) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
    ASSERT_EQ(w.rounds.size(), 2u);
    EXPECT_EQ(w.rounds[0].size(), 2u);
    EXPECT_GT(w.summary.median, 0);
    EXPECT_LT(w.summary.median, 1e-3);
  }
  // A re-run of one benchmark by exact name.
  s.only_benchmarks = {"BM_StringAppend/256"};
  s.sampling.rounds = 1;
  out = RunProgramWorkload(s);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "prog/BM_StringAppend/256");
}
#endif

}  // namespace
}  // namespace gpugate
