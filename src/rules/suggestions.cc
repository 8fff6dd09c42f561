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
  std::string names;
  for (const MetricVerdict& m : v.metrics) {
    if (m.reason == Reason::kBetweenRunNoise) ++exceeds;
    else if (m.reason == Reason::kBetweenRunNoiseUnmeasured) ++unmeasured;
    else continue;
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
  s.hint = "keep a baseline history (gpugate baseline update) so between-run noise is measured, "
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

void KernelRegressedMost(const Verdicts& v, std::vector<Suggestion>* out) {
  std::map<std::string, const MetricVerdict*> worst;
  std::vector<std::string> order;
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric.rfind("kernel:", 0) != 0 || !m.ratio || *m.ratio <= 1.0) continue;
    if (m.verdict != Verdict::kRegression && m.verdict != Verdict::kInconclusive) continue;
    auto it = worst.find(m.workload);
    if (it == worst.end()) {
      order.push_back(m.workload);
      worst[m.workload] = &m;
    } else if (*m.ratio > *it->second->ratio) {
      it->second = &m;
    }
  }
  for (const std::string& w : order) {
    const MetricVerdict& m = *worst[w];
    Suggestion s;
    s.workload = w;
    s.rule = "kernel-regressed-most";
    s.priority = m.verdict == Verdict::kRegression ? 1 : 2;
    s.message = "kernel '" + m.metric.substr(7) + "' slowed down the most in this workload";
    s.evidence = "kernel time " + FormatRatio(*m.ratio) + " (" +
                 ToString(m.verdict) + ")";
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
  KernelRegressedMost(verdicts, &out);
  std::stable_sort(out.begin(), out.end(), SuggestionBefore);
  return out;
}

}  // namespace gpugate
