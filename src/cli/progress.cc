// TTY progress line for long runs.
#include "cli/progress.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "util/text/escape.h"

namespace gpugate {

bool StderrIsTty() { return ::isatty(STDERR_FILENO) == 1; }

bool StdoutWantsColor() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

TtyProgress::~TtyProgress() { Clear(); }

void TtyProgress::Clear() {
  if (enabled_ && dirty_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    dirty_ = false;
  }
}

void TtyProgress::WorkloadStarted(const WorkloadSpec& spec, int index, int total) {
  index_ = index + 1;
  total_ = total;
  if (!enabled_) return;
  std::string name = EscapeTerminal(spec.name);
  std::fprintf(stderr, "\r\033[K[%d/%d] %s", index_, total_, name.c_str());
  std::fflush(stderr);
  dirty_ = true;
}

void TtyProgress::RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) {
  if (!enabled_) return;
  std::string name = EscapeTerminal(spec.name);
  if (samples < 0)
    std::fprintf(stderr, "\r\033[K[%d/%d] %s  round %d", index_, total_, name.c_str(), round + 1);
  else
    std::fprintf(stderr, "\r\033[K[%d/%d] %s  round %d, %lld samples", index_, total_, name.c_str(),
                 round + 1, static_cast<long long>(samples));
  std::fflush(stderr);
  dirty_ = true;
}

void TtyProgress::WorkloadFinished(const WorkloadResult&) { Clear(); }

}  // namespace gpugate
