// The verdicts model (`gpugate/verdicts/v1`): the output of compare + rules and
// the only input of every reporter. Plain data, no behaviour beyond helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpugate {

inline constexpr const char* kVerdictsSchema = "gpugate/verdicts/v1";

enum class Verdict {
  kRegression,
  kImprovement,
  kUnchanged,
  kInconclusive,
  kNew,
  kRemoved,
  kSkipped,
  kIncomparable,
};

enum class Severity { kFail, kWarn, kOff };

/// One workload x metric comparison.
struct MetricVerdict {
  std::string workload;          ///< expanded workload name (untrusted text)
  std::string metric;            ///< "time", "throughput", "peak_memory", "kernel:<name>", ...
  Verdict verdict = Verdict::kInconclusive;
  Severity severity = Severity::kFail;  ///< what the policy says a regression does
  bool lower_is_better = true;

  /// Ratio current/baseline (point estimate) and its confidence interval.
  std::optional<double> ratio;
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  double confidence = 0.95;
  std::optional<double> p_value;
  std::optional<double> p_adjusted;   ///< after Benjamini-Hochberg across the suite
  double threshold = 0.0;             ///< practical threshold as a fraction (0.05 = 5%)

  std::optional<double> baseline_value;  ///< median, canonical units
  std::optional<double> current_value;
  int64_t baseline_n = 0, current_n = 0;           ///< samples
  int64_t baseline_rounds = 0, current_rounds = 0; ///< replication units
  std::optional<int64_t> baseline_history_runs;    ///< runs in the baseline history

  std::string reason_code;   ///< machine-readable: "significant_above_threshold", ...
  std::string sentence;      ///< "+4.1% [+2.9%, +5.3%] exceeds the 2% threshold; ..."
  bool waived = false;
  std::string waiver_reason;
};

/// Optimization or diagnostic suggestion emitted by a rule.
struct Suggestion {
  std::string workload;   ///< empty for suite-wide suggestions
  std::string rule;       ///< rule id, "noisy-runner", "memory-bound", ...
  int priority = 2;       ///< 1 high .. 3 low
  std::string message;
  std::string evidence;
  std::string hint;
};

/// A difference between the two environments.
struct EnvDifference {
  std::string field;      ///< "gpu.name", "cpu_model", ...
  std::string baseline;
  std::string current;
};

/// Overall outcome, mapped onto the exit code by the caller.
enum class Outcome { kPass, kFail, kInconclusive, kError };

struct Verdicts {
  std::string schema = kVerdictsSchema;
  std::string tool_version;
  std::string baseline_label;   ///< file name or run id of the baseline
  std::string current_label;
  std::string policy_name;
  double fdr_q = 0.05;
  bool environment_matches = true;
  std::vector<EnvDifference> env_differences;
  std::vector<MetricVerdict> metrics;
  std::vector<Suggestion> suggestions;
  std::vector<std::string> warnings;   ///< expired waivers, noisy baselines, ...
  Outcome outcome = Outcome::kPass;

  int Count(Verdict v) const {
    int n = 0;
    for (const auto& m : metrics) n += m.verdict == v;
    return n;
  }
};

const char* ToString(Verdict v);
const char* ToString(Severity s);
const char* ToString(Outcome o);

}  // namespace gpugate
