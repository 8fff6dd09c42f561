// Progress of long runs on stderr (progress.h).
#include "cli/progress.h"

#include <unistd.h>

#include <chrono>
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

namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A line of a long workload in a log at most this often.
constexpr double kHeartbeatSeconds = 30;

}  // namespace

ProgressMode ProgressModeFor(bool quiet) {
  if (quiet) return ProgressMode::kOff;
  return StderrIsTty() ? ProgressMode::kTty : ProgressMode::kLines;
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
  started_ = last_line_ = SteadySeconds();
  if (mode_ == ProgressMode::kLines) {
    // A line as it starts too: a long workload of one round would say
    // nothing until it ends.
    const std::string line =
        "[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " + EscapeTerminal(spec.name) + " ...\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
  if (!enabled_) return;
  std::string name = EscapeTerminal(spec.name);
  std::fprintf(stderr, "\r\033[K[%d/%d] %s", index_, total_, name.c_str());
  std::fflush(stderr);
  dirty_ = true;
}

void TtyProgress::RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) {
  if (mode_ == ProgressMode::kLines) {
    const double now = SteadySeconds();
    if (now - last_line_ < kHeartbeatSeconds) return;
    last_line_ = now;
    std::string line = "[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " +
                       EscapeTerminal(spec.name) + ": round " + std::to_string(round + 1);
    if (samples >= 0) line += ", " + std::to_string(samples) + " samples";
    line += ", " + std::to_string(static_cast<long long>(now - started_)) + " s so far\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    return;
  }
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

namespace {

const char* StatusWord(WorkloadStatus status) {
  return status == WorkloadStatus::kOk ? "ok" : status == WorkloadStatus::kFailed ? "failed" : "skipped";
}

}  // namespace

void TtyProgress::PairFinished(const WorkloadResult& base, const WorkloadResult& head) {
  Clear();
  if (mode_ != ProgressMode::kLines) return;
  const bool both_ok = base.status == WorkloadStatus::kOk && head.status == WorkloadStatus::kOk;
  const std::string status = both_ok ? std::string("ok")
                                     : std::string("base ") + StatusWord(base.status) + ", head " +
                                           StatusWord(head.status);
  const std::string line = "[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " +
                           EscapeTerminal(head.name) + ": " + status + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

void TtyProgress::WorkloadFinished(const WorkloadResult& result) {
  Clear();
  if (mode_ != ProgressMode::kLines) return;
  char took[32];
  std::snprintf(took, sizeof took, "%.1f s", SteadySeconds() - started_);
  const char* status = StatusWord(result.status);
  const std::string line = "[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " +
                           EscapeTerminal(result.name) + ": " + status + " in " + took + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace gpugate
