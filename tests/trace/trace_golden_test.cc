// Golden files of the trace analysis reports: a training loop written by
// tests/trace/trace_test_data.h, analysed and judged by the built-in rules,
// rendered as console text, Markdown, JSON and HTML, must match
// tests/data/golden/trace_loop.* byte for byte. GPUGATE_UPDATE_GOLDEN=1
// rewrites them after an intended change; review the diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "config/policy.h"
#include "trace/analysis.h"
#include "trace/findings.h"
#include "trace/report_render.h"
#include "trace/trace_test_data.h"
#include "util/file_write.h"
#include "util/fs.h"

namespace gpugate {
namespace {

void CheckTraceGolden(const std::string& file, const std::string& actual) {
  const std::string path = std::string(GPUGATE_SOURCE_DIR) + "/tests/data/golden/" + file;
  const char* update = std::getenv("GPUGATE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    const Status s = WriteFileAtomic(path, actual);
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::printf("rewrote %s\n", path.c_str());
    return;
  }
  Result<std::string> expected = ReadFile(path);
  ASSERT_TRUE(expected.ok()) << expected.error().message << " (run with GPUGATE_UPDATE_GOLDEN=1 to create it)";
  EXPECT_EQ(actual, expected.value()) << "golden file " << path << " differs; GPUGATE_UPDATE_GOLDEN=1 rewrites it";
}

// 8 steps, each copying a 4 MiB batch and a 512-byte mask and launching a
// GEMM and 50 tiny identical kernels, after 20 weight uploads.
TEST(TraceReportGolden, EveryFormatMatchesItsGoldenFile) {
  AnalysisOptions options;
  options.top_n = 5;
  auto report = AnalyzeTraceText(testing::TrainingLoopTrace(8, {4 << 20, 512}, 50, 20), "loop.json", options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  TraceFindingSet findings{"default", TraceFindings(*report, DefaultPolicy().expr_rules)};
  ASSERT_FALSE(findings.items.empty());
  CheckTraceGolden("trace_loop.txt", RenderTraceConsole(*report, findings));
  CheckTraceGolden("trace_loop.md", RenderTraceMarkdown(*report, findings));
  CheckTraceGolden("trace_loop.json", RenderTraceJson(*report, findings));
  CheckTraceGolden("trace_loop.html", RenderTraceHtml(*report, findings));
}

}  // namespace
}  // namespace gpugate
