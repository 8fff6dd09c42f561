// The progress display in a log (ProgressMode::kLines): its heartbeat.
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace gpugate {
namespace {

std::vector<std::string> LinesOf(std::FILE* f) {
  std::rewind(f);
  std::vector<std::string> lines;
  std::string line;
  for (int c; (c = std::fgetc(f)) != EOF;) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += static_cast<char>(c);
    }
  }
  return lines;
}

// The lines a progress display of `mode` writes while `steps` drive it
// (workload "train" started as 1 of `total`), once its thread has ended.
template <typename Steps>
std::vector<std::string> LinesWritten(ProgressMode mode, double heartbeat_seconds, int total, Steps steps) {
  std::FILE* out = std::tmpfile();
  if (out == nullptr) {
    ADD_FAILURE() << "no temporary file";
    return {};
  }
  {
    TtyProgress progress(mode, heartbeat_seconds, out);
    WorkloadSpec spec;
    spec.name = "train";
    progress.WorkloadStarted(spec, 0, total);
    steps(progress, spec);
  }
  std::vector<std::string> lines = LinesOf(out);
  std::fclose(out);
  return lines;
}

// A round that has not ended (one long process, a warmup) still gets its
// line whenever the interval passes without one, and none comes once the
// workload has ended.
TEST(TtyProgressTest, AHeartbeatComesWhileAWorkloadRunsNotOnlyWhenARoundEnds) {
  const std::vector<std::string> lines =
      LinesWritten(ProgressMode::kLines, /*heartbeat_seconds=*/0.05, 2, [](TtyProgress& progress, const WorkloadSpec& spec) {
        std::this_thread::sleep_for(std::chrono::milliseconds(180));
        progress.RoundFinished(spec, 0, 7);
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
        WorkloadResult result;
        result.name = "train";
        result.status = WorkloadStatus::kOk;
        progress.WorkloadFinished(result);
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
      });
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines.front(), "[1/2] train ...");
  EXPECT_EQ(lines.back().rfind("[1/2] train: ok in ", 0), 0u) << lines.back();
  int before_round = 0, after_round = 0;
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    const std::string& l = lines[i];
    const bool heartbeat = l.rfind("[1/2] train: still running, ", 0) == 0 && l.find(" s so far") != std::string::npos;
    if (!heartbeat) {
      ADD_FAILURE() << "unexpected line: " << l;
    } else if (l.find(" s so far (1 round done, 7 samples)") != std::string::npos) {
      ++after_round;
    } else {
      ++before_round;
    }
  }
  EXPECT_GE(before_round, 1);
  EXPECT_GE(after_round, 1);
}

// On a terminal the line is rewritten in place: no heartbeat lines.
TEST(TtyProgressTest, NoHeartbeatOnATerminalLine) {
  const std::vector<std::string> lines =
      LinesWritten(ProgressMode::kTty, /*heartbeat_seconds=*/0.02, 1, [](TtyProgress&, const WorkloadSpec&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(80));
      });
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace gpugate
