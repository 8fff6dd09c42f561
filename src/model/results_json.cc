// JSON I/O of the results model (`gpugate/results/v1`). The writer emits every
// field in a fixed key order; the reader checks the schema version first, then
// the type of every field, pointing at the offending value. Field reference:
// docs/results-schema.md.
#include "model/results_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "model/limits.h"
#include "model/schema.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/json_writer.h"
#include "util/strings.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

/// The newest minor version this gpugate reads in full (docs/results-schema.md):
/// a file that names a later one ("gpugate/results/v1.5", or an older file's
/// "version" object) is read with a note that its new members are ignored.
constexpr int kResultsMinorVersion = 4;

// ---------------------------------------------------------------------------
// Writing

using Writer = rapidjson::PrettyWriter<JsonStringBuffer>;

template <class T>
void Field(Writer& w, const char* key, const T& value) {
  WriteJsonField(w, key, value);
}

/// Numeric arrays go on one line: 10,000 workloads x 100 samples stay readable.
void DoubleArray(Writer& w, const std::vector<double>& values) {
  w.StartArray();
  for (double v : values) WriteJsonDouble(w, v);
  w.EndArray();
}

void WriteGpu(Writer& w, const GpuInfo& g) {
  w.StartObject();
  Field(w, "name", g.name);
  Field(w, "driver_version", g.driver_version);
  Field(w, "cuda_version", g.cuda_version);
  Field(w, "compute_capability", g.compute_capability);
  Field(w, "device_index", g.device_index);
  Field(w, "sm_count", g.sm_count);
  Field(w, "sm_clock_hz", g.sm_clock_hz);
  Field(w, "mem_clock_hz", g.mem_clock_hz);
  Field(w, "memory_bytes", g.memory_bytes);
  Field(w, "l2_bytes", g.l2_bytes);
  Field(w, "ecc_enabled", g.ecc_enabled);
  Field(w, "mig_enabled", g.mig_enabled);
  Field(w, "uuid", g.uuid);
  Field(w, "persistence_mode", g.persistence_mode);
  Field(w, "power_limit_w", g.power_limit_w);
  w.EndObject();
}

void WriteEnvironment(Writer& w, const Environment& e) {
  w.StartObject();
  Field(w, "host", e.host);
  Field(w, "os", e.os);
  Field(w, "cpu_model", e.cpu_model);
  Field(w, "cpu_cores", e.cpu_cores);
  Field(w, "cpu_governor", e.cpu_governor);
  Field(w, "compiler", e.compiler);
  if (e.runner_class) Field(w, "runner_class", e.runner_class);
  w.Key("gpu");
  WriteGpu(w, e.gpu);
  w.EndObject();
}

void WriteRun(Writer& w, const RunInfo& r) {
  w.StartObject();
  Field(w, "tool_version", r.tool_version);
  Field(w, "suite", r.suite);
  Field(w, "run_id", r.run_id);
  Field(w, "time_utc", r.time_utc);
  Field(w, "time_unix_ns", r.time_unix_ns);
  Field(w, "git_sha", r.git_sha);
  Field(w, "git_branch", r.git_branch);
  Field(w, "git_dirty", r.git_dirty);
  Field(w, "shard", r.shard);
  Field(w, "source_format", r.source_format);
  w.Key("source_context");
  w.StartObject();
  for (const auto& [key, value] : r.source_context) {
    WriteJsonString(w, key);
    WriteJsonString(w, value);
  }
  w.EndObject();
  w.Key("environment");
  WriteEnvironment(w, r.env);
  w.EndObject();
}

void WriteSummary(Writer& w, const Summary& s) {
  w.StartObject();
  Field(w, "n", s.n);
  Field(w, "median", s.median);
  Field(w, "mean", s.mean);
  Field(w, "min", s.min);
  Field(w, "max", s.max);
  Field(w, "stddev", s.stddev);
  Field(w, "mad", s.mad);
  Field(w, "p5", s.p5);
  Field(w, "p95", s.p95);
  Field(w, "cv", s.cv);
  Field(w, "rel_ci_half_width", s.rel_ci_half_width);
  w.EndObject();
}

void WriteNumberMap(Writer& w, const std::map<std::string, double>& m) {
  w.StartObject();
  for (const auto& [key, value] : m) {
    WriteJsonString(w, key);  // a key is written like a string
    WriteJsonDouble(w, value);
  }
  w.EndObject();
}

void WriteClock(Writer& w, const ClockReading& c) {
  w.StartObject();
  Field(w, "round", c.round);
  Field(w, "sm_clock_hz", c.sm_clock_hz);
  Field(w, "temperature_c", c.temperature_c);
  Field(w, "power_w", c.power_w);
  Field(w, "throttle_reasons", c.throttle_reasons);
  w.EndObject();
}

// Written only when set (`--device-profile`), so files without a profile
// keep their bytes.
void WriteRegime(Writer& w, const std::optional<RegimeInfo>& r) {
  if (!r) return;
  w.Key("regime");
  w.StartObject();
  Field(w, "regime", r->regime);
  Field(w, "arithmetic_intensity", r->arithmetic_intensity);
  Field(w, "roof_fraction", r->roof_fraction);
  Field(w, "device", r->device);
  w.EndObject();
}

void WriteKernel(Writer& w, const KernelResult& k) {
  w.StartObject();
  Field(w, "name", k.name);
  Field(w, "count", k.count);
  Field(w, "total_s", k.total_s);
  w.Key("durations_s");
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  DoubleArray(w, k.durations_s);
  if (!k.launch_groups.empty()) {
    w.Key("launch_groups");
    w.StartArray();
    for (uint32_t g : k.launch_groups) w.Uint(g);
    w.EndArray();
  }
  w.SetFormatOptions(rapidjson::kFormatDefault);
  w.Key("metrics");
  WriteNumberMap(w, k.metrics);
  if (!k.attributes.empty()) {
    w.Key("attributes");
    w.StartObject();
    for (const auto& [key, value] : k.attributes) {
      WriteJsonString(w, key);
      WriteJsonString(w, value);
    }
    w.EndObject();
  }
  WriteRegime(w, k.regime);
  w.EndObject();
}

void WriteWorkload(Writer& w, const WorkloadResult& r) {
  w.StartObject();
  Field(w, "name", r.name);
  Field(w, "kind", r.kind);
  Field(w, "backend", r.backend);
  w.Key("params");
  w.StartObject();
  for (const auto& [key, value] : r.params) {
    WriteJsonString(w, key);
    WriteJsonString(w, value);
  }
  w.EndObject();
  w.Key("tags");
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  w.StartArray();
  for (const auto& t : r.tags) WriteJsonString(w, t);
  w.EndArray();
  w.SetFormatOptions(rapidjson::kFormatDefault);
  Field(w, "status", ToString(r.status));
  Field(w, "reason", r.reason);
  // Written only when there are notes (minor version 3), so other files stay
  // as they were.
  if (!r.notes.empty()) {
    w.Key("notes");
    w.StartArray();
    for (const auto& n : r.notes) WriteJsonString(w, n);
    w.EndArray();
  }
  Field(w, "iterations_per_sample", r.iterations_per_sample);
  Field(w, "warmup", r.warmup);
  // The primary metric: written only when it is not time in seconds, so files
  // of timed workloads stay as they were.
  if (!HasTimeMetric(r) || r.unit != "s") {
    Field(w, "metric", r.metric);
    Field(w, "unit", r.unit);
  }
  if (!r.lower_is_better) Field(w, "lower_is_better", r.lower_is_better);
  if (r.deterministic) Field(w, "deterministic", r.deterministic);

  w.Key("rounds");
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  w.StartArray();
  for (const auto& round : r.rounds) DoubleArray(w, round);
  w.EndArray();
  w.SetFormatOptions(rapidjson::kFormatDefault);

  w.Key("summary");
  WriteSummary(w, r.summary);
  w.Key("work");
  w.StartObject();
  Field(w, "bytes", r.work.bytes);
  Field(w, "flops", r.work.flops);
  Field(w, "items", r.work.items);
  w.EndObject();
  Field(w, "bytes_per_second", r.bytes_per_second);
  Field(w, "flops_per_second", r.flops_per_second);
  Field(w, "peak_memory_bytes", r.peak_memory_bytes);
  Field(w, "user_seconds", r.user_seconds);
  Field(w, "sys_seconds", r.sys_seconds);
  w.Key("clocks");
  w.StartArray();
  for (const auto& c : r.clocks) WriteClock(w, c);
  w.EndArray();
  if (!r.cycles.empty()) {
    w.Key("cycles");
    w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
    w.StartArray();
    for (const auto& round : r.cycles) DoubleArray(w, round);
    w.EndArray();
    w.SetFormatOptions(rapidjson::kFormatDefault);
  }
  Field(w, "throttled", r.throttled);
  if (r.gpu) {  // written only when set, so other files stay as they were
    w.Key("gpu");
    WriteGpu(w, *r.gpu);
  }
  w.Key("kernels");
  w.StartArray();
  for (const auto& k : r.kernels) WriteKernel(w, k);
  w.EndArray();
  WriteRegime(w, r.regime);
  w.Key("counters");
  WriteNumberMap(w, r.counters);
  Field(w, "confirmation_reruns", r.confirmation_reruns);
  if (r.code_unchanged) Field(w, "code_unchanged", true);
  if (r.cpu_model) Field(w, "cpu_model", r.cpu_model);
  w.EndObject();
}

// ---------------------------------------------------------------------------
// Reading

/// A location in the document ("workloads[3].rounds[0][2]"), rendered only
/// when an error is reported. Nodes live on the stack of the decoding code.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;  ///< member name; empty for an array element
  int64_t index = -1;    ///< array index, or -1 for a member

  Path Member(std::string_view k) const { return Path{this, k, -1}; }
  Path Element(int64_t i) const { return Path{this, {}, i}; }

  std::string Render() const {
    std::string out = parent ? parent->Render() : std::string();
    if (index >= 0) return out + "[" + std::to_string(index) + "]";
    if (key.empty()) return out;
    bool plain = true;
    for (char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') plain = false;
    if (plain) return out.empty() ? std::string(key) : out + "." + std::string(key);
    std::string quoted = "[\"";
    for (char c : key) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    return out + quoted + "\"]";
  }
};

/// Keeps the first error; later checks become no-ops once one failed.
class Decoder {
 public:
  explicit Decoder(const std::string& name) : name_(name) {}

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }

  void Fail(const JsonValue& at, const Path& path, const std::string& message) {
    if (!error_) error_ = JsonError(name_, at, path.Render(), message);
  }
  void TypeError(const JsonValue& at, const Path& path, const char* expected) {
    Fail(at, path, std::string("expected ") + expected + ", got " + at.TypeName());
  }

 private:
  const std::string& name_;
  std::optional<Error> error_;
};

// Conversions of one value. Non-optional doubles accept null as NaN (the
// writer spells NaN and infinities as null); std::optional maps null to empty.

void Decode(Decoder& d, const JsonValue& v, const Path& p, std::string* out) {
  if (!v.IsString()) return d.TypeError(v, p, "a string");
  *out = v.string;
}

void Decode(Decoder& d, const JsonValue& v, const Path& p, bool* out) {
  if (!v.IsBool()) return d.TypeError(v, p, "true or false");
  *out = v.boolean;
}

void Decode(Decoder& d, const JsonValue& v, const Path& p, double* out) {
  if (v.IsNull()) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  if (!v.IsNumber()) return d.TypeError(v, p, "a number");
  *out = v.number;
}

void Decode(Decoder& d, const JsonValue& v, const Path& p, int64_t* out) {
  if (!v.IsNumber()) return d.TypeError(v, p, "an integer");
  if (!v.is_integer) {
    if (!std::isfinite(v.number)) return d.Fail(v, p, "expected an integer, got NaN or Infinity");
    if (v.number == std::floor(v.number)) return d.Fail(v, p, "integer out of range");
    return d.Fail(v, p, "expected an integer, got a fractional number");
  }
  *out = v.integer;
}

void Decode(Decoder& d, const JsonValue& v, const Path& p, int* out) {
  int64_t wide = 0;
  Decode(d, v, p, &wide);
  if (!d.ok()) return;
  if (wide < INT_MIN || wide > INT_MAX) return d.Fail(v, p, "integer out of range");
  *out = static_cast<int>(wide);
}

template <class T>
void Decode(Decoder& d, const JsonValue& v, const Path& p, std::optional<T>* out) {
  if (v.IsNull()) {
    out->reset();
    return;
  }
  T value{};
  Decode(d, v, p, &value);
  if (d.ok()) *out = std::move(value);
}

/// What a sample array holds, for its bounds (model/limits.h).
enum class SampleKind {
  kTime,          ///< samples of the time metric: seconds, > 0
  kValue,         ///< samples of another metric: finite, >= 0
  kKernelTime,    ///< kernel durations: seconds, 0 allowed (too short to time)
};

/// One sample, checked against its kind's bounds.
void DecodeSample(Decoder& d, const JsonValue& v, const Path& p, SampleKind kind, double* out) {
  if (!v.IsNumber()) return d.TypeError(v, p, "a number");
  std::optional<std::string> problem =
      kind == SampleKind::kValue ? MetricValueProblem(v.number) : TimeProblem(v.number);
  if (problem && kind == SampleKind::kKernelTime && v.number == 0) problem.reset();
  if (problem)
    return d.Fail(v, p, std::string(kind == SampleKind::kValue ? "sample value " : "sample time ") +
                            *problem);
  *out = v.number;
}

/// Reads the members of one JSON object. Keys are looked up starting after the
/// previous match, so reading in written order costs one comparison per field.
/// Unknown members are ignored (later minor versions may add fields).
class ObjectReader {
 public:
  ObjectReader(Decoder& d, const JsonValue& v, const Path& path)
      : d_(d), v_(v), path_(path) {
    if (!v.IsObject()) d_.TypeError(v, path, "an object");
  }

  bool valid() const { return v_.IsObject(); }
  const JsonValue& value() const { return v_; }
  const Path& path() const { return path_; }

  /// The member, or nullptr. A missing required member is an error reported
  /// at the object.
  const JsonValue* Get(std::string_view key, bool required) {
    if (!valid()) return nullptr;
    const auto& m = v_.members;
    for (size_t k = 0; k < m.size(); ++k) {
      size_t i = (cursor_ + k) % m.size();
      if (m[i].first == key) {
        cursor_ = i + 1;
        return &m[i].second;
      }
    }
    if (required) d_.Fail(v_, path_, "missing field '" + std::string(key) + "'");
    return nullptr;
  }

  /// Reads a member into `out`; a missing optional member keeps `out`.
  template <class T>
  const JsonValue* Read(std::string_view key, T* out, bool required) {
    const JsonValue* v = Get(key, required);
    if (v) Decode(d_, *v, path_.Member(key), out);
    return v;
  }
  template <class T>
  const JsonValue* Required(std::string_view key, T* out) { return Read(key, out, true); }
  template <class T>
  const JsonValue* Optional(std::string_view key, T* out) { return Read(key, out, false); }

  /// Reads an integer count that must be at least `min`.
  template <class T>
  void Count(std::string_view key, T* out, bool required, T min = 0) {
    const JsonValue* v = Read(key, out, required);
    if (v && d_.ok() && *out < min)
      d_.Fail(*v, path_.Member(key), "must be at least " + std::to_string(min));
  }
  template <class T>
  void OptionalCount(std::string_view key, std::optional<T>* out) {
    const JsonValue* v = Read(key, out, false);
    if (v && d_.ok() && out->has_value() && **out < 0)
      d_.Fail(*v, path_.Member(key), "must not be negative");
  }

  /// An array member, or nullptr (missing and optional, or wrong type).
  const JsonValue* Array(std::string_view key, bool required) {
    const JsonValue* v = Get(key, required);
    if (v && !v->IsArray()) {
      d_.TypeError(*v, path_.Member(key), "an array");
      return nullptr;
    }
    return v;
  }

 private:
  Decoder& d_;
  const JsonValue& v_;
  const Path& path_;
  size_t cursor_ = 0;
};

void ReadGpu(Decoder& d, const JsonValue& v, const Path& p, GpuInfo* g) {
  ObjectReader o(d, v, p);
  o.Optional("name", &g->name);
  o.Optional("driver_version", &g->driver_version);
  o.Optional("cuda_version", &g->cuda_version);
  o.Optional("compute_capability", &g->compute_capability);
  o.Optional("device_index", &g->device_index);
  o.OptionalCount("sm_count", &g->sm_count);
  o.Optional("sm_clock_hz", &g->sm_clock_hz);
  o.Optional("mem_clock_hz", &g->mem_clock_hz);
  o.OptionalCount("memory_bytes", &g->memory_bytes);
  o.OptionalCount("l2_bytes", &g->l2_bytes);
  o.Optional("ecc_enabled", &g->ecc_enabled);
  o.Optional("mig_enabled", &g->mig_enabled);
  o.Optional("uuid", &g->uuid);
  o.Optional("persistence_mode", &g->persistence_mode);
  o.Optional("power_limit_w", &g->power_limit_w);
}

void ReadEnvironment(Decoder& d, const JsonValue& v, const Path& p, Environment* e) {
  ObjectReader o(d, v, p);
  o.Required("host", &e->host);
  o.Required("os", &e->os);
  o.Required("cpu_model", &e->cpu_model);
  o.Count("cpu_cores", &e->cpu_cores, true);
  o.Optional("cpu_governor", &e->cpu_governor);
  o.Required("compiler", &e->compiler);
  o.Optional("runner_class", &e->runner_class);
  if (const JsonValue* gpu = o.Get("gpu", false); gpu && !gpu->IsNull())
    ReadGpu(d, *gpu, p.Member("gpu"), &e->gpu);
}

void ReadRun(Decoder& d, const JsonValue& v, const Path& p, RunInfo* r) {
  ObjectReader o(d, v, p);
  o.Required("tool_version", &r->tool_version);
  if (const JsonValue* suite = o.Required("suite", &r->suite); suite && d.ok()) {
    if (std::optional<std::string> problem = NameProblem(r->suite))
      return d.Fail(*suite, p.Member("suite"), "suite name must be printable text: " + *problem);
  }
  if (const JsonValue* id = o.Required("run_id", &r->run_id); id && d.ok() && r->run_id.empty())
    return d.Fail(*id, p.Member("run_id"), "a run id must not be empty");
  o.Required("time_utc", &r->time_utc);
  o.Required("time_unix_ns", &r->time_unix_ns);
  o.Optional("git_sha", &r->git_sha);
  o.Optional("git_branch", &r->git_branch);
  o.Optional("git_dirty", &r->git_dirty);
  o.Optional("shard", &r->shard);
  o.Optional("source_format", &r->source_format);
  if (const JsonValue* ctx = o.Get("source_context", false); ctx && !ctx->IsNull()) {
    const Path cp = p.Member("source_context");
    if (!ctx->IsObject()) return d.TypeError(*ctx, cp, "an object");
    for (const auto& [key, value] : ctx->members) {
      std::string text;
      Decode(d, value, cp.Member(key), &text);
      if (!d.ok()) return;
      r->source_context[key] = std::move(text);
    }
  }
  if (const JsonValue* env = o.Get("environment", true))
    ReadEnvironment(d, *env, p.Member("environment"), &r->env);
}

void ReadSummary(Decoder& d, const JsonValue& v, const Path& p, Summary* s) {
  ObjectReader o(d, v, p);
  o.Count("n", &s->n, true);
  o.Required("median", &s->median);
  o.Required("mean", &s->mean);
  o.Required("min", &s->min);
  o.Required("max", &s->max);
  o.Required("stddev", &s->stddev);
  o.Required("mad", &s->mad);
  o.Required("p5", &s->p5);
  o.Required("p95", &s->p95);
  o.Required("cv", &s->cv);
  o.Required("rel_ci_half_width", &s->rel_ci_half_width);
}

void ReadSamples(Decoder& d, const JsonValue& v, const Path& p, SampleKind kind,
                 std::vector<double>* out) {
  out->reserve(v.items.size());
  for (size_t i = 0; i < v.items.size() && d.ok(); ++i) {
    double x = 0;
    DecodeSample(d, v.items[i], p.Element(static_cast<int64_t>(i)), kind, &x);
    out->push_back(x);
  }
}

void ReadNumberMap(Decoder& d, const JsonValue& v, const Path& p,
                   std::map<std::string, double>* out) {
  if (!v.IsObject()) return d.TypeError(v, p, "an object");
  for (const auto& [key, value] : v.members) {
    double x = 0;
    Decode(d, value, p.Member(key), &x);
    if (!d.ok()) return;
    (*out)[key] = x;
  }
}

void ReadClock(Decoder& d, const JsonValue& v, const Path& p, ClockReading* c) {
  ObjectReader o(d, v, p);
  o.Count("round", &c->round, true);
  o.Required("sm_clock_hz", &c->sm_clock_hz);
  o.Optional("temperature_c", &c->temperature_c);
  o.Optional("power_w", &c->power_w);
  o.Optional("throttle_reasons", &c->throttle_reasons);
}

void ReadRegime(Decoder& d, ObjectReader& parent, std::optional<RegimeInfo>* out) {
  const JsonValue* v = parent.Get("regime", false);
  if (v == nullptr || v->IsNull()) return;
  const Path path = parent.path().Member("regime");  // outlives the reader, which refers to it
  ObjectReader o(d, *v, path);
  RegimeInfo r;
  o.Required("regime", &r.regime);
  o.Optional("arithmetic_intensity", &r.arithmetic_intensity);
  o.Required("roof_fraction", &r.roof_fraction);
  o.Optional("device", &r.device);
  *out = std::move(r);
}

void ReadKernel(Decoder& d, const JsonValue& v, const Path& p, KernelResult* k) {
  ObjectReader o(d, v, p);
  o.Required("name", &k->name);
  k->name = BoundedName(k->name);  // as every writer bounds it
  o.Count("count", &k->count, true);
  o.Required("total_s", &k->total_s);
  if (const JsonValue* durations = o.Array("durations_s", false))
    ReadSamples(d, *durations, p.Member("durations_s"), SampleKind::kKernelTime, &k->durations_s);
  if (const JsonValue* groups = o.Array("launch_groups", false)) {
    const Path gp = p.Member("launch_groups");
    if (groups->items.size() != k->durations_s.size())
      return d.Fail(*groups, gp, "expected one launch group per entry of durations_s (" +
                                     std::to_string(k->durations_s.size()) + "), got " +
                                     std::to_string(groups->items.size()));
    k->launch_groups.reserve(groups->items.size());
    for (size_t i = 0; i < groups->items.size() && d.ok(); ++i) {
      int64_t g = 0;
      Decode(d, groups->items[i], gp.Element(static_cast<int64_t>(i)), &g);
      if (d.ok() && (g < 0 || g > 0xffffffffLL))
        return d.Fail(groups->items[i], gp.Element(static_cast<int64_t>(i)),
                      "expected a launch group from 0 to 4294967295, got " + std::to_string(g));
      k->launch_groups.push_back(static_cast<uint32_t>(g));
    }
  }
  if (const JsonValue* metrics = o.Get("metrics", false))
    ReadNumberMap(d, *metrics, p.Member("metrics"), &k->metrics);
  // Files written before fractions everywhere named a trace's achieved
  // occupancy "occupancy_pct" (0-100): read it as the fraction it stands for.
  if (auto legacy = k->metrics.find("occupancy_pct"); legacy != k->metrics.end()) {
    if (!k->metrics.contains("achieved_occupancy")) k->metrics["achieved_occupancy"] = legacy->second / 100.0;
    k->metrics.erase(legacy);
  }
  if (const JsonValue* attributes = o.Get("attributes", false)) {
    const Path ap = p.Member("attributes");
    if (!attributes->IsObject()) return d.TypeError(*attributes, ap, "an object");
    for (const auto& [key, value] : attributes->members) {
      std::string text;
      Decode(d, value, ap.Member(key), &text);
      if (!d.ok()) return;
      k->attributes[key] = std::move(text);
    }
  }
  ReadRegime(d, o, &k->regime);
}

void ReadStatus(Decoder& d, const JsonValue& v, const Path& p, WorkloadStatus* out) {
  std::string s;
  Decode(d, v, p, &s);
  if (!d.ok()) return;
  for (WorkloadStatus candidate :
       {WorkloadStatus::kOk, WorkloadStatus::kFailed, WorkloadStatus::kSkipped}) {
    if (s == ToString(candidate)) {
      *out = candidate;
      return;
    }
  }
  d.Fail(v, p, "unknown status '" + s + "', expected ok, failed or skipped" +
                   DidYouMean(s, {"ok", "failed", "skipped"}));
}

/// metric, unit, lower_is_better, deterministic (minor version 1). Time is
/// always in seconds: samples of a time metric are compared as seconds.
void ReadPrimaryMetric(Decoder& d, ObjectReader& o, WorkloadResult* w) {
  const JsonValue* metric = o.Optional("metric", &w->metric);
  const JsonValue* unit = o.Optional("unit", &w->unit);
  o.Optional("lower_is_better", &w->lower_is_better);
  o.Optional("deterministic", &w->deterministic);
  if (!d.ok()) return;
  // A time is smaller-is-better whatever a file says: runs stored before
  // --bigger-is-better left times alone (custom JSON, a suite's
  // bigger_is_better) hold them as bigger-is-better, and would read as a
  // direction conflict with every new run.
  if (HasTimeMetric(*w)) w->lower_is_better = true;
  if (metric && w->metric.empty())
    return d.Fail(*metric, o.path().Member("metric"), "must not be empty");
  if (HasTimeMetric(*w) && w->unit != "s")
    return d.Fail(unit ? *unit : o.value(), o.path().Member("unit"),
                  "the time metric is in seconds, got unit '" + w->unit + "'");
  if (metric && !HasTimeMetric(*w) && !unit)
    d.Fail(*metric, o.path().Member("unit"), "a metric other than time needs its 'unit'");
}

// Custom benchmark JSON in a time unit written as a word ("sec", "msec",
// "milliseconds") was read as metric "value" in that unit before such units
// were read as times: a run kept from then is the time it measured, in
// seconds, so a kept baseline compares with a run read now (both sides read
// "the sides measured different metrics" and a +100% passed).
void UpgradeCustomTime(WorkloadResult* w) {
  if (w->kind != "custom" || w->metric != "value") return;
  const std::optional<double> scale = CustomTimeUnitScale(w->unit);
  if (!scale) return;
  // A value no time can be (2e9 "sec" is beyond gpugate's bound on a time)
  // stays the value it was kept as: read as a time, the history holding it
  // could be written and then never read again.
  for (const std::vector<double>& round : w->rounds)
    for (double x : round)
      if (TimeProblem(x * *scale)) return;  // 0 too: a kept 0 is no time either
  w->metric = kTimeMetric;
  w->unit = "s";
  w->lower_is_better = true;  // a time, whatever the file's direction
  for (std::vector<double>& round : w->rounds)
    for (double& x : round) x *= *scale;
  for (double* x : {&w->summary.min, &w->summary.max, &w->summary.mean, &w->summary.median,
                    &w->summary.stddev, &w->summary.mad, &w->summary.p5, &w->summary.p95})
    *x *= *scale;
  if (auto range = w->counters.find("range"); range != w->counters.end()) range->second *= *scale;
}

void ReadWorkload(Decoder& d, const JsonValue& v, const Path& p, WorkloadResult* w) {
  ObjectReader o(d, v, p);
  if (!o.valid()) return;
  if (const JsonValue* name = o.Required("name", &w->name); name && d.ok()) {
    if (std::optional<std::string> problem = NameProblem(w->name))
      return d.Fail(*name, p.Member("name"), "workload name must be printable text: " + *problem);
    if (w->name.empty()) return d.Fail(*name, p.Member("name"), "workload name must not be empty");
  }
  o.Required("kind", &w->kind);
  o.Required("backend", &w->backend);
  if (const JsonValue* params = o.Get("params", false)) {
    const Path pp = p.Member("params");
    if (!params->IsObject()) return d.TypeError(*params, pp, "an object");
    for (const auto& [key, value] : params->members) {
      std::string s;
      Decode(d, value, pp.Member(key), &s);
      if (!d.ok()) return;
      w->params.emplace_back(key, std::move(s));
    }
  }
  if (const JsonValue* tags = o.Array("tags", false)) {
    const Path tp = p.Member("tags");
    for (size_t i = 0; i < tags->items.size() && d.ok(); ++i)
      Decode(d, tags->items[i], tp.Element(static_cast<int64_t>(i)), &w->tags.emplace_back());
  }
  if (const JsonValue* status = o.Get("status", true))
    ReadStatus(d, *status, p.Member("status"), &w->status);
  o.Optional("reason", &w->reason);
  if (const JsonValue* notes = o.Array("notes", false)) {
    const Path np = p.Member("notes");
    for (size_t i = 0; i < notes->items.size() && d.ok(); ++i)
      Decode(d, notes->items[i], np.Element(static_cast<int64_t>(i)), &w->notes.emplace_back());
  }
  o.Count("iterations_per_sample", &w->iterations_per_sample, false, int64_t{1});
  o.Count("warmup", &w->warmup, false);
  ReadPrimaryMetric(d, o, w);

  if (const JsonValue* rounds = o.Array("rounds", true)) {
    const Path rp = p.Member("rounds");
    const SampleKind kind = HasTimeMetric(*w) ? SampleKind::kTime : SampleKind::kValue;
    w->rounds.reserve(rounds->items.size());
    size_t samples = 0;
    for (size_t i = 0; i < rounds->items.size() && d.ok(); ++i) {
      const JsonValue& round = rounds->items[i];
      const Path ip = rp.Element(static_cast<int64_t>(i));
      if (!round.IsArray()) return d.TypeError(round, ip, "an array of samples");
      samples += round.items.size();
      if (samples > static_cast<size_t>(kMaxSamplesPerResult))
        return d.Fail(round, ip, "more than " + std::to_string(kMaxSamplesPerResult) +
                                     " samples in one workload");
      ReadSamples(d, round, ip, kind, &w->rounds.emplace_back());
    }
  }
  if (const JsonValue* summary = o.Get("summary", true))
    ReadSummary(d, *summary, p.Member("summary"), &w->summary);
  if (const JsonValue* gpu = o.Get("gpu", false); gpu && !gpu->IsNull())
    ReadGpu(d, *gpu, p.Member("gpu"), &w->gpu.emplace());
  if (const JsonValue* work = o.Get("work", false); work && !work->IsNull()) {
    const Path wp = p.Member("work");
    ObjectReader wo(d, *work, wp);
    wo.OptionalCount("bytes", &w->work.bytes);
    wo.Optional("flops", &w->work.flops);
    wo.OptionalCount("items", &w->work.items);
  }
  // A rate is not negative: a negative throughput would read as a step of
  // its sign in a history (no upper bound: gpugate derives rates from times
  // down to 1e-15 s).
  for (auto [key, rate] : {std::pair{"bytes_per_second", &w->bytes_per_second},
                           std::pair{"flops_per_second", &w->flops_per_second}}) {
    const JsonValue* v = o.Optional(key, rate);
    if (v != nullptr && d.ok() && *rate && **rate < 0)
      if (std::optional<std::string> problem = MetricValueProblem(**rate)) d.Fail(*v, p.Member(key), *problem);
  }
  o.OptionalCount("peak_memory_bytes", &w->peak_memory_bytes);
  o.Optional("user_seconds", &w->user_seconds);
  o.Optional("sys_seconds", &w->sys_seconds);
  if (const JsonValue* clocks = o.Array("clocks", false)) {
    const Path cp = p.Member("clocks");
    for (size_t i = 0; i < clocks->items.size() && d.ok(); ++i)
      ReadClock(d, clocks->items[i], cp.Element(static_cast<int64_t>(i)), &w->clocks.emplace_back());
  }
  if (const JsonValue* cycles = o.Array("cycles", false)) {
    const Path yp = p.Member("cycles");
    size_t values = 0;
    for (size_t i = 0; i < cycles->items.size() && d.ok(); ++i) {
      const JsonValue& round = cycles->items[i];
      const Path ip = yp.Element(static_cast<int64_t>(i));
      if (!round.IsArray()) return d.TypeError(round, ip, "an array of cycle counts");
      values += round.items.size();
      if (values > static_cast<size_t>(kMaxSamplesPerResult))
        return d.Fail(round, ip, "more than " + std::to_string(kMaxSamplesPerResult) +
                                     " cycle counts in one workload");
      ReadSamples(d, round, ip, SampleKind::kValue, &w->cycles.emplace_back());
    }
  }
  o.Optional("throttled", &w->throttled);
  if (const JsonValue* kernels = o.Array("kernels", false)) {
    const Path kp = p.Member("kernels");
    for (size_t i = 0; i < kernels->items.size() && d.ok(); ++i)
      ReadKernel(d, kernels->items[i], kp.Element(static_cast<int64_t>(i)),
                 &w->kernels.emplace_back());
  }
  ReadRegime(d, o, &w->regime);
  if (const JsonValue* counters = o.Get("counters", false))
    ReadNumberMap(d, *counters, p.Member("counters"), &w->counters);
  o.Count("confirmation_reruns", &w->confirmation_reruns, false);
  o.Optional("code_unchanged", &w->code_unchanged);
  o.Optional("cpu_model", &w->cpu_model);
}

/// "schema" must name a major version this gpugate reads (CheckSchema), and
/// so must the "version" object that files before 2026-11-29 carry.
void CheckVersion(Decoder& d, ObjectReader& top, bool* newer_minor) {
  const Path& root = top.path();
  std::string schema;
  const JsonValue* sv = top.Required("schema", &schema);
  if (!sv || !d.ok()) return;
  int minor = 0;
  if (std::string error = CheckSchema(schema, "results", kResultsMajorVersion, &minor); !error.empty())
    return d.Fail(*sv, root.Member("schema"), error);
  *newer_minor = minor > kResultsMinorVersion;
  const JsonValue* version = top.Get("version", false);
  if (!version) return;
  const Path vp = root.Member("version");
  ObjectReader vo(d, *version, vp);
  int file_major = 0, file_minor = 0;
  const JsonValue* mv = vo.Required("major", &file_major);
  vo.Count("minor", &file_minor, false);
  *newer_minor = *newer_minor || file_minor > kResultsMinorVersion;
  if (mv && d.ok() && file_major != kResultsMajorVersion) {
    d.Fail(*mv, vp.Member("major"),
           "unsupported results version " + std::to_string(file_major) + "." +
               std::to_string(file_minor) + " (this gpugate reads v" +
               std::to_string(kResultsMajorVersion) + ")");
  }
}

}  // namespace

std::string ResultsToJson(const Results& results) {
  JsonStringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  Field(w, "schema", kResultsSchema);
  w.Key("run");
  WriteRun(w, results.run);
  w.Key("workloads");
  w.StartArray();
  for (const auto& workload : results.workloads) WriteWorkload(w, workload);
  w.EndArray();
  w.EndObject();
  std::string out(buffer.GetString(), buffer.GetSize());
  out += '\n';
  return out;
}

namespace {

/// Decodes workloads one at a time while the document streams by, so a file
/// of 10,000 workloads never exists as a whole DOM. The schema must be
/// checked before any workload is trusted: elements that arrive before the
/// "schema" member (only in hand-edited files) are kept and decoded at the end.
class WorkloadSink {
 public:
  WorkloadSink(Decoder& d, Results* results) : d_(d), results_(results) {}

  Status Add(const JsonValue& root, const JsonValue& element, size_t index) {
    if (!version_checked_) {
      if (!root.Find("schema")) {
        pending_.emplace_back(element, index);
        return Status::Ok();
      }
      if (!CheckVersionOf(root)) return d_.error();
    }
    Decode(element, index);
    if (!d_.ok()) return d_.error();
    return Status::Ok();
  }

  /// After the parse: checks the version (if no workload did) and decodes
  /// the elements that came before the schema.
  bool Finish(const JsonValue& root) {
    if (!version_checked_ && !CheckVersionOf(root)) return false;
    for (const auto& [element, index] : pending_) {
      Decode(element, index);
      if (!d_.ok()) return false;
    }
    pending_.clear();
    return true;
  }

 private:
  bool CheckVersionOf(const JsonValue& root) {
    ObjectReader top(d_, root, root_path_);
    if (top.valid()) CheckVersion(d_, top, &results_->newer_minor);
    version_checked_ = true;
    return d_.ok();
  }

  void Decode(const JsonValue& element, size_t index) {
    const Path wp = root_path_.Member("workloads");
    const Path ip = wp.Element(static_cast<int64_t>(index));
    if (index >= static_cast<size_t>(kMaxWorkloadsPerResult))
      return d_.Fail(element, ip, "more than " + std::to_string(kMaxWorkloadsPerResult) +
                                      " workloads in one results file");
    WorkloadResult& w = results_->workloads.emplace_back();
    ReadWorkload(d_, element, ip, &w);
    if (!d_.ok()) return;
    UpgradeCustomTime(&w);
    auto [it, inserted] = seen_.emplace(w.name, index);
    if (!inserted) {
      const JsonValue* name_value = element.Find("name");
      d_.Fail(name_value ? *name_value : element, ip.Member("name"),
              "duplicate workload name '" + w.name + "' (first at workloads[" +
                  std::to_string(it->second) + "])");
    }
  }

  Decoder& d_;
  Results* results_;
  const Path root_path_;
  bool version_checked_ = false;
  std::vector<std::pair<JsonValue, size_t>> pending_;
  std::unordered_map<std::string, size_t> seen_;
};

}  // namespace

Result<Results> ResultsFromJson(const std::string& text, const std::string& name) {
  return ResultsFromJson(std::string_view(text), name, JsonOrigin{});
}

Result<Results> ResultsFromJson(std::string_view text, const std::string& name, JsonOrigin origin) {
  Decoder d(name);
  Results results;
  results.schema = kResultsSchema;
  WorkloadSink sink(d, &results);
  Result<JsonValue> doc = ParseJsonStreaming(
      text, name, "workloads",
      [&sink](const JsonValue& root, const JsonValue& element, size_t index) {
        return sink.Add(root, element, index);
      },
      origin);
  if (!doc.ok()) return doc.error();
  if (!doc->IsObject()) {
    return JsonError(name, *doc, "", std::string("expected a results object at the top level, got ") +
                                         doc->TypeName());
  }
  if (!sink.Finish(*doc)) return d.error();

  const Path root;
  ObjectReader top(d, *doc, root);
  if (const JsonValue* run = top.Get("run", true)) ReadRun(d, *run, root.Member("run"), &results.run);
  top.Array("workloads", true);  // present and an array (its elements were streamed)
  if (!d.ok()) return d.error();
  return results;
}

Result<Results> ReadResultsFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.error();
  return ResultsFromJson(*text, path);
}

namespace {

// The first key of `keys` that the writer would write as an earlier one's
// (the same key, or one that differs only in invalid UTF-8, which is written
// repaired), as it is written.
template <class Keys>
std::optional<std::string> RepeatedKey(const Keys& keys) {
  std::set<std::string> written;
  for (const auto& entry : keys)
    if (std::string key = RepairUtf8(entry.first); !written.insert(key).second) return key;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RepeatedKeyProblem(const Results& results) {
  auto problem = [](const std::string& where, const std::string& what, const std::string& key) {
    return where + what + ": two entries would be written under one key " + QuoteInput(key) +
           " (a key is written as valid UTF-8), which every reader refuses";
  };
  if (auto key = RepeatedKey(results.run.source_context)) return problem("run", ".source_context", *key);
  for (const WorkloadResult& w : results.workloads) {
    const std::string where = "workload " + QuoteInput(w.name);
    if (auto key = RepeatedKey(w.params)) return problem(where, ": params", *key);
    if (auto key = RepeatedKey(w.counters)) return problem(where, ": counters", *key);
    for (const KernelResult& k : w.kernels) {
      if (auto key = RepeatedKey(k.metrics)) return problem(where + " kernel " + QuoteInput(k.name), ": metrics", *key);
      if (auto key = RepeatedKey(k.attributes))
        return problem(where + " kernel " + QuoteInput(k.name), ": attributes", *key);
    }
  }
  return std::nullopt;
}

Status WriteResultsFile(const std::string& path, const Results& results) {
  if (std::optional<std::string> problem = RepeatedKeyProblem(results))
    return InputError(path + ": not written: " + *problem);
  // Every reader refuses more (a merge of shards, an A/B side): a file no
  // command could read back is not written.
  if (results.workloads.size() > static_cast<size_t>(kMaxWorkloadsPerResult))
    return InputError(path + ": not written: " + std::to_string(results.workloads.size()) +
                      " workloads, more than the " + std::to_string(kMaxWorkloadsPerResult) +
                      " a results file holds (every reader refuses more): split the suite into suites of "
                      "fewer workloads, or select benchmarks with a workload's filter");
  return WriteFileAtomic(path, ResultsToJson(results));
}

std::optional<std::string> RunIdProblem(std::string_view id) {
  const bool fits = !id.empty() && id.size() <= 128 &&
                    id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789._:+-") == std::string_view::npos;
  if (fits) return std::nullopt;
  return std::string("a run id is 1 to 128 letters, digits or . _ : + -");
}

}  // namespace gpugate
