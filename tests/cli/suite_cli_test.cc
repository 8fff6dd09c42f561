// End-to-end tests of `run` and `validate`: the real binary, exit codes,
// messages and written files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "cli/run_binary.h"
#include "model/results_json.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

TEST(CliTest, VersionAndHelp) {
  auto v = RunGpugate({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("gpugate "), std::string::npos);
  auto h = RunGpugate({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("run"), std::string::npos);
  EXPECT_NE(h.out.find("validate"), std::string::npos);
  auto rh = RunGpugate({"run", "--help"});
  EXPECT_EQ(rh.exit_code, 0);
  EXPECT_NE(rh.out.find("--filter"), std::string::npos);
}

// In a CI log (stderr not a terminal) progress is a line as each workload
// starts and ends; -q shows none.
TEST(CliTest, ProgressInALogIsOneLinePerWorkloadStartAndEnd) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml",
                    "version: 1\nworkloads:\n  - {name: ok, kind: command, argv: [/bin/true], rounds: 1, "
                    "warmup: 0, min_samples: 1, max_samples: 1}\n  - {name: bad, kind: command, argv: [/bin/false], "
                    "rounds: 1, warmup: 0, min_samples: 1, max_samples: 1}\n");
  testing::Outcome r = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json"});
  EXPECT_NE(r.err.find("[1/2] ok ...\n[1/2] ok: ok in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/2] bad ...\n[2/2] bad: failed in "), std::string::npos) << r.err;
  testing::Outcome q = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json", "-q"});
  EXPECT_EQ(q.err.find("[1/2]"), std::string::npos) << q.err;
  testing::RemoveTree(dir);
}

TEST(CliTest, UnknownCommandSuggests) {
  auto o = RunGpugate({"rnu"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error: unknown command 'rnu' (did you mean 'run'?)"),
            std::string::npos)
      << o.err;
}

TEST(CliTest, UnknownOptionIsUsageError) {
  auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", "/dev/null", "--fitler", "x"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("gpugate: error:"), std::string::npos);
}

TEST(CliTest, ANegativeValueOfAnUnsignedOptionIsAnError) {
  // Read as unsigned, "-1" would wrap to 2^64 - 1 and run.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "examples/synthetic.yaml", "-o", "/dev/null", "--seed", "-1"},
        std::vector<std::string>{"run", "examples/synthetic.yaml", "-o", "/dev/null", "--seed=-5"},
        std::vector<std::string>{"history", "nothing.json", "--seed", "-1"}}) {
    auto o = RunGpugate(args);
    EXPECT_EQ(o.exit_code, 2) << args[0] << " " << args.back();
    EXPECT_NE(o.err.find("--seed must not be negative, got -"), std::string::npos) << o.err;
  }
}

TEST(CliTest, MissingSuiteFileIsInputError) {
  auto o = RunGpugate({"validate", "no/such/suite.yaml"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no/such/suite.yaml"), std::string::npos) << o.err;
}

// Every malformed suite in tests/data/bad_suites exits 2 naming line:col.
TEST(CliTest, BadSuitesExitTwoWithLocation) {
  namespace fs = std::filesystem;
  std::string dir = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/bad_suites";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(first, m, std::regex(R"(# expect: (\d+):(\d+) (.*))")))
        << entry.path();
    std::string rel = "tests/data/bad_suites/" + entry.path().filename().string();
    for (const char* cmd : {"validate", "run"}) {
      std::vector<std::string> args = {cmd, rel};
      if (std::string(cmd) == "run") args.insert(args.end(), {"-o", "/dev/null"});
      auto o = RunGpugate(args);
      EXPECT_EQ(o.exit_code, 2) << rel << "\n" << o.err;
      std::string want = "gpugate: error: " + rel + ":" + m[1].str() + ":" + m[2].str() + ":";
      EXPECT_EQ(o.err.rfind(want, 0), 0u) << rel << "\nwant prefix: " << want << "\ngot: " << o.err;
      EXPECT_NE(o.err.find(m[3].str()), std::string::npos) << rel << "\n" << o.err;
    }
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

TEST(CliTest, ValidateListsExpandedWorkloads) {
  auto o = RunGpugate({"validate", "examples/cpu.yaml"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("sgemm_blocked"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("triad"), std::string::npos) << o.out;
}

TEST(CliTest, RunSyntheticWritesResults) {
  std::string dir = testing::MakeTempDir();
  std::string out = dir + "/r.json";
  auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", out});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto r = ReadResultsFile(out);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GE(r->workloads.size(), 3u);
  for (const auto& w : r->workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.name << ": " << w.reason;
    EXPECT_GE(w.summary.n, w.rounds.size());
  }
  EXPECT_NE(o.out.find("workloads:"), std::string::npos);
  // No progress drawing when stderr is not a terminal.
  EXPECT_EQ(o.err.find("\r"), std::string::npos);
  testing::RemoveTree(dir);
}

TEST(CliTest, RunFilterAndShardSelect) {
  std::string dir = testing::MakeTempDir();
  auto none = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/x.json", "--filter",
                          "does-not-match*"});
  EXPECT_EQ(none.exit_code, 2);
  size_t total = 0;
  for (int i = 1; i <= 2; ++i) {
    std::string out = dir + "/s" + std::to_string(i) + ".json";
    auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", out, "--shard",
                         std::to_string(i) + "/2", "-q"});
    if (o.exit_code == 2) continue;  // an empty shard is a selection error
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto r = ReadResultsFile(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->run.shard.value_or(""), std::to_string(i) + "/2");
    total += r->workloads.size();
  }
  auto all = RunGpugate({"validate", "examples/synthetic.yaml"});
  EXPECT_NE(all.out.find(std::to_string(total) + " workloads"), std::string::npos) << all.out;
  auto bad = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/y.json", "--shard", "3/2"});
  EXPECT_EQ(bad.exit_code, 2);
  testing::RemoveTree(dir);
}

// skip_unchanged: true prints one bounded line per workload, however many
// static workloads the suite holds.
TEST(CliTest, ValidatePrintsSkipUnchangedTrueBounded) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml",
                    "version: 1\nworkloads:\n"
                    "  - {name: 's/{i}', kind: static, file: k.cubin, params: {i: [0, 1, 2, 3, 4, 5, 6]}}\n"
                    "  - {name: t, kernel: copy, skip_unchanged: true}\n"
                    "  - {name: u, kernel: copy, skip_unchanged: [s/1, s/6]}\n");
  auto v = RunGpugate({"validate", dir + "/s.yaml"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find(" skip_unchanged=true (every static workload: s/0, s/1, s/2, s/3, s/4 and 2 more)\n"),
            std::string::npos)
      << v.out;
  EXPECT_NE(v.out.find(" skip_unchanged=[s/1, s/6]\n"), std::string::npos) << v.out;
  testing::RemoveTree(dir);
}

// Workloads named "<program>/..." are found by a sorted lookup: each is
// named once per program whose name is a prefix of its own, and nothing else.
TEST(CliTest, ValidateWarnsOfEveryNameLikeABenchmarkOfAProgram) {
  const std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml",
                    "version: 1\nworkloads:\n"
                    "  - {name: p, kind: gbench, argv: [/bin/true]}\n"
                    "  - {name: p/b, kind: synthetic}\n"
                    "  - {name: pz/x, kind: synthetic}\n"
                    "  - {name: p/a/c, kind: gbench, argv: [/bin/true]}\n"
                    "  - {name: p/a/c/d, kind: synthetic}\n"
                    "  - {name: q/p/x, kind: synthetic}\n");
  auto v = RunGpugate({"validate", dir + "/s.yaml"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = v.err.find(what); at != std::string::npos; at = v.err.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("is named like a benchmark of"), 4u) << v.err;
  EXPECT_EQ(count("workload 'p/b' is named like a benchmark of the program at line 3, 'p'"), 1u) << v.err;
  EXPECT_EQ(count("workload 'p/a/c' is named like a benchmark of the program at line 3, 'p'"), 1u) << v.err;
  EXPECT_EQ(count("workload 'p/a/c/d' is named like a benchmark of the program at line 3, 'p'"), 1u) << v.err;
  EXPECT_EQ(count("workload 'p/a/c/d' is named like a benchmark of the program at line 6, 'p/a/c': if that "
                  "program reports 'd'"),
            1u)
      << v.err;
  testing::RemoveTree(dir);
}

// validate answers a selection of nothing as run does: exit 2, not a list
// of "0 selected" that passes a CI step whose run then fails.
TEST(CliTest, ValidateOfASelectionOfNothingExitsTwoLikeRun) {
  auto v = RunGpugate({"validate", "examples/synthetic.yaml", "--filter", "does-not-match*"});
  EXPECT_EQ(v.exit_code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("examples/synthetic.yaml: no workload matches the --filter/--tag/--shard selection"),
            std::string::npos)
      << v.err;
  EXPECT_EQ(v.out, "");
  auto some = RunGpugate({"validate", "examples/synthetic.yaml", "--filter", "*"});
  EXPECT_EQ(some.exit_code, 0) << some.err;
}

// A run id names the run in a history, which keeps each id once: an empty
// one (or one with controls) would make a history no command can read.
TEST(CliTest, ARunIdIsOneTokenNeverEmpty) {
  std::string dir = testing::MakeTempDir();
  for (const std::string& bad : {std::string(""), std::string("a b"), std::string("x\x1b[2J"),
                                 std::string(129, 'a')}) {
    auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/r.json", "-q",
                         "--run-id", bad});
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_NE(o.err.find("a run id is 1 to 128 letters, digits or . _ : + -"), std::string::npos)
        << o.err;
  }
  // A results file with an empty id (written by hand, or by an older
  // gpugate) is refused where it is read, before a history takes it.
  auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/r.json", "-q",
                       "--run-id", "nightly-2026.11.28+1"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::string text = testing::ReadAll(dir + "/r.json");
  const size_t at = text.find("\"run_id\": \"nightly-2026.11.28+1\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"run_id\": \"nightly-2026.11.28+1\"").size(), "\"run_id\": \"\"");
  testing::WriteAll(dir + "/empty.json", text);
  auto u = RunGpugate({"baseline", "update", "--results", dir + "/empty.json", "--baseline",
                       dir + "/h.json"});
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_NE(u.err.find("run.run_id: a run id must not be empty"), std::string::npos) << u.err;
  testing::RemoveTree(dir);
}

// GPUGATE_ENV_KEY names the runner class as --env-key does, and is checked
// alike: one that cannot be a class is an error, not a silent fallback to
// another baseline file.
TEST(CliTest, AnUnusableEnvKeyVariableIsAnError) {
  std::string dir = testing::MakeTempDir();
  auto bad = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/r.json", "-q"}, "",
                        {"GPUGATE_ENV_KEY=!!!"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("GPUGATE_ENV_KEY: runner class '!!!' has no letter or digit"),
            std::string::npos)
      << bad.err;
  auto good = RunGpugate({"run", "examples/synthetic.yaml", "-o", dir + "/r.json", "-q"}, "",
                         {"GPUGATE_ENV_KEY=CI A"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  auto r = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->run.env.runner_class.value_or(""), "ci-a");
  testing::RemoveTree(dir);
}

TEST(CliTest, TheEnvKeyVariableNamesTheClassForCompareAndBaselineUpdate) {
  // Other tools' files record no runner class: the variable names it, as
  // --env-key does (the GitHub Action passes its env-key input this way).
  std::string dir = testing::MakeTempDir();
  const std::string base = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/gbench/gbench_local_repetitions5.json";
  std::ifstream in(base);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("8.3850483106984768e+02");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 22, "8.3950483106984768e+02");  // another run of the same program
  testing::WriteAll(dir + "/current.json", text);
  auto update = RunGpugate({"baseline", "update", "--results", base, "--baseline", dir + "/bl/"}, "",
                           {"GPUGATE_ENV_KEY=CI X"});
  ASSERT_EQ(update.exit_code, 0) << update.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/bl/bm/ci-x.json")) << update.out << update.err;
  auto compare = RunGpugate({"compare", dir + "/bl/", dir + "/current.json"}, "",
                            {"GPUGATE_ENV_KEY=CI X"});
  EXPECT_NE(compare.exit_code, 2) << compare.err;
  EXPECT_EQ(compare.err.find("no baseline"), std::string::npos) << compare.err;
  EXPECT_NE(compare.out.find("ci-x.json"), std::string::npos) << compare.out;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare", dir + "/bl/", dir + "/current.json", "-q"},
        std::vector<std::string>{"baseline", "update", "--results", dir + "/current.json", "--baseline",
                                 dir + "/bl/"}}) {
    auto bad = RunGpugate(args, "", {"GPUGATE_ENV_KEY=!!!"});
    EXPECT_EQ(bad.exit_code, 2) << args[0];
    EXPECT_NE(bad.err.find("GPUGATE_ENV_KEY: runner class '!!!' has no letter or digit"),
              std::string::npos)
        << bad.err;
  }
  testing::RemoveTree(dir);
}

TEST(CliTest, OutputsAreCheckedBeforeAnyWork) {
  // A typo in -o, an output that is an input, or two outputs in one file are
  // refused before the suite runs, not after.
  std::string dir = testing::MakeTempDir();
  const std::string suite = dir + "/s.yaml";
  std::filesystem::copy_file(std::string(GPUGATE_SOURCE_DIR) + "/examples/synthetic.yaml", suite);
  const std::string before = testing::ReadAll(suite);
  auto self = RunGpugate({"run", suite, "-o", suite});
  EXPECT_EQ(self.exit_code, 2);
  EXPECT_NE(self.err.find("--output " + suite + ": that is the input " + suite), std::string::npos) << self.err;
  EXPECT_EQ(testing::ReadAll(suite), before);
  auto missing = RunGpugate({"run", suite, "-o", dir + "/no/such/r.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("the folder " + dir + "/no/such does not exist"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out.find("workload"), std::string::npos) << "the suite ran: " << missing.out;
  ASSERT_EQ(RunGpugate({"run", suite, "-o", dir + "/a.json", "-q"}).exit_code, 0);
  ASSERT_EQ(RunGpugate({"run", suite, "-o", dir + "/b.json", "-q", "--seed", "3"}).exit_code, 0);
  auto twice = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--json", dir + "/v", "--markdown", dir + "/v"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("writes that file too"), std::string::npos) << twice.err;
  // One file however spelled; /dev/null takes any number of outputs.
  auto spelled = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--json", dir + "/v.json",
                             "--markdown", dir + "/./v.json"});
  EXPECT_EQ(spelled.exit_code, 2);
  EXPECT_NE(spelled.err.find("writes that file too"), std::string::npos) << spelled.err;
  auto null = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--json", "/dev/null", "--html",
                          "/dev/null", "-q"});
  EXPECT_EQ(null.exit_code, 0) << null.err;
  // ab's results files are outputs too.
  auto ab = RunGpugate({"ab", suite, "--base", dir, "--head", dir, "--base-results", suite});
  EXPECT_EQ(ab.exit_code, 2);
  EXPECT_NE(ab.err.find("--base-results " + suite + ": that is the input"), std::string::npos) << ab.err;
  EXPECT_EQ(testing::ReadAll(suite), before);
  auto over = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--json", dir + "/a.json"});
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("that is the input " + dir + "/a.json"), std::string::npos) << over.err;
  // Two documents on stdout cannot be read apart.
  auto mixed = RunGpugate({"compare", dir + "/a.json", dir + "/b.json", "--json", "-", "--junit", "/dev/stdout"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--json -: --junit writes to stdout too"), std::string::npos) << mixed.err;
  EXPECT_EQ(mixed.out, "");
  // history reads a baseline: its report must not replace it.
  ASSERT_EQ(RunGpugate({"baseline", "update", "-r", dir + "/a.json", "-b", dir + "/h.json"}).exit_code, 0);
  const std::string history = testing::ReadAll(dir + "/h.json");
  for (const std::string& target : {dir + "/h.json", dir + "/./h.json"}) {
    auto h = RunGpugate({"history", dir + "/h.json", "--json", target});
    EXPECT_EQ(h.exit_code, 2) << target;
    EXPECT_NE(h.err.find("that is the input"), std::string::npos) << h.err;
  }
  EXPECT_EQ(testing::ReadAll(dir + "/h.json"), history);
  auto nodir = RunGpugate({"history", dir + "/h.json", "--json", dir + "/no/h.json"});
  EXPECT_EQ(nodir.exit_code, 2);
  EXPECT_EQ(nodir.out, "");
  // A history is a file, not a stream.
  auto dash = RunGpugate({"baseline", "update", "-r", dir + "/b.json", "-b", "-"});
  EXPECT_EQ(dash.exit_code, 2);
  EXPECT_NE(dash.err.find("--baseline -: a history is a file"), std::string::npos) << dash.err;
  // analyze's outputs: its trace, its other outputs, a dangling symlink to another output.
  const std::string trace = dir + "/t.json";
  std::filesystem::copy_file(std::string(GPUGATE_SOURCE_DIR) + "/tests/data/traces/kineto_simple_add_a100.json", trace);
  const std::string trace_text = testing::ReadAll(trace);
  for (const char* option : {"--json", "--markdown", "--html", "--timeline", "--memory"}) {
    auto a = RunGpugate({"analyze", trace, option, trace});
    EXPECT_EQ(a.exit_code, 2) << option;
    EXPECT_NE(a.err.find("that is the input"), std::string::npos) << option << a.err;
  }
  EXPECT_EQ(testing::ReadAll(trace), trace_text);
  // A trace of an analysed folder, however named (.json.gz, a symlink to
  // one outside), is an input; reports are all or none.
  std::filesystem::create_directory(dir + "/ranks");
  std::filesystem::copy_file(trace, dir + "/ranks/rank0.json");
  std::filesystem::create_symlink(trace, dir + "/ranks/rank1.json");
  auto gz = RunGpugate({"analyze", dir + "/ranks", "--json", dir + "/ranks/rank2.json.gz"});
  EXPECT_EQ(gz.exit_code, 2);
  EXPECT_NE(gz.err.find("inside the input folder"), std::string::npos) << gz.err;
  auto outside = RunGpugate({"analyze", dir + "/ranks", "--json", trace});
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("rank1.json in the input folder"), std::string::npos) << outside.err;
  EXPECT_EQ(testing::ReadAll(trace), trace_text);
  testing::WriteAll(dir + "/keep.json", "old");
  auto full = RunGpugate({"analyze", trace, "--json", dir + "/keep.json", "--markdown", "/dev/full"});
  EXPECT_EQ(full.exit_code, 3) << full.err;
  EXPECT_EQ(testing::ReadAll(dir + "/keep.json"), "old");
  std::filesystem::create_symlink(dir + "/later.json", dir + "/link.json");
  auto linked = RunGpugate({"analyze", trace, "--json", dir + "/later.json", "--markdown", dir + "/link.json"});
  EXPECT_EQ(linked.exit_code, 2);
  EXPECT_NE(linked.err.find("writes that file too"), std::string::npos) << linked.err;
  testing::RemoveTree(dir);
}

// An empty output name, and a site folder that is a file or under a file,
// are refused before any work (exit 2), not after it (exit 3).
TEST(CliTest, EmptyOutputNamesAndSiteFoldersAreCheckedBeforeAnyWork) {
  const std::string dir = testing::MakeTempDir();
  const std::string history = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/hostile/ok_baseline.json";
  auto empty_json = RunGpugate({"history", history, "--json", ""});
  EXPECT_EQ(empty_json.exit_code, 2);
  EXPECT_NE(empty_json.err.find("gpugate: error: --json '': an empty name; name a file"), std::string::npos)
      << empty_json.err;
  EXPECT_EQ(empty_json.out, "");
  auto empty_site = RunGpugate({"dashboard", history, "-o", "", "-q"});
  EXPECT_EQ(empty_site.exit_code, 2);
  EXPECT_NE(empty_site.err.find("--output '': an empty name; name a folder"), std::string::npos) << empty_site.err;
  testing::WriteAll(dir + "/afile", "x");
  for (const std::string& site : {dir + "/afile", dir + "/afile/site"}) {
    auto o = RunGpugate({"dashboard", history, "-o", site, "-q"});
    EXPECT_EQ(o.exit_code, 2) << site << ": " << o.err;
    EXPECT_NE(o.err.find("is a file, not a folder"), std::string::npos) << o.err;
  }
  EXPECT_EQ(testing::ReadAll(dir + "/afile"), "x");
  // A dangling link, as the site or on its way, is said before any work.
  std::filesystem::create_symlink(dir + "/gone", dir + "/link");
  for (const std::string& site : {dir + "/link", dir + "/link/site", dir + "/link/../site"}) {
    auto o = RunGpugate({"dashboard", history, "-o", site, "-q"});
    EXPECT_EQ(o.exit_code, 2) << site << ": " << o.err;
    EXPECT_NE(o.err.find(dir + "/link is a symbolic link to " + dir + "/gone, which does not exist"),
              std::string::npos)
        << o.err;
  }
  auto fresh = RunGpugate({"dashboard", history, "-o", dir + "/new/site", "-q"});
  EXPECT_EQ(fresh.exit_code, 0) << fresh.err;  // missing folders are created
  EXPECT_TRUE(std::filesystem::exists(dir + "/new/site/index.html"));
  testing::RemoveTree(dir);
}

TEST(CliTest, ShardsOfOneRunIdMerge) {
  std::string dir = testing::MakeTempDir();
  std::vector<std::string> merge_args = {"merge"};
  for (int i = 1; i <= 2; ++i) {
    std::string out = dir + "/s" + std::to_string(i) + ".json";
    auto o = RunGpugate({"run", "examples/synthetic.yaml", "-o", out, "-q", "--shard",
                         std::to_string(i) + "/2", "--run-id", "ci-42"});
    ASSERT_EQ(o.exit_code, 0) << o.err;
    auto r = ReadResultsFile(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->run.run_id, "ci-42");
    merge_args.push_back(out);
  }
  merge_args.insert(merge_args.end(), {"-o", dir + "/all.json"});
  auto m = RunGpugate(merge_args);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  auto all = ReadResultsFile(dir + "/all.json");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->workloads.size(), 6u);
  testing::RemoveTree(dir);
}

TEST(CliTest, FailingCommandWorkloadExitsThreeAndIsRecorded) {
  std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/s.yaml",
                    "version: 1\n"
                    "defaults: {warmup: 0, min_samples: 2, max_samples: 2, rounds: 1, min_time: 0s}\n"
                    "workloads:\n"
                    "  - name: ok\n    kind: command\n    argv: [/bin/true]\n"
                    "  - name: fails\n    kind: command\n    argv: [/bin/sh, -c, 'echo boom >&2; exit 7']\n");
  auto o = RunGpugate({"run", dir + "/s.yaml", "-o", dir + "/r.json"});
  EXPECT_EQ(o.exit_code, 3) << o.err;
  auto r = ReadResultsFile(dir + "/r.json");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->workloads.size(), 2u);
  EXPECT_EQ(r->workloads[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(r->workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_NE(r->workloads[1].reason.find("boom"), std::string::npos) << r->workloads[1].reason;
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
