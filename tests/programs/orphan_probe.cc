// A command workload that leaves processes behind on purpose, for the
// end-to-end test of leftover processes (scripts/safety/leftover_processes.sh).
//
//   orphan_probe MODE [SECONDS]      leave processes behind and exit 0 at once
//   orphan_probe check TOKEN FILE    count what earlier workloads left behind
//
// MODE: background (a plain child that sleeps), daemon (double fork and
// setsid, stdio on /dev/null), holds-stderr (a child that keeps stdout and
// stderr open), ignores-term (a child that ignores SIGTERM), zombie (a child
// that never reaps its exited child, and an exited child of the probe itself),
// stopped (a child stopped with SIGSTOP), main-thread-exited (a child whose
// main thread has ended with pthread_exit while another thread sleeps: state
// Z in /proc, yet running), all (every one of them). Each
// process left behind sleeps SECONDS (default 20) and then exits, so a failed
// test does not leave them running for long.
//
// check: counts the processes whose environment holds
// ORPHAN_PROBE_TOKEN=TOKEN (other than itself) and the zombies among its
// parent's children, writes "marked=N zombies=M" to FILE, and exits 1 when
// either is not 0.
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Sleeps `seconds` whatever signals interrupt it, then exits.
[[noreturn]] void SleepAndExit(double seconds) {
  const double end = Now() + seconds;
  for (double left = seconds; left > 0; left = end - Now()) {
    timespec ts;
    ts.tv_sec = static_cast<time_t>(left);
    ts.tv_nsec = static_cast<long>((left - static_cast<double>(ts.tv_sec)) * 1e9);
    nanosleep(&ts, nullptr);
  }
  _exit(0);
}

void Background(double seconds) {
  if (fork() == 0) SleepAndExit(seconds);
}

// The classic daemon: fork, setsid, fork again, stdio on /dev/null; the
// middle process exits, so the daemon's parent is gone.
void Daemon(double seconds) {
  pid_t middle = fork();
  if (middle == 0) {
    setsid();
    if (fork() == 0) {
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      if (null > 2) close(null);
      SleepAndExit(seconds);
    }
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
}

void HoldsStderr(double seconds) {
  if (fork() == 0) {
    std::fprintf(stderr, "orphan_probe: a child holds stderr open\n");
    SleepAndExit(seconds);
  }
}

// The disposition is set before fork, so the child ignores SIGTERM from its
// first instruction on.
void IgnoresTerm(double seconds) {
  struct sigaction ignore {}, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &old);
  if (fork() == 0) SleepAndExit(seconds);
  sigaction(SIGTERM, &old, nullptr);
}

// A child that never reaps its exited grandchild (the grandchild stays a
// zombie below it), and an exited child of the probe that the probe does not
// reap either. Returns once both are zombies.
void Zombie(double seconds) {
  int ready[2];
  if (pipe(ready) != 0) return;
  if (fork() == 0) {
    close(ready[0]);
    pid_t grandchild = fork();
    if (grandchild == 0) _exit(0);
    siginfo_t info;
    waitid(P_PID, static_cast<id_t>(grandchild), &info, WEXITED | WNOWAIT);  // exited, not reaped
    (void)!write(ready[1], "z", 1);
    SleepAndExit(seconds);
  }
  close(ready[1]);
  char c;
  (void)!read(ready[0], &c, 1);
  close(ready[0]);
  pid_t child = fork();
  if (child == 0) _exit(0);
  siginfo_t info;
  waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT);
}

void Stopped(double seconds) {
  pid_t child = fork();
  if (child == 0) {
    raise(SIGSTOP);
    SleepAndExit(seconds);
  }
  int status = 0;
  waitpid(child, &status, WUNTRACED);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The state letter of /proc/PID/stat, or 0.
char StateOf(pid_t pid) {
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const size_t close_paren = stat.rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= stat.size() ? 0 : stat[close_paren + 2];
}

double g_thread_seconds = 0;

void* SleepingThread(void*) { SleepAndExit(g_thread_seconds); }

// Returns once the child's main thread has ended (its stat reads Z) while
// its second thread sleeps on.
void MainThreadExited(double seconds) {
  g_thread_seconds = seconds;
  const pid_t child = fork();
  if (child == 0) {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, SleepingThread, nullptr) != 0) _exit(1);
    pthread_exit(nullptr);
  }
  for (int i = 0; i < 2000 && StateOf(child) != 'Z'; ++i) usleep(1000);
}

int Check(const std::string& token, const std::string& out_path) {
  const std::string marker = "ORPHAN_PROBE_TOKEN=" + token;
  const pid_t self = getpid(), parent = getppid();
  int marked = 0, zombies = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 2;
  while (dirent* e = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || pid == self) continue;
    const std::string dir = std::string("/proc/") + e->d_name;
    const std::string env = ReadAll(dir + "/environ");
    std::string entry;
    std::istringstream entries(env);
    while (std::getline(entries, entry, '\0')) {
      if (entry == marker) {
        ++marked;
        break;
      }
    }
    // stat: "pid (comm) S ppid ...": comm may hold spaces and ')'.
    const std::string stat = ReadAll(dir + "/stat");
    const size_t close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(close_paren + 1));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (state == 'Z' && ppid == parent) ++zombies;
  }
  closedir(proc);
  std::ofstream(out_path) << "marked=" << marked << " zombies=" << zombies << "\n";
  if (marked == 0 && zombies == 0) return 0;
  std::fprintf(stderr, "orphan_probe: %d marked processes alive, %d zombie children of the parent\n",
               marked, zombies);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: orphan_probe MODE [SECONDS] | orphan_probe check TOKEN FILE\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "check") {
    if (argc != 4) return 2;
    return Check(argv[2], argv[3]);
  }
  const double seconds = argc > 2 ? std::atof(argv[2]) : 20.0;
  const bool all = mode == "all";
  bool known = all;
  if (all || mode == "background") known = true, Background(seconds);
  if (all || mode == "daemon") known = true, Daemon(seconds);
  if (all || mode == "holds-stderr") known = true, HoldsStderr(seconds);
  if (all || mode == "ignores-term") known = true, IgnoresTerm(seconds);
  if (all || mode == "zombie") known = true, Zombie(seconds);
  if (all || mode == "stopped") known = true, Stopped(seconds);
  if (all || mode == "main-thread-exited") known = true, MainThreadExited(seconds);
  if (!known) {
    std::fprintf(stderr, "orphan_probe: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  return 0;
}
