// Suggestion rules. Each rule is a small function appending to the list.
#include "rules/suggestions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "compare/estimate.h"

namespace gpugate {

namespace {

std::string Pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

std::string Num(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

void NoisyWorkloads(const Results& current, std::vector<Suggestion>* out) {
  for (const WorkloadResult& w : current.workloads) {
    if (w.status != WorkloadStatus::kOk) continue;
    NoiseProfile n = MeasureNoise(w);
    if (n.within <= kNoisyWithinRoundCv && n.between <= kNoisyBetweenRounds) continue;
    Suggestion s;
    s.workload = w.name;
    s.rule = "noisy-workload";
    s.priority = 2;
    s.message = "measurements of this workload are noisy";
    s.evidence = "within-round CV " + Pct(n.within) + ", spread of round medians " +
                 Pct(n.between) + " over " + std::to_string(n.rounds) + " rounds";
    s.hint = "use interleaved A/B (gpugate ab) or more rounds; quiet the machine (pin clocks, "
             "isolate cores) for tighter intervals";
    out->push_back(std::move(s));
  }
}

void BetweenRunNoise(const Verdicts& v, std::vector<Suggestion>* out) {
  int n = 0;
  std::string names;
  for (const MetricVerdict& m : v.metrics) {
    if (m.reason != Reason::kBetweenRunNoise && m.reason != Reason::kBetweenRunNoiseUnmeasured)
      continue;
    if (++n <= 3) names += (names.empty() ? "" : ", ") + m.workload + " (" + m.metric + ")";
  }
  if (n == 0) return;
  Suggestion s;
  s.rule = "between-run-noise";
  s.priority = 1;
  s.message = std::to_string(n) +
              " comparison(s) stayed inconclusive because noise between runs exceeds the effect";
  s.evidence = names + (n > 3 ? ", ..." : "");
  s.hint = "keep a baseline history (gpugate baseline update) so between-run noise is measured, "
           "or compare builds with interleaved A/B (gpugate ab)";
  out->push_back(std::move(s));
}

void Throttled(const Results& current, std::vector<Suggestion>* out) {
  for (const WorkloadResult& w : current.workloads) {
    if (!w.throttled) continue;
    std::string reasons;
    for (const ClockReading& c : w.clocks)
      if (c.throttle_reasons && !c.throttle_reasons->empty() &&
          reasons.find(*c.throttle_reasons) == std::string::npos)
        reasons += (reasons.empty() ? "" : ", ") + *c.throttle_reasons;
    Suggestion s;
    s.workload = w.name;
    s.rule = "throttled";
    s.priority = 1;
    s.message = "the device throttled while this workload ran; its timings are suspect";
    s.evidence = reasons.empty() ? "throttling detected during sampling"
                                 : "throttle reasons: " + reasons;
    s.hint = "check cooling and power limits, lock clocks, or re-run on an idle device";
    out->push_back(std::move(s));
  }
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

void Boundness(const Results& current, const Verdicts& v, std::vector<Suggestion>* out) {
  for (const MetricVerdict& m : v.metrics) {
    if (m.metric != "time" || m.verdict != Verdict::kRegression) continue;
    const WorkloadResult* w = current.Find(m.workload);
    if (w == nullptr || !w->work.bytes || !w->work.flops || *w->work.bytes <= 0 ||
        *w->work.flops <= 0 || !m.current_value || *m.current_value <= 0)
      continue;
    double intensity = *w->work.flops / static_cast<double>(*w->work.bytes);
    double gbps = static_cast<double>(*w->work.bytes) / *m.current_value / 1e9;
    double gflops = *w->work.flops / *m.current_value / 1e9;
    Suggestion s;
    s.workload = w->name;
    s.priority = 3;
    s.evidence = "arithmetic intensity " + Num("%.3g", intensity) + " FLOP/byte; achieved " +
                 Num("%.3g", gbps) + " GB/s and " + Num("%.3g", gflops) + " GFLOP/s";
    if (intensity < kMemoryBoundIntensity) {
      s.rule = "memory-bound";
      s.message = "this workload is likely memory-bound: look for extra bytes moved "
                  "(layout, caching, redundant copies)";
      s.hint = "compare achieved GB/s with the device peak (gpugate calibrate, then compare --device-profile: % of roof)";
    } else if (intensity > kComputeBoundIntensity) {
      s.rule = "compute-bound";
      s.message = "this workload is likely compute-bound: look for extra instructions "
                  "(precision, vectorisation, occupancy)";
      s.hint = "compare achieved GFLOP/s with the device peak (gpugate calibrate, then compare --device-profile: % of roof)";
    } else {
      s.rule = "balanced-intensity";
      s.message = "this workload sits near the ridge between memory- and compute-bound";
      s.hint = "check both achieved GB/s and GFLOP/s against the device peaks (gpugate calibrate, then compare --device-profile)";
    }
    out->push_back(std::move(s));
  }
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
    s.evidence = "kernel time " + Num("%+.1f%%", (*m.ratio - 1.0) * 100.0) + " (" +
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
  if (dof > 0) n.within = std::sqrt(ss / dof);
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

std::vector<Suggestion> SuggestFromComparison(const std::vector<Results>& /*baseline_runs*/,
                                              const Results& current, const Verdicts& verdicts) {
  std::vector<Suggestion> out;
  EnvironmentMismatch(verdicts, &out);
  BetweenRunNoise(verdicts, &out);
  Throttled(current, &out);
  KernelRegressedMost(verdicts, &out);
  NoisyWorkloads(current, &out);
  Boundness(current, verdicts, &out);
  std::stable_sort(out.begin(), out.end(),
                   [](const Suggestion& a, const Suggestion& b) { return a.priority < b.priority; });
  return out;
}

}  // namespace gpugate
