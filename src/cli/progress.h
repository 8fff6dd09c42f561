// Progress on stderr while a suite runs: only on a TTY, colour only without
// NO_COLOR. Artifacts go to files, summaries to stdout.
#pragma once

#include <cstdio>

#include "harness/runner.h"

namespace gpugate {

/// True when stderr is a terminal (progress lines are drawn).
bool StderrIsTty();
/// True when stdout is a terminal and NO_COLOR is unset (colour allowed).
bool StdoutWantsColor();

/// Draws "[3/12] saxpy/1M  round 2" on one rewritten stderr line.
class TtyProgress final : public ProgressSink {
 public:
  explicit TtyProgress(bool enabled) : enabled_(enabled) {}
  ~TtyProgress() override;
  void WorkloadStarted(const WorkloadSpec& spec, int index, int total) override;
  void RoundFinished(const WorkloadSpec& spec, int round, int64_t samples) override;
  void WorkloadFinished(const WorkloadResult& result) override;

 private:
  void Clear();
  bool enabled_;
  bool dirty_ = false;
  int index_ = 0, total_ = 0;
};

}  // namespace gpugate
