// Signals that end gpugate end the workload it runs too (interrupt.h).
#include "harness/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "util/fs.h"

namespace gpugate {

namespace {

// Groups of the workload processes running now. A fixed array of atomics:
// the handler may only read lock-free state. Workloads run one at a time;
// the spare slots cover nested helpers (a profiler's probe run).
constexpr int kSlots = 8;
std::atomic<pid_t> g_groups[kSlots];
std::atomic<int> g_pending{0};
std::atomic<int> g_count{0};  // signals received while a workload ran

// Every signal whose default action ends a process and that someone else
// may send gpugate: a terminal (Ctrl-C, Ctrl-\\, a closed terminal), a CI
// runner or a supervisor (SIGTERM, SIGUSR1/2 and SIGALRM of timeout tools),
// a limit (SIGXCPU of `ulimit -t`), a timer. SIGPIPE and SIGXFSZ come from
// gpugate's own writes and make those writes fail instead (main.cc);
// SIGKILL and SIGSTOP cannot be handled.
struct Named {
  int sig;
  const char* name;
};
constexpr Named kNamed[] = {{SIGINT, "SIGINT"},   {SIGTERM, "SIGTERM"},     {SIGHUP, "SIGHUP"},
                            {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"},     {SIGUSR2, "SIGUSR2"},
                            {SIGALRM, "SIGALRM"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},
                            {SIGXCPU, "SIGXCPU"}};

const char* NameOf(int sig) {
  for (const Named& n : kNamed)
    if (n.sig == sig) return n.name;
  return "a signal";
}

void EndNow(int sig) {
  // gpugate itself is busy (reading a benchmark program's JSON, writing a
  // results file): what it keeps in temporary folders, and the temp file of
  // a write not yet renamed into place, go with it.
  RemoveLiveTempsFromSignal();
  ::signal(sig, SIG_DFL);
  // Blocked while the handler runs: delivered, with its default action, as
  // soon as the handler returns.
  ::raise(sig);
}

void OnInterrupt(int sig) {
  const int saved_errno = errno;
  bool any = false;
  for (auto& g : g_groups)
    if (g.load() > 0) any = true;
  // The first signal asks the groups to stop, the second kills them and
  // cuts the grace periods short (the clean-up of what they left behind
  // still runs, at once), a third ends gpugate now.
  const int count = any ? g_count.fetch_add(1) + 1 : 0;
  if (!any || count >= 3) {
    EndNow(sig);
    errno = saved_errno;
    return;
  }
  for (auto& g : g_groups) {
    const pid_t pgid = g.load();
    if (pgid <= 0) continue;
    ::kill(-pgid, count >= 2 ? SIGKILL : SIGTERM);
    // The group's first process too, wherever it went: a process may leave
    // its group (setpgid), and the group id is its pid, which stays ours
    // until it is reaped.
    ::kill(pgid, count >= 2 ? SIGKILL : SIGTERM);
  }
  int expected = 0;
  g_pending.compare_exchange_strong(expected, sig);
  errno = saved_errno;
}

}  // namespace

void InstallInterruptHandling() {
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  for (const Named& n : kNamed) sigaddset(&action.sa_mask, n.sig);
  action.sa_flags = SA_RESTART;
  for (const Named& n : kNamed) {
    // A signal the caller ignores (nohup, a shell's background job) stays
    // ignored, and one that already has a handler (a preloaded profiler's
    // SIGPROF) keeps it.
    struct sigaction old {};
    if (::sigaction(n.sig, nullptr, &old) != 0) continue;
    const bool taken = (old.sa_flags & SA_SIGINFO) != 0
                           ? old.sa_sigaction != nullptr
                           : old.sa_handler != SIG_DFL && old.sa_handler != OnInterrupt;
    if (!taken) ::sigaction(n.sig, &action, nullptr);
  }
}

int PendingInterrupt() { return g_pending.load(); }

bool InterruptIsUrgent() { return g_count.load() >= 2; }

void DieOfPendingInterrupt() {
  const int sig = g_pending.load();
  if (sig == 0) return;
  const std::string line = std::string("gpugate: interrupted by ") + NameOf(sig) +
                           ": the running workload and what it started were ended\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  RemoveLiveTemps();  // the signal ends gpugate without unwinding
  ::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the default action of these signals ends the process
}

InterruptsBlocked::InterruptsBlocked() {
  sigset_t set;
  sigemptyset(&set);
  for (const Named& n : kNamed) sigaddset(&set, n.sig);
  ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

InterruptsBlocked::~InterruptsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

ChildGroupGuard::ChildGroupGuard(pid_t pgid) {
  if (pgid <= 0) return;
  for (int i = 0; i < kSlots; ++i) {
    pid_t empty = 0;
    if (g_groups[i].compare_exchange_strong(empty, pgid)) {
      slot_ = i;
      return;
    }
  }
}

void ChildGroupGuard::Release() {
  if (slot_ >= 0) g_groups[slot_].store(0);
  slot_ = -1;
}

}  // namespace gpugate
