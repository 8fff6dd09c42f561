// End-to-end tests of the CI lifecycle commands with the real binary:
// baseline update/show/prune, history, merge of shards, and ab on the
// synthetic backend (A/A passes, a 30% slowdown fails with exit 1).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using testing::RunGpugate;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const char* kSuite = R"(version: 1
name: life
defaults: {warmup: 0, min_samples: 30, max_samples: 30, min_time: 0, rounds: 5}
workloads:
  - name: syn/{id}
    kind: synthetic
    params: {id: [a, b, c, d]}
    synthetic: {median: 1ms, cv: 1%, slowdown: SLOWDOWN, seed: 3}
)";

std::string Suite(const std::string& slowdown) {
  std::string s = kSuite;
  s.replace(s.find("SLOWDOWN"), 8, slowdown);
  return s;
}

class LifecycleCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    testing::WriteAll(dir_ + "/same.yaml", Suite("1.0"));
    testing::WriteAll(dir_ + "/slow.yaml", Suite("1.3"));
  }
  void TearDown() override { testing::RemoveTree(dir_); }
  testing::Outcome Run(const std::vector<std::string>& args) { return RunGpugate(args, dir_); }
  std::string dir_;
};

TEST_F(LifecycleCliTest, BaselineUpdateShowPruneHistory) {
  for (int i = 1; i <= 7; ++i) {
    std::string r = "r" + std::to_string(i) + ".json";
    ASSERT_EQ(Run({"run", "same.yaml", "-o", r, "-q", "--seed", std::to_string(i)}).exit_code, 0);
    auto up = Run({"baseline", "update", "--results", r, "--baseline", "baselines/", "--keep", "6"});
    ASSERT_EQ(up.exit_code, 0) << up.err;
    EXPECT_NE(up.out.find("baselines/life/"), std::string::npos) << up.out;
  }
  auto show_dir = Run({"baseline", "show", "baselines"});
  EXPECT_EQ(show_dir.exit_code, 2);  // a folder is not a baseline file
  // Find the file: the only one under baselines/life/.
  auto up = Run({"baseline", "update", "--results", "r7.json", "--baseline", "baselines/", "--keep", "6"});
  EXPECT_EQ(up.exit_code, 2);  // the same run twice
  EXPECT_NE(up.err.find("already in the baseline"), std::string::npos) << up.err;
  std::string path = up.err.substr(up.err.find("baselines/life/"));
  path = path.substr(0, path.find(".json") + 5);
  auto show = Run({"baseline", "show", path});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("6 runs"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("between-run CV"), std::string::npos);
  auto hist = Run({"history", path, "--json", "h.json"});
  ASSERT_EQ(hist.exit_code, 0) << hist.err;
  EXPECT_NE(hist.out.find("0 of 4 workloads with step changes"), std::string::npos) << hist.out;
  // Six runs are tested, but no step in six can reach alpha 0.01: it says so.
  EXPECT_NE(hist.out.find("4 with fewer than 11 runs: too few runs to find a step reliably at alpha 0.01"),
            std::string::npos)
      << hist.out;
  EXPECT_NE(testing::ReadAll(dir_ + "/h.json").find("\"min_runs_for_a_step\": 11"), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir_ + "/h.json").find("\"gpugate/history/v1\""), std::string::npos);
  EXPECT_NE(testing::ReadAll(dir_ + "/h.json").find("\"value_runs\""), std::string::npos);
  // On stdout the JSON is all there is.
  auto piped = Run({"history", path, "--json", "-"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out.rfind("{", 0), 0u) << piped.out.substr(0, 200);
  EXPECT_EQ(piped.out.find("with step changes"), std::string::npos);
  // A history is not one run's results: its newest run alone would be taken.
  auto from_history = Run({"baseline", "update", "--results", path, "--baseline", "copy.json"});
  EXPECT_EQ(from_history.exit_code, 2);
  EXPECT_NE(from_history.err.find("a baseline history of 6 runs, not the results of one run"), std::string::npos)
      << from_history.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/copy.json"));
  // Nor is it a current run of compare: with the arguments swapped, its
  // newest run would be judged against the new results, backwards.
  auto swapped = Run({"compare", "r7.json", path, "-q"});
  EXPECT_EQ(swapped.exit_code, 2) << swapped.out;
  EXPECT_NE(swapped.err.find("a baseline history (6 runs) given as a current run: the baseline comes first"),
            std::string::npos)
      << swapped.err;
  EXPECT_EQ(Run({"compare", path, "r7.json", "-q"}).exit_code, 0);
  auto prune = Run({"baseline", "prune", path, "--keep", "2"});
  ASSERT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_NE(prune.out.find("4 runs dropped, 2 kept"), std::string::npos) << prune.out;
  EXPECT_EQ(Run({"baseline", "prune", path, "--keep", "0"}).exit_code, 2);
  EXPECT_EQ(Run({"baseline", "updte"}).exit_code, 2);
  EXPECT_EQ(Run({"history", "r1.json"}).exit_code, 2);  // a results file is not a history
}

// A run's sha and time come from its results file: history cuts them at a
// code point and escapes them, so no escape sequence reaches the terminal
// and no line of stdout starts a workflow command.
TEST_F(LifecycleCliTest, HistoryEscapesTheShaAndTimeOfARun) {
  for (int i = 1; i <= 12; ++i) {
    ASSERT_EQ(Run({"run", i <= 6 ? "same.yaml" : "slow.yaml", "-o", "r.json", "-q", "--seed", std::to_string(i)})
                  .exit_code,
              0);
    std::string text = testing::ReadAll(dir_ + "/r.json");
    text = std::regex_replace(text, std::regex(R"re("git_sha": (null|"[^"]*"),\s*)re"), "");
    text = std::regex_replace(text, std::regex(R"re("time_utc": "[^"]*")re"),
                              R"re("time_utc": "\n::error::pwned", "git_sha": "\u001b[2J\u00e9\u00e9\u00e9\u00e9")re");
    testing::WriteAll(dir_ + "/r.json", text);
    auto up = Run({"baseline", "update", "--results", "r.json", "--baseline", "h.json", "--keep", "50"});
    ASSERT_EQ(up.exit_code, 0) << up.err;
  }
  auto hist = Run({"history", "h.json"});
  ASSERT_EQ(hist.exit_code, 0) << hist.err;
  EXPECT_NE(hist.out.find("at run 7 (sha \\x1b[2J\xc3\xa9, \\x0a::error::); "), std::string::npos) << hist.out;
  EXPECT_EQ(hist.out.find('\x1b'), std::string::npos) << hist.out;
  EXPECT_EQ(ValidUtf8Prefix(hist.out), hist.out.size()) << hist.out;
  for (const std::string& line : Lines(hist.out)) EXPECT_NE(line.rfind("::", 0), 0u) << line;
}

// A --filter that matches nothing is said on stderr, and so is a selection
// that leaves nothing to analyse. An unclosed '[' is a literal bracket, as in
// run --filter. Counts of one are singular.
TEST_F(LifecycleCliTest, HistoryFiltersThatMatchNothingAreSaid) {
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "r1.json", "-q"}).exit_code, 0);
  ASSERT_EQ(Run({"baseline", "update", "--results", "r1.json", "--baseline", "h.json"}).exit_code, 0);
  auto bracket = Run({"history", "h.json", "--filter", "["});
  EXPECT_EQ(bracket.exit_code, 0) << bracket.err;
  EXPECT_NE(bracket.err.find("gpugate: warning: --filter '[' matches no workload of h.json"), std::string::npos)
      << bracket.err;
  auto none = Run({"history", "h.json", "--filter", "nomatch*"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.err.find("gpugate: warning: --filter 'nomatch*' matches no workload of h.json; nothing was analysed"),
            std::string::npos)
      << none.err;
  auto some = Run({"history", "h.json", "--filter", "syn/a", "--filter", "nomatch*"});
  EXPECT_EQ(some.exit_code, 0) << some.err;
  EXPECT_NE(some.err.find("--filter 'nomatch*' matches no workload of h.json\n"), std::string::npos) << some.err;
  EXPECT_EQ(some.err.find("nothing was analysed"), std::string::npos) << some.err;
  EXPECT_EQ(some.err.find("'syn/a'"), std::string::npos) << some.err;
  EXPECT_NE(some.out.find("h.json: 1 run of suite life"), std::string::npos) << some.out;
  testing::WriteAll(dir_ + "/one.yaml", "version: 1\nname: one\nworkloads:\n  - {name: w, kind: synthetic}\n");
  auto one = Run({"validate", "one.yaml"});
  EXPECT_NE(one.out.find("suite 'one' (version 1): 1 workload, 1 selected\n"), std::string::npos) << one.out;
}

// validate shows where each argument ends: an element with a comma or a
// blank, or an empty one, is quoted, so two argument vectors never read alike.
TEST_F(LifecycleCliTest, ValidateQuotesArgumentsThatCouldBlur) {
  testing::WriteAll(dir_ + "/argv.yaml",
                    "version: 1\nname: a\nworkloads:\n"
                    "  - {name: one, kind: command, argv: [/bin/echo, \"x, y\"]}\n"
                    "  - {name: two, kind: command, argv: [/bin/echo, x, y]}\n"
                    "  - {name: three, kind: command, argv: [/bin/echo, \"\", \"say \\\"hi\\\"\", 'C:\\dir\\']}\n");
  auto out = Run({"validate", "argv.yaml"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("argv=[/bin/echo, \"x, y\"]"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("argv=[/bin/echo, x, y]"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("argv=[/bin/echo, \"\", \"say \\\"hi\\\"\", \"C:\\\\dir\\\\\"]"), std::string::npos)
      << out.out;
}

// A history of custom values has no time: history says so and names the
// metric to ask for, rather than calling six runs too short.
TEST_F(LifecycleCliTest, HistoryNamesTheMetricAWorkloadMeasures) {
  for (int i = 1; i <= 6; ++i) {
    std::filesystem::create_directories(dir_ + "/r" + std::to_string(i));
    const std::string file = dir_ + "/r" + std::to_string(i) + "/bench.json";  // the suite is the file's stem
    testing::WriteAll(file, R"([{"name": "tput", "unit": "ops/sec", "value": )" + std::to_string(1000 + i) +
                                R"(}, {"name": "lat", "unit": "ops/sec", "value": )" + std::to_string(50 + i) + "}]");
    ASSERT_EQ(Run({"baseline", "update", "--results", file, "--baseline", "custom.json", "--bigger-is-better"})
                  .exit_code, 0);
  }
  auto hist = Run({"history", "custom.json"});
  ASSERT_EQ(hist.exit_code, 0) << hist.err;
  EXPECT_NE(hist.out.find("2 without a time value (they measure value: --metric value)"), std::string::npos)
      << hist.out;
  EXPECT_EQ(hist.out.find("too short"), std::string::npos) << hist.out;
  auto value = Run({"history", "custom.json", "--metric", "value"});
  EXPECT_NE(value.out.find("of 2 workloads with step changes; 2 with fewer than 11 runs"), std::string::npos)
      << value.out;
}

// A folder may hold other JSON (results, reports): skipped with a warning.
// A broken history is an error: a site without it would hide its suite.
TEST_F(LifecycleCliTest, DashboardSkipsOtherJsonButNotABrokenHistory) {
  for (int i = 1; i <= 3; ++i) {
    const std::string r = "r" + std::to_string(i) + ".json";
    ASSERT_EQ(Run({"run", "same.yaml", "-o", r, "-q", "--seed", std::to_string(i)}).exit_code, 0);
    ASSERT_EQ(Run({"baseline", "update", "--results", r, "--baseline", "bl/life/ci.json"}).exit_code, 0);
  }
  std::filesystem::copy_file(dir_ + "/r1.json", dir_ + "/bl/life/results.json");
  auto skipped = Run({"dashboard", "bl", "-o", "site"});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  // One history named twice is one history; a site is not a stream.
  auto twice = Run({"dashboard", "bl/life/ci.json", "./bl/life/ci.json", "bl", "-o", "site2"});
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_NE(twice.out.find("for 1 baseline history"), std::string::npos) << twice.out;
  // So is one named through a hard link.
  std::filesystem::create_hard_link(dir_ + "/bl/life/ci.json", dir_ + "/linked.json");
  auto linked = Run({"dashboard", "bl/life/ci.json", "linked.json", "-o", "site3"});
  EXPECT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_NE(linked.out.find("for 1 baseline history"), std::string::npos) << linked.out;
  EXPECT_EQ(Run({"dashboard", "bl", "-o", "-"}).exit_code, 2);
  EXPECT_NE(skipped.err.find("skipped bl/life/results.json: not a baseline history"), std::string::npos)
      << skipped.err;
  const std::string history = testing::ReadAll(dir_ + "/bl/life/ci.json");
  testing::WriteAll(dir_ + "/bl/life/cut.json", history.substr(0, history.size() / 2));
  std::filesystem::remove_all(dir_ + "/site");
  auto broken = Run({"dashboard", "bl", "-o", "site"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("gpugate: error: bl/life/cut.json:"), std::string::npos) << broken.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/site/index.html"));
  // An empty file in a baselines folder is a broken history too.
  testing::WriteAll(dir_ + "/bl/life/cut.json", "");
  EXPECT_EQ(Run({"dashboard", "bl", "-o", "site"}).exit_code, 2);
}

// A page of the site that is a history read (a link planted in the site
// folder) is refused before anything is written: the history stays.
TEST_F(LifecycleCliTest, ADashboardPageThatIsAHistoryReadIsRefused) {
  for (int i = 1; i <= 3; ++i) {
    const std::string r = "r" + std::to_string(i) + ".json";
    ASSERT_EQ(Run({"run", "same.yaml", "-o", r, "-q", "--seed", std::to_string(i)}).exit_code, 0);
    ASSERT_EQ(Run({"baseline", "update", "--results", r, "--baseline", "bl/life/ci.json"}).exit_code, 0);
  }
  const std::string before = testing::ReadAll(dir_ + "/bl/life/ci.json");
  std::filesystem::create_directories(dir_ + "/site");
  std::filesystem::create_symlink("../bl/life/ci.json", dir_ + "/site/index.html");
  auto out = Run({"dashboard", "bl", "-o", "site"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("is the history bl/life/ci.json"), std::string::npos) << out.err;
  EXPECT_EQ(testing::ReadAll(dir_ + "/bl/life/ci.json"), before);
}

// The site's index is written last: a page that cannot be written leaves
// the old index, not a new one over old pages.
TEST_F(LifecycleCliTest, ADashboardThatCannotBeWrittenKeepsItsOldIndex) {
  for (int i = 1; i <= 3; ++i) {
    const std::string r = "r" + std::to_string(i) + ".json";
    ASSERT_EQ(Run({"run", "same.yaml", "-o", r, "-q", "--seed", std::to_string(i)}).exit_code, 0);
    if (i < 3) {
      ASSERT_EQ(Run({"baseline", "update", "--results", r, "--baseline", "h.json"}).exit_code, 0);
    }
  }
  ASSERT_EQ(Run({"dashboard", "h.json", "-o", "site", "-q"}).exit_code, 0);
  const std::string index = testing::ReadAll(dir_ + "/site/index.html");
  std::string class_dir;  // site/<suite>/<class>
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir_ + "/site"))
    if (e.is_directory() && e.path().parent_path() != std::filesystem::path(dir_ + "/site")) class_dir = e.path();
  ASSERT_FALSE(class_dir.empty());
  std::filesystem::remove_all(class_dir);
  testing::WriteAll(class_dir, "not a folder");
  ASSERT_EQ(Run({"baseline", "update", "--results", "r3.json", "--baseline", "h.json"}).exit_code, 0);
  auto blocked = Run({"dashboard", "h.json", "-o", "site", "-q"});
  EXPECT_EQ(blocked.exit_code, 3) << blocked.err;
  EXPECT_EQ(testing::ReadAll(dir_ + "/site/index.html"), index);
}

// --baseline is the history to append to: the results file itself, or
// another results file, is said as such (nothing is written).
TEST_F(LifecycleCliTest, BaselineUpdateSaysWhenTheBaselineIsAResultsFile) {
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "r1.json", "-q"}).exit_code, 0);
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "r2.json", "-q", "--seed", "2"}).exit_code, 0);
  const std::string r2 = testing::ReadAll(dir_ + "/r2.json");
  auto same = Run({"baseline", "update", "--results", "r1.json", "--baseline", "r1.json"});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_NE(same.err.find("gpugate: error: --baseline r1.json: that is the --results file"), std::string::npos)
      << same.err;
  auto other = Run({"baseline", "update", "--results", "r1.json", "--baseline", "r2.json"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("gpugate: error: --baseline r2.json: this is a results file, not a baseline history"),
            std::string::npos)
      << other.err;
  EXPECT_EQ(other.err.find("create a baseline with 'gpugate baseline update'"), std::string::npos) << other.err;
  EXPECT_EQ(testing::ReadAll(dir_ + "/r2.json"), r2);
  auto empty = Run({"baseline", "update", "--results", "r1.json", "--baseline", ""});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("--baseline '': an empty name"), std::string::npos) << empty.err;
  // A history holds results too: a truncated one keeps its own error.
  ASSERT_EQ(Run({"baseline", "update", "--results", "r2.json", "--baseline", "h.json"}).exit_code, 0);
  const std::string history = testing::ReadAll(dir_ + "/h.json");
  testing::WriteAll(dir_ + "/h.json", history.substr(0, history.size() / 2));
  auto cut = Run({"baseline", "update", "--results", "r1.json", "--baseline", "h.json"});
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_EQ(cut.err.find("this is a results file"), std::string::npos) << cut.err;
  EXPECT_NE(cut.err.find("h.json:"), std::string::npos) << cut.err;
}

TEST_F(LifecycleCliTest, BaselinesFolderPicksTheRunnerClassFile) {
  for (int i = 1; i <= 3; ++i) {
    std::string r = "r" + std::to_string(i) + ".json";
    ASSERT_EQ(Run({"run", "same.yaml", "-o", r, "-q", "--seed", std::to_string(i), "--env-key", "CI A"}).exit_code, 0);
    auto up = Run({"baseline", "update", "--results", r, "--baseline", "baselines/"});
    ASSERT_EQ(up.exit_code, 0) << up.err;
    EXPECT_NE(up.out.find("baselines/life/ci-a.json"), std::string::npos) << up.out;
  }
  EXPECT_NE(testing::ReadAll(dir_ + "/r1.json").find("\"runner_class\": \"ci-a\""), std::string::npos);
  // compare FOLDER CURRENT: the current run's class picks the file.
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "cur.json", "-q", "--seed", "9", "--env-key", "ci-a"}).exit_code, 0);
  auto cmp = Run({"compare", "baselines", "cur.json"});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("baselines/life/ci-a.json"), std::string::npos) << cmp.out;
  // Another class: nothing judged, and the classes the folder holds named.
  auto other = Run({"compare", "baselines/", "cur.json", "--env-key", "ci-b"});
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.out.find("no baseline yet at baselines/life/ci-b.json"), std::string::npos) << other.out;
  EXPECT_NE(other.out.find("baselines/ holds suite 'life' for the runner class ci-a, not for 'ci-b': name one "
                           "with --env-key"),
            std::string::npos)
      << other.out;
  EXPECT_NE(other.out.find("NOT JUDGED"), std::string::npos) << other.out;
  // gate with the folder: the class's file, or a first run for a new class.
  auto gate = Run({"gate", "same.yaml", "--baseline", "baselines", "--env-key", "ci-a", "--confirm", "0"});
  EXPECT_EQ(gate.exit_code, 0) << gate.err;
  EXPECT_NE(gate.err.find("baseline baselines/life/ci-a.json"), std::string::npos) << gate.err;
  auto first = Run({"gate", "same.yaml", "--baseline", "baselines/", "--env-key", "ci-new"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("no baseline yet at baselines/life/ci-new.json"), std::string::npos) << first.out;
  EXPECT_NE(first.err.find("holds suite 'life' for the runner class ci-a"), std::string::npos) << first.err;
  // One wording on stderr (before the suite runs) and in the report.
  EXPECT_NE(first.out.find("holds suite 'life' for the runner class ci-a"), std::string::npos) << first.out;
  EXPECT_EQ(Run({"run", "same.yaml", "-o", "x.json", "--env-key", "//"}).exit_code, 2);
}

// On a GitHub-hosted runner another tool's file (which records no class)
// belongs to the hosted class, as gpugate's own runs there do: baseline
// update files it there, and compare finds it there.
TEST_F(LifecycleCliTest, AHostedRunnersClassNamesIngestedFiles) {
  const std::vector<std::string> hosted = {"GITHUB_ACTIONS=true", "ImageOS=ubuntu24", "RUNNER_OS=Linux",
                                           "RUNNER_ARCH=X64", "GPUGATE_ENV_KEY="};
  const std::string data = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/real_noise_idle/quiet/";
  for (const char* run : {"run_01.json", "run_02.json", "run_03.json"}) {
    auto up = RunGpugate({"baseline", "update", "--results", data + run, "--baseline", "baselines/"}, dir_, hosted);
    ASSERT_EQ(up.exit_code, 0) << up.err;
    EXPECT_NE(up.out.find("/linux-x64-ubuntu24.json"), std::string::npos) << up.out;
  }
  // The same history named by hand takes the next run too.
  const std::string file = [&] {
    auto up = RunGpugate({"baseline", "update", "--results", data + "run_08.json", "--baseline", "baselines/"}, dir_,
                         hosted);
    return up.out.substr(0, up.out.find(": appended"));
  }();
  ASSERT_NE(file.find("linux-x64-ubuntu24.json"), std::string::npos) << file;
  auto named_file = RunGpugate({"baseline", "update", "--results", data + "run_09.json", "--baseline", file}, dir_, hosted);
  EXPECT_EQ(named_file.exit_code, 0) << named_file.err;
  EXPECT_NE(named_file.out.find("5 runs kept"), std::string::npos) << named_file.out;
  auto cmp = RunGpugate({"compare", "baselines/", data + "run_04.json"}, dir_, hosted);
  EXPECT_NE(cmp.exit_code, 2) << cmp.err;
  EXPECT_EQ(cmp.out.find("no baseline yet"), std::string::npos) << cmp.out;
  EXPECT_NE(cmp.out.find("/linux-x64-ubuntu24.json"), std::string::npos) << cmp.out;
  // A named class still wins.
  auto named = RunGpugate({"compare", "baselines/", data + "run_04.json", "--env-key", "mine"}, dir_, hosted);
  EXPECT_NE(named.out.find("no baseline yet"), std::string::npos) << named.out;
  // A history begun before, under the key of a run without a class, stays
  // the one compare reads and update appends to.
  const std::vector<std::string> plain = {"GITHUB_ACTIONS=", "ImageOS=", "GPUGATE_ENV_KEY="};
  for (const char* run : {"run_05.json", "run_06.json"}) {
    auto up = RunGpugate({"baseline", "update", "--results", data + run, "--baseline", "old/"}, dir_, plain);
    ASSERT_EQ(up.exit_code, 0) << up.err;
  }
  auto old_cmp = RunGpugate({"compare", "old/", data + "run_07.json"}, dir_, hosted);
  EXPECT_NE(old_cmp.exit_code, 2) << old_cmp.err;
  EXPECT_EQ(old_cmp.out.find("no baseline yet"), std::string::npos) << old_cmp.out;
  auto old_up = RunGpugate({"baseline", "update", "--results", data + "run_07.json", "--baseline", "old/"}, dir_, hosted);
  ASSERT_EQ(old_up.exit_code, 0) << old_up.err;
  EXPECT_NE(old_up.out.find("3 runs kept"), std::string::npos) << old_up.out;
  EXPECT_EQ(old_up.out.find("linux-x64-ubuntu24"), std::string::npos) << old_up.out;
}

// Another tool's file is named by its content: a nightly file without a
// timestamp repeats it. The workflow run tells two nights apart (a re-run of
// one workflow run still counts once), and --run-id names a run by hand.
TEST_F(LifecycleCliTest, TwoNightsOfTheSameCustomValuesAreTwoRuns) {
  testing::WriteAll(dir_ + "/size.json", R"([{"name": "binary_size", "unit": "bytes", "value": 1048576}])");
  auto update = [&](const std::vector<std::string>& extra, const std::vector<std::string>& env) {
    std::vector<std::string> args = {"baseline", "update", "-r", "size.json", "-b", "h.json", "--env-key", "ci"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunGpugate(args, dir_, env);
  };
  EXPECT_EQ(update({}, {"GITHUB_RUN_ID=101"}).exit_code, 0);
  auto rerun = update({}, {"GITHUB_RUN_ID=101", "GITHUB_RUN_ATTEMPT=2"});
  EXPECT_EQ(rerun.exit_code, 2);
  EXPECT_NE(rerun.err.find("is already in the baseline"), std::string::npos) << rerun.err;
  auto next = update({}, {"GITHUB_RUN_ID=102"});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.out.find("2 runs kept"), std::string::npos) << next.out;
  auto local = update({}, {"GITHUB_RUN_ID="});
  EXPECT_EQ(local.exit_code, 0) << local.err;
  auto again = update({}, {"GITHUB_RUN_ID="});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("name it with --run-id"), std::string::npos) << again.err;
  auto named = update({"--run-id", "nightly-2026-11-30"}, {"GITHUB_RUN_ID="});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_NE(named.out.find("appended run nightly-2026-11-30"), std::string::npos) << named.out;
  EXPECT_EQ(update({"--run-id", "bad\x1b[31m"}, {}).exit_code, 2);
  EXPECT_EQ(update({"--run-id", ""}, {}).exit_code, 2);
  // The rule of `run --run-id`: one token, at most 128 characters.
  for (const std::string& bad : {std::string("bad id"), std::string(300, 'a')}) {
    auto o = update({"--run-id", bad}, {});
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_NE(o.err.find("a run id is 1 to 128 letters, digits or . _ : + -"), std::string::npos) << o.err;
  }
  // Timings name their run: one Google Benchmark file is one run whatever
  // workflow run stores it.
  const std::string gb = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/real_noise_idle/quiet/run_01.json";
  auto first = RunGpugate({"baseline", "update", "-r", gb, "-b", "g.json"}, dir_, {"GITHUB_RUN_ID=201"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  auto copy = RunGpugate({"baseline", "update", "-r", gb, "-b", "g.json"}, dir_, {"GITHUB_RUN_ID=202"});
  EXPECT_EQ(copy.exit_code, 2) << copy.out;
  EXPECT_NE(copy.err.find("is already in the baseline"), std::string::npos) << copy.err;
}

TEST_F(LifecycleCliTest, EmptyShardsOfAMatrixMergeIntoTheWholeRun) {
  // Four workloads over 12 shards: most shards are empty, and each is still
  // a valid part of the run (a matrix larger than the suite).
  std::vector<std::string> merge = {"merge"};
  int empty = 0;
  for (int i = 1; i <= 12; ++i) {
    const std::string out = "s" + std::to_string(i) + ".json";
    auto r = Run({"run", "same.yaml", "-o", out, "-q", "--shard", std::to_string(i) + "/12", "--run-id", "m1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (r.err.find("holds none of the 4 selected workloads") != std::string::npos) ++empty;
    merge.push_back(out);
  }
  EXPECT_GE(empty, 8);
  merge.insert(merge.end(), {"-o", "all.json"});
  auto m = Run(merge);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("merged 12 shards of run m1 (4 workloads)"), std::string::npos) << m.err;
  // A filter that selects nothing stays an error, shard or not.
  EXPECT_EQ(Run({"run", "same.yaml", "-o", "x.json", "--filter", "nope*", "--shard", "1/2"}).exit_code, 2);
  EXPECT_EQ(Run({"gate", "same.yaml", "--baseline", "all.json", "--filter", "nope*", "--shard", "1/2"}).exit_code, 2);
  // gate and ab on an empty shard of the matrix: nothing compared, not
  // judged (exit 0, never a pass), not an input error.
  int shard = 0;
  for (int i = 1; i <= 12 && shard == 0; ++i)
    if (testing::ReadAll(dir_ + "/s" + std::to_string(i) + ".json").find("\"workloads\": []") != std::string::npos)
      shard = i;
  ASSERT_GT(shard, 0);
  const std::string which = std::to_string(shard) + "/12";
  auto gate = Run({"gate", "same.yaml", "--baseline", "all.json", "--shard", which, "--json", "g.json", "-q"});
  EXPECT_EQ(gate.exit_code, 0) << gate.err;
  const std::string g = testing::ReadAll(dir_ + "/g.json");
  EXPECT_NE(g.find("\"outcome\": \"not_judged\""), std::string::npos) << g;
  EXPECT_NE(g.find("shard " + which + " holds none of the 4 selected workloads: nothing was measured or compared"),
            std::string::npos)
      << g;
  auto ab = Run({"ab", "same.yaml", "--base", ".", "--head", ".", "--shard", which, "--json", "ab.json", "-q"});
  EXPECT_EQ(ab.exit_code, 0) << ab.err;
  EXPECT_NE(testing::ReadAll(dir_ + "/ab.json").find("\"outcome\": \"not_judged\""), std::string::npos);
  // Two shards of one run given to compare as two current runs: one run,
  // to be merged first (exit 2 with that advice).
  std::vector<std::string> full;
  for (int i = 1; i <= 12; ++i)
    if (testing::ReadAll(dir_ + "/s" + std::to_string(i) + ".json").find("\"workloads\": []") == std::string::npos)
      full.push_back("s" + std::to_string(i) + ".json");
  ASSERT_GE(full.size(), 2u);
  auto two = Run({"compare", "all.json", full[0], full[1]});
  EXPECT_EQ(two.exit_code, 2) << two.err;
  EXPECT_NE(two.err.find("shards are parts of one run; join them with gpugate merge"), std::string::npos) << two.err;
}

TEST_F(LifecycleCliTest, MergeShards) {
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "s1.json", "-q", "--shard", "1/2"}).exit_code, 0);
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "s2.json", "-q", "--shard", "2/2"}).exit_code, 0);
  // Two separate `gpugate run` invocations are two runs: refused.
  auto m = Run({"merge", "s1.json", "s2.json", "-o", "all.json"});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("not a shard of the same run"), std::string::npos) << m.err;
  EXPECT_EQ(Run({"merge", "s1.json", "-o", "all.json"}).exit_code, 2);  // shard 2/2 missing
  // One file named twice is said as such, however spelled.
  auto twice = Run({"merge", "s1.json", "s2.json", "s2.json", "-o", "all.json"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("gpugate: error: s2.json is given twice (inputs 2 and 3); name each shard once"),
            std::string::npos)
      << twice.err;
  auto spelled = Run({"merge", "s1.json", "./s1.json", "-o", "all.json"});
  EXPECT_EQ(spelled.exit_code, 2);
  EXPECT_NE(spelled.err.find("./s1.json is given twice (inputs 1 and 2, as s1.json)"), std::string::npos)
      << spelled.err;
  auto partial = Run({"merge", "s1.json", "-o", "part.json", "--allow-partial"});
  EXPECT_EQ(partial.exit_code, 0) << partial.err;
}

TEST_F(LifecycleCliTest, AbSyntheticPassAndRegression) {
  ASSERT_EQ(Run({"validate", "same.yaml"}).exit_code, 0);
  auto aa = Run({"ab", "same.yaml", "--base", ".", "--head", ".", "--rounds", "8", "--json", "aa.json",
                 "--quiet"});
  EXPECT_EQ(aa.exit_code, 0) << aa.err;
  std::string v = testing::ReadAll(dir_ + "/aa.json");
  EXPECT_NE(v.find("8 paired rounds"), std::string::npos);
  auto slow = Run({"ab", "slow.yaml", "--base", ".", "--head", ".", "--rounds", "8", "-v"});
  EXPECT_EQ(slow.exit_code, 1) << slow.err;
  EXPECT_NE(slow.out.find("8 paired rounds"), std::string::npos) << slow.out;
  EXPECT_EQ(Run({"ab", "same.yaml", "--base", "nope", "--head", "."}).exit_code, 2);
}

TEST_F(LifecycleCliTest, AResultsFileThatCannotBeWrittenKeepsTheVerdictAndItsReports) {
  ASSERT_EQ(Run({"run", "same.yaml", "-o", "b.json", "-q"}).exit_code, 0);
  // The verdict is reported, then the file that could not be written
  // (/dev/full, written in place, fails at its write): a tool error, exit
  // 3. The verdict and its reports were lost before (the error came first).
  const std::string full_error = "gpugate: error: /dev/full: write failed: No space left on device";
  auto gate = Run({"gate", "slow.yaml", "--baseline", "b.json", "--confirm", "0", "-o", "/dev/full", "--json",
                   "g.json", "-q"});
  EXPECT_EQ(gate.exit_code, 3) << gate.err;
  EXPECT_NE(gate.err.find(full_error), std::string::npos) << gate.err;
  EXPECT_NE(testing::ReadAll(dir_ + "/g.json").find("\"outcome\": \"not_judged\""), std::string::npos);  // one baseline run
  auto ab = Run({"ab", "slow.yaml", "--base", ".", "--head", ".", "--rounds", "8", "--base-results", "/dev/full",
                 "--head-results", "head.json", "--json", "ab.json", "-q"});
  EXPECT_EQ(ab.exit_code, 3) << ab.err;  // a regression (exit 1) too: the tool error outranks it
  EXPECT_NE(ab.err.find(full_error), std::string::npos) << ab.err;
  EXPECT_NE(testing::ReadAll(dir_ + "/ab.json").find("\"outcome\": \"fail\""), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/head.json"));
}

}  // namespace
}  // namespace gpugate
