// The instruction lane (harness/instruction_runner.h): the cachegrind output
// parser on literal files, the valgrind command line, the missing-valgrind
// error, and real counts when valgrind is installed (skipped with the reason
// otherwise).
#include "harness/instruction_runner.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace gpugate {
namespace {

TEST(ParseCachegrindOutTest, ReadsTheSummaryOfInstructions) {
  auto c = ParseCachegrindOut("desc: I1 cache: 32768 B\ncmd: ./t\nevents: Ir\nfl=a.c\nfn=main\n3 10\n4 7\nsummary: 4128188\n",
                              "cg.1");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->instructions, 4128188);
  EXPECT_FALSE(c->l1_misses);
  EXPECT_FALSE(c->EstimatedCycles());
}

TEST(ParseCachegrindOutTest, SumsCostLinesWithoutASummary) {
  auto c = ParseCachegrindOut("events: Ir\nfl=a.c\nfn=f\n3 10\n4 7\nfn=g\n9 5\n", "cg.2");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->instructions, 22);
}

TEST(ParseCachegrindOutTest, CacheSimulationGivesEstimatedCycles) {
  auto c = ParseCachegrindOut(
      "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw \nsummary: 4128242 1256 1238 29130 1220 998 10596 379 349\n",
      "cg.3");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->instructions, 4128242);
  EXPECT_EQ(*c->l1_misses, 1256 + 1220 + 379);
  EXPECT_EQ(*c->ll_misses, 1238 + 998 + 349);
  EXPECT_EQ(*c->EstimatedCycles(), 4128242 + 10 * (1256 + 1220 + 379) + 100 * (1238 + 998 + 349));
}

TEST(ParseCachegrindOutTest, BadFilesNameTheLineAndColumn) {
  auto no_events = ParseCachegrindOut("cmd: x\nsummary: 3\n", "cg.4");
  ASSERT_FALSE(no_events.ok());
  EXPECT_EQ(no_events.error().message, "cg.4:2:1: a summary before the 'events:' line");
  auto empty = ParseCachegrindOut("", "cg.5");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "cg.5:1:1: not a cachegrind output file: no 'events:' line");
  auto junk = ParseCachegrindOut("events: Ir\nsummary: 12x\n", "cg.6");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().message, "cg.6:2:12: not a count");
  auto no_ir = ParseCachegrindOut("events: Dr\nsummary: 5\n", "cg.7");
  ASSERT_FALSE(no_ir.ok());
  EXPECT_EQ(no_ir.error().message, "cg.7:1:1: the events do not include Ir (instructions)");
  auto huge = ParseCachegrindOut("events: Ir\nsummary: 99999999999999999999999\n", "cg.8");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message, "cg.8:2:10: not a count");
  auto too_many = ParseCachegrindOut("events: Ir\n3 1 2 3\n", "cg.9");
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().message, "cg.9:2:1: more counts than events");
  auto overflow = ParseCachegrindOut("events: Ir\n1 9223372036854775807\n2 1\n", "cg.10");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message, "cg.10:3:1: counts overflow");
}

TEST(CachegrindArgvTest, CountsChildrenIntoOneFileEach) {
  EXPECT_EQ(CachegrindArgv("/usr/bin/valgrind", {"./bench", "--n", "3"}, "/t/d", true),
            (std::vector<std::string>{"/usr/bin/valgrind", "--tool=cachegrind", "--cache-sim=yes",
                                      "--branch-sim=no", "--trace-children=yes",
                                      "--cachegrind-out-file=/t/d/cg.%p", "-q", "./bench", "--n", "3"}));
}

TEST(FindValgrindTest, AMissingValgrindNamesThePackage) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  ::setenv("PATH", "/nonexistent", 1);
  ::unsetenv("GPUGATE_VALGRIND");
  Result<std::string> v = FindValgrind();
  ::setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("install the 'valgrind' package (apt-get install valgrind)"), std::string::npos)
      << v.error().message;
  ::setenv("GPUGATE_VALGRIND", "/nonexistent/valgrind", 1);
  v = FindValgrind();
  ::unsetenv("GPUGATE_VALGRIND");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "GPUGATE_VALGRIND='/nonexistent/valgrind' is not an executable file");
}

WorkloadSpec Command(std::vector<std::string> argv, bool shell = false) {
  WorkloadSpec s;
  s.name = "w";
  s.kind = WorkloadKind::kCommand;
  s.argv = std::move(argv);
  s.shell = shell;
  s.measure = "instructions";
  s.sampling.rounds = 3;
  s.sampling.timeout = 60;
  return s;
}

TEST(RunInstructionWorkloadTest, CountsAreIdenticalAndIncludeChildren) {
  if (!FindValgrind().ok()) GTEST_SKIP() << "valgrind is not installed: " << FindValgrind().error().message;
  WorkloadSpec s = Command({"/bin/true; :"}, true);
  s.sampling.rounds = 2;
  WorkloadResult one = RunInstructionWorkload(s);
  ASSERT_EQ(one.status, WorkloadStatus::kOk) << one.reason;
  EXPECT_EQ(one.metric, "instructions");
  EXPECT_EQ(one.unit, "instructions");
  EXPECT_TRUE(one.deterministic);
  ASSERT_EQ(one.rounds.size(), 2u);
  // The same command counts the same every time.
  EXPECT_EQ(one.rounds[0][0], one.rounds[1][0]);
  EXPECT_GT(one.rounds[0][0], 1000);
  // A second child adds its instructions.
  s.argv = {"/bin/true; /bin/true; :"};
  s.sampling.rounds = 1;
  WorkloadResult two = RunInstructionWorkload(s);
  ASSERT_EQ(two.status, WorkloadStatus::kOk) << two.reason;
  EXPECT_GT(two.rounds[0][0], one.rounds[0][0] + 50000);
}

TEST(RunInstructionWorkloadTest, CacheSimulationAndFailures) {
  if (!FindValgrind().ok()) GTEST_SKIP() << "valgrind is not installed: " << FindValgrind().error().message;
  WorkloadSpec s = Command({"/bin/true"});
  s.cache_sim = true;
  s.sampling.rounds = 1;
  WorkloadResult r = RunInstructionWorkload(s);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_GT(r.counters.at("estimated_cycles"), r.rounds[0][0]);
  WorkloadSpec failing = Command({"echo oops >&2; exit 4"}, true);
  WorkloadResult bad = RunInstructionWorkload(failing);
  EXPECT_EQ(bad.status, WorkloadStatus::kFailed);
  EXPECT_NE(bad.reason.find("execution 1 of 3: "), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("exited with status 4"), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("oops"), std::string::npos) << bad.reason;
}

}  // namespace
}  // namespace gpugate
