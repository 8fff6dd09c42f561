// Ending gpugate with a signal (Ctrl-C or Ctrl-\\ at a terminal, a cancelled
// CI job, a timeout tool, `ulimit -t`: SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU) ends the workload it
// is running as well. Each
// workload process runs in its own process group (so a terminal's Ctrl-C does
// not reach it, and a timeout can end all of it); without this, gpugate would
// die and leave that group running, reparented to init.
//
// InstallInterruptHandling() (main) installs a handler for those signals.
// While a workload process runs, a ChildGroupGuard names its group. The first
// signal asks every named group to stop (SIGTERM) and is remembered;
// process_backend's wait loop sees it, gives the group its grace period, kills
// what is left (SIGKILL), reaps it and what it left behind, and then calls
// DieOfPendingInterrupt(), which ends gpugate by the same signal (exit status
// 128 + signal, as the shell and CI runners expect). With no workload running
// the signal ends gpugate at once, as it did without the handler. A second
// signal kills the groups (SIGKILL) and makes every grace period end now
// (InterruptIsUrgent): what the workload left behind outside its group (a
// `setsid` daemon) is still found and killed, without waiting. A third ends
// gpugate at once.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace gpugate {

/// Installs the handler for the signals above that are at their default
/// action: one the caller ignores stays ignored, one with a handler keeps it
/// (a handler, unlike SIG_IGN, is reset to the default in programs gpugate
/// starts).
void InstallInterruptHandling();

/// The signal received while a workload ran, or 0.
int PendingInterrupt();

/// True after a second signal: grace periods end now, SIGKILL at once.
bool InterruptIsUrgent();

/// Ends gpugate by the pending signal (default action), after one line on
/// stderr. Returns only if no signal is pending.
void DieOfPendingInterrupt();

/// Blocks the handled signals for its lifetime (restoring the previous
/// mask after), so that a child can be started and its group named without a
/// signal falling between the two.
class InterruptsBlocked {
 public:
  InterruptsBlocked();
  ~InterruptsBlocked();
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;

 private:
  sigset_t previous_;
};

/// Names a running workload's process group for the handler. Release() (or
/// the destructor) takes the name back; call it before the group leader is
/// reaped, after which its id may name another group.
class ChildGroupGuard {
 public:
  explicit ChildGroupGuard(pid_t pgid);
  ~ChildGroupGuard() { Release(); }
  void Release();
  ChildGroupGuard(const ChildGroupGuard&) = delete;
  ChildGroupGuard& operator=(const ChildGroupGuard&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace gpugate
