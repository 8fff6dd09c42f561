// Progress on stderr while a suite runs: a rewritten line on a terminal, one
// line per workload elsewhere (a CI log, where a long silent step looks hung
// and may be killed for printing nothing), nothing with -q. Colour only
// without NO_COLOR. Artifacts go to files, summaries to stdout.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "harness/runner.h"

namespace gpugate {

/// True when stderr is a terminal (progress lines are drawn).
bool StderrIsTty();
/// True when the file descriptor is a terminal and NO_COLOR is unset
/// (colour allowed on the stream written to it).
bool StreamWantsColor(int fd);
/// StreamWantsColor(STDOUT_FILENO).
bool StdoutWantsColor();

/// How progress is shown.
enum class ProgressMode {
  kOff,    ///< -q
  kTty,    ///< "[3/12] saxpy/1M  round 2" on one rewritten stderr line
  kLines,  ///< "[3/12] saxpy/1M: ok in 1.6 s" per workload, and a line every 30 s of a long one
};

/// A line of a running workload in a log (kLines) after this many seconds
/// without one.
constexpr double kHeartbeatSeconds = 30;

/// kOff when quiet, kTty when stderr is a terminal, else kLines.
ProgressMode ProgressModeFor(bool quiet);

/// Progress of a suite's workloads on stderr (ProgressMode). In kLines mode
/// a thread of its own writes "[3/12] train: still running, 30 s so far"
/// whenever a running workload has gone `heartbeat_seconds` without a line,
/// in a round, warmup or a single benchmark program alike; every line is
/// written under one lock.
class TtyProgress final : public ProgressSink {
 public:
  /// `out` and `heartbeat_seconds` are for tests.
  explicit TtyProgress(ProgressMode mode, double heartbeat_seconds = kHeartbeatSeconds,
                       std::FILE* out = stderr);
  ~TtyProgress() override;
  TtyProgress(const TtyProgress&) = delete;
  TtyProgress& operator=(const TtyProgress&) = delete;
  void WorkloadStarted(const WorkloadSpec& spec, int index, int total) override;
  void RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) override;
  void WorkloadFinished(const WorkloadResult& result) override;
  /// "[12/12] k/BM_a: ok", or each side's status where one is not ok
  /// ("k/BM_a: base failed, head ok"); no time (pairs end together).
  void PairFinished(const WorkloadResult& base, const WorkloadResult& head) override;

 private:
  void Clear();                         // with mu_ held
  void WriteLine(const std::string& s);  // with mu_ held
  void Heartbeats();                    // the thread's loop (kLines)

  const ProgressMode mode_;
  const bool enabled_;  // the rewritten line is drawn
  const double heartbeat_seconds_;
  std::FILE* const out_;
  std::mutex mu_;  // everything below, and every write to out_
  std::condition_variable wake_;
  bool dirty_ = false;
  int index_ = 0, total_ = 0;
  double started_ = 0, last_line_ = 0;  // steady seconds (kLines)
  bool running_ = false;                // between WorkloadStarted and its end
  std::string name_;                    // of the running workload, escaped
  int rounds_done_ = 0;
  int64_t samples_ = -1;
  bool stop_ = false;
  std::thread heartbeat_;  // kLines only
};

}  // namespace gpugate
