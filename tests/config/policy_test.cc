// Tests for the policy reader (policies/*.yaml, version 1) and rule resolution.
#include "config/policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpugate {
namespace {

TEST(Policy, ParsesEveryField) {
  const char* text = R"(version: 1
name: team
defaults:
  threshold: 3%
  thresholds: {peak_memory: 10%, kernel: 0.08}
  fdr_q: 0.01
  on_inconclusive: fail
  on_incomparable: pass
  no_replication: threshold
  require_detectable: 10%
  confidence: 0.99
rules:
  - match: "gemm/*"
    metric: time
    threshold: 1.5%
    severity: fail
  - match: "io/*"
    severity: warn
  - match: "*"
    metric: throughput
    direction: higher_is_better
waivers:
  - match: "io/read"
    metric: time
    until: 2026-12-31
    reason: "disk change, see #42"
)";
  Result<Policy> p = LoadPolicyFromString(text, "team.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "team");
  EXPECT_DOUBLE_EQ(p->defaults.threshold, 0.03);
  EXPECT_DOUBLE_EQ(p->defaults.metric_thresholds.at("peak_memory"), 0.10);
  EXPECT_DOUBLE_EQ(p->defaults.fdr_q, 0.01);
  EXPECT_EQ(p->defaults.on_inconclusive, OnInconclusive::kFail);
  EXPECT_DOUBLE_EQ(p->defaults.confidence, 0.99);
  EXPECT_EQ(p->defaults.on_incomparable, OnInconclusive::kPass);
  EXPECT_TRUE(p->defaults.threshold_without_replication);
  ASSERT_TRUE(p->defaults.require_detectable.has_value());
  EXPECT_DOUBLE_EQ(*p->defaults.require_detectable, 0.10);
  ASSERT_EQ(p->rules.size(), 3u);
  EXPECT_EQ(p->rules[0].location.line, 13);
  ASSERT_EQ(p->waivers.size(), 1u);
  EXPECT_EQ(p->waivers[0].until, "2026-12-31");

  ResolvedPolicy g = ResolvePolicy(*p, "gemm/1024", "time");
  EXPECT_DOUBLE_EQ(g.threshold, 0.015);
  EXPECT_EQ(g.severity, Severity::kFail);
  EXPECT_DOUBLE_EQ(ResolvePolicy(*p, "gemm/1024", "kernel:sgemm").threshold, 0.08);
  EXPECT_DOUBLE_EQ(ResolvePolicy(*p, "other", "peak_memory").threshold, 0.10);
  EXPECT_EQ(ResolvePolicy(*p, "io/write", "time").severity, Severity::kWarn);
  EXPECT_EQ(ResolvePolicy(*p, "x", "throughput").lower_is_better, false);
  EXPECT_FALSE(ResolvePolicy(*p, "x", "time").lower_is_better.has_value());
  EXPECT_NE(FindWaiver(*p, "io/read", "time", "2026-11-22"), nullptr);
  EXPECT_EQ(FindWaiver(*p, "io/read", "peak_memory", "2026-11-22"), nullptr);
  // On its last day it is in force; the day after, not.
  EXPECT_NE(FindWaiver(*p, "io/read", "time", "2026-12-31"), nullptr);
  EXPECT_EQ(FindWaiver(*p, "io/read", "time", "2027-01-01"), nullptr);
}

// An expired waiver listed first does not hide a later one in force for the
// same workload (it gets its warning, and that is all it does).
TEST(Policy, AnExpiredWaiverDoesNotHideOneInForce) {
  Result<Policy> p = LoadPolicyFromString(
      "version: 1\nwaivers:\n"
      "  - {match: \"io/*\", until: 2020-01-01, reason: old}\n"
      "  - {match: \"io/read\", until: 2099-12-31, reason: new disks}\n",
      "p.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const Waiver* w = FindWaiver(*p, "io/read", "time", "2026-11-30");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->reason, "new disks");
  EXPECT_EQ(FindWaiver(*p, "io/write", "time", "2026-11-30"), nullptr);
}

TEST(Policy, DefaultPolicyAndMetricPatterns) {
  Policy d = DefaultPolicy();
  EXPECT_EQ(d.name, "default");
  EXPECT_DOUBLE_EQ(ResolvePolicy(d, "a", "time").threshold, 0.03);
  EXPECT_DOUBLE_EQ(ResolvePolicy(d, "a", "kernel:k").threshold, 0.10);
  EXPECT_DOUBLE_EQ(d.defaults.fdr_q, 0.01);
  EXPECT_TRUE(PolicyMetricMatches("kernel", "kernel:gemm"));
  EXPECT_FALSE(PolicyMetricMatches("kernel", "time"));
  EXPECT_TRUE(PolicyMetricMatches("kernel:ge*", "kernel:gemm"));
  EXPECT_TRUE(PolicyMetricMatches("*", "peak_memory"));
}

struct BadPolicy {
  const char* text;
  const char* where;    // "line:col"
  const char* message;  // substring
};

class PolicyErrors : public ::testing::TestWithParam<BadPolicy> {};

TEST_P(PolicyErrors, ArePositionedAndExplain) {
  const BadPolicy& b = GetParam();
  Result<Policy> p = LoadPolicyFromString(b.text, "p.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ExitCode::kInputError);
  EXPECT_NE(p.error().message.find(std::string("p.yaml:") + b.where + ":"), std::string::npos)
      << p.error().message;
  EXPECT_NE(p.error().message.find(b.message), std::string::npos) << p.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, PolicyErrors,
    ::testing::Values(
        BadPolicy{"version: 2\n", "1:10", "unsupported policy version 2"},
        BadPolicy{"version: 1\ndefautls: {}\n", "2:1", "did you mean 'defaults'"},
        BadPolicy{"version: 1\ndefaults:\n  treshold: 5%\n", "3:3", "did you mean 'threshold'"},
        BadPolicy{"version: 1\ndefaults:\n  threshold: five\n", "3:14", "invalid fraction"},
        BadPolicy{"version: 1\ndefaults:\n  fdr_q: 1.5\n", "3:10", "must be in (0, 1)"},
        BadPolicy{"version: 1\ndefaults:\n  on_inconclusive: fial\n", "3:20", "(did you mean 'fail'?)"},
        BadPolicy{"version: 1\ndefaults:\n  on_incomparable: ignore\n", "3:20", "on_incomparable"},
        BadPolicy{"version: 1\ndefaults:\n  no_replication: guess\n", "3:19", "no_replication"},
        BadPolicy{"version: 1\ndefaults:\n  require_detectable: 0%\n", "3:23",
                  "'defaults.require_detectable' must be above 0%"},
        BadPolicy{"version: 1\nrules:\n  - match: a\n    metric: tim\n    threshold: 3%\n", "4:13",
                  "did you mean 'time'"},
        BadPolicy{"version: 1\nrules:\n  - match: a\n    severity: fatal\n", "4:15",
                  "unknown severity 'fatal'"},
        BadPolicy{"version: 1\nrules:\n  - match: a\n", "3:5", "rule sets nothing"},
        BadPolicy{"version: 1\nwaivers:\n  - match: a\n    until: 2026-02-30\n    reason: x\n",
                  "4:12", "must be a date YYYY-MM-DD"},
        BadPolicy{"version: 1\nwaivers:\n  - match: a\n    until: 2026-02-01\n", "3:5",
                  "missing required key 'reason'"},
        BadPolicy{"version: 1\nrules: {a: 1}\n", "2:8", "must be a list"},
        // Keys of the other kind of rule are named as such.
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1\n    match: a\n    message: x\n",
                  "5:5", "'match' belongs to threshold rules"},
        BadPolicy{"version: 1\nrules:\n  - match: a\n    message: x\n", "4:5",
                  "'message' belongs to expression rules, which need 'id' and 'when'"},
        // An error inside a value that spans lines is placed in the file.
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1\n    message: >-\n      first line\n"
                  "      x {workload.nam}\n", "7:10", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1\n    message: first line\n"
                  "      x {workload.nam}\n", "6:10", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1 and\n      workload.nam > 1\n"
                  "    message: x\n", "5:7", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: \"workload.cv > 1 and\n      workload.nam > 1\"\n"
                  "    message: x\n", "5:7", "unknown name 'workload.nam'"},
        // The value on the line below its key; a blank line inside it; a
        // double-quoted line continued with a backslash.
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when:\n      workload.cv > 1 and\n      workload.nam > 1\n"
                  "    message: x\n", "6:7", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1 and\n\n      workload.nam > 1\n"
                  "    message: x\n", "6:7", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: \"workload.cv > 1 and \\\n      workload.nam > 1\"\n"
                  "    message: x\n", "5:7", "unknown name 'workload.nam'"},
        BadPolicy{"version: 1\nrules:\n  - id: t\n    when: workload.cv > 1\n    message:\n      first line\n"
                  "      x {workload.nam}\n", "7:10", "unknown name 'workload.nam'"},
        // A string split over two lines would fold into a space (a name that
        // never matches): an error where the line ends.
        // A bare number of 1 or more is a percentage without its sign.
        BadPolicy{"version: 1\ndefaults:\n  threshold: 5\n", "3:14",
                  "'defaults.threshold' 5 reads as a fraction, 500%: write 5% if that is meant (or 500%)"},
        BadPolicy{"version: 1\ndefaults:\n  thresholds:\n    kernel: 10\n", "4:13", "reads as a fraction, 1000%"},
        BadPolicy{"version: 1\ndefaults:\n  thresholds:\n    kernel: 5%\n    kernel: 50%\n", "5:5",
                  "duplicate key 'kernel' (first at 4:5)"},
        BadPolicy{"version: 1\nrules:\n  - {match: \"\", threshold: 5%}\n", "3:13",
                  "'rules[0].match' must not be blank"},
        BadPolicy{"version: 1\nrules:\n  - {match: \"  \", threshold: 3%}\n", "3:13",
                  "'rules[0].match' must not be blank"},
        BadPolicy{"version: 1\ndefaults:\n  require_detectable: 10\n", "3:23",
                  "'defaults.require_detectable' 10 reads as a fraction, 1000%"},
        BadPolicy{"version: 1\nwaivers:\n  - {match: \"\", until: 2099-12-31, reason: x}\n", "3:13",
                  "'waivers[0].match' must not be blank"},
        BadPolicy{"version: 1\nbuiltin_rules: false\nrules:\n  - {id: small-grid, emit: off}\n", "4:5",
                  "no built-in rule 'small-grid' to switch off: builtin_rules: false left none"},
        BadPolicy{"- 1\n", "1:1", "must be a mapping"},
        // Tags gpugate does not read are refused at the tag, not dropped
        // (the text would be taken as written); core tags must fit.
        BadPolicy{"version: 1\nwaivers:\n  - match: !ENV ${W}\n    until: 2099-12-31\n    reason: x\n", "3:12",
                  "unknown YAML tag '!ENV'"},
        BadPolicy{"version: 1\nwaivers:\n  - match: a\n    until: 2099-12-31\n    reason: !include r.txt\n",
                  "5:13", "unknown YAML tag '!include'"},
        BadPolicy{"version: 1\nname: &n !!binary abc\n", "2:10", "unknown YAML tag '!!binary'"},
        BadPolicy{"!custom version: 1\n", "1:1", "unknown YAML tag '!custom'"},
        BadPolicy{"version: !!int one\n", "1:10", "the tag '!!int' does not fit 'one', which is not an integer"},
        BadPolicy{"version: 1\nrules: !!map []\n", "2:8", "the tag '!!map' does not fit a list"},
        // An expression an alias brings in is read where the alias is.
        BadPolicy{"version: 1\nrules:\n  - id: a\n    when: workload.cv > 1%\n    message: &w \"workload.cv >> 1%\"\n"
                  "  - id: b\n    when: *w\n    message: \"m\"\n",
                  "7:11", "at 5:31 in the text this alias brings in: expected a value, found '>'"},
        BadPolicy{"version: 1\nrules:\n  - id: a\n    when: workload.cv > 1%\n    message: m\n"
                  "    source: &h \"{workload.nam}\"\n  - id: b\n    when: workload.cv > 2%\n    message: *h\n",
                  "9:14", "at 6:18 in the text this alias brings in: unknown name 'workload.nam'"},
        // A rule repeated by an alias is the second use, at the alias.
        BadPolicy{"version: 1\nrules:\n  - &r\n    id: a\n    when: workload.cv > 1%\n    message: \"m\"\n  - *r\n",
                  "7:5", "rule id 'a' is used twice (first at p.yaml:4:5; this alias brings in the rule at 4:5)"}));

// A block scalar (| or >) as the first key of a rule, after the list's
// dash: the rule's other keys are not part of it, whatever its header
// (indentation and chomping indicators, a comment) and blank lines.
TEST(Policy, BlockScalarFirstInARuleEndsWhereItsIndentationDoes) {
  const char* kWhens[] = {
      "  - when: |\n      workload.cv > 5%\n    id: my-rule\n    message: \"noisy\"\n",
      "  - when: >-\n      workload.cv > 5%\n    id: my-rule\n    message: \"noisy\"\n",
      "  - when: |2\n        workload.cv > 5%\n    id: my-rule\n    message: \"noisy\"\n",
      ("  - when: |-  # a comment\n\n      workload.cv >\n\n        5%\n\n    # the id\n    id: my-rule\n"
       "    message: \"noisy\"\n"),
      "  - when: >+2\n      workload.cv\n       > 5%\n\n    id: my-rule\n    message: \"noisy\"\n",
      "  - when: |\r\n      workload.cv > 5%\r\n    id: my-rule\r\n    message: \"noisy\"\r\n",
      "  - when:\n      |\n      workload.cv > 5%\n    id: my-rule\n    message: \"noisy\"\n",
      "  -   when: >\n          workload.cv > 5%\n      id: my-rule\n      message: \"noisy\"\n",
      "  - speedup: >\n      25%\n    id: my-rule\n    when: workload.cv > 5%\n    message: \"noisy\"\n",
  };
  for (const char* rules : kWhens) {
    const std::string text = std::string("version: 1\nbuiltin_rules: false\nrules:\n") + rules;
    Result<Policy> p = LoadPolicyFromString(text, "p.yaml");
    ASSERT_TRUE(p.ok()) << text << "\n" << p.error().message;
    ASSERT_EQ(p->expr_rules.size(), 1u) << text;
    EXPECT_EQ(p->expr_rules[0].id, "my-rule") << text;
  }
  // An error inside such a block is placed in the file, under the dash.
  Result<Policy> p = LoadPolicyFromString(
      "version: 1\nrules:\n  - when: |2\n\n        workload.cv > 5% and\n        workload.nam > 1\n"
      "    id: my-rule\n    message: \"noisy\"\n",
      "p.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message.rfind("p.yaml:6:9: unknown name 'workload.nam'", 0), 0u) << p.error().message;
  // A string folded across two lines (a long kernel name) reads as YAML
  // folds it: one blank where the line breaks.
  for (const char* folded :
       {"  - id: r1\n    message: m\n    when: >\n      kernel.name == \"void gemm<float,\n      128>(float*)\" and "
        "kernel.duration > 5us\n",
        "  - id: r1\n    message: m\n    when: kernel.name == \"void gemm<float,\n      128>(float*)\" and "
        "kernel.duration > 5us\n"}) {
    Result<Policy> f = LoadPolicyFromString(std::string("version: 1\nbuiltin_rules: false\nrules:\n") + folded, "f.yaml");
    ASSERT_TRUE(f.ok()) << folded << "\n" << f.error().message;
    ASSERT_EQ(f->expr_rules.size(), 1u);
  }
}

// The core tags are read where they agree with the value.
TEST(Policy, CoreTagsThatFitTheValueAreRead) {
  Result<Policy> p = LoadPolicyFromString(
      "version: !!int 1\nname: !!str team\nbuiltin_rules: !!bool false\ndefaults: !!map\n"
      "  threshold: !!str 5%\nwaivers: !!seq\n  - match: !!str \"io/*\"\n    until: 2099-12-31\n    reason: x\n",
      "p.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "team");
  EXPECT_DOUBLE_EQ(p->defaults.threshold, 0.05);
  ASSERT_EQ(p->waivers.size(), 1u);
  EXPECT_EQ(p->waivers[0].match, "io/*");
  // A tagged null would read as its text: refused, at the tag.
  for (const char* text : {"version: 1\nwaivers:\n  - {match: !!null null, until: 2099-12-31, reason: x}\n",
                           "version: 1\nwaivers:\n  - {match: a, until: 2099-12-31, reason: !!null ~}\n"}) {
    Result<Policy> null_tag = LoadPolicyFromString(text, "n.yaml");
    ASSERT_FALSE(null_tag.ok()) << text;
    EXPECT_NE(null_tag.error().message.find("the tag '!!null' is not read"), std::string::npos)
        << null_tag.error().message;
    EXPECT_EQ(null_tag.error().message.rfind("n.yaml:3:", 0), 0u) << null_tag.error().message;
  }
}

// Waivers and rules match names by character: `?` is one code point.
TEST(Policy, GlobsMatchNonAsciiCharacters) {
  Result<Policy> p = LoadPolicyFromString(
      "version: 1\nrules:\n  - {match: \"caf[\u00e0-\u00ff]/*\", threshold: 7%}\nwaivers:\n"
      "  - {match: \"io/r?ad\", until: 2099-12-31, reason: x}\n",
      "p.yaml");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NE(FindWaiver(*p, "io/r\xC3\xA9" "ad", "time", "2026-11-30"), nullptr);
  EXPECT_EQ(FindWaiver(*p, "io/r\xC3\xA9\xC3\xA9" "ad", "time", "2026-11-30"), nullptr);
  EXPECT_DOUBLE_EQ(ResolvePolicy(*p, "caf\xC3\xA9/x", "time").threshold, 0.07);
}

// A key of defaults.thresholds is an exact metric name; the same text in a
// rule's metric is a glob. A glob key would be listed and never applied, so
// it is refused at the key with the rule that does what it means.
TEST(Policy, ThresholdsKeyWithGlobIsRefusedPointingToARule) {
  for (const char* key : {"\"kernel:gemm*\"", "\"kernel:gemm?\"", "\"kernel:gemm[12]\""}) {
    const std::string text = std::string("version: 1\ndefaults:\n  thresholds:\n    ") + key + ": 60%\n";
    Result<Policy> p = LoadPolicyFromString(text, "p.yaml");
    ASSERT_FALSE(p.ok()) << key;
    EXPECT_EQ(p.error().code, ExitCode::kInputError);
    EXPECT_EQ(p.error().message.rfind("p.yaml:4:5: ", 0), 0u) << p.error().message;
    EXPECT_NE(p.error().message.find("keys of 'defaults.thresholds' are exact metric names"), std::string::npos)
        << p.error().message;
    EXPECT_NE(p.error().message.find("write a rule under 'rules:' with metric: 'kernel:gemm"), std::string::npos)
        << p.error().message;
  }
  // An exact kernel name still works, and the glob as a rule applies.
  Result<Policy> ok = LoadPolicyFromString(
      "version: 1\ndefaults:\n  thresholds: {\"kernel:gemm_big\": 20%}\nrules:\n  - {metric: \"kernel:gemm*\", "
      "threshold: 60%, match: \"x*\"}\n",
      "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ResolvePolicy(*ok, "y", "kernel:gemm_big").threshold, 0.20);
  EXPECT_DOUBLE_EQ(ResolvePolicy(*ok, "x1", "kernel:gemm_small").threshold, 0.60);
}

// Aliases of one long text would be copied once per alias (a waiver's
// reason): the expanded text is bounded like the expanded node count.
TEST(Policy, AliasesOfALongTextAreRefusedAtTheAliasThatCrossesTheBudget) {
  std::string text = "version: 1\nwaivers:\n  - &w {match: a, until: 2099-01-01, reason: \"" +
                     std::string(1 << 20, 'r') + "\"}\n";
  for (int i = 0; i < 100; ++i) text += "  - *w\n";
  Result<Policy> p = LoadPolicyFromString(text, "p.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ExitCode::kInputError);
  // The 63rd alias (on line 3 + 63) brings the text past 64 MiB: the anchor
  // and 63 copies are 64 MiB of reasons, plus the keys and the other values.
  EXPECT_EQ(p.error().message.rfind("p.yaml:" + std::to_string(3 + 63) + ":5: aliases expand the document to "
                                    "more than 64 MiB of text (an alias repeats its anchor's whole text)", 0),
            0u)
      << p.error().message.substr(0, 200);
}

TEST(Policy, ShippedPoliciesLoad) {
  for (const char* f : {"policies/default.yaml", "policies/strict.yaml"}) {
    Result<Policy> p = LoadPolicyFile(std::string(GPUGATE_SOURCE_DIR) + "/" + f);
    ASSERT_TRUE(p.ok()) << f << ": " << p.error().message;
  }
  Result<Policy> d = LoadPolicyFile(std::string(GPUGATE_SOURCE_DIR) + "/policies/default.yaml");
  Policy builtin = DefaultPolicy();
  EXPECT_DOUBLE_EQ(d->defaults.threshold, builtin.defaults.threshold);
  EXPECT_DOUBLE_EQ(d->defaults.fdr_q, builtin.defaults.fdr_q);
  EXPECT_EQ(d->defaults.metric_thresholds, builtin.defaults.metric_thresholds);
  EXPECT_EQ(d->defaults.on_inconclusive, builtin.defaults.on_inconclusive);
  EXPECT_EQ(d->defaults.on_incomparable, builtin.defaults.on_incomparable);
  EXPECT_EQ(d->defaults.threshold_without_replication, builtin.defaults.threshold_without_replication);
  EXPECT_EQ(d->defaults.require_detectable, builtin.defaults.require_detectable);
  // strict: certainty where the runner can give it.
  Result<Policy> s = LoadPolicyFile(std::string(GPUGATE_SOURCE_DIR) + "/policies/strict.yaml");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->defaults.require_detectable, 0.10);
  EXPECT_EQ(s->defaults.on_inconclusive, OnInconclusive::kPass);
  EXPECT_EQ(s->defaults.on_incomparable, OnInconclusive::kFail);
}

}  // namespace
}  // namespace gpugate
