// Google Benchmark JSON -> results. Recipe: parse, read the context into
// RunInfo, read every row with type checks, group rows by run_name, turn each
// group into a workload (repetitions as samples, aggregates as a fallback).
#include "ingest/gbench.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "ingest/ingest_util.h"
#include "model/limits.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {
namespace {

using detail::FieldReader;

// Members of a benchmark row that are not user counters.
const std::set<std::string, std::less<>>& KnownRowKeys() {
  static const std::set<std::string, std::less<>> keys = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type",
      "repetitions", "repetition_index", "threads", "iterations", "real_time", "cpu_time",
      "time_unit", "aggregate_name", "aggregate_unit", "error_occurred", "error_message",
      "skipped", "skip_message", "label", "big_o", "cpu_coefficient", "real_coefficient", "rms",
      "bytes_per_second", "items_per_second", "counters", "allocs_per_iter", "max_bytes_used",
      "memory"};
  return keys;
}

// One row of "benchmarks", checked and converted to seconds.
// Where a value stood in the file: rows are read as the array streams past,
// so errors found later (a repeated row) name positions, not values.
struct Position {
  int line = 0, column = 0;
  Position() = default;
  explicit Position(const JsonValue* v) {
    if (v) line = v->line, column = v->column;
  }
  JsonValue At() const {
    JsonValue v;
    v.line = line;
    v.column = column;
    return v;
  }
};

struct Row {
  std::string name;
  std::string run_name;
  bool aggregate = false;
  std::string aggregate_name;
  bool fraction_unit = false;       // aggregate_unit "percentage" (cv): not a time
  int64_t repetitions = 0;
  std::optional<int64_t> repetition_index;
  bool has_run_type = false;        // files before run_type repeat names for repetitions
  // An old file's row taken for an aggregate by its name's suffix alone
  // (ResolveSuffixAggregates decides), with what it is as a benchmark of its
  // own: its times in the file's unit, and why it cannot be an iteration row.
  bool suffix_guess = false;
  double time_scale = 1e-9;
  std::optional<double> raw_real, raw_cpu;
  std::optional<Error> iteration_problem;
  // What is wrong with the row's "name" when the row is an aggregate: it
  // fails the file only if the aggregate is used (no iteration rows).
  std::optional<Error> name_problem;
  Position row_at;                  // where the row, its name and its real_time stand
  Position name_at;
  int64_t iterations = 0;
  int64_t threads = 1;
  std::optional<double> real_s;     // real_time in seconds (aggregates: may be NaN)
  std::optional<double> cpu_s;
  bool failed = false;              // error_occurred
  bool skipped = false;             // skipped (SkipWithMessage)
  std::string message;
  std::optional<double> bytes_per_second;
  std::optional<double> items_per_second;
  std::optional<int64_t> max_bytes_used;
  std::optional<std::string> label;
  std::map<std::string, double> counters;  // finite user counters only
  Position real_at;
};

std::optional<double> Finite(std::optional<double> v) {
  if (v && std::isfinite(*v)) return v;
  return std::nullopt;
}

// A rate a results file holds: finite and not negative (a negative one is
// a broken counter, not a throughput).
std::optional<double> Rate(std::optional<double> v) {
  if (v && std::isfinite(*v) && *v >= 0) return v;
  return std::nullopt;
}

Result<double> UnitScale(const FieldReader& f, const JsonValue& row, const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  const JsonValue* at = row.Find("time_unit");
  return f.ErrorAt(at ? *at : row, f.PathOf("time_unit"),
                   "unknown time unit " + QuoteInput(unit) + " (expected ns, us, ms or s)" +
                       DidYouMean(unit, {"ns", "us", "ms", "s"}));
}

// A time in an iteration row: a usable time (model/limits.h), or 0, which
// Google Benchmark writes when nothing was timed (the workload is skipped).
Status CheckTime(const FieldReader& f, const JsonValue& row, const std::string& bench,
                 const char* key, double scale) {
  const JsonValue* v = row.Find(key);
  if (v == nullptr || !v->IsNumber()) return Status::Ok();
  // NaN, infinite and negative values are shown as written; bounds in seconds.
  std::optional<std::string> problem = NotFiniteOrNegative(v->number);
  if (!problem) problem = ScaledTimeProblem(v->number, scale);
  if (!problem || v->number == 0) return Status::Ok();
  return f.ErrorAt(*v, "benchmark " + QuoteInput(bench),
                   std::string(key) + " " + *problem);
}

// Counts that must not be negative; iterations of a timed row at least 1.
Status CheckCount(const FieldReader& f, const JsonValue& row, const char* key, int64_t value,
                  int64_t min) {
  if (value >= min) return Status::Ok();
  const JsonValue* at = row.Find(key);
  if (at == nullptr)  // absent: a timed row needs its iterations
    return f.ErrorAt(row, f.PathOf(key), "missing (a timed row needs at least " + std::to_string(min) + ")");
  if (at->IsNull()) return f.ErrorAt(*at, f.PathOf(key), "null where a value is required");
  return f.ErrorAt(*at, f.PathOf(key),
                   "must be at least " + std::to_string(min) + ", got " + std::to_string(value));
}

// Old files (before run_type existed) mark aggregates only by a name suffix.
bool SplitAggregateSuffix(const std::string& name, std::string* base, std::string* agg) {
  for (const char* suffix : {"_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS"}) {
    if (EndsWith(name, suffix) && name.size() > std::string_view(suffix).size()) {
      *base = name.substr(0, name.size() - std::string_view(suffix).size());
      *agg = std::string(suffix + 1);
      return true;
    }
  }
  return false;
}

// The counters gpugate writes itself for a Google Benchmark workload
// (docs/ingest.md; "processes" by `run`, docs/suite.md), and the prefix of
// the aggregates it keeps: a user counter of one of these names would be
// overwritten by gpugate's, or overwrite it.
bool IsOwnCounterName(std::string_view key) {
  static const std::set<std::string, std::less<>> own = {
      "processes", "gbench_repetitions", "single_sample", "only_aggregates", "threads", "cpu_time",
      "bytes_per_second", "items_per_second", "allocs_per_iter", "mean", "median", "stddev", "cv"};
  return own.count(key) || key.starts_with("aggregate_");
}

// A user counter's name is a key of the results' "counters": printable text
// (NameProblem, as names are checked), so that no two become one key where
// the writer repairs text, and not a name gpugate gives its own counters.
Status CheckCounterName(const FieldReader& f, const std::string& path, const JsonValue& value,
                        const std::string& key) {
  if (Status st = detail::CheckKeyName(f, value, path, "counter", key); !st.ok()) return st;
  if (IsOwnCounterName(key))
    return f.ErrorAt(value, path,
                     "counter " + QuoteInput(key) + ": gpugate writes a counter of this name itself " +
                         "(docs/ingest.md); rename the user counter");
  return Status::Ok();
}

Status ReadCounters(const FieldReader& f, const std::string& path, const JsonValue& row, Row* out) {
  for (const auto& [key, value] : row.members) {
    if (KnownRowKeys().count(key) || !value.IsNumber()) continue;
    if (Status st = CheckCounterName(f, path, value, key); !st.ok()) return st;
    if (std::isfinite(value.number)) out->counters[key] = value.number;  // NaN: missing
  }
  Result<const JsonValue*> nested = f.Object("counters");
  if (!nested.ok()) return nested.error();
  if (*nested != nullptr) {
    FieldReader cf(f.file(), **nested, f.PathOf("counters"));
    for (const auto& [key, value] : (*nested)->members) {
      if (value.IsNull()) continue;
      if (Status st = CheckCounterName(cf, f.PathOf("counters"), value, key); !st.ok()) return st;
      if (!value.IsNumber())
        return cf.ErrorAt(value, cf.PathOf(key),
                          std::string("expected a number, got ") + value.TypeName());
      if (std::isfinite(value.number)) out->counters[key] = value.number;
    }
  }
  return Status::Ok();
}

// Reads one row; `index` only names it in messages.
Result<Row> ReadRow(const std::string& file, const JsonValue& row, size_t index) {
  std::string path = "benchmarks[" + std::to_string(index) + "]";
  if (!row.IsObject())
    return JsonError(file, row, path, std::string("expected an object, got ") + row.TypeName());
  FieldReader f(file, row, path);
  Row r;

  auto name = f.String("name");
  if (!name.ok()) return name.error();
  if (!*name) return f.Missing("name", row, path, "missing \"name\"");
  r.name = **name;
  r.row_at = Position(&row);
  r.name_at = Position(row.Find("name"));
  auto run_name = f.String("run_name");
  if (!run_name.ok()) return run_name.error();
  // A name's problem, or nullopt; an aggregate row's own (suffixed) name is
  // checked only once the row is used (no iteration rows), as Google
  // Benchmark's "<name>_stddev" may pass the length a benchmark's name keeps.
  auto name_problem = [&](const char* key) -> std::optional<Error> {
    const JsonValue* v = row.Find(key);
    if (v == nullptr || !v->IsString()) return std::nullopt;
    if (v->string.empty()) return f.ErrorAt(*v, f.PathOf(key), "empty name");
    if (std::optional<std::string> problem = NameProblem(v->string))
      return f.ErrorAt(*v, f.PathOf(key), "a benchmark name must be printable text: " + *problem);
    return std::nullopt;
  };
  if (std::optional<Error> problem = name_problem("run_name")) return *problem;
  auto run_type = f.String("run_type");
  if (!run_type.ok()) return run_type.error();
  auto agg_name = f.String("aggregate_name");
  if (!agg_name.ok()) return agg_name.error();
  auto agg_unit = f.String("aggregate_unit");
  if (!agg_unit.ok()) return agg_unit.error();

  if (*run_type) {
    if (**run_type != "iteration" && **run_type != "aggregate") {
      const JsonValue* at = row.Find("run_type");
      return f.ErrorAt(*at, f.PathOf("run_type"),
                       "unknown run_type " + QuoteInput(**run_type) +
                           " (expected iteration or aggregate)" +
                           DidYouMean(**run_type, {"iteration", "aggregate"}));
    }
    r.aggregate = **run_type == "aggregate";
    r.has_run_type = true;
    r.run_name = run_name->value_or(r.name);
    r.aggregate_name = agg_name->value_or("");
  } else if (*agg_name) {
    r.aggregate = true;
    r.aggregate_name = **agg_name;
    r.run_name = run_name->value_or(r.name);
  } else {
    std::string base, agg;
    if (!*run_name && SplitAggregateSuffix(r.name, &base, &agg)) {
      r.aggregate = true;
      r.run_name = base;
      r.aggregate_name = agg;
      r.suffix_guess = true;
    } else {
      r.run_name = run_name->value_or(r.name);
    }
  }
  r.fraction_unit = r.aggregate && (agg_unit->value_or("") == "percentage" || r.aggregate_name == "cv");
  // The name rows are grouped under is checked now; a name that is only an
  // aggregate's label waits until the aggregate is used.
  r.name_problem = name_problem("name");
  if (r.name_problem && !r.aggregate) return *r.name_problem;
  if (r.aggregate && r.run_name != r.name && !*run_name) {
    // An old file's suffix guess: the benchmark's name is a prefix of the row's.
    if (std::optional<std::string> problem = NameProblem(r.run_name))
      return f.ErrorAt(*row.Find("name"), f.PathOf("name"), "a benchmark name must be printable text: " + *problem);
  }

  auto reps = f.Integer("repetitions");
  if (!reps.ok()) return reps.error();
  r.repetitions = reps->value_or(0);  // older files write 0 for "not repeated"
  if (Status st = CheckCount(f, row, "repetitions", r.repetitions, 0); !st.ok()) return st.error();
  auto iters = f.Integer("iterations");
  if (!iters.ok()) return iters.error();
  r.iterations = iters->value_or(0);
  if (Status st = CheckCount(f, row, "iterations", r.iterations, 0); !st.ok()) return st.error();
  auto threads = f.Integer("threads");
  if (!threads.ok()) return threads.error();
  r.threads = threads->value_or(1);
  if (Status st = CheckCount(f, row, "threads", r.threads, 1); !st.ok()) return st.error();
  for (const char* key : {"family_index", "per_family_instance_index", "repetition_index"}) {
    auto v = f.Integer(key);
    if (!v.ok()) return v.error();
    if (*v) {
      if (Status st = CheckCount(f, row, key, **v, 0); !st.ok()) return st.error();
    }
    if (std::string_view(key) == "repetition_index") r.repetition_index = *v;
  }

  auto error_occurred = f.Bool("error_occurred");
  if (!error_occurred.ok()) return error_occurred.error();
  auto error_message = f.String("error_message");
  if (!error_message.ok()) return error_message.error();
  auto skipped = f.Bool("skipped");
  if (!skipped.ok()) return skipped.error();
  auto skip_message = f.String("skip_message");
  if (!skip_message.ok()) return skip_message.error();
  r.failed = error_occurred->value_or(false);
  r.skipped = skipped->value_or(false);
  if (r.failed) r.message = error_message->value_or("");
  else if (r.skipped) r.message = skip_message->value_or(error_message->value_or(""));

  auto unit = f.String("time_unit");
  if (!unit.ok()) return unit.error();
  Result<double> scale = UnitScale(f, row, unit->value_or("ns"));
  if (!scale.ok()) return scale.error();
  auto real = f.Number("real_time");
  if (!real.ok()) return real.error();
  auto cpu = f.Number("cpu_time");
  if (!cpu.ok()) return cpu.error();
  r.real_at = Position(row.Find("real_time"));
  r.time_scale = *scale;
  r.raw_real = *real;
  r.raw_cpu = *cpu;
  // What an iteration row must hold; an old file's suffixed row keeps the
  // problem until ResolveSuffixAggregates says whether it is one.
  auto iteration_problem = [&]() -> std::optional<Error> {
    if (!*real) return f.Missing("real_time", row, "benchmark " + QuoteInput(r.name), "missing real_time");
    for (const char* key : {"real_time", "cpu_time"}) {
      Status st = CheckTime(f, row, r.name, key, *scale);
      if (!st.ok()) return st.error();
    }
    if (Status st = CheckCount(f, row, "iterations", r.iterations, 1); !st.ok()) return st.error();
    return std::nullopt;
  };
  if (!r.failed && !r.skipped && (!r.aggregate || r.suffix_guess)) {
    std::optional<Error> problem = iteration_problem();
    if (problem && !r.aggregate) return *problem;
    r.iteration_problem = std::move(problem);
  }
  double s = r.fraction_unit ? 1.0 : *scale;
  if (*real) r.real_s = **real * s;
  if (*cpu) r.cpu_s = **cpu * s;

  auto bps = f.Number("bytes_per_second");
  if (!bps.ok()) return bps.error();
  r.bytes_per_second = Rate(*bps);
  auto ips = f.Number("items_per_second");
  if (!ips.ok()) return ips.error();
  r.items_per_second = Rate(*ips);
  auto allocs = f.Number("allocs_per_iter");
  if (!allocs.ok()) return allocs.error();
  auto max_bytes = f.Number("max_bytes_used");
  if (!max_bytes.ok()) return max_bytes.error();
  if (*max_bytes && std::isfinite(**max_bytes) && **max_bytes >= 0) {
    if (std::optional<std::string> problem = MetricValueProblem(**max_bytes))
      return f.ErrorAt(*row.Find("max_bytes_used"), f.PathOf("max_bytes_used"), *problem);
    r.max_bytes_used = static_cast<int64_t>(**max_bytes);
  }
  auto label = f.String("label");
  if (!label.ok()) return label.error();
  r.label = *label;
  Status st = ReadCounters(f, path, row, &r);
  if (!st.ok()) return st.error();
  if (auto a = Finite(*allocs)) r.counters["allocs_per_iter"] = *a;
  return r;
}

// Mean of the finite values; nullopt when there are none.
std::optional<double> MeanOf(const std::vector<std::optional<double>>& values) {
  double sum = 0;
  int n = 0;
  for (const auto& v : values)
    if (v && std::isfinite(*v)) {
      sum += *v;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return sum / n;
}

// The median of the finite values (a rate beside the median time: one wild
// repetition would move a mean).
std::optional<double> MedianOfPresent(const std::vector<std::optional<double>>& values) {
  std::vector<double> v;
  for (const auto& x : values)
    if (x && std::isfinite(*x)) v.push_back(*x);
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

WorkloadResult NewWorkload(const std::string& run_name) {
  WorkloadResult w;
  w.name = run_name;
  w.kind = "gbench";
  w.backend = "ingest";
  return w;
}

// A row that reported an error (`SkipWithError`: error_occurred) failed; one
// that skipped itself (`SkipWithMessage`: skipped) is skipped.
void MarkNotMeasured(const Row* r, WorkloadResult* w) {
  w->status = r->failed ? WorkloadStatus::kFailed : WorkloadStatus::kSkipped;
  w->reason = std::string(r->failed ? "benchmark reported an error" : "skipped by the benchmark") +
              (r->message.empty() ? "" : ": " + r->message);
}

void Finish(WorkloadResult* w) {
  std::vector<double> all = AllSamples(*w);
  w->summary = Summarize(all);
}

// Repetitions present: one sample per iteration row, each in its own round.
WorkloadResult FromIterations(const std::string& run_name, const std::vector<const Row*>& rows) {
  WorkloadResult w = NewWorkload(run_name);
  for (const Row* r : rows) {
    if (r->failed || r->skipped) {
      MarkNotMeasured(r, &w);
      return w;
    }
  }
  for (const Row* r : rows) {
    if (*r->real_s == 0) {
      w.status = WorkloadStatus::kSkipped;
      w.reason = "real_time is 0 in a repetition; a zero time cannot be compared as a ratio";
      return w;
    }
    w.rounds.push_back({*r->real_s});
  }
  w.iterations_per_sample = std::max<int64_t>(1, rows.front()->iterations);
  w.counters["gbench_repetitions"] = static_cast<double>(rows.size());
  if (rows.size() == 1) w.counters["single_sample"] = 1;
  if (rows.front()->threads > 1) w.counters["threads"] = static_cast<double>(rows.front()->threads);

  std::vector<std::optional<double>> cpu, bps, ips;
  std::map<std::string, std::vector<std::optional<double>>> user;
  for (const Row* r : rows) {
    cpu.push_back(r->cpu_s);
    bps.push_back(r->bytes_per_second);
    ips.push_back(r->items_per_second);
    for (const auto& [k, v] : r->counters) user[k].push_back(v);
    if (r->max_bytes_used)
      w.peak_memory_bytes = std::max(w.peak_memory_bytes.value_or(0), *r->max_bytes_used);
  }
  for (const auto& [k, values] : user)
    if (auto m = MeanOf(values)) w.counters[k] = *m;
  if (auto m = MeanOf(cpu)) w.counters["cpu_time"] = *m;
  // Rates are the median over the repetitions, as the time is: the
  // verdicts' baseline and current values are medians.
  if (auto m = MedianOfPresent(bps)) {
    w.bytes_per_second = *m;
    w.counters["bytes_per_second"] = *m;
  }
  if (auto m = MedianOfPresent(ips)) w.counters["items_per_second"] = *m;
  if (rows.front()->label) w.tags.push_back("label:" + *rows.front()->label);
  Finish(&w);
  return w;
}

// No iteration rows: the median (else mean) aggregate is the one sample.
Result<WorkloadResult> FromAggregates(const std::string& file, const std::string& run_name,
                                      const std::vector<const Row*>& rows) {
  WorkloadResult w = NewWorkload(run_name);
  std::map<std::string, const Row*> by_name;
  for (const Row* r : rows) {
    if (r->failed || r->skipped) {
      MarkNotMeasured(r, &w);
      return w;
    }
    by_name.emplace(r->aggregate_name, r);
  }
  const Row* pick = nullptr;
  for (const char* agg : {"median", "mean"}) {
    auto it = by_name.find(agg);
    if (it != by_name.end() && it->second->real_s && std::isfinite(*it->second->real_s)) {
      pick = it->second;
      break;
    }
  }
  if (pick == nullptr) {
    w.status = WorkloadStatus::kSkipped;
    w.reason = "only aggregate rows, and neither a median nor a mean time is a number";
    return w;
  }
  if (std::optional<std::string> problem = TimeProblem(*pick->real_s);
      problem && *pick->real_s != 0)
    return JsonError(file, pick->real_at.At(), "benchmark " + QuoteInput(pick->name),
                     "real_time " + *problem);
  if (*pick->real_s == 0) {
    w.status = WorkloadStatus::kSkipped;
    w.reason = "real_time is 0; a zero time cannot be compared as a ratio";
    return w;
  }
  w.rounds.push_back({*pick->real_s});
  w.counters["only_aggregates"] = 1;
  w.counters["single_sample"] = 1;
  w.counters["gbench_repetitions"] = static_cast<double>(pick->repetitions);
  for (const auto& [agg, r] : by_name) {
    if (!r->real_s || !std::isfinite(*r->real_s)) continue;  // NaN aggregate: missing
    if (agg == "mean" || agg == "median" || agg == "stddev" || agg == "cv")
      w.counters[agg] = *r->real_s;
    else
      w.counters["aggregate_" + agg] = *r->real_s;
  }
  for (const auto& [k, v] : pick->counters) w.counters[k] = v;
  if (pick->cpu_s && std::isfinite(*pick->cpu_s)) w.counters["cpu_time"] = *pick->cpu_s;
  if (pick->bytes_per_second) {
    w.bytes_per_second = *pick->bytes_per_second;
    w.counters["bytes_per_second"] = *pick->bytes_per_second;
  }
  if (pick->items_per_second) w.counters["items_per_second"] = *pick->items_per_second;
  if (pick->threads > 1) w.counters["threads"] = static_cast<double>(pick->threads);
  Finish(&w);
  return w;
}

std::string CachesText(const JsonValue& caches) {
  std::string out;
  for (const JsonValue& c : caches.items) {
    if (!c.IsObject()) continue;
    const JsonValue* type = c.Find("type");
    const JsonValue* level = c.Find("level");
    const JsonValue* size = c.Find("size");
    const JsonValue* sharing = c.Find("num_sharing");
    if (!out.empty()) out += ", ";
    out += "L" + (level && level->IsNumber() ? detail::FormatNumber(level->number) : "?");
    if (type && type->IsString()) out += " " + type->string;
    if (size && size->IsNumber()) out += " " + detail::FormatNumber(size->number) + " B";
    if (sharing && sharing->IsNumber()) out += " x" + detail::FormatNumber(sharing->number);
  }
  return out;
}

// The context block: host, cores, date and the rest as source_context.
Status ReadContext(const std::string& file, const JsonValue& context, RunInfo* run) {
  FieldReader f(file, context, "context");
  auto host = f.String("host_name");
  if (!host.ok()) return host.error();
  auto cpus = f.Integer("num_cpus");
  if (!cpus.ok()) return cpus.error();
  auto mhz = f.Number("mhz_per_cpu");
  if (!mhz.ok()) return mhz.error();
  auto scaling = f.Bool("cpu_scaling_enabled");
  if (!scaling.ok()) return scaling.error();
  auto date = f.String("date");
  if (!date.ok()) return date.error();
  auto exe = f.String("executable");
  if (!exe.ok()) return exe.error();
  auto build = f.String("library_build_type");
  if (!build.ok()) return build.error();
  auto caches = f.Array("caches");
  if (!caches.ok()) return caches.error();

  run->env.host = host->value_or("");
  // Google Benchmark writes -1 when it cannot count the CPUs: unknown.
  if (*cpus && **cpus > (1 << 20))
    return f.ErrorAt(*context.Find("num_cpus"), "context.num_cpus",
                     "expected a count of CPUs up to 1048576, got " + std::to_string(**cpus));
  run->env.cpu_cores = *cpus && **cpus > 0 ? static_cast<int>(**cpus) : 0;
  if (*exe)
    if (const std::string program = ProgramName(**exe); !program.empty()) run->suite = NameFromFileName(program);
  if (*date) {
    if (auto ns = detail::ParseTimestampNs(**date)) {
      run->time_unix_ns = *ns;
      run->time_utc = detail::FormatUtc(*ns);
    }
  }
  // Every scalar member is kept verbatim (custom context from
  // AddCustomContext arrives as top-level strings).
  for (const auto& [key, value] : context.members) {
    if (!value.IsString() && !value.IsNumber() && !value.IsBool()) continue;
    // Context is kept as text, not judged: any key is kept (ContextKey).
    const std::string text = value.IsString() ? value.string
                             : value.IsNumber() ? detail::FormatNumber(value.number)
                                                : std::string(value.boolean ? "true" : "false");
    run->source_context[detail::ContextKey(key)] = text;
  }
  if (*caches) run->source_context["caches"] = CachesText(**caches);
  if (const JsonValue* load = context.Find("load_avg"); load && load->IsArray()) {
    std::string s;
    for (const JsonValue& v : load->items)
      if (v.IsNumber()) s += (s.empty() ? "" : ",") + detail::FormatNumber(v.number);
    run->source_context["load_avg"] = s;
  }
  return Status::Ok();
}

// In a file written before run_type existed (Google Benchmark 1.4 and
// older), aggregates are known by a name suffix alone, and so a suffixed
// name is an aggregate only where it has their shape:
// - "_mean", "_median", "_stddev": a mean and a stddev for one benchmark,
//   with or without a median (those versions compute the default
//   statistics as a set; 1.2 and older wrote mean and stddev alone);
// - "_BigO", "_RMS": a complexity fit, which holds no iterations and no
//   real_time (it prints coefficients or an rms);
// - "_cv": never (the statistic came with run_type).
// Any other suffixed row -- a lone "BM_geo_mean", "BM_filter_mean" and
// "BM_filter_median" without a stddev, a timed "BM_signal_RMS" -- is a
// benchmark of its own name, and must hold what an iteration row holds.
Status ResolveSuffixAggregates(std::vector<Row>* rows) {
  std::map<std::string, std::set<std::string>> suffixed;
  for (const Row& r : *rows)
    if (r.suffix_guess) suffixed[r.run_name].insert(r.aggregate_name);
  for (Row& r : *rows) {
    if (!r.suffix_guess) continue;
    const std::set<std::string>& kinds = suffixed[r.run_name];
    bool aggregate = false;
    if (r.aggregate_name == "BigO" || r.aggregate_name == "RMS")
      aggregate = !r.raw_real && r.iterations == 0;
    else if (r.aggregate_name != "cv")
      aggregate = kinds.count("mean") && kinds.count("stddev");
    if (aggregate) continue;
    if (r.name_problem) return *r.name_problem;
    if (r.iteration_problem) return *r.iteration_problem;
    r.aggregate = false;
    r.suffix_guess = false;
    r.run_name = r.name;
    r.aggregate_name.clear();
    r.fraction_unit = false;
    r.real_s = r.raw_real ? std::optional<double>(*r.raw_real * r.time_scale) : std::nullopt;
    r.cpu_s = r.raw_cpu ? std::optional<double>(*r.raw_cpu * r.time_scale) : std::nullopt;
  }
  return Status::Ok();
}

// Rows that share a name are the repetitions of one benchmark when Google
// Benchmark says so: iteration rows with distinct repetition_index values
// (no more than "repetitions" of them), or, in files written before
// run_type existed, iteration rows that repeat a name. Anything else
// repeated -- the same repetition twice, an aggregate twice, a modern row
// without its index -- is an error at the second row.
Status CheckRepeatedRows(const std::string& file, const std::vector<Row>& rows) {
  struct Group {
    const Row* first = nullptr;
    std::map<int64_t, const Row*> by_index;
    int64_t count = 0;
    int64_t declared = 0;    // fewest repetitions a row of the group states (0: none)
    bool modern = false;     // a row with run_type
    bool unindexed = false;  // a row without repetition_index
  };
  std::map<std::pair<std::string, std::string>, const Row*> aggregates;
  std::map<std::string, Group> iterations;
  auto repeated = [&](const Row& r, const Row& first, const std::string& what) {
    return JsonError(file, (r.name_at.line ? r.name_at : r.row_at).At(), "benchmark " + QuoteInput(r.name),
                     what + " (first at " + std::to_string(first.row_at.line) + ":" +
                         std::to_string(first.row_at.column) + ")");
  };
  for (const Row& r : rows) {
    if (r.aggregate) {
      auto [it, fresh] = aggregates.emplace(std::make_pair(r.run_name, r.aggregate_name), &r);
      if (!fresh)
        return repeated(r, *it->second, "aggregate '" + r.aggregate_name + "' appears twice");
      continue;
    }
    Group& g = iterations[r.run_name];
    const bool modern = g.modern || r.has_run_type;
    if (g.first && modern && (g.unindexed || !r.repetition_index))
      return repeated(r, *g.first,
                      "row repeated without a repetition_index to tell the repetitions apart");
    if (r.repetition_index) {
      auto [it, fresh] = g.by_index.emplace(*r.repetition_index, &r);
      if (!fresh && modern)
        return repeated(r, *it->second,
                        "repetition " + std::to_string(*r.repetition_index) + " appears twice");
    }
    if (!g.first) g.first = &r;
    g.modern = modern;
    g.unindexed = g.unindexed || !r.repetition_index;
    ++g.count;
    if (r.repetitions >= 1 && (g.declared == 0 || r.repetitions < g.declared))
      g.declared = r.repetitions;
    if (g.declared >= 1 && g.count > g.declared)
      return repeated(r, *g.first,
                      "more rows than its " + std::to_string(g.declared) + " repetitions");
  }
  return Status::Ok();
}

}  // namespace

Result<Results> GbenchFromJson(std::string_view text, const std::string& name) {
  // The rows are read as the "benchmarks" array streams past, so a file of
  // many benchmarks and repetitions holds its rows, not its whole document.
  std::vector<Row> rows;
  std::unordered_set<std::string> run_names;
  Result<JsonValue> doc = ParseJsonStreaming(text, name, "benchmarks",
                                             [&](const JsonValue&, const JsonValue& element, size_t index) {
                                               if (rows.size() >= static_cast<size_t>(kMaxGbenchRows))
                                                 return Status(JsonError(
                                                     name, element, "benchmarks[" + std::to_string(index) + "]",
                                                     "more than " + std::to_string(kMaxGbenchRows) +
                                                         " rows, the most one file may hold; split the file"));
                                               Result<Row> row = ReadRow(name, element, index);
                                               if (!row.ok()) return Status(row.error());
                                               // Each benchmark becomes a workload: more than a
                                               // run may hold is refused here, before each
                                               // becomes one.
                                               if (run_names.insert(row->run_name).second &&
                                                   run_names.size() > static_cast<size_t>(kMaxWorkloadsPerResult))
                                                 return Status(JsonError(
                                                     name, element, "benchmarks[" + std::to_string(index) + "]",
                                                     "more than " + std::to_string(kMaxWorkloadsPerResult) +
                                                         " benchmarks, the most a run may hold; split the file"));
                                               rows.push_back(std::move(*row));
                                               return Status::Ok();
                                             });
  if (!doc.ok()) return doc.error();
  const JsonValue& root = *doc;
  if (!root.IsObject())
    return JsonError(name, root, "document",
                     std::string("expected an object with \"context\" and \"benchmarks\", got ") +
                         root.TypeName());
  FieldReader top(name, root, "");
  Result<const JsonValue*> benchmarks = top.Array("benchmarks");
  if (!benchmarks.ok()) return benchmarks.error();
  if (*benchmarks == nullptr)
    return top.Missing("benchmarks", root, "document", "missing \"benchmarks\" array (not Google Benchmark JSON?)");
  Result<const JsonValue*> context = top.Object("context");
  if (!context.ok()) return context.error();

  Results results;
  results.run.source_format = "gbench";
  results.run.tool_version = GPUGATE_VERSION;
  results.run.suite = NameFromFileName(DataFileStem(name));
  results.run.run_id = detail::ContentRunId("gbench", text);
  if (*context) {
    Status st = ReadContext(name, **context, &results.run);
    if (!st.ok()) return st.error();
  }

  // A "benchmarks" that is not an object's array member was not streamed.
  for (size_t i = 0; i < (*benchmarks)->items.size(); ++i) {
    Result<Row> row = ReadRow(name, (*benchmarks)->items[i], i);
    if (!row.ok()) return row.error();
    rows.push_back(std::move(*row));
  }

  if (Status st = ResolveSuffixAggregates(&rows); !st.ok()) return st.error();
  if (Status st = CheckRepeatedRows(name, rows); !st.ok()) return st.error();

  // Group by run_name in order of first appearance.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<const Row*>, std::vector<const Row*>>> groups;
  for (const Row& r : rows) {
    // Complexity rows (BigO, RMS) and aggregates without a time are fits, not timings.
    if (r.aggregate && (r.aggregate_name == "BigO" || r.aggregate_name == "RMS" || !r.real_s)) continue;
    auto [it, inserted] = groups.try_emplace(r.run_name);
    if (inserted) order.push_back(r.run_name);
    (r.aggregate ? it->second.second : it->second.first).push_back(&r);
  }
  for (const std::string& run_name : order) {
    const auto& [iterations, aggregates] = groups[run_name];
    if (!iterations.empty()) {
      results.workloads.push_back(FromIterations(run_name, iterations));
    } else {
      // The workload is named by the run name (checked when read); a row's
      // own suffixed label ("<run name>_mean") matters only where it is
      // that name (no run_name in the file).
      for (const Row* r : aggregates)
        if (r->name_problem && r->run_name == r->name) return *r->name_problem;
      Result<WorkloadResult> w = FromAggregates(name, run_name, aggregates);
      if (!w.ok()) return w.error();
      results.workloads.push_back(std::move(*w));
    }
  }
  return results;
}

}  // namespace gpugate
