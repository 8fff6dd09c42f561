// Gate policy (`policies/*.yaml`, version 1) as plain structs: practical
// thresholds per workload glob and metric, severity, the suite's
// false-discovery budget, what an inconclusive result does, and waivers.
// Parsing (yaml-cpp) lives in policy.cc; every error names file:line:col.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/suite.h"
#include "model/verdicts.h"
#include "rules/rule_spec.h"
#include "util/result.h"

namespace gpugate {

inline constexpr int kPolicyVersion = 1;

/// What an inconclusive verdict does to the outcome.
enum class OnInconclusive { kPass, kWarn, kFail };

/// Metric names a policy may name: "time", "throughput", "peak_memory",
/// "kernel" (every "kernel:<name>" metric), "value" (a custom benchmark's
/// value in a unit that is not a time) and "*" (any).
const std::vector<std::string>& PolicyMetricNames();

struct PolicyDefaults {
  double threshold = 0.03;                        ///< practical threshold, fraction
  std::map<std::string, double> metric_thresholds;  ///< per metric name ("peak_memory" -> 0.10)
  double fdr_q = 0.01;                            ///< Benjamini-Hochberg level for the suite
  OnInconclusive on_inconclusive = OnInconclusive::kPass;
  /// What a result from a different environment does: pass silently, warn
  /// (headline and annotation; the default) or fail (exit 4).
  OnInconclusive on_incomparable = OnInconclusive::kWarn;
  /// One value per side: false (default) = inconclusive with reason
  /// no_replication; true (`no_replication: threshold`) = the ratio alone
  /// against the threshold, for users who accept that risk.
  bool threshold_without_replication = false;
  /// When set, a tested result that could not have seen a slowdown of this
  /// size (minimum detectable effect above it) makes the outcome
  /// inconclusive: a runner too noisy to guard the workload is reported.
  std::optional<double> require_detectable;
  double confidence = 0.95;                       ///< level of the reported intervals
};

/// A rule: fields left unset fall through to earlier rules and the defaults.
struct PolicyRule {
  std::string match = "*";      ///< glob over the workload name
  std::string metric = "*";     ///< metric name or "*"; "kernel" covers kernel:<name>
  std::optional<double> threshold;
  std::optional<bool> lower_is_better;   ///< direction; unset = the metric's own
  std::optional<Severity> severity;
  SourceLocation location;
};

/// A known regression accepted until a date: reported, but it does not fail.
struct Waiver {
  std::string match;            ///< glob over the workload name
  std::string metric = "*";
  std::string until;            ///< YYYY-MM-DD, inclusive
  std::string reason;
  SourceLocation location;
};

struct Policy {
  int version = kPolicyVersion;
  std::string name;             ///< `name:` or the file stem; "default" for DefaultPolicy()
  std::string path;             ///< file it was read from, empty when built in
  PolicyDefaults defaults;
  std::vector<PolicyRule> rules;
  /// Expression rules (`rules:` entries with `id`): the built-in ones of
  /// policies/default.yaml unless `builtin_rules: false`, then the file's own,
  /// which replace a built-in rule of the same id (`emit: off` removes it).
  std::vector<ExprRule> expr_rules;
  std::vector<Waiver> waivers;
};

/// What the policy says about one workload x metric. Later rules win, field
/// by field.
struct ResolvedPolicy {
  double threshold = 0.03;
  std::optional<bool> lower_is_better;
  Severity severity = Severity::kFail;
};

/// The built-in policy: policies/default.yaml, compiled into the binary (3%
/// threshold, 10% for peak memory and per-kernel times, q = 0.01,
/// inconclusive passes, and the built-in expression rules).
/// One instance for the process; copy it to change it.
const Policy& DefaultPolicy();

/// The text of policies/default.yaml as built into this binary.
const std::string& DefaultPolicyText();

/// Parses a policy. Errors: "file:line:col: message", exit code 2; unknown
/// keys and enum values come with "did you mean".
Result<Policy> LoadPolicyFile(const std::string& path);
/// Same from text; `name` stands in for the file name in messages.
Result<Policy> LoadPolicyFromString(const std::string& text, const std::string& name);

/// Whether a policy metric pattern covers a metric: "*" any, "kernel" any
/// "kernel:<name>", otherwise a glob over the metric name.
bool PolicyMetricMatches(const std::string& pattern, const std::string& metric);

/// Threshold, direction and severity for a workload x metric.
ResolvedPolicy ResolvePolicy(const Policy& policy, const std::string& workload,
                             const std::string& metric);

/// The first waiver covering the workload x metric that is still in force
/// on `today` (YYYY-MM-DD; until >= today), or nullptr. An expired waiver
/// never hides a later one in force: it only gets its warning.
const Waiver* FindWaiver(const Policy& policy, const std::string& workload,
                         const std::string& metric, const std::string& today);

const char* ToString(OnInconclusive o);

}  // namespace gpugate
