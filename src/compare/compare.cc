// Compare, the one judge: the recipe MatchWorkloads -> Estimate (per family:
// remove run speed factors, moderate variances, estimate shifts, calibrate
// the reference) -> Adjust (Benjamini-Hochberg, one-sided) -> Classify ->
// ApplyPolicy -> Suggest -> Outcome. Every mode goes through it: two files,
// a history, several current runs (gate confirmations), interleaved A/B
// (paired rounds) and per-kernel times. Method: docs/statistics.md.
#include "compare/compare.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <string_view>
#include <utility>

#include "compare/environment_check.h"
#include "compare/estimate.h"
#include "compare/kernel_summary.h"
#include "compare/run_factor.h"
#include "model/baseline.h"
#include "model/history_series.h"
#include "model/static_code.h"
#include "config/suite.h"
#include "rules/suggestions.h"
#include "stats/benjamini_hochberg.h"
#include "stats/change_point.h"
#include "stats/distributions.h"
#include "stats/hodges_lehmann.h"
#include "stats/summary.h"
#include "util/result.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Prior reference for identical-code statistics of process-level noise:
// Student t with 4 degrees of freedom, the robust default of Lange, Little &
// Taylor (1989, JASA 84:881). Statistics of the runs at hand move it only
// with evidence (CalibrateReference). On the real-noise corpora
// (docs/real-noise.md) priors of 4, 6 and 8 df were measured: 4 keeps the
// history modes' false alarms nearest 1% (table there).
constexpr double kHeavyTailDf = 4.0;
// How far past the typical run's scatter (after the chance discount) a
// history run may scatter before its weight falls (MeasureRunNoise).
constexpr double kRunNoiseHuberK = 2.0;
// Quantile of the others' standardized effects that the one-run noise model
// matches (see AddLeaveOneOutNoise).
constexpr double kNoiseQuantile = 0.5;
// Fewest leave-one-out statistics from which a history's reference is measured.
constexpr int kMinNullStatistics = 30;
// Half a clock step, relative to a kernel's summary, from which its
// comparison counts as clock-coarse (0.5 us of 100 us).
constexpr double kCoarseHalfStep = 0.005;
// Up to this many one-run comparisons the noise is estimated leaving each out.
constexpr int kExactLeaveOneOut = 256;

using Rounds = std::vector<std::vector<double>>;

// Family of hypotheses for BH and for the suite's between-run noise: times
// (whose runs share a speed factor), kernel times, and other noisy primary
// metrics (a custom benchmark's values), which share no speed factor.
enum class Family { kNone, kTime, kKernel, kOther };

const char* FamilyName(Family family) {
  switch (family) {
    case Family::kTime: return "time";
    case Family::kKernel: return "kernel";
    case Family::kOther: return "other metrics";
    case Family::kNone: break;
  }
  return "";
}

// The replication units of one comparison, before variances are moderated
// across the suite: round medians (Welch), run levels (history), log samples
// (HL), or a single log ratio (threshold only).
struct Units {
  ShiftMethod method = ShiftMethod::kThresholdOnly;
  std::vector<double> base, cur;
  /// History with the run speed factors removed: each base value with its
  /// run's factor fitted without this workload (the rest of the run's
  /// workloads alone), for the reference's leave-one-out statistics, which
  /// read it as a left-out draw. The factor of a small family is fitted to
  /// its middle workloads' own cells (a median of 6), which then read as
  /// exact fits; empty when no factor was removed.
  std::vector<double> base_own_out;
  std::vector<int> base_run, cur_run;  // history: run index of each value
  std::vector<std::string> base_cpu, cur_cpu;  // history: CPU model of each value
  int current_rounds = 0;
  double log_ratio = 0;
  /// Whose clock the time follows: "" the host's (CPU workloads, programs,
  /// most ingested files), "gpu" a device's (CUDA workloads), "gpu N" device
  /// N's (nvbench states; ClockDomainOf()). Each domain gets
  /// its own run speed factor: a busier host does not slow a kernel timed on
  /// the device, nor does a lower GPU clock slow the host's workloads.
  std::string domain;
  /// Run summaries of a trace's kernel (kRunSummaries, kHistoryPrediction):
  /// the variance (log scale) of the two sides' clock steps, half a step
  /// each side (over a side's runs, the mean of their squares), and the
  /// history's share (each history run's, for its leave-one-out t).
  double clock_var = 0;
  double clock_var_base = 0;
  /// The coarsest and finest clock steps of either side (seconds), the sides
  /// on a clock (LogShift::clock_sides), and how many of the runs are.
  double clock_step = 0, clock_step_min = 0;
  int clock_sides = 0, clock_runs = 0, runs = 0;
  /// Half a clock step is 0.5% of a side's summary or more (a kernel of
  /// 100 us or less on whole microseconds): its comparison moves by whole
  /// steps, and a tie of it says little (see LogShift::tied).
  bool clock_coarse = false;
  /// The clock fields above hold no trace's clock but the grid a side's own
  /// values lie on (AddValueSteps): its levels tie while its values scatter.
  bool clock_from_values = false;
  /// The levels are the rounds' Harrell-Davis medians, not their sample
  /// medians: those tied on one value while the values scatter off any grid
  /// (AddValueSteps).
  bool levels_smoothed = false;
  /// Run summaries of two files: the kernel's two records differ (calls,
  /// count or total), whatever their summaries read (LogShift::records_differ).
  bool records_differ = false;
  /// kThresholdOnly: a side whose summary states no usable spread, said
  /// ("the current file summarises 11009 samples but states a spread of 0").
  std::string no_spread;
};

// A column of the run-factor table: a run (history or current), or the part
// of a merged run measured on one CPU model, with its fitted factor.
struct FactorColumn {
  bool current = false;
  int run = 0;
  std::string cpu;
  double factor = 0;
  bool known = false;
  std::string domain;  // Units::domain of the workloads in the column
};

// The clock a workload's time follows (Units::domain): "gpu" for CUDA
// workloads, "gpu N" for nvbench states measured on device N, "" for the
// host's.
std::string ClockDomainOf(const WorkloadResult& w) {
  if (w.backend == "cuda") return "gpu";
  if (w.kind == "nvbench") {
    for (const auto& [name, value] : w.params)
      if (name == "device") return "gpu " + value;
    return "gpu";
  }
  return "";
}

// A history run or a current run together with its index in its list, and
// the noise its producer reported for a single summary value, if any.
struct Indexed {
  int run = 0;
  Rounds rounds;
  std::optional<std::pair<double, double>> reported_noise;  // (relative sd, samples)
  std::string cpu;  // CPU model the value was measured on; empty = the run's
  bool summary_is_mean = false;  // rounds hold one summary value, a mean
  /// A summary of many samples that states no usable spread ("11009 rounds
  /// but a standard deviation of 0"): why its one value has no noise.
  std::string unusable_spread;
  /// The clock step the value lies on (a trace's kernel in whole
  /// microseconds: 1e-6), 0 when finer or unknown.
  double clock_step = 0;
};


// Noise reported next to a single summary value: nvbench summaries without
// samples (nv/.../stdev/relative over sample_size), pytest-benchmark stats
// without data (the same counters: stddev / mean over the rounds), Google
// Benchmark aggregate-only rows (stddev / mean over the repetitions).
std::optional<std::pair<double, double>> ReportedNoiseOf(const WorkloadResult& w) {
  auto get = [&w](const char* key) -> double {
    auto it = w.counters.find(key);
    return it == w.counters.end() || !std::isfinite(it->second) ? 0.0 : it->second;
  };
  if (get("only_summary") == 1 && get("stdev_rel") > 0 && get("sample_size") >= 2)
    return std::pair{get("stdev_rel"), get("sample_size")};
  if (get("only_aggregates") == 1 && get("stddev") > 0 && get("mean") > 0 &&
      get("gbench_repetitions") >= 2)
    return std::pair{get("stddev") / get("mean"), get("gbench_repetitions")};
  return std::nullopt;
}

// A summary that counts two samples or more but states no spread beside its
// one value (a pytest-benchmark stddev of 0 over 11009 rounds, whose min and
// max differ): what it says, for the sentence of its comparison; "" else.
std::string UnusableSpreadOf(const WorkloadResult& w) {
  auto get = [&w](const char* key) -> std::optional<double> {
    auto it = w.counters.find(key);
    if (it == w.counters.end() || !std::isfinite(it->second)) return std::nullopt;
    return it->second;
  };
  if (ReportedNoiseOf(w)) return "";
  std::string out;
  if (get("only_summary") == 1.0) {
    const std::optional<double> n = get("sample_size");
    if (!n || *n < 2) return "";
    out = "summarises " + std::to_string(std::llround(*n)) + " samples but states ";
    out += get("stdev_rel") || get("stddev") ? "a spread of 0" : "no spread";
  } else if (get("only_aggregates") == 1.0) {
    const std::optional<double> n = get("gbench_repetitions");
    if (!n || *n < 2) return "";
    out = "summarises " + std::to_string(std::llround(*n)) + " repetitions but states ";
    out += get("stddev") ? "a standard deviation of 0" : "no standard deviation";
  } else {
    return "";
  }
  const std::optional<double> lo = get("min"), hi = get("max");
  if (lo && hi && *lo < *hi) out += " although its min and max differ";
  return out;
}

bool SummaryIsMean(const WorkloadResult& w) {
  auto counter = [&w](const char* key) {
    auto it = w.counters.find(key);
    return it != w.counters.end() && it->second == 1;
  };
  // An nvbench summary is its mean; baselines written before the counter
  // existed say only "only_summary".
  return counter("summary_is_mean") || (w.kind == "nvbench" && counter("only_summary"));
}

struct Pending {
  MetricVerdict mv;
  std::optional<Units> units;
  std::optional<LogShift> shift;  // statistical estimate on the log scale
  Family family = Family::kNone;
  int derived_from = -1;          // throughput: index of its time entry
  bool decided = false;           // verdict fixed before classification
  bool common = false;            // the suite's common speed shift, not a workload
  int common_index = -1;          // a workload whose run speed factor was removed: its (suite) entry
  bool common_split = false;      // (suite): over a quarter of its workloads moved against it
  bool throttled_current = false;
  bool throttled_baseline = false;
  /// GPU time: median cycle-space time (seconds x SM clock per sample) of
  /// the current side over the baseline's, when both sides recorded cycles.
  std::optional<double> cycle_ratio;
  const char* kernel_statistic = "";  // kernels: "size-weighted median", "median" or "mean" per call of each run
  /// A kernel in only some runs of a baseline history of >= 2: how many
  /// have it, of how many (0 of 0 otherwise). Judged as one run per side
  /// when one has it, it is not told to keep a history.
  int history_runs_with = 0, history_runs = 0;
  /// History: the run speed factors were removed, but none of the current
  /// runs holding this workload has its own (WithUnknownRunFactor): the
  /// variance of the history's factors and its degrees of freedom.
  double unknown_factor_var = 0, unknown_factor_df = 0;
};

std::string Key(const WorkloadResult& w) {
  std::string k = w.name;
  for (const auto& [name, value] : w.params) k += '\x1f' + name + '=' + value;
  return k;
}

// nvbench names a state "X [devN]" (with a "device" parameter) only in a
// file of several devices; the same state of a one-device file is "X". The
// key of its other spelling, to match runs of another device count, and the
// device it names; nullopt for anything else.
std::optional<std::pair<std::string, int64_t>> OtherDeviceKey(const WorkloadResult& w) {
  if (w.kind != "nvbench") return std::nullopt;
  for (size_t i = 0; i < w.params.size(); ++i) {
    if (w.params[i].first != "device") continue;
    const std::string suffix = " [dev" + w.params[i].second + "]";
    if (w.name.size() <= suffix.size() || w.name.compare(w.name.size() - suffix.size(), suffix.size(), suffix) != 0)
      return std::nullopt;
    WorkloadResult other;
    other.name = w.name.substr(0, w.name.size() - suffix.size());
    other.params = w.params;
    other.params.erase(other.params.begin() + static_cast<std::ptrdiff_t>(i));
    int64_t device = 0;
    const std::string& text = w.params[i].second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), device);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return std::pair{Key(other), device};
  }
  auto it = w.counters.find("nvbench_device");
  if (it == w.counters.end() || !(it->second >= 0) || it->second > 1e6) return std::nullopt;
  const auto device = static_cast<int64_t>(it->second);
  WorkloadResult other;
  other.name = w.name + " [dev" + std::to_string(device) + "]";
  other.params = w.params;
  other.params.emplace_back("device", std::to_string(device));
  return std::pair{Key(other), device};
}

// Whether `b`, found under `w`'s other spelling, is a state of the device
// `w` names: a one-device state that does not record its device (files read
// before it was recorded) is taken for device 0.
bool SameDevice(const WorkloadResult& b, int64_t device) {
  for (const auto& [name, value] : b.params)
    if (name == "device") return value == std::to_string(device);
  auto it = b.counters.find("nvbench_device");
  return it == b.counters.end() ? device == 0 : static_cast<int64_t>(it->second) == device;
}

// The device an nvbench state ran on, where it says (a "device" parameter
// or the one-device file's nvbench_device counter); nullopt otherwise.
std::optional<int64_t> StateDevice(const WorkloadResult& w) {
  if (w.kind != "nvbench") return std::nullopt;
  for (const auto& [name, value] : w.params) {
    if (name != "device") continue;
    int64_t device = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), device);
    if (ec == std::errc() && end == value.data() + value.size()) return device;
    return std::nullopt;
  }
  auto it = w.counters.find("nvbench_device");
  if (it == w.counters.end() || !(it->second >= 0) || it->second > 1e6) return std::nullopt;
  return static_cast<int64_t>(it->second);
}

// Whether two current runs' workloads of one key are one workload: not the
// states of one name on two devices (one nvbench file per device).
bool SameCurrentWorkload(const WorkloadResult& a, const WorkloadResult& b) {
  const std::optional<int64_t> da = StateDevice(a), db = StateDevice(b);
  return !da || !db || *da == *db;
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

// Keeps finite values that are at least `min` (log-scale statistics need
// positive ones; counts may be 0).
Rounds KeepFinite(const Rounds& in, double min) {
  Rounds out;
  for (const auto& r : in) {
    std::vector<double> c;
    for (double x : r)
      if (std::isfinite(x) && x >= min) c.push_back(x);
    if (!c.empty()) out.push_back(std::move(c));
  }
  return out;
}

Rounds Clean(const Rounds& in) {
  return KeepFinite(in, std::numeric_limits<double>::min());
}

// "time (s)", "value (ops/sec)": a primary metric for sentences.
std::string MetricText(const WorkloadResult& w) { return w.metric + " (" + w.unit + ")"; }

bool SameMetric(const WorkloadResult& a, const WorkloadResult& b) {
  return a.metric == b.metric && UnitKey(a.unit) == UnitKey(b.unit) && a.lower_is_better == b.lower_is_better;
}

std::string DirectionText(const WorkloadResult& w) {
  return w.lower_is_better ? "smaller is better" : "bigger is better";
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

// The (relative sd, count) a summary would report for values kept one by
// one: of the round medians with two or more rounds, else of one round's
// samples. Empty with fewer than two values or no spread.
std::optional<std::pair<double, double>> SpreadOfValues(const Rounds& rounds) {
  std::vector<double> v;
  if (rounds.size() >= 2) {
    for (const std::vector<double>& r : rounds)
      if (!r.empty()) {
        std::vector<double> copy = r;
        v.push_back(MedianInPlace(copy));
      }
  } else if (rounds.size() == 1) {
    v = rounds.front();
  }
  if (v.size() < 2) return std::nullopt;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  const double sd = std::sqrt(SampleVariance(v));
  if (!(mean > 0) || !(sd > 0) || !std::isfinite(sd / mean)) return std::nullopt;
  return std::pair{sd / mean, static_cast<double>(v.size())};
}

// Like is compared with like: where some run of a comparison reports only
// the mean of its samples (an nvbench summary whose sample file is gone),
// every run that kept its values is read as their mean too, with their own
// spread as its reported noise. The judge's other readings of values
// (medians, Hodges-Lehmann) would set a skewed state's median against
// another run's mean.
// Returns false (and leaves the copies alone) when no run is such a mean.
bool ReadAllAsMeans(const std::vector<Indexed>& hist_in, const std::vector<Indexed>& cur_in,
                    std::vector<Indexed>* hist, std::vector<Indexed>* cur) {
  auto is_mean = [](const Indexed& x) { return x.summary_is_mean; };
  if (std::none_of(hist_in.begin(), hist_in.end(), is_mean) && std::none_of(cur_in.begin(), cur_in.end(), is_mean))
    return false;
  *hist = hist_in;
  *cur = cur_in;
  for (std::vector<Indexed>* side : {hist, cur})
    for (Indexed& x : *side) {
      if (x.summary_is_mean || x.reported_noise) continue;
      double sum = 0;
      double count = 0;
      for (const std::vector<double>& r : x.rounds)
        for (double v : r) {
          sum += v;
          ++count;
        }
      if (!(count > 0)) continue;
      x.reported_noise = SpreadOfValues(x.rounds);
      x.rounds = {{sum / count}};
      x.summary_is_mean = true;
    }
  return true;
}

std::vector<double> FlatLogs(const Rounds& r) {
  std::vector<double> out;
  for (const auto& x : r)
    for (double v : x) out.push_back(std::log(v));
  return out;
}

// The step of the grid `values` lie on, as (log gap, seconds): the largest
// candidate step s whose grid (the most held value plus multiples of s,
// within 5% of s) holds at least 90% of the values, and half of those off
// the most held value. The candidates are the
// distances of the distinct values from the most held one and between
// neighbours, and their halves to eighths (a 0.256 us timer that reads 40,
// 44 and 50 ticks has a step no two values are apart), none wider than the
// span of the central 95% of the values, or than the nearest value to the
// most held one where that span is one value (a far outlier at 3x is no
// step).
// Strays off the grid (up to a tenth of the samples) leave the tick its
// step, and the neighbours of a tick holding 94% of the samples are its
// grid. std::nullopt when all values read one value.
std::optional<std::pair<double, double>> GridStep(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n_all = values.size();
  if (n_all < 2) return std::nullopt;
  const double lo = values[static_cast<size_t>(0.025 * static_cast<double>(n_all - 1))];
  const double hi = values[static_cast<size_t>(std::ceil(0.975 * static_cast<double>(n_all - 1)))];
  std::vector<std::pair<double, size_t>> distinct;  // value, count
  for (double v : values) {
    if (!distinct.empty() && std::log(v) - std::log(distinct.back().first) <= 1e-9)
      ++distinct.back().second;
    else
      distinct.push_back({v, 1});
  }
  if (distinct.size() < 2) return std::nullopt;
  size_t mode = 0;
  for (size_t i = 1; i < distinct.size(); ++i)
    if (distinct[i].second > distinct[mode].second) mode = i;
  const double origin = distinct[mode].first;
  // Candidates from the values most held (a bounded number), no larger
  // than the central 95% of the values spans, or the nearest value to the
  // most held one where that span is a single value.
  std::vector<size_t> others;
  double nearest = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < distinct.size(); ++i)
    if (i != mode) {
      others.push_back(i);
      nearest = std::min(nearest, std::fabs(distinct[i].first - origin));
    }
  const double cap = std::max(hi - lo, nearest) * (1 + 1e-9);
  std::sort(others.begin(), others.end(),
            [&](size_t a, size_t b) { return distinct[a].second > distinct[b].second; });
  others.resize(std::min<size_t>(others.size(), 32));
  std::vector<double> candidates;
  for (size_t i : others)
    for (int k = 1; k <= 8; ++k) candidates.push_back(std::fabs(distinct[i].first - origin) / k);
  for (size_t i = 1; i < distinct.size() && candidates.size() < 512; ++i)
    candidates.push_back(distinct[i].first - distinct[i - 1].first);
  std::erase_if(candidates, [cap](double c) { return c > cap; });
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  const double n = static_cast<double>(n_all);
  std::map<double, std::pair<double, size_t>> points;  // grid point k -> (distance, count) of its value
  for (double step : candidates) {
    if (!(step > origin * 1e-9)) continue;
    // Each grid point holds the one value nearest it: a step so wide that
    // the neighbours of the most held value fall within 5% of it holds
    // them at the point of that value, which no grid does (a 3% stall at
    // 3x made a 34-tick step "hold" the ticks beside a 20-tick value, and
    // x2 read "a finer timer would decide").
    points.clear();
    for (const auto& [v, count] : distinct) {
      const double k = std::round((v - origin) / step);
      const double off = std::fabs(v - origin - k * step);
      if (off > 0.05 * step) continue;
      auto [it, fresh] = points.try_emplace(k, off, count);
      if (!fresh && off < it->second.first) it->second = {off, count};
    }
    double on = 0;
    for (const auto& [k, held_there] : points) on += static_cast<double>(held_there.second);
    // ... and half of the values off the most held one, where 90% of the
    // values hold it alone (any step passes then: two stragglers at 0.8x
    // and 1.5x of a value held 90% of the time made a 5.9 us "step").
    const double held = static_cast<double>(distinct[mode].second);
    if (on >= 0.9 * n && on - held >= 0.5 * (n - held)) return std::pair{std::log1p(step / origin), step};
  }
  return std::nullopt;
}

// The first three of `names`, and ", ..." when there are more.
std::string FirstNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += ", ...";
  return out;
}

// Whether `values` hold more than one value.
bool ValuesScatter(const std::vector<double>& values) {
  if (values.empty()) return false;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return std::log(*hi) - std::log(*lo) > 1e-9;
}

// The log of each non-empty round's Harrell-Davis median.
std::vector<double> RoundLogSmoothMedians(const Rounds& rounds) {
  std::vector<double> out;
  for (const std::vector<double>& r : rounds)
    if (!r.empty()) out.push_back(std::log(HarrellDavisMedian(r)));
  return out;
}

// Units::base and ::cur as the Harrell-Davis medians of the rounds, in place
// of their sample medians: round levels for Welch on rounds, and for a
// history each run's level (RunLogLevel's centre) of them.
void ReadLevelsAsSmoothMedians(std::span<const Indexed> base_runs, const std::vector<Indexed>& current,
                               Units* u) {
  auto run_level = [](const Rounds& rounds) { return RunLogLevelOf(RoundLogSmoothMedians(rounds)); };
  if (u->method == ShiftMethod::kHistoryPrediction) {
    u->base.clear();
    u->cur.clear();
    for (const Indexed& r : base_runs) u->base.push_back(run_level(r.rounds));
    for (const Indexed& r : current) u->cur.push_back(run_level(r.rounds));
  } else {
    u->base = RoundLogSmoothMedians(base_runs.back().rounds);
    Rounds cur_all;
    for (const Indexed& r : current) cur_all.insert(cur_all.end(), r.rounds.begin(), r.rounds.end());
    u->cur = RoundLogSmoothMedians(cur_all);
  }
  u->levels_smoothed = true;
}

// A side of a time whose levels (round medians, or run levels) tie while
// its values scatter reads them on a timer's grid: medians of values
// on a grid tie, and their spread of 0 is the grid's, not the noise's (1000
// samples over three 0.512 us ticks read "no spread measured", and a +25%
// slowdown of five ticks passed). The rounding to that grid is then that
// side's spread, as half a step of a trace's clock is a kernel's
// (Units::clock_var); a side of one level (one current run against a
// history) cannot show a tie, and takes the grid when the other side is on
// one. `base_runs` are the runs behind u->base.
void AddValueSteps(std::span<const Indexed> base_runs, const std::vector<Indexed>& current, bool time,
                   Units* u) {
  if (u->clock_var > 0) return;  // a trace's clock already
  // A history's run levels tie when more than half of them (at least two)
  // read one value: each is a centre of its round medians, so a run whose
  // rounds mostly read the value reads just off it, and the rest scattering
  // a little is no measure of the noise either (4 of 5 history runs at one
  // value and the fifth 0.25% off made the history's variance about 0, and
  // identical code a +6% regression at p = 1e-26). Round medians tie when
  // all read one value: one off by a step shows the step (counted as tied
  // where 3 of 5 repetitions read one value of a 1 ms timer, a suite of
  // such benchmarks lent no noise between runs and could not be judged).
  const bool majority = u->method == ShiftMethod::kHistoryPrediction;
  auto ties = [majority](const std::vector<double>& levels) {
    if (levels.size() < 2) return false;
    std::vector<double> sorted = levels;
    std::sort(sorted.begin(), sorted.end());
    size_t most = 1, run = 1;
    for (size_t i = 1; i < sorted.size(); ++i) {
      run = sorted[i] - sorted[i - 1] <= 1e-9 ? run + 1 : 1;
      most = std::max(most, run);
    }
    return majority ? most >= 2 && 2 * most > sorted.size() : most == sorted.size();
  };
  auto side_values = [&](int side) {
    std::vector<double> values;
    for (const Indexed& r : side == 0 ? base_runs : std::span<const Indexed>(current))
      for (const std::vector<double>& round : r.rounds)
        for (double v : round)
          if (v > 0 && std::isfinite(v)) values.push_back(v);
    return values;
  };
  bool tied[2] = {ties(u->base), ties(u->cur)};
  if (!tied[0] && !tied[1]) return;
  // Only a time is read through a timer's grid. A count or a rate whose
  // medians tie while its values scatter is read smoothly below: its values
  // are exact, and a grid's rounding of a step of 1 on a count of 1 hid its
  // doubling (1 with rare 2s -> 2 with rare 3s), where an exact count that
  // doubled was a regression.
  std::optional<std::pair<double, double>> grids[2];
  for (int side = 0; side < 2; ++side)
    if (time && (tied[side] || (side == 0 ? u->base : u->cur).size() == 1)) grids[side] = GridStep(side_values(side));
  // Levels that tie while their values scatter off any grid (60% of the
  // samples on one value, the rest spread continuously): the sample medians
  // hold the most held value and hide the rest, and a +25% of those read
  // "no spread". Both sides' levels are then the rounds' Harrell-Davis
  // medians, which move with the values around the middle.
  for (int side = 0; side < 2; ++side)
    if (tied[side] && !grids[side] && ValuesScatter(side_values(side))) {
      ReadLevelsAsSmoothMedians(base_runs, current, u);
      tied[0] = ties(u->base);
      tied[1] = ties(u->cur);
      if (!tied[0] && !tied[1]) return;
      break;
    }
  double side_var[2] = {0, 0};
  for (int side = 0; side < 2; ++side) {
    const std::vector<double>& levels = side == 0 ? u->base : u->cur;
    if (!tied[side] && levels.size() != 1) continue;  // its levels scatter: their spread is measured
    const std::optional<std::pair<double, double>>& grid = grids[side];
    if (!grid) continue;  // every value reads one value: no spread at all
    const auto [gap, step] = *grid;
    // The tied level is the grid point nearest the true one, which lies
    // anywhere within half a step: a uniform error, variance step^2 / 12.
    side_var[side] = gap * gap / 12.0;
    u->clock_step = std::max(u->clock_step, step);
    u->clock_step_min = u->clock_step_min > 0 ? std::min(u->clock_step_min, step) : step;
    u->clock_sides |= 1 << side;
    u->clock_coarse = u->clock_coarse || 0.5 * gap >= kCoarseHalfStep;
  }
  if (!(side_var[0] + side_var[1] > 0)) return;
  u->clock_var_base = side_var[0];
  u->clock_var = side_var[0] + side_var[1];
  u->clock_from_values = true;
}

// Chooses the estimator the data supports (see docs/statistics.md):
// paired rounds (A/B) -> signed rank on per-round ratios; history of >= 2
// runs -> t on run-level values; >= 2 rounds per side -> Welch on round
// medians; >= 2 samples per side -> HL/Moses on samples; else the ratio
// alone. `history` is oldest first and ends with the reference (newest)
// baseline; `current` holds the current run and any confirmation runs.
std::optional<Units> MakeUnits(const std::vector<Indexed>& history,
                               const std::vector<Indexed>& current, bool paired) {
  if (history.empty() || current.empty()) return std::nullopt;
  Units u;
  Rounds cur_all;
  for (const Indexed& r : current) cur_all.insert(cur_all.end(), r.rounds.begin(), r.rounds.end());
  u.current_rounds = static_cast<int>(cur_all.size());
  if (paired) {
    // Round r of the base pairs with round r of the head (same machine state).
    u.method = ShiftMethod::kPairedRounds;
    const Rounds& base = history.back().rounds;
    const Rounds& head = current.front().rounds;
    for (size_t r = 0; r < std::min(base.size(), head.size()); ++r) {
      std::vector<double> b = base[r], h = head[r];
      u.cur.push_back(std::log(MedianInPlace(h)) - std::log(MedianInPlace(b)));
    }
    u.current_rounds = static_cast<int>(u.cur.size());
    return u;
  }
  if (history.size() >= 2) {
    u.method = ShiftMethod::kHistoryPrediction;
    for (const Indexed& r : history) {
      u.base.push_back(RunLogLevel(r.rounds));
      u.base_run.push_back(r.run);
      u.base_cpu.push_back(r.cpu);
    }
    for (const Indexed& r : current) {
      u.cur.push_back(RunLogLevel(r.rounds));
      u.cur_run.push_back(r.run);
      u.cur_cpu.push_back(r.cpu);
    }
    return u;
  }
  const Rounds& base = history.back().rounds;
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
  u.log_ratio = std::log(MedianOf(cur_all)) - std::log(MedianOf(base));
  // A summary with its reported noise on one side (or both); a side that
  // kept its values instead (a full Google Benchmark file against an
  // aggregate-only one) is read the same way, from its values' own spread.
  if (current.size() == 1 && (history.back().reported_noise || current.front().reported_noise)) {
    const auto base_noise = history.back().reported_noise ? history.back().reported_noise : SpreadOfValues(base);
    const auto cur_noise = current.front().reported_noise ? current.front().reported_noise : SpreadOfValues(cur_all);
    if (base_noise && cur_noise) {
      u.method = ShiftMethod::kReportedNoise;
      u.base = {std::log(MedianOf(base)), base_noise->first, base_noise->second};
      u.cur = {std::log(MedianOf(cur_all)), cur_noise->first, cur_noise->second};
      return u;
    }
  }
  u.method = ShiftMethod::kThresholdOnly;
  if (!history.back().unusable_spread.empty())
    u.no_spread = "the baseline " + history.back().unusable_spread;
  else if (current.size() == 1 && !current.front().unusable_spread.empty())
    u.no_spread = "the current run " + current.front().unusable_spread;
  return u;
}

// How far identical-code runs of a history stray from the rest of it: each
// history run is predicted from the others (leave one out, the same moderated
// t) and the statistics, pooled over the family, fix a scale inflation and a
// tail weight for the reference. Without enough of them (< kMinNullStatistics)
// a fixed heavy-tailed reference (t, 4 df).
struct Calibration {
  double scale = 1.0;   // multiplies se
  double max_df = kHeavyTailDf;
  bool measured = false;
  int statistics = 0;
};

// The reference that identical-code statistics `abs_t` (|t| values whose
// nominal reference is Student t with `df`) follow. Process-level noise of
// benchmarks is heavy-tailed (page-size lotteries, aliasing layouts, a
// neighbour's burst), so the prior is t with kHeavyTailDf degrees of freedom;
// the statistics move it only with evidence:
// - tail weight: the t whose 90%/50% quantile ratio of |T| matches theirs
//   (normal 2.44, t_4 2.82, t_2 3.52) is adopted when their ratio differs
//   from the prior's by more than its sampling error (delta method on the two
//   order statistics: relative se ~1.46/sqrt(n)): 2 se toward heavier tails
//   (the t matching their ratio), 1 se toward lighter (the t matching the
//   light end of their ratio's interval), never beyond the nominal df;
// - scale: how much more they spread at the median than the reference says,
//   beyond the median's own sampling error (~1.17/sqrt(n) relative).
// Fewer than kMinNullStatistics statistics: the prior alone.
Calibration CalibrateReference(const std::vector<double>& abs_t_in, const std::vector<double>& dfs,
                               bool shared_draws) {
  Calibration ref;
  const double nominal = 1e4;  // the statistics are put on the normal scale below
  ref.max_df = kHeavyTailDf;
  // Each |t| to the normal scale by its own nominal reference (probability
  // integral transform), so statistics with few degrees of freedom (a
  // history of 3 leaves 1 for each left-out run) are not read as heavy tails.
  // A statistic of exactly 0 is a tie of a coarse clock (kernels of a trace
  // in whole microseconds whose median call reads the same in both runs), not
  // a draw of continuous noise: a third of them made the quantiles of the
  // rest look like a Cauchy tail, and a kernel made twice as slow
  // insignificant. Ties are left out; they still count as compared.
  std::vector<double> abs_t;
  for (size_t i = 0; i < abs_t_in.size(); ++i) {
    if (abs_t_in[i] == 0) continue;
    const double u = StudentTCdf(abs_t_in[i], std::max(1.0, dfs[i]));
    abs_t.push_back(NormalQuantile(std::min(u, 1.0 - 1e-16)));
  }
  ref.statistics = static_cast<int>(abs_t.size());
  if (static_cast<int>(abs_t.size()) < kMinNullStatistics) return ref;
  ref.measured = true;
  std::sort(abs_t.begin(), abs_t.end());
  const double n = static_cast<double>(abs_t.size());
  const double q50 = QuantileSorted(abs_t, 0.5);
  const double q90 = QuantileSorted(abs_t, 0.9);
  auto tail_ratio = [](double nu) {
    return StudentTQuantile(0.95, nu) / StudentTQuantile(0.75, nu);
  };
  // The t (within [1, nominal]) with a given tail ratio; tail_ratio falls as
  // nu grows.
  auto solve = [&](double ratio) {
    if (ratio >= tail_ratio(1.0)) return 1.0;
    if (ratio <= tail_ratio(std::min(nominal, 1e4))) return nominal;
    double lo = 1.0, hi = std::min(nominal, 1e4);
    for (int it = 0; it < 60; ++it) {
      const double mid = std::sqrt(lo * hi);
      if (tail_ratio(mid) > ratio) lo = mid; else hi = mid;
    }
    return hi;
  };
  const double ratio = q50 > 0 ? q90 / q50 : 0.0;
  const double se_ratio = ratio * 1.463 / std::sqrt(n);
  // A history's statistics share draws (each run's factor, each workload's
  // variance): heavier tails need the evidence of half of them counted as
  // independent. Counted all, a small family's (6 workloads, 9 runs) read a
  // ratio of 5.0 on lognormal noise and took t with 1.2 df, blind to
  // anything below x1000. One run per side gives one statistic a workload.
  const double se_heavy = shared_draws ? ratio * 1.463 / std::sqrt(0.5 * n) : se_ratio;
  const double prior = tail_ratio(ref.max_df);
  if (ratio > prior + 2.0 * se_heavy) {
    ref.max_df = solve(ratio);
  } else if (ratio < prior - se_ratio) {
    ref.max_df = solve(ratio - se_ratio);  // lighter: the light end of what they allow
  }
  const double spread = q50 / StudentTQuantile(0.75, ref.max_df);
  if (spread > 1.0 + 2.0 * 1.166 / std::sqrt(n)) ref.scale = spread;
  return ref;
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
    ListWorkloads();
    Header();
    CheckEnvironment();
    MatchWorkloads();
    Estimate(Family::kTime);
    Estimate(Family::kKernel);
    Estimate(Family::kOther);
    AddCpuModelsRow();
    Adjust();
    Classify();
    ApplyPolicy();
    WarnUnreachable();
    RequireDetectable();
    for (Pending& p : pending_) {
      // Every verdict of an A/B comparison, a failed side's too: the rules'
      // advice is for the command that was run (workload.interleaved).
      p.mv.interleaved = options_.paired;
      out_.metrics.push_back(std::move(p.mv));
    }
    if (first_runs_.size() > 1) {
      // Workloads only later current runs hold get their suggestions too.
      Results all = current_;
      for (const auto& [run, w] : compared_)
        if (run > 0) all.workloads.push_back(*w);
      out_.suggestions = SuggestFromComparison(policy_.expr_rules, all, out_, &Reference());
    } else {
      out_.suggestions = SuggestFromComparison(policy_.expr_rules, current_, out_, &Reference());
    }
    out_.outcome = OutcomeFor(out_, policy_.defaults);
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
    out_.require_detectable = policy_.defaults.require_detectable;
    out_.inconclusive_fails = policy_.defaults.on_inconclusive == OnInconclusive::kFail;
    out_.incomparable_fails = policy_.defaults.on_incomparable == OnInconclusive::kFail;
    out_.baseline_label = !options_.baseline_label.empty() ? options_.baseline_label
                                                           : Reference().run.run_id;
    if (runs_.size() > 1 && options_.baseline_label.empty())
      out_.baseline_label += " (history of " + std::to_string(runs_.size()) + " runs)";
    out_.current_label =
        !options_.current_label.empty() ? options_.current_label : current_.run.run_id;
    // A history that already holds the current run (compared after `baseline
    // update` added it) compares that run with itself too: a change then
    // reads smaller than it is.
    if (runs_.size() > 1) {
      for (const Results& c : current_runs_) {
        if (c.run.run_id.empty()) continue;
        for (const Results& b : runs_) {
          if (b.run.run_id != c.run.run_id) continue;
          out_.warnings.push_back("the current run " + c.run.run_id +
                                  " is also in the baseline history, so it was compared with "
                                  "itself too and a change reads smaller than it is; compare "
                                  "before `gpugate baseline update` adds the run");
          break;
        }
      }
    }
  }

  void CheckEnvironment() {
    // Every current run, not only the first: a run from another machine
    // among several current runs is as incomparable as a lone one.
    for (const Results& c : current_runs_)
      for (EnvDifference& d : CompareEnvironments(Reference(), c)) {
        const bool known = std::any_of(out_.env_differences.begin(), out_.env_differences.end(),
                                       [&](const EnvDifference& e) {
                                         return e.field == d.field && e.baseline == d.baseline &&
                                                e.current == d.current;
                                       });
        if (!known) out_.env_differences.push_back(std::move(d));
      }
    out_.environments = DescribeEnvironments(Reference(), current_);
    // A CPU-timed run whose CPU is unknown on one side only: its CPU model
    // could not be checked.
    for (const Results& c : current_runs_) {
      const std::string& a = Reference().run.env.cpu_model;
      const std::string& b = c.run.env.cpu_model;
      if ((a.empty() != b.empty()) && (IsCpuTimed(Reference()) || IsCpuTimed(c))) {
        out_.warnings.push_back(std::string("the CPU model of the ") + (a.empty() ? "baseline" : "current") +
                                " run is unknown, so the two could not be checked for the same CPU");
        break;
      }
    }
    out_.environment_matches = out_.env_differences.empty();
    CheckCpuModels();
    if (!out_.environment_matches && options_.allow_env_mismatch)
      out_.warnings.push_back(
          "environments differ but --allow-env-mismatch is set: verdicts may reflect the "
          "machine, not the code");
  }

  // Whether an environment difference concerns `w`: all do, but one GPU's
  // of several ("gpu[N]", environment_check.cc) concerns only the
  // workloads measured on device N (an nvbench state's device, a trace's
  // GPU workload).
  static bool DifferenceApplies(const EnvDifference& d, const WorkloadResult& w) {
    if (!d.field.starts_with("gpu[")) return true;
    std::optional<int64_t> device;
    if (auto c = w.counters.find("nvbench_device"); c != w.counters.end()) device = static_cast<int64_t>(c->second);
    for (const auto& [key, value] : w.params)
      if (!device && key == "device" && !value.empty() && value.size() < 10 &&
          value.find_first_not_of("0123456789") == std::string::npos)
        device = std::stoll(value);
    return !device || d.field == "gpu[" + std::to_string(*device) + "]";
  }

  static std::string CpuOf(const WorkloadResult& w, const Results& run) {
    return w.cpu_model ? *w.cpu_model : run.run.env.cpu_model;
  }

  // Within one runner class the runs may come from different CPU models.
  // Their speed difference is removed like any run's speed factor, which
  // needs kMinWorkloadsForRunFactor timed workloads; with fewer, the CPU
  // models make the runs incomparable.
  void CheckCpuModels() {
    if (!out_.environment_matches) return;
    std::set<std::string> models;
    auto add = [&](const Results& r) {
      if (SameRunnerClass(r.run.env, current_.run.env) && !r.run.env.cpu_model.empty())
        models.insert(r.run.env.cpu_model);
    };
    for (const Results& r : runs_) add(r);
    for (const Results& r : current_runs_) add(r);
    // A merged run whose shards ran on different CPUs names them per workload.
    for (const auto* list : {&runs_, &current_runs_})
      for (const Results& r : *list)
        for (const WorkloadResult& w : r.workloads)
          if (w.cpu_model && !w.cpu_model->empty()) models.insert(*w.cpu_model);
    if (models.size() < 2) return;
    // Timed workloads of the current run per CPU model (a merged run may
    // span several): each CPU's speed factor needs kMinWorkloadsForRunFactor.
    std::map<std::string, int> timed;
    for (const auto& [run, w] : compared_)
      if (w->status == WorkloadStatus::kOk && HasTimeMetric(*w) && !w->deterministic)
        ++timed[CpuOf(*w, current_runs_[static_cast<size_t>(run)])];
    int total = 0;
    for (const auto& [cpu, n] : timed) {
      total += n;
      if (n < kMinWorkloadsForRunFactor) unfactored_cpus_.insert(cpu);
    }
    if (unfactored_cpus_.size() < timed.size()) {
      cpu_mixed_ = true;
      return;
    }
    unfactored_cpus_.clear();
    out_.environment_matches = false;
    out_.env_differences.push_back({"cpu_model", Reference().run.env.cpu_model, current_.run.env.cpu_model});
    out_.warnings.push_back("the runs come from " + std::to_string(models.size()) +
                            " CPU models of runner class '" + current_.run.env.runner_class.value_or("") +
                            "' and the current run has " + std::to_string(total) +
                            " timed workload" + (total == 1 ? "" : "s") + ": the speed factor between CPU models needs at least " +
                            std::to_string(kMinWorkloadsForRunFactor));
  }

  // The environment row that names the CPUs involved, with each history
  // CPU's speed relative to the current run where the factors are known.
  void AddCpuModelsRow() {
    if (!cpu_mixed_ || !out_.environment_matches) return;
    const std::string& cpu = current_.run.env.cpu_model;
    // The CPUs' speeds are the host's factors; a GPU's clock is its own.
    const bool host_columns = std::any_of(time_columns_.begin(), time_columns_.end(),
                                          [](const FactorColumn& c) { return c.domain.empty(); });
    auto host = [&](const FactorColumn& c) { return !host_columns || c.domain.empty(); };
    double cur_sum = 0;
    int cur_n = 0;
    for (const FactorColumn& c : time_columns_)
      if (host(c) && c.current && c.known && c.cpu == cpu) cur_sum += c.factor, ++cur_n;
    struct Model { std::set<int> runs; double sum = 0; int known = 0; };
    std::map<std::string, Model> models;
    std::vector<std::string> order;
    auto note = [&](const std::string& m) -> Model& {
      if (!models.count(m)) order.push_back(m);
      return models[m];
    };
    for (size_t k = 0; k < runs_.size(); ++k) {
      note(runs_[k].run.env.cpu_model).runs.insert(static_cast<int>(k));
      for (const WorkloadResult& w : runs_[k].workloads)
        if (w.cpu_model) note(*w.cpu_model).runs.insert(static_cast<int>(k));
    }
    for (const FactorColumn& c : time_columns_)
      if (host(c) && !c.current && c.known) {
        Model& e = note(c.cpu);
        e.sum += c.factor;
        ++e.known;
      }
    std::string text;
    for (const std::string& m : order) {
      const Model& e = models[m];
      if (e.runs.empty()) continue;
      const size_t n = e.runs.size();
      text += (text.empty() ? "" : "; ") + m + ": " + std::to_string(n) + " run" + (n == 1 ? "" : "s");
      if (e.known > 0 && cur_n > 0) {
        const double rel = std::exp(e.sum / e.known - cur_sum / cur_n);
        char buf[64];
        if (std::fabs(rel - 1) < 0.005)
          std::snprintf(buf, sizeof buf, ", the current run's speed");
        else
          std::snprintf(buf, sizeof buf, ", %.0f%% %s", std::fabs(rel - 1) * 100,
                        rel >= 1 ? "slower than the current run" : "faster than the current run");
        text += buf;
      }
    }
    // A merged current run may span CPUs itself, and several current runs
    // each their own.
    std::set<std::string> current_cpus;
    bool merged = false;
    for (const Results& r : current_runs_)
      for (const WorkloadResult& w : r.workloads) {
        merged = merged || w.cpu_model.has_value();
        current_cpus.insert(CpuOf(w, r));
      }
    std::string now = cpu;
    if (current_cpus.size() > 1) {
      now = merged ? "shards on " : "current runs on ";
      const size_t head = now.size();
      for (const std::string& c : current_cpus) now += (now.size() > head ? ", " : "") + c;
    }
    EnvDifference row{"cpu_model (runner class " + current_.run.env.runner_class.value_or("") +
                          "; run speed factors removed)",
                      text, now};
    row.within_runner_class = true;
    out_.env_differences.push_back(std::move(row));
  }

  MetricVerdict Base(const std::string& workload, const std::string& metric,
                     bool lower_is_better) {
    MetricVerdict mv;
    mv.workload = workload;
    mv.metric = metric;
    mv.confidence = policy_.defaults.confidence;
    ResolvedPolicy rp = ResolvePolicy(policy_, workload, metric);
    mv.threshold = rp.threshold;
    mv.severity = rp.severity;
    mv.lower_is_better = rp.lower_is_better.value_or(lower_is_better);
    return mv;
  }
  MetricVerdict Base(const WorkloadResult& w, const std::string& metric, bool lower_is_better) {
    return Base(w.name, metric, lower_is_better);
  }
  // The verdict of a workload's primary metric: under its own name (policy
  // lookups use it), in its direction, with its unit when not time.
  MetricVerdict Primary(const WorkloadResult& w) {
    MetricVerdict mv = Base(w.name, w.metric, w.lower_is_better);
    if (!HasTimeMetric(w)) mv.unit = w.unit;
    return mv;
  }

  void Decided(MetricVerdict mv, Verdict v, Reason reason, std::string sentence) {
    mv.verdict = v;
    mv.reason = reason;
    mv.sentence = std::move(sentence);
    Pending p;
    p.mv = std::move(mv);
    p.decided = true;
    pending_.push_back(std::move(p));
  }

  // The workloads compared, each with the current run that holds it first:
  // the first run's in its order, then those only later runs hold (a later
  // run of a wider selection), in their order. Later runs that hold a
  // workload repeat it.
  void ListWorkloads() {
    std::map<std::string, std::vector<const WorkloadResult*>> listed;
    for (const WorkloadResult& w : current_.workloads) {
      listed[Key(w)].push_back(&w);
      compared_.push_back({0, &w});
    }
    for (size_t i = 1; i < current_runs_.size(); ++i)
      for (const WorkloadResult& w : current_runs_[i].workloads) {
        std::vector<const WorkloadResult*>& same_key = listed[Key(w)];
        if (std::any_of(same_key.begin(), same_key.end(),
                        [&](const WorkloadResult* x) { return SameCurrentWorkload(*x, w); }))
          continue;  // a repeat
        same_key.push_back(&w);
        const WorkloadResult* listed_as = &w;
        // The same state name on another device (one nvbench file per
        // device): named as a file of several devices names it, "X [devN]",
        // so that its verdict is not a second row of "X".
        const bool device_param = std::any_of(w.params.begin(), w.params.end(),
                                              [](const auto& p) { return p.first == "device"; });
        if (same_key.size() > 1 && !device_param)
          if (const auto other = OtherDeviceKey(w)) {
            WorkloadResult& copy = renamed_.emplace_back(w);
            copy.name = w.name + " [dev" + std::to_string(other->second) + "]";
            copy.params.emplace_back("device", std::to_string(other->second));
            lookup_key_[&copy] = Key(w);
            listed_as = &copy;
          }
        compared_.push_back({static_cast<int>(i), listed_as});
        first_runs_.insert(static_cast<int>(i));
      }
    first_runs_.insert(0);
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
    for (const auto& [first, wp] : compared_) {
      const WorkloadResult& w = *wp;
      const auto renamed = lookup_key_.find(wp);
      // Later runs hold a renamed state under its own name.
      const std::string current_key = renamed == lookup_key_.end() ? Key(w) : renamed->second;
      std::string key = Key(w);
      primary_run_ = first;
      confirmations_.clear();  // later current runs with their index, status ok
      for (size_t i = static_cast<size_t>(first) + 1; i < current_runs_.size(); ++i) {
        auto it = cur_index[i].find(current_key);
        if (it == cur_index[i].end() || !SameCurrentWorkload(w, *it->second)) continue;
        if (it->second->status == WorkloadStatus::kOk)
          confirmations_.push_back({static_cast<int>(i), it->second});
        else if (it->second->status == WorkloadStatus::kFailed) {
          failed_confirmation_ = it->second;
          failed_confirmation_run_ = static_cast<int>(i);
        }
      }
      seen.insert(key);
      const WorkloadResult* ref = nullptr;
      std::vector<std::pair<int, const WorkloadResult*>> history;  // status ok, oldest first
      const std::optional<std::pair<std::string, int64_t>> other = OtherDeviceKey(w);
      for (size_t i = 0; i < runs_.size(); ++i) {
        auto it = index[i].find(key);
        if (it == index[i].end() && other) {
          // The same nvbench state in a run of another device count.
          it = index[i].find(other->first);
          if (it != index[i].end() && SameDevice(*it->second, other->second)) {
            seen.insert(other->first);
          } else {
            it = index[i].end();
          }
        }
        if (it == index[i].end()) continue;
        ref = it->second;
        if (it->second->status == WorkloadStatus::kOk)
          history.push_back({static_cast<int>(i), it->second});
      }
      // A workload that failed or skipped in the newest baseline run is
      // compared with the newest run where it ran: a failure stored in the
      // history must not leave the next slowdown unjudged.
      if (ref != nullptr && ref->status != WorkloadStatus::kOk && !history.empty() && !options_.paired)
        ref = history.back().second;
      CompareWorkload(w, ref, history);
      failed_confirmation_ = nullptr;
    }
    primary_run_ = 0;
    for (const WorkloadResult& b : Reference().workloads) {
      if (seen.count(Key(b))) continue;
      Decided(Primary(b), Verdict::kRemoved, Reason::kRemovedWorkload,
              current_runs_.size() > 1 ? "in the baseline but in none of the current runs"
                                       : "in the baseline but not in the current run");
    }
  }

  void CompareWorkload(const WorkloadResult& w, const WorkloadResult* ref,
                       const std::vector<std::pair<int, const WorkloadResult*>>& history) {
    if (ref == nullptr && w.status != WorkloadStatus::kFailed) {
      Decided(Primary(w), Verdict::kNew, Reason::kNewWorkload,
              "not in the baseline: no comparison yet");
      return;
    }
    // Not measured by `gate` because its code did not change (skip_unchanged).
    if (w.code_unchanged && w.status == WorkloadStatus::kSkipped && ref != nullptr) {
      Decided(Primary(w), Verdict::kSkipped, Reason::kCodeUnchanged,
              w.reason.empty() ? "not run: its code is unchanged" : w.reason);
      return;
    }
    const WorkloadResult* cur_bad = w.status != WorkloadStatus::kOk ? &w : failed_confirmation_;
    if (ref == nullptr) ref = &w;  // a new workload that failed: reported as this run's failure
    if (cur_bad != nullptr || ref->status != WorkloadStatus::kOk) {
      // In A/B a base side that failed is this job's failure even when the
      // head side was then not run (skipped): the base is named.
      const bool base_failed_first = options_.paired && ref != &w &&
                                     ref->status == WorkloadStatus::kFailed &&
                                     (cur_bad == nullptr || cur_bad->status != WorkloadStatus::kFailed);
      const bool current_side = cur_bad != nullptr && !base_failed_first;
      const WorkloadResult& bad = current_side ? *cur_bad : *ref;
      const bool failed = bad.status == WorkloadStatus::kFailed;
      // In A/B the base side ran in this job too: its failure is this job's.
      const bool ran_now = current_side || options_.paired;
      Reason reason = ran_now ? (failed ? Reason::kCurrentFailed : Reason::kCurrentSkipped)
                              : (failed ? Reason::kBaselineFailed : Reason::kBaselineSkipped);
      std::string where = options_.paired ? (current_side ? "head: " : "base: ")
                          : current_side  ? (current_runs_.size() <= 1 ? std::string("current run: ")
                                             // the first current file, a later one, or a gate re-run
                                             : "current run " +
                                                   std::to_string((&bad == &w ? primary_run_ : failed_confirmation_run_) + 1) +
                                                   " of " + std::to_string(current_runs_.size()) + ": ")
                                          : "baseline: ";
      // Skipped on both sides (nvbench skips a type combination in every run):
      // nothing changed, and the reports fold it away.
      if (&bad == &w && ref != &w && w.status == WorkloadStatus::kSkipped &&
          ref->status == WorkloadStatus::kSkipped) {
        std::string why = w.reason.empty() ? "" : ": " + w.reason;
        if (ref->reason != w.reason)
          why += " (baseline: " + (ref->reason.empty() ? std::string("no reason given") : ref->reason) + ")";
        Decided(Primary(w), Verdict::kSkipped, Reason::kSkippedInBoth,
                std::string(options_.paired ? "base and head" : "baseline and current run") +
                    ": skipped" + why);
        return;
      }
      // The side that did run keeps what it measured: a lost workload shows
      // its baseline, not "0 vs 0 samples".
      MetricVerdict mv = Primary(w);
      auto measured = [](const WorkloadResult& r) {
        return r.status == WorkloadStatus::kOk && CountSamples(r.rounds) > 0;
      };
      // Only in the metric the row names: a failed run knows none of its own
      // (read as time), and a count must not be shown as seconds.
      auto same_metric = [&](const WorkloadResult& r) {
        return r.metric == mv.metric && UnitKey(r.unit) == UnitKey(w.unit);
      };
      if (ref != &w && measured(*ref) && same_metric(*ref)) {
        mv.baseline_value = MedianOf(ref->rounds);
        mv.baseline_n = CountSamples(ref->rounds);
        mv.baseline_rounds = static_cast<int64_t>(ref->rounds.size());
      }
      if (ref != &w && &bad != &w && measured(w) && same_metric(w)) {
        mv.current_value = MedianOf(w.rounds);
        mv.current_n = CountSamples(w.rounds);
        mv.current_rounds = static_cast<int64_t>(w.rounds.size());
      }
      Decided(std::move(mv), Verdict::kSkipped, reason,
              where + ToString(bad.status) + (bad.reason.empty() ? "" : ": " + bad.reason));
      return;
    }
    if (ref->metric == w.metric && UnitKey(ref->unit) == UnitKey(w.unit) && ref->lower_is_better != w.lower_is_better) {
      Decided(Primary(w), Verdict::kIncomparable, Reason::kMetricMismatch,
              "the baseline reads " + MetricText(*ref) + " as " + DirectionText(*ref) + ", the current run as " +
                  DirectionText(w) + ": read both the same way (--bigger-is-better)");
      return;
    }
    if (!SameMetric(*ref, w)) {
      Decided(Primary(w), Verdict::kIncomparable, Reason::kMetricMismatch,
              "the baseline measured " + MetricText(*ref) + ", the current run " + MetricText(w) +
                  ": different quantities cannot be compared");
      return;
    }
    // Static kernel metrics depend on the binary alone, not on the machine
    // that read it: they compare across environments.
    const bool is_static = IsStatic(w) && IsStatic(*ref);
    if (!out_.environment_matches && !options_.allow_env_mismatch && !is_static) {
      // A difference of one GPU of several ("gpu[1]") is only its own
      // workloads': another device's states are compared.
      std::string what;
      for (const auto& d : out_.env_differences)
        if (DifferenceApplies(d, w)) what += (what.empty() ? "" : ", ") + d.field;
      if (!what.empty()) {
        Decided(Primary(w), Verdict::kIncomparable, Reason::kEnvironmentMismatch,
                "environments differ (" + what + "); use --allow-env-mismatch to compare anyway");
        return;
      }
    }
    if (cpu_mixed_ && HasTimeMetric(w) && !w.deterministic && unfactored_cpus_.count(CpuOf(w, PrimaryRun()))) {
      Decided(Primary(w), Verdict::kIncomparable, Reason::kEnvironmentMismatch,
              "ran on " + CpuOf(w, PrimaryRun()) + " with fewer than " +
                  std::to_string(kMinWorkloadsForRunFactor) +
                  " timed workloads of this run: that CPU's speed factor cannot be estimated");
      return;
    }
    // The primary metric (time unless the workload measured something else).
    // A deterministic count keeps its zeros; noisy metrics need positive values.
    const bool deterministic = w.deterministic || ref->deterministic;
    auto keep = [deterministic](const Rounds& r) {
      return deterministic ? KeepFinite(r, 0.0) : Clean(r);
    };
    std::vector<Indexed> hist;
    for (const auto& [run, h] : history) {
      if (!SameMetric(*h, w)) continue;  // an older run that measured something else
      Rounds r = keep(h->rounds);
      if (!r.empty())
        hist.push_back({run, std::move(r), ReportedNoiseOf(*h), CpuOf(*h, runs_[run]), SummaryIsMean(*h),
                        UnusableSpreadOf(*h)});
    }
    std::vector<Indexed> cur;
    if (Rounds r = keep(w.rounds); !r.empty()) {
      cur.push_back({primary_run_, std::move(r), ReportedNoiseOf(w), CpuOf(w, PrimaryRun()), SummaryIsMean(w),
                     UnusableSpreadOf(w)});
      for (const auto& [run, c] : confirmations_) {
        Rounds rc = keep(c->rounds);
        if (!rc.empty())
          cur.push_back({run, std::move(rc), ReportedNoiseOf(*c), CpuOf(*c, current_runs_[run]), SummaryIsMean(*c),
                         UnusableSpreadOf(*c)});
      }
    }
    int time_index = static_cast<int>(pending_.size());
    bool throttled_current = w.throttled;
    for (const auto& c : confirmations_) throttled_current |= c.second->throttled;
    if (deterministic) {
      AddDeterministic(Primary(w), hist, cur);
      if (is_static) DescribeCodeChange(w, *ref, &pending_.back().mv);
    } else {
      std::vector<Indexed> mean_hist, mean_cur;
      const bool as_means = ReadAllAsMeans(hist, cur, &mean_hist, &mean_cur);
      AddStatistical(Primary(w), as_means ? mean_hist : hist, as_means ? mean_cur : cur,
                     HasTimeMetric(w) ? Family::kTime : Family::kOther, throttled_current, ref->throttled);
      if (pending_[time_index].units) pending_[time_index].units->domain = ClockDomainOf(w);
      if (options_.plots) pending_[time_index].mv.plot = MakePlot(hist, cur);
      if (HasTimeMetric(w)) {
        std::vector<const WorkloadResult*> current_side{&w};
        for (const auto& c : confirmations_) current_side.push_back(c.second);
        pending_[time_index].cycle_ratio = CycleRatio(current_side, *ref);
      }
    }
    // Throughput: derived from time, so it shares time's test (not a second
    // hypothesis in the FDR family).
    auto tp = [](const WorkloadResult& x) {
      return x.bytes_per_second ? x.bytes_per_second : x.flops_per_second;
    };
    if (HasTimeMetric(w) && !deterministic && tp(w) && tp(*ref) &&
        (w.bytes_per_second.has_value() == ref->bytes_per_second.has_value())) {
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

  static bool IsStatic(const WorkloadResult& w) { return IsStaticResult(w); }

  // A metric that is no timing (a count, a size: Family::kOther) reads one
  // value because it is exact, not through a coarse timer: its flat values
  // are a zero-width interval, and a size that never moved and then grew
  // 20% is a regression (LogShift::no_scatter). So do levels read as the
  // rounds' Harrell-Davis medians that still tie (Units::levels_smoothed):
  // their values scatter off any grid, so no timer rounded them, and rounds
  // of 100,000 samples, 60% on one value, have that value as their median
  // with no doubt (a +25% of all of them read "no spread" and passed).
  static LogShift Flat(Family family, const Units& u, LogShift s) {
    return family == Family::kOther || u.levels_smoothed ? ExactWhenFlat(s) : s;
  }

  // The report's pictures of a tested primary metric: both sides' samples
  // by round (thinned to bounded size), each run's level and the change
  // points among them.
  MetricPlot MakePlot(const std::vector<Indexed>& hist, const std::vector<Indexed>& cur) const {
    MetricPlot plot;
    auto add_rounds = [](const Rounds& rounds, std::vector<std::vector<double>>* out) {
      for (const std::vector<double>& round : rounds) {
        if (out->size() >= kPlotRounds) return;
        std::vector<double> sorted = round;
        std::sort(sorted.begin(), sorted.end());
        if (sorted.size() > kPlotValuesPerRound) {
          std::vector<double> kept;
          for (size_t i = 0; i < kPlotValuesPerRound; ++i)
            kept.push_back(sorted[i * (sorted.size() - 1) / (kPlotValuesPerRound - 1)]);
          sorted = std::move(kept);
        }
        out->push_back(std::move(sorted));
      }
    };
    if (!hist.empty()) add_rounds(hist.back().rounds, &plot.baseline_rounds);
    for (const Indexed& c : cur) add_rounds(c.rounds, &plot.current_rounds);
    const size_t first = hist.size() + 1 > kPlotHistoryRuns ? hist.size() + 1 - kPlotHistoryRuns : 0;
    for (size_t i = first; i < hist.size(); ++i)
      plot.history.push_back({RunLabel(runs_[static_cast<size_t>(hist[i].run)].run), MedianOf(hist[i].rounds), false});
    if (!cur.empty())
      plot.history.push_back({RunLabel(current_runs_[static_cast<size_t>(cur.front().run)].run),
                              MedianOf(cur.front().rounds), true});
    if (plot.history.size() >= 6) {
      std::vector<double> logs;
      for (const MetricPlot::RunLevel& r : plot.history) logs.push_back(std::log(std::max(r.level, 1e-300)));
      for (const ChangePoint& c : DetectChangePoints(logs))
        plot.change_points.push_back(static_cast<int64_t>(c.index));
    }
    return plot;
  }



  // A static workload's primary verdict also says whether the code changed:
  // unchanged with reason code_unchanged when every kernel holds the
  // baseline's SASS; otherwise the sentence names the kernels that changed.
  static void DescribeCodeChange(const WorkloadResult& w, const WorkloadResult& ref, MetricVerdict* mv) {
    if (SameStaticCode(w, ref)) {
      if (mv->verdict == Verdict::kUnchanged) {
        mv->reason = Reason::kCodeUnchanged;
        mv->sentence = "code unchanged: all " + std::to_string(w.kernels.size()) +
                       " kernels hold the baseline's SASS (same hash)";
      }
      return;
    }
    std::map<std::string, std::string> base;
    for (const KernelResult& k : ref.kernels)
      if (auto it = k.attributes.find(kSassHashAttribute); it != k.attributes.end()) base[k.name] = it->second;
    std::map<std::string_view, const KernelResult*> base_kernel;
    for (const KernelResult& k : ref.kernels) base_kernel[k.name] = &k;
    std::vector<std::string> changed, resources;
    size_t added = 0;
    std::set<std::string> current_names;
    for (const KernelResult& k : w.kernels) {
      current_names.insert(k.name);
      auto it = k.attributes.find(kSassHashAttribute);
      auto b = base.find(k.name);
      if (b == base.end()) ++added;
      if (b != base.end() && (it == k.attributes.end() || it->second != b->second)) changed.push_back(k.name);
      else if (auto bk = base_kernel.find(k.name); bk != base_kernel.end() && !SameKernelResources(*bk->second, k))
        resources.push_back(k.name);
    }
    size_t removed = 0;
    for (const KernelResult& k : ref.kernels) removed += current_names.count(k.name) == 0;
    const std::string list = FirstNames(changed);
    // SASS that one of the binaries holds but was not read: what was read
    // may be the same, the rest is not known to be.
    double unread = 0;
    for (const WorkloadResult* r : {&w, &ref})
      if (auto it = r->counters.find(kSassNotInspectedCounter); it != r->counters.end()) unread += it->second;
    if (changed.empty() && unread > 0) {
      mv->sentence += "; the code is not known to be unchanged: " + Fmt("%.0f", unread) +
                      " SASS entr" + (unread == 1 ? "y" : "ies") + " of the binaries could not be read (their notes say why)";
      return;
    }
    const std::string moved = std::to_string(added) + " kernel" + (added == 1 ? "" : "s") +
                              " not in the baseline and " + std::to_string(removed) + " no longer in the binary";
    if (changed.empty() && added + removed > 0) {
      mv->sentence += "; the kernels differ: " + moved;
      return;
    }
    if (changed.empty() && !resources.empty()) {
      const std::string names = FirstNames(resources);
      mv->sentence += "; each kernel's own SASS is the baseline's, but beside it " + std::to_string(resources.size()) +
                      " of " + std::to_string(w.kernels.size()) + " kernels changed" +
                      (names.empty() ? "" : " (" + names + ")") +
                      ": their resources (shared memory, launch bounds, registers, occupancy), or the device "
                      "functions and constant data beside them, so the code is not unchanged";
      return;
    }
    mv->sentence += "; code changed in " + std::to_string(changed.size()) + " of " +
                    std::to_string(w.kernels.size()) + " kernels" + (list.empty() ? "" : " (" + list + ")");
    if (added + removed > 0) mv->sentence += "; " + moved;
  }

  // Per kernel, each run contributes one summary (median per call, see
  // kernel_summary.h) with its within-run spread as reported noise: two
  // files are one run per side (a t on the two summaries plus the noise
  // between runs that the other kernels show), a history judges the current
  // run's summary against the runs' (docs/kernels.md).
  void CompareKernels(const WorkloadResult& w, const WorkloadResult& ref,
                      const std::vector<std::pair<int, const WorkloadResult*>>& history) {
    // Kernels by name, one index per run: a trace may hold 100,000 kernels,
    // and a scan per lookup made the comparison quadratic.
    std::map<const WorkloadResult*, std::unordered_map<std::string_view, const KernelResult*>> indexes;
    auto find = [&indexes](const WorkloadResult& x, const std::string& name) -> const KernelResult* {
      auto [it, fresh] = indexes.try_emplace(&x);
      if (fresh) {
        it->second.reserve(x.kernels.size());
        for (const auto& k : x.kernels) it->second.emplace(k.name, &k);  // the first of a name, as before
      }
      auto found = it->second.find(name);
      return found == it->second.end() ? nullptr : found->second;
    };
    // Each run's trace clock (RunClockStep), and each kernel's run's.
    std::map<const WorkloadResult*, double> run_steps;
    auto run_step = [&run_steps](const WorkloadResult& x) {
      auto [it, fresh] = run_steps.try_emplace(&x, 0.0);
      if (fresh) it->second = RunClockStep(x);
      return it->second;
    };
    std::unordered_map<const KernelResult*, double> owner_step;
    // Static kernels are not launched: only kernels that appear or vanish
    // are verdicts; their resources are the rules' (kernel.base_*).
    const bool is_static = IsStatic(w);
    for (const KernelResult& k : w.kernels) {
      std::string metric = "kernel:" + k.name;
      // New only when no baseline run launched it: a kernel the newest run
      // lacks but an older one has is compared with the runs that have it.
      bool in_baseline = find(ref, k.name) != nullptr;
      for (const auto& [run, h] : history) in_baseline = in_baseline || find(*h, k.name) != nullptr;
      if (!in_baseline) {
        Decided(Base(w, metric, true), Verdict::kNew, Reason::kNewKernel,
                is_static ? "kernel not in the baseline's binary" : "kernel not launched in the baseline");
        out_.new_kernels.push_back({w.name, k.name});
        continue;
      }
      if (is_static) continue;
      // The same kernel in every run involved, so all are summarized alike.
      std::vector<std::pair<int, const KernelResult*>> hist_k, cur_k{{primary_run_, &k}};
      owner_step[&k] = run_step(w);
      for (const auto& [run, h] : history)
        if (const KernelResult* hk = find(*h, k.name)) {
          hist_k.push_back({run, hk});
          owner_step[hk] = run_step(*h);
        }
      for (const auto& [run, c] : confirmations_)
        if (const KernelResult* ck = find(*c, k.name)) {
          cur_k.push_back({run, ck});
          owner_step[ck] = run_step(*c);
        }
      std::vector<const KernelResult*> all;
      for (const auto* list : {&hist_k, &cur_k})
        for (const auto& [run, kr] : *list) all.push_back(kr);
      const KernelStatistic statistic = ChooseKernelStatistic(all);
      // Each run's summary as a run of one round with one value.
      // A run whose calls of the kernel read 0 s (below the trace's
      // resolution) has no time to take a ratio of; it is counted apart.
      auto indexed = [statistic, &owner_step](const std::vector<std::pair<int, const KernelResult*>>& list,
                                              int64_t* instances, int* zero) {
        std::vector<Indexed> out;
        for (const auto& [run, kr] : list) {
          std::optional<KernelRunSummary> s = SummarizeKernelRun(*kr, statistic);
          if (!s) continue;
          if (!(s->value > 0)) {
            ++*zero;
            continue;
          }
          *instances = s->instances;  // of the newest (reference) run, or the current one
          // On its trace's clock: a kernel whose calls all read 10 us is on
          // a 1 us clock when the trace's other kernels show one.
          const double step = s->clock_step_s > 0 ? owner_step[kr] : 0.0;
          out.push_back({run, Rounds{{s->value}}, std::nullopt, {}, false, {}, step});
        }
        return out;
      };
      int64_t base_instances = 0, cur_instances = 0, unused = 0;
      int base_zero = 0, cur_zero = 0, more_zero = 0;
      const std::vector<std::pair<int, const KernelResult*>> first(cur_k.begin(), cur_k.begin() + 1);
      const std::vector<std::pair<int, const KernelResult*>> later(cur_k.begin() + 1, cur_k.end());
      std::vector<Indexed> hist = indexed(hist_k, &base_instances, &base_zero);
      std::vector<Indexed> cur = indexed(first, &cur_instances, &cur_zero);
      std::vector<Indexed> more = indexed(later, &unused, &more_zero);
      if ((hist.empty() && base_zero > 0) || (cur.empty() && cur_zero > 0)) {
        const bool base_side = hist.empty() && base_zero > 0;
        Decided(Base(w, metric, true), Verdict::kInconclusive, Reason::kTooFewSamples,
                std::string(base_side ? "the baseline's" : "the current run's") +
                    " calls of this kernel read 0 s per call (shorter than the trace's "
                    "resolution), so no ratio can be formed" +
                    (base_side && !cur.empty()
                         ? "; the current run reads " + FormatDuration(cur.front().rounds[0][0]) +
                               " per call"
                         : std::string()));
        continue;
      }
      if (!cur.empty()) cur.insert(cur.end(), more.begin(), more.end());
      bool throttled_current = w.throttled;
      for (const auto& c : confirmations_) throttled_current |= c.second->throttled;
      AddStatistical(Base(w, metric, true), hist, cur, Family::kKernel, throttled_current,
                     ref.throttled);
      Pending& p = pending_.back();
      if (history.size() >= 2 && hist_k.size() < history.size()) {
        p.history_runs_with = static_cast<int>(hist_k.size());
        p.history_runs = static_cast<int>(history.size());
      }
      p.kernel_statistic = statistic == KernelStatistic::kGroupMedianPerCall ? "size-weighted median"
                           : statistic == KernelStatistic::kMedianPerCall    ? "median"
                                                                              : "mean";
      p.mv.baseline_n = base_instances;
      p.mv.current_n = cur_instances;
      if (!p.units) continue;
      // Two files: one summary per side, judged against the noise between
      // runs that the other kernels' comparisons show.
      if (p.units->method == ShiftMethod::kThresholdOnly && hist.size() == 1 && cur.size() == 1) {
        p.units->method = ShiftMethod::kRunSummaries;
        p.units->base = {std::log(hist.front().rounds[0][0])};
        p.units->cur = {std::log(cur.front().rounds[0][0])};
        // A copy of a file has the same calls; two runs almost never do,
        // even where a long kernel's median call reads the same in both.
        const KernelResult& b = *hist_k.back().second;
        const KernelResult& c = *cur_k.front().second;
        p.units->records_differ = hist_k.size() != 1 || cur_k.size() != 1 || b.count != c.count ||
                                  b.total_s != c.total_s || b.durations_s != c.durations_s;
      }
      // A summary on a coarse clock is known to half a step either way: a
      // 4.5 us kernel's median reads 4 or 5 us (+25%) by the draw of one
      // call, however quiet the long kernels that measure the noise, and a
      // 2 us kernel that read 2 us in every run of a history and 3 us now
      // is no +50% [+50%, +50%].
      if (p.units->method == ShiftMethod::kRunSummaries ||
          p.units->method == ShiftMethod::kHistoryPrediction)
        AddClockSteps(hist, cur, &*p.units);
    }
    for (const KernelResult& bk : ref.kernels)
      if (find(w, bk.name) == nullptr) {
        Decided(Base(w, "kernel:" + bk.name, true), Verdict::kRemoved, Reason::kVanishedKernel,
                is_static ? "kernel in the baseline's binary but not in this one"
                          : "kernel launched in the baseline but not in the current run");
        out_.vanished_kernels.push_back({w.name, bk.name});
      }
  }

  // What the sentence says of the clock (LogShift::clock_*).
  static void CopyClock(const Units& u, LogShift* s) {
    s->clock_step_s = u.clock_step;
    s->clock_step_min_s = u.clock_step_min;
    s->clock_sides = u.clock_sides;
    s->clock_runs = u.clock_runs;
    s->runs = u.runs;
    s->clock_from_values = u.clock_from_values;
    s->levels_smoothed = u.levels_smoothed;
  }

  // Units::clock_* of a kernel's run summaries `hist` and `cur` (each run
  // one value on its Indexed::clock_step).
  static void AddClockSteps(const std::vector<Indexed>& hist, const std::vector<Indexed>& cur, Units* u) {
    if (u->clock_from_values) {  // a trace's clock replaces a grid read from the values
      u->clock_var = u->clock_var_base = u->clock_step = u->clock_step_min = 0;
      u->clock_sides = 0;
      u->clock_coarse = u->clock_from_values = false;
    }
    double side_var[2] = {0, 0};
    for (int side = 0; side < 2; ++side) {
      const std::vector<Indexed>& runs = side == 0 ? hist : cur;
      for (const Indexed& r : runs) {
        ++u->runs;
        if (!(r.clock_step > 0)) continue;
        const double half = 0.5 * r.clock_step / r.rounds[0][0];
        side_var[side] += half * half / static_cast<double>(runs.size());
        u->clock_step = std::max(u->clock_step, r.clock_step);
        u->clock_step_min = u->clock_step_min > 0 ? std::min(u->clock_step_min, r.clock_step) : r.clock_step;
        ++u->clock_runs;
        u->clock_sides |= 1 << side;
        u->clock_coarse = u->clock_coarse || half >= kCoarseHalfStep;
      }
    }
    u->clock_var_base = side_var[0];
    u->clock_var = side_var[0] + side_var[1];
  }

  // A deterministic primary metric (a count): the current value against the
  // newest baseline's on the policy threshold alone, as for peak memory.
  // There is no noise to test; a zero baseline makes any increase infinite.
  void AddDeterministic(MetricVerdict mv, const std::vector<Indexed>& hist,
                        const std::vector<Indexed>& cur) {
    if (hist.empty() || cur.empty()) {
      Decided(std::move(mv), Verdict::kInconclusive, Reason::kTooFewSamples,
              "no valid values on one side");
      return;
    }
    Rounds all;
    for (const Indexed& r : cur) all.insert(all.end(), r.rounds.begin(), r.rounds.end());
    const double base = MedianOf(hist.back().rounds);
    const double current = MedianOf(all);
    mv.baseline_value = base;
    mv.current_value = current;
    mv.baseline_n = CountSamples(hist.back().rounds);
    mv.current_n = CountSamples(all);
    mv.baseline_rounds = static_cast<int64_t>(hist.back().rounds.size());
    mv.current_rounds = static_cast<int64_t>(all.size());
    const double ratio = base > 0 ? current / base
                         : current > 0 ? std::numeric_limits<double>::infinity()
                                       : 1.0;
    ThresholdVerdict(&mv, ratio,
                     mv.metric + " is deterministic (the same code gives the same value), so it "
                                 "is judged on the threshold alone, without a test");
    mv.reason = Reason::kDeterministic;
    Pending p;
    p.mv = std::move(mv);
    p.decided = true;
    pending_.push_back(std::move(p));
  }

  void AddStatistical(MetricVerdict mv, const std::vector<Indexed>& hist,
                      const std::vector<Indexed>& cur, Family family, bool throttled_current,
                      bool throttled_baseline) {
    Pending p;
    p.family = family;
    p.throttled_current = throttled_current;
    p.throttled_baseline = throttled_baseline;
    if (!hist.empty()) {
      mv.baseline_value = MedianOf(hist.back().rounds);
      mv.baseline_n = CountSamples(hist.back().rounds);
      mv.baseline_rounds = static_cast<int64_t>(hist.back().rounds.size());
      if (hist.size() >= 2 && !options_.paired)
        mv.baseline_history_runs = static_cast<int64_t>(hist.size());
    }
    if (!cur.empty()) {
      Rounds all;
      for (const Indexed& r : cur) all.insert(all.end(), r.rounds.begin(), r.rounds.end());
      mv.current_value = MedianOf(all);
      mv.current_n = CountSamples(all);
      mv.current_rounds = static_cast<int64_t>(all.size());
    }
    p.units = MakeUnits(hist, cur, options_.paired);
    // Times on a timer's grid; a count or a rate whose medians tie while
    // its values scatter is read by its rounds' Harrell-Davis medians (one
    // whose values all read one value is exact: ExactWhenFlat). Kernels of
    // a trace have their clock (AddClockSteps).
    if (p.units && family != Family::kKernel) {
      const bool time = family == Family::kTime;
      if (p.units->method == ShiftMethod::kHistoryPrediction)
        AddValueSteps(hist, cur, time, &*p.units);
      else if (p.units->method == ShiftMethod::kRoundsWelch)
        AddValueSteps(std::span<const Indexed>(&hist.back(), 1), cur, time, &*p.units);
    }
    p.mv = std::move(mv);
    if (!p.units) {
      p.mv.verdict = Verdict::kInconclusive;
      p.mv.reason = Reason::kTooFewSamples;
      p.mv.sentence = "no valid samples on one side";
      p.decided = true;
    }
    pending_.push_back(std::move(p));
  }

  // ---- Estimation -------------------------------------------------------

  std::vector<size_t> Members(Family family, ShiftMethod method) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& p = pending_[i];
      if (p.family == family && p.units && !p.decided && !p.common && p.units->method == method)
        out.push_back(i);
    }
    return out;
  }

  std::vector<size_t> OneRunMembers(Family family) const {
    std::vector<size_t> a = Members(family, ShiftMethod::kRoundsWelch);
    std::vector<size_t> b = Members(family, ShiftMethod::kSamplesHodgesLehmann);
    std::vector<size_t> c = Members(family, ShiftMethod::kReportedNoise);
    std::vector<size_t> d = Members(family, ShiftMethod::kRunSummaries);
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    a.insert(a.end(), d.begin(), d.end());
    std::sort(a.begin(), a.end());
    return a;
  }

  void Estimate(Family family) {
    const double conf = policy_.defaults.confidence;
    EstimateHistory(family, conf);
    EstimateOneRunPerSide(family, conf);
    for (size_t i : Members(family, ShiftMethod::kPairedRounds))
      pending_[i].shift = PairedRounds(pending_[i].units->cur, conf);
    for (size_t i : Members(family, ShiftMethod::kThresholdOnly)) {
      const Units& u = *pending_[i].units;
      LogShift s;
      s.method = ShiftMethod::kThresholdOnly;
      s.confidence = conf;
      s.estimate = u.log_ratio;
      s.ci_low = s.ci_high = s.estimate;
      s.p_value = kNaN;
      s.baseline_units = s.current_units = 1;
      pending_[i].shift = s;
    }
  }

  // History: remove each run's speed factor (median polish over the family),
  // moderate the run-level variances, t on run levels, then judge against
  // the reference that identical-code runs of this history follow.
  void EstimateHistory(Family family, double conf) {
    std::vector<size_t> members = Members(family, ShiftMethod::kHistoryPrediction);
    if (members.empty()) return;
    // Each clock domain's run speed factors on its own (Units::domain).
    const auto domains = ByDomain(members);
    std::map<size_t, bool> factor_removed;  // member -> its domain's factor was removed
    std::vector<FactorColumn> time_columns;
    std::vector<std::pair<std::string, std::vector<FactorColumn>>> common_shifts;
    std::vector<std::vector<size_t>> common_members;  // each common shift's workloads
    for (const auto& [domain, group] : domains) {
      std::vector<FactorColumn> columns;
      const bool removed = RemoveHistoryRunFactors(family, group, &columns);
      for (FactorColumn& c : columns) c.domain = domain;
      for (size_t m : group) factor_removed[m] = removed;
      if (family == Family::kTime) time_columns.insert(time_columns.end(), columns.begin(), columns.end());
      if (removed) {
        common_shifts.push_back({CommonWorkloadName(domain, domains.size()), std::move(columns)});
        common_members.push_back(group);
      }
    }
    if (family == Family::kTime && !time_columns.empty()) time_columns_ = std::move(time_columns);
    // Each run's noise against the history's typical run (time only: a
    // busier machine state scatters every workload of the process).
    const RunNoiseScales noise = family == Family::kTime ? MeasureRunNoise(members) : RunNoiseScales{};
    std::vector<std::vector<double>> hist_scales(members.size());
    for (size_t m = 0; m < members.size(); ++m) {
      const Units& u = *pending_[members[m]].units;
      if (noise.history.empty()) continue;
      for (int run : u.base_run) {
        const auto it = noise.history.find(run);
        hist_scales[m].push_back(it == noise.history.end() ? 1.0 : it->second);
      }
    }
    std::vector<double> run_var, run_df;
    for (size_t m = 0; m < members.size(); ++m) {
      const Units& u = *pending_[members[m]].units;
      double df = 0;
      // Levels tied on a timer's grid are no draw of the run-level variance.
      if (u.clock_from_values) continue;
      run_var.push_back(PooledRunVariance(u.base, u.cur, &df, hist_scales[m]));
      run_df.push_back(df);
    }
    const VariancePrior prior = EstimateVariancePrior(run_var, run_df);
    const Calibration ref = HistoryReference(members, hist_scales, prior);
    const double current_scale = noise.current;
    WarnWidenedByCurrentRun(noise);
    for (size_t m = 0; m < members.size(); ++m) {
      const Units& u = *pending_[members[m]].units;
      LogShift s = Flat(family, u, HistoryPrediction(u.base, u.cur, u.current_rounds, conf, prior,
                                                  current_scale, hist_scales[m]));
      s.common_factor_removed = factor_removed[members[m]];
      s = Calibrated(s, ref);
      if (factor_removed[members[m]])
        s = WithUnknownRunFactor(s, pending_[members[m]].unknown_factor_var, pending_[members[m]].unknown_factor_df);
      s = WithClockSteps(s, u.clock_var);
      CopyClock(u, &s);
      pending_[members[m]].shift = s;
    }
    for (size_t c = 0; c < common_shifts.size(); ++c) {
      const int index = static_cast<int>(pending_.size());
      AddCommonShift(family, common_shifts[c].second, conf, common_shifts[c].first);
      for (size_t m : common_members[c]) pending_[m].common_index = index;
    }
  }

  // `members` grouped by clock domain (Units::domain), the host's first.
  std::vector<std::pair<std::string, std::vector<size_t>>> ByDomain(
      const std::vector<size_t>& members) const {
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t m : members) groups[pending_[m].units->domain].push_back(m);
    return {groups.begin(), groups.end()};
  }

  // The workload name of a domain's common shift: "(suite)", or, when the
  // family holds workloads of several clock domains, "(suite: gpu)" or
  // "(suite: gpu N)" for a device's (IsCommonWorkload).
  static std::string CommonWorkloadName(const std::string& domain, size_t domains) {
    return domains > 1 && !domain.empty() ? "(suite: " + domain + ")" : kCommonWorkload;
  }

  // History: each run's speed factor over `members` (one clock domain) by
  // median polish, removed from their run levels when the history shows a
  // common factor. `columns_out` receives the factor table's columns.
  // Returns whether the factors were removed.
  bool RemoveHistoryRunFactors(Family family, const std::vector<size_t>& members,
                               std::vector<FactorColumn>* columns_out) {
    RunFactors factors;
    // Columns of the factor table: one per run, or one per (run, CPU model)
    // when a merged run's shards ran on different CPU models, so each CPU's
    // workloads get their own speed factor.
    std::vector<FactorColumn> columns;
    std::map<std::tuple<bool, int, std::string>, int> column_of;
    auto column = [&](bool current, int run, const std::string& cpu) {
      const std::string key_cpu = cpu_mixed_ ? cpu : std::string();
      auto [it, fresh] = column_of.emplace(std::make_tuple(current, run, key_cpu), static_cast<int>(columns.size()));
      if (fresh) columns.push_back({current, run, cpu, 0.0, false, std::string()});
      return it->second;
    };
    std::vector<std::vector<int>> base_col(members.size()), cur_col(members.size());
    for (size_t m = 0; m < members.size(); ++m) {
      const Units& u = *pending_[members[m]].units;
      for (size_t j = 0; j < u.base.size(); ++j) base_col[m].push_back(column(false, u.base_run[j], u.base_cpu[j]));
      for (size_t j = 0; j < u.cur.size(); ++j) cur_col[m].push_back(column(true, u.cur_run[j], u.cur_cpu[j]));
    }
    bool remove = family == Family::kTime &&
                  members.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor);
    if (remove) {
      std::vector<std::vector<double>> table(members.size(), std::vector<double>(columns.size(), kNaN));
      for (size_t m = 0; m < members.size(); ++m) {
        const Units& u = *pending_[members[m]].units;
        for (size_t j = 0; j < u.base.size(); ++j) table[m][base_col[m][j]] = u.base[j];
        // A workload that a later current run holds first (the first run
        // lacks it) does not fit that run's factor: the factor of a later
        // run is read from the workloads it repeats, so a change to all of
        // its own workloads is not taken for its speed. Across CPU models a
        // run's part on each CPU is fitted as a merged run's is.
        for (size_t j = 0; j < u.cur.size(); ++j)
          if (j > 0 || u.cur_run[0] == 0 || cpu_mixed_) table[m][cur_col[m][j]] = u.cur[j];
      }
      std::vector<bool> fit(columns.size(), false), whole_run_part(columns.size(), false);
      for (size_t c = 0; c < columns.size(); ++c) {
        fit[c] = !columns[c].current;
        // A part of the current run (its workloads on one CPU model), not a
        // re-run of a few doubtful workloads or a later run of a few others.
        whole_run_part[c] = columns[c].current && columns[c].run == 0;
      }
      factors = PolishRunFactors(table, fit, 0.5, &whole_run_part);
      // Only a factor the history shows: with independent noise, removing
      // one would only add the median's noise to every comparison. Runs on
      // different CPU models of one class always differ in speed.
      remove = factors.common || cpu_mixed_;
      for (size_t c = 0; c < columns.size(); ++c) {
        columns[c].factor = factors.factor[c];
        columns[c].known = factors.estimated[c];
      }
    }
    if (remove) {
      // A workload none of whose current runs has a factor (a later run of
      // workloads the first lacks, repeating too few of the first's) keeps
      // its current values as measured: the history's spread of run speeds
      // joins its comparison, with the tails of one draw (1 df). A run
      // speed nobody measured is not bounded by the history's ten: a runner
      // 15% slower than any history run would otherwise read as a
      // regression of every workload it holds, where the suite's common
      // shift, judged on the same speeds, stays undecided.
      int fitted_runs = 0;
      for (size_t c = 0; c < columns.size(); ++c) fitted_runs += !columns[c].current && factors.estimated[c];
      for (size_t m = 0; m < members.size(); ++m) {
        bool known = false;
        for (int c : cur_col[m]) known = known || factors.estimated[static_cast<size_t>(c)];
        if (!known && !cur_col[m].empty() && fitted_runs >= 3) {
          pending_[members[m]].unknown_factor_var = factors.factor_variance;
          pending_[members[m]].unknown_factor_df = 1;
        }
      }
      // Each history cell's residual, per column, for the factor of its run
      // fitted without it: the median of the others' residuals moves that
      // factor (Units::base_own_out).
      std::vector<std::vector<std::pair<double, size_t>>> by_column(columns.size());
      for (size_t m = 0; m < members.size(); ++m) {
        const Units& u = *pending_[members[m]].units;
        for (size_t j = 0; j < u.base.size(); ++j) {
          const int c = base_col[m][j];
          if (!factors.estimated[c] || !std::isfinite(factors.level[m])) continue;
          by_column[c].push_back({u.base[j] - factors.level[m] - factors.factor[c], m});
        }
      }
      // Each member's place in each sorted column (-1: no cell there).
      std::vector<std::vector<int>> place(columns.size());
      for (size_t c = 0; c < columns.size(); ++c) {
        std::sort(by_column[c].begin(), by_column[c].end());
        if (by_column[c].empty()) continue;
        place[c].assign(members.size(), -1);
        for (size_t at = 0; at < by_column[c].size(); ++at) place[c][by_column[c][at].second] = static_cast<int>(at);
      }
      // The median of a sorted column without the element at `at`.
      auto median_without = [](const std::vector<std::pair<double, size_t>>& col, size_t at) {
        const size_t n = col.size() - 1;
        auto rank = [&](size_t k) { return col[k < at ? k : k + 1].first; };
        return n % 2 == 1 ? rank(n / 2) : 0.5 * (rank(n / 2 - 1) + rank(n / 2));
      };
      for (size_t m = 0; m < members.size(); ++m) {
        Units& u = *pending_[members[m]].units;
        u.base_own_out.assign(u.base.size(), kNaN);
        for (size_t j = 0; j < u.base.size(); ++j) {
          const int c = base_col[m][j];
          const auto& col = by_column[static_cast<size_t>(c)];
          double moved = 0;
          if (col.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor) + 1 && place[c][m] >= 0)
            moved = median_without(col, static_cast<size_t>(place[c][m]));
          u.base_own_out[j] = u.base[j] - factors.factor[c] - moved;
        }
        for (size_t j = 0; j < u.base.size(); ++j) u.base[j] -= factors.factor[base_col[m][j]];
        for (size_t j = 0; j < u.cur.size(); ++j) u.cur[j] -= factors.factor[cur_col[m][j]];
      }
    }
    *columns_out = std::move(columns);
    return remove;
  }

  // Each history run predicted from the others as a current run would be:
  // the others weighted by their noise scales, the left-out run's own scale
  // on its share.
  Calibration HistoryReference(const std::vector<size_t>& members,
                               const std::vector<std::vector<double>>& hist_scales,
                               const VariancePrior& prior) const {
    std::vector<double> t;
    std::vector<double> dfs;
    std::vector<double> rest, rest_scales;
    for (size_t m = 0; m < members.size(); ++m) {
      const Units& u = *pending_[members[m]].units;
      const std::vector<double>& scales = hist_scales[m];
      const size_t k = u.base.size();
      // Kernels of 100 us or less on a whole-microsecond clock move by whole
      // steps: their statistics, deflated by the clock's half step or
      // inflated by a one-step flip against runs that all tied, are no
      // draws of the noise between runs (with them, a 92 us kernel's
      // interval tripled on synthetic histories), as with one run per side.
      if (k < 3 || u.clock_coarse || u.clock_from_values) continue;
      for (size_t left = 0; left < k; ++left) {
        rest.clear();
        rest_scales.clear();
        for (size_t j = 0; j < k; ++j) {
          if (j == left) continue;
          rest.push_back(u.base[j]);
          if (!scales.empty()) rest_scales.push_back(scales[j]);
        }
        double weight_sum = 0;
        const double mean = WeightedRunMean(rest, rest_scales, &weight_sum);
        const double rest_df = static_cast<double>(rest.size()) - 1;
        const double raw = WeightedRunSumSquares(rest, rest_scales) / rest_df;
        const VariancePrior rest_prior = PriorFor(prior, raw, rest_df);
        const double var = ModerateVariance(rest_prior, raw, rest_df);
        if (!(var > 0)) continue;
        const double own = scales.empty() ? 1.0 : std::max(1.0, scales[left]);
        // The left-out run's clock step and the rest's, as in the test.
        const double se = std::sqrt(var * (own + 1.0 / weight_sum) + 2 * u.clock_var_base);
        // The left-out run with its factor fitted without this workload, as
        // a current run's factor is fitted without the history's cells.
        const double left_value = u.base_own_out.size() == k && std::isfinite(u.base_own_out[left])
                                      ? u.base_own_out[left]
                                      : u.base[left];
        t.push_back(std::fabs(left_value - mean) / se);
        dfs.push_back(static_cast<double>(rest.size()) - 1 + rest_prior.d0);
      }
    }
    return CalibrateReference(t, dfs, /*shared_draws=*/true);
  }

  // How much more each run scatters around the workloads' levels than the
  // history's typical run does: the median absolute residual across the
  // family, per run (a run on a busier machine state scatters every workload
  // more), over the median of the history runs', discounted by one standard
  // error of such a median (~1.17/sqrt(m) relative) so chance alone does not
  // count. `current` is the current runs' variance scale (one value for all
  // of them): that ratio squared, at least 1. `history` is each history
  // run's, by run index, for weighting the history (below). Needs
  // kMinWorkloadsForRunFactor workloads in a run to be read.
  struct RunNoiseScales {
    std::map<int, double> history;
    double current = 1.0;
    // What the current scale was read from (for the warning that says why
    // every comparison widened): the current runs' median absolute residual,
    // the history's typical run's, and the current runs' median signed
    // residual (a shift of most workloads together).
    double current_mad = 0, typical_mad = 0;
    std::vector<double> current_residuals;  // signed, every current run's
  };
  RunNoiseScales MeasureRunNoise(const std::vector<size_t>& members) const {
    RunNoiseScales out;
    if (members.size() < static_cast<size_t>(kMinWorkloadsForRunFactor)) return out;
    // Residuals around each workload's level, by (run, clock domain). On a
    // GPU's clock a shift of every kernel in a run is the run's offset, not
    // its scatter, and is taken out before the scatter is read: a GPU's
    // speed is its clocks, which the runs record and check (throttling,
    // clock mismatch), so the same clock running every kernel slower is the
    // code (a change that slows every kernel, against a history whose GPU
    // clock never moved and so gave the kernels no speed factor). The host's
    // speed moves with its load: a busier host that shifts every workload
    // in a way the history never showed stays scatter, and widens the run.
    std::map<std::pair<int, std::string>, std::vector<double>> hist_res, cur_res;
    std::vector<double> buf;
    for (size_t m : members) {
      const Units& u = *pending_[m].units;
      if (u.clock_from_values) continue;  // tied on a timer's grid: no scatter of the run's
      buf.assign(u.base.begin(), u.base.end());
      const double level = MedianInPlace(buf);
      for (size_t j = 0; j < u.base.size(); ++j) hist_res[{u.base_run[j], u.domain}].push_back(u.base[j] - level);
      // A current value with no speed factor removed (a later run of a few
      // workloads) carries its run's speed, not its scatter.
      // Nor does a workload a later run holds first: its change is the
      // question, not that run's scatter.
      if (pending_[m].unknown_factor_var > 0) continue;
      for (size_t j = 0; j < u.cur.size(); ++j)
        if (j > 0 || u.cur_run[0] == 0) cur_res[{u.cur_run[j], u.domain}].push_back(u.cur[j] - level);
    }
    std::map<int, std::vector<double>> hist, cur;
    auto scatter = [&buf](std::map<std::pair<int, std::string>, std::vector<double>>& res,
                          std::map<int, std::vector<double>>* out) {
      for (auto& [key, r] : res) {
        double offset = 0;
        if (!key.second.empty() && r.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor)) {
          buf.assign(r.begin(), r.end());
          offset = MedianInPlace(buf);
        }
        for (double x : r) (*out)[key.first].push_back(std::fabs(x - offset));
      }
    };
    scatter(hist_res, &hist);
    scatter(cur_res, &cur);
    std::map<int, double> hist_mad;
    for (auto& [run, r] : hist)
      if (r.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor)) hist_mad[run] = MedianInPlace(r);
    std::vector<double> c;
    for (auto& [run, r] : cur)
      if (r.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor)) c.push_back(MedianInPlace(r));
    for (const auto& [key, r] : cur_res)
      if (r.size() >= static_cast<size_t>(kMinWorkloadsForRunFactor))
        out.current_residuals.insert(out.current_residuals.end(), r.begin(), r.end());
    if (hist_mad.size() < 2) return out;
    std::vector<double> h;
    for (const auto& [run, mad] : hist_mad) h.push_back(mad);
    const double typical = MedianInPlace(h);
    if (!(typical > 0)) return out;
    const double discount = 1.0 + 1.166 / std::sqrt(static_cast<double>(members.size()));
    auto scale = [&](double mad) {
      const double ratio = mad / typical / discount;
      return std::max(1.0, ratio * ratio);
    };
    // A history run keeps its full weight up to twice the typical scatter
    // (beyond chance); past that its variance scale grows as (ratio / 2)^2,
    // Huber's weights for a scale: one odd process no longer widens every
    // comparison, and the ordinary spread of run noise stays in the history
    // (a current run drawn from it needs that spread as its reference).
    // Below 5 history runs the typical run is not known well enough to
    // weigh any against it.
    if (hist_mad.size() >= 5)
      for (const auto& [run, mad] : hist_mad) {
        const double ratio = mad / typical / discount;
        out.history[run] = std::max(1.0, (ratio / kRunNoiseHuberK) * (ratio / kRunNoiseHuberK));
      }
    if (!c.empty()) {
      out.current_mad = MedianInPlace(c);
      out.typical_mad = typical;
      out.current = scale(out.current_mad);
    }
    return out;
  }

  // A current run that scattered far more about the workloads' levels than
  // the history's runs widens every comparison (MeasureRunNoise). When it
  // widened them twofold or more, say so and why: a noisier machine, or a
  // change that moved many workloads (half of them slower alone reads as
  // scatter), which one current run cannot tell apart.
  void WarnWidenedByCurrentRun(const RunNoiseScales& noise) {
    if (noise.current < 4.0 || !(noise.typical_mad > 0)) return;
    char widened[32];
    std::snprintf(widened, sizeof widened, "%.1f", std::sqrt(noise.current));
    std::string text = "the current run's workloads deviated from their history levels by a median " +
                       FormatRoundedPercent(std::expm1(noise.current_mad)) + ", against " +
                       FormatRoundedPercent(std::expm1(noise.typical_mad)) +
                       " for the history's typical run, which widened every comparison " + widened + "x";
    // How many moved beyond the threshold each way, and by how much (the
    // median of those that did): "most moved together" only when most did.
    const double bar = std::log1p(policy_.defaults.threshold);
    std::vector<double> up, down;
    for (double r : noise.current_residuals) {
      if (r > bar) up.push_back(r);
      if (r < -bar) down.push_back(r);
    }
    const size_t all = noise.current_residuals.size();
    for (std::vector<double>* moved : {&up, &down}) {
      if (moved->size() * 4 < all) continue;  // fewer than a quarter: scatter
      const double by = std::expm1(MedianInPlace(*moved));
      text += "; " + std::to_string(moved->size()) + " of " + FormatCount(all, "workload result") + " moved " +
              (moved == &up ? "up" : "down") + (2 * moved->size() > all ? " together" : "") + " beyond the " +
              FormatThreshold(policy_.defaults.threshold) + " threshold (median " + FormatPercent(by) + ")";
    }
    text += ": a noisier or slower machine, or a change that moved many workloads, which one current run "
            "cannot tell apart; re-run the baseline's commit on this runner, or compare the two builds with "
            "gpugate ab";
    out_.warnings.push_back(text);
  }

  // One run per side: the family's own effects are the reference for the
  // noise between the runs. When many moved far beyond the rest, the
  // reference took their tail and nothing may be decided (a refactor that
  // moved a third of the suite reads as a pair of very noisy runs); say so,
  // and what would tell the two apart.
  void WarnManyMovedAtOnce(Family family, const std::vector<double>& abs_t, const Calibration& ref) {
    if (!ref.measured || !(ref.max_df < kHeavyTailDf)) return;
    constexpr double kFarBeyond = 8.0;  // P(|t_4| > 8) ~ 0.0013
    const auto far = static_cast<size_t>(
        std::count_if(abs_t.begin(), abs_t.end(), [](double t) { return t > kFarBeyond; }));
    if (far < 3 || 10 * far < abs_t.size()) return;
    char df[32];
    std::snprintf(df, sizeof df, "%.1f", ref.max_df);
    out_.warnings.push_back(std::string(FamilyName(family)) + ": " + OneRun() + ", and " + std::to_string(far) +
                            " of " + std::to_string(abs_t.size()) +
                            " comparisons lie more than 8 standard errors out even with the noise between runs added: the other "
                            "workloads are this pair's only measure of the noise between runs, so when this "
                            "many move the reference widens (to a t with " + df +
                            " degrees of freedom) and little can be decided; many changes and a very noisy pair "
                            "of runs look alike here, and a baseline history (gpugate baseline update) or "
                            "interleaved A/B (gpugate ab) tells them apart");
  }

  // One run per side in a family without a speed factor (kernels, other
  // metrics): the other comparisons are the only measure of the noise
  // between the runs, and a robust one holds while fewer than half of them
  // change. When half or more moved beyond the threshold one way, their
  // changes read as that noise: each changed one is left undecided (or, the
  // other way round, the unchanged ones read as unchanged against a noise
  // they do not show), and more changes can decide less than fewer did. Say
  // so in every report.
  void WarnHalfMovedAtOnce(Family family, const std::vector<size_t>& members, const std::vector<LogShift>& shifts,
                           const std::vector<size_t>& judged) {
    size_t slower = 0, faster = 0;
    for (size_t j : judged) {
      const MetricVerdict& mv = pending_[members[j]].mv;
      const double bad = (mv.lower_is_better ? 1.0 : -1.0) * shifts[j].estimate;
      const double limit = std::log1p(mv.threshold);
      slower += bad > limit;
      faster += bad < -limit;
    }
    const size_t moved = std::max(slower, faster);
    if (moved < 3 || 2 * moved < judged.size()) return;
    out_.warnings.push_back(std::string(FamilyName(family)) + ": " + OneRun() + ", and " + std::to_string(moved) +
                            " of " + std::to_string(judged.size()) + " comparisons moved beyond their threshold (" +
                            (slower >= faster ? "worse" : "better") +
                            "): the others are this pair's only measure of the noise between runs, and when half "
                            "or more change at once their change can read as that noise: changed ones may be left "
                            "undecided, and the verdicts here can depend on how many changed; a baseline history "
                            "(gpugate baseline update) or interleaved A/B (gpugate ab) judges each on its own");
  }

  static LogShift Calibrated(const LogShift& s, const Calibration& ref) {
    LogShift out = WithReference(s, ref.scale, ref.max_df);
    out.heavy_tailed = ref.max_df < s.df;
    return out;
  }

  // The family's common shift: the current runs' speed factors against the
  // history's (a t on run factors). It is one more hypothesis: a change that
  // slows every workload alike is invisible once factors are removed.
  void AddCommonShift(Family family, const std::vector<FactorColumn>& columns, double conf,
                      const std::string& name) {
    std::vector<double> hist, cur;
    // Across CPU models a whole-suite shift is the CPUs' speed: only history
    // runs on the current run's CPU model say what its factor should be.
    const std::string& cpu = current_.run.env.cpu_model;
    for (const FactorColumn& c : columns) {
      if (!c.known || (cpu_mixed_ && c.cpu != cpu)) continue;
      (c.current ? cur : hist).push_back(c.factor);
    }
    Pending p;
    p.family = family;
    p.common = true;
    p.mv = Base(name, "time", true);
    if (hist.size() >= 2) p.mv.baseline_history_runs = static_cast<int64_t>(hist.size());
    p.mv.current_rounds = static_cast<int64_t>(cur.size());
    if (hist.size() < 2 || cur.empty()) {
      p.mv.verdict = Verdict::kInconclusive;
      p.mv.reason = Reason::kNoReplication;
      p.mv.sentence = cpu_mixed_
                          ? "a shift common to all workloads needs run speed factors of at least 2 "
                            "history runs on the current run's CPU model (" +
                                current_.run.env.cpu_model + ") and of a current run covering most workloads"
                          : "a shift common to all workloads needs run speed factors of at least 2 "
                            "history runs and of a current run covering most workloads";
      p.decided = true;
      pending_.push_back(std::move(p));
      return;
    }
    // The workloads' calibration describes workloads, not run factors: the
    // factors get the prior reference alone.
    LogShift s = HistoryPrediction(hist, cur, static_cast<int>(cur.size()), conf);
    p.shift = Calibrated(s, Calibration{});
    pending_.push_back(std::move(p));
  }

  // One run per side: remove the common speed factor (median shift of the
  // family), then give each workload the between-run noise the OTHER
  // workloads show (leave one out: a workload's own change cannot widen its
  // own interval) and judge it against a heavy-tailed reference.
  void EstimateOneRunPerSide(Family family, double conf) {
    std::vector<size_t> members = OneRunMembers(family);
    if (members.empty()) return;
    std::vector<double> round_var, round_df;
    for (size_t m : members) {
      const Units& u = *pending_[m].units;
      if (u.method != ShiftMethod::kRoundsWelch) continue;
      if (u.clock_from_values) continue;  // tied on a timer's grid: no draw of the rounds' variance
      round_var.push_back(SampleVariance(u.base));
      round_df.push_back(static_cast<double>(u.base.size()) - 1);
      round_var.push_back(SampleVariance(u.cur));
      round_df.push_back(static_cast<double>(u.cur.size()) - 1);
    }
    const VariancePrior round_prior = EstimateVariancePrior(round_var, round_df);
    // Each test on the current side moved by `offset` (log scale), so that the
    // estimate, its interval and its p-value all describe one comparison.
    auto test = [&](const Units& u, double offset) {
      std::vector<double> cur = u.cur;
      switch (u.method) {
        case ShiftMethod::kRoundsWelch:
          for (double& x : cur) x -= offset;
          return WithClockSteps(Flat(family, u, RoundsWelch(u.base, cur, conf, round_prior)), u.clock_var);
        case ShiftMethod::kReportedNoise:
          return ReportedNoise(u.base[0], u.base[1], u.base[2], u.cur[0] - offset, u.cur[1],
                               u.cur[2], conf);
        case ShiftMethod::kRunSummaries:
          return RunSummaries(u.base[0], u.cur[0] - offset, conf, u.clock_var);
        default:
          for (double& x : cur) x -= offset;
          return Flat(family, u, SamplesHodgesLehmann(u.base, cur, conf));
      }
    };
    // Each workload's raw shift; only the median of a clock's is needed
    // before the tests, so the location alone where that is cheap.
    auto location = [&](const Units& u) {
      switch (u.method) {
        case ShiftMethod::kRoundsWelch:
          return std::accumulate(u.cur.begin(), u.cur.end(), 0.0) / static_cast<double>(u.cur.size()) -
                 std::accumulate(u.base.begin(), u.base.end(), 0.0) / static_cast<double>(u.base.size());
        case ShiftMethod::kReportedNoise:
        case ShiftMethod::kRunSummaries:
          return u.cur[0] - u.base[0];
        default: {
          // The shift alone: the full test (interval, p-value) runs once
          // below, with the common factor removed.
          std::vector<double> b = u.base, c = u.cur;
          std::sort(b.begin(), b.end());
          std::sort(c.begin(), c.end());
          return HodgesLehmannEstimate(b, c);
        }
      }
    };
    std::vector<double> raw;
    for (size_t m : members) raw.push_back(location(*pending_[m].units));
    // Common speed factor of the two processes: removed from the current
    // side before each workload is tested (not from the finished estimate,
    // which would leave the p-value testing the unadjusted shift).
    // Each clock domain (Units::domain) with enough workloads gets its own.
    std::vector<double> offset(members.size(), 0.0);
    std::vector<bool> removed(members.size(), false);
    std::vector<std::pair<std::string, double>> commons;  // (common workload name, factor)
    std::vector<std::vector<size_t>> common_members;      // each common's workloads (pending indexes)
    const auto domains = ByDomain(members);
    for (const auto& [domain, group] : domains) {
      // Against a history these are the workloads one history run alone
      // holds: they wait for a second run of theirs (below), however many.
      if (family != Family::kTime || group.size() < static_cast<size_t>(kMinWorkloadsForRunFactor) ||
          runs_.size() > 1)
        continue;
      std::vector<double> d;
      for (size_t j = 0; j < members.size(); ++j)
        if (pending_[members[j]].units->domain == domain && std::isfinite(raw[j])) d.push_back(raw[j]);
      if (d.size() < static_cast<size_t>(kMinWorkloadsForRunFactor)) continue;
      const double common = Median(d);
      // The CPU models' speeds: base run 0 at factor 0, the current run at
      // the host's factor.
      if (cpu_mixed_ && (domain.empty() || domains.size() == 1))
        time_columns_ = {{false, 0, Reference().run.env.cpu_model, 0.0, true, domain},
                         {true, 0, current_.run.env.cpu_model, common, true, domain}};
      common_members.emplace_back();
      for (size_t j = 0; j < members.size(); ++j)
        if (pending_[members[j]].units->domain == domain) {
          offset[j] = common;
          removed[j] = true;
          common_members.back().push_back(members[j]);
        }
      commons.push_back({CommonWorkloadName(domain, domains.size()), common});
    }
    std::vector<LogShift> shifts;
    for (size_t j = 0; j < members.size(); ++j) {
      const Units& u = *pending_[members[j]].units;
      shifts.push_back(test(u, offset[j]));
      shifts[j].common_factor_removed = removed[j];
      // A tie of a coarse clock: two run summaries on whole microseconds
      // that read the same (an exact copy of a file ties too, and there the
      // ties are the noise: see CollectSuiteEffects).
      shifts[j].tied = u.clock_coarse && u.base == u.cur;
      shifts[j].records_differ = u.records_differ;
      shifts[j].clock_coarse = u.clock_coarse;
      CopyClock(u, &shifts[j]);
    }
    // Times of a clock with too few workloads for a speed factor: a slower
    // machine moves them all alike, which the spread among them cannot show
    // (4 workloads all +10% on a slower runner read as 4 regressions).
    if (family == Family::kTime) {
      std::map<std::string, int> unfactored;
      std::vector<std::string> names;
      for (size_t j = 0; j < members.size(); ++j)
        if (!removed[j] && TakesSuiteNoise(shifts[j])) {
          shifts[j].between_run_unmeasured = true;
          ++unfactored[pending_[members[j]].units->domain];
          names.push_back(pending_[members[j]].mv.workload);
        }
      // Against a history these are the workloads that one history run
      // alone holds (new in the newest run): the rest was judged.
      if (runs_.size() > 1 && !names.empty()) {
        const size_t n = names.size();
        const std::string listed = FirstNames(names);
        out_.warnings.push_back(std::string(FamilyName(family)) + ": " + std::to_string(n) + " workload" +
                                (n == 1 ? "" : "s") + " (" + listed + ") in only one run of the history" +
                                ": noise between runs cannot be measured for " + (n == 1 ? "it" : "them") +
                                ", so " + (n == 1 ? "it is" : "they are") +
                                " not judged until the history holds two of " + (n == 1 ? "its" : "their") +
                                " runs");
        unfactored.clear();
      }
      for (const auto& [domain, n] : unfactored)
        out_.warnings.push_back(
            std::string(FamilyName(family)) + ": " + OneRun() + " and " + std::to_string(n) +
            " workload" + (n == 1 ? "" : "s") + " timed on " +
            (domain.empty() ? std::string("the host") : domain) + ", fewer than the " +
            std::to_string(kMinWorkloadsForRunFactor) +
            " a speed factor of the machine needs: a slower machine and a change cannot be "
            "told apart, so nothing is judged; keep a baseline history (gpugate baseline "
            "update) or use interleaved A/B (gpugate ab)");
    }
    // The comparisons that measure and take the noise between the runs.
    std::vector<size_t> judged;
    for (size_t j = 0; j < shifts.size(); ++j)
      if (TakesSuiteNoise(shifts[j]) && !shifts[j].between_run_unmeasured) judged.push_back(j);
    const auto eligible = static_cast<std::ptrdiff_t>(judged.size());
    const int need = kMinSuiteForNoise + 1;  // the others, leaving one out
    if (eligible > 0 && eligible < need) {
      for (size_t j : judged) shifts[j].between_run_unmeasured = true;
      out_.warnings.push_back(
          std::string(FamilyName(family)) + ": " + OneRun() + " and " +
          std::to_string(eligible) + " comparison" + (eligible == 1 ? "" : "s") +
          ": noise between runs cannot be estimated, so nothing is judged; keep a baseline "
          "history (gpugate baseline update) or use interleaved A/B (gpugate ab)");
    } else if (eligible > 0) {
      if (family != Family::kTime) WarnHalfMovedAtOnce(family, members, shifts, judged);
      std::vector<LogShift> all = std::move(shifts);
      shifts.clear();
      for (size_t j : judged) shifts.push_back(all[j]);
      const bool between_run_noise = AddLeaveOneOutNoise(&shifts, family);
      // The family's own standardized effects are the identical-code
      // statistics of this pair of runs (most workloads did not change).
      // Without noise between the runs (the effects agree with the rounds'
      // scatter), there is no process-level noise to be heavy-tailed.
      std::vector<double> abs_t, dfs;
      // Comparisons that move by whole clock steps (ties and one-step flips
      // of short kernels) are no draws of the noise between runs: their |t|
      // of 0 or about 1.4 made the rest look Cauchy-tailed.
      for (const LogShift& s : shifts)
        if (TakesSuiteNoise(s) && s.se > 0 && !s.tied && !s.clock_coarse && !s.clock_from_values) {
          abs_t.push_back(std::fabs(s.estimate) / s.se);
          dfs.push_back(std::isfinite(s.df) ? s.df : 1e6);
        }
      if (!abs_t.empty() && between_run_noise) {
        // The heavy tails belong to the noise between the runs, not to the
        // rounds' own scatter: each comparison's reference blends the two by
        // the share w of its variance that is between-run noise,
        // 1/df = w/df_between + (1 - w)/df (as Satterthwaite blends variances).
        const Calibration ref = CalibrateReference(abs_t, dfs, /*shared_draws=*/false);
        WarnManyMovedAtOnce(family, abs_t, ref);
        for (LogShift& s : shifts) {
          if (!TakesSuiteNoise(s) || !(s.se > 0)) continue;
          // Without enough statistics to measure the family (ref.measured
          // false), nothing says the rounds' share is safe: the prior alone.
          const double w = ref.measured
                               ? std::clamp(s.between_run_var / (s.se * s.se), 0.0, 1.0)
                               : 1.0;
          Calibration blended = ref;
          blended.max_df = 1.0 / (w / ref.max_df + (1.0 - w) / std::max(1.0, s.df));
          s = Calibrated(s, blended);
        }
      }
      for (size_t k = 0; k < judged.size(); ++k) all[judged[k]] = std::move(shifts[k]);
      shifts = std::move(all);
    }
    for (size_t j = 0; j < members.size(); ++j) pending_[members[j]].shift = shifts[j];
    for (size_t c = 0; c < commons.size(); ++c) {
      const auto& [name, common] = commons[c];
      for (size_t m : common_members[c]) pending_[m].common_index = static_cast<int>(pending_.size());
      Pending p;
      p.family = family;
      p.common = true;
      p.decided = true;
      p.mv = Base(name, "time", true);
      p.mv.ratio = std::exp(common);
      p.mv.current_rounds = static_cast<int64_t>(current_runs_.size());
      p.mv.verdict = Verdict::kInconclusive;
      p.mv.reason = Reason::kNoReplication;
      const std::string whose =
          name == kCommonWorkload
              ? std::string(domains.size() > 1 ? "the workloads timed on the host" : "all workloads")
              : "the workloads timed on " + (name == kCommonGpuWorkload
                                                 ? std::string("the GPU")
                                                 : "GPU " + name.substr(12, name.size() - 13));
      p.mv.sentence = FormatRatio(std::exp(common)) + ", the median shift of " + whose +
                      ": with " + OneRun() + " a shift of the whole suite cannot be told apart "
                      "from the machine's speed; it was removed before judging each workload (a "
                      "history of runs judges it)";
      // A change that slows every workload alike leaves each one "unchanged"
      // against the others: never let that pass unsaid.
      if (p.mv.lower_is_better && common > std::log1p(p.mv.threshold))
        out_.warnings.push_back(
            "the median shift of " + whose + " is " + FormatRatio(std::exp(common)) +
            ", slower beyond the " + PercentText(p.mv.threshold) +
            " threshold: with " + OneRun() + " that cannot be told apart from a slower machine, "
            "so each workload was judged against the others and a change that slows every "
            "workload alike passes unseen; keep a baseline history (gpugate baseline update) "
            "or use interleaved A/B (gpugate ab) to judge it");
      pending_.push_back(std::move(p));
    }
  }

  // Between-run noise for each one-run comparison from the others' excess
  // spread: a variance common to all (tau^2) and one proportional to each
  // workload's own (phi); each comparison gets the larger. The others are
  // the comparisons that take the suite's noise, without the clock ties
  // where leaving this one out two others still moved at all (the rule of
  // CollectSuiteEffects). Exact leave-one-out where those others number up
  // to kExactLeaveOneOut; above that one workload cannot move the robust
  // estimates, and those of the whole set are used. (Counted on the set,
  // not the family: 300 ties beside three kernels that moved leave three.)
  // Returns whether the family shows noise between the runs at all.
  bool AddLeaveOneOutNoise(std::vector<LogShift>* shifts, Family family) {
    const size_t m = shifts->size();
    // The two sets a leave-one-out can read: with the ties, and without.
    std::vector<LogShift> with_ties, untied;
    std::vector<size_t> at_with(m, SIZE_MAX), at_untied(m, SIZE_MAX);
    size_t moved = 0;
    for (size_t i = 0; i < m; ++i) {
      const LogShift& s = (*shifts)[i];
      // A timing on a timer's grid moves by whole steps: it takes the
      // others' noise but is no draw of it (one-tick moves of eight such
      // workloads hid a +10% regression beside them).
      if (!TakesSuiteNoise(s) || s.clock_from_values) continue;
      moved += MovedAtAll(s);
      at_with[i] = with_ties.size();
      with_ties.push_back(s);
      if (s.tied) continue;
      at_untied[i] = untied.size();
      untied.push_back(s);
    }
    struct Whole {
      bool done = false, can_show = false;
      double tau2 = 0, tau_df = 0, phi = 0, phi_df = 0;
    } whole[2];  // [0] with the ties, [1] without
    auto of_whole = [&](int k) -> const Whole& {
      Whole& w = whole[k];
      if (!w.done) {
        const std::vector<LogShift>& set = k == 0 ? with_ties : untied;
        w.done = true;
        w.can_show = SuiteCanShowNoise(set);
        w.tau2 = EstimateSuiteBetweenRunVariance(set, &w.tau_df, kNoiseQuantile);
        w.phi = EstimateSuiteOverdispersion(set, &w.phi_df, kNoiseQuantile);
      }
      return w;
    };
    double all_tau_df = 0, all_phi_df = 0;
    const double all_tau2 = EstimateSuiteBetweenRunVariance(*shifts, &all_tau_df, kNoiseQuantile);
    const double all_phi = EstimateSuiteOverdispersion(*shifts, &all_phi_df, kNoiseQuantile);
    // The others as they were measured: every estimate below reads these, not
    // the comparisons already widened in this loop.
    const std::vector<LogShift> measured = *shifts;
    // Whether the suite-wide kappa widens any workload at all.
    double all_widest = 1.0;
    for (const LogShift& s : measured)
      if (TakesSuiteNoise(s) && s.se > 0) {
        const double u = UnitSpread(s);
        all_widest = std::max(all_widest, all_phi * u * u / (s.se * s.se));
      }
    int compared = 0, widened = 0, unmeasured = 0;
    double least = std::numeric_limits<double>::infinity(), most = 0, widest = 1.0;
    std::vector<LogShift> others;
    for (size_t i = 0; i < m; ++i) {
      LogShift& s = (*shifts)[i];
      if (!TakesSuiteNoise(s)) continue;
      // The others' set: without the ties where two others moved at all.
      const int k = TiesLeftOut(moved - (MovedAtAll(measured[i]) ? 1 : 0)) ? 1 : 0;
      const std::vector<LogShift>& set = k == 0 ? with_ties : untied;
      const size_t at = k == 0 ? at_with[i] : at_untied[i];  // SIZE_MAX: not in it (a tie)
      double tau2 = 0, phi = 0, tau_df = 0, phi_df = 0;
      bool can_show = false;
      // The whole set reads as this comparison's others do (with the ties,
      // it would not where this is one of the two that moved).
      const bool whole_reads_alike = k == 1 || !TiesLeftOut(moved);
      if ((set.size() > static_cast<size_t>(kExactLeaveOneOut) + 1 && whole_reads_alike) ||
          at == SIZE_MAX) {  // SIZE_MAX: a tie, not in the set without them
        const Whole& w = of_whole(k);
        can_show = w.can_show;
        tau2 = w.tau2, tau_df = w.tau_df, phi = w.phi, phi_df = w.phi_df;
      } else {
        others.clear();
        for (size_t j = 0; j < set.size(); ++j)
          if (j != at) others.push_back(set[j]);
        can_show = SuiteCanShowNoise(others);
        if (can_show) {
          tau2 = EstimateSuiteBetweenRunVariance(others, &tau_df, kNoiseQuantile);
          phi = EstimateSuiteOverdispersion(others, &phi_df, kNoiseQuantile);
        }
      }
      // Too few others that show the noise (a tie of the clock shows none):
      // this comparison cannot be judged, rather than judged as if the runs
      // had no noise between them.
      if (!can_show) {
        s.between_run_unmeasured = true;
        ++unmeasured;
        continue;
      }
      // Noise that grows with the workload's own spread: kappa u^2 in all,
      // of which its se^2 is already counted.
      const double u = UnitSpread(s);
      const double own = phi * u * u - s.se * s.se;
      const double extra = std::max(tau2, own);
      LogShift noisy =
          extra > 0 ? WithBetweenRunNoise(s, extra, std::max(tau_df, own > 0 ? phi_df : 0.0)) : s;
      noisy.common_factor_removed = s.common_factor_removed;
      s = noisy;
      // What each comparison really got: leaving itself out, a comparison
      // can get far less than the family as a whole shows.
      const double added = std::max(extra, 0.0);
      ++compared;
      if (added > 0) ++widened;
      least = std::min(least, added);
      most = std::max(most, added);
      if (added > 0 && s.se > 0 && measured[i].se > 0)
        widest = std::max(widest, s.se / measured[i].se);
    }
    if (widened > 0) {
      std::string what = std::string(FamilyName(family)) + ": " + OneRun() +
                         "; the spread of effects across the suite exceeds what the rounds "
                         "explain, so noise between runs, measured on the other workloads, was "
                         "added to " +
                         (widened == compared && unmeasured == 0
                              ? std::string("each comparison")
                              : std::to_string(widened) + " of " + std::to_string(compared + unmeasured) +
                                    " comparisons") +
                         ": ";
      // Two significant digits: "0.5% to 8.9%", not "0.502% to 8.852%".
      auto size = [](double var) { return Fmt("%.2g", 100.0 * std::expm1(std::sqrt(var))) + "%"; };
      const std::string lo = size(least);
      const std::string hi = size(most);
      what += lo == hi ? hi : lo + " to " + hi;
      if (widest > 1.005)
        what += ", up to " + Fmt(widest < 100 ? "%.2g" : "%.0f", widest) +
                " times a workload's within-run uncertainty";
      out_.warnings.push_back(what + " (a baseline history measures it directly)");
    }
    if (unmeasured > 0)
      out_.warnings.push_back(
          std::string(FamilyName(family)) + ": " + OneRun() + "; " + std::to_string(unmeasured) + " of " +
          std::to_string(compared + unmeasured) + " comparisons were not judged: leaving each out, fewer than " +
          std::to_string(kMinSuiteForNoise) + " others show the noise between the runs (short kernels that read "
          "the same whole microseconds on both sides show none); keep a baseline history (gpugate baseline "
          "update) or use interleaved A/B (gpugate ab)");
    return all_tau2 > 0 || all_widest > 1;
  }

  // ---- Decision ---------------------------------------------------------

  // One-sided p-value toward "worse" and toward "better" of a tested entry.
  static std::pair<double, double> BadGood(const Pending& p, const LogShift& s) {
    const bool lower = p.mv.lower_is_better;
    return lower ? std::pair{s.p_greater, s.p_less} : std::pair{s.p_less, s.p_greater};
  }

  // Benjamini-Hochberg, separately for the regression direction and the
  // improvement direction (each hypothesis is one-sided).
  void Adjust() {
    // The exact signed-rank test on n paired rounds gives no p below 2^-n:
    // with 12 comparisons at q = 0.01, 10 rounds (1/1024 > 0.01/12) could
    // never make one change significant, however large. Where 2^-n lies
    // above q/m, the rounds are judged on their trimmed mean (a t reference,
    // no floor): chosen from n, m and q alone, before any p (zero or tied
    // rounds, which raise the rank test's floor, do not choose). Below
    // kMinTrimmedRounds a trimmed t on h - 1 <= 4 degrees of freedom is too
    // fragile (bimodal rounds: 1.8% of identical suites alarmed at 6), so
    // the rank test stays and says it cannot decide (WarnUnreachable).
    size_t m = 0;
    for (const Pending& x : pending_)
      m += !x.decided && x.shift && x.family != Family::kNone &&
           x.shift->method != ShiftMethod::kThresholdOnly;
    const double lone_alpha = policy_.defaults.fdr_q / static_cast<double>(std::max<size_t>(m, 1));
    for (Pending& x : pending_) {
      if (x.decided || !x.shift || !x.units || x.shift->method != ShiftMethod::kPairedRounds) continue;
      const size_t n = x.units->cur.size();
      if (n < static_cast<size_t>(kMinTrimmedRounds) || !(std::ldexp(1.0, -static_cast<int>(n)) > lone_alpha))
        continue;
      // Kept rounds that agree exactly (a coarse timer) give the trimmed t
      // nothing to read: the rank test, on the rounds' grid, stays.
      LogShift trimmed = PairedRoundsTrimmed(x.units->cur, policy_.defaults.confidence);
      if (std::isfinite(trimmed.se)) x.shift = trimmed;
    }
    std::vector<double> bad, good;
    std::vector<size_t> where;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const Pending& x = pending_[i];
      if (x.decided || !x.shift || x.family == Family::kNone) continue;
      if (x.shift->method == ShiftMethod::kThresholdOnly) continue;
      auto [b, g] = BadGood(x, *x.shift);
      bad.push_back(b);
      good.push_back(g);
      where.push_back(i);
    }
    tested_ = where.size();
    std::vector<double> bad_adj = BenjaminiHochbergAdjust(bad);
    std::vector<double> good_adj = BenjaminiHochbergAdjust(good);
    for (size_t j = 0; j < where.size(); ++j) {
      Pending& p = pending_[where[j]];
      const bool worse = bad[j] <= good[j];
      p.mv.p_value = worse ? bad[j] : good[j];
      p.mv.p_adjusted = worse ? bad_adj[j] : good_adj[j];
    }
  }

  std::string SizeText(const MetricVerdict& mv, const LogShift& s) const {
    std::string t;
    if (s.method == ShiftMethod::kPairedRounds) {
      return std::to_string(s.current_units) + " paired rounds";
    }
    if (s.method == ShiftMethod::kReportedNoise) {
      return "one summary per side over " + std::to_string(s.baseline_units) + " vs " +
             std::to_string(s.current_units) + " samples";
    }
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

  // What a comparison without replication had: one value per side, or one
  // on one side against several on the other (one baseline value against
  // three current runs), and what would let it be tested.
  static std::string OneValueText(const MetricVerdict& mv) {
    if (mv.current_rounds > 1)
      return "one baseline value against " + std::to_string(mv.current_rounds) + " current values";
    if (mv.baseline_rounds > 1)
      return std::to_string(mv.baseline_rounds) + " baseline values against one current value";
    return "one value per side";
  }
  static std::string ReplicationAdvice(const MetricVerdict& mv) {
    if (mv.current_rounds > 1) return "repetitions in the baseline or a baseline history would";
    if (mv.baseline_rounds > 1) return "repetitions or several current runs would";
    return "repetitions, several runs or a history would";
  }

  // Verdict by threshold alone (no test): ratio of the metric's values.
  static void ThresholdVerdict(MetricVerdict* mv, double ratio, const std::string& why) {
    double bad = mv->lower_is_better ? std::log(ratio) : -std::log(ratio);
    // The threshold is a closed bound: a change of exactly the threshold
    // (103 against 100 at 3%) is within it, whatever rounding error unit
    // conversions left in the ratio (1.0300000000000016).
    double limit = std::log1p(mv->threshold) + 1e-12;
    mv->ratio = ratio;
    mv->ci_low = mv->ci_high = ratio;
    mv->reason = Reason::kThresholdOnly;
    std::string head = FormatRatio(ratio);
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

  // What would let a one-run-per-side comparison decide: a baseline history,
  // or, for a kernel the history has in only one of its runs, more runs
  // with it.
  static std::string HistoryAdvice(const Pending& p) {
    if (p.history_runs >= 2)
      return "the baseline history has this kernel in only " + std::to_string(p.history_runs_with) +
             " of its " + std::to_string(p.history_runs) +
             " runs, so it is compared as one run per side; more runs with it or interleaved A/B "
             "would decide";
    return "use a baseline history (baseline update) or interleaved A/B";
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
    const std::string name = p->common ? "the suite's common shift" : "";
    if (s.method == ShiftMethod::kThresholdOnly) {
      if (policy_.defaults.threshold_without_replication) {
        ThresholdVerdict(&mv, std::exp(est),
                         SizeText(mv, s) + ": " + OneValueText(mv) + ", judged on the threshold "
                                           "alone (policy no_replication: threshold)" + derived);
        // One value per side has no interval: never a zero-width "95% CI".
        mv.ci_low.reset();
        mv.ci_high.reset();
      } else {
        mv.verdict = Verdict::kInconclusive;
        mv.reason = Reason::kNoReplication;
        mv.ci_low.reset();
        mv.ci_high.reset();
        const std::string no_spread = p->units ? p->units->no_spread : std::string();
        mv.sentence = FormatRatio(*mv.ratio, ChangeDecimals(mv.threshold)) + " from " + OneValueText(mv) + ": " +
                      (no_spread.empty() ? std::string("without repetitions no noise can be measured")
                                         : no_spread + ": no noise can be measured") +
                      ", so nothing is judged (" + ReplicationAdvice(mv) +
                      "; policy no_replication: threshold accepts the ratio alone)" + derived;
      }
      return;
    }
    // Work in "badness": positive = worse, whatever the direction.
    double bad_lo = mv.lower_is_better ? lo : -hi;
    double bad_hi = mv.lower_is_better ? hi : -lo;
    double limit = std::log1p(mv.threshold);
    double q = policy_.defaults.fdr_q;
    // What the test could have seen had this been the only change among the
    // tested hypotheses: Benjamini-Hochberg then asks p <= q / m of it.
    const double lone_alpha = q / static_cast<double>(std::max<size_t>(tested_, 1));
    // A common shift that had to be removed (below): a regression must also
    // lie beyond the threshold as measured, which on a faster run takes the
    // shift's size more.
    const std::optional<double> off = AmbiguousCommonShift(*p);
    const double bad_off = off ? (mv.lower_is_better ? 1.0 : -1.0) * log_sign * *off : 0.0;
    const double mde_log = MinimumDetectableLog(s, limit + std::max(0.0, -bad_off), 0.9, lone_alpha);
    if (std::isfinite(mde_log)) mv.mde = std::expm1(mde_log);
    if (!mv.lower_is_better && mv.mde) mv.mde = -std::expm1(-mde_log);
    bool significant = mv.p_adjusted.has_value() && *mv.p_adjusted <= q;
    std::string interval = FormatRatioCi(mv.ratio, mv.ci_low, mv.ci_high, ChangeDecimals(mv.threshold));
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      interval = FormatRatio(*mv.ratio, ChangeDecimals(mv.threshold)) + " [unbounded]";
      // An open end has no bound to write: exp(-inf) = 0 would read as a
      // finite -100% bound.
      if (!std::isfinite(lo)) mv.ci_low.reset();
      if (!std::isfinite(hi)) mv.ci_high.reset();
    }
    std::string thr = PercentText(mv.threshold);
    std::string head;
    if (s.between_run_unmeasured) {
      // Within-run scatter alone understates the noise between runs (often
      // several times over): no decision either way.
      mv.verdict = Verdict::kInconclusive;
      mv.reason = Reason::kBetweenRunNoiseUnmeasured;
      mv.mde.reset();
      // A kernel's summary per run carries the spread of its calls, or on a
      // coarse clock only the clock's step: neither is noise between runs,
      // and a p-value beside "nothing is tested" would read as a test.
      if (s.se > 0 && *p->kernel_statistic == '\0') {
        head = interval + " holds within-run noise only: " + OneRun() + " and too few workloads "
               "to estimate the noise between runs; " + HistoryAdvice(*p);
      } else {
        // One summary per run (a kernel's): no interval and no test, never
        // a zero-width "95% CI".
        mv.ci_low.reset();
        mv.ci_high.reset();
        mv.p_value.reset();
        mv.p_adjusted.reset();
        head = FormatRatio(*mv.ratio, ChangeDecimals(mv.threshold)) + " from one summary per run and side: " + OneRun() +
               " and too few comparisons to estimate the noise between runs, so nothing is "
               "tested; " + HistoryAdvice(*p);
      }
    } else if (significant && bad_lo > limit) {
      mv.verdict = Verdict::kRegression;
      mv.reason = Reason::kSignificantAboveThreshold;
      head = interval + " exceeds the " + thr + " threshold";
    } else if (significant && bad_hi < -limit) {
      mv.verdict = Verdict::kImprovement;
      mv.reason = Reason::kSignificantImprovement;
      head = interval + " improves beyond the " + thr + " threshold";
    } else if (bad_lo >= -limit && bad_hi <= limit) {
      mv.verdict = Verdict::kUnchanged;
      mv.reason = Reason::kWithinThreshold;
      head = interval + " lies within the " + thr + " threshold";
    } else {
      mv.verdict = Verdict::kInconclusive;
      if (NoSpreadMeasured(s)) {
        mv.reason = Reason::kNoSpread;
        head = interval + ": every round of both sides read one value and no other comparison shows "
               "noise between the runs, so no spread was measured (a timer coarser than the change?); "
               "more iterations per round, a longer benchmark or a finer timer would decide";
      } else if (s.no_spread) {
        mv.reason = Reason::kNoSpread;
        head = interval + ": every one of the " + std::to_string(s.current_units) +
               " paired rounds read the same ratio, so no spread was measured (a timer coarser than "
               "the change?); a longer benchmark or a finer timer would decide";
      } else if (!std::isfinite(lo) || !std::isfinite(hi)) {
        mv.reason = Reason::kTooFewSamples;
        if (s.method != ShiftMethod::kPairedRounds) {
          head = interval + ": too few samples for a " + PercentText(s.confidence) + " interval";
        } else {
          head = interval + ": too few paired rounds for a " + PercentText(s.confidence) +
                 " interval (" + std::to_string(s.current_units) + "; at least " +
                 std::to_string(MinPairedRounds(s.confidence)) + ", use --rounds)";
        }
      } else if (bad_lo > limit || bad_hi < -limit) {
        mv.reason = Reason::kNotSignificantAfterFdr;
        head = interval + " is beyond the " + thr +
               " threshold but not significant after false-discovery adjustment (q=" +
               PValueText(q) + ")";
        if (s.p_floor > lone_alpha) head += "; " + UnreachableText(s, lone_alpha);
      } else if (s.clock_limited && s.clock_var > 0.5 * s.se * s.se) {
        // More runs or rounds of the same trace clock read the same steps.
        mv.reason = Reason::kStraddlesThreshold;
        head = interval + " straddles the " + thr + " threshold: " +
               (!s.clock_from_values ? "half a step of the trace's clock ("
                                     : "the rounding to the step of the timer its values are read on (") +
               ClockStepText(s.clock_step_s) + ") is most of the uncertainty, so " +
               (s.clock_from_values ? std::string("a finer timer would decide")
                : s.clock_sides == 1 ? "baseline runs with a finer clock would decide"
                : s.clock_sides == 2 ? "a current trace with a finer clock would decide"
                                     : "traces with a finer clock would decide");
      } else if (s.between_run_var > 0.5 * s.se * s.se) {
        mv.reason = Reason::kBetweenRunNoise;
        head = interval + ": noise between runs exceeds the effect; " +
               (s.method == ShiftMethod::kHistoryPrediction
                    ? "more current runs or interleaved A/B would decide"
                    : HistoryAdvice(*p));
      } else {
        mv.reason = Reason::kStraddlesThreshold;
        head = interval + " straddles the " + thr + " threshold; " +
               (s.method == ShiftMethod::kPairedRounds ? "more paired rounds (--rounds) would decide"
                                                        : "more rounds would decide");
      }
    }
    // The run speed factor was removed on the premise that the suite's
    // common shift is the machine's. When that premise cannot be checked,
    // the verdict must also hold without removing it: if 5 of 8 workloads
    // got 2x faster, the other 3 must not read +100% slower.
    if (off && std::isfinite(lo) && std::isfinite(hi)) {
      const double raw_lo = bad_lo + bad_off, raw_hi = bad_hi + bad_off;
      const bool agrees = mv.verdict == Verdict::kRegression    ? raw_lo > limit
                          : mv.verdict == Verdict::kImprovement ? raw_hi < -limit
                          : mv.verdict == Verdict::kUnchanged   ? raw_lo >= -limit && raw_hi <= limit
                                                                : true;
      const double raw_est = est + log_sign * *off;
      const double raw_low = lo + log_sign * *off, raw_high = hi + log_sign * *off;
      const std::string measured =
          FormatRatioCi(std::exp(raw_est), std::exp(raw_low), std::exp(raw_high)) + " as measured";
      // Undecided either way: the reading as measured is said too (5 of 8
      // twice as slow are "+0%" against their own median).
      if (mv.verdict == Verdict::kInconclusive) head += "; " + measured;
      if (!agrees) {
        const Pending& common = pending_[static_cast<size_t>(p->common_index)];
        const bool one_run = !common.shift;
        const bool common_decided =
            common.mv.verdict == Verdict::kRegression || common.mv.verdict == Verdict::kImprovement;
        mv.verdict = Verdict::kInconclusive;
        mv.reason = Reason::kCommonShiftAmbiguous;
        head = interval + " with the suite's common shift (" + FormatRatio(std::exp(*off)) +
               ") removed, but " + measured + ": " +
               (one_run ? "with " + OneRun() +
                              " a change of the machine's speed and a change of most workloads "
                              "look alike"
                        : common_decided ? std::string("the whole suite moved beyond what the history's runs "
                                                       "show, which may be the machine or the change")
                                         : std::string("the history's runs cannot tell whether the whole "
                                                       "suite's shift is the machine's or the change")) +
               ", and the two readings disagree, so nothing is decided";
      }
    }
    std::string sees = mv.mde ? "; could have seen " + FormatDetectable(*mv.mde, mv.lower_is_better) +
                                    " (90% power)"
                              : "";
    std::string size = p->common ? FormatCount(static_cast<size_t>(s.current_runs), "current run factor") + " vs " +
                                       std::to_string(s.baseline_units) + " history run factors"
                                 : SizeText(mv, s);
    std::string method = Describe(s);
    if (p->family == Family::kKernel && *p->kernel_statistic) {
      // One summary per run and kernel (kernel_summary.h), not instances.
      const std::string stat = std::string(p->kernel_statistic) + " per call";
      if (s.method == ShiftMethod::kRunSummaries) {
        size = "one " + stat + " per run over " + std::to_string(mv.baseline_n) + " vs " +
               std::to_string(mv.current_n) + " instances";
      } else if (s.method == ShiftMethod::kHistoryPrediction) {
        method += " (each run's " + stat + ")";
      }
    }
    mv.sentence = (name.empty() ? "" : name + ": ") + head + "; " + size + "; " + method + ", p=" + PValueText(mv.p_value.value_or(kNaN)) +
                  " (one-sided), p_adj=" + PValueText(mv.p_adjusted.value_or(kNaN)) + sees +
                  derived;
  }

  // The log shift common to the suite that was removed from `p`'s
  // comparison, when its verdict must also hold without that removal: its
  // clock's workloads split (over a quarter of them decided changes against
  // the shift), and then always with one run per side (a change of the
  // machine's speed and a change of most workloads look alike), and with a
  // history unless the common shift is known to stay within the threshold
  // (unchanged).
  std::optional<double> AmbiguousCommonShift(const Pending& p) const {
    if (p.common || p.common_index < 0) return std::nullopt;
    const Pending& c = pending_[static_cast<size_t>(p.common_index)];
    if (!c.common_split || !c.mv.ratio || !(*c.mv.ratio > 0) || !std::isfinite(*c.mv.ratio)) return std::nullopt;
    if (c.shift) {
      if (c.mv.verdict == Verdict::kUnchanged) return std::nullopt;
      return c.shift->estimate;
    }
    return std::log(*c.mv.ratio);
  }

  void Classify() {
    // The suite's common shifts first: a workload's verdict can depend on
    // its domain's (AmbiguousCommonShift).
    auto tested = [](const Pending& p) { return !p.decided && p.derived_from < 0 && p.shift; };
    for (const bool common : {true, false})
      for (Pending& p : pending_)
        if (p.common == common && tested(p)) ClassifyOne(&p, *p.shift, 1.0, "");
    // The premise of removing a common shift is that most workloads did not
    // change against it. When more than a quarter of a clock's workloads
    // are decided changes against it (5 of 8 made twice as fast leave the
    // other 3 at "+100%"), the shift may be the change, not the machine:
    // its workloads are judged again, decided only where they read the
    // same with the shift removed and as measured (AmbiguousCommonShift).
    std::map<int, std::pair<int, int>> moved;  // common index -> (workloads, decided changes)
    for (const Pending& p : pending_)
      if (!p.common && p.common_index >= 0 && tested(p)) {
        auto& [all, changed] = moved[p.common_index];
        ++all;
        // A change whose interval lies beyond the threshold counts whether
        // or not it survived the false-discovery adjustment: 8 of 20 read
        // -28% [-42%, -8%] against a +44% shift, 4 of them decided.
        changed += p.mv.verdict == Verdict::kRegression || p.mv.verdict == Verdict::kImprovement ||
                   p.mv.reason == Reason::kNotSignificantAfterFdr;
      }
    for (const auto& [index, count] : moved) {
      Pending& c = pending_[static_cast<size_t>(index)];
      if (4 * count.second <= count.first || !c.mv.ratio) continue;
      c.common_split = true;
      // A history whose common shift is known to stay within the threshold
      // has the machine's part measured: nothing is ambiguous. One left
      // undecided is not (12 of 20 workloads +50% moved it +44%, p_adj
      // 0.049, and the 8 untouched read as "improvements" against it).
      if (c.shift && c.mv.verdict == Verdict::kUnchanged) continue;
      out_.warnings.push_back(
          std::to_string(count.second) + " of " + std::to_string(count.first) +
          " workloads moved against the median shift of " + c.mv.workload + " (" +
          FormatRatio(*c.mv.ratio) + "): that shift may be the change rather than the machine, so "
          "each workload is decided only where it reads the same with the shift removed and as "
          "measured (reason common_shift_ambiguous otherwise)");
    }
    for (Pending& p : pending_)
      if (!p.common && p.common_index >= 0 && tested(p) &&
          pending_[static_cast<size_t>(p.common_index)].common_split)
        ClassifyOne(&p, *p.shift, 1.0, "");
    for (Pending& p : pending_) {
      if (p.derived_from < 0) continue;
      const Pending& time = pending_[static_cast<size_t>(p.derived_from)];
      if (!time.shift) {
        p.mv.verdict = time.mv.verdict;
        p.mv.reason = time.mv.reason;
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
      p.cycle_ratio = time.cycle_ratio;
      // Throughput = work / time: its log ratio is minus time's.
      ClassifyOne(&p, *time.shift, -1.0, "; derived from time (not a separate test)");
    }
  }

  // Median of the positive cycle-space times of the current side (the run and
  // its confirmations) over the baseline's; nullopt unless both have them.
  static std::optional<double> CycleRatio(const std::vector<const WorkloadResult*>& current,
                                          const WorkloadResult& baseline) {
    auto positive = [](const std::vector<std::vector<double>>& cycles) {
      Rounds out;
      for (const auto& round : cycles) {
        std::vector<double> kept;
        for (double c : round)
          if (std::isfinite(c) && c > 0) kept.push_back(c);
        if (!kept.empty()) out.push_back(std::move(kept));
      }
      return out;
    };
    Rounds cur;
    for (const WorkloadResult* w : current) {
      Rounds r = positive(w->cycles);
      cur.insert(cur.end(), r.begin(), r.end());
    }
    Rounds base = positive(baseline.cycles);
    if (cur.empty() || base.empty()) return std::nullopt;
    const double b = MedianOf(base);
    if (!(b > 0)) return std::nullopt;
    return MedianOf(cur) / b;
  }

  // A GPU time that moved is confirmed when its cycle-space time (seconds x
  // the SM clock over each sample) moved the same way beyond the threshold;
  // otherwise the clock changed, not the work per cycle: inconclusive.
  static void ConfirmInCycles(Pending* p) {
    MetricVerdict& mv = p->mv;
    const bool slower = mv.verdict == Verdict::kRegression;  // time up, or throughput down
    const double limit = std::log1p(mv.threshold);
    const double log_cycles = std::log(*p->cycle_ratio);
    const bool confirmed = slower ? log_cycles > limit : log_cycles < -limit;
    const std::string in_cycles = "in cycle space the time changed by " + FormatRatio(*p->cycle_ratio);
    if (confirmed) {
      mv.sentence += "; confirmed in cycle space (" + FormatRatio(*p->cycle_ratio) + ")";
      return;
    }
    const bool within = std::fabs(log_cycles) <= limit;
    mv.verdict = Verdict::kInconclusive;
    mv.reason = Reason::kClockShift;
    mv.sentence = in_cycles + (within ? ", within the " + PercentText(mv.threshold) + " threshold" : ", the other way") +
                  ": the SM clock moved, not the work per cycle: " + mv.sentence;
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
        mv.reason = Reason::kThrottled;
        mv.sentence = std::string("the ") + (p.throttled_current ? "current" : "baseline") +
                      " run throttled, so the shift may be the clock's: " + mv.sentence;
      }
      moved = mv.verdict == Verdict::kRegression || mv.verdict == Verdict::kImprovement;
      if (moved && p.cycle_ratio) ConfirmInCycles(&p);
      if (mv.verdict != Verdict::kRegression) continue;
      if (const Waiver* w = FindWaiver(policy_, mv.workload, mv.metric, today)) {
        mv.waived = true;
        mv.waiver_reason = w->reason + " (until " + w->until + ")";
      }
    }
  }

  // require_detectable: an undecided tested result that could not have seen
  // the required slowdown is reported as a runner too noisy to guard it.
  void RequireDetectable() {
    if (!policy_.defaults.require_detectable) return;
    const double need = *policy_.defaults.require_detectable;
    int count = 0;
    for (Pending& p : pending_) {
      MetricVerdict& mv = p.mv;
      if (mv.verdict != Verdict::kInconclusive || mv.severity == Severity::kOff) continue;
      if (p.derived_from >= 0) continue;  // judged with its time metric
      if (UntestableCommonShift(mv)) continue;
      if (mv.mde && *mv.mde <= need) continue;
      // Nothing could be seen at all (one value per side, noise between the
      // runs unmeasured, no spread): the reason says why and stays, so that
      // `gate` does not re-run what no re-run can decide (UnguardedByPolicy),
      // and the sentence does not blame the runner's noise.
      const bool blind = SeesNothing(mv);
      if (!blind) mv.reason = Reason::kUndetectable;
      const char* why = mv.reason == Reason::kNoReplication ? "one value per side measures no noise"
                        : mv.reason == Reason::kNoSpread  ? "its values each read one value, so no spread was measured"
                                                          : "the noise between the runs could not be measured";
      mv.sentence = (blind ? "not guarded: " + std::string(why) + ", so it could see no slowdown at all"
                           : "too noisy to guard: " +
                                 (mv.mde ? "the smallest slowdown this comparison could see is " +
                                               FormatDetectable(*mv.mde, mv.lower_is_better)
                                         : std::string("this comparison could see no slowdown at all"))) +
                    ", the policy requires " + FormatDetectable(need, mv.lower_is_better) + " (" +
                    mv.sentence + ")";
      ++count;
    }
    if (count > 0)
      out_.warnings.push_back(FormatCount(static_cast<size_t>(count), "result") +
                              " could not have seen the required " +
                              FormatDetectable(need) + " slowdown (require_detectable)");
  }

  void AddOutcomeWarnings() {
    int warn = 0, inconclusive = 0, incomparable = 0, other_metric = 0;
    for (const MetricVerdict& m : out_.metrics) {
      if (m.verdict == Verdict::kRegression && !m.waived && m.severity == Severity::kWarn) ++warn;
      if (m.verdict == Verdict::kInconclusive && m.severity != Severity::kOff && !UntestableCommonShift(m))
        ++inconclusive;
      if (m.verdict == Verdict::kIncomparable && m.severity != Severity::kOff) {
        ++incomparable;
        other_metric += m.reason == Reason::kMetricMismatch;
      }
    }
    if (warn > 0)
      out_.warnings.push_back(FormatCount(static_cast<size_t>(warn), "regression") +
                              " with severity warn " + (warn == 1 ? "does" : "do") + " not fail the gate");
    if (inconclusive > 0 && policy_.defaults.on_inconclusive == OnInconclusive::kWarn)
      out_.warnings.push_back(FormatCount(static_cast<size_t>(inconclusive), "inconclusive result") +
                              "; the policy asks for a warning");
    if (incomparable > 0 && policy_.defaults.on_incomparable != OnInconclusive::kPass)
      out_.warnings.push_back(
          FormatCount(static_cast<size_t>(incomparable), "result") + " incomparable: " +
          (other_metric == incomparable ? std::string("the sides measured different metrics (or read them in "
                                                      "opposite directions)")
           : other_metric == 0          ? std::string("the environments differ")
                                        : std::to_string(incomparable - other_metric) +
                                              " where the environments differ, " + std::to_string(other_metric) +
                                              " where the sides measured different metrics") +
          ", so nothing about them was judged (on_incomparable: " + ToString(policy_.defaults.on_incomparable) +
          ")");
  }

  // What a rank test on too few rounds or samples cannot do: "a signed-rank
  // test on 10 paired rounds cannot give a p below 0.00098, and one change
  // among 12 tested comparisons needs p <= 0.00083".
  std::string UnreachableText(const LogShift& s, double lone_alpha) const {
    const std::string test =
        s.method == ShiftMethod::kPairedRounds
            ? "a signed-rank test on " + FormatCount(static_cast<size_t>(s.current_units), "paired round")
            : "a rank test on these samples";
    return test + " cannot give a p below " + PValueText(s.p_floor) + ", and one change among " +
           FormatCount(tested_, "tested comparison") + " needs p \u2264 " + PValueText(lone_alpha);
  }

  // One warning for the comparisons whose test cannot reach significance on
  // its own, whatever the change: their MDE is unbounded ("n/a"), and a
  // policy's require_detectable fails them.
  void WarnUnreachable() {
    const double lone_alpha = policy_.defaults.fdr_q / static_cast<double>(std::max<size_t>(tested_, 1));
    size_t paired = 0, samples = 0, fewest_rounds = 0;
    const LogShift* example = nullptr;
    for (const Pending& p : pending_) {
      if (p.decided || p.derived_from >= 0 || p.common || !p.shift) continue;
      if (p.mv.severity == Severity::kOff || !(p.shift->p_floor > lone_alpha)) continue;
      if (p.shift->between_run_unmeasured || p.shift->no_spread || NoSpreadMeasured(*p.shift))
        continue;  // said otherwise
      if (p.shift->method == ShiftMethod::kPairedRounds) {
        const size_t n = static_cast<size_t>(std::max(0, p.shift->current_units));
        if (paired++ == 0 || n < fewest_rounds) {
          fewest_rounds = n;
          example = &*p.shift;
        }
      } else {
        ++samples;
        if (example == nullptr) example = &*p.shift;
      }
    }
    if (example == nullptr) return;
    std::string more;
    if (paired > 0) {
      // 2^-n <= q/m for n paired rounds without ties.
      const int need = static_cast<int>(std::ceil(std::log2(1.0 / lone_alpha) - 1e-9));
      more = static_cast<int>(fewest_rounds) >= need
                 ? "their rounds tie (the same ratio again and again, or none at all), which raises that "
                   "floor: a longer benchmark or a finer timer would"
                 : "at least " + std::to_string(need) + " paired rounds would (--rounds " + std::to_string(need) + ")";
    } else {
      more = "more samples (repetitions) per side would";
    }
    const size_t n = paired + samples;
    out_.warnings.push_back(FormatCount(n, "comparison") + " cannot be significant on " +
                            (n == 1 ? "its" : "their") + " own, whatever the change: " +
                            UnreachableText(*example, lone_alpha) + " (q = " + PValueText(policy_.defaults.fdr_q) +
                            "); " + more + (n == 1 ? ". What it could have seen is n/a." : ". What they could have seen is n/a."));
  }

  const std::vector<Results>& runs_;
  // What the one-run path compares: "one run per side", or against one
  // baseline run when several current runs were pooled (gate re-runs).
  std::string OneRun() const {
    return current_runs_.size() > 1 ? "one baseline run" : "one run per side";
  }

  const std::vector<Results>& current_runs_;
  const Results& current_;  // the primary current run: order, metadata, memory
  const Policy& policy_;
  const CompareOptions& options_;
  std::vector<Pending> pending_;
  size_t tested_ = 0;  ///< hypotheses in the false-discovery family (Adjust())
  // Of the workload being matched: later current runs (index, result), and a
  // confirmation re-run that failed.
  std::vector<std::pair<int, const WorkloadResult*>> confirmations_;
  // Every workload compared, with the index of the current run that holds
  // it first (ListWorkloads), and the runs that are first for some.
  std::vector<std::pair<int, const WorkloadResult*>> compared_;
  std::set<int> first_runs_;
  // States renamed "X [devN]" (ListWorkloads) and the key later runs hold
  // them under.
  std::deque<WorkloadResult> renamed_;
  std::map<const WorkloadResult*, std::string> lookup_key_;
  int primary_run_ = 0;  // the current run of the workload being compared
  const Results& PrimaryRun() const { return current_runs_[static_cast<size_t>(primary_run_)]; }
  const WorkloadResult* failed_confirmation_ = nullptr;
  int failed_confirmation_run_ = 0;  // its index in current_runs_
  // Runs of one runner class on more than one CPU model (history and
  // current together): run speed factors are always removed, and the
  // environment section lists the CPUs with their speed relative to the
  // current run.
  bool cpu_mixed_ = false;
  // CPU models of the current run with too few timed workloads for their
  // own speed factor: those workloads are incomparable.
  std::set<std::string> unfactored_cpus_;
  std::vector<FactorColumn> time_columns_;  // the time family's factor columns
  Verdicts out_;
};

}  // namespace

Verdicts Compare(const std::vector<Results>& baseline_runs, const Results& current,
                 const Policy& policy, const CompareOptions& options) {
  return CompareRuns(baseline_runs, std::vector<Results>{current}, policy, options);
}

namespace {

// Whether a static result of `runs` holds numbered kernels (" #2").
bool HasNumberedStaticKernels(const std::vector<Results>& runs) {
  for (const Results& r : runs)
    for (const WorkloadResult& w : r.workloads)
      if (IsStaticResult(w))
        for (const KernelResult& k : w.kernels)
          if (k.name.find(" #") != std::string::npos) return true;
  return false;
}

}  // namespace

Verdicts CompareRuns(const std::vector<Results>& baseline_runs,
                     const std::vector<Results>& current_runs, const Policy& policy,
                     const CompareOptions& options) {
  GPUGATE_CHECK(!current_runs.empty());
  // Static kernels the binary numbers (" #2") are paired with the newest
  // baseline run's by their code before anything compares them by name.
  if (!baseline_runs.empty() &&
      (HasNumberedStaticKernels(current_runs) || HasNumberedStaticKernels({baseline_runs.back()}))) {
    std::vector<Results> paired = current_runs;
    std::map<std::string, const WorkloadResult*> base;
    for (const WorkloadResult& w : baseline_runs.back().workloads)
      if (IsStaticResult(w)) base.emplace(w.name, &w);
    for (Results& r : paired)
      for (WorkloadResult& w : r.workloads)
        if (auto it = base.find(w.name); it != base.end()) PairNumberedKernels(*it->second, &w);
    return Comparer(baseline_runs, paired, policy, options).Run();
  }
  return Comparer(baseline_runs, current_runs, policy, options).Run();
}

Outcome OutcomeFor(const Verdicts& verdicts, const PolicyDefaults& defaults) {
  bool fail = false, error = false, uncertain = false;
  int decided = 0, memory_decided = 0, undecided = 0;
  for (const MetricVerdict& m : verdicts.metrics) {
    if (m.reason == Reason::kCurrentFailed) error = true;  // whatever its severity
    if (m.severity == Severity::kOff) continue;
    switch (m.verdict) {
      case Verdict::kRegression:
        fail = fail || (!m.waived && m.severity == Severity::kFail);
        ++decided;
        break;
      case Verdict::kImprovement:
      case Verdict::kUnchanged:
        // Peak memory, one value per side beside the timings, decides no
        // pass while a timing stayed undecided: nothing about the speed
        // was decided (a regression of it still fails; below).
        (m.metric == "peak_memory" ? memory_decided : decided) += 1;
        break;
      case Verdict::kInconclusive:
        if (UntestableCommonShift(m)) break;
        ++undecided;
        uncertain = uncertain || defaults.on_inconclusive == OnInconclusive::kFail ||
                    UnguardedByPolicy(m, defaults.require_detectable.has_value());
        break;
      case Verdict::kIncomparable:
        ++undecided;
        uncertain = uncertain || defaults.on_incomparable == OnInconclusive::kFail;
        break;
      case Verdict::kSkipped:
        // Not run because its code did not change: the baseline's verdict
        // stands, a decision. Skipped or failed on either side (no device on
        // this runner, a benchmark that skipped itself, a baseline that
        // failed) compared nothing. (A failure of the current run is an
        // error outcome above.)
        decided += m.reason == Reason::kCodeUnchanged;
        break;
      default:
        // New and removed workloads had nothing to be compared with (a suite
        // of only new workloads, e.g. a first run, is not judged).
        break;
    }
  }
  // A policy rule that emits `fail` fails the gate like a regression does.
  for (const Suggestion& s : verdicts.suggestions) fail = fail || s.severity == "fail";
  // A failed workload first: its results are missing, whatever else
  // regressed (a regression beside it must not hide it from a gate that
  // lets regressions pass, such as the Action's fail-on: never).
  if (error) return Outcome::kError;
  if (fail) return Outcome::kFail;
  if (uncertain) return Outcome::kInconclusive;
  // Peak memory decides a pass where nothing else was left undecided (a
  // policy that gates memory alone, its timings off).
  if (undecided == 0) decided += memory_decided;
  // Nothing decided (every result undecided or with severity off, or nothing
  // compared at all) is never a pass.
  if (decided == 0) return Outcome::kNotJudged;
  return Outcome::kPass;
}

int ExitCodeFor(const Verdicts& verdicts) {
  switch (verdicts.outcome) {
    case Outcome::kPass: return static_cast<int>(ExitCode::kPass);
    case Outcome::kFail: return static_cast<int>(ExitCode::kRegression);
    case Outcome::kInconclusive: return static_cast<int>(ExitCode::kInconclusive);
    case Outcome::kError: return static_cast<int>(ExitCode::kToolError);
    case Outcome::kNotJudged: return static_cast<int>(ExitCode::kPass);
  }
  return static_cast<int>(ExitCode::kToolError);
}

bool WorthConfirming(const MetricVerdict& m) {
  if (m.severity == Severity::kOff || IsCommonWorkload(m.workload)) return false;
  // Another run would not help: one value per side, or values that each
  // read one value (a coarse timer reads the same again).
  if (m.reason == Reason::kNoReplication || m.reason == Reason::kNoSpread) return false;
  return (m.verdict == Verdict::kRegression && !m.waived) || m.verdict == Verdict::kInconclusive;
}

bool WaiverInForce(const Policy& policy, const MetricVerdict& m, const CompareOptions& options) {
  return FindWaiver(policy, m.workload, m.metric, options.today.empty() ? TodayUtc() : options.today) != nullptr;
}

std::vector<std::string> WorkloadsToConfirm(const Verdicts& verdicts) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const MetricVerdict& m : verdicts.metrics)
    if (WorthConfirming(m) && seen.insert(m.workload).second) out.push_back(m.workload);
  return out;
}

}  // namespace gpugate
