// Suggestion rules. Each rule is a small function appending to the list.
#include "rules/suggestions.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "compare/estimate.h"
#include "rules/engine.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

void BetweenRunNoise(const Verdicts& v, std::vector<Suggestion>* out) {
  int exceeds = 0, unmeasured = 0;
  bool history = false;  // one of them read a baseline history of several runs
  std::string names;
  for (const MetricVerdict& m : v.metrics) {
    if (m.reason == Reason::kBetweenRunNoise) ++exceeds;
    else if (m.reason == Reason::kBetweenRunNoiseUnmeasured) ++unmeasured;
    else continue;
    history = history || m.baseline_history_runs.value_or(0) > 1;
    if (exceeds + unmeasured <= 3)
      names += (names.empty() ? "" : ", ") + m.workload + " (" + m.metric + ")";
  }
  const int n = exceeds + unmeasured;
  if (n == 0) return;
  // Two reasons, two causes: the noise was measured and is larger than the
  // effect, or there were too few comparisons to measure it at all.
  std::string because;
  if (exceeds > 0) because = "noise between runs exceeds the effect";
  if (unmeasured > 0)
    because += std::string(because.empty() ? "" : " (") +
               "noise between runs could not be measured from too few comparisons" +
               (exceeds > 0 ? ": " + std::to_string(unmeasured) + " of them)" : "");
  Suggestion s;
  s.rule = "between-run-noise";
  s.priority = 1;
  s.message = FormatCount(static_cast<size_t>(n), "comparison") + " stayed inconclusive because " + because;
  s.evidence = names + (n > 3 ? ", ..." : "");
  // Against a history the noise was measured, and more of it would not help:
  // what does is more current runs, A/B, a quieter runner or a wider bar.
  s.hint = history ? "judge several current runs against the history (gpugate gate re-runs what stays "
                     "doubtful; compare takes several current files), compare builds with interleaved A/B "
                     "(gpugate ab), or run on a quieter runner"
                   : "keep a baseline history (gpugate baseline update) so between-run noise is measured, "
                     "or compare builds with interleaved A/B (gpugate ab)";
  out->push_back(std::move(s));
}

void EnvironmentMismatch(const Verdicts& v, std::vector<Suggestion>* out) {
  std::string ev;
  for (const EnvDifference& d : v.env_differences)
    if (!d.within_runner_class)
      ev += (ev.empty() ? "" : "; ") + d.field + ": " + d.baseline + " -> " + d.current;
  if (ev.empty()) return;
  Suggestion s;
  s.rule = "environment-mismatch";
  s.priority = 1;
  s.message = "the baseline was measured in a different environment";
  s.evidence = ev;
  s.hint = "compare against a baseline recorded on the same machine type "
           "(baselines/<suite>/<environment>.json), or pass --allow-env-mismatch knowingly";
  out->push_back(std::move(s));
}

/// The time a kernel verdict's slowdown added to the current run: the
/// kernel's total time there less what it would take at the baseline's
/// speed per call, total x (1 - 1/ratio). Unknown without the kernel's total.
std::optional<double> AddedTime(const MetricVerdict& m, const Results& current) {
  if (!m.ratio || !(*m.ratio > 0)) return std::nullopt;
  const std::string name = m.metric.substr(7);
  for (const WorkloadResult& w : current.workloads) {
    if (w.name != m.workload) continue;
    for (const KernelResult& k : w.kernels)
      if (k.name == name && std::isfinite(k.total_s) && k.total_s > 0) return k.total_s * (1.0 - 1.0 / *m.ratio);
  }
  return std::nullopt;
}

/// Per workload, the slowed-down kernel that added the most time: among its
/// kernel regressions, or among inconclusive slowdowns only when it has no
/// regression. A kernel with a large ratio but few calls does not outrank
/// one that costs the time.
void KernelRegressedMost(const Verdicts& v, const Results& current, std::vector<Suggestion>* out) {
  struct Candidate {
    const MetricVerdict* m;
    std::optional<double> added;
  };
  auto better = [](const Candidate& a, const Candidate& b) {
    const bool a_reg = a.m->verdict == Verdict::kRegression, b_reg = b.m->verdict == Verdict::kRegression;
    if (a_reg != b_reg) return a_reg;
    if (a.added.has_value() != b.added.has_value()) return a.added.has_value();
    if (a.added && *a.added != *b.added) return *a.added > *b.added;
    return *a.m->ratio > *b.m->ratio;
  };
  std::map<std::string, Candidate> worst;
  std::vector<std::string> order;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric.rfind("kernel:", 0) != 0 || !m.ratio || *m.ratio <= 1.0) continue;
    if (m.verdict != Verdict::kRegression && m.verdict != Verdict::kInconclusive) continue;
    const Candidate c{&m, AddedTime(m, current)};
    auto it = worst.find(m.workload);
    if (it == worst.end()) {
      order.push_back(m.workload);
      worst.emplace(m.workload, c);
    } else if (better(c, it->second)) {
      it->second = c;
    }
  }
  for (const std::string& w : order) {
    const Candidate& c = worst.at(w);
    const MetricVerdict& m = *c.m;
    Suggestion s;
    s.workload = w;
    s.kernel = m.metric.substr(7);
    s.rule = "kernel-regressed-most";
    s.priority = m.verdict == Verdict::kRegression ? 1 : 2;
    s.message = "kernel '" + s.kernel + "' slowed down the most in this workload" +
                (c.added ? ": it added " + FormatDuration(*c.added) + " of kernel time" : std::string());
    s.evidence = (c.added ? "+" + FormatDuration(*c.added) + ", " : std::string()) + "kernel time " +
                 FormatRatio(*m.ratio) + " (" + ToString(m.verdict) + ")";
    s.hint = "start with this kernel: compare its static metrics (gpugate inspect) and trace";
    out->push_back(std::move(s));
  }
}

}  // namespace

NoiseProfile MeasureNoise(const WorkloadResult& w) {
  NoiseProfile n;
  double ss = 0;
  double dof = 0;
  std::vector<double> medians;
  for (const auto& r : w.rounds) {
    std::vector<double> logs;
    for (double x : r)
      if (std::isfinite(x) && x > 0) logs.push_back(std::log(x));
    if (logs.empty()) continue;
    ++n.rounds;
    medians.push_back(MedianInPlace(logs));
    double mean = 0;
    for (double l : logs) mean += l;
    mean /= static_cast<double>(logs.size());
    for (double l : logs) ss += (l - mean) * (l - mean);
    dof += static_cast<double>(logs.size()) - 1.0;
  }
  if (dof > 0) {
    n.within = std::sqrt(ss / dof);
    n.within_measured = true;
  }
  if (medians.size() >= 2) {
    double mean = 0;
    for (double m : medians) mean += m;
    mean /= static_cast<double>(medians.size());
    double s = 0;
    for (double m : medians) s += (m - mean) * (m - mean);
    n.between = std::sqrt(s / static_cast<double>(medians.size() - 1));
  }
  return n;
}

std::vector<Suggestion> SuggestFromComparison(const std::vector<ExprRule>& rules,
                                              const Results& current, const Verdicts& verdicts,
                                              const Results* baseline) {
  std::vector<Suggestion> out = EvaluateRules(rules, current, &verdicts, baseline);
  EnvironmentMismatch(verdicts, &out);
  BetweenRunNoise(verdicts, &out);
  KernelRegressedMost(verdicts, current, &out);
  std::stable_sort(out.begin(), out.end(), SuggestionBefore);
  return out;
}

}  // namespace gpugate
