// gpugate_noise_eval: measures gpugate's judge on real noise. Reads a corpus
// of Google Benchmark JSON files (separate processes of one program running
// identical code) through the same loader `gpugate compare` uses, draws
// comparisons from disjoint processes the way users compare (two files, a
// history of K runs against J current runs, one value per side), and counts
// false alarms on identical code and detections of slowdowns injected into
// the current side. Rates carry 95% Wilson intervals. docs/real-noise.md.
#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/inputs.h"
#include "compare/compare.h"
#include "config/policy.h"
#include "gate/gate.h"
#include "harness/backends/synthetic_backend.h"
#include "model/results.h"
#include "model/verdicts.h"
#include "stats/summary.h"
#include "util/file_write.h"
#include "util/json_writer.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using detail::MixSeeds;
using detail::PortableRandom;

// ---------------------------------------------------------------------------
// Modes and options.

/// How a comparison is drawn: `history` baseline processes against `current`
/// current processes; `single_value` keeps one value per benchmark and side
/// (the first repetition), as files of github-action-benchmark hold;
/// `confirmations` > 0 runs `gpugate gate`'s loop (RunGate): the benchmarks
/// the judge leaves regressed or inconclusive are "re-run" up to that many
/// times, each re-run a further process drawn from the corpus.
struct Mode {
  std::string name;
  int history = 1;
  int current = 1;
  bool single_value = false;
  int confirmations = 0;
};

const std::vector<Mode>& AllModes() {
  static const std::vector<Mode> modes = {
      {"two-files", 1, 1, false, 0},    {"history5+1", 5, 1, false, 0},
      {"history10+1", 10, 1, false, 0}, {"history10+3", 10, 3, false, 0},
      {"single-value", 1, 1, true, 0},  {"gate10+1", 10, 1, false, kDefaultConfirmations},
      {"gate1+1", 1, 1, false, kDefaultConfirmations},
  };
  return modes;
}

/// Slowdowns injected into the current side (fractions: 0.05 = +5%).
const std::vector<double>& DefaultEffects() {
  static const std::vector<double> effects = {0.05, 0.10, 0.20, 0.50, 1.00, 2.00};
  return effects;
}

/// The one-value-per-side check: this change, one value per side.
constexpr double kSingleValueCheckEffect = 0.05;
/// The structural check on the MDE promise: at least this many injected
/// slowdowns at or beyond their stated MDE, of which at least this share caught.
constexpr int64_t kMdePromiseMinCases = 50;
constexpr double kMdePromiseFloor = 0.85;

struct Options {
  std::vector<std::string> corpus;          ///< baseline (and current) pool
  std::vector<std::string> current_corpus;  ///< current pool when set
  int cases = 400;
  uint64_t seed = 1;
  std::vector<Mode> modes = AllModes();
  std::vector<double> effects = DefaultEffects();
  std::string policy_path;
  std::string json_path;
  bool check_single_value = false;  ///< only the one-value +5% check; exit 1 on any regression
  bool brief = false;               ///< summary table only
  int show_false = 0;               ///< print this many identical-code false regressions
  bool modes_given = false;         ///< --modes named them: each must run
  int confirmations = kDefaultConfirmations;  ///< gate modes: re-runs at most (--confirm)
  bool confirm_given = false;
};

const char* kUsage =
    "usage: gpugate_noise_eval --corpus DIR [--corpus DIR ...] [options]\n"
    "  --corpus DIR          Google Benchmark JSON files of one program (searched\n"
    "                        recursively; repeatable, pooled); a benchmark\n"
    "                        measured in fewer than half the processes is left\n"
    "                        out and named\n"
    "  --current-corpus DIR  draw the current side from these files instead\n"
    "  --cases N             cases per mode and effect (default 400)\n"
    "  --seed S              seed of the draws (default 1)\n"
    "  --modes LIST          comma-separated: two-files,history5+1,history10+1,\n"
    "                        history10+3,single-value,gate10+1,gate1+1 (default: all\n"
    "                        the corpus has processes for; a named mode must fit)\n"
    "  --effects LIST        injected slowdowns in percent (default 5,10,20,50,100,200)\n"
    "  --confirm N           gate modes: confirmation re-runs at most (default 12,\n"
    "                        gpugate gate's own default; 1 to 20)\n"
    "  --policy FILE         policy file (default: the built-in policy)\n"
    "  --json FILE           also write the figures as JSON\n"
    "  --check-single-value  only: one value per side, +5% on 1-3 benchmarks;\n"
    "                        exit 1 if any regression verdict appears\n"
    "  --brief               print the summary table only\n"
    "  --show-false N        print the first N false regressions on identical code\n"
    "                        (mode, processes, workload, the verdict's sentence) to stderr\n";

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

[[noreturn]] void UsageError(const std::string& message) {
  std::cerr << "gpugate_noise_eval: error: " << message << "\n" << kUsage;
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--corpus") {
      o.corpus.push_back(value());
    } else if (arg == "--current-corpus") {
      o.current_corpus.push_back(value());
    } else if (arg == "--cases") {
      o.cases = std::atoi(value().c_str());
      if (o.cases < 1) UsageError("--cases must be at least 1");
    } else if (arg == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
    } else if (arg == "--modes") {
      o.modes.clear();
      o.modes_given = true;
      for (const std::string& name : SplitComma(value())) {
        auto it = std::find_if(AllModes().begin(), AllModes().end(),
                               [&](const Mode& m) { return m.name == name; });
        if (it == AllModes().end()) UsageError("unknown mode '" + name + "'");
        o.modes.push_back(*it);
      }
      if (o.modes.empty()) UsageError("--modes is empty");
    } else if (arg == "--effects") {
      o.effects.clear();
      for (const std::string& e : SplitComma(value())) {
        const double pct = std::atof(e.c_str());
        if (!(pct > 0)) UsageError("effects must be positive percentages, got '" + e + "'");
        o.effects.push_back(pct / 100.0);
      }
    } else if (arg == "--confirm") {
      o.confirm_given = true;
      o.confirmations = std::atoi(value().c_str());
      if (o.confirmations < 1 || o.confirmations > 20) UsageError("--confirm must be 1 to 20");
    } else if (arg == "--policy") {
      o.policy_path = value();
    } else if (arg == "--json") {
      o.json_path = value();
    } else if (arg == "--check-single-value") {
      o.check_single_value = true;
    } else if (arg == "--show-false") {
      o.show_false = std::atoi(value().c_str());
      if (o.show_false < 0) UsageError("--show-false must be at least 0");
    } else if (arg == "--brief") {
      o.brief = true;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      UsageError("unknown argument '" + arg + "'");
    }
  }
  if (o.corpus.empty()) UsageError("give at least one --corpus DIR");
  for (Mode& m : o.modes)
    if (m.confirmations > 0) m.confirmations = o.confirmations;
  if (o.check_single_value) {
    if (o.modes_given) UsageError("--check-single-value runs its own mode; drop --modes");
    o.modes = {*std::find_if(AllModes().begin(), AllModes().end(),
                             [](const Mode& m) { return m.single_value; })};
    o.effects = {kSingleValueCheckEffect};
  }
  if (o.confirm_given && std::none_of(o.modes.begin(), o.modes.end(),
                                      [](const Mode& m) { return m.confirmations > 0; }))
    UsageError("--confirm sets the gate mode's re-runs, and no gate mode runs");
  return o;
}

// ---------------------------------------------------------------------------
// Corpus.

/// One process of the benchmark program, as gpugate ingested it.
struct Process {
  std::string path;
  Results run;
  Results single;  ///< each benchmark reduced to its first repetition
};

struct Corpus {
  std::vector<Process> processes;
  std::vector<std::string> benchmarks;  ///< ok in at least half the processes
  std::vector<std::string> left_out;    ///< the others, with their counts
};

/// Every *.json under `dir` (recursively), or `dir` itself when it is a file.
std::vector<std::string> JsonFilesUnder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) return {dir};
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json") out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The first repetition of every workload as its only sample.
Results FirstRepetitionOnly(Results run) {
  for (WorkloadResult& w : run.workloads) {
    if (w.rounds.empty() || w.rounds.front().empty()) continue;
    w.rounds = {{w.rounds.front().front()}};
    w.counters["single_sample"] = 1;
    // Aggregate-only rows and summaries carry their own noise; one value per
    // side has none.
    w.counters.erase("only_aggregates");
    w.counters.erase("only_summary");
    w.summary = Summarize(AllSamples(w));
  }
  return run;
}

Corpus LoadCorpus(const std::vector<std::string>& dirs) {
  Corpus c;
  for (const std::string& dir : dirs) {
    const std::vector<std::string> files = JsonFilesUnder(dir);
    if (files.empty()) {
      std::cerr << "gpugate_noise_eval: error: no .json files under " << dir << "\n";
      std::exit(2);
    }
    for (const std::string& f : files) {
      Result<std::vector<Results>> runs = LoadRuns(f);
      if (!runs.ok()) {
        std::cerr << "gpugate_noise_eval: error: " << runs.error().message << "\n";
        std::exit(2);
      }
      for (Results& r : *runs) {
        Process p{f, std::move(r), {}};
        p.single = FirstRepetitionOnly(p.run);
        c.processes.push_back(std::move(p));
      }
    }
  }
  // Collection order (the files' own start times; ties keep path order), so
  // a drawn history is oldest first as a baseline history keeps it.
  std::stable_sort(c.processes.begin(), c.processes.end(), [](const Process& a, const Process& b) {
    return a.run.run.time_unix_ns < b.run.run.time_unix_ns;
  });
  // Benchmarks measured successfully in at least half the processes, in
  // first-seen order. Real collections have gaps (a benchmark added, removed
  // or failing in some processes); each case judges a benchmark only where
  // its drawn processes measured it (see Judgeable). Rarer ones are named.
  std::vector<std::string> order;
  std::map<std::string, int> ok;
  for (const Process& p : c.processes)
    for (const WorkloadResult& w : p.run.workloads) {
      if (!ok.count(w.name)) order.push_back(w.name);
      ok[w.name] += w.status == WorkloadStatus::kOk ? 1 : 0;
    }
  const size_t n = c.processes.size();
  for (const std::string& name : order) {
    if (2 * static_cast<size_t>(ok[name]) >= n) {
      c.benchmarks.push_back(name);
    } else {
      c.left_out.push_back(name + " (ok in " + std::to_string(ok[name]) + " of " +
                           std::to_string(n) + ")");
    }
  }
  return c;
}

// ---------------------------------------------------------------------------
// Counting.

/// hits out of n, with its 95% Wilson score interval (Wilson 1927; Brown, Cai
/// & DasGupta 2001 recommend it over the Wald interval for small n and rates
/// near 0 or 1).
struct Rate {
  int64_t hits = 0;
  int64_t n = 0;
  void Add(bool hit) {
    hits += hit;
    ++n;
  }
  double Value() const { return n > 0 ? static_cast<double>(hits) / static_cast<double>(n) : 0.0; }
  std::pair<double, double> Wilson() const {
    if (n == 0) return {0.0, 1.0};
    constexpr double z = 1.959963984540054;  // standard normal 0.975 quantile
    const double nn = static_cast<double>(n), p = Value();
    const double denom = 1 + z * z / nn;
    const double centre = (p + z * z / (2 * nn)) / denom;
    const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
    // The interval contains p exactly; clamping removes rounding at 0 and 1.
    return {std::clamp(centre - half, 0.0, p), std::clamp(centre + half, p, 1.0)};
  }
};

/// Verdicts of one workload over many cases.
struct Tally {
  std::map<std::string, int64_t> verdicts;  ///< "regression" -> count
  std::map<std::string, int64_t> reasons;   ///< reason code -> count
  std::vector<double> mde;                  ///< minimum detectable effects, when stated
  int64_t total = 0;
  void Add(const std::string& verdict, const std::string& reason, std::optional<double> mde_value) {
    ++verdicts[verdict];
    ++reasons[reason.empty() ? "(none)" : reason];
    if (mde_value && std::isfinite(*mde_value)) mde.push_back(*mde_value);
    ++total;
  }
  void Merge(const Tally& o) {
    for (const auto& [k, v] : o.verdicts) verdicts[k] += v;
    for (const auto& [k, v] : o.reasons) reasons[k] += v;
    mde.insert(mde.end(), o.mde.begin(), o.mde.end());
    total += o.total;
  }
};

// The verdict model is changing: read its reason and minimum detectable effect
// whichever way this version spells them (string reason_code or enum reason;
// mde present or not).
template <class M>
std::string ReasonOf(const M& m) {
  if constexpr (requires { m.reason_code; }) {
    return m.reason_code;
  } else {
    return ToString(m.reason);
  }
}

template <class M>
std::optional<double> MdeOf(const M& m) {
  if constexpr (requires { m.mde; }) {
    return std::optional<double>(m.mde);
  } else {
    return std::nullopt;
  }
}

template <class M = MetricVerdict>
constexpr bool VerdictsHaveMde() {
  return requires(const M& m) { m.mde; };
}

/// Identical code: no injection.
struct NullFigures {
  Rate suite_alarm;        ///< cases with any regression verdict on time (any workload)
  Rate bench_regression;   ///< benchmark verdicts that are regressions
  Rate suite_level_regression;  ///< cases whose suite-level entry (common shift) is a regression
  std::map<std::string, Tally> per_benchmark;
  Tally suite_level;       ///< verdicts on workloads that are not benchmarks ("(suite)")
};

/// Slowdown `effect` injected into 1-3 benchmarks of the current side.
struct EffectFigures {
  double effect = 0;
  Rate detected;          ///< injected benchmarks with a regression verdict on time
  Rate other_false;       ///< other benchmarks with a regression verdict on time
  Rate case_any_false;    ///< cases with a regression on a benchmark not injected (or suite level)
  Rate case_any_regression;  ///< cases with any regression verdict on time
  /// Injected benchmarks whose verdict stated an MDE no larger than the
  /// injected effect: the share caught, which the MDE promises is >= 90%.
  Rate within_mde;
  Tally injected;         ///< verdicts of the injected benchmarks
  Tally others;
};

struct ModeFigures {
  Mode mode;
  NullFigures null;
  std::vector<EffectFigures> effects;
  double seconds = 0;
  int64_t comparisons = 0;
  int64_t reruns = 0;  ///< gate modes: confirmation re-runs over all cases
  int64_t identical_reruns = 0;  ///< gate modes: those of the identical-code cases
  int64_t identical_comparisons = 0;  ///< identical-code cases judged
  int64_t rerun_benchmarks = 0;  ///< gate modes: benchmarks measured in those re-runs
  int64_t first_benchmarks = 0;  ///< gate modes: benchmarks measured in the first runs
};

// ---------------------------------------------------------------------------
// Drawing and judging cases.

/// `k` distinct values of `pool` in random order (a partial Fisher-Yates
/// shuffle). Precondition: k <= pool.size().
std::vector<int> DrawDistinct(PortableRandom& rng, std::vector<int> pool, size_t k) {
  for (size_t i = 0; i < k; ++i) {
    const size_t j = i + static_cast<size_t>(rng.Uniform() * static_cast<double>(pool.size() - i));
    std::swap(pool[i], pool[j]);
  }
  pool.resize(k);
  return pool;
}

/// 0, 1, ..., n - 1.
std::vector<int> Iota(size_t n) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i);
  return v;
}

/// Multiplies every sample time of `w` by `factor` and keeps what is derived
/// from time consistent (summary, cpu_time, per-second rates).
void SlowDown(WorkloadResult* w, double factor) {
  for (auto& round : w->rounds)
    for (double& s : round) s *= factor;
  w->summary = Summarize(AllSamples(*w));
  if (w->bytes_per_second) *w->bytes_per_second /= factor;
  if (w->flops_per_second) *w->flops_per_second /= factor;
  for (auto& [key, value] : w->counters) {
    if (key == "cpu_time") value *= factor;
    if (key.size() > 11 && key.compare(key.size() - 11, 11, "_per_second") == 0) value /= factor;
  }
}

std::string Join(const std::vector<std::string>& v, const std::string& sep);

class Evaluator {
 public:
  Evaluator(const Corpus& base, const Corpus* current, const std::vector<std::string>& benchmarks,
            const Policy& policy, const Options& options)
      : base_(base), current_(current), benchmarks_(benchmarks), policy_(policy), options_(options) {
    bench_set_.insert(benchmarks_.begin(), benchmarks_.end());
  }

  /// Every case of one mode: identical code, then each effect.
  ModeFigures Run(const Mode& mode, int mode_index) {
    const auto start = std::chrono::steady_clock::now();
    ModeFigures out;
    out.mode = mode;
    comparisons_ = 0;
    reruns_ = 0;
    rerun_benchmarks_ = first_benchmarks_ = 0;
    if (!options_.check_single_value) {
      PortableRandom rng(MixSeeds(options_.seed, static_cast<uint64_t>(mode_index), 0));
      for (int i = 0; i < options_.cases; ++i) NullCase(mode, rng, &out.null);
      out.identical_reruns = reruns_;
      out.identical_comparisons = comparisons_;
    }
    for (size_t e = 0; e < options_.effects.size(); ++e) {
      EffectFigures f;
      f.effect = options_.effects[e];
      PortableRandom rng(MixSeeds(options_.seed, static_cast<uint64_t>(mode_index),
                                  EffectStream(options_.effects[e])));
      for (int i = 0; i < options_.cases; ++i) InjectedCase(mode, f.effect, rng, &f);
      out.effects.push_back(std::move(f));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.comparisons = comparisons_;
    out.reruns = reruns_;
    out.rerun_benchmarks = rerun_benchmarks_;
    out.first_benchmarks = first_benchmarks_;
    return out;
  }

  /// Injected benchmarks that had no time verdict (a broken count).
  int64_t missing_injected() const { return missing_injected_; }

 private:
  // Seed stream of an effect: its size in basis points, so a case's draws do
  // not depend on which other effects run.
  static uint64_t EffectStream(double effect) {
    return 1 + static_cast<uint64_t>(std::llround(effect * 10000));
  }

  struct Draw {
    std::vector<Results> baseline, current;
    std::vector<std::string> baseline_paths, current_paths;
  };

  // Disjoint processes for the two sides; the history in collection order
  // (oldest first, as a baseline history keeps it; see LoadCorpus).
  Draw DrawRuns(const Mode& mode, PortableRandom& rng) {
    Draw d;
    auto pick = [&](const Process& p) -> const Results& { return mode.single_value ? p.single : p.run; };
    const std::vector<int> all = Iota(base_.processes.size());
    if (current_ == nullptr) {
      std::vector<int> idx = DrawDistinct(rng, all, mode.history + mode.current + mode.confirmations);
      std::vector<int> hist(idx.begin(), idx.begin() + mode.history);
      std::sort(hist.begin(), hist.end());
      for (int i : hist) {
        d.baseline.push_back(pick(base_.processes[i]));
        d.baseline_paths.push_back(base_.processes[i].path);
      }
      for (int j = mode.history; j < static_cast<int>(idx.size()); ++j) {
        d.current.push_back(pick(base_.processes[idx[j]]));
        d.current_paths.push_back(base_.processes[idx[j]].path);
      }
    } else {
      std::vector<int> hist = DrawDistinct(rng, all, mode.history);
      std::sort(hist.begin(), hist.end());
      for (int i : hist) {
        d.baseline.push_back(pick(base_.processes[i]));
        d.baseline_paths.push_back(base_.processes[i].path);
      }
      for (int j : DrawDistinct(rng, Iota(current_->processes.size()), mode.current + mode.confirmations)) {
        d.current.push_back(pick(current_->processes[j]));
        d.current_paths.push_back(current_->processes[j].path);
      }
    }
    return d;
  }

  // A benchmark a case judges: measured in every current process drawn
  // (confirmations included) and in at least one baseline process (a
  // history with gaps is what a baseline keeps).
  static bool Judgeable(const Draw& d, const std::string& name) {
    auto ok = [&](const Results& r) {
      const WorkloadResult* w = r.Find(name);
      return w != nullptr && w->status == WorkloadStatus::kOk;
    };
    return std::all_of(d.current.begin(), d.current.end(), ok) &&
           std::any_of(d.baseline.begin(), d.baseline.end(), ok);
  }

  Verdicts Judge(const Mode& mode, const Draw& d) {
    ++comparisons_;
    CompareOptions co;
    co.today = "2026-01-01";  // waivers: a fixed day keeps the figures reproducible
    co.plots = false;         // no report is drawn from these verdicts
    if (mode.confirmations == 0) return CompareRuns(d.baseline, d.current, policy_, co);
    // gpugate gate's own loop; "measuring" serves the next drawn process,
    // restricted to the benchmarks asked for.
    std::vector<WorkloadSpec> specs;
    for (const WorkloadResult& w : d.current.front().workloads) {
      WorkloadSpec spec;
      spec.name = w.name;
      specs.push_back(std::move(spec));
    }
    size_t next = 0;
    SuiteRunner serve = [&](const std::vector<WorkloadSpec>& asked, const RunOptions&,
                            ProgressSink*) {
      GPUGATE_CHECK(next < d.current.size());
      const Results& from = d.current[next++];
      Results r;
      r.run = from.run;
      for (const WorkloadSpec& spec : asked)
        if (const WorkloadResult* w = from.Find(spec.name)) r.workloads.push_back(*w);
      (next == 1 ? first_benchmarks_ : rerun_benchmarks_) += static_cast<int64_t>(r.workloads.size());
      return r;
    };
    GateOptions go;
    go.confirmations = mode.confirmations;
    go.compare = co;
    GateOutcome out = RunGate(specs, d.baseline, policy_, go, nullptr, serve);
    reruns_ += static_cast<int64_t>(out.runs.size()) - 1;
    return std::move(out.verdicts);
  }

  void NullCase(const Mode& mode, PortableRandom& rng, NullFigures* f) {
    const Draw d = DrawRuns(mode, rng);
    const Verdicts v = Judge(mode, d);
    bool any = false, suite_level = false;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric != "time") continue;
      const bool regression = m.verdict == Verdict::kRegression;
      any = any || regression;
      if (bench_set_.count(m.workload) && Judgeable(d, m.workload)) {
        f->bench_regression.Add(regression);
        f->per_benchmark[m.workload].Add(ToString(m.verdict), ReasonOf(m), MdeOf(m));
        if (regression && shown_false_ < options_.show_false) {
          ++shown_false_;
          // Names and paths are the corpus's text: escaped for the terminal.
          std::cerr << "false regression (" << mode.name << "): " << EscapeTerminal(m.workload)
                    << ": " << EscapeTerminal(m.sentence)
                    << "\n  history: " << EscapeTerminal(Join(d.baseline_paths, " "))
                    << "\n  current: " << EscapeTerminal(Join(d.current_paths, " ")) << "\n";
        }
      } else {
        suite_level = suite_level || regression;
        f->suite_level.Add(ToString(m.verdict), ReasonOf(m), MdeOf(m));
      }
    }
    f->suite_alarm.Add(any);
    f->suite_level_regression.Add(suite_level);
  }

  void InjectedCase(const Mode& mode, double effect, PortableRandom& rng, EffectFigures* f) {
    Draw d = DrawRuns(mode, rng);
    const size_t count = 1 + static_cast<size_t>(rng.Uniform() * 3);
    std::vector<std::string> candidates;
    for (const std::string& b : benchmarks_)
      if (Judgeable(d, b)) candidates.push_back(b);
    if (candidates.empty()) return;  // these processes share no benchmark: no case
    std::set<std::string> injected;
    for (int i : DrawDistinct(rng, Iota(candidates.size()), std::min(count, candidates.size())))
      injected.insert(candidates[i]);
    for (Results& run : d.current)
      for (WorkloadResult& w : run.workloads)
        if (injected.count(w.name)) SlowDown(&w, 1 + effect);

    const Verdicts v = Judge(mode, d);
    bool any = false, any_false = false;
    std::set<std::string> seen;
    for (const MetricVerdict& m : v.metrics) {
      if (m.metric != "time") continue;
      const bool regression = m.verdict == Verdict::kRegression;
      any = any || regression;
      if (injected.count(m.workload)) {
        seen.insert(m.workload);
        f->detected.Add(regression);
        f->injected.Add(ToString(m.verdict), ReasonOf(m), MdeOf(m));
        if (auto mde = MdeOf(m); mde && *mde <= effect) f->within_mde.Add(regression);
      } else if (bench_set_.count(m.workload) && Judgeable(d, m.workload)) {
        f->other_false.Add(regression);
        f->others.Add(ToString(m.verdict), ReasonOf(m), MdeOf(m));
        any_false = any_false || regression;
      } else {
        any_false = any_false || regression;  // a suite-level regression is not the injected one
      }
    }
    missing_injected_ += static_cast<int64_t>(injected.size() - seen.size());
    f->case_any_false.Add(any_false);
    f->case_any_regression.Add(any);
  }

  const Corpus& base_;
  const Corpus* current_;
  const std::vector<std::string>& benchmarks_;
  std::set<std::string> bench_set_;
  const Policy& policy_;
  const Options& options_;
  int64_t comparisons_ = 0;
  int64_t missing_injected_ = 0;
  int shown_false_ = 0;
  int64_t reruns_ = 0;  ///< gate modes: confirmation re-runs made
  int64_t rerun_benchmarks_ = 0, first_benchmarks_ = 0;
};

// ---------------------------------------------------------------------------
// Rendering (pure: figures in, text out).

std::string Pct(double fraction, int decimals = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, 100 * fraction);
  return buf;
}

/// "3.5% [2.1, 5.6]" (point estimate and 95% Wilson interval, in percent).
std::string RateText(const Rate& r) {
  if (r.n == 0) return "–";
  const auto [lo, hi] = r.Wilson();
  const int d = hi < 0.01 ? 2 : 1;  // keep a small upper bound visible
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%% [%.*f, %.*f]", d, 100 * r.Value(), d, 100 * lo, d,
                100 * hi);
  return buf;
}

std::optional<double> MedianOf(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  return MedianInPlace(v);
}

// A number with two decimals.
std::string TwoDecimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// "97.1% [93.4, 98.8] of 140", or "none" when no injected benchmark's stated
// MDE was at most the effect.
std::string WithinMdeText(const Rate& r) {
  if (r.n == 0) return "none";
  return RateText(r) + " of " + std::to_string(r.n);
}

std::string MdeText(const std::vector<double>& mde) {
  auto m = MedianOf(mde);
  return m ? "+" + Pct(*m) : "–";
}

std::string EffectHeader(double effect) { return "+" + Pct(effect, 0); }

const std::vector<std::string>& VerdictColumns() {
  static const std::vector<std::string> v = {"regression", "improvement", "unchanged",
                                             "inconclusive"};
  return v;
}

int64_t OtherVerdicts(const Tally& t) {
  int64_t known = 0;
  for (const std::string& c : VerdictColumns()) {
    auto it = t.verdicts.find(c);
    known += it == t.verdicts.end() ? 0 : it->second;
  }
  return t.total - known;
}

int64_t CountOf(const std::map<std::string, int64_t>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

std::string VerdictMix(const Tally& t) {
  if (t.total == 0) return "–";
  std::string out;
  const char* shortname[] = {"reg", "imp", "unch", "inc"};
  for (size_t i = 0; i < VerdictColumns().size(); ++i) {
    if (!out.empty()) out += " / ";
    out += std::string(shortname[i]) + " " +
           Pct(static_cast<double>(CountOf(t.verdicts, VerdictColumns()[i])) / t.total, 0);
  }
  return out;
}

struct Report {
  std::vector<std::string> corpus, current_corpus;
  int processes = 0, current_processes = 0;
  std::vector<std::string> benchmarks;
  std::vector<std::string> left_out;  ///< benchmarks ok in fewer than half the processes
  std::string policy_name;
  int cases = 0;
  uint64_t seed = 0;
  bool have_mde = false;
  std::vector<double> effects;
  std::vector<ModeFigures> modes;
  std::vector<std::string> skipped;  ///< default modes the corpus is too small for
};

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Over every effect of a mode: injected benchmarks whose stated MDE was at
// most the injected slowdown, and how many of them were caught.
Rate WithinMde(const ModeFigures& m) {
  Rate all;
  for (const EffectFigures& f : m.effects) {
    all.hits += f.within_mde.hits;
    all.n += f.within_mde.n;
  }
  return all;
}

std::string RenderSummary(const Report& r) {
  std::ostringstream o;
  o << "| mode | identical code: suites with a regression | identical code: benchmark "
       "false-regression rate";
  for (double e : r.effects) o << " | detected " << EffectHeader(e);
  o << " | injected cases: other benchmarks falsely regressed";
  if (r.have_mde)
    o << " | median MDE (identical code) | injected slowdowns ≥ their stated MDE: caught";
  o << " |\n|---|---|---";
  for (size_t i = 0; i < r.effects.size(); ++i) o << "|---";
  o << "|---" << (r.have_mde ? "|---|---" : "") << "|\n";
  for (const ModeFigures& m : r.modes) {
    Rate other;
    for (const EffectFigures& f : m.effects) {
      other.hits += f.other_false.hits;
      other.n += f.other_false.n;
    }
    o << "| " << m.mode.name << " | " << RateText(m.null.suite_alarm) << " | "
      << RateText(m.null.bench_regression);
    for (const EffectFigures& f : m.effects) o << " | " << RateText(f.detected);
    o << " | " << RateText(other);
    if (r.have_mde) {
      Tally all;
      for (const auto& [name, t] : m.null.per_benchmark) all.Merge(t);
      o << " | " << MdeText(all.mde) << " | " << WithinMdeText(WithinMde(m));
    }
    o << " |\n";
  }
  return o.str();
}

std::string RenderMode(const Report& r, const ModeFigures& m) {
  std::ostringstream o;
  o << "\n### " << m.mode.name << " (" << m.mode.history << " baseline process"
    << (m.mode.history > 1 ? "es" : "") << " vs " << m.mode.current << " current"
    << (m.mode.single_value ? ", one value per benchmark and side" : "")
    << (m.mode.confirmations > 0
            ? ", through gpugate gate's loop: benchmarks left regressed or inconclusive re-run up to " +
                  std::to_string(m.mode.confirmations) + " times, each re-run a further process"
            : "")
    << ")\n";
  if (m.mode.confirmations > 0 && m.comparisons > 0)
    o << "\nConfirmation re-runs: " << TwoDecimals(static_cast<double>(m.reruns) / m.comparisons)
      << " per case on average (each re-run one more process of the doubtful benchmarks); "
      << TwoDecimals(static_cast<double>(m.rerun_benchmarks) / m.comparisons)
      << " benchmarks re-run per case, against "
      << TwoDecimals(static_cast<double>(m.first_benchmarks) / m.comparisons)
      << " measured in the first run.\n";
  if (m.mode.confirmations > 0 && m.identical_comparisons > 0) {
    const double identical = static_cast<double>(m.identical_reruns) / m.identical_comparisons;
    const int64_t injected_cases = m.comparisons - m.identical_comparisons;
    o << "Identical code: " << TwoDecimals(identical) << " re-runs per case";
    if (injected_cases > 0)
      o << "; injected slowdowns: "
        << TwoDecimals(static_cast<double>(m.reruns - m.identical_reruns) / injected_cases);
    o << ".\n";
  }
  if (m.null.suite_alarm.n > 0) {
    o << "\nIdentical code, " << m.null.suite_alarm.n
      << " cases: verdicts on metric time per benchmark.\n\n| benchmark | regression | "
         "improvement | unchanged | inconclusive | other |"
      << (r.have_mde ? " median MDE |" : "") << "\n|---|---|---|---|---|---|"
      << (r.have_mde ? "---|" : "") << "\n";
    Tally all;
    auto row = [&](const std::string& name, const Tally& t) {
      o << "| " << EscapeMarkdown(name);
      for (const std::string& c : VerdictColumns()) o << " | " << CountOf(t.verdicts, c);
      o << " | " << OtherVerdicts(t) << (r.have_mde ? " | " + MdeText(t.mde) : "") << " |\n";
    };
    for (const std::string& b : r.benchmarks) {
      auto it = m.null.per_benchmark.find(b);
      if (it == m.null.per_benchmark.end()) continue;
      row(b, it->second);
      all.Merge(it->second);
    }
    if (m.null.suite_level.total > 0) row("(suite level)", m.null.suite_level);
    o << "\nReason codes on identical code (benchmarks): ";
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (const auto& [k, v] : all.reasons) reasons.push_back({v, k});
    std::sort(reasons.rbegin(), reasons.rend());
    std::vector<std::string> parts;
    for (const auto& [v, k] : reasons)
      parts.push_back("`" + k + "` " + Pct(static_cast<double>(v) / all.total));
    o << Join(parts, ", ") << ".\n";
  }
  if (!m.effects.empty()) {
    o << "\nInjected slowdowns (1-3 benchmarks of the current side):\n\n| effect | detected "
         "| verdicts of injected | other benchmarks falsely regressed | cases with a false "
         "regression | cases with any regression |"
      << (r.have_mde ? " median MDE (injected) | caught where the stated MDE ≤ effect (promised ≥ 90%) |"
                     : "")
      << "\n|---|---|---|---|---|---|" << (r.have_mde ? "---|---|" : "") << "\n";
    for (const EffectFigures& f : m.effects) {
      o << "| " << EffectHeader(f.effect) << " | " << RateText(f.detected) << " | "
        << VerdictMix(f.injected) << " | " << RateText(f.other_false) << " | "
        << RateText(f.case_any_false) << " | " << RateText(f.case_any_regression)
        << (r.have_mde ? " | " + MdeText(f.injected.mde) + " | " + WithinMdeText(f.within_mde) : "")
        << " |\n";
    }
  }
  return o.str();
}

/// The one-value-per-side check's sentence, when that case ran.
std::optional<std::string> SingleValueSentence(const Report& r) {
  for (const ModeFigures& m : r.modes) {
    if (!m.mode.single_value) continue;
    for (const EffectFigures& f : m.effects) {
      if (std::fabs(f.effect - kSingleValueCheckEffect) > 1e-12) continue;
      return "One value per side, " + EffectHeader(f.effect) + " on 1-3 benchmarks: " +
             std::to_string(f.case_any_regression.hits) + " of " +
             std::to_string(f.case_any_regression.n) +
             " cases got a regression verdict (" + RateText(f.case_any_regression) + ").";
    }
  }
  return std::nullopt;
}

std::string RenderMarkdown(const Report& r, bool brief) {
  std::ostringstream o;
  o << "## Real-noise evaluation\n\n";
  o << "Corpus: " << r.processes << " processes (" << EscapeMarkdown(Join(r.corpus, ", ")) << ")";
  if (!r.current_corpus.empty())
    o << "; current side from " << r.current_processes << " processes ("
      << EscapeMarkdown(Join(r.current_corpus, ", ")) << ")";
  o << "; " << r.benchmarks.size() << (r.benchmarks.size() == 1 ? " benchmark" : " benchmarks");
  if (!r.left_out.empty())
    o << " (" << r.left_out.size() << " more left out: ok in fewer than half the processes)";
  for (const ModeFigures& m : r.modes)
    if (m.mode.confirmations > 0) {
      o << "; gate: up to " << m.mode.confirmations << " confirmation re-run"
        << (m.mode.confirmations == 1 ? "" : "s");
      break;
    }
  o << "; policy `" << r.policy_name << "`; "
    << r.cases << " cases per mode and effect; seed " << r.seed << ".\n";
  o << "Rates on metric `time` with 95% Wilson intervals (in percent).";
  if (!r.have_mde) o << " The verdict model states no minimum detectable effect.";
  o << "\n\n" << RenderSummary(r);
  if (!r.skipped.empty())
    o << "\nNot run, the corpus has too few processes: " << Join(r.skipped, ", ") << ".\n";
  if (auto s = SingleValueSentence(r)) o << "\n" << *s << "\n";
  if (!brief)
    for (const ModeFigures& m : r.modes) o << RenderMode(r, m);
  return o.str();
}

template <class W>
void WriteRate(W& w, const char* key, const Rate& r) {
  const auto [lo, hi] = r.Wilson();
  w.Key(key);
  w.StartObject();
  w.Key("hits");
  w.Int64(r.hits);
  w.Key("n");
  w.Int64(r.n);
  w.Key("rate");
  WriteJsonDouble(w, r.Value());
  w.Key("wilson95");
  w.StartArray();
  WriteJsonDouble(w, lo);
  WriteJsonDouble(w, hi);
  w.EndArray();
  w.EndObject();
}

template <class W>
void WriteTally(W& w, const Tally& t) {
  w.StartObject();
  w.Key("total");
  w.Int64(t.total);
  w.Key("verdicts");
  w.StartObject();
  for (const auto& [k, v] : t.verdicts) {
    w.Key(k.c_str());
    w.Int64(v);
  }
  w.EndObject();
  w.Key("reasons");
  w.StartObject();
  for (const auto& [k, v] : t.reasons) {
    WriteJsonString(w, k);
    w.Int64(v);
  }
  w.EndObject();
  w.Key("median_mde");
  if (auto m = MedianOf(t.mde)) WriteJsonDouble(w, *m);
  else w.Null();
  w.EndObject();
}

std::string RenderJson(const Report& r) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("schema");
  w.String("gpugate/noise-eval/v1");
  w.Key("corpus");
  w.StartArray();
  for (const auto& c : r.corpus) WriteJsonString(w, c);
  w.EndArray();
  w.Key("current_corpus");
  w.StartArray();
  for (const auto& c : r.current_corpus) WriteJsonString(w, c);
  w.EndArray();
  w.Key("processes");
  w.Int(r.processes);
  w.Key("benchmarks");
  w.StartArray();
  for (const auto& b : r.benchmarks) WriteJsonString(w, b);
  w.EndArray();
  w.Key("left_out");
  w.StartArray();
  for (const auto& b : r.left_out) WriteJsonString(w, b);
  w.EndArray();
  w.Key("policy");
  WriteJsonString(w, r.policy_name);
  w.Key("cases");
  w.Int(r.cases);
  w.Key("seed");
  w.Uint64(r.seed);
  w.Key("skipped_modes");
  w.StartArray();
  for (const std::string& name : r.skipped) WriteJsonString(w, name);
  w.EndArray();
  w.Key("modes");
  w.StartArray();
  for (const ModeFigures& m : r.modes) {
    w.StartObject();
    w.Key("mode");
    WriteJsonString(w, m.mode.name);
    w.Key("history");
    w.Int(m.mode.history);
    w.Key("current");
    w.Int(m.mode.current);
    w.Key("single_value");
    w.Bool(m.mode.single_value);
    w.Key("confirmations");
    w.Int(m.mode.confirmations);
    w.Key("comparisons");
    w.Int64(m.comparisons);
    w.Key("confirmation_reruns");
    w.Int64(m.reruns);
    w.Key("identical_confirmation_reruns");
    w.Int64(m.identical_reruns);
    w.Key("rerun_benchmarks");
    w.Int64(m.rerun_benchmarks);
    w.Key("first_run_benchmarks");
    w.Int64(m.first_benchmarks);
    w.Key("seconds");
    WriteJsonDouble(w, m.seconds);
    w.Key("identical");
    w.StartObject();
    WriteRate(w, "suite_alarm", m.null.suite_alarm);
    WriteRate(w, "benchmark_regression", m.null.bench_regression);
    WriteRate(w, "suite_level_regression", m.null.suite_level_regression);
    w.Key("per_benchmark");
    w.StartObject();
    for (const auto& [name, t] : m.null.per_benchmark) {
      WriteJsonString(w, name);
      WriteTally(w, t);
    }
    w.EndObject();
    w.Key("suite_level");
    WriteTally(w, m.null.suite_level);
    w.EndObject();
    WriteRate(w, "caught_within_mde", WithinMde(m));
    w.Key("injected");
    w.StartArray();
    for (const EffectFigures& f : m.effects) {
      w.StartObject();
      w.Key("effect");
      WriteJsonDouble(w, f.effect);
      WriteRate(w, "detected", f.detected);
      WriteRate(w, "other_false_regression", f.other_false);
      WriteRate(w, "cases_with_false_regression", f.case_any_false);
      WriteRate(w, "cases_with_any_regression", f.case_any_regression);
      WriteRate(w, "caught_within_mde", f.within_mde);
      w.Key("injected_verdicts");
      WriteTally(w, f.injected);
      w.Key("other_verdicts");
      WriteTally(w, f.others);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

// ---------------------------------------------------------------------------
// Structural checks: what must hold whatever the judge decides.

std::vector<std::string> StructuralProblems(const Report& r, int64_t missing_injected) {
  std::vector<std::string> out;
  if (r.benchmarks.empty()) out.push_back("no benchmark was measured in at least half the processes");
  if (missing_injected > 0)
    out.push_back(std::to_string(missing_injected) +
                  " injected benchmarks had no time verdict in the comparison");
  auto check = [&](const std::string& where, const Rate& rate, bool need_cases) {
    if (need_cases && rate.n == 0) out.push_back(where + ": no cases");
    const auto [lo, hi] = rate.Wilson();
    const double v = rate.Value();
    if (!(v >= 0 && v <= 1 && lo >= 0 && hi <= 1 && lo <= v && v <= hi))
      out.push_back(where + ": rate outside [0, 1] or outside its interval");
  };
  for (const ModeFigures& m : r.modes) {
    if (m.null.suite_alarm.n > 0 || !m.effects.empty()) {
      check(m.mode.name + " identical", m.null.suite_alarm, false);
      check(m.mode.name + " identical benchmarks", m.null.bench_regression, false);
    }
    if (m.null.suite_alarm.n == 0 && m.effects.empty()) out.push_back(m.mode.name + ": no cases");
    for (const EffectFigures& f : m.effects) {
      const std::string where = m.mode.name + " " + EffectHeader(f.effect);
      check(where + " detected", f.detected, true);
      check(where + " other", f.other_false, false);
      check(where + " cases", f.case_any_regression, true);
    }
    // The MDE promises 90% power. Whatever the judge, a stated MDE that the
    // injected slowdowns beyond it do not bear out is a false promise in
    // every report; allow the heavy tails and the draws some slack.
    const Rate within = WithinMde(m);
    if (within.n >= kMdePromiseMinCases && within.Value() < kMdePromiseFloor)
      out.push_back(m.mode.name + ": of " + std::to_string(within.n) +
                    " injected slowdowns at least their stated MDE only " + RateText(within) +
                    " were caught (the MDE promises 90%)");
  }
  return out;
}

// ---------------------------------------------------------------------------

int Main(int argc, char** argv) {
  const Options options = ParseArgs(argc, argv);
  const auto start = std::chrono::steady_clock::now();

  Policy policy = DefaultPolicy();
  if (!options.policy_path.empty()) {
    Result<Policy> p = LoadPolicyFile(options.policy_path);
    if (!p.ok()) {
      std::cerr << "gpugate_noise_eval: error: " << p.error().message << "\n";
      return 2;
    }
    policy = std::move(*p);
  }

  const Corpus base = LoadCorpus(options.corpus);
  std::optional<Corpus> current;
  if (!options.current_corpus.empty()) current = LoadCorpus(options.current_corpus);
  std::vector<std::string> benchmarks;
  for (const std::string& b : base.benchmarks)
    if (!current || std::count(current->benchmarks.begin(), current->benchmarks.end(), b))
      benchmarks.push_back(b);
  std::vector<std::string> left_out = base.left_out;
  if (current) left_out.insert(left_out.end(), current->left_out.begin(), current->left_out.end());
  constexpr size_t kLeftOutShown = 5;
  for (size_t i = 0; i < std::min(left_out.size(), kLeftOutShown); ++i)
    std::cerr << "gpugate_noise_eval: left out " << EscapeTerminal(left_out[i])
              << ": ok in fewer than half the processes\n";
  if (left_out.size() > kLeftOutShown)
    std::cerr << "gpugate_noise_eval: left out " << left_out.size() - kLeftOutShown
              << " more benchmarks the same way (--json lists them all)\n";
  if (benchmarks.empty()) {
    std::cerr << "gpugate_noise_eval: error: no benchmark was measured in at least half of the "
              << base.processes.size() << " processes"
              << (current ? " and of the current corpus's " +
                                std::to_string(current->processes.size())
                          : std::string())
              << "; are these files of one program?\n";
    return 2;
  }
  std::cerr << "gpugate_noise_eval: " << base.processes.size() << " processes, "
            << benchmarks.size() << (benchmarks.size() == 1 ? " benchmark" : " benchmarks")
            << " loaded\n";

  Report report;
  report.corpus = options.corpus;
  report.current_corpus = options.current_corpus;
  report.processes = static_cast<int>(base.processes.size());
  report.current_processes = current ? static_cast<int>(current->processes.size()) : 0;
  report.benchmarks = benchmarks;
  report.left_out = left_out;
  report.policy_name = policy.name;
  report.cases = options.cases;
  report.seed = options.seed;
  report.have_mde = VerdictsHaveMde();
  report.effects = options.effects;

  Evaluator evaluator(base, current ? &*current : nullptr, benchmarks, policy, options);
  for (const Mode& mode : options.modes) {
    const int current_side = mode.current + mode.confirmations;
    const int need_base = mode.history + (current ? 0 : current_side);
    if (need_base > report.processes || (current && current_side > report.current_processes)) {
      // A mode asked for by name must run; of the default set, the modes a
      // small corpus cannot serve are skipped, and said so.
      std::cerr << "gpugate_noise_eval: " << (options.modes_given ? "error: " : "")
                << "mode " << mode.name << " needs " << mode.history + current_side
                << " processes; the corpus has " << report.processes
                << (mode.confirmations > 0 ? " (a smaller --confirm needs fewer)" : "")
                << (options.modes_given ? "\n" : " (skipped)\n");
      if (options.modes_given) return 2;
      report.skipped.push_back(mode.name);
      continue;
    }
    const int index = static_cast<int>(
        std::find_if(AllModes().begin(), AllModes().end(),
                     [&](const Mode& m) { return m.name == mode.name; }) -
        AllModes().begin());
    std::cerr << "gpugate_noise_eval: mode " << mode.name << " ..." << std::flush;
    ModeFigures f = evaluator.Run(mode, index);
    std::fprintf(stderr, " %lld comparisons in %.1f s\n", static_cast<long long>(f.comparisons),
                 f.seconds);
    report.modes.push_back(std::move(f));
  }

  if (report.modes.empty()) {
    std::cerr << "gpugate_noise_eval: error: the corpus has " << report.processes
              << " process(es); every mode needs at least 2\n";
    return 2;
  }
  std::cout << RenderMarkdown(report, options.brief || options.check_single_value);
  if (!options.json_path.empty()) {
    if (Status st = WriteFileAtomic(options.json_path, RenderJson(report)); !st.ok()) {
      std::cerr << "gpugate_noise_eval: error: " << st.error().message << "\n";
      return 3;
    }
  }
  std::fprintf(stderr, "gpugate_noise_eval: done in %.1f s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());

  const std::vector<std::string> problems = StructuralProblems(report, evaluator.missing_injected());
  for (const std::string& p : problems) std::cerr << "gpugate_noise_eval: check failed: " << p << "\n";
  if (!problems.empty()) return 1;
  if (options.check_single_value) {
    for (const ModeFigures& m : report.modes)
      for (const EffectFigures& f : m.effects)
        if (f.case_any_regression.hits > 0) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace gpugate

int main(int argc, char** argv) { return gpugate::Main(argc, argv); }
