// Progress on stderr while a suite runs: a rewritten line on a terminal, one
// line per workload elsewhere (a CI log, where a long silent step looks hung
// and may be killed for printing nothing), nothing with -q. Colour only
// without NO_COLOR. Artifacts go to files, summaries to stdout.
#pragma once

#include <cstdio>

#include "harness/runner.h"

namespace gpugate {

/// True when stderr is a terminal (progress lines are drawn).
bool StderrIsTty();
/// True when stdout is a terminal and NO_COLOR is unset (colour allowed).
bool StdoutWantsColor();

/// How progress is shown.
enum class ProgressMode {
  kOff,    ///< -q
  kTty,    ///< "[3/12] saxpy/1M  round 2" on one rewritten stderr line
  kLines,  ///< "[3/12] saxpy/1M: ok in 1.6 s" per workload, and a line every 30 s of a long one
};

/// kOff when quiet, kTty when stderr is a terminal, else kLines.
ProgressMode ProgressModeFor(bool quiet);

/// Progress of a suite's workloads on stderr (ProgressMode).
class TtyProgress final : public ProgressSink {
 public:
  explicit TtyProgress(ProgressMode mode) : mode_(mode), enabled_(mode == ProgressMode::kTty) {}
  ~TtyProgress() override;
  void WorkloadStarted(const WorkloadSpec& spec, int index, int total) override;
  void RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) override;
  void WorkloadFinished(const WorkloadResult& result) override;
  /// "[12/12] k/BM_a: ok", or each side's status where one is not ok
  /// ("k/BM_a: base failed, head ok"); no time (pairs end together).
  void PairFinished(const WorkloadResult& base, const WorkloadResult& head) override;

 private:
  void Clear();
  ProgressMode mode_;
  bool enabled_;  // the rewritten line is drawn
  bool dirty_ = false;
  int index_ = 0, total_ = 0;
  double started_ = 0, last_line_ = 0;  // steady seconds (kLines)
};

}  // namespace gpugate
