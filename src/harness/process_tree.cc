// Processes a workload leaves behind (see process_tree.h). Recipe of a
// clean-up:
//   loop: Scan (/proc, parent links) -> Track new ones (pidfd) -> Reap
//   zombies -> Signal (SIGTERM, or SIGKILL once the grace period is over)
//   -> Wait (pidfds) until nothing is found or the bound runs out.
#include "harness/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "harness/interrupt.h"

namespace gpugate {

namespace {

double SteadyNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s; ++s)
    if (*s < '0' || *s > '9') return false;
  return true;
}

// Reads a small file whole (a stat line is well under 1 KiB).
std::optional<std::string> ReadSmallFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[1024];
  for (;;) {
    const ssize_t r = ::read(fd, buf, sizeof buf);
    if (r > 0) {
      out.append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    break;
  }
  ::close(fd);
  return out;
}

std::optional<ProcStat> ReadStat(const std::string& proc_root, pid_t pid) {
  auto text = ReadSmallFile(proc_root + "/" + std::to_string(pid) + "/stat");
  if (!text) return std::nullopt;
  return detail::ParseProcStat(*text);
}

// Sends through the pidfd when there is one (the process it names cannot be
// another one that got its pid), else by pid.
void SendSignal(pid_t pid, int pidfd, int sig) {
#ifdef SYS_pidfd_send_signal
  if (pidfd >= 0 && ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0) return;
  if (pidfd >= 0 && errno != ENOSYS) return;  // ESRCH: it has exited
#else
  (void)pidfd;
#endif
  ::kill(pid, sig);
}

// One clean-up after one execution.
class Cleanup {
 public:
  Cleanup(pid_t leader, const LeftoverOptions& options)
      : leader_(leader), options_(options), self_(::getpid()) {}

  ~Cleanup() {
    for (auto& [pid, t] : tracked_)
      if (t.pidfd >= 0) ::close(t.pidfd);
  }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;

  LeftoverReport Run() {
    Begin();
    if (!NothingBelowUs())
      while (Pass()) {
      }
    return Summarize();
  }

 private:
  struct Tracked {
    uint64_t start_ticks = 0;
    int pidfd = -1;
    bool zombie_when_found = false;
    bool termed = false;
    bool killed = false;
  };

  // --- steps ---------------------------------------------------------------

  void Begin() {
    start_ = SteadyNow();
    grace_end_ = start_ + options_.term_grace_seconds;
    hard_end_ = start_ + std::max(options_.max_seconds, options_.term_grace_seconds);
    // The workload's processes started no earlier than its leader; older
    // children of gpugate (or of whoever exec'ed it) are not the workload's.
    if (auto leader = ReadStat(options_.proc_root, leader_)) not_before_ = leader->start_ticks;
  }

  // No child but the leader means nothing below us at all: a leftover's
  // chain up to us starts with one of our children (alive, or a zombie until
  // we reap it). Cheap, so the usual case needs no scan of /proc.
  bool NothingBelowUs() const {
    auto children = detail::ChildrenOf(options_.proc_root, self_);
    return children && std::all_of(children->begin(), children->end(),
                                   [this](pid_t c) { return c == leader_; });
  }

  // One scan: reap, signal, wait. False once nothing is found or the bound
  // has run out.
  bool Pass() {
    const std::vector<ProcStat> found = Scan();
    if (found.empty()) return false;
    // A second signal to gpugate (interrupt.h) ends the grace period now.
    const bool after_grace = SteadyNow() >= grace_end_ || InterruptIsUrgent();
    std::vector<int> waitable;
    bool reaped = false;
    for (const ProcStat& p : found) {
      Tracked* t = Track(p);
      if (p.zombie()) {
        reaped = Reap(p) || reaped;
        continue;
      }
      if (t == nullptr) continue;  // the pid was reused between scan and pidfd_open
      Signal(p, *t, after_grace);
      if (t->pidfd >= 0) waitable.push_back(t->pidfd);
    }
    SignalGroup(found, after_grace);
    if (SteadyNow() >= hard_end_) {
      for (const ProcStat& p : found)
        if (!p.zombie() || p.ppid != self_) report_.survivors.push_back(p.pid);
      return false;
    }
    // A pass that only reaped is followed by the next scan at once.
    if (!reaped || !waitable.empty()) Wait(waitable, after_grace);
    return true;
  }

  LeftoverReport Summarize() {
    for (pid_t pid : order_) {
      const Tracked& t = tracked_.at(pid);
      if (std::find(report_.survivors.begin(), report_.survivors.end(), pid) != report_.survivors.end())
        continue;
      report_.ended.push_back(pid);
      if (t.zombie_when_found) ++report_.zombies;
      if (t.killed && t.termed) ++report_.needed_sigkill;
    }
    report_.seconds = SteadyNow() - start_;
    return report_;
  }

  // --- helpers ---------------------------------------------------------------

  // Reaps a zombie that is our child (its pid cannot have been reused: an
  // unreaped zombie keeps it). One below a living leftover waits until that
  // one is ended and it is reparented to us.
  bool Reap(const ProcStat& p) const {
    return p.ppid == self_ && ::waitpid(p.pid, nullptr, WNOHANG) == p.pid;
  }

  std::vector<ProcStat> Scan() const {
    return detail::Descendants(detail::ReadProcTable(options_.proc_root), self_, {leader_}, not_before_);
  }

  // The tracked entry of `p`, opening its pidfd the first time it is seen.
  // Null when the pid now names another process than the scan saw.
  Tracked* Track(const ProcStat& p) {
    auto it = tracked_.find(p.pid);
    if (it != tracked_.end()) {
      if (it->second.start_ticks == p.start_ticks) return &it->second;
      // The tracked process is gone and a newer one of the tree has its pid.
      if (it->second.pidfd >= 0) ::close(it->second.pidfd);
      tracked_.erase(it);
    }
    Tracked t;
    t.start_ticks = p.start_ticks;
    t.zombie_when_found = p.zombie();
    if (!p.zombie()) {
      t.pidfd = detail::OpenPidfd(p.pid);
      // The pidfd names whatever has the pid now: check it is the process
      // the scan saw (same start time), else leave it to the next scan.
      auto now = ReadStat(options_.proc_root, p.pid);
      if (!now || now->start_ticks != p.start_ticks) {
        if (t.pidfd >= 0) ::close(t.pidfd);
        return nullptr;
      }
    }
    order_.push_back(p.pid);
    return &tracked_.emplace(p.pid, t).first->second;
  }

  // SIGTERM (and SIGCONT, so a stopped process gets to handle it) the first
  // time a process is seen in the grace period; SIGKILL after it (at once
  // for a process first seen then).
  void Signal(const ProcStat& p, Tracked& t, bool after_grace) {
    if (!t.termed && !after_grace) {
      SendSignal(p.pid, t.pidfd, SIGTERM);
      if (p.stopped()) SendSignal(p.pid, t.pidfd, SIGCONT);
      t.termed = true;
    }
    if (after_grace && !t.killed) {
      SendSignal(p.pid, t.pidfd, SIGKILL);
      t.killed = true;
    }
  }

  // The leader's process group too (members that left the tree's parent
  // links cannot, but the group is what a timeout kills): the leader is not
  // reaped yet, so the group id is still ours.
  void SignalGroup(const std::vector<ProcStat>& found, bool after_grace) {
    const bool running = std::any_of(found.begin(), found.end(), [](const ProcStat& p) { return !p.zombie(); });
    if (!running) return;
    if (!group_termed_) {
      ::killpg(leader_, SIGTERM);
      ::killpg(leader_, SIGCONT);
      group_termed_ = true;
    }
    if (after_grace && !group_killed_) {
      ::killpg(leader_, SIGKILL);
      group_killed_ = true;
    }
  }

  // Sleeps until a running process exits, the grace period ends, or 20 ms
  // pass (processes forked meanwhile and zombies reparented to us are found
  // by the next scan).
  void Wait(std::vector<int>& pidfds, bool after_grace) const {
    double wait = 0.02;
    if (!after_grace) wait = std::min(wait, std::max(0.0, grace_end_ - SteadyNow()));
    const int timeout_ms = std::max(1, static_cast<int>(std::ceil(wait * 1000.0)));
    if (pidfds.empty()) {
      ::usleep(static_cast<useconds_t>(std::min(timeout_ms, 5)) * 1000);
      return;
    }
    std::vector<pollfd> fds;
    for (int fd : pidfds) fds.push_back(pollfd{fd, POLLIN, 0});
    ::poll(fds.data(), static_cast<nfds_t>(fds.size()), timeout_ms);
  }

  const pid_t leader_;
  const LeftoverOptions& options_;
  const pid_t self_;
  uint64_t not_before_ = 0;
  double start_ = 0, grace_end_ = 0, hard_end_ = 0;
  bool group_termed_ = false, group_killed_ = false;
  std::map<pid_t, Tracked> tracked_;
  std::vector<pid_t> order_;
  LeftoverReport report_;
};

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

// --- SubreaperScope ----------------------------------------------------------

SubreaperScope::SubreaperScope() {
  int current = 0;
  if (::prctl(PR_GET_CHILD_SUBREAPER, &current, 0, 0, 0) == 0) was_subreaper_ = current != 0;
  active_ = was_subreaper_ || ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

SubreaperScope::~SubreaperScope() {
  if (active_ && !was_subreaper_) ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

// --- EndLeftovers -------------------------------------------------------------

LeftoverReport EndLeftovers(pid_t leader, const LeftoverOptions& options) {
  return Cleanup(leader, options).Run();
}

// --- LeftoverTally ------------------------------------------------------------

void LeftoverTally::Add(const LeftoverReport& report) {
  ++executions_;
  if (report.empty()) return;
  ++with_leftovers_;
  ended_.insert(ended_.end(), report.ended.begin(), report.ended.end());
  needed_sigkill_ += report.needed_sigkill;
  zombies_ += report.zombies;
  survivors_.insert(survivors_.end(), report.survivors.begin(), report.survivors.end());
}

std::string LeftoverTally::Note(double term_grace_seconds) const {
  if (ended_.empty() && survivors_.empty()) return "";
  const std::vector<pid_t>& named = ended_.empty() ? survivors_ : ended_;
  std::string s = ended_.empty() ? "could not end " : "ended ";
  s += Plural(named.size(), "process", "processes") + " the workload left behind";
  if (executions_ > 1)
    s += " in " + std::to_string(with_leftovers_) + " of " + std::to_string(executions_) + " executions";
  s += " (pids " + detail::PidList(named) + ")";
  if (needed_sigkill_ > 0) {
    char grace[32];
    std::snprintf(grace, sizeof grace, "%g", term_grace_seconds);
    s += "; " + std::to_string(needed_sigkill_) + " still ran " + grace +
         " s after SIGTERM and " + (needed_sigkill_ == 1 ? "was" : "were") + " killed with SIGKILL";
  }
  if (zombies_ > 0)
    s += "; " + Plural(static_cast<size_t>(zombies_), "zombie", "zombies") + " (exited, never waited for) reaped";
  if (!ended_.empty() && !survivors_.empty())
    s += "; " + Plural(survivors_.size(), "process", "processes") +
         " could not be ended (pids " + detail::PidList(survivors_) + ")";
  return s;
}

// --- /proc parsing ------------------------------------------------------------

namespace detail {

int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}


std::optional<ProcStat> ParseProcStat(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStat p;
  std::string_view head = text.substr(0, open);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  int64_t pid = 0;
  if (head.empty()) return std::nullopt;
  for (char c : head) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
    if (pid > (int64_t{1} << 31)) return std::nullopt;
  }
  p.pid = static_cast<pid_t>(pid);
  p.comm = std::string(text.substr(open + 1, close - open - 1));
  // Fields 3.. after the comm, separated by single spaces.
  std::vector<std::string_view> fields;
  std::string_view rest = text.substr(close + 1);
  size_t i = 0;
  while (i < rest.size() && fields.size() < 20) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\n')) ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j > i) fields.push_back(rest.substr(i, j - i));
    i = j;
  }
  // fields[0] is field 3 (state), fields[17] field 20 (num_threads),
  // fields[19] field 22 (starttime).
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  auto number = [](std::string_view f, int64_t* out) {
    bool negative = !f.empty() && f[0] == '-';
    if (negative) f.remove_prefix(1);
    if (f.empty() || f.size() > 19) return false;
    int64_t v = 0;
    for (char c : f) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = negative ? -v : v;
    return true;
  };
  int64_t ppid = 0, pgrp = 0, session = 0, threads = 0, start = 0;
  if (!number(fields[1], &ppid) || !number(fields[2], &pgrp) || !number(fields[3], &session) ||
      !number(fields[17], &threads) || !number(fields[19], &start) || start < 0)
    return std::nullopt;
  p.state = fields[0][0];
  p.ppid = static_cast<pid_t>(ppid);
  p.pgrp = static_cast<pid_t>(pgrp);
  p.session = static_cast<pid_t>(session);
  p.threads = threads;
  p.start_ticks = static_cast<uint64_t>(start);
  return p;
}

std::vector<ProcStat> ReadProcTable(const std::string& proc_root) {
  std::vector<ProcStat> out;
  DIR* dir = ::opendir(proc_root.c_str());
  if (dir == nullptr) return out;
  while (const dirent* e = ::readdir(dir)) {
    if (!AllDigits(e->d_name)) continue;
    auto text = ReadSmallFile(proc_root + "/" + e->d_name + "/stat");
    if (!text) continue;  // exited meanwhile
    if (auto p = ParseProcStat(*text)) out.push_back(std::move(*p));
  }
  ::closedir(dir);
  return out;
}

std::optional<std::vector<pid_t>> ChildrenOf(const std::string& proc_root, pid_t pid) {
  const std::string tasks = proc_root + "/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return std::nullopt;
  std::vector<pid_t> out;
  bool any_file = false;  // kernels without CONFIG_PROC_CHILDREN have none
  while (const dirent* e = ::readdir(dir)) {
    if (!AllDigits(e->d_name)) continue;
    auto text = ReadSmallFile(tasks + "/" + e->d_name + "/children");
    if (!text) continue;
    any_file = true;
    int64_t v = -1;
    for (char c : *text + " ") {
      if (c >= '0' && c <= '9') {
        v = (v < 0 ? 0 : v * 10) + (c - '0');
      } else if (v >= 0) {
        out.push_back(static_cast<pid_t>(v));
        v = -1;
      }
    }
  }
  ::closedir(dir);
  if (!any_file) return std::nullopt;
  return out;
}

std::vector<ProcStat> Descendants(const std::vector<ProcStat>& table, pid_t ancestor,
                                  const std::set<pid_t>& exclude, uint64_t not_before_ticks) {
  std::multimap<pid_t, const ProcStat*> children;
  for (const ProcStat& p : table)
    if (p.pid != p.ppid) children.emplace(p.ppid, &p);
  std::vector<ProcStat> out;
  std::vector<pid_t> frontier = {ancestor};
  std::set<pid_t> seen = {ancestor};
  for (size_t i = 0; i < frontier.size(); ++i) {
    auto [begin, end] = children.equal_range(frontier[i]);
    std::vector<const ProcStat*> level;
    for (auto it = begin; it != end; ++it) level.push_back(it->second);
    std::sort(level.begin(), level.end(), [](const ProcStat* a, const ProcStat* b) { return a->pid < b->pid; });
    for (const ProcStat* p : level) {
      if (exclude.count(p->pid) || p->start_ticks < not_before_ticks) continue;
      if (!seen.insert(p->pid).second) continue;  // a cycle in a malformed table
      out.push_back(*p);
      frontier.push_back(p->pid);
    }
  }
  return out;
}

std::string PidList(const std::vector<pid_t>& pids, size_t max_listed) {
  std::string out;
  const size_t shown = std::min(pids.size(), max_listed);
  for (size_t i = 0; i < shown; ++i) {
    if (i) out += ", ";
    out += std::to_string(pids[i]);
  }
  if (pids.size() > shown) out += ", … (+" + std::to_string(pids.size() - shown) + " more)";
  return out;
}

}  // namespace detail

}  // namespace gpugate
