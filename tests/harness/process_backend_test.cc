// Tests of the process backend: real child processes (sh, sleep, touch).
#include "harness/backends/process_backend.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "harness/runner.h"

namespace gpugate {
namespace {

namespace fs = std::filesystem;

class ProcessBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpugate-process-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  WorkloadSpec Command(std::vector<std::string> argv, double timeout = 30) {
    WorkloadSpec spec;
    spec.name = "cmd";
    spec.kind = WorkloadKind::kCommand;
    spec.argv = std::move(argv);
    spec.sampling.timeout = timeout;
    return spec;
  }

  Result<Sample> RunOnce(const WorkloadSpec& spec) {
    auto inst = backend_.Prepare(spec);
    if (!inst.ok()) return inst.error();
    return (*inst)->RunSample();
  }

  std::string ReadText(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  ProcessBackend backend_;
  fs::path dir_;
};

// A process that no longer runs: gone, or a zombie no one has reaped yet
// (containers whose pid 1 does not reap orphans keep those).
bool ProcessGone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         (line[paren + 2] == 'Z' || line[paren + 2] == 'X');
}

bool WaitGone(pid_t pid, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (ProcessGone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ProcessGone(pid);
}

TEST_F(ProcessBackendTest, SuccessReportsWallTimeAndRusage) {
  // A busy shell loop burns CPU time in the child.
  auto r = RunOnce(Command({"/bin/sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->seconds, 0);
  ASSERT_TRUE(r->user_seconds && r->sys_seconds);
  EXPECT_GT(*r->user_seconds + *r->sys_seconds, 0);
  EXPECT_LE(*r->user_seconds + *r->sys_seconds, r->seconds * 1.5 + 0.01);
}

int64_t OwnMaxRssBytes() {
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  return static_cast<int64_t>(self.ru_maxrss) * 1024;
}

TEST_F(ProcessBackendTest, PeakMemoryIsTheProcesssOwnNeverGpugates) {
  // dd fills one buffer of bs bytes: its own peak lies above this process's.
  const int64_t bs = OwnMaxRssBytes() + (32 << 20);
  auto big = RunOnce(Command({"dd", "if=/dev/zero", "of=/dev/null", "bs=" + std::to_string(bs), "count=1"}));
  ASSERT_TRUE(big.ok()) << big.error().message;
  ASSERT_TRUE(big->max_rss_bytes.has_value());
  EXPECT_GE(*big->max_rss_bytes, bs);
  EXPECT_LT(*big->max_rss_bytes, bs + (32 << 20));
  // A spawned process starts with this process's high-water mark (64 MiB
  // and more now); /bin/true's own ~1 MiB cannot be told from it, so no
  // peak is reported rather than this process's.
  std::vector<char> ballast(64 << 20, 1);
  auto small = RunOnce(Command({"/bin/true"}));
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_FALSE(small->max_rss_bytes.has_value()) << *small->max_rss_bytes;
  EXPECT_EQ(ballast[ballast.size() / 2], 1);
}

TEST(HighWaterFromProcStatusTest, ReadsVmHwmInBytes) {
  EXPECT_EQ(detail::HighWaterFromProcStatus("Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    5120 kB\nVmRSS:\t 100 kB\n"),
            5120 * 1024);
  EXPECT_EQ(detail::HighWaterFromProcStatus("VmHWM: 1 kB"), 1024);
  EXPECT_EQ(detail::HighWaterFromProcStatus("Name:\tx\nVmRSS:\t 100 kB\n"), std::nullopt);
  EXPECT_EQ(detail::HighWaterFromProcStatus("VmHWM:\t kB\n"), std::nullopt);
  EXPECT_EQ(detail::HighWaterFromProcStatus(""), std::nullopt);
}

// Run by PeakMemoryFloorIsGpugatesAddressSpaceNotWhatItInherited in a
// process that a large one exec'd: the peak of a command 48 MiB above this
// process's own high-water mark (which a sanitizer build raises), the
// floor, and that command's size.
TEST(ProcessBackendHelper, DISABLED_PeakUnderALargeParent) {
  const char* out = std::getenv("GPUGATE_TEST_PEAK_OUT");
  if (out == nullptr) GTEST_SKIP() << "run by PeakMemoryFloorIsGpugatesAddressSpaceNotWhatItInherited";
  std::ifstream status("/proc/self/status");
  const std::string text((std::istreambuf_iterator<char>(status)), std::istreambuf_iterator<char>());
  const int64_t own = detail::HighWaterFromProcStatus(text).value_or(0);
  const int64_t size = own + (int64_t{48} << 20);
  detail::CommandLine command;
  command.argv = {"dd", "if=/dev/zero", "of=/dev/null", "bs=" + std::to_string(size), "count=1"};
  command.envp = detail::InheritedEnvironment();
  auto r = detail::ExecuteOnce(command, 30, ProcessBackendOptions{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::ofstream(out) << r->max_rss_bytes.value_or(-1) << " " << r->rss_floor_bytes << " " << size << "\n";
}

TEST(ProcessBackendFloorTest, PeakMemoryFloorIsGpugatesAddressSpaceNotWhatItInherited) {
  // gpugate started by a process of 256 MiB (Python's subprocess.run):
  // getrusage(RUSAGE_SELF) holds that process's 256 MiB, which no child of
  // gpugate's inherits. A command 48 MiB above gpugate's own mark has its
  // own peak, recorded.
  char path[] = "/tmp/gpugate-floor-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char> ballast(256 << 20, 1);
    const std::string env = std::string("GPUGATE_TEST_PEAK_OUT=") + path;
    char* argv[] = {const_cast<char*>("gpugate_tests"), const_cast<char*>("--gtest_also_run_disabled_tests"),
                    const_cast<char*>("--gtest_filter=ProcessBackendHelper.DISABLED_PeakUnderALargeParent"),
                    nullptr};
    char* envp[] = {const_cast<char*>(env.c_str()), const_cast<char*>("PATH=/usr/bin:/bin"), nullptr};
    const int null = ::open("/dev/null", O_WRONLY);  // the helper's gtest lines stay out of this run's
    if (null >= 0) ::dup2(null, STDOUT_FILENO);
    if (ballast[ballast.size() / 2] == 1) ::execve("/proc/self/exe", argv, envp);
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  std::ifstream in(path);
  int64_t peak = 0, floor = 0, size = 0;
  in >> peak >> floor >> size;
  ::unlink(path);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_LT(size, int64_t{256} << 20) << "the helper's own mark leaves no room under the parent's";
  EXPECT_LT(floor, size);
  EXPECT_GE(peak, size) << "floor " << floor;
}

TEST_F(ProcessBackendTest, TimeoutKillsWholeProcessGroup) {
  const fs::path pidfile = dir_ / "grandchild.pid";
  auto spec = Command({"/bin/sh", "-c", "sleep 100 & echo $! > '" + pidfile.string() + "'; wait"}, 0.5);
  const auto start = std::chrono::steady_clock::now();
  auto r = RunOnce(spec);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "timed out after 500 ms");
  EXPECT_EQ(r.error().code, ExitCode::kToolError);
  EXPECT_LT(took, 5.0);
  const pid_t grandchild = static_cast<pid_t>(std::stol(ReadText(pidfile)));
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(WaitGone(grandchild, 2.0)) << "grandchild sleep " << grandchild << " survived";
}

// A timeout under 50 ms is said in its own unit, not as "0.0s".
TEST_F(ProcessBackendTest, AShortTimeoutIsSaidInItsOwnUnit) {
  auto r = RunOnce(Command({"/bin/sleep", "5"}, 0.04));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "timed out after 40.0 ms");
  EXPECT_EQ(detail::TimedOutMessage(90), "timed out after 90.0 s");
}

TEST_F(ProcessBackendTest, TimeoutEscalatesToSigkill) {
  // Both the shell and its grandchild ignore SIGTERM; only SIGKILL ends them.
  const fs::path pidfile = dir_ / "stubborn.pid";
  auto spec = Command(
      {"/bin/sh", "-c", "trap '' TERM; sleep 100 & echo $! > '" + pidfile.string() + "'; wait"}, 0.5);
  const auto start = std::chrono::steady_clock::now();
  auto r = RunOnce(spec);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "timed out after 500 ms");
  EXPECT_LT(took, 5.0);
  const pid_t grandchild = static_cast<pid_t>(std::stol(ReadText(pidfile)));
  EXPECT_TRUE(WaitGone(grandchild, 2.0));
}

TEST_F(ProcessBackendTest, CrashIsReportedWithSignalAndStderr) {
  auto r = RunOnce(Command({"/bin/sh", "-c", "echo 'about to crash' >&2; kill -SEGV $$"}));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("killed by signal SIGSEGV (11)"), std::string::npos) << m;
  EXPECT_NE(m.find("about to crash"), std::string::npos) << m;
  EXPECT_EQ(r.error().code, ExitCode::kToolError);
}

TEST_F(ProcessBackendTest, NonZeroExitKeepsLast20LinesOfStderr) {
  auto r = RunOnce(Command(
      {"/bin/sh", "-c", "i=1; while [ $i -le 50 ]; do echo line$i >&2; i=$((i+1)); done; exit 3"}));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("command '/bin/sh' exited with status 3"), std::string::npos) << m;
  EXPECT_NE(m.find("line31\n"), std::string::npos) << m;
  EXPECT_NE(m.find("line50"), std::string::npos) << m;
  EXPECT_EQ(m.find("line30\n"), std::string::npos) << m;
}

TEST_F(ProcessBackendTest, LargeStderrDoesNotDeadlock) {
  // 1 MiB of stderr is far beyond a pipe's buffer; the parent must drain it.
  auto r = RunOnce(Command({"/bin/sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' x >&2"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
}

TEST_F(ProcessBackendTest, EnvAndCwdAreHonoured) {
  auto spec = Command({"/bin/sh", "-c", "printf '%s' \"$GPUGATE_TEST_VALUE\" > out.txt"});
  spec.env = {{"GPUGATE_TEST_VALUE", "hello world"}};
  spec.cwd = dir_.string();
  auto r = RunOnce(spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ReadText(dir_ / "out.txt"), "hello world");
}

TEST_F(ProcessBackendTest, EnvironmentIsInherited) {
  ::setenv("GPUGATE_INHERITED_TEST", "from-parent", 1);
  auto spec = Command({"/bin/sh", "-c", "test \"$GPUGATE_INHERITED_TEST\" = from-parent"});
  auto r = RunOnce(spec);
  ::unsetenv("GPUGATE_INHERITED_TEST");
  EXPECT_TRUE(r.ok()) << r.error().message;
}

TEST_F(ProcessBackendTest, RelativeCwdIsResolvedAgainstSuiteFolder) {
  fs::create_directory(dir_ / "work");
  auto spec = Command({"/bin/sh", "-c", "pwd > here.txt"});
  spec.cwd = "work";
  spec.location.file = (dir_ / "suite.yaml").string();
  spec.location.line = 3;
  auto r = RunOnce(spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ReadText(dir_ / "work" / "here.txt"), (dir_ / "work").string() + "\n");
}

TEST_F(ProcessBackendTest, NoShellUnlessAsked) {
  auto spec = Command({"touch", "file;touch injected"});
  spec.cwd = dir_.string();
  auto r = RunOnce(spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(fs::exists(dir_ / "file;touch injected"));
  EXPECT_FALSE(fs::exists(dir_ / "injected"));
}

TEST_F(ProcessBackendTest, ShellTrueRunsThroughSh) {
  auto spec = Command({"touch a; touch \"$1\"", "b"});
  spec.shell = true;
  spec.cwd = dir_.string();
  auto r = RunOnce(spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(fs::exists(dir_ / "a"));
  EXPECT_TRUE(fs::exists(dir_ / "b"));
}

// A program named without a '/' is found on the workload's own PATH, as a
// shell or execvpe finds it, not on gpugate's: `env: {PATH: ...}` selects the
// binary that is timed.
TEST_F(ProcessBackendTest, BareProgramIsFoundOnTheWorkloadsPath) {
  fs::create_directory(dir_ / "newbin");
  {
    std::ofstream script(dir_ / "newbin" / "true");
    script << "#!/bin/sh\nexit 7\n";
  }
  fs::permissions(dir_ / "newbin" / "true", fs::perms::owner_all);
  auto spec = Command({"true"});
  spec.env = {{"PATH", (dir_ / "newbin").string() + ":/usr/bin:/bin"}};
  auto r = RunOnce(spec);
  ASSERT_FALSE(r.ok()) << "ran /usr/bin/true, not newbin/true";
  EXPECT_NE(r.error().message.find("command 'true' exited with status 7"), std::string::npos) << r.error().message;
  // A relative PATH entry is taken from the workload's folder.
  spec.env = {{"PATH", "newbin:/usr/bin:/bin"}};
  spec.cwd = dir_.string();
  r = RunOnce(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exited with status 7"), std::string::npos) << r.error().message;
  // Not on the workload's PATH: not found, whatever gpugate's PATH holds.
  spec.env = {{"PATH", (dir_ / "empty").string()}};
  r = RunOnce(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot run 'true': No such file or directory (searched the workload's PATH: " +
                                   (dir_ / "empty").string() + ")");
}

TEST(ProcessDetailTest, FindProgramSearchesTheChildsPath) {
  detail::CommandLine c;
  c.argv = {"sh"};
  c.envp = {"HOME=/x", "PATH=/nonexistent:/bin"};
  EXPECT_EQ(detail::FindProgram(c).value(), "/bin/sh");
  c.envp = {"HOME=/x"};  // no PATH: execvp's default
  EXPECT_EQ(detail::FindProgram(c).value(), "/bin/sh");
  c.argv = {"./sh"};  // a '/' in the name: taken as written
  EXPECT_EQ(detail::FindProgram(c).value(), "./sh");
  EXPECT_EQ(detail::EnvironmentValue({"PATHX=1", "PATH=a:b"}, "PATH"), "a:b");
  EXPECT_EQ(detail::EnvironmentValue({"A=1"}, "PATH"), std::nullopt);
}

TEST_F(ProcessBackendTest, MissingProgramIsToolError) {
  auto r = RunOnce(Command({"/nonexistent/gpugate-no-such-program"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "cannot run '/nonexistent/gpugate-no-such-program': No such file or directory");
}

TEST_F(ProcessBackendTest, BadCwdAndEmptyArgvAreInputErrors) {
  auto spec = Command({"true"});
  spec.cwd = (dir_ / "missing").string();
  spec.location = SourceLocation{"suite.yaml", 7, 5};
  auto r = backend_.Prepare(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ExitCode::kInputError);
  EXPECT_EQ(r.error().message.rfind("suite.yaml:7:5: workload 'cmd': cwd '", 0), 0u) << r.error().message;
  auto empty = backend_.Prepare(Command({}));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ExitCode::kInputError);
}

TEST_F(ProcessBackendTest, SpawnOverheadIsMeasuredOnce) {
  auto a = backend_.Prepare(Command({"true"}));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(backend_.spawn_overhead_seconds().has_value());
  const double first = *backend_.spawn_overhead_seconds();
  EXPECT_GT(first, 0);
  EXPECT_LT(first, 1.0);
  auto b = backend_.Prepare(Command({"true"}));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*backend_.spawn_overhead_seconds(), first);
  WorkloadResult result;
  (*b)->Annotate(result);
  EXPECT_EQ(result.counters.at("spawn_overhead_s"), first);
}

TEST_F(ProcessBackendTest, BudgetIsSharedByExecutions) {
  // Each execution takes ~0.3 s; the 1 s budget covers about three of them.
  auto inst = backend_.Prepare(Command({"sleep", "0.3"}, 1.0));
  ASSERT_TRUE(inst.ok());
  int ok = 0;
  Result<Sample> last = ToolError("not run");
  for (int i = 0; i < 10; ++i) {
    last = (*inst)->RunSample();
    if (!last.ok()) break;
    ++ok;
  }
  EXPECT_GE(ok, 1);  // at most 3 fit; fewer when the machine is very busy
  EXPECT_LE(ok, 3);
  ASSERT_FALSE(last.ok());
  EXPECT_EQ(last.error().message, "timed out after 1.00 s");
}

// --- processes an execution leaves behind ------------------------------------

class LeftoverTest : public ProcessBackendTest {
 protected:
  // Runs `script` once under sh; the script writes the pids it leaves
  // behind to $PIDS, one a line.
  detail::ExecOutcome Run(const std::string& script) {
    detail::CommandLine c;
    c.argv = {"/bin/sh", "-c", script};
    c.envp = detail::MergeEnvironment(detail::InheritedEnvironment(), {{"PIDS", Pids().string()}});
    auto r = detail::ExecuteOnce(c, 30, ProcessBackendOptions{});
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : detail::ExecOutcome{};
  }
  fs::path Pids() const { return dir_ / "pids"; }
  std::vector<pid_t> LeftPids() {
    std::vector<pid_t> out;
    std::istringstream in(ReadText(Pids()));
    for (long p; in >> p;) out.push_back(static_cast<pid_t>(p));
    return out;
  }
  static bool Has(const std::vector<pid_t>& v, pid_t p) { return std::find(v.begin(), v.end(), p) != v.end(); }
  // The result's notes other than the one on peak memory.
  static std::vector<std::string> LeftoverNotes(const WorkloadResult& r) {
    std::vector<std::string> out;
    for (const std::string& n : r.notes)
      if (n.rfind("peak memory ", 0) != 0) out.push_back(n);
    return out;
  }
};

TEST_F(LeftoverTest, AFirstProcessThatLeftItsGroupIsStillTimedOut) {
  // The workload's first process forks a child that starts a group of its
  // own, then moves itself into that group: its old group is empty, so
  // signalling the group alone reached nothing and the wait never ended.
  if (std::system("perl -e 1 >/dev/null 2>&1") != 0) GTEST_SKIP() << "needs perl";
  detail::CommandLine c;
  c.argv = {"perl", "-e",
            "my $c = fork; if (!$c) { setpgrp(0, 0); sleep 30; exit 0 } "
            "select(undef, undef, undef, 0.2); setpgrp(0, $c) or die; sleep 30"};
  c.envp = detail::InheritedEnvironment();
  const auto start = std::chrono::steady_clock::now();
  auto r = detail::ExecuteOnce(c, 1.0, ProcessBackendOptions{});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(took, 10.0);
  EXPECT_EQ(r->leftovers.ended.size(), 1u);  // the child, found by its parent link
}

TEST_F(LeftoverTest, AStatusThatCannotBeReadIsAnErrorNotASuccess) {
  // With SIGCHLD ignored the kernel reaps children itself: a failing
  // command must not read as exit status 0. (main() resets SIGCHLD; this is
  // the check behind it.)
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ASSERT_EQ(::sigaction(SIGCHLD, &ignore, &old), 0);
  detail::CommandLine c;
  c.argv = {"/bin/false"};
  c.envp = detail::InheritedEnvironment();
  auto r = detail::ExecuteOnce(c, 30, ProcessBackendOptions{});
  ::sigaction(SIGCHLD, &old, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cannot read how '/bin/false' ended"), std::string::npos) << r.error().message;
}

TEST_F(LeftoverTest, AWellBehavedCommandLeavesNothing) {
  detail::ExecOutcome o = Run("sleep 0.01 & wait");
  EXPECT_TRUE(o.leftovers.empty());
  EXPECT_EQ(o.wait_status, 0);
}

TEST_F(LeftoverTest, BackgroundChildIsEndedAndReaped) {
  detail::ExecOutcome o = Run("sleep 30 & echo $! > \"$PIDS\"");
  std::vector<pid_t> left = LeftPids();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(o.leftovers.ended, left);
  EXPECT_EQ(o.leftovers.needed_sigkill, 0);  // sleep dies of SIGTERM
  EXPECT_TRUE(o.leftovers.survivors.empty());
  EXPECT_TRUE(ProcessGone(left[0]));  // ended and reaped, not a zombie
}

TEST_F(LeftoverTest, SetsidDaemonWhoseParentExitedIsFound) {
  // The subshell starts a new session and exits: the sleeper's parent is
  // gone, so only subreaping brings it back to gpugate.
  detail::ExecOutcome o = Run("( setsid sleep 30 & echo $! > \"$PIDS\" )");
  std::vector<pid_t> left = LeftPids();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(Has(o.leftovers.ended, left[0]));
  EXPECT_TRUE(ProcessGone(left[0]));
}

TEST_F(LeftoverTest, IgnoringSigtermEndsWithSigkill) {
  detail::ExecOutcome o = Run("trap '' TERM; sleep 30 & echo $! > \"$PIDS\"");
  std::vector<pid_t> left = LeftPids();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(o.leftovers.ended, left);
  EXPECT_EQ(o.leftovers.needed_sigkill, 1);
  EXPECT_TRUE(ProcessGone(left[0]));
}

TEST_F(LeftoverTest, StoppedChildIsContinuedAndEnded) {
  detail::ExecOutcome o = Run("sleep 30 & kill -STOP $!; echo $! > \"$PIDS\"");
  std::vector<pid_t> left = LeftPids();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(o.leftovers.ended, left);
  EXPECT_EQ(o.leftovers.needed_sigkill, 0);  // SIGCONT let SIGTERM through
  EXPECT_TRUE(ProcessGone(left[0]));
}

TEST_F(LeftoverTest, AProcessWhoseMainThreadExitedIsEndedNotTakenForAZombie) {
  // Its /proc stat reads Z while its other thread runs: it must be signalled
  // and counted as ended only once gone, not "reaped" as a zombie after the
  // 2 s bound while it runs on.
  detail::CommandLine c;
  c.argv = {GPUGATE_ORPHAN_PROBE, "main-thread-exited", "30"};
  c.envp = detail::InheritedEnvironment();
  const auto start = std::chrono::steady_clock::now();
  auto r = detail::ExecuteOnce(c, 30, ProcessBackendOptions{});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->leftovers.ended.size(), 1u);
  const pid_t left = r->leftovers.ended[0];
  const bool gone = ::kill(left, 0) != 0 && errno == ESRCH;  // ended and reaped
  if (!gone) ::kill(left, SIGKILL);
  EXPECT_TRUE(gone) << "pid " << left << " still runs";
  EXPECT_EQ(r->leftovers.zombies, 0);
  EXPECT_TRUE(r->leftovers.survivors.empty());
  EXPECT_EQ(r->leftovers.needed_sigkill, 0);  // SIGTERM reached its running thread
  EXPECT_LT(took, 1.5);
}

TEST_F(LeftoverTest, ChildHoldingStderrDoesNotHoldTheExecution) {
  // The sleeper keeps the stderr pipe open; its end of file comes once it
  // was ended, and what the command wrote is kept.
  const auto start = std::chrono::steady_clock::now();
  detail::ExecOutcome o = Run("echo 'last words' >&2; sleep 30 & echo $! > \"$PIDS\"");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 15.0);  // far below the sleeper's 30 s
  EXPECT_EQ(o.stderr_tail, "last words");
  EXPECT_EQ(o.leftovers.ended.size(), 1u);
}

TEST_F(LeftoverTest, OlderChildrenOfGpugateAreLeftAlone) {
  // A child this process started before the execution (as a shell that
  // exec'ed gpugate would leave) is not the workload's.
  pid_t older = -1;
  const char* argv[] = {"sleep", "30", nullptr};
  ASSERT_EQ(::posix_spawnp(&older, "sleep", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  // Start times have clock-tick resolution: let a few ticks pass.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  detail::ExecOutcome o = Run("sleep 30 & echo $! > \"$PIDS\"");
  EXPECT_FALSE(Has(o.leftovers.ended, older));
  EXPECT_EQ(o.leftovers.ended.size(), 1u);
  EXPECT_EQ(::kill(older, 0), 0) << "the older child was signalled";
  int status = 0;
  EXPECT_EQ(::waitpid(older, &status, WNOHANG), 0) << "the older child was reaped or ended";
  ::kill(older, SIGKILL);
  ::waitpid(older, &status, 0);
}

TEST_F(LeftoverTest, WorkloadResultCarriesOneNoteOverItsExecutions) {
  WorkloadSpec spec = Command({"/bin/sh", "-c", "sleep 30 &"});
  spec.sampling.warmup = 0;
  spec.sampling.rounds = 1;
  spec.sampling.min_samples = 3;
  spec.sampling.max_samples = 3;
  spec.sampling.min_time = 0;
  WorkloadResult r = RunWorkload(spec, backend_);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  // One note of leftovers (and one of a shell's peak memory, below this process's).
  const std::vector<std::string> notes = LeftoverNotes(r);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("ended 3 processes the workload left behind in 3 of 3 executions (pids ", 0), 0u)
      << notes[0];
}

TEST_F(LeftoverTest, NoNoteWithoutLeftovers) {
  WorkloadSpec spec = Command({"true"});
  spec.sampling.warmup = 0;
  spec.sampling.rounds = 1;
  spec.sampling.min_samples = 2;
  spec.sampling.max_samples = 2;
  spec.sampling.min_time = 0;
  WorkloadResult r = RunWorkload(spec, backend_);
  ASSERT_EQ(r.status, WorkloadStatus::kOk) << r.reason;
  EXPECT_TRUE(LeftoverNotes(r).empty());
}

TEST(ProcessDetailTest, TailLines) {
  EXPECT_EQ(detail::TailLines("a\nb\nc\n", 2, 100), "b\nc");
  EXPECT_EQ(detail::TailLines("a\nb\nc", 5, 100), "a\nb\nc");
  EXPECT_EQ(detail::TailLines("abcdef", 3, 4), "cdef");
  EXPECT_EQ(detail::TailLines("", 3, 4), "");
  EXPECT_EQ(detail::TailLines("x\n", 0, 4), "");
}

TEST(ProcessDetailTest, DescribeWaitStatus) {
  // Wait statuses built by real children (portable across libcs).
  pid_t p = ::fork();
  if (p == 0) ::_exit(7);
  int st = 0;
  ASSERT_EQ(::waitpid(p, &st, 0), p);
  EXPECT_EQ(detail::DescribeWaitStatus(st), "exited with status 7");
  p = ::fork();
  if (p == 0) {
    ::raise(SIGTERM);
    ::_exit(0);
  }
  ASSERT_EQ(::waitpid(p, &st, 0), p);
  EXPECT_EQ(detail::DescribeWaitStatus(st), "killed by signal SIGTERM (15)");
  EXPECT_EQ(detail::SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(detail::SignalName(63), "signal 63");
}

TEST(ProcessDetailTest, MergeEnvironmentOverridesAndAppends) {
  auto env = detail::MergeEnvironment({"A=1", "B=2", "C=x=y"}, {{"B", "3"}, {"D", "4"}});
  EXPECT_EQ(env, (std::vector<std::string>{"A=1", "C=x=y", "B=3", "D=4"}));
}

}  // namespace
}  // namespace gpugate
