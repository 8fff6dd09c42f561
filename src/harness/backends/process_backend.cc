// Backend "process": child processes with posix_spawn (argv[0] found in the
// child's PATH), own process group,
// stderr through a poll-drained pipe, exit detected through a pidfd (with a
// waitid(WNOWAIT) polling fallback), rusage from wait4 (max RSS only above
// the high-water mark of gpugate's address space, which the child inherits).
#include "harness/backends/process_backend.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "cupti/profile.h"
#include "harness/interrupt.h"
#include "harness/process_tree.h"
#include "util/strings.h"
#include "util/text/format.h"

extern char** environ;

namespace gpugate {

namespace detail {

namespace {

double SteadyNow() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double TimevalSeconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

// Owns a file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// Keeps the last bytes written to stderr without growing without bound.
class TailBuffer {
 public:
  explicit TailBuffer(size_t keep) : keep_(keep) {}
  void Append(const char* data, size_t n) {
    text_.append(data, n);
    if (text_.size() > 2 * keep_ + 4096) text_.erase(0, text_.size() - keep_);
  }
  const std::string& text() const { return text_; }

 private:
  size_t keep_;
  std::string text_;
};

// Reads what is available now. Returns false at end of file or on error.
bool DrainAvailable(int fd, TailBuffer& tail) {
  char buf[4096];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r > 0) {
      tail.Append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// True once the child has exited (it stays a zombie, so its pid and process
// group id cannot be reused until we reap it).
bool HasExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return true;
  return info.si_pid == pid;
}

// Waits up to `seconds` for the child to exit, draining stderr meanwhile.
// Returns true when it exited. With `stop_on_interrupt`, also returns (false
// unless it exited) as soon as gpugate was asked to end (interrupt.h).
bool WaitForExit(pid_t pid, int pidfd, Fd& err, bool& err_open, TailBuffer& tail, double seconds,
                 bool stop_on_interrupt = true) {
  const double deadline = SteadyNow() + seconds;
  for (;;) {
    if (pidfd < 0 && HasExited(pid)) return true;
    if ((stop_on_interrupt && PendingInterrupt() != 0) || InterruptIsUrgent()) return HasExited(pid);
    const double remaining = deadline - SteadyNow();
    if (remaining <= 0) return pidfd >= 0 ? HasExited(pid) : false;
    // With a pidfd, poll sleeps until exit or output; without one, it wakes
    // every 2 ms to check waitid.
    int timeout_ms = static_cast<int>(std::ceil(std::min(remaining, 3600.0) * 1000.0));
    if (pidfd < 0) timeout_ms = std::min(timeout_ms, 2);
    pollfd fds[2];
    int nfds = 0;
    int pid_slot = -1, err_slot = -1;
    if (pidfd >= 0) {
      fds[nfds] = pollfd{pidfd, POLLIN, 0};
      pid_slot = nfds++;
    }
    if (err_open) {
      fds[nfds] = pollfd{err.get(), POLLIN, 0};
      err_slot = nfds++;
    }
    if (nfds == 0) {
      // Only possible without a pidfd and with stderr closed: sleep briefly.
      ::usleep(static_cast<useconds_t>(timeout_ms) * 1000);
      continue;
    }
    int rc = ::poll(fds, static_cast<nfds_t>(nfds), timeout_ms);
    if (rc < 0 && errno != EINTR) return HasExited(pid);
    if (rc <= 0) continue;
    if (err_slot >= 0 && (fds[err_slot].revents & (POLLIN | POLLHUP | POLLERR))) {
      if (!DrainAvailable(err.get(), tail)) {
        err_open = false;
        err.Reset();
      }
    }
    if (pid_slot >= 0 && (fds[pid_slot].revents & POLLIN)) return true;
  }
}

// Blocks until the child has exited, without reaping it.
void WaitUntilExited(pid_t pid) {
  siginfo_t info;
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
}

// Longest wait for the end of stderr once the command and what it left behind
// have ended (only a process that survived SIGKILL can still hold the pipe).
constexpr double kDrainSeconds = 0.1;

// Reads stderr until end of file or `seconds` have passed.
void DrainUntilEof(Fd& err, bool& err_open, TailBuffer& tail, double seconds) {
  const double deadline = SteadyNow() + seconds;
  while (err_open) {
    if (!DrainAvailable(err.get(), tail)) {
      err_open = false;
      err.Reset();
      return;
    }
    const double remaining = deadline - SteadyNow();
    if (remaining <= 0) return;
    pollfd fd{err.get(), POLLIN, 0};
    ::poll(&fd, 1, std::max(1, static_cast<int>(std::ceil(remaining * 1000.0))));
  }
}

std::vector<char*> CStrings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn attributes and file actions, destroyed on scope exit.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

Status ConfigureSpawn(SpawnSetup& s, int err_write, int err_read, const std::string& cwd) {
  // Own process group (pgid = child pid), default signal dispositions for
  // signals a parent commonly ignores or handles, empty signal mask.
  sigset_t defaults, mask;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM})
    sigaddset(&defaults, sig);
  sigemptyset(&mask);
  int rc = posix_spawnattr_setflags(&s.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                                 POSIX_SPAWN_SETSIGMASK);
  if (rc == 0) rc = posix_spawnattr_setpgroup(&s.attr, 0);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&s.attr, &defaults);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&s.attr, &mask);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&s.actions, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_addopen(&s.actions, 1, "/dev/null", O_WRONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(&s.actions, err_write, 2);
  if (rc == 0) rc = posix_spawn_file_actions_addclose(&s.actions, err_read);
  if (rc == 0 && !cwd.empty()) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    rc = posix_spawn_file_actions_addchdir_np(&s.actions, cwd.c_str());
#else
    return ToolError("cwd is not supported on this platform (needs glibc >= 2.29)");
#endif
  }
  if (rc != 0) return ToolError(std::string("cannot set up the child process: ") + std::strerror(rc));
  return Status::Ok();
}

}  // namespace

std::optional<std::string> EnvironmentValue(const std::vector<std::string>& envp, std::string_view name) {
  for (const std::string& entry : envp)
    if (entry.size() > name.size() && entry[name.size()] == '=' && entry.compare(0, name.size(), name) == 0)
      return entry.substr(name.size() + 1);
  return std::nullopt;
}

Result<std::string> FindProgram(const CommandLine& command) {
  const std::string& program = command.argv.front();
  if (program.find('/') != std::string::npos) return program;
  // glibc's execvp searches "/bin:/usr/bin" when PATH is not set at all.
  const std::optional<std::string> path = EnvironmentValue(command.envp, "PATH");
  const std::string search = path ? *path : "/bin:/usr/bin";
  int error = ENOENT;
  for (const std::string& dir : Split(search, ':')) {
    // An empty entry is the current folder; a relative one is taken from the
    // child's folder (cwd), where the spawned process resolves it too.
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    std::filesystem::path on_disk(candidate);
    if (on_disk.is_relative() && !command.cwd.empty()) on_disk = std::filesystem::path(command.cwd) / on_disk;
    struct stat st;
    if (::stat(on_disk.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::access(on_disk.c_str(), X_OK) != 0) {
      error = EACCES;  // as execvp: go on, and report it if nothing else is found
      continue;
    }
    return candidate;
  }
  return ToolError("cannot run '" + program + "': " + std::strerror(error) + " (searched the workload's PATH: " +
                   (search.empty() ? std::string("empty") : search) + ")");
}

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(signal);
  }
}

void PeakMemoryTally::Add(const ExecOutcome& outcome) {
  ++executions_;
  if (outcome.max_rss_bytes) return;
  ++unmeasured_;
  floor_bytes_ = std::max(floor_bytes_, outcome.rss_floor_bytes);
}

std::string PeakMemoryTally::Note() const {
  if (unmeasured_ == 0) return "";
  const std::string below = "stayed below gpugate's own " + FormatBytes(floor_bytes_) +
                            ", which a process it starts inherits";
  if (unmeasured_ == executions_)
    return std::string("peak memory not measured: ") +
           (executions_ == 1 ? "the process " : "the processes ") + below;
  return "peak memory measured in " + std::to_string(executions_ - unmeasured_) + " of " +
         std::to_string(executions_) + " executions: the others " + below;
}

std::optional<int64_t> HighWaterFromProcStatus(std::string_view status) {
  return ProcKibField(status, "VmHWM");
}

int64_t OwnHighWaterBytes() {
  // /proc/self/status is a few KiB, read in one go without allocating a
  // stream; the VmHWM line comes well within the first 4 KiB.
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[8192];
    size_t size = 0;
    for (ssize_t n; size < sizeof buf && (n = ::read(fd, buf + size, sizeof buf - size)) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      size += static_cast<size_t>(n);
    }
    ::close(fd);
    if (std::optional<int64_t> hwm = HighWaterFromProcStatus(std::string_view(buf, size))) return *hwm;
  }
  rusage self;
  std::memset(&self, 0, sizeof self);
  if (::getrusage(RUSAGE_SELF, &self) != 0) return 0;
  return static_cast<int64_t>(self.ru_maxrss) * 1024;  // Linux reports KiB
}

std::string TimedOutMessage(double timeout_seconds) {
  return "timed out after " + FormatDuration(timeout_seconds);
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    std::string s = "killed by signal " + SignalName(sig) + " (" + std::to_string(sig) + ")";
#ifdef WCOREDUMP
    if (WCOREDUMP(wait_status)) s += ", core dumped";
#endif
    return s;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

std::string TailLines(std::string_view text, int max_lines, size_t max_bytes) {
  if (max_lines <= 0) return "";
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.size() > max_bytes) text = text.substr(text.size() - max_bytes);
  size_t start = 0;
  int seen = 0;
  for (size_t i = text.size(); i > 0; --i) {
    if (text[i - 1] == '\n' && ++seen == max_lines) {
      start = i;
      break;
    }
  }
  return std::string(text.substr(start));
}

std::vector<std::string> MergeEnvironment(
    const std::vector<std::string>& base,
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::set<std::string> replaced;
  for (const auto& [k, v] : overrides) replaced.insert(k);
  std::vector<std::string> out;
  for (const auto& entry : base) {
    const std::string key = entry.substr(0, entry.find('='));
    if (!replaced.count(key)) out.push_back(entry);
  }
  for (const auto& [k, v] : overrides) out.push_back(k + "=" + v);
  return out;
}

Result<ExecOutcome> ExecuteOnce(const CommandLine& command, double timeout_seconds,
                                const ProcessBackendOptions& options) {
  if (command.argv.empty()) return InputError("empty argv");
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return ToolError(std::string("cannot create a pipe: ") + std::strerror(errno));
  Fd err_read(pipe_fds[0]);
  Fd err_write(pipe_fds[1]);
  ::fcntl(err_read.get(), F_SETFL, ::fcntl(err_read.get(), F_GETFL) | O_NONBLOCK);

  SpawnSetup setup;
  if (Status st = ConfigureSpawn(setup, err_write.get(), err_read.get(), command.cwd); !st.ok())
    return st.error();
  // The program is looked up in the child's PATH (as execvpe does), not in
  // gpugate's own: a workload's `env: {PATH: ...}` selects the binary.
  Result<std::string> program = FindProgram(command);
  if (!program.ok()) return program.error();
  std::vector<char*> argv = CStrings(command.argv);
  std::vector<char*> envp = CStrings(command.envp);

  // Orphans of the command's descendants are reparented to gpugate while it
  // runs, where EndLeftovers finds them once the command has exited.
  SubreaperScope subreaper;
  pid_t pid = -1;
  // What the child's max RSS may hold of gpugate's own (ExecOutcome).
  const int64_t rss_floor_before = OwnHighWaterBytes();
  const double start = SteadyNow();
  // The child's group is named for the interrupt handler before a signal can
  // arrive: a signal that ends gpugate ends the workload too (interrupt.h).
  std::optional<ChildGroupGuard> group;
  int rc = 0;
  {
    InterruptsBlocked blocked;
    rc = ::posix_spawn(&pid, program->c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
    if (rc == 0) group.emplace(pid);
  }
  if (rc != 0) {
    return ToolError("cannot run '" + command.argv[0] + "': " + std::strerror(rc));
  }
  err_write.Reset();
  Fd pidfd(OpenPidfd(pid));

  ExecOutcome out;
  TailBuffer tail(options.stderr_tail_bytes);
  bool err_open = true;
  bool exited = WaitForExit(pid, pidfd.get(), err_read, err_open, tail, std::max(0.0, timeout_seconds));
  double end = SteadyNow();
  if (PendingInterrupt() != 0) {
    // gpugate is asked to end: the handler has sent the group SIGTERM. Give
    // it the grace period, kill what is left, end what it left behind, reap
    // it, and end gpugate by the same signal.
    ::kill(pid, SIGTERM);  // its first process, should it have left the group
    if (!exited)
      WaitForExit(pid, pidfd.get(), err_read, err_open, tail, options.term_grace_seconds,
                  /*stop_on_interrupt=*/false);
    ::killpg(pid, SIGKILL);
    ::kill(pid, SIGKILL);
    WaitUntilExited(pid);
    EndLeftovers(pid, LeftoverOptions{options.term_grace_seconds});
    group.reset();
    int ignored = 0;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    DieOfPendingInterrupt();
  }
  if (!exited) {
    // Timed out: terminate the whole group, give it a grace period, then
    // SIGKILL everything left. The leader is not reaped yet, so the group id
    // still names our group when SIGKILL is sent.
    // The first process is signalled by its pid as well: it may have left
    // its group (setpgid), and a group it left no longer reaches it. The pid
    // is ours until the reap.
    out.timed_out = true;
    ::killpg(pid, SIGTERM);
    ::kill(pid, SIGTERM);
    WaitForExit(pid, pidfd.get(), err_read, err_open, tail, options.term_grace_seconds);
    ::killpg(pid, SIGKILL);
    ::kill(pid, SIGKILL);
    end = SteadyNow();
  }
  WaitUntilExited(pid);  // a zombie from here on: its pid and group id stay ours
  out.leftovers = EndLeftovers(pid, LeftoverOptions{options.term_grace_seconds});
  // Every writer of the pipe has now exited, so end of file comes at once;
  // the bound only matters for a process that could not be ended.
  if (err_open) DrainUntilEof(err_read, err_open, tail, kDrainSeconds);

  int status = 0;
  rusage usage;
  std::memset(&usage, 0, sizeof usage);
  group.reset();  // before the reap: from then on the id may name another group
  int reaped = 0;
  while ((reaped = ::wait4(pid, &status, 0, &usage)) < 0 && errno == EINTR) {
  }
  // A signal that came while the leftovers or a timed-out group were being
  // ended (the handler only remembered it) ends gpugate now: a cancelled job
  // must not go on to write results.
  DieOfPendingInterrupt();
  if (reaped != pid)
    return ToolError("cannot read how '" + command.argv[0] + "' ended: " + std::strerror(errno) +
                     " (was gpugate started with SIGCHLD ignored?)");
  out.wall_seconds = end - start;
  out.wait_status = status;
  out.user_seconds = TimevalSeconds(usage.ru_utime);
  out.sys_seconds = TimevalSeconds(usage.ru_stime);
  out.rss_floor_bytes = std::max(rss_floor_before, OwnHighWaterBytes());
  const int64_t max_rss = static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
  if (max_rss > out.rss_floor_bytes) out.max_rss_bytes = max_rss;
  out.stderr_tail = TailLines(tail.text(), options.stderr_tail_lines, options.stderr_tail_bytes);
  return out;
}

}  // namespace detail

namespace {

class ProcessInstance final : public WorkloadInstance {
 public:
  ProcessInstance(detail::CommandLine command, double timeout, ProcessBackendOptions options,
                  std::optional<double> spawn_overhead, std::unique_ptr<CuptiSession> cupti)
      : command_(std::move(command)),
        timeout_(timeout),
        deadline_(detail::SteadyNow() + timeout),
        options_(options),
        spawn_overhead_(spawn_overhead),
        cupti_(std::move(cupti)) {}

  // Warmup executions come before round 0: their traces are not pooled.
  void BeginRound(int /*round*/) override { measuring_ = true; }

  Result<Sample> RunSample() override {
    const double remaining = deadline_ - detail::SteadyNow();
    if (remaining <= 0) return ToolError(detail::TimedOutMessage(timeout_));
    auto run = cupti_ ? ExecuteTraced(remaining) : detail::ExecuteOnce(command_, remaining, options_);
    if (!run.ok()) return run.error();
    const detail::ExecOutcome& r = run.value();
    leftovers_.Add(r.leftovers);
    if (r.timed_out) return ToolError(detail::TimedOutMessage(timeout_));
    if (!(WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0)) {
      std::string msg = "command '" + command_.argv[0] + "' " + detail::DescribeWaitStatus(r.wait_status);
      if (!r.stderr_tail.empty()) msg += "; stderr (last lines):\n" + r.stderr_tail;
      return ToolError(msg);
    }
    if (cupti_) {
      if (Status st = cupti_->FinishExecution(measuring_); !st.ok()) return st.error();
    }
    if (measuring_) peak_memory_.Add(r);
    Sample s;
    s.seconds = r.wall_seconds;
    s.user_seconds = r.user_seconds;
    s.sys_seconds = r.sys_seconds;
    s.max_rss_bytes = r.max_rss_bytes;
    return s;
  }

  void Annotate(WorkloadResult& result) const override {
    if (spawn_overhead_) result.counters["spawn_overhead_s"] = *spawn_overhead_;
    if (std::string note = leftovers_.Note(options_.term_grace_seconds); !note.empty())
      result.notes.push_back(std::move(note));
    if (std::string note = peak_memory_.Note(); !note.empty()) result.notes.push_back(std::move(note));
    if (cupti_) cupti_->pool().Annotate(result);
  }

 private:
  // profile: cupti: one execution with the injection library and a fresh trace path.
  Result<detail::ExecOutcome> ExecuteTraced(double remaining) {
    detail::CommandLine traced = command_;
    traced.envp = detail::MergeEnvironment(traced.envp, cupti_->NextExecution());
    return detail::ExecuteOnce(traced, remaining, options_);
  }

  detail::CommandLine command_;
  double timeout_;
  double deadline_;
  ProcessBackendOptions options_;
  std::optional<double> spawn_overhead_;
  LeftoverTally leftovers_;
  detail::PeakMemoryTally peak_memory_;  ///< of the measured executions
  std::unique_ptr<CuptiSession> cupti_;  ///< profile: cupti
  bool measuring_ = false;
};

std::optional<double> MeasureSpawnOverhead(const ProcessBackendOptions& options) {
  detail::CommandLine t;
  t.argv = {"/bin/true"};
  std::vector<double> walls;
  for (int i = 0; i < 5; ++i) {
    auto r = detail::ExecuteOnce(t, 10.0, options);
    if (!r.ok() || r->timed_out || r->wait_status != 0) return std::nullopt;
    walls.push_back(r->wall_seconds);
  }
  std::sort(walls.begin(), walls.end());
  return walls[walls.size() / 2];
}

}  // namespace

std::vector<std::string> detail::InheritedEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

std::optional<std::string> ProcessBackend::Unsupported(const WorkloadSpec& spec) const {
  if (spec.kind != WorkloadKind::kCommand) return "backend process runs only command workloads";
  return std::nullopt;
}

Result<std::unique_ptr<WorkloadInstance>> ProcessBackend::Prepare(const WorkloadSpec& spec) {
  const std::string where = spec.location.line > 0 ? spec.location.ToString() + ": " : "";
  const std::string what = "workload '" + spec.name + "': ";
  if (spec.argv.empty() || spec.argv[0].empty()) return InputError(where + what + "argv is empty");

  detail::CommandLine command;
  if (spec.shell) {
    command.argv = {"/bin/sh", "-c", spec.argv[0], "sh"};
    command.argv.insert(command.argv.end(), spec.argv.begin() + 1, spec.argv.end());
  } else {
    command.argv = spec.argv;
  }
  std::vector<std::pair<std::string, std::string>> overrides(spec.env.begin(), spec.env.end());
  for (const auto& [k, v] : overrides) {
    if (k.empty() || k.find('=') != std::string::npos)
      return InputError(where + what + "invalid environment variable name '" + k + "'");
  }
  command.envp = detail::MergeEnvironment(detail::InheritedEnvironment(), overrides);

  if (!spec.cwd.empty()) {
    std::filesystem::path cwd(spec.cwd);
    if (cwd.is_relative() && !spec.location.file.empty())
      cwd = std::filesystem::path(spec.location.file).parent_path() / cwd;
    std::error_code ec;
    if (!std::filesystem::is_directory(cwd, ec))
      return InputError(where + what + "cwd '" + cwd.string() + "' is not a directory");
    command.cwd = cwd.string();
  }

  std::unique_ptr<CuptiSession> cupti;
  if (spec.profile == "cupti") {
    auto session = CuptiSession::Start();
    if (!session.ok()) return session.error();
    cupti = std::move(session).value();
  }

  if (!spawn_overhead_measured_) {
    spawn_overhead_ = MeasureSpawnOverhead(options_);
    spawn_overhead_measured_ = true;
  }
  return std::unique_ptr<WorkloadInstance>(std::make_unique<ProcessInstance>(
      std::move(command), spec.sampling.timeout, options_, spawn_overhead_, std::move(cupti)));
}

}  // namespace gpugate
