// gpugate entry point: a thin dispatcher over the command table, and the
// last check that what went to standard output arrived (docs/safety.md).
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/command.h"
#include "harness/interrupt.h"
#include "util/fd_streambuf.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/workflow_guard.h"

namespace {

void PrintTopHelp(std::ostream& out) {
  out << "usage: gpugate COMMAND [options]\n\n"
         "Performance regression gate for GPU and CPU workloads.\n\ncommands:\n";
  for (const auto& c : gpugate::CommandTable()) {
    std::string name = c.name;
    out << "  " << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') << c.summary
        << "\n";
  }
  out << "\n'gpugate COMMAND --help' shows a command's options; 'gpugate --version' prints the version.\n"
         "exit codes: 0 pass, 1 regression, 2 usage/config/input error, 3 workload or tool "
         "failure, 4 inconclusive\n";
}

void DoNothing(int) {}

// SIGXFSZ (a write past `ulimit -f`) and SIGPIPE (a write to a pipe nobody
// reads) would end gpugate without a word. With a handler that does nothing
// the write fails with EFBIG or EPIPE instead, which gpugate reports. A
// handler, unlike SIG_IGN, is reset to the default in programs gpugate starts.
void CatchWriteSignals() {
  struct sigaction action {};
  action.sa_handler = DoNothing;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGXFSZ, &action, nullptr);
  sigaction(SIGPIPE, &action, nullptr);
  // SIGCHLD ignored (SIG_IGN survives exec, and some supervisors start
  // programs so) makes the kernel reap children itself: wait4 then fails
  // and a crashed workload would read as exit status 0. gpugate needs its
  // children's statuses, and their zombies to hold pids and process groups.
  struct sigaction child {};
  child.sa_handler = SIG_DFL;
  sigemptyset(&child.sa_mask);
  sigaction(SIGCHLD, &child, nullptr);
}

// Standard output is a pipe or socket whose reader has gone (`| head`).
bool StdoutReaderGone(int err) {
  if (err == EPIPE) return true;
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return false;
  struct pollfd p {STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

// Everything the command printed must have reached standard output. A
// failure (a full disk, a file-size limit, an I/O error) is an error: exit 3,
// unless the command already ended with a failure code, which is kept. A
// command that ended with exit 3 has reported its tool failure (a report
// written to "-" that failed is one), so nothing more is printed then. A
// reader that went away (EPIPE) is no error: the code the command had is
// kept and nothing is printed, as `gpugate ... | head` expects.
int FinishStandardOutput(const gpugate::FdStreambuf& out, int code) {
  bool failed = !gpugate::DrainWorkflowCommandGuard();
  std::cout.flush();
  failed |= !std::cout || out.error() != 0;
  int err = out.error();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {  // C stdio, should anything use it
    failed = true;
    if (err == 0) err = errno;
  }
  if (!failed) {
    // Some file systems report write errors only when a descriptor closes
    // (NFS): close a duplicate of it, without the cost of fsync.
    int fd = ::dup(STDOUT_FILENO);
    if (fd >= 0 && ::close(fd) != 0 && errno != EINTR) {
      failed = true;
      err = errno;
    }
  }
  if (!failed || StdoutReaderGone(err) || code == 3) return code;
  std::cerr << "gpugate: error: cannot write to standard output" << (err != 0 ? ": " : "")
            << (err != 0 ? std::strerror(err) : "") << "\n";
  return code != 0 ? code : 3;
}

int Dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    PrintTopHelp(std::cerr);
    return 2;
  }
  const std::string& cmd = args[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    PrintTopHelp(std::cout);
    return 0;
  }
  if (cmd == "--version" || cmd == "-V") {
    std::cout << "gpugate " << gpugate::Version() << "\n";
    return 0;
  }
  std::vector<std::string> names;
  for (const auto& c : gpugate::CommandTable()) {
    if (cmd == c.name) {
      try {
        return c.run(c, std::vector<std::string>(args.begin() + 1, args.end()));
      } catch (const std::bad_alloc&) {
        std::cerr << "gpugate: error: out of memory (std::bad_alloc): the command stopped, and a file it was writing "
                     "is left as it was; raise the memory limit or give it less to hold\n";
        return 3;
      } catch (const std::exception& e) {
        std::cerr << "gpugate: error: internal: " << gpugate::EscapeTerminalLines(e.what()) << "\n";
        return 3;
      }
    }
    names.push_back(c.name);
  }
  std::cerr << "gpugate: error: unknown command '" << gpugate::EscapeTerminal(cmd) << "'"
            << gpugate::DidYouMean(cmd, names)
            << "\nsee 'gpugate --help'\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // std::cout writes to fd 1 itself and keeps the reason of a failed write;
  // never destroyed, like the guard that may wrap it.
  auto* out = new gpugate::FdStreambuf(STDOUT_FILENO, ::isatty(STDOUT_FILENO) == 1);
  std::cout.rdbuf(out);
  gpugate::InstallWorkflowCommandGuard();
  CatchWriteSignals();
  gpugate::InstallInterruptHandling();
  return FinishStandardOutput(*out, Dispatch(std::vector<std::string>(argv + 1, argv + argc)));
}
