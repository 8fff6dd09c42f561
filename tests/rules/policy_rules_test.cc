// Expression rules in policy files: built-in rules inherited, replaced by id,
// switched off, or dropped with builtin_rules: false; a rule that emits fail
// fails the outcome; and every malformed entry in tests/data/bad_policy_rules
// is an input error at its position ("# expect: LINE:COL substring").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "config/policy.h"
#include "report/console.h"
#include "rules/engine.h"
#include "trace/to_results.h"

namespace gpugate {
namespace {

const ExprRule* FindRule(const Policy& p, const std::string& id) {
  for (const ExprRule& r : p.expr_rules)
    if (r.id == id) return &r;
  return nullptr;
}

TEST(PolicyRules, DefaultPolicyIsTheShippedFile) {
  std::ifstream in(std::string(GPUGATE_SOURCE_DIR) + "/policies/default.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(DefaultPolicyText(), text) << "rebuild: the built-in policy is policies/default.yaml";
  EXPECT_NE(FindRule(DefaultPolicy(), "small-grid"), nullptr);
}

TEST(PolicyRules, AUserPolicyInheritsReplacesAndSwitchesOff) {
  Result<Policy> p = LoadPolicyFromString(R"(version: 1
rules:
  - match: "io/*"
    threshold: 10%
  - id: small-grid
    when: kernel.grid_blocks < device.sms / 2
    priority: critical
    message: "{kernel.name}: {kernel.grid_blocks} blocks"
  - id: partial-warps
    emit: off
  - id: many-kernels
    when: count(kernel) > 100
    emit: warning
    message: "{count(kernel)} kernels"
)", "team.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->rules.size(), 1u);  // the threshold rule
  const ExprRule* small = FindRule(*p, "small-grid");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->priority, RulePriority::kCritical);
  EXPECT_EQ(small->when.text(), "kernel.grid_blocks < device.sms / 2");
  EXPECT_EQ(FindRule(*p, "partial-warps"), nullptr);
  const ExprRule* many = FindRule(*p, "many-kernels");
  ASSERT_NE(many, nullptr);
  EXPECT_EQ(many->emit, RuleEmit::kWarning);
  EXPECT_EQ(many->scope, RuleScope::kWorkload);
  EXPECT_NE(FindRule(*p, "pageable-memcpy"), nullptr);  // inherited
}

TEST(PolicyRules, BuiltinRulesFalseKeepsOnlyTheFilesRules) {
  Result<Policy> p = LoadPolicyFromString(R"(version: 1
builtin_rules: false
rules:
  - id: mine
    when: workload.cv > 10%
    message: "noisy"
)", "own.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->expr_rules.size(), 1u);
  EXPECT_EQ(p->expr_rules[0].id, "mine");
}

TEST(PolicyRules, ARuleThatEmitsFailFailsTheOutcome) {
  Result<Policy> p = LoadPolicyFromString(R"(version: 1
rules:
  - id: no-tiny-grids
    when: kernel.grid_blocks < 4
    emit: fail
    message: "{kernel.name} runs {kernel.grid_blocks} blocks"
)", "strict.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  Results run;
  run.run.run_id = "a";
  WorkloadResult w;
  w.name = "step";
  w.rounds = {{1.0, 1.01, 0.99}, {1.0, 1.0, 1.01}};
  KernelResult k;
  k.name = "reduce";
  k.count = 10;
  k.total_s = 1e-3;
  k.metrics = {{"grid_blocks", 1}, {"block_threads", 256}};
  w.kernels = {k};
  run.workloads = {w};
  Results current = run;
  current.run.run_id = "b";
  Verdicts v = CompareRuns({run}, {current}, *p, CompareOptions{});
  bool found = false;
  for (const Suggestion& s : v.suggestions) found = found || (s.rule == "no-tiny-grids" && s.severity == "fail");
  EXPECT_TRUE(found);
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(ExitCodeFor(v), 1);
  // The same run with a large grid passes the rule.
  run.workloads[0].kernels[0].metrics["grid_blocks"] = 512;
  current.workloads[0].kernels[0].metrics["grid_blocks"] = 512;
  Verdicts ok = CompareRuns({run}, {current}, *p, CompareOptions{});
  EXPECT_NE(ok.outcome, Outcome::kFail);
}

// examples/policies/kernel-rules.yaml on the real trace its comment names:
// the spin kernel's one-block grid fails the gate.
TEST(PolicyRules, TheExamplePolicyFailsTheSpinKernelTrace) {
  Result<Policy> p = LoadPolicyFile(std::string(GPUGATE_SOURCE_DIR) + "/examples/policies/kernel-rules.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(FindRule(*p, "partial-warps"), nullptr);
  ASSERT_NE(FindRule(*p, "gpu-idle-host-wait"), nullptr);
  EXPECT_EQ(FindRule(*p, "gpu-idle-host-wait")->when.text(), "trace.gpu_idle > 20% and trace.host_wait > 50%");
  Result<Results> trace = TraceToResults(std::string(GPUGATE_SOURCE_DIR) + "/tests/data/traces/kineto_cuda_event_sync.json");
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  Verdicts v = CompareRuns({*trace}, {*trace}, *p, CompareOptions{});
  bool failed = false;
  for (const Suggestion& s : v.suggestions) {
    failed = failed || (s.rule == "tiny-grid-fails" && s.severity == "fail" && s.kernel.find("spin_kernel") != std::string::npos);
    EXPECT_NE(s.rule, "partial-warps");
  }
  EXPECT_TRUE(failed);
  EXPECT_EQ(ExitCodeFor(v), 1);
  // The headline says why it fails although nothing regressed.
  const std::string console = RenderConsole(v, ReportOptions{});
  EXPECT_NE(console.find("FAIL: 0 regressions"), std::string::npos) << console;
  EXPECT_NE(console.find("2 rule findings fail the gate (tiny-grid-fails)"), std::string::npos) << console;
  // The built-in policy only advises on the same trace.
  Verdicts d = CompareRuns({*trace}, {*trace}, DefaultPolicy(), CompareOptions{});
  EXPECT_EQ(ExitCodeFor(d), 0);
}

// ---------------------------------------------------------------------------
// Malformed rule entries.

const char kBadDir[] = GPUGATE_SOURCE_DIR "/tests/data/bad_policy_rules";

std::vector<std::string> BadFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kBadDir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(BadPolicyRules, FolderHoldsEnoughCases) { EXPECT_GE(BadFiles().size(), 12u); }

class BadPolicyRuleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPolicyRuleTest, FailsWithPositionedInputError) {
  const std::string& path = GetParam();
  std::ifstream in(path);
  std::string first;
  ASSERT_TRUE(std::getline(in, first));
  const std::string prefix = "# expect: ";
  ASSERT_EQ(first.rfind(prefix, 0), 0u) << path;
  const std::string rest = first.substr(prefix.size());
  const size_t space = rest.find(' ');
  ASSERT_NE(space, std::string::npos) << path;
  const std::string position = rest.substr(0, space), substring = rest.substr(space + 1);
  ASSERT_FALSE(substring.empty()) << path;
  Result<Policy> p = LoadPolicyFile(path);
  ASSERT_FALSE(p.ok()) << path << " loaded";
  EXPECT_EQ(p.error().code, ExitCode::kInputError);
  EXPECT_EQ(p.error().message.rfind(path + ":" + position + ": ", 0), 0u) << p.error().message;
  EXPECT_NE(p.error().message.find(substring), std::string::npos) << p.error().message;
}

INSTANTIATE_TEST_SUITE_P(Files, BadPolicyRuleTest, ::testing::ValuesIn(BadFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = std::filesystem::path(info.param).stem().string();
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace gpugate
