// Custom benchmark JSON -> results. Recipe: parse, check that the top level is
// an array, read every entry with type checks (name, unit, value, range,
// extra), reject repeated names, turn each entry into a one-sample workload.
#include "ingest/custom.h"

#include <charconv>
#include <cmath>
#include <map>
#include <utility>

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

// A spread reported next to a value: relative ("5%") or in the value's unit.
struct Range {
  double amount = 0;
  bool relative = false;
};

// The number in `s` with its commas read: as thousands separators where
// they group digits in threes ("1,234", "12,345.6"), as a decimal point where
// there is one comma, no point, and no group of three after it or a 0 before
// it ("0,52", "1,5"); empty when they are neither.
std::string WithoutCommas(const std::string& s) {
  const size_t first = s.find(',');
  if (first == std::string::npos) return s;
  const bool one = s.find(',', first + 1) == std::string::npos;
  const std::string before = s.substr(0, first);
  const size_t point = s.find('.');
  if (one && point == std::string::npos) {
    const std::string after = s.substr(first + 1);
    if (after.size() != 3 || before.empty() || before == "0") return before + "." + after;
  }
  // Thousands: 1 to 3 digits (not a leading 0), then ",ddd" groups up to
  // the point or the end.
  const size_t int_end = point == std::string::npos ? s.size() : point;
  if (before.empty() || before.size() > 3 || before[0] == '0' || point < first) return "";
  std::string out = before;
  for (size_t at = first; at < int_end; at += 4) {
    if (s[at] != ',' || at + 4 > int_end) return "";
    const std::string group = s.substr(at + 1, 3);
    if (group.find_first_not_of("0123456789") != std::string::npos) return "";
    out += group;
  }
  out += s.substr(int_end);
  return out;
}

// Reads "5%", "± 1,234", "+/- 0.5", "± 0,52", "3": an optional plus-minus
// sign, a number (WithoutCommas), an optional "%". Anything else ("stddev:
// 0.01", "1,23,4") is not a spread gpugate can read.
std::optional<Range> ParseRangeText(std::string_view text) {
  std::string s = Trim(text);
  for (const char* sign : {"\xC2\xB1", "+/-", "+-"}) {
    if (StartsWith(s, sign)) {
      s = Trim(std::string_view(s).substr(std::string_view(sign).size()));
      break;
    }
  }
  Range r;
  if (EndsWith(s, "%")) {
    r.relative = true;
    s = Trim(std::string_view(s).substr(0, s.size() - 1));
  }
  const std::string digits = WithoutCommas(s);
  if (digits.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  r.amount = r.relative ? v / 100.0 : v;
  return r;
}

// One entry of the array, checked.
struct Entry {
  std::string name;
  const JsonValue* name_at = nullptr;
  std::string unit;
  double value = 0;
  std::optional<Range> range;
};

// A time (in a time unit) must be a usable time, any other value a usable
// metric value (model/limits.h); 0 means "not measured" in both (skipped).
Status CheckValue(const FieldReader& f, const JsonValue& at, const std::string& bench,
                  const std::string& unit, double value) {
  if (value == 0) return Status::Ok();
  std::optional<double> scale = CustomTimeUnitScale(unit);
  // NaN, infinite and negative values are shown as written; bounds in seconds.
  if (std::optional<std::string> problem = NotFiniteOrNegative(value))
    return f.ErrorAt(at, "benchmark " + QuoteInput(bench), "value " + *problem);
  std::optional<std::string> problem =
      scale ? ScaledTimeProblem(value, *scale) : IngestedMetricValueProblem(value);
  if (!problem) return Status::Ok();
  return f.ErrorAt(at, "benchmark " + QuoteInput(bench),
                   "value " + *problem + (scale ? " in seconds" : ""));
}

Result<Entry> ReadEntry(const std::string& file, const JsonValue& item, size_t index) {
  const std::string path = "[" + std::to_string(index) + "]";
  if (!item.IsObject())
    return JsonError(file, item, path,
                     std::string("expected an object with \"name\", \"unit\" and \"value\", got ") +
                         item.TypeName());
  FieldReader f(file, item, path);
  Entry e;
  auto name = f.String("name");
  if (!name.ok()) return name.error();
  if (!*name) return f.Missing("name", item, path, "missing \"name\"");
  if ((*name)->empty()) return f.ErrorAt(*item.Find("name"), f.PathOf("name"), "empty name");
  if (std::optional<std::string> problem = NameProblem(**name))
    return f.ErrorAt(*item.Find("name"), f.PathOf("name"),
                     "a benchmark name must be printable text: " + *problem);
  e.name = **name;
  e.name_at = item.Find("name");
  const std::string subject = "benchmark " + QuoteInput(e.name);
  auto unit = f.String("unit");
  if (!unit.ok()) return unit.error();
  if (!*unit) return f.Missing("unit", item, subject, "missing \"unit\"");
  e.unit = **unit;
  auto value = f.Number("value");
  if (!value.ok()) return value.error();
  if (!*value) return f.Missing("value", item, subject, "missing \"value\"");
  if (Status st = CheckValue(f, *item.Find("value"), e.name, e.unit, **value); !st.ok())
    return st.error();
  e.value = **value;
  // "extra" is free text for people (tooltips); checked, then not kept.
  auto extra = f.String("extra");
  if (!extra.ok()) return extra.error();
  if (const JsonValue* range = item.Find("range"); range && !range->IsNull()) {
    if (range->IsNumber()) {
      if (std::isfinite(range->number) && range->number >= 0) e.range = Range{range->number, false};
    } else if (range->IsString()) {
      e.range = ParseRangeText(range->string);
    } else {
      return f.ErrorAt(*range, f.PathOf("range"),
                       std::string("expected a string or a number, got ") + range->TypeName());
    }
  }
  return e;
}

WorkloadResult ToWorkload(const Entry& e, bool bigger_is_better) {
  WorkloadResult w;
  w.name = e.name;
  w.kind = "custom";
  w.backend = "ingest";
  double scale = 1.0;
  if (std::optional<double> s = CustomTimeUnitScale(e.unit)) {
    scale = *s;  // metric "time", unit "s": the defaults; a time is smaller-is-better whatever the file says
  } else {
    w.metric = "value";
    w.unit = e.unit;
    w.lower_is_better = !bigger_is_better;
  }
  if (e.range) {
    if (e.range->relative) w.counters["range_rel"] = e.range->amount;
    else w.counters["range"] = e.range->amount * scale;
  }
  if (e.value == 0) {
    w.status = WorkloadStatus::kSkipped;
    w.reason = "value is 0; a ratio needs a positive value";
    return w;
  }
  w.rounds.push_back({e.value * scale});
  w.counters["single_sample"] = 1;
  w.summary = Summarize(AllSamples(w));
  return w;
}

}  // namespace

Result<Results> CustomFromJson(std::string_view text, const std::string& name,
                               bool bigger_is_better) {
  Result<JsonValue> doc = ParseJson(text, name);
  if (!doc.ok()) return doc.error();
  const JsonValue& root = *doc;
  if (!root.IsArray())
    return JsonError(name, root, "document",
                     std::string("expected an array of {\"name\", \"unit\", \"value\"} objects, "
                                 "got ") +
                         root.TypeName());

  Results results;
  results.run.source_format = "custom";
  results.run.tool_version = GPUGATE_VERSION;
  results.run.suite = NameFromFileName(DataFileStem(name));
  results.run.run_id = detail::ContentRunId("custom", text);
  results.workloads.reserve(root.items.size());
  std::map<std::string, const JsonValue*, std::less<>> first_at;  // name -> its first "name"
  for (size_t i = 0; i < root.items.size(); ++i) {
    Result<Entry> e = ReadEntry(name, root.items[i], i);
    if (!e.ok()) return e.error();
    auto [it, inserted] = first_at.emplace(e->name, e->name_at);
    if (!inserted)
      return JsonError(name, *e->name_at, "[" + std::to_string(i) + "].name",
                       "benchmark name " + QuoteInput(e->name) + " is used twice (first at " +
                           std::to_string(it->second->line) + ":" +
                           std::to_string(it->second->column) + ")");
    results.workloads.push_back(ToWorkload(*e, bigger_is_better));
  }
  return results;
}

}  // namespace gpugate
