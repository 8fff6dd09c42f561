// End-to-end: a signal that ends gpugate (Ctrl-C, a cancelled CI job) ends
// the workload it is running, and what that workload started, too; gpugate
// itself ends by the same signal.
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/run_binary.h"

extern char** environ;

namespace gpugate {
namespace {

using testing::MakeTempDir;
using testing::RemoveTree;
using testing::WriteAll;

// The pid written to `path` once it is complete, or 0 after `seconds`.
pid_t WaitForPid(const std::string& path, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::ifstream in(path);
    std::string text;
    if (std::getline(in, text) && !text.empty() && in.good()) return static_cast<pid_t>(std::stol(text));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

bool Alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// Waits up to `seconds` for `pid` to be gone (not even a zombie of ours).
bool GoneWithin(pid_t pid, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (!Alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !Alive(pid);
}

// Starts `gpugate run SUITE -q -o OUT` with `sig` at its default disposition
// and unblocked (the test runner may ignore or block it; gpugate must see it
// as from a terminal or a CI runner). Returns its pid, or 0.
pid_t SpawnRun(const std::string& suite, const std::string& out, int sig) {
  std::vector<std::string> args = {GPUGATE_BINARY, "run", suite, "-q", "-o", out};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, sig);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  if (::posix_spawn(&pid, argv[0], nullptr, &attr, argv.data(), environ) != 0) pid = 0;
  posix_spawnattr_destroy(&attr);
  return pid;
}

TEST(InterruptCliTest, ASignalToGpugateEndsTheRunningWorkloadAndWhatItStarted) {
  // SIGQUIT and SIGXCPU end a process with a core file: none is wanted here.
  rlimit no_core{0, 0};
  ASSERT_EQ(::setrlimit(RLIMIT_CORE, &no_core), 0);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU}) {
    SCOPED_TRACE(sig);
    const std::string dir = MakeTempDir();
    // The workload starts a background child and waits for it: both must go.
    WriteAll(dir + "/s.yaml", "version: 1\nworkloads:\n  - name: long\n    kind: command\n"
                              "    argv: [/bin/sh, -c, 'sleep 30 & echo $! > " + dir +
                                  "/child.tmp && mv " + dir + "/child.tmp " + dir +
                                  "/child; echo $$ > " + dir + "/sh.tmp && mv " + dir + "/sh.tmp " +
                                  dir + "/sh; wait']\n"
                                  "    timeout: 60s\n    rounds: 1\n    warmup: 0\n"
                                  "    min_samples: 1\n    max_samples: 1\n");
    const pid_t gpugate = SpawnRun(dir + "/s.yaml", dir + "/r.json", sig);
    ASSERT_GT(gpugate, 0);

    const pid_t child = WaitForPid(dir + "/child", 20);
    const pid_t shell = WaitForPid(dir + "/sh", 20);
    ASSERT_GT(child, 0);
    ASSERT_GT(shell, 0);
    ASSERT_EQ(::kill(gpugate, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(gpugate, &status, 0), gpugate);
    EXPECT_TRUE(WIFSIGNALED(status)) << status;
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(WTERMSIG(status), sig);
    }
    // Reparented to init (not ours to reap), so give it a moment to go.
    EXPECT_TRUE(GoneWithin(shell, 5));
    EXPECT_TRUE(GoneWithin(child, 5));
    if (Alive(child)) ::kill(child, SIGKILL);
    if (Alive(shell)) ::kill(shell, SIGKILL);
    // Nothing half-written.
    EXPECT_FALSE(std::ifstream(dir + "/r.json").good());
    RemoveTree(dir);
  }
}

// Two signals in a row (Ctrl-C pressed twice): the second kills at once and
// still ends what the workload left outside its group, a `setsid` daemon
// that ignores SIGTERM.
TEST(InterruptCliTest, ASecondSignalStillEndsADaemonTheWorkloadLeft) {
  const std::string dir = MakeTempDir();
  WriteAll(dir + "/d.sh", "trap '' TERM\necho $$ > " + dir + "/d.tmp && mv " + dir + "/d.tmp " + dir +
                             "/daemon\nexec sleep 30\n");
  WriteAll(dir + "/s.yaml", "version: 1\nworkloads:\n  - name: long\n    kind: command\n"
                            "    argv: [/bin/sh, -c, \"trap '' TERM; setsid /bin/sh " + dir + "/d.sh & wait\"]\n"
                            "    timeout: 60s\n    rounds: 1\n    warmup: 0\n"
                            "    min_samples: 1\n    max_samples: 1\n");
  const pid_t gpugate = SpawnRun(dir + "/s.yaml", dir + "/r.json", SIGINT);
  ASSERT_GT(gpugate, 0);

  const pid_t daemon_pid = WaitForPid(dir + "/daemon", 20);
  ASSERT_GT(daemon_pid, 0);
  ASSERT_EQ(::kill(gpugate, SIGINT), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // within the 0.2 s grace period
  ::kill(gpugate, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(gpugate, &status, 0), gpugate);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_TRUE(GoneWithin(daemon_pid, 5));
  if (Alive(daemon_pid)) ::kill(daemon_pid, SIGKILL);
  EXPECT_FALSE(std::ifstream(dir + "/r.json").good());
  RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
