// Compare: the recipe MatchWorkloads -> Estimate -> AddSuiteNoise -> Adjust
// (Benjamini-Hochberg) -> Classify -> ApplyPolicy -> Suggest -> Outcome.
// Method: docs/statistics.md.
#include "compare/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "compare/environment_check.h"
#include "compare/estimate.h"
#include "config/suite.h"
#include "rules/suggestions.h"
#include "stats/benjamini_hochberg.h"
#include "stats/summary.h"
#include "util/result.h"

namespace gpugate {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using Rounds = std::vector<std::vector<double>>;

// Family of hypotheses for BH and for the suite's between-run noise.
enum class Family { kNone, kTime, kKernel };

// The replication units of one comparison, before variances are moderated
// across the suite: round medians (Welch), run levels (history), log samples
// (HL), or a single log ratio (threshold only).
struct Units {
  ShiftMethod method = ShiftMethod::kThresholdOnly;
  std::vector<double> base, cur;
  int current_rounds = 0;
  double log_ratio = 0;
};

struct Pending {
  MetricVerdict mv;
  std::optional<Units> units;
  std::optional<LogShift> shift;  // statistical estimate on the log scale
  Family family = Family::kNone;
  int derived_from = -1;          // throughput: index of its time entry
  bool decided = false;           // verdict fixed before classification
  bool throttled_current = false;
  bool throttled_baseline = false;
};

std::string Key(const WorkloadResult& w) {
  std::string k = w.name;
  for (const auto& [name, value] : w.params) k += '\x1f' + name + '=' + value;
  return k;
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string PercentText(double fraction) {
  std::string s = Fmt("%.4g", fraction * 100.0);
  return s + "%";
}

std::string PValueText(double p) {
  if (std::isnan(p)) return "n/a";
  if (p < 1e-4) return Fmt("%.1e", p);
  return Fmt("%.2g", p);
}

std::string TodayUtc() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// Keeps positive finite values only (log-scale statistics need them).
Rounds Clean(const Rounds& in) {
  Rounds out;
  for (const auto& r : in) {
    std::vector<double> c;
    for (double x : r)
      if (std::isfinite(x) && x > 0) c.push_back(x);
    if (!c.empty()) out.push_back(std::move(c));
  }
  return out;
}

int64_t CountSamples(const Rounds& r) {
  int64_t n = 0;
  for (const auto& x : r) n += static_cast<int64_t>(x.size());
  return n;
}

double MedianOf(const Rounds& r) {
  std::vector<double> all;
  for (const auto& x : r) all.insert(all.end(), x.begin(), x.end());
  return MedianInPlace(all);
}

std::vector<double> FlatLogs(const Rounds& r) {
  std::vector<double> out;
  for (const auto& x : r)
    for (double v : x) out.push_back(std::log(v));
  return out;
}

// Samples of one kernel as a single round (instances), or its mean duration.
Rounds KernelRounds(const KernelResult& k) {
  if (!k.durations_s.empty()) return Clean({k.durations_s});
  if (k.count > 0 && k.total_s > 0) return {{k.total_s / static_cast<double>(k.count)}};
  return {};
}

// Chooses the estimator the data supports (see docs/statistics.md):
// history of >= 2 runs -> t on run-level values; >= 2 rounds per side ->
// Welch on round medians; >= 2 samples per side -> HL/Moses on samples; else
// the ratio alone. `history` is oldest first and ends with the reference
// (newest) baseline; `current` holds the current run and any confirmation runs.
std::optional<Units> MakeUnits(const std::vector<Rounds>& history,
                               const std::vector<Rounds>& current) {
  if (history.empty() || current.empty()) return std::nullopt;
  Units u;
  Rounds cur_all;
  for (const Rounds& r : current) cur_all.insert(cur_all.end(), r.begin(), r.end());
  u.current_rounds = static_cast<int>(cur_all.size());
  if (history.size() >= 2) {
    u.method = ShiftMethod::kHistoryPrediction;
    for (const Rounds& r : history) u.base.push_back(RunLogLevel(r));
    for (const Rounds& r : current) u.cur.push_back(RunLogLevel(r));
    return u;
  }
  const Rounds& base = history.back();
  if (base.size() >= 2 && cur_all.size() >= 2) {
    u.method = ShiftMethod::kRoundsWelch;
    u.base = RoundLogMedians(base);
    u.cur = RoundLogMedians(cur_all);
    return u;
  }
  if (CountSamples(base) >= 2 && CountSamples(cur_all) >= 2) {
    u.method = ShiftMethod::kSamplesHodgesLehmann;
    u.base = FlatLogs(base);
    u.cur = FlatLogs(cur_all);
    return u;
  }
  u.method = ShiftMethod::kThresholdOnly;
  u.log_ratio = std::log(MedianOf(cur_all)) - std::log(MedianOf(base));
  return u;
}

LogShift ThresholdOnlyShift(const Units& u, double confidence) {
  LogShift s;
  s.method = ShiftMethod::kThresholdOnly;
  s.confidence = confidence;
  s.estimate = u.log_ratio;
  s.ci_low = s.ci_high = s.estimate;
  s.p_value = kNaN;
  s.baseline_units = s.current_units = 1;
  return s;
}

class Comparer {
 public:
  Comparer(const std::vector<Results>& baseline_runs, const std::vector<Results>& current_runs,
           const Policy& policy, const CompareOptions& options)
      : runs_(baseline_runs),
        current_runs_(current_runs),
        current_(current_runs.front()),
        policy_(policy),
        options_(options) {}

  Verdicts Run() {
    GPUGATE_CHECK(!runs_.empty());
    Header();
    CheckEnvironment();
    MatchWorkloads();
    EstimateShifts(Family::kTime);
    EstimateShifts(Family::kKernel);
    AddSuiteNoise(Family::kTime);
    AddSuiteNoise(Family::kKernel);
    Adjust();
    Classify();
    ApplyPolicy();
    for (Pending& p : pending_) out_.metrics.push_back(std::move(p.mv));
    out_.suggestions = SuggestFromComparison(runs_, current_, out_);
    out_.outcome = OutcomeFor(out_, policy_.defaults.on_inconclusive);
    AddOutcomeWarnings();
    return std::move(out_);
  }

 private:
  const Results& Reference() const { return runs_.back(); }

  void Header() {
#ifdef GPUGATE_VERSION
    out_.tool_version = GPUGATE_VERSION;
#endif
    out_.policy_name = policy_.name;
    out_.fdr_q = policy_.defaults.fdr_q;
    out_.baseline_label = !options_.baseline_label.empty() ? options_.baseline_label
                                                           : Reference().run.run_id;
    if (runs_.size() > 1 && options_.baseline_label.empty())
      out_.baseline_label += " (history of " + std::to_string(runs_.size()) + " runs)";
    out_.current_label =
        !options_.current_label.empty() ? options_.current_label : current_.run.run_id;
  }

  void CheckEnvironment() {
    out_.env_differences = CompareEnvironments(Reference(), current_);
    out_.environment_matches = out_.env_differences.empty();
    if (!out_.environment_matches && options_.allow_env_mismatch)
      out_.warnings.push_back(
          "environments differ but --allow-env-mismatch is set: verdicts may reflect the "
          "machine, not the code");
  }

  MetricVerdict Base(const WorkloadResult& w, const std::string& metric, bool lower_is_better) {
    MetricVerdict mv;
    mv.workload = w.name;
    mv.metric = metric;
    mv.confidence = policy_.defaults.confidence;
    ResolvedPolicy rp = ResolvePolicy(policy_, w.name, metric);
    mv.threshold = rp.threshold;
    mv.severity = rp.severity;
    mv.lower_is_better = rp.lower_is_better.value_or(lower_is_better);
    return mv;
  }

  void Decided(MetricVerdict mv, Verdict v, std::string code, std::string sentence) {
    mv.verdict = v;
    mv.reason_code = std::move(code);
    mv.sentence = std::move(sentence);
    Pending p;
    p.mv = std::move(mv);
    p.decided = true;
    pending_.push_back(std::move(p));
  }

  void MatchWorkloads() {
    std::vector<std::unordered_map<std::string, const WorkloadResult*>> index(runs_.size());
    for (size_t i = 0; i < runs_.size(); ++i)
      for (const auto& w : runs_[i].workloads) index[i].emplace(Key(w), &w);
    std::vector<std::unordered_map<std::string, const WorkloadResult*>> cur_index(
        current_runs_.size());
    for (size_t i = 1; i < current_runs_.size(); ++i)
      for (const auto& w : current_runs_[i].workloads) cur_index[i].emplace(Key(w), &w);
    std::set<std::string> seen;
    for (const WorkloadResult& w : current_.workloads) {
      std::string key = Key(w);
      std::vector<const WorkloadResult*> confirmations;  // later current runs, status ok
      for (size_t i = 1; i < current_runs_.size(); ++i) {
        auto it = cur_index[i].find(key);
        if (it != cur_index[i].end() && it->second->status == WorkloadStatus::kOk)
          confirmations.push_back(it->second);
      }
      confirmations_ = std::move(confirmations);
      seen.insert(key);
      const WorkloadResult* ref = nullptr;
      std::vector<const WorkloadResult*> history;  // status ok, oldest first
      for (size_t i = 0; i < runs_.size(); ++i) {
        auto it = index[i].find(key);
        if (it == index[i].end()) continue;
        ref = it->second;
        if (it->second->status == WorkloadStatus::kOk) history.push_back(it->second);
      }
      CompareWorkload(w, ref, history);
    }
    for (const WorkloadResult& b : Reference().workloads) {
      if (seen.count(Key(b))) continue;
      Decided(Base(b, "time", true), Verdict::kRemoved, "removed_workload",
              "in the baseline but not in the current run");
    }
  }

  void CompareWorkload(const WorkloadResult& w, const WorkloadResult* ref,
                       const std::vector<const WorkloadResult*>& history) {
    if (ref == nullptr) {
      Decided(Base(w, "time", true), Verdict::kNew, "new_workload",
              "not in the baseline: no comparison yet");
      return;
    }
    if (w.status != WorkloadStatus::kOk || ref->status != WorkloadStatus::kOk) {
      bool cur_bad = w.status != WorkloadStatus::kOk;
      const WorkloadResult& bad = cur_bad ? w : *ref;
      std::string code = std::string(cur_bad ? "current_" : "baseline_") + ToString(bad.status);
      std::string sentence = std::string(cur_bad ? "current run: " : "baseline: ") +
                             ToString(bad.status) + (bad.reason.empty() ? "" : ": " + bad.reason);
      Decided(Base(w, "time", true), Verdict::kSkipped, code, sentence);
      return;
    }
    if (!out_.environment_matches && !options_.allow_env_mismatch) {
      std::string what;
      for (const auto& d : out_.env_differences) what += (what.empty() ? "" : ", ") + d.field;
      Decided(Base(w, "time", true), Verdict::kIncomparable, "environment_mismatch",
              "environments differ (" + what + "); use --allow-env-mismatch to compare anyway");
      return;
    }
    // Time (primary).
    std::vector<Rounds> hist;
    for (const WorkloadResult* h : history) {
      Rounds r = Clean(h->rounds);
      if (!r.empty()) hist.push_back(std::move(r));
    }
    std::vector<Rounds> cur{Clean(w.rounds)};
    for (const WorkloadResult* c : confirmations_) {
      Rounds r = Clean(c->rounds);
      if (!r.empty()) cur.push_back(std::move(r));
    }
    if (cur.front().empty()) cur.clear();
    int time_index = static_cast<int>(pending_.size());
    AddStatistical(Base(w, "time", true), hist, cur, Family::kTime, w, *ref);
    // Throughput: derived from time, so it shares time's test (not a second
    // hypothesis in the FDR family).
    auto tp = [](const WorkloadResult& x) {
      return x.bytes_per_second ? x.bytes_per_second : x.flops_per_second;
    };
    if (tp(w) && tp(*ref) && (w.bytes_per_second.has_value() == ref->bytes_per_second.has_value())) {
      Pending p;
      p.mv = Base(w, "throughput", false);
      p.mv.baseline_value = *tp(*ref);
      p.mv.current_value = *tp(w);
      p.derived_from = time_index;
      pending_.push_back(std::move(p));
    }
    // Peak memory: deterministic enough to compare by threshold.
    if (w.peak_memory_bytes && ref->peak_memory_bytes && *ref->peak_memory_bytes > 0 &&
        *w.peak_memory_bytes > 0) {
      MetricVerdict mv = Base(w, "peak_memory", true);
      mv.baseline_value = static_cast<double>(*ref->peak_memory_bytes);
      mv.current_value = static_cast<double>(*w.peak_memory_bytes);
      mv.baseline_n = mv.current_n = 1;
      ThresholdVerdict(&mv, *mv.current_value / *mv.baseline_value,
                       "peak memory compared by threshold (a deterministic metric)");
      Pending p;
      p.mv = std::move(mv);
      p.decided = true;
      pending_.push_back(std::move(p));
    }
    CompareKernels(w, *ref, history);
  }

  void CompareKernels(const WorkloadResult& w, const WorkloadResult& ref,
                      const std::vector<const WorkloadResult*>& history) {
    auto find = [](const WorkloadResult& x, const std::string& name) -> const KernelResult* {
      for (const auto& k : x.kernels)
        if (k.name == name) return &k;
      return nullptr;
    };
    for (const KernelResult& k : w.kernels) {
      std::string metric = "kernel:" + k.name;
      const KernelResult* bk = find(ref, k.name);
      if (bk == nullptr) {
        Decided(Base(w, metric, true), Verdict::kNew, "new_kernel",
                "kernel not launched in the baseline");
        continue;
      }
      std::vector<Rounds> hist;
      for (const WorkloadResult* h : history)
        if (const KernelResult* hk = find(*h, k.name)) {
          Rounds r = KernelRounds(*hk);
          if (!r.empty()) hist.push_back(std::move(r));
        }
      std::vector<Rounds> cur{KernelRounds(k)};
      for (const WorkloadResult* c : confirmations_)
        if (const KernelResult* ck = find(*c, k.name)) {
          Rounds r = KernelRounds(*ck);
          if (!r.empty()) cur.push_back(std::move(r));
        }
      if (cur.front().empty()) cur.clear();
      AddStatistical(Base(w, metric, true), hist, cur, Family::kKernel, w, ref);
    }
    for (const KernelResult& bk : ref.kernels)
      if (find(w, bk.name) == nullptr)
        Decided(Base(w, "kernel:" + bk.name, true), Verdict::kRemoved, "vanished_kernel",
                "kernel launched in the baseline but not in the current run");
  }

  void AddStatistical(MetricVerdict mv, const std::vector<Rounds>& hist,
                      const std::vector<Rounds>& cur, Family family, const WorkloadResult& w,
                      const WorkloadResult& ref) {
    Pending p;
    p.family = family;
    p.throttled_current = w.throttled;
    p.throttled_baseline = ref.throttled;
    for (const WorkloadResult* c : confirmations_) p.throttled_current |= c->throttled;
    if (!hist.empty()) {
      mv.baseline_value = MedianOf(hist.back());
      mv.baseline_n = CountSamples(hist.back());
      mv.baseline_rounds = static_cast<int64_t>(hist.back().size());
      if (hist.size() >= 2) mv.baseline_history_runs = static_cast<int64_t>(hist.size());
    }
    if (!cur.empty()) {
      Rounds all;
      for (const Rounds& r : cur) all.insert(all.end(), r.begin(), r.end());
      mv.current_value = MedianOf(all);
      mv.current_n = CountSamples(all);
      mv.current_rounds = static_cast<int64_t>(all.size());
    }
    p.units = MakeUnits(hist, cur);
    p.mv = std::move(mv);
    if (!p.units) {
      p.mv.verdict = Verdict::kInconclusive;
      p.mv.reason_code = "too_few_samples";
      p.mv.sentence = "no valid samples on one side";
      p.decided = true;
    }
    pending_.push_back(std::move(p));
  }

  // Variances of round medians (Welch) and of run levels (history) are
  // moderated toward priors estimated from the whole family (Smyth 2004),
  // then every shift is computed.
  void EstimateShifts(Family family) {
    std::vector<double> round_var, round_df, run_var, run_df;
    for (const Pending& p : pending_) {
      if (p.family != family || !p.units || p.decided) continue;
      const Units& u = *p.units;
      if (u.method == ShiftMethod::kRoundsWelch) {
        round_var.push_back(SampleVariance(u.base));
        round_df.push_back(static_cast<double>(u.base.size()) - 1);
        round_var.push_back(SampleVariance(u.cur));
        round_df.push_back(static_cast<double>(u.cur.size()) - 1);
      } else if (u.method == ShiftMethod::kHistoryPrediction) {
        double df = 0;
        run_var.push_back(PooledRunVariance(u.base, u.cur, &df));
        run_df.push_back(df);
      }
    }
    VariancePrior round_prior = EstimateVariancePrior(round_var, round_df);
    VariancePrior run_prior = EstimateVariancePrior(run_var, run_df);
    const double conf = policy_.defaults.confidence;
    for (Pending& p : pending_) {
      if (p.family != family || !p.units || p.decided) continue;
      const Units& u = *p.units;
      switch (u.method) {
        case ShiftMethod::kHistoryPrediction:
          p.shift = HistoryPrediction(u.base, u.cur, u.current_rounds, conf, run_prior);
          break;
        case ShiftMethod::kRoundsWelch:
          p.shift = RoundsWelch(u.base, u.cur, conf, round_prior);
          break;
        case ShiftMethod::kSamplesHodgesLehmann:
          p.shift = SamplesHodgesLehmann(u.base, u.cur, conf);
          break;
        case ShiftMethod::kThresholdOnly:
          p.shift = ThresholdOnlyShift(u, conf);
          break;
      }
    }
  }

  // Suite-level between-run noise for one-run-per-side estimates.
  void AddSuiteNoise(Family family) {
    std::vector<LogShift> shifts;
    std::vector<size_t> where;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      if (p.family != family || !p.shift) continue;
      shifts.push_back(*p.shift);
      where.push_back(i);
    }
    const auto eligible = std::count_if(shifts.begin(), shifts.end(), TakesSuiteNoise);
    if (eligible > 0 && eligible < kMinSuiteForNoise) {
      for (size_t i : where)
        if (TakesSuiteNoise(*pending_[i].shift)) pending_[i].shift->between_run_unmeasured = true;
      out_.warnings.push_back(
          std::string(family == Family::kTime ? "time" : "kernel") + ": one run per side and " +
          std::to_string(eligible) + " comparison" + (eligible == 1 ? "" : "s") +
          ": noise between runs cannot be estimated, so no verdict is decided; keep a baseline "
          "history (gpugate baseline update) or use interleaved A/B (gpugate ab)");
      return;
    }
    // Two readings of the excess spread, each fitted to the whole family: a
    // variance common to all workloads (tau^2) and one proportional to each
    // workload's own (phi). Each comparison gets the larger, so neither the
    // quiet workloads nor the noisy ones are left with too short an interval.
    double tau_df = 0, phi_df = 0;
    const double tau2 = EstimateSuiteBetweenRunVariance(shifts, &tau_df);
    const double phi = EstimateSuiteOverdispersion(shifts, &phi_df);
    if (!(tau2 > 0) && !(phi > 1)) return;
    const double df = std::max(tau_df, phi_df);
    for (size_t i : where) {
      const LogShift& s = *pending_[i].shift;
      if (!TakesSuiteNoise(s)) continue;
      const double extra = std::max(tau2, (phi - 1.0) * s.se * s.se);
      pending_[i].shift = WithBetweenRunNoise(s, extra, df);
    }
    std::string what = std::string(family == Family::kTime ? "time" : "kernel") +
                       ": the spread of effects across the suite exceeds what the rounds "
                       "explain; noise between runs was added to every one-run comparison: ";
    if (tau2 > 0) what += "at least " + PercentText(std::expm1(std::sqrt(tau2)));
    if (tau2 > 0 && phi > 1) what += ", and ";
    if (phi > 1)
      what += "for noisy workloads up to " + Fmt("%.2g", std::sqrt(phi)) +
              " times their within-run uncertainty";
    out_.warnings.push_back(what + " (a baseline history measures it directly)");
  }

  void Adjust() {
    std::vector<double> p;
    std::vector<size_t> where;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& x = pending_[i];
      if (x.decided || !x.shift || x.family == Family::kNone) continue;
      if (x.shift->method == ShiftMethod::kThresholdOnly) continue;
      p.push_back(x.shift->p_value);
      where.push_back(i);
    }
    std::vector<double> adj = BenjaminiHochbergAdjust(p);
    for (size_t j = 0; j < where.size(); ++j) {
      pending_[where[j]].mv.p_value = p[j];
      pending_[where[j]].mv.p_adjusted = adj[j];
    }
  }

  std::string SizeText(const MetricVerdict& mv, const LogShift& s) const {
    std::string t;
    if (s.method == ShiftMethod::kHistoryPrediction) {
      t = std::to_string(mv.current_n) + " samples over " + std::to_string(mv.current_rounds) +
          " rounds";
      if (s.current_runs > 1) t += " in " + std::to_string(s.current_runs) + " runs";
      t += " vs a history of " + std::to_string(s.baseline_units) + " runs";
    } else {
      t = std::to_string(mv.baseline_n) + " vs " + std::to_string(mv.current_n) + " samples";
      if (mv.baseline_rounds == mv.current_rounds) {
        t += " over " + std::to_string(mv.current_rounds) + " round" +
             (mv.current_rounds == 1 ? "" : "s");
      } else {
        t += " over " + std::to_string(mv.baseline_rounds) + " vs " +
             std::to_string(mv.current_rounds) + " rounds";
      }
    }
    return t;
  }

  // Verdict by threshold alone (no test): ratio of the metric's values.
  static void ThresholdVerdict(MetricVerdict* mv, double ratio, const std::string& why) {
    double bad = mv->lower_is_better ? std::log(ratio) : -std::log(ratio);
    double limit = std::log1p(mv->threshold);
    mv->ratio = ratio;
    mv->ci_low = mv->ci_high = ratio;
    mv->reason_code = "threshold_only";
    std::string head = FormatRatioPercent(ratio);
    if (bad > limit) {
      mv->verdict = Verdict::kRegression;
      head += " exceeds the " + PercentText(mv->threshold) + " threshold";
    } else if (bad < -limit) {
      mv->verdict = Verdict::kImprovement;
      head += " improves beyond the " + PercentText(mv->threshold) + " threshold";
    } else {
      mv->verdict = Verdict::kUnchanged;
      head += " lies within the " + PercentText(mv->threshold) + " threshold";
    }
    mv->sentence = head + "; " + why;
  }

  // The decision of DESIGN.md: regression only when significant after BH and
  // the interval's bound beyond the threshold; unchanged when the interval
  // lies inside it; otherwise inconclusive with the reason.
  void ClassifyOne(Pending* p, const LogShift& s, double log_sign, const std::string& derived) {
    MetricVerdict& mv = p->mv;
    double est = log_sign * s.estimate;
    double lo = log_sign > 0 ? s.ci_low : -s.ci_high;
    double hi = log_sign > 0 ? s.ci_high : -s.ci_low;
    mv.ratio = std::exp(est);
    mv.ci_low = std::exp(lo);
    mv.ci_high = std::exp(hi);
    mv.confidence = s.confidence;
    if (s.method == ShiftMethod::kThresholdOnly) {
      ThresholdVerdict(&mv, std::exp(est),
                       SizeText(mv, s) +
                           ": the verdict rests on the threshold alone (no repetitions to test)" +
                           derived);
      return;
    }
    // Work in "badness": positive = worse, whatever the direction.
    double bad_lo = mv.lower_is_better ? lo : -hi;
    double bad_hi = mv.lower_is_better ? hi : -lo;
    double limit = std::log1p(mv.threshold);
    double q = policy_.defaults.fdr_q;
    bool significant = mv.p_adjusted.has_value() && *mv.p_adjusted <= q;
    std::string interval = FormatRatioPercent(*mv.ratio) + " [" + FormatRatioPercent(*mv.ci_low) +
                           ", " + FormatRatioPercent(*mv.ci_high) + "]";
    if (!std::isfinite(lo) || !std::isfinite(hi)) interval = FormatRatioPercent(*mv.ratio) + " [unbounded]";
    std::string thr = PercentText(mv.threshold);
    std::string head;
    if (s.between_run_unmeasured) {
      // Within-run scatter alone understates the noise between runs (often
      // several times over): no decision either way.
      mv.verdict = Verdict::kInconclusive;
      mv.reason_code = "between_run_noise_unmeasured";
      head = interval + " holds within-run noise only: one run per side and too few workloads "
             "to estimate the noise between runs; use a baseline history (baseline update) or "
             "interleaved A/B";
    } else if (significant && bad_lo > limit) {
      mv.verdict = Verdict::kRegression;
      mv.reason_code = "significant_above_threshold";
      head = interval + " exceeds the " + thr + " threshold";
    } else if (significant && bad_hi < -limit) {
      mv.verdict = Verdict::kImprovement;
      mv.reason_code = "significant_improvement";
      head = interval + " improves beyond the " + thr + " threshold";
    } else if (bad_lo >= -limit && bad_hi <= limit) {
      mv.verdict = Verdict::kUnchanged;
      mv.reason_code = "within_threshold";
      head = interval + " lies within the " + thr + " threshold";
    } else {
      mv.verdict = Verdict::kInconclusive;
      if (!std::isfinite(lo) || !std::isfinite(hi)) {
        mv.reason_code = "too_few_samples";
        head = interval + ": too few samples for a " + PercentText(s.confidence) + " interval";
      } else if (bad_lo > limit || bad_hi < -limit) {
        mv.reason_code = "not_significant_after_fdr";
        head = interval + " is beyond the " + thr +
               " threshold but not significant after false-discovery adjustment (q=" +
               PValueText(q) + ")";
      } else if (s.between_run_var > 0.5 * s.se * s.se) {
        mv.reason_code = "between_run_noise";
        head = interval + ": noise between runs exceeds the effect; " +
               (s.method == ShiftMethod::kHistoryPrediction
                    ? "more current runs or interleaved A/B would decide"
                    : "use a baseline history (baseline update) or interleaved A/B");
      } else {
        mv.reason_code = "straddles_threshold";
        head = interval + " straddles the " + thr + " threshold; more rounds would decide";
      }
    }
    mv.sentence = head + "; " + SizeText(mv, s) + "; " + Describe(s) + ", p=" +
                  PValueText(s.p_value) + ", p_adj=" +
                  PValueText(mv.p_adjusted.value_or(kNaN)) + derived;
  }

  void Classify() {
    for (Pending& p : pending_) {
      if (p.decided || p.derived_from >= 0 || !p.shift) continue;
      ClassifyOne(&p, *p.shift, 1.0, "");
    }
    for (Pending& p : pending_) {
      if (p.derived_from < 0) continue;
      const Pending& time = pending_[static_cast<size_t>(p.derived_from)];
      if (!time.shift) {
        p.mv.verdict = time.mv.verdict;
        p.mv.reason_code = time.mv.reason_code;
        p.mv.sentence = "derived from time: " + time.mv.sentence;
        continue;
      }
      p.mv.p_value = time.mv.p_value;
      p.mv.p_adjusted = time.mv.p_adjusted;
      p.mv.baseline_n = time.mv.baseline_n;
      p.mv.current_n = time.mv.current_n;
      p.mv.baseline_rounds = time.mv.baseline_rounds;
      p.mv.current_rounds = time.mv.current_rounds;
      p.mv.baseline_history_runs = time.mv.baseline_history_runs;
      p.throttled_current = time.throttled_current;
      p.throttled_baseline = time.throttled_baseline;
      // Throughput = work / time: its log ratio is minus time's.
      ClassifyOne(&p, *time.shift, -1.0, "; derived from time (not a separate test)");
    }
  }

  void ApplyPolicy() {
    std::string today = options_.today.empty() ? TodayUtc() : options_.today;
    for (const Waiver& w : policy_.waivers)
      if (w.until < today)
        out_.warnings.push_back("waiver for '" + w.match + "' (metric " + w.metric + ", " +
                                w.location.ToString() + ") expired on " + w.until +
                                " and no longer applies: " + w.reason);
    for (Pending& p : pending_) {
      MetricVerdict& mv = p.mv;
      bool moved = mv.verdict == Verdict::kRegression || mv.verdict == Verdict::kImprovement;
      if (moved && (p.throttled_current || p.throttled_baseline)) {
        mv.verdict = Verdict::kInconclusive;
        mv.reason_code = "throttled";
        mv.sentence = std::string("the ") + (p.throttled_current ? "current" : "baseline") +
                      " run throttled, so the shift may be the clock's: " + mv.sentence;
      }
      if (mv.verdict != Verdict::kRegression) continue;
      const Waiver* w = FindWaiver(policy_, mv.workload, mv.metric);
      if (w != nullptr && w->until >= today) {
        mv.waived = true;
        mv.waiver_reason = w->reason + " (until " + w->until + ")";
      }
    }
  }

  void AddOutcomeWarnings() {
    int warn = 0, inconclusive = 0;
    for (const MetricVerdict& m : out_.metrics) {
      if (m.verdict == Verdict::kRegression && !m.waived && m.severity == Severity::kWarn) ++warn;
      if (m.verdict == Verdict::kInconclusive && m.severity != Severity::kOff) ++inconclusive;
    }
    if (warn > 0)
      out_.warnings.push_back(std::to_string(warn) +
                              " regression(s) with severity warn do not fail the gate");
    if (inconclusive > 0 && policy_.defaults.on_inconclusive == OnInconclusive::kWarn)
      out_.warnings.push_back(std::to_string(inconclusive) +
                              " inconclusive result(s); the policy asks for a warning");
  }

  const std::vector<Results>& runs_;
  const std::vector<Results>& current_runs_;
  const Results& current_;  // the primary current run: order, metadata, memory
  const Policy& policy_;
  const CompareOptions& options_;
  std::vector<Pending> pending_;
  std::vector<const WorkloadResult*> confirmations_;  // of the workload being matched
  Verdicts out_;
};

}  // namespace

std::string FormatRatioPercent(double ratio) {
  if (!std::isfinite(ratio)) return ratio > 0 ? "+inf%" : "-inf%";
  double pct = (ratio - 1.0) * 100.0;
  if (std::fabs(pct) < 0.05) pct = 0.0;
  return Fmt(std::fabs(pct) >= 1000 ? "%+.0f%%" : "%+.1f%%", pct);
}

Verdicts Compare(const std::vector<Results>& baseline_runs, const Results& current,
                 const Policy& policy, const CompareOptions& options) {
  std::vector<Results> current_runs{current};
  return Comparer(baseline_runs, current_runs, policy, options).Run();
}

Verdicts CompareRuns(const std::vector<Results>& baseline_runs,
                     const std::vector<Results>& current_runs, const Policy& policy,
                     const CompareOptions& options) {
  GPUGATE_CHECK(!current_runs.empty());
  return Comparer(baseline_runs, current_runs, policy, options).Run();
}

Outcome OutcomeFor(const Verdicts& verdicts, OnInconclusive on_inconclusive) {
  bool fail = false, doubtful = false;
  for (const MetricVerdict& m : verdicts.metrics) {
    if (m.severity == Severity::kOff) continue;
    if (m.verdict == Verdict::kRegression && !m.waived && m.severity == Severity::kFail)
      fail = true;
    if (m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kIncomparable)
      doubtful = true;
  }
  if (fail) return Outcome::kFail;
  if (doubtful && on_inconclusive == OnInconclusive::kFail) return Outcome::kInconclusive;
  return Outcome::kPass;
}

int ExitCodeFor(const Verdicts& verdicts) {
  switch (verdicts.outcome) {
    case Outcome::kPass: return static_cast<int>(ExitCode::kPass);
    case Outcome::kFail: return static_cast<int>(ExitCode::kRegression);
    case Outcome::kInconclusive: return static_cast<int>(ExitCode::kInconclusive);
    case Outcome::kError: return static_cast<int>(ExitCode::kToolError);
  }
  return static_cast<int>(ExitCode::kToolError);
}

std::vector<std::string> WorkloadsToConfirm(const Verdicts& verdicts) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const MetricVerdict& m : verdicts.metrics) {
    if (m.severity == Severity::kOff) continue;
    bool want = (m.verdict == Verdict::kRegression && !m.waived) ||
                m.verdict == Verdict::kInconclusive;
    if (want && seen.insert(m.workload).second) out.push_back(m.workload);
  }
  return out;
}

}  // namespace gpugate
