// Verdicts JSON writer and reader (see json.h, docs/verdicts-schema.md).
#include "report/json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>
#include <iterator>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

#include "model/schema.h"
#include "report/view.h"
#include "util/json.h"
#include "util/json_writer.h"
#include "util/strings.h"

namespace gpugate {
namespace {


// ---------------------------------------------------------------------------
// Writing

using Writer = rapidjson::PrettyWriter<JsonStringBuffer>;

template <class T>
void Field(Writer& w, const char* key, const T& value) {
  WriteJsonField(w, key, value);
}

// An environment value as the JSON type it has: null where unknown.
void WriteEnvValue(Writer& w, const EnvValue& value) {
  std::visit(
      [&w](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          w.Null();
        } else if constexpr (std::is_same_v<T, std::string>) {
          WriteJsonString(w, v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          w.Int64(v);
        } else if constexpr (std::is_same_v<T, double>) {
          WriteJsonDouble(w, v);
        } else {
          w.Bool(v);
        }
      },
      value);
}

void WriteRounds(Writer& w, const char* key, const std::vector<std::vector<double>>& rounds) {
  w.Key(key);
  w.StartArray();
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  for (const auto& round : rounds) {
    w.StartArray();
    for (double x : round) WriteJsonDouble(w, x);
    w.EndArray();
  }
  w.SetFormatOptions(rapidjson::kFormatDefault);
  w.EndArray();
}

void WritePlot(Writer& w, const MetricPlot& p) {
  w.Key("plot");
  w.StartObject();
  WriteRounds(w, "baseline_rounds", p.baseline_rounds);
  WriteRounds(w, "current_rounds", p.current_rounds);
  w.Key("history");
  w.StartArray();
  for (const MetricPlot::RunLevel& r : p.history) {
    w.StartObject();
    Field(w, "label", r.label);
    Field(w, "level", r.level);
    Field(w, "current", r.current);
    w.EndObject();
  }
  w.EndArray();
  w.Key("change_points");
  w.SetFormatOptions(rapidjson::kFormatSingleLineArray);
  w.StartArray();
  for (int64_t i : p.change_points) w.Int64(i);
  w.EndArray();
  w.SetFormatOptions(rapidjson::kFormatDefault);
  w.EndObject();
}

void WriteMetric(Writer& w, const MetricVerdict& m) {
  w.StartObject();
  Field(w, "workload", m.workload);
  Field(w, "metric", m.metric);
  Field(w, "verdict", ToString(m.verdict));
  Field(w, "severity", ToString(m.severity));
  Field(w, "lower_is_better", m.lower_is_better);
  Field(w, "ratio", m.ratio);
  Field(w, "ci_low", m.ci_low);
  Field(w, "ci_high", m.ci_high);
  Field(w, "confidence", m.confidence);
  Field(w, "p_value", m.p_value);
  Field(w, "p_adjusted", m.p_adjusted);
  Field(w, "threshold", m.threshold);
  Field(w, "baseline_value", m.baseline_value);
  Field(w, "current_value", m.current_value);
  if (!m.unit.empty()) Field(w, "unit", m.unit);
  Field(w, "baseline_n", m.baseline_n);
  Field(w, "current_n", m.current_n);
  Field(w, "baseline_rounds", m.baseline_rounds);
  Field(w, "current_rounds", m.current_rounds);
  Field(w, "baseline_history_runs", m.baseline_history_runs);
  Field(w, "mde", m.mde);
  Field(w, "reason_code", ToString(m.reason));
  Field(w, "sentence", m.sentence);
  Field(w, "waived", m.waived);
  Field(w, "waiver_reason", m.waiver_reason);
  if (m.plot) WritePlot(w, *m.plot);
  w.EndObject();
}

void WriteSuggestion(Writer& w, const Suggestion& s) {
  w.StartObject();
  Field(w, "workload", s.workload);
  Field(w, "kernel", s.kernel);
  Field(w, "rule", s.rule);
  Field(w, "priority", s.priority);
  Field(w, "severity", s.severity);
  Field(w, "message", s.message);
  Field(w, "evidence", s.evidence);
  Field(w, "hint", s.hint);
  Field(w, "estimated_speedup", s.estimated_speedup);
  Field(w, "source", s.source);
  w.EndObject();
}

// ---------------------------------------------------------------------------
// Reading

/// Reads typed members and keeps the first error (later reads are no-ops).
class Decoder {
 public:
  explicit Decoder(const std::string& name) : name_(name) {}

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }

  void Fail(const JsonValue& at, const std::string& path, const std::string& message) {
    if (!error_) error_ = JsonError(name_, at, path, message);
  }

  /// The member, or nullptr when absent; a missing required member is an error.
  const JsonValue* Get(const JsonValue& obj, const std::string& path, const char* key,
                       bool required) {
    const JsonValue* v = obj.Find(key);
    if (!v && required) Fail(obj, path, "missing required member '" + std::string(key) + "'");
    return v;
  }

  bool Expect(const JsonValue& v, const std::string& path, JsonValue::Type type,
              const char* type_name) {
    if (v.type == type) return true;
    Fail(v, path, std::string("expected ") + type_name + ", got " + v.TypeName());
    return false;
  }

  void String(const JsonValue& obj, const std::string& path, const char* key, std::string* out,
              bool required = false) {
    const JsonValue* v = Get(obj, path, key, required);
    if (v && Expect(*v, Join(path, key), JsonValue::Type::kString, "a string")) *out = v->string;
  }

  void Bool(const JsonValue& obj, const std::string& path, const char* key, bool* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (v && Expect(*v, Join(path, key), JsonValue::Type::kBool, "a bool")) *out = v->boolean;
  }

  void Double(const JsonValue& obj, const std::string& path, const char* key, double* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (!v || !Expect(*v, Join(path, key), JsonValue::Type::kNumber, "a number")) return;
    if (!std::isfinite(v->number)) {
      Fail(*v, Join(path, key), "expected a finite number");
      return;
    }
    *out = v->number;
  }

  void OptionalDouble(const JsonValue& obj, const std::string& path, const char* key,
                      std::optional<double>* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (!v || v->IsNull()) return;
    if (!Expect(*v, Join(path, key), JsonValue::Type::kNumber, "a number or null")) return;
    if (std::isfinite(v->number)) *out = v->number;
  }

  void Int64(const JsonValue& obj, const std::string& path, const char* key, int64_t* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (v) ReadInteger(*v, Join(path, key), out);
  }

  void OptionalInt64(const JsonValue& obj, const std::string& path, const char* key,
                     std::optional<int64_t>* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (!v || v->IsNull()) return;
    int64_t n = 0;
    if (ReadInteger(*v, Join(path, key), &n)) *out = n;
  }

  void Int(const JsonValue& obj, const std::string& path, const char* key, int* out) {
    int64_t n = *out;
    Int64(obj, path, key, &n);
    if (!ok()) return;
    if (n < -2147483647 || n > 2147483647) {
      Fail(*obj.Find(key), Join(path, key), "integer out of range");
      return;
    }
    *out = static_cast<int>(n);
  }

  template <class Enum, size_t N>
  void Enumerated(const JsonValue& obj, const std::string& path, const char* key,
                  const Enum (&values)[N], const char* what, Enum* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (!v || !Expect(*v, Join(path, key), JsonValue::Type::kString, "a string")) return;
    std::vector<std::string> names;
    for (Enum e : values) {
      if (v->string == ToString(e)) {
        *out = e;
        return;
      }
      names.push_back(ToString(e));
    }
    Fail(*v, Join(path, key),
         std::string("unknown ") + what + " '" + v->string + "'" + DidYouMean(v->string, names));
  }

  /// Calls `each(element, element_path)` for every element of an array member.
  template <class F>
  void Array(const JsonValue& obj, const std::string& path, const char* key, F each) {
    const JsonValue* v = Get(obj, path, key, false);
    const std::string p = Join(path, key);
    if (!v || !Expect(*v, p, JsonValue::Type::kArray, "an array")) return;
    for (size_t i = 0; i < v->items.size() && ok(); ++i) {
      each(v->items[i], p + "[" + std::to_string(i) + "]");
    }
  }

  bool Object(const JsonValue& v, const std::string& path) {
    return Expect(v, path, JsonValue::Type::kObject, "an object");
  }

  static std::string Join(const std::string& path, const char* key) {
    return path.empty() ? std::string(key) : path + "." + key;
  }

  /// An environment value: null (unknown), a string, an integer, a finite
  /// number or a bool.
  void EnvValueOf(const JsonValue& obj, const std::string& path, const char* key, EnvValue* out) {
    const JsonValue* v = Get(obj, path, key, false);
    if (!v || v->IsNull()) return;
    switch (v->type) {
      case JsonValue::Type::kString: *out = v->string; return;
      case JsonValue::Type::kBool: *out = v->boolean; return;
      case JsonValue::Type::kNumber:
        if (v->is_integer && std::fabs(v->number) < 9.2e18) {
          *out = v->integer;
        } else if (std::isfinite(v->number)) {
          *out = v->number;
        } else {
          Fail(*v, Join(path, key), "expected a finite number");
        }
        return;
      default: Fail(*v, Join(path, key), std::string("expected a string, number, bool or null, got ") + v->TypeName());
    }
  }

 private:
  bool ReadInteger(const JsonValue& v, const std::string& path, int64_t* out) {
    if (!Expect(v, path, JsonValue::Type::kNumber, "an integer")) return false;
    if (!v.is_integer || !(std::fabs(v.number) < 9.2e18)) {
      Fail(v, path, "expected an integer");
      return false;
    }
    *out = v.integer;
    return true;
  }

  const std::string& name_;
  std::optional<Error> error_;
};

constexpr Verdict kVerdicts[] = {Verdict::kRegression, Verdict::kImprovement,
                                 Verdict::kUnchanged,  Verdict::kInconclusive,
                                 Verdict::kNew,        Verdict::kRemoved,
                                 Verdict::kSkipped,    Verdict::kIncomparable};
constexpr Severity kSeverities[] = {Severity::kFail, Severity::kWarn, Severity::kOff};
constexpr Outcome kOutcomes[] = {Outcome::kPass, Outcome::kFail, Outcome::kInconclusive,
                                 Outcome::kError, Outcome::kNotJudged};
constexpr Reason kReasons[] = {
    Reason::kNone,
    Reason::kSignificantAboveThreshold,
    Reason::kSignificantImprovement,
    Reason::kWithinThreshold,
    Reason::kStraddlesThreshold,
    Reason::kNotSignificantAfterFdr,
    Reason::kBetweenRunNoise,
    Reason::kBetweenRunNoiseUnmeasured,
    Reason::kCommonShiftAmbiguous,
    Reason::kTooFewSamples,
    Reason::kNoSpread,
    Reason::kNoReplication,
    Reason::kThresholdOnly,
    Reason::kDeterministic,
    Reason::kUndetectable,
    Reason::kThrottled,
    Reason::kClockShift,
    Reason::kEnvironmentMismatch,
    Reason::kMetricMismatch,
    Reason::kNewWorkload,
    Reason::kRemovedWorkload,
    Reason::kNewKernel,
    Reason::kVanishedKernel,
    Reason::kCurrentFailed,
    Reason::kCurrentSkipped,
    Reason::kBaselineFailed,
    Reason::kBaselineSkipped,
    Reason::kSkippedInBoth,
    Reason::kCodeUnchanged,
};
static_assert(std::size(kReasons) == static_cast<size_t>(Reason::kCodeUnchanged) + 1,
              "kReasons lists every Reason");

// The plot's arrays, within the bounds the writer keeps (a hostile file
// cannot make a report draw millions of points).
void ReadPlot(Decoder& d, const JsonValue& v, const std::string& p, MetricVerdict* m) {
  if (!d.Object(v, p)) return;
  MetricPlot plot;
  auto rounds = [&](const char* key, std::vector<std::vector<double>>* out) {
    d.Array(v, p, key, [&](const JsonValue& round, const std::string& rp) {
      if (out->size() >= kPlotRounds) return d.Fail(round, rp, "more than " + std::to_string(kPlotRounds) + " rounds");
      if (!d.Expect(round, rp, JsonValue::Type::kArray, "an array of numbers")) return;
      if (round.items.size() > kPlotValuesPerRound)
        return d.Fail(round, rp, "more than " + std::to_string(kPlotValuesPerRound) + " values in a round");
      std::vector<double>& values = out->emplace_back();
      for (size_t i = 0; i < round.items.size(); ++i) {
        const JsonValue& x = round.items[i];
        const std::string xp = rp + "[" + std::to_string(i) + "]";
        if (!d.Expect(x, xp, JsonValue::Type::kNumber, "a number")) return;
        if (!std::isfinite(x.number)) return d.Fail(x, xp, "expected a finite number");
        values.push_back(x.number);
      }
    });
  };
  rounds("baseline_rounds", &plot.baseline_rounds);
  rounds("current_rounds", &plot.current_rounds);
  d.Array(v, p, "history", [&](const JsonValue& r, const std::string& rp) {
    if (plot.history.size() >= kPlotHistoryRuns)
      return d.Fail(r, rp, "more than " + std::to_string(kPlotHistoryRuns) + " runs");
    if (!d.Object(r, rp)) return;
    MetricPlot::RunLevel& level = plot.history.emplace_back();
    d.String(r, rp, "label", &level.label);
    if (d.ok() && !r.Find("level")) return d.Fail(r, rp, "missing required member 'level'");
    d.Double(r, rp, "level", &level.level);
    d.Bool(r, rp, "current", &level.current);
  });
  d.Array(v, p, "change_points", [&](const JsonValue& c, const std::string& cp) {
    if (!d.Expect(c, cp, JsonValue::Type::kNumber, "an integer")) return;
    if (!c.is_integer || c.integer < 0 || c.integer >= static_cast<int64_t>(plot.history.size()))
      return d.Fail(c, cp, "expected an index into 'history'");
    plot.change_points.push_back(c.integer);
  });
  if (d.ok()) m->plot = std::move(plot);
}

void ReadMetric(Decoder& d, const JsonValue& v, const std::string& p, MetricVerdict* m) {
  if (!d.Object(v, p)) return;
  d.String(v, p, "workload", &m->workload, /*required=*/true);
  d.String(v, p, "metric", &m->metric, /*required=*/true);
  if (d.ok() && !v.Find("verdict")) d.Fail(v, p, "missing required member 'verdict'");
  d.Enumerated(v, p, "verdict", kVerdicts, "verdict", &m->verdict);
  d.Enumerated(v, p, "severity", kSeverities, "severity", &m->severity);
  d.Bool(v, p, "lower_is_better", &m->lower_is_better);
  d.OptionalDouble(v, p, "ratio", &m->ratio);
  d.OptionalDouble(v, p, "ci_low", &m->ci_low);
  d.OptionalDouble(v, p, "ci_high", &m->ci_high);
  d.Double(v, p, "confidence", &m->confidence);
  d.OptionalDouble(v, p, "p_value", &m->p_value);
  d.OptionalDouble(v, p, "p_adjusted", &m->p_adjusted);
  d.Double(v, p, "threshold", &m->threshold);
  d.OptionalDouble(v, p, "baseline_value", &m->baseline_value);
  d.OptionalDouble(v, p, "current_value", &m->current_value);
  d.String(v, p, "unit", &m->unit);
  d.Int64(v, p, "baseline_n", &m->baseline_n);
  d.Int64(v, p, "current_n", &m->current_n);
  d.Int64(v, p, "baseline_rounds", &m->baseline_rounds);
  d.Int64(v, p, "current_rounds", &m->current_rounds);
  d.OptionalInt64(v, p, "baseline_history_runs", &m->baseline_history_runs);
  d.OptionalDouble(v, p, "mde", &m->mde);
  if (v.Find("reason_code")) d.Enumerated(v, p, "reason_code", kReasons, "reason code", &m->reason);
  d.String(v, p, "sentence", &m->sentence);
  d.Bool(v, p, "waived", &m->waived);
  d.String(v, p, "waiver_reason", &m->waiver_reason);
  if (const JsonValue* plot = v.Find("plot"); plot && !plot->IsNull()) ReadPlot(d, *plot, Decoder::Join(p, "plot"), m);
}

void ReadSuggestion(Decoder& d, const JsonValue& v, const std::string& p, Suggestion* s) {
  if (!d.Object(v, p)) return;
  d.String(v, p, "workload", &s->workload);
  d.String(v, p, "kernel", &s->kernel);
  d.String(v, p, "rule", &s->rule, /*required=*/true);
  d.Int(v, p, "priority", &s->priority);
  d.String(v, p, "severity", &s->severity);
  d.String(v, p, "message", &s->message);
  d.String(v, p, "evidence", &s->evidence);
  d.String(v, p, "hint", &s->hint);
  d.OptionalDouble(v, p, "estimated_speedup", &s->estimated_speedup);
  d.String(v, p, "source", &s->source);
}

// [{"workload": W, "kernel": K}, ...]
void WriteKernelList(Writer& w, const char* key,
                     const std::vector<std::pair<std::string, std::string>>& list) {
  w.Key(key);
  w.StartArray();
  for (const auto& [workload, kernel] : list) {
    w.StartObject();
    Field(w, "workload", workload);
    Field(w, "kernel", kernel);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

std::string RenderJson(const Verdicts& verdicts, const ReportOptions& /*options*/) {
  JsonStringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Field(w, "schema", kVerdictsSchema);
  Field(w, "tool_version", verdicts.tool_version);
  Field(w, "baseline_label", verdicts.baseline_label);
  Field(w, "current_label", verdicts.current_label);
  Field(w, "policy_name", verdicts.policy_name);
  Field(w, "fdr_q", verdicts.fdr_q);
  Field(w, "require_detectable", verdicts.require_detectable);
  Field(w, "inconclusive_fails", verdicts.inconclusive_fails);
  Field(w, "incomparable_fails", verdicts.incomparable_fails);
  Field(w, "outcome", ToString(verdicts.outcome));
  w.Key("counts");
  w.StartObject();
  for (Verdict v : kVerdicts) Field(w, ToString(v), verdicts.Count(v));
  // Results of workloads that failed to run (verdict skipped, counted there
  // too): GitHub's `errors` output.
  int errors = 0;
  for (const MetricVerdict& m : verdicts.metrics) errors += FailedToRun(m);
  Field(w, "errors", errors);
  w.EndObject();
  Field(w, "environment_matches", verdicts.environment_matches);
  w.Key("env_differences");
  w.StartArray();
  for (const EnvDifference& d : verdicts.env_differences) {
    w.StartObject();
    Field(w, "field", d.field);
    Field(w, "baseline", d.baseline);
    Field(w, "current", d.current);
    if (d.within_runner_class) Field(w, "within_runner_class", true);
    w.EndObject();
  }
  w.EndArray();
  w.Key("environments");
  w.StartArray();
  for (const EnvField& e : verdicts.environments) {
    w.StartObject();
    Field(w, "field", e.field);
    w.Key("baseline");
    WriteEnvValue(w, e.baseline);
    w.Key("current");
    WriteEnvValue(w, e.current);
    w.EndObject();
  }
  w.EndArray();
  w.Key("metrics");
  w.StartArray();
  for (const auto& m : verdicts.metrics) WriteMetric(w, m);
  w.EndArray();
  w.Key("suggestions");
  w.StartArray();
  for (const auto& s : verdicts.suggestions) WriteSuggestion(w, s);
  w.EndArray();
  WriteKernelList(w, "new_kernels", verdicts.new_kernels);
  WriteKernelList(w, "vanished_kernels", verdicts.vanished_kernels);
  if (!verdicts.device_profile.empty()) {
    Field(w, "device_profile", verdicts.device_profile);
    w.Key("roofline");
    w.StartArray();
    for (const RooflineRow& r : verdicts.roofline) {
      w.StartObject();
      Field(w, "workload", r.workload);
      if (!r.kernel.empty()) Field(w, "kernel", r.kernel);
      Field(w, "regime", r.regime);
      Field(w, "arithmetic_intensity", r.arithmetic_intensity);
      Field(w, "roof_fraction", r.roof_fraction);
      Field(w, "duration_s", r.duration_s);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("warnings");
  w.StartArray();
  for (const auto& s : verdicts.warnings) WriteJsonString(w, s);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

Result<Verdicts> VerdictsFromJson(std::string_view text, const std::string& name) {
  Result<JsonValue> parsed = ParseJson(text, name);
  if (!parsed.ok()) return parsed.error();
  const JsonValue& root = parsed.value();
  Decoder d(name);
  if (!d.Object(root, "")) return d.error();

  Verdicts out;
  const JsonValue* schema = d.Get(root, "", "schema", true);
  if (!d.ok()) return d.error();
  if (!schema->IsString()) {
    d.Fail(*schema, "schema", "expected a string ('" + std::string(kVerdictsSchema) + "')");
    return d.error();
  }
  if (std::string error = CheckSchema(schema->string, "verdicts", kVerdictsMajorVersion); !error.empty()) {
    d.Fail(*schema, "schema", error);
    return d.error();
  }
  out.schema = schema->string;
  d.String(root, "", "tool_version", &out.tool_version);
  d.String(root, "", "baseline_label", &out.baseline_label);
  d.String(root, "", "current_label", &out.current_label);
  d.String(root, "", "policy_name", &out.policy_name);
  d.Double(root, "", "fdr_q", &out.fdr_q);
  d.OptionalDouble(root, "", "require_detectable", &out.require_detectable);
  d.Bool(root, "", "inconclusive_fails", &out.inconclusive_fails);
  d.Bool(root, "", "incomparable_fails", &out.incomparable_fails);
  d.Enumerated(root, "", "outcome", kOutcomes, "outcome", &out.outcome);
  d.Bool(root, "", "environment_matches", &out.environment_matches);
  d.Array(root, "", "env_differences", [&](const JsonValue& v, const std::string& p) {
    EnvDifference e;
    if (!d.Object(v, p)) return;
    d.String(v, p, "field", &e.field, /*required=*/true);
    d.String(v, p, "baseline", &e.baseline);
    d.String(v, p, "current", &e.current);
    d.Bool(v, p, "within_runner_class", &e.within_runner_class);
    out.env_differences.push_back(std::move(e));
  });
  d.Array(root, "", "environments", [&](const JsonValue& v, const std::string& p) {
    EnvField e;
    if (!d.Object(v, p)) return;
    if (out.environments.size() >= 64) return d.Fail(v, p, "more than 64 environment fields");
    d.String(v, p, "field", &e.field, /*required=*/true);
    d.EnvValueOf(v, p, "baseline", &e.baseline);
    d.EnvValueOf(v, p, "current", &e.current);
    out.environments.push_back(std::move(e));
  });
  if (d.ok()) d.Get(root, "", "metrics", /*required=*/true);
  d.Array(root, "", "metrics", [&](const JsonValue& v, const std::string& p) {
    MetricVerdict m;
    ReadMetric(d, v, p, &m);
    out.metrics.push_back(std::move(m));
  });
  d.Array(root, "", "suggestions", [&](const JsonValue& v, const std::string& p) {
    Suggestion s;
    ReadSuggestion(d, v, p, &s);
    out.suggestions.push_back(std::move(s));
  });
  const std::pair<const char*, std::vector<std::pair<std::string, std::string>>*> kernel_lists[] = {
      {"new_kernels", &out.new_kernels}, {"vanished_kernels", &out.vanished_kernels}};
  for (const auto& entry_list : kernel_lists) {
    auto* list = entry_list.second;
    d.Array(root, "", entry_list.first, [&](const JsonValue& v, const std::string& p) {
      if (!d.Object(v, p)) return;
      std::pair<std::string, std::string> entry;
      d.String(v, p, "workload", &entry.first, /*required=*/true);
      d.String(v, p, "kernel", &entry.second, /*required=*/true);
      list->push_back(std::move(entry));
    });
  }
  d.String(root, "", "device_profile", &out.device_profile);
  d.Array(root, "", "roofline", [&](const JsonValue& v, const std::string& p) {
    if (!d.Object(v, p)) return;
    RooflineRow r;
    d.String(v, p, "workload", &r.workload, /*required=*/true);
    d.String(v, p, "kernel", &r.kernel);
    d.String(v, p, "regime", &r.regime, /*required=*/true);
    d.OptionalDouble(v, p, "arithmetic_intensity", &r.arithmetic_intensity);
    d.Double(v, p, "roof_fraction", &r.roof_fraction);
    d.Double(v, p, "duration_s", &r.duration_s);
    out.roofline.push_back(std::move(r));
  });
  d.Array(root, "", "warnings", [&](const JsonValue& v, const std::string& p) {
    if (d.Expect(v, p, JsonValue::Type::kString, "a string")) out.warnings.push_back(v.string);
  });
  if (!d.ok()) return d.error();
  return out;
}

}  // namespace gpugate
