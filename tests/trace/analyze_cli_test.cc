// End-to-end tests of `gpugate analyze`: the real binary on the fixtures,
// exit codes, error messages and the files it writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_binary.h"
#include "trace/trace_test_data.h"
#include "util/json.h"

namespace gpugate {
namespace {

using testing::ReadAll;
using testing::RunGpugate;
using testing::TraceDataPath;

TEST(AnalyzeCliTest, ConsoleTableByDefault) {
  auto o = RunGpugate({"analyze", "tests/data/traces/kineto_simple_add_a100.json", "--top", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("GPU 0 (NVIDIA A100-PG509-200): 79 kernels, 16 memcpys, 3 memsets"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("Top kernels (3 of 16)"), std::string::npos);
  EXPECT_NE(o.out.find("host-wait"), std::string::npos);
  EXPECT_NE(o.out.find("Findings (policy default)"), std::string::npos);
  // One pageable HtoD copy in the trace: the rule engine's pageable-memcpy.
  EXPECT_NE(o.out.find("[medium] pageable-memcpy (gpu0): 16 copies"), std::string::npos) << o.out;
}

TEST(AnalyzeCliTest, WritesAllArtifacts) {
  std::string dir = testing::MakeTempDir();
  auto o = RunGpugate({"analyze", TraceDataPath("kineto_ns_resolution_rank0.json.gz"), "--json", dir + "/a.json",
                       "--markdown", dir + "/a.md", "--flame", dir + "/f.html", "--timeline", dir + "/t.json",
                       "--timeline-categories", "kernel,gpu_memcpy", "--timeline-window", "0:100",
                       "--memory", dir + "/m.csv"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto report = ParseJson(ReadAll(dir + "/a.json"), "a.json");
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->Find("devices")->items[0].Find("kernel_count")->integer, 4350);
  EXPECT_NE(ReadAll(dir + "/a.md").find("### Top kernels"), std::string::npos);
  std::string html = ReadAll(dir + "/f.html");
  EXPECT_NE(html.find("var DATA="), std::string::npos);
  EXPECT_NE(html.find("[gpu] "), std::string::npos);
  auto timeline = ParseJson(ReadAll(dir + "/t.json"), "t.json");
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  const auto& events = timeline->Find("traceEvents")->items;
  ASSERT_FALSE(events.empty());
  for (const JsonValue& e : events) {
    for (const char* key : {"name", "ph", "ts", "pid", "tid", "cat", "args"}) ASSERT_NE(e.Find(key), nullptr) << key;
    const std::string& cat = e.Find("cat")->string;
    EXPECT_TRUE(cat == "kernel" || cat == "gpu_memcpy" || e.Find("ph")->string == "M") << cat;
  }
  // The trace has no [memory] events: a header-only CSV and a warning.
  EXPECT_EQ(ReadAll(dir + "/m.csv"), "ts_ns,device_type,device_id,bytes,total_allocated,total_reserved\n");
  EXPECT_NE(o.err.find("gpugate: warning:"), std::string::npos);
  auto folded = RunGpugate({"analyze", TraceDataPath("kineto_cuda_event_sync.json"), "--flame", dir + "/f.folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(ReadAll(dir + "/f.folded").find(";cudaLaunchKernel;[gpu] "), std::string::npos);
  testing::RemoveTree(dir);
}

TEST(AnalyzeCliTest, JsonToStdoutSuppressesConsole) {
  auto o = RunGpugate({"analyze", "tests/data/traces/kineto_cuda_event_sync.json", "--json", "-"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto doc = ParseJson(o.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->Find("schema")->string, "gpugate/trace-analysis/v2");
}

TEST(AnalyzeCliTest, TimelineToStdoutSuppressesConsole) {
  auto o = RunGpugate({"analyze", "tests/data/traces/kineto_cuda_event_sync.json", "--timeline", "-"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto doc = ParseJson(o.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << "\n" << o.out.substr(0, 200);
  EXPECT_NE(doc->Find("traceEvents"), nullptr);
}

TEST(AnalyzeCliTest, KernelsWhoseNamesBeginAlikePrintApart) {
  // Two kernels whose names differ only past the console's width.
  std::string dir = testing::MakeTempDir();
  const std::string head = "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<";
  const std::string pad(80, 'x');
  std::string text = "{\"traceEvents\": [";
  int64_t ts = 0;
  for (const std::string& tail : {std::string("2>>"), std::string("3>>")}) {
    text += ts ? "," : "";
    ts += 100;
    text += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + head + pad + tail + "\", \"pid\": 0, \"tid\": 7, "
            "\"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(ts / 10) +
            ", \"args\": {\"device\": 0, \"stream\": 7}}";
  }
  text += "]}";
  testing::WriteAll(dir + "/t.json", text);
  auto o = RunGpugate({"analyze", dir + "/t.json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const std::string& report : {o.out}) {
    std::vector<std::string> rows;
    for (size_t at = report.find(head); at != std::string::npos; at = report.find(head, at + 1))
      rows.push_back(report.substr(at, report.find('\n', at) - at));
    ASSERT_GE(rows.size(), 2u) << report;
    EXPECT_NE(rows[0], rows[1]) << report;
  }
  testing::RemoveTree(dir);
}

TEST(AnalyzeCliTest, BadInputsExitTwoWithPosition) {
  std::string dir = testing::MakeTempDir();
  testing::WriteAll(dir + "/empty.json", "");
  testing::WriteAll(dir + "/text.json", "hello\n");
  testing::WriteAll(dir + "/typed.json", "[{\"ph\": \"X\", \"ts\": \"1\", \"dur\": 1}]");
  testing::WriteAll(dir + "/cut.json", std::string(testing::kHandTrace).substr(0, 700));
  auto empty = RunGpugate({"analyze", dir + "/empty.json"});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err, "gpugate: error: " + dir + "/empty.json:1:1: empty trace file\n");
  auto text = RunGpugate({"analyze", dir + "/text.json"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find(dir + "/text.json:1:1: not valid JSON"), std::string::npos) << text.err;
  auto typed = RunGpugate({"analyze", dir + "/typed.json"});
  EXPECT_EQ(typed.exit_code, 2);
  EXPECT_NE(typed.err.find("typed.json:1:20: traceEvents[0].ts: expected a number, got string"), std::string::npos)
      << typed.err;
  auto cut = RunGpugate({"analyze", dir + "/cut.json"});
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("truncated trace?"), std::string::npos) << cut.err;
  auto missing = RunGpugate({"analyze", dir + "/nope.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
  auto flame = RunGpugate({"analyze", TraceDataPath("kineto_cuda_event_sync.json"), "--flame", dir + "/x.svg"});
  EXPECT_EQ(flame.exit_code, 2);
  EXPECT_NE(flame.err.find("use a .html (interactive page) or .folded"), std::string::npos);
  auto window = RunGpugate({"analyze", TraceDataPath("kineto_cuda_event_sync.json"), "--timeline", dir + "/t.json",
                            "--timeline-window", "5:1", "--json", dir + "/w.json"});
  EXPECT_EQ(window.exit_code, 2);
  EXPECT_NE(window.err.find("END is before START"), std::string::npos);
  // Refused before any report is written or printed.
  EXPECT_TRUE(window.out.empty()) << window.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/w.json"));
  auto orphan = RunGpugate({"analyze", TraceDataPath("kineto_cuda_event_sync.json"), "--timeline-window", "1:5"});
  EXPECT_EQ(orphan.exit_code, 2);
  EXPECT_NE(orphan.err.find("--timeline-window applies to --timeline F.json, which was not given"),
            std::string::npos)
      << orphan.err;
  // A category the trace does not hold selects nothing: said, with the ones it holds.
  auto typo = RunGpugate({"analyze", TraceDataPath("kineto_cuda_event_sync.json"), "--timeline", dir + "/t.json",
                          "--timeline-categories", "kernels"});
  EXPECT_EQ(typo.exit_code, 0) << typo.err;
  EXPECT_NE(typo.err.find("no event of " + TraceDataPath("kineto_cuda_event_sync.json") +
                          " has category 'kernels'; its categories: "),
            std::string::npos)
      << typo.err;
  EXPECT_NE(typo.err.find(", kernel,"), std::string::npos) << typo.err;
  auto usage = RunGpugate({"analyze"});
  EXPECT_EQ(usage.exit_code, 2);
  testing::RemoveTree(dir);
}

// analyze reports what `compare` would suggest for the same trace: the same
// rules, from the same policy, worded the same.
TEST(AnalyzeCliTest, FindingsFollowThePolicyInEveryFormat) {
  std::string dir = testing::MakeTempDir();
  const std::string trace = TraceDataPath("kineto_ns_resolution_rank0.json.gz");
  auto o = RunGpugate({"analyze", trace, "--json", dir + "/a.json", "--markdown", dir + "/a.md", "--html",
                       dir + "/a.html"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto report = ParseJson(ReadAll(dir + "/a.json"), "a.json");
  ASSERT_TRUE(report.ok()) << report.error().message;
  std::vector<std::string> rules;
  for (const JsonValue& f : report->Find("summary")->Find("findings")->items) rules.push_back(f.Find("rule")->string);
  EXPECT_NE(std::find(rules.begin(), rules.end(), "many-small-calls"), rules.end());
  const JsonValue* launches = report->Find("identical_launches");
  ASSERT_TRUE(launches != nullptr && !launches->items.empty());
  EXPECT_EQ(launches->items[0].Find("count")->integer, 420);
  const std::string md = ReadAll(dir + "/a.md");
  EXPECT_NE(md.find("### Findings (policy default)"), std::string::npos);
  EXPECT_NE(md.find("**medium** many-small-calls (gpu0): one kernel was launched 420 times"), std::string::npos) << md;
  EXPECT_NE(md.find("### Identical launches"), std::string::npos);
  const std::string html = ReadAll(dir + "/a.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<h2>Findings (policy default)</h2>"), std::string::npos);
  EXPECT_NE(html.find("many-small-calls (gpu0): one kernel was launched 420 times"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);

  // A policy that switches the rule off: gone from the findings.
  testing::WriteAll(dir + "/quiet.yaml", "version: 1\nname: quiet\nrules:\n  - {id: many-small-calls, emit: off}\n");
  auto quiet = RunGpugate({"analyze", trace, "--policy", dir + "/quiet.yaml"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_NE(quiet.out.find("Findings (policy quiet)"), std::string::npos);
  EXPECT_EQ(quiet.out.find("many-small-calls"), std::string::npos) << quiet.out;

  // A rule that fails the gate in `compare` is reported here, not acted on.
  testing::WriteAll(dir + "/strict.yaml", "version: 1\nrules:\n  - id: no-tiny-kernels\n"
                                          "    when: trace.identical_launches >= 100\n    emit: fail\n"
                                          "    priority: high\n    message: \"{trace.identical_launches} identical launches\"\n");
  auto strict = RunGpugate({"analyze", trace, "--policy", dir + "/strict.yaml"});
  EXPECT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.out.find("[high fail] no-tiny-kernels (gpu0): 420 identical launches"), std::string::npos)
      << strict.out;

  // A bad policy is an input error at its position, before the trace is read.
  testing::WriteAll(dir + "/bad.yaml", "version: 1\nrules:\n  - id: x\n    when: trace.gpu_idel > 1\n    message: m\n");
  auto bad = RunGpugate({"analyze", trace, "--policy", dir + "/bad.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.yaml:4:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("trace.gpu_idle"), std::string::npos) << bad.err;  // did you mean
  testing::RemoveTree(dir);
}

}  // namespace
}  // namespace gpugate
