// Progress of long runs on stderr (progress.h).
#include "cli/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "harness/interrupt.h"
#include "util/text/escape.h"

namespace gpugate {

bool StderrIsTty() { return ::isatty(STDERR_FILENO) == 1; }

bool StreamWantsColor(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(fd) == 1;
}

bool StdoutWantsColor() { return StreamWantsColor(STDOUT_FILENO); }

namespace {

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* StatusWord(WorkloadStatus status) {
  return status == WorkloadStatus::kOk ? "ok" : status == WorkloadStatus::kFailed ? "failed" : "skipped";
}

}  // namespace

ProgressMode ProgressModeFor(bool quiet) {
  if (quiet) return ProgressMode::kOff;
  return StderrIsTty() ? ProgressMode::kTty : ProgressMode::kLines;
}

TtyProgress::TtyProgress(ProgressMode mode, double heartbeat_seconds, std::FILE* out)
    : mode_(mode), enabled_(mode == ProgressMode::kTty), heartbeat_seconds_(heartbeat_seconds), out_(out) {
  if (mode_ != ProgressMode::kLines) return;
  // The thread starts with gpugate's interrupt signals blocked, so that a
  // signal sent to gpugate wakes the thread that waits for the workload.
  InterruptsBlocked blocked;
  heartbeat_ = std::thread([this] { Heartbeats(); });
}

TtyProgress::~TtyProgress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  std::lock_guard<std::mutex> lock(mu_);
  Clear();
}

void TtyProgress::Clear() {
  if (enabled_ && dirty_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
    dirty_ = false;
  }
}

void TtyProgress::WriteLine(const std::string& s) {
  std::fputs(s.c_str(), out_);
  std::fflush(out_);
}

// Wakes when the running workload's next line is due and writes it unless
// another line came meanwhile.
void TtyProgress::Heartbeats() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!running_) {
      wake_.wait(lock);
      continue;
    }
    const double due = last_line_ + heartbeat_seconds_;
    const double now = SteadySeconds();
    if (now < due) {
      wake_.wait_for(lock, std::chrono::duration<double>(due - now));
      continue;
    }
    last_line_ = now;
    std::string line = "[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " + name_ +
                       ": still running, " + std::to_string(static_cast<long long>(now - started_)) + " s so far";
    if (rounds_done_ > 0) {
      line += " (" + std::to_string(rounds_done_) + (rounds_done_ == 1 ? " round" : " rounds") + " done";
      if (samples_ >= 0) line += ", " + std::to_string(samples_) + " samples";
      line += ")";
    }
    WriteLine(line + "\n");
  }
}

void TtyProgress::WorkloadStarted(const WorkloadSpec& spec, int index, int total) {
  std::lock_guard<std::mutex> lock(mu_);
  index_ = index + 1;
  total_ = total;
  started_ = last_line_ = SteadySeconds();
  name_ = EscapeTerminal(spec.name);
  rounds_done_ = 0;
  samples_ = -1;
  if (mode_ == ProgressMode::kLines) {
    // A line as it starts too: a long workload of one round would say
    // nothing until its first heartbeat.
    WriteLine("[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " + name_ + " ...\n");
    running_ = true;
    wake_.notify_all();
    return;
  }
  if (!enabled_) return;
  std::fprintf(out_, "\r\033[K[%d/%d] %s", index_, total_, name_.c_str());
  std::fflush(out_);
  dirty_ = true;
}

void TtyProgress::RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ == ProgressMode::kLines) {
    // Said by the next heartbeat.
    rounds_done_ = round + 1;
    samples_ = samples;
    return;
  }
  if (!enabled_) return;
  std::string name = EscapeTerminal(spec.name);
  if (samples < 0)
    std::fprintf(out_, "\r\033[K[%d/%d] %s  round %d", index_, total_, name.c_str(), round + 1);
  else
    std::fprintf(out_, "\r\033[K[%d/%d] %s  round %d, %lld samples", index_, total_, name.c_str(), round + 1,
                 static_cast<long long>(samples));
  std::fflush(out_);
  dirty_ = true;
}

void TtyProgress::PairFinished(const WorkloadResult& base, const WorkloadResult& head) {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  Clear();
  if (mode_ != ProgressMode::kLines) return;
  const bool both_ok = base.status == WorkloadStatus::kOk && head.status == WorkloadStatus::kOk;
  const std::string status = both_ok ? std::string("ok")
                                     : std::string("base ") + StatusWord(base.status) + ", head " +
                                           StatusWord(head.status);
  WriteLine("[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " + EscapeTerminal(head.name) + ": " +
            status + "\n");
}

void TtyProgress::WorkloadFinished(const WorkloadResult& result) {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  Clear();
  if (mode_ != ProgressMode::kLines) return;
  char took[32];
  std::snprintf(took, sizeof took, "%.1f s", SteadySeconds() - started_);
  const char* status = StatusWord(result.status);
  WriteLine("[" + std::to_string(index_) + "/" + std::to_string(total_) + "] " + EscapeTerminal(result.name) + ": " +
            status + " in " + took + "\n");
}

}  // namespace gpugate
