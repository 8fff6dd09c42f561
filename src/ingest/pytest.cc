// pytest-benchmark JSON -> results. Recipe: parse, read machine_info and
// commit_info into RunInfo, then turn every benchmark into a workload: the
// raw per-round times when the file holds them (stats.data), the median
// with its reported noise otherwise.
#include "ingest/pytest.h"

#include <cmath>
#include <map>
#include <optional>
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

bool IsHexSha(const std::string& s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Every scalar member of `object` as text in source_context["<prefix>.<key>"],
// its key checked as a name is (CheckKeyName).
Status KeepScalars(const std::string& file, const JsonValue& object, const std::string& prefix, RunInfo* run) {
  FieldReader f(file, object, prefix);
  for (const auto& [key, value] : object.members) {
    std::string text;
    if (value.IsString()) text = value.string;
    else if (value.IsNumber()) text = detail::FormatNumber(value.number);
    else if (value.IsBool()) text = value.boolean ? "true" : "false";
    else continue;
    // Context is kept as text, not judged: any key is kept (ContextKey).
    run->source_context[prefix + "." + detail::ContextKey(key)] = std::move(text);
  }
  return Status::Ok();
}

// machine_info: host, OS, CPU; everything scalar is kept as text.
Status ReadMachineInfo(const std::string& file, const JsonValue& info, RunInfo* run) {
  FieldReader f(file, info, "machine_info");
  auto node = f.String("node");
  if (!node.ok()) return node.error();
  run->env.host = node->value_or("");
  std::string os;
  for (const char* key : {"system", "release", "machine"}) {
    auto part = f.String(key);
    if (!part.ok()) return part.error();
    if (*part && !(*part)->empty()) os += (os.empty() ? "" : " ") + **part;
  }
  run->env.os = os;
  if (Status st = KeepScalars(file, info, "machine_info", run); !st.ok()) return st;
  auto cpu = f.Object("cpu");
  if (!cpu.ok()) return cpu.error();
  if (*cpu) {
    FieldReader cf(file, **cpu, "machine_info.cpu");
    auto brand_raw = cf.String("brand_raw");  // py-cpuinfo >= 7
    if (!brand_raw.ok()) return brand_raw.error();
    auto brand = cf.String("brand");
    if (!brand.ok()) return brand.error();
    auto count = cf.Integer("count");
    if (!count.ok()) return count.error();
    run->env.cpu_model = brand_raw->value_or(brand->value_or(""));
    if (*count && **count > 0 && **count < 1 << 20) run->env.cpu_cores = static_cast<int>(**count);
    if (Status st = KeepScalars(file, **cpu, "machine_info.cpu", run); !st.ok()) return st;
  }
  return Status::Ok();
}

// commit_info: the git commit, branch and dirty flag when they are known
// ("unversioned", "(unknown)" and "(detached head)" say they are not).
Status ReadCommitInfo(const std::string& file, const JsonValue& info, RunInfo* run) {
  FieldReader f(file, info, "commit_info");
  auto id = f.String("id");
  if (!id.ok()) return id.error();
  auto branch = f.String("branch");
  if (!branch.ok()) return branch.error();
  auto dirty = f.Bool("dirty");
  if (!dirty.ok()) return dirty.error();
  if (*id && IsHexSha(**id)) {
    run->git_sha = **id;
    run->git_dirty = *dirty;
  }
  if (*branch && !(*branch)->empty() && (**branch)[0] != '(') run->git_branch = **branch;
  // The project (the folder pytest ran in) names the suite, so the runs of
  // one suite stay one suite whatever their files are called.
  auto project = f.String("project");
  if (!project.ok()) return project.error();
  if (*project && !(*project)->empty()) run->suite = NameFromFileName(**project);
  if (Status st = KeepScalars(file, info, "commit_info", run); !st.ok()) return st;
  return Status::Ok();
}

// pytest-benchmark writes datetime.utcnow().isoformat(): UTC without a zone.
void ReadDate(const std::string& text, RunInfo* run) {
  std::optional<int64_t> ns = detail::ParseTimestampNs(text);
  if (!ns) ns = detail::ParseTimestampNs(text + "Z");
  if (!ns) return;
  run->time_unix_ns = *ns;
  run->time_utc = detail::FormatUtc(*ns);
}

// A time in seconds must be a usable time (model/limits.h) or 0, which
// pytest-benchmark writes when the timer saw nothing; a spread (stddev, iqr)
// may be anything from 0 up to the largest time.
Status CheckSeconds(const FieldReader& f, const JsonValue& at, const std::string& bench,
                    const std::string& what, double v, bool spread = false) {
  std::optional<std::string> problem = TimeProblem(v);
  if (problem && (v == 0 || (spread && v > 0 && v < kMaxTimeSeconds))) problem.reset();
  if (!problem) return Status::Ok();
  return f.ErrorAt(at, "benchmark " + QuoteInput(bench), what + " " + *problem);
}

// The stats of one benchmark, checked.
struct Stats {
  int64_t rounds = 0;
  int64_t iterations = 1;
  std::optional<double> median, mean, stddev, min, max, iqr;
  std::optional<std::vector<double>> data;  // seconds per call, one per round
};

Result<Stats> ReadStats(const std::string& file, const JsonValue& stats, const std::string& path,
                        const std::string& bench) {
  FieldReader f(file, stats, path);
  Stats s;
  auto rounds = f.Integer("rounds");
  if (!rounds.ok()) return rounds.error();
  if (!*rounds) return f.Missing("rounds", stats, path, "missing \"rounds\"");
  if (**rounds < 1) return f.ErrorAt(*stats.Find("rounds"), f.PathOf("rounds"), "must be at least 1");
  s.rounds = **rounds;
  auto iterations = f.Integer("iterations");
  if (!iterations.ok()) return iterations.error();
  if (*iterations && **iterations < 1)
    return f.ErrorAt(*stats.Find("iterations"), f.PathOf("iterations"), "must be at least 1");
  s.iterations = iterations->value_or(1);
  std::pair<const char*, std::optional<double>*> times[] = {
      {"median", &s.median}, {"mean", &s.mean}, {"stddev", &s.stddev},
      {"min", &s.min},       {"max", &s.max},   {"iqr", &s.iqr}};
  for (auto& [key, out] : times) {
    auto v = f.Number(key);
    if (!v.ok()) return v.error();
    if (!*v) continue;
    const bool spread = std::string_view(key) == "stddev" || std::string_view(key) == "iqr";
    if (Status st = CheckSeconds(f, *stats.Find(key), bench, "stats." + std::string(key), **v, spread);
        !st.ok())
      return st.error();
    *out = **v;
  }
  if (!s.median) return f.Missing("median", stats, path, "missing \"median\"");
  auto data = f.Array("data");
  if (!data.ok()) return data.error();
  if (*data) {
    const JsonValue& array = **data;
    const std::string dpath = f.PathOf("data");
    if (array.items.size() != static_cast<size_t>(s.rounds))
      return f.ErrorAt(array, dpath,
                       "holds " + std::to_string(array.items.size()) + " values but stats.rounds is " +
                           std::to_string(s.rounds) + " (a truncated or edited file?)");
    std::vector<double> values;
    values.reserve(array.items.size());
    for (size_t j = 0; j < array.items.size(); ++j) {
      const JsonValue& v = array.items[j];
      if (!v.IsNumber())
        return JsonError(file, v, dpath + "[" + std::to_string(j) + "]",
                         std::string("expected a number, got ") + v.TypeName());
      if (Status st = CheckSeconds(f, v, bench, "stats.data[" + std::to_string(j) + "]", v.number);
          !st.ok())
        return st.error();
      values.push_back(v.number);
    }
    s.data = std::move(values);
  }
  return s;
}

// "params": {"n": 10, "mode": "fast"} -> params n=10, mode=fast (scalars only).
Status ReadParams(const FieldReader& f, WorkloadResult* w) {
  auto params = f.Object("params");
  if (!params.ok()) return params.error();
  if (*params == nullptr) return Status::Ok();
  for (const auto& [key, value] : (*params)->members) {
    if (!value.IsString() && !value.IsNumber() && !value.IsBool()) continue;
    if (Status st = detail::CheckKeyName(f, value, f.PathOf("params"), "param", key); !st.ok()) return st;
    if (value.IsString()) w->params.emplace_back(key, value.string);
    else if (value.IsNumber()) w->params.emplace_back(key, detail::FormatNumber(value.number));
    else if (value.IsBool()) w->params.emplace_back(key, value.boolean ? "true" : "false");
  }
  return Status::Ok();
}

Result<WorkloadResult> ReadBenchmark(const std::string& file, const JsonValue& bench,
                                     const std::string& path) {
  if (!bench.IsObject())
    return JsonError(file, bench, path, std::string("expected an object, got ") + bench.TypeName());
  FieldReader f(file, bench, path);
  auto name = f.String("name");
  if (!name.ok()) return name.error();
  auto fullname = f.String("fullname");
  if (!fullname.ok()) return fullname.error();
  if (!*name && !*fullname) return f.Missing("name", bench, path, "missing \"name\"");
  WorkloadResult w;
  w.name = fullname->value_or(name->value_or(""));
  if (w.name.empty()) return f.ErrorAt(bench, path, "empty name");
  for (const char* key : {"name", "fullname"}) {
    const JsonValue* v = bench.Find(key);
    if (v == nullptr || !v->IsString()) continue;
    if (std::optional<std::string> problem = NameProblem(v->string))
      return f.ErrorAt(*v, f.PathOf(key), "a benchmark name must be printable text: " + *problem);
  }
  w.kind = "pytest";
  w.backend = "ingest";
  if (Status st = ReadParams(f, &w); !st.ok()) return st.error();
  auto group = f.String("group");
  if (!group.ok()) return group.error();
  if (*group) w.tags.push_back("group:" + **group);
  auto extra = f.Object("extra_info");
  if (!extra.ok()) return extra.error();
  if (*extra) {
    for (const auto& [key, value] : (*extra)->members) {
      if (!value.IsNumber() || !std::isfinite(value.number)) continue;
      if (Status st = detail::CheckKeyName(f, value, f.PathOf("extra_info"), "extra_info", key); !st.ok())
        return st.error();
      w.counters["extra_info/" + key] = value.number;
    }
  }
  auto options = f.Object("options");  // run settings: checked, not kept
  if (!options.ok()) return options.error();
  auto stats_json = f.Object("stats");
  if (!stats_json.ok()) return stats_json.error();
  if (*stats_json == nullptr) {
    w.status = WorkloadStatus::kSkipped;
    w.reason = "no stats: pytest-benchmark recorded no timings for this benchmark";
    return w;
  }
  Result<Stats> stats = ReadStats(file, **stats_json, f.PathOf("stats"), w.name);
  if (!stats.ok()) return stats.error();
  w.iterations_per_sample = stats->iterations;
  if (stats->data) {
    for (double v : *stats->data)
      if (v == 0) {
        w.status = WorkloadStatus::kSkipped;
        w.reason = "a round took 0 s (below the timer's resolution); a ratio needs positive times";
        return w;
      }
    w.rounds.push_back(std::move(*stats->data));  // one process: one round
    if (w.rounds.front().size() == 1) w.counters["single_sample"] = 1;
  } else {
    if (*stats->median == 0) {
      w.status = WorkloadStatus::kSkipped;
      w.reason = "median is 0; a ratio needs a positive time";
      return w;
    }
    w.rounds.push_back({*stats->median});
    w.counters["only_summary"] = 1;
    w.counters["single_sample"] = 1;
    w.counters["sample_size"] = static_cast<double>(stats->rounds);
    if (stats->mean && *stats->mean > 0 && stats->stddev)
      w.counters["stdev_rel"] = *stats->stddev / *stats->mean;
    std::pair<const char*, const std::optional<double>&> kept[] = {
        {"mean", stats->mean}, {"stddev", stats->stddev}, {"min", stats->min},
        {"max", stats->max},   {"iqr", stats->iqr}};
    for (const auto& [key, v] : kept)
      if (v) w.counters[key] = *v;
  }
  w.summary = Summarize(AllSamples(w));
  return w;
}

}  // namespace

Result<Results> PytestFromJson(std::string_view text, const std::string& name) {
  // Each benchmark is read as the "benchmarks" array streams past, so a file
  // of many benchmarks with long `stats.data` holds one benchmark's values
  // at a time, not the whole document.
  std::vector<WorkloadResult> workloads;
  std::map<std::string, std::pair<int, int>> first_at;  // workload name -> its benchmark's line, column
  int64_t samples = 0;
  auto read = [&](const JsonValue& b, size_t i) -> Status {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    Result<WorkloadResult> w = ReadBenchmark(name, b, path);
    if (!w.ok()) return w.error();
    for (const auto& round : w->rounds) samples += static_cast<int64_t>(round.size());
    if (samples > kMaxPytestSamples)
      return JsonError(name, b, path,
                       "more than " + std::to_string(kMaxPytestSamples) +
                           " values of stats.data in all, the most one file may hold; split the file");
    auto [it, inserted] = first_at.emplace(w->name, std::make_pair(b.line, b.column));
    if (!inserted)
      return JsonError(name, b, path,
                       "benchmark " + QuoteInput(w->name) + " appears twice (first at " +
                           std::to_string(it->second.first) + ":" + std::to_string(it->second.second) + ")");
    workloads.push_back(std::move(*w));
    return Status::Ok();
  };
  Result<JsonValue> doc = ParseJsonStreaming(
      text, name, "benchmarks", [&](const JsonValue&, const JsonValue& b, size_t i) { return read(b, i); });
  if (!doc.ok()) return doc.error();
  const JsonValue& root = *doc;
  if (!root.IsObject())
    return JsonError(name, root, "document",
                     std::string("expected an object with \"machine_info\" and \"benchmarks\", got ") +
                         root.TypeName());
  FieldReader top(name, root, "");
  Result<const JsonValue*> benchmarks = top.Array("benchmarks");
  if (!benchmarks.ok()) return benchmarks.error();
  if (*benchmarks == nullptr)
    return top.Missing("benchmarks", root, "document", "missing \"benchmarks\" array (not pytest-benchmark JSON?)");

  Results results;
  results.run.source_format = "pytest";
  results.run.tool_version = GPUGATE_VERSION;
  results.run.suite = NameFromFileName(DataFileStem(name));
  results.run.run_id = detail::ContentRunId("pytest", text);
  Result<const JsonValue*> machine = top.Object("machine_info");
  if (!machine.ok()) return machine.error();
  if (*machine) {
    if (Status st = ReadMachineInfo(name, **machine, &results.run); !st.ok()) return st.error();
  }
  Result<const JsonValue*> commit = top.Object("commit_info");
  if (!commit.ok()) return commit.error();
  if (*commit) {
    if (Status st = ReadCommitInfo(name, **commit, &results.run); !st.ok()) return st.error();
  }
  auto date = top.String("datetime");
  if (!date.ok()) return date.error();
  if (*date) ReadDate(**date, &results.run);
  auto version = top.String("version");
  if (!version.ok()) return version.error();
  if (*version) results.run.source_context["pytest_benchmark_version"] = **version;

  // A "benchmarks" that is not an object's array member was not streamed.
  for (size_t i = 0; i < (*benchmarks)->items.size(); ++i)
    if (Status st = read((*benchmarks)->items[i], i); !st.ok()) return st.error();
  results.workloads = std::move(workloads);
  return results;
}

}  // namespace gpugate
