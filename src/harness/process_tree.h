// Processes a workload leaves behind. While gpugate runs a workload process it
// is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so whatever that
// process starts and abandons -- background children, double-forked setsid
// daemons, children still holding its stderr pipe -- is reparented to gpugate
// instead of init. Once the workload process has exited (or was killed on
// timeout), EndLeftovers finds those processes in /proc by their parent links,
// asks them to stop (SIGTERM, SIGCONT for stopped ones), waits a grace
// period, kills what remains (SIGKILL) and reaps every zombie; LeftoverTally
// turns what it did over a workload's executions into one note for the
// results. Semantics: docs/harness.md ("Processes a workload leaves behind").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpugate {

/// The fields of /proc/<pid>/stat this needs.
struct ProcStat {
  pid_t pid = 0;
  std::string comm;          ///< executable name as the kernel keeps it (may hold ' ' and ')')
  char state = '?';          ///< R, S, D, T, t, Z, X, ...
  pid_t ppid = 0;
  pid_t pgrp = 0;
  pid_t session = 0;
  int64_t threads = 1;       ///< field 20: threads of its thread group not yet released
  uint64_t start_ticks = 0;  ///< field 22: start time after boot, in clock ticks

  /// Exited, with no thread left running: only a reap is missing. A process
  /// whose main thread has ended (pthread_exit) while other threads run
  /// shows state Z as well, but counts 2 or more threads: it is running, and
  /// a signal to it reaches those threads.
  bool zombie() const { return (state == 'Z' || state == 'X' || state == 'x') && threads <= 1; }
  bool stopped() const { return state == 'T' || state == 't'; }
};

/// Sets PR_SET_CHILD_SUBREAPER for its lifetime and restores the previous
/// setting. Orphans of descendants started meanwhile are reparented to this
/// process, where EndLeftovers finds them.
class SubreaperScope {
 public:
  SubreaperScope();
  ~SubreaperScope();
  SubreaperScope(const SubreaperScope&) = delete;
  SubreaperScope& operator=(const SubreaperScope&) = delete;
  /// False when the kernel refused (not Linux >= 3.4): orphans then go to init.
  bool active() const { return active_; }

 private:
  bool active_ = false;
  bool was_subreaper_ = false;
};

struct LeftoverOptions {
  double term_grace_seconds = 0.2;  ///< SIGTERM -> SIGKILL delay
  /// Bound on the whole clean-up: a process that survives SIGKILL this long
  /// (uninterruptible sleep) is reported as a survivor and left alone.
  double max_seconds = 2.0;
  std::string proc_root = "/proc";  ///< tests point this at a fake tree
};

/// What EndLeftovers did after one execution.
struct LeftoverReport {
  std::vector<pid_t> ended;      ///< every process found, in the order found
  int needed_sigkill = 0;        ///< of them: still running after SIGTERM and the grace period
                                 ///< (one first found after it gets SIGKILL at once, not counted)
  int zombies = 0;               ///< of them: already exited (zombies), only reaped
  std::vector<pid_t> survivors;  ///< still there when max_seconds ran out
  double seconds = 0;            ///< time the clean-up took
  bool empty() const { return ended.empty() && survivors.empty(); }
};

/// Ends every process that descends from this process (by parent links in
/// /proc, recursively), started no earlier than `leader` and other than
/// `leader` itself: `leader` is the workload process, exited or killed but not
/// yet reaped (it stays a zombie, so its pid and process group id cannot be
/// reused). Sends SIGTERM (and SIGCONT to stopped processes) and SIGTERM to
/// the leader's process group, waits up to the grace period for them to exit,
/// then SIGKILL to the rest and to the group; processes forked meanwhile are
/// found by rescanning and get SIGKILL once the grace period is over. Every
/// zombie that ends up as this process's child is reaped. Signals go through
/// pidfds where the kernel has pidfd_open (5.3), each checked against the
/// start time seen in the scan, so a reused pid is never signalled. When this
/// process has no child but `leader` (read from /proc/self/task/*/children)
/// there is nothing to scan for, and it returns at once.
LeftoverReport EndLeftovers(pid_t leader, const LeftoverOptions& options = {});

/// Sums the reports of a workload's executions into one note.
class LeftoverTally {
 public:
  void Add(const LeftoverReport& report);
  /// Executions added so far, with and without leftovers.
  int executions() const { return executions_; }
  /// "ended 3 processes the workload left behind (pids 123, 124, 130)", with
  /// what it took (SIGKILL, zombies, survivors) and "in 2 of 5 executions"
  /// when there were several; empty when nothing was left behind.
  std::string Note(double term_grace_seconds = 0.2) const;

 private:
  int executions_ = 0;
  int with_leftovers_ = 0;
  std::vector<pid_t> ended_;
  int needed_sigkill_ = 0;
  int zombies_ = 0;
  std::vector<pid_t> survivors_;
};

namespace detail {

/// pidfd_open(2) of `pid`, or -1 with errno set (ENOSYS where the system
/// has no pidfd_open).
int OpenPidfd(pid_t pid);

/// Parses the text of /proc/<pid>/stat: "pid (comm) state ppid pgrp session
/// ... num_threads itrealvalue starttime ...". comm is everything between the first '(' and the last
/// ')'. Nothing when the text is not of that form.
std::optional<ProcStat> ParseProcStat(std::string_view text);

/// Every process under `proc_root` (its numeric folders' `stat` files);
/// processes that vanish while it reads are left out.
std::vector<ProcStat> ReadProcTable(const std::string& proc_root = "/proc");

/// The children of process `pid` from `<proc_root>/<pid>/task/*/children`
/// (alive and unreaped zombies), or nothing when the kernel does not have
/// those files (CONFIG_PROC_CHILDREN) or the process is gone.
std::optional<std::vector<pid_t>> ChildrenOf(const std::string& proc_root, pid_t pid);

/// The processes of `table` that descend from `ancestor` (its children, their
/// children, ...), parents before their children, leaving out the pids in
/// `exclude` and processes started before `not_before_ticks` (with their
/// descendants, which are not the workload's either).
std::vector<ProcStat> Descendants(const std::vector<ProcStat>& table, pid_t ancestor,
                                  const std::set<pid_t>& exclude, uint64_t not_before_ticks);

/// "123, 124, 130", or the first `max_listed` and "… (+N more)".
std::string PidList(const std::vector<pid_t>& pids, size_t max_listed = 10);

}  // namespace detail

}  // namespace gpugate
