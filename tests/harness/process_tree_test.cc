// Tests of the leftover-process machinery's pure parts: /proc/<pid>/stat
// parsing, reading a fake /proc folder, the descendant walk, and the note.
// (Ending real processes is tested in process_backend_test.cc and end to end
// by scripts/safety/leftover_processes.sh.)
#include "harness/process_tree.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace gpugate {
namespace {

namespace fs = std::filesystem;

// A stat line with the given fields; the 44 further fields a real one has
// after starttime are there too.
std::string StatLine(int pid, const std::string& comm, char state, int ppid, int pgrp, int session,
                     unsigned long long start) {
  std::string s = std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) + " " +
                  std::to_string(pgrp) + " " + std::to_string(session) +
                  " 34816 4242 4194560 118 0 0 0 0 1 0 0 20 0 1 0 " + std::to_string(start);
  for (int i = 0; i < 30; ++i) s += " 0";
  return s + "\n";
}

TEST(ProcStatTest, ParsesTheFieldsItNeeds) {
  auto p = detail::ParseProcStat(StatLine(4321, "sleep", 'S', 17, 4300, 12, 987654));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pid, 4321);
  EXPECT_EQ(p->comm, "sleep");
  EXPECT_EQ(p->state, 'S');
  EXPECT_EQ(p->ppid, 17);
  EXPECT_EQ(p->pgrp, 4300);
  EXPECT_EQ(p->session, 12);
  EXPECT_EQ(p->start_ticks, 987654u);
  EXPECT_FALSE(p->zombie());
  EXPECT_FALSE(p->stopped());
}

TEST(ProcStatTest, CommMayHoldSpacesAndParentheses) {
  // A program can name itself anything: the comm ends at the last ')'.
  auto p = detail::ParseProcStat(StatLine(9, "a) Z 1 (b", 'T', 3, 9, 9, 55));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->comm, "a) Z 1 (b");
  EXPECT_EQ(p->state, 'T');
  EXPECT_EQ(p->ppid, 3);
  EXPECT_EQ(p->start_ticks, 55u);
  EXPECT_TRUE(p->stopped());
}

TEST(ProcStatTest, ZombiesAndTracedStopsAreRecognised) {
  EXPECT_TRUE(detail::ParseProcStat(StatLine(5, "x", 'Z', 1, 5, 5, 1))->zombie());
  EXPECT_TRUE(detail::ParseProcStat(StatLine(5, "x", 't', 1, 5, 5, 1))->stopped());
}

TEST(ProcStatTest, AnExitedLeaderWithRunningThreadsIsNoZombie) {
  // Field 20 (num_threads) is 1 in StatLine: a true zombie.
  std::string line = StatLine(5, "x", 'Z', 1, 5, 5, 1);
  const std::string one = " 0 1 0 1 ";  // fields 19..22: nice, num_threads, itrealvalue, starttime
  const size_t at = line.find(one);
  ASSERT_NE(at, std::string::npos);
  line.replace(at, one.size(), " 0 3 0 1 ");
  auto p = detail::ParseProcStat(line);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->threads, 3);
  EXPECT_EQ(p->state, 'Z');
  EXPECT_FALSE(p->zombie());
}

TEST(ProcStatTest, MalformedTextIsRejected) {
  for (const std::string& bad : {
           std::string(""),
           std::string("12 sleep S 1 1 1"),                     // no parentheses
           std::string("12 (sleep) S 1 1 1 0 0 0"),              // too few fields
           std::string("x1 (sleep) S 1 1 1") + std::string(40, ' '),
           StatLine(12, "s", 'S', 1, 1, 1, 5).replace(0, 2, "-3"),  // negative pid
           std::string("12 (sleep) SS 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7"),  // state of two letters
           std::string("12 (sleep) S one 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7"),  // ppid not a number
       }) {
    EXPECT_FALSE(detail::ParseProcStat(bad).has_value()) << bad;
  }
}

class FakeProcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpugate-proc-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void Add(const std::string& name, const std::string& stat) {
    fs::create_directories(root_ / name);
    std::ofstream(root_ / name / "stat") << stat;
  }
  fs::path root_;
};

TEST_F(FakeProcTest, ReadsNumericFoldersAndSkipsTheRest) {
  Add("1", StatLine(1, "init", 'S', 0, 1, 1, 1));
  Add("100", StatLine(100, "gpugate", 'S', 1, 100, 1, 500));
  Add("200", StatLine(200, "sleep 30", 'S', 100, 150, 1, 700));
  Add("201", StatLine(201, "defunct", 'Z', 100, 150, 1, 701));
  Add("self", StatLine(100, "gpugate", 'S', 1, 100, 1, 500));  // not a pid folder
  Add("net", "not a stat line");
  Add("202", "garbage");                       // unreadable: left out
  fs::create_directories(root_ / "203");       // exited between readdir and open
  std::vector<ProcStat> table = detail::ReadProcTable(root_.string());
  std::vector<pid_t> pids;
  for (const ProcStat& p : table) pids.push_back(p.pid);
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<pid_t>{1, 100, 200, 201}));
  for (const ProcStat& p : table)
    if (p.pid == 200) {
      EXPECT_EQ(p.comm, "sleep 30");
    }
}

TEST_F(FakeProcTest, MissingRootGivesAnEmptyTable) {
  EXPECT_TRUE(detail::ReadProcTable((root_ / "absent").string()).empty());
}

TEST_F(FakeProcTest, ChildrenOfReadsEveryTasksChildrenFile) {
  fs::create_directories(root_ / "100" / "task" / "100");
  fs::create_directories(root_ / "100" / "task" / "101");
  fs::create_directories(root_ / "100" / "task" / "102");  // a thread that just ended: no file
  std::ofstream(root_ / "100" / "task" / "100" / "children") << "150 210 ";
  std::ofstream(root_ / "100" / "task" / "101" / "children") << "";
  auto children = detail::ChildrenOf(root_.string(), 100);
  ASSERT_TRUE(children.has_value());
  EXPECT_EQ(*children, (std::vector<pid_t>{150, 210}));
  std::ofstream(root_ / "100" / "task" / "101" / "children") << "7";  // no trailing space
  children = detail::ChildrenOf(root_.string(), 100);
  ASSERT_TRUE(children.has_value());
  EXPECT_EQ(children->size(), 3u);
}

TEST_F(FakeProcTest, ChildrenOfIsUnknownWithoutTheFiles) {
  fs::create_directories(root_ / "100" / "task" / "100");  // a kernel without CONFIG_PROC_CHILDREN
  EXPECT_FALSE(detail::ChildrenOf(root_.string(), 100).has_value());
  EXPECT_FALSE(detail::ChildrenOf(root_.string(), 999).has_value());  // gone
}

// gpugate is 100, the workload's leader 150 (started at tick 500). Its
// leftovers were reparented to 100; 120 is an older child of gpugate (started
// before the leader) whose own child must not be touched either.
std::vector<ProcStat> Table() {
  std::vector<ProcStat> t;
  auto add = [&t](pid_t pid, pid_t ppid, uint64_t start, char state = 'S') {
    t.push_back(*detail::ParseProcStat(StatLine(pid, "p", state, ppid, 150, 1, start)));
  };
  add(1, 0, 1);
  add(100, 1, 10);
  add(120, 100, 20);   // older child of gpugate
  add(121, 120, 600);  // its child, started later: still not the workload's
  add(150, 100, 500, 'Z');  // the leader (excluded)
  add(210, 100, 505);  // a background child of the leader, reparented
  add(220, 100, 510);  // a setsid daemon, reparented
  add(221, 220, 512);  // the daemon's child
  add(222, 221, 513, 'Z');  // an exited grandchild nobody reaped
  add(300, 1, 520);    // an unrelated process
  return t;
}

TEST(DescendantsTest, FindsTheTreeBelowGpugateWithoutOlderOrExcludedProcesses) {
  std::vector<ProcStat> found = detail::Descendants(Table(), 100, {150}, 500);
  std::vector<pid_t> pids;
  for (const ProcStat& p : found) pids.push_back(p.pid);
  EXPECT_EQ(pids, (std::vector<pid_t>{210, 220, 221, 222}));  // parents before children
  EXPECT_TRUE(found.back().zombie());
}

TEST(DescendantsTest, WithoutAStartBoundOlderChildrenAreIncluded) {
  std::vector<ProcStat> found = detail::Descendants(Table(), 100, {150}, 0);
  std::vector<pid_t> pids;
  for (const ProcStat& p : found) pids.push_back(p.pid);
  EXPECT_EQ(pids, (std::vector<pid_t>{120, 210, 220, 121, 221, 222}));
}

TEST(DescendantsTest, ACycleInAMalformedTableEnds) {
  std::vector<ProcStat> t;
  t.push_back(*detail::ParseProcStat(StatLine(2, "a", 'S', 3, 2, 2, 5)));
  t.push_back(*detail::ParseProcStat(StatLine(3, "b", 'S', 2, 2, 2, 5)));
  std::vector<ProcStat> found = detail::Descendants(t, 2, {}, 0);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pid, 3);
}

TEST(PidListTest, ListsUpToTheLimit) {
  EXPECT_EQ(detail::PidList({}), "");
  EXPECT_EQ(detail::PidList({123, 124, 130}), "123, 124, 130");
  EXPECT_EQ(detail::PidList({1, 2, 3, 4, 5}, 3), "1, 2, 3, … (+2 more)");
}

TEST(LeftoverTallyTest, NothingLeftBehindGivesNoNote) {
  LeftoverTally t;
  t.Add(LeftoverReport{});
  t.Add(LeftoverReport{});
  EXPECT_EQ(t.executions(), 2);
  EXPECT_EQ(t.Note(), "");
}

TEST(LeftoverTallyTest, OneExecution) {
  LeftoverTally t;
  LeftoverReport r;
  r.ended = {123, 124, 130};
  t.Add(r);
  EXPECT_EQ(t.Note(), "ended 3 processes the workload left behind (pids 123, 124, 130)");
}

TEST(LeftoverTallyTest, SeveralExecutionsWithSigkillAndZombies) {
  LeftoverTally t;
  LeftoverReport a;
  a.ended = {10, 11};
  a.needed_sigkill = 1;
  LeftoverReport b;
  b.ended = {20};
  b.zombies = 1;
  t.Add(a);
  t.Add(LeftoverReport{});
  t.Add(b);
  EXPECT_EQ(t.Note(0.2),
            "ended 3 processes the workload left behind in 2 of 3 executions (pids 10, 11, 20); "
            "1 still ran 0.2 s after SIGTERM and was killed with SIGKILL; "
            "1 zombie (exited, never waited for) reaped");
}

TEST(LeftoverTallyTest, SurvivorsAreNamed) {
  LeftoverTally t;
  LeftoverReport r;
  r.ended = {5};
  r.survivors = {6, 7};
  t.Add(r);
  EXPECT_EQ(t.Note(),
            "ended 1 process the workload left behind (pids 5); 2 processes could not be ended (pids 6, 7)");
  LeftoverTally only;
  LeftoverReport s;
  s.survivors = {8};
  only.Add(s);
  EXPECT_EQ(only.Note(), "could not end 1 process the workload left behind (pids 8)");
}

}  // namespace
}  // namespace gpugate
