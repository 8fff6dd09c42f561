// Baseline history files: environment keys, JSON I/O (runs are embedded with
// the results writer/reader), append with environment checks, prune.
#include "model/baseline.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "model/results_json.h"
#include "model/schema.h"
#include "util/file_write.h"
#include "util/fs.h"
#include "util/gzip.h"
#include "util/json.h"
#include "util/strings.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

constexpr size_t kMaxSlugLength = 48;
// As in the JSON reader (util/json.cc): RapidJSON's reader recurses per level.
constexpr int kMaxDepth = 512;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void EraseAll(std::string& s, const std::string& what) {
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos)) s.erase(pos, what.size());
}

/// "550.54.15" -> "550"; "" when absent.
std::string DriverMajor(const std::optional<std::string>& driver) {
  if (!driver) return "";
  size_t dot = driver->find('.');
  return dot == std::string::npos ? *driver : driver->substr(0, dot);
}

bool HasGpu(const Environment& env) { return env.gpu.name.has_value() && !env.gpu.name->empty(); }

std::string OrNone(const std::optional<std::string>& s) { return s ? "'" + *s + "'" : "none"; }

/// A JSON string literal, escaped by the text layer.
std::string JsonString(const std::string& s) { return JsonStringLiteral(s); }

/// 1-based line and column (in characters) of a byte offset.
std::pair<int, int> LineColumn(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, CharColumnAt(std::string_view(text).substr(line_start), offset - line_start)};
}

/// Line and column (in characters) of increasing byte offsets, in one pass
/// over the text.
class ForwardLineColumn {
 public:
  explicit ForwardLineColumn(const std::string& text) : text_(text) {}
  std::pair<int, int> At(size_t offset) {
    offset = std::min(offset, text_.size());
    for (; pos_ < offset; ++pos_) {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\n') {
        ++line_;
        column_ = 1;
      } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
        ++column_;
      }
    }
    return {line_, column_};
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

Error ErrorAt(const std::string& name, const std::string& text, size_t offset, const std::string& message) {
  auto [line, col] = LineColumn(text, offset);
  return InputError(name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + message);
}

/// A top-level scalar of the baseline object.
struct TopValue {
  enum class Type { kString, kInteger, kOther } type = Type::kOther;
  std::string text;
  int64_t integer = 0;
  size_t offset = 0;  ///< of the member's key
};

/// SAX handler that records the top-level scalars and the byte range of each
/// element of "runs" without building a DOM of the runs (they are handed to
/// the results reader, which validates them).
class BaselineScanner : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, BaselineScanner> {
 public:
  explicit BaselineScanner(const rapidjson::StringStream& stream) : stream_(stream) {}

  std::map<std::string, TopValue> top;
  std::vector<std::pair<size_t, size_t>> runs;  ///< [begin, end) byte ranges
  bool root_is_object = false;
  bool saw_runs = false;
  std::optional<std::pair<size_t, std::string>> problem;  ///< offset, message

  bool StartObject() {
    if (depth_ >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels", stream_.Tell() - 1);
    if (depth_ == 0) root_is_object = true;
    if (in_runs_ && depth_ == runs_depth_) {
      run_begin_ = stream_.Tell() - 1;
      if (runs.size() >= static_cast<size_t>(kMaxBaselineRuns))
        return Fail("more than " + std::to_string(kMaxBaselineRuns) + " runs in one history",
                    run_begin_);
    }
    ++depth_;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    --depth_;
    if (in_runs_ && depth_ == runs_depth_) runs.emplace_back(run_begin_, stream_.Tell());
    return true;
  }
  bool StartArray() {
    if (depth_ == 0) return Fail("expected a JSON object at the top level", stream_.Tell() - 1);
    if (depth_ >= kMaxDepth) return Fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels", stream_.Tell() - 1);
    if (depth_ == 1 && key_ == "runs") {
      in_runs_ = true;
      saw_runs = true;
      runs_depth_ = depth_ + 1;
    } else if (in_runs_ && depth_ == runs_depth_) {
      return Fail("runs[" + std::to_string(runs.size()) + "]: expected a results object, got array",
                  stream_.Tell() - 1);
    }
    ++depth_;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    if (in_runs_ && depth_ + 1 == runs_depth_) in_runs_ = false;
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    if (depth_ == 1) {
      key_.assign(s, len);
      key_offset_ = stream_.Tell();  // RapidJSON reports the string's start here
      if (!keys_.insert(key_).second) {
        std::string shown = key_.size() > 60 ? key_.substr(0, 57) + "..." : key_;
        return Fail("duplicate key '" + shown + "'", key_offset_);
      }
    }
    return true;
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    if (depth_ != 1) return Scalar(TopValue{TopValue::Type::kString, "", 0, 0});  // checked by the run's reader
    if (len > kMaxJsonStringBytes)
      return Fail("a string longer than " + std::to_string(kMaxJsonStringBytes >> 20) + " MiB",
                  stream_.Tell());  // the string's start, as for keys
    return Scalar(TopValue{TopValue::Type::kString, std::string(s, len), 0, 0});
  }
  bool Int(int v) { return Integer(v); }
  bool Uint(unsigned v) { return Integer(v); }
  bool Int64(int64_t v) { return Integer(v); }
  bool Uint64(uint64_t v) { return Integer(static_cast<int64_t>(v)); }
  bool Default() { return Scalar(TopValue{}); }

 private:
  bool Integer(int64_t v) { return Scalar(TopValue{TopValue::Type::kInteger, "", v, 0}); }
  bool Scalar(TopValue v) {
    if (depth_ == 0) return Fail("expected a JSON object at the top level", stream_.Tell());
    if (in_runs_ && depth_ == runs_depth_)
      return Fail("runs[" + std::to_string(runs.size()) + "]: expected a results object", stream_.Tell());
    if (depth_ == 1) {
      v.offset = key_offset_;
      top[key_] = std::move(v);
    }
    return true;
  }
  bool Fail(std::string message, size_t offset) {
    problem = std::make_pair(offset, std::move(message));
    return false;
  }

  const rapidjson::StringStream& stream_;
  int depth_ = 0;
  std::string key_;
  std::set<std::string> keys_;  ///< top-level keys seen
  size_t key_offset_ = 0;
  bool in_runs_ = false;
  int runs_depth_ = 0;
  size_t run_begin_ = 0;
};

/// Reads "schema" and "version" and checks them against what this gpugate reads.
Status CheckVersion(const BaselineScanner& scan, const std::string& text, const std::string& name) {
  auto schema = scan.top.find("schema");
  if (schema == scan.top.end())
    return ErrorAt(name, text, 0, "missing 'schema' (expected \"" + std::string(kBaselineSchema) +
                                      "\"); is this a gpugate baseline file?");
  if (schema->second.type != TopValue::Type::kString)
    return ErrorAt(name, text, schema->second.offset, "schema: expected a string");
  const std::string& s = schema->second.text;
  if (std::string error = CheckSchema(s, "baseline", kBaselineMajorVersion); !error.empty()) {
    if (StartsWith(s, "gpugate/results/"))
      error += " (this is a results file; create a baseline with 'gpugate baseline update')";
    return ErrorAt(name, text, schema->second.offset, "schema: " + error);
  }
  // Files before 2026-11-29 also carry the major version as an integer.
  auto version = scan.top.find("version");
  if (version != scan.top.end()) {
    if (version->second.type != TopValue::Type::kInteger)
      return ErrorAt(name, text, version->second.offset, "version: expected an integer");
    if (version->second.integer != kBaselineMajorVersion)
      return ErrorAt(name, text, version->second.offset,
                     "unsupported baseline version " + std::to_string(version->second.integer) +
                         " (this gpugate reads version " + std::to_string(kBaselineMajorVersion) + ")");
  }
  return Status::Ok();
}

Result<std::string> RequiredString(const BaselineScanner& scan, const std::string& text,
                                   const std::string& name, const std::string& key) {
  auto it = scan.top.find(key);
  if (it == scan.top.end()) return ErrorAt(name, text, 0, "missing '" + key + "'");
  if (it->second.type != TopValue::Type::kString)
    return ErrorAt(name, text, it->second.offset, key + ": expected a string");
  return it->second.text;
}

/// One history holds runs of one suite, each once: a run of another suite
/// or a repeated run id is an error at that run, naming both.
Status CheckRuns(const Baseline& b, const BaselineScanner& scan, const std::string& text,
                 const std::string& name) {
  std::map<std::string, size_t> ids;
  for (size_t i = 0; i < b.runs.size(); ++i) {
    const RunInfo& run = b.runs[i].run;
    const size_t at = scan.runs[i].first;
    const std::string& suite = b.suite.empty() ? b.runs.front().run.suite : b.suite;
    if (run.suite != suite)
      return ErrorAt(name, text, at,
                     "runs[" + std::to_string(i) + "] is a run of suite '" + run.suite + "', but " +
                         (b.suite.empty() ? "runs[0] is of suite '" : "the baseline holds suite '") +
                         suite + "'; one baseline file keeps the history of one suite");
    auto [it, fresh] = ids.emplace(run.run_id, i);
    if (!fresh)
      return ErrorAt(name, text, at,
                     "runs[" + std::to_string(i) + "] has run id '" + run.run_id +
                         "', as runs[" + std::to_string(it->second) +
                         "] does; a run is kept once");
  }
  return Status::Ok();
}

}  // namespace

std::string Slug(const std::string& text) {
  std::string s = Lower(text);
  for (const char* noise : {"(r)", "(tm)", "(c)"}) EraseAll(s, noise);
  std::string out;
  bool dash = false;
  for (char c : s) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
    if (keep) {
      if (dash && !out.empty()) out += '-';
      out += c;
      dash = false;
    } else {
      dash = true;
    }
  }
  if (out.size() > kMaxSlugLength) out.resize(kMaxSlugLength);
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  // ".git" is the one folder name git reserves: a suite or class of that
  // name would write into a repository's own .git (and a baseline branch
  // could not hold it). Other names keep their leading dots, so the
  // folders of existing histories stay where they are.
  if (out == ".git") return "git";
  return out.empty() ? "unknown" : out;
}

std::string EnvironmentKey(const Environment& env) {
  if (env.runner_class && !env.runner_class->empty()) return Slug(*env.runner_class);
  if (HasGpu(env)) {
    std::string key = Slug(*env.gpu.name);
    std::string drv = DriverMajor(env.gpu.driver_version);
    if (!drv.empty()) key += "-drv" + Slug(drv);
    if (env.gpu.cuda_version) key += "-cuda" + Slug(*env.gpu.cuda_version);
    return key;
  }
  return Slug(env.cpu_model) + "-" + std::to_string(env.cpu_cores) + "c";
}

bool SameRunnerClass(const Environment& a, const Environment& b) {
  return a.runner_class && b.runner_class && !a.runner_class->empty() &&
         *a.runner_class == *b.runner_class;
}

std::vector<std::string> EnvironmentDifferences(const Environment& baseline, const Environment& current) {
  std::vector<std::string> diffs;
  const bool one_class = SameRunnerClass(baseline, current);
  if (!one_class && (baseline.runner_class || current.runner_class))
    diffs.push_back("runner_class " + OrNone(baseline.runner_class) + " vs " + OrNone(current.runner_class));
  if (HasGpu(baseline) || HasGpu(current)) {
    if (baseline.gpu.name != current.gpu.name)
      diffs.push_back("gpu.name " + OrNone(baseline.gpu.name) + " vs " + OrNone(current.gpu.name));
    if (DriverMajor(baseline.gpu.driver_version) != DriverMajor(current.gpu.driver_version))
      diffs.push_back("gpu.driver_version " + OrNone(baseline.gpu.driver_version) + " vs " +
                      OrNone(current.gpu.driver_version));
    if (baseline.gpu.cuda_version != current.gpu.cuda_version)
      diffs.push_back("gpu.cuda_version " + OrNone(baseline.gpu.cuda_version) + " vs " +
                      OrNone(current.gpu.cuda_version));
    // The same GPU model with other hardware settings runs at other
    // speeds (compare says incomparable to the same; a driver's minor
    // version may change within one history).
    const GpuInfo& a = baseline.gpu;
    const GpuInfo& b = current.gpu;
    if (a.compute_capability && b.compute_capability && *a.compute_capability != *b.compute_capability)
      diffs.push_back("gpu.compute_capability " + *a.compute_capability + " vs " + *b.compute_capability);
    if (a.sm_count && b.sm_count && *a.sm_count != *b.sm_count)
      diffs.push_back("gpu.sm_count " + std::to_string(*a.sm_count) + " vs " + std::to_string(*b.sm_count));
    auto clock = [&](const char* field, const std::optional<double>& x, const std::optional<double>& y) {
      if (x && y && *x > 0 && *y > 0 && std::fabs(*x - *y) > 0.02 * std::max(*x, *y))
        diffs.push_back(std::string(field) + " " + FormatFrequency(*x) + " vs " + FormatFrequency(*y));
    };
    clock("gpu.sm_clock_hz", a.sm_clock_hz, b.sm_clock_hz);
    clock("gpu.mem_clock_hz", a.mem_clock_hz, b.mem_clock_hz);
    auto flag = [&](const char* field, const std::optional<bool>& x, const std::optional<bool>& y) {
      if (x && y && *x != *y)
        diffs.push_back(std::string(field) + " " + (*x ? "on" : "off") + " vs " + (*y ? "on" : "off"));
    };
    flag("gpu.ecc_enabled", a.ecc_enabled, b.ecc_enabled);
    flag("gpu.mig_enabled", a.mig_enabled, b.mig_enabled);
    return diffs;
  }
  if (one_class) return diffs;  // CPU models may differ within a class
  if (baseline.cpu_model != current.cpu_model)
    diffs.push_back("cpu_model '" + baseline.cpu_model + "' vs '" + current.cpu_model + "'");
  if (baseline.cpu_cores != current.cpu_cores)
    diffs.push_back("cpu_cores " + std::to_string(baseline.cpu_cores) + " vs " +
                    std::to_string(current.cpu_cores));
  return diffs;
}

std::vector<std::array<std::string, 3>> RunFactDifferences(const RunInfo& a, const RunInfo& b) {
  std::vector<std::array<std::string, 3>> out;
  auto fact = [](const RunInfo& r, const char* key) {
    auto it = r.source_context.find(key);
    return it == r.source_context.end() ? std::string() : it->second;
  };
  for (const auto& [field, key] : {std::pair<const char*, const char*>{"library_build_type", "library_build_type"},
                                   {"python_implementation", "machine_info.python_implementation"}}) {
    const std::string x = fact(a, key), y = fact(b, key);
    if (!x.empty() && !y.empty() && x != y) out.push_back({field, x, y});
  }
  auto word = [](const std::string& os, bool last) {
    const size_t space = last ? os.rfind(' ') : os.find(' ');
    if (space == std::string::npos) return os;
    return last ? os.substr(space + 1) : os.substr(0, space);
  };
  if (!SameRunnerClass(a.env, b.env) && !a.env.os.empty() && !b.env.os.empty() &&
      (word(a.env.os, false) != word(b.env.os, false) || word(a.env.os, true) != word(b.env.os, true)))
    out.push_back({"os", a.env.os, b.env.os});
  return out;
}

std::string BaselinePath(const std::string& root, const std::string& suite, const std::string& environment_key) {
  std::string dir = root.empty() ? "baselines" : root;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + "/" + Slug(suite) + "/" + environment_key + ".json";
}

std::string BaselineToJson(const Baseline& baseline) {
  std::string out = "{\n";
  out += "  \"schema\": " + JsonString(kBaselineSchema) + ",\n";
  out += "  \"suite\": " + JsonString(baseline.suite) + ",\n";
  out += "  \"environment_key\": " + JsonString(baseline.environment_key) + ",\n";
  out += "  \"runs\": [";
  for (size_t i = 0; i < baseline.runs.size(); ++i) {
    std::string run = ResultsToJson(baseline.runs[i]);
    while (!run.empty() && (run.back() == '\n' || run.back() == ' ')) run.pop_back();
    // Indent the embedded document; raw newlines never occur inside JSON strings.
    std::string indented;
    indented.reserve(run.size() + run.size() / 16);
    for (char c : run) {
      indented += c;
      if (c == '\n') indented += "    ";
    }
    out += i == 0 ? "\n    " : ",\n    ";
    out += indented;
  }
  out += baseline.runs.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

namespace {

Result<Baseline> BaselineFromJsonText(const std::string& text, const std::string& name) {
  rapidjson::StringStream stream(text.c_str());
  BaselineScanner scan(stream);
  rapidjson::Reader reader;
  rapidjson::ParseResult ok = reader.Parse<rapidjson::kParseNanAndInfFlag>(stream, scan);
  if (scan.problem) return ErrorAt(name, text, scan.problem->first, scan.problem->second);
  if (!ok) {
    const bool syntax = ClassifyJsonFault(text, ok.Offset(), ok.Code()) == JsonFault::kSyntax;
    return ErrorAt(name, text, ok.Offset(),
                   (syntax ? "invalid JSON: " : "") + JsonFaultText(text, ok.Offset(), ok.Code()));
  }
  // A NUL byte ends RapidJSON's string stream: nothing may follow the document.
  if (stream.Tell() < text.size())
    return ErrorAt(name, text, stream.Tell(),
                   JsonFaultText(text, stream.Tell(), rapidjson::kParseErrorDocumentRootNotSingular));
  if (!scan.root_is_object) return ErrorAt(name, text, 0, "expected a JSON object at the top level");
  if (Status st = CheckVersion(scan, text, name); !st.ok()) return st.error();

  Baseline b;
  auto suite = RequiredString(scan, text, name, "suite");
  if (!suite.ok()) return suite.error();
  b.suite = *suite;
  auto key = RequiredString(scan, text, name, "environment_key");
  if (!key.ok()) return key.error();
  b.environment_key = *key;
  if (!scan.saw_runs) {
    auto it = scan.top.find("runs");
    if (it != scan.top.end()) return ErrorAt(name, text, it->second.offset, "runs: expected an array");
    return ErrorAt(name, text, 0, "missing 'runs'");
  }

  b.runs.reserve(scan.runs.size());
  ForwardLineColumn lines(text);
  for (size_t i = 0; i < scan.runs.size(); ++i) {
    auto [begin, end] = scan.runs[i];
    // Parsed in place, with positions counted from the run's start in the file.
    auto [line, col] = lines.At(begin);
    auto run = ResultsFromJson(std::string_view(text).substr(begin, end - begin), name,
                               JsonOrigin{line, col});
    if (!run.ok()) {
      Error e = run.error();
      e.message += " (in runs[" + std::to_string(i) + "])";
      return e;
    }
    b.runs.push_back(std::move(run).value());
  }
  if (Status st = CheckRuns(b, scan, text, name); !st.ok()) return st.error();
  return b;
}

}  // namespace

Result<Baseline> BaselineFromJson(const std::string& text, const std::string& name) {
  // One UTF-8 byte order mark (an editor's) is not part of the document, nor
  // of the first line's columns, as for every other JSON gpugate reads; a
  // second one is invalid JSON.
  if (text.starts_with("\xEF\xBB\xBF")) return BaselineFromJsonText(text.substr(3), name);
  return BaselineFromJsonText(text, name);
}

Result<Baseline> ReadBaselineFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.error();
  // compare and gate read any input gzipped (cli/inputs.h); a history that
  // is updated, pruned or shown is gpugate's own file, kept uncompressed.
  if (HasGzipMagic(*text))
    return InputError(path + ": a gzip file; a baseline history is read and written uncompressed "
                             "here (gunzip it first; compare and gate read it compressed)");
  return BaselineFromJson(*text, path);
}

Status WriteBaselineFile(const std::string& path, const Baseline& baseline) {
  for (const Results& run : baseline.runs)
    if (std::optional<std::string> problem = RepeatedKeyProblem(run))
      return InputError(path + ": not written: run " + QuoteInput(run.run.run_id) + ": " + *problem +
                        ". The file was left as it was");
  const std::string text = BaselineToJson(baseline);
  // A history its own readers would refuse (update, prune, show, gate)
  // could not even be pruned again: refuse to write it.
  Result<int64_t> limit = MaxInputBytes(InputKind::kData);
  if (!limit.ok()) return limit.error();
  if (static_cast<int64_t>(text.size()) > *limit)
    return InputError(path + ": the history would take " + FormatBytes(static_cast<int64_t>(text.size())) +
                      " with " + std::to_string(baseline.runs.size()) + " runs, beyond " +
                      InputLimitText(*limit) +
                      ", so every command that reads it (update, prune, show, gate, compare) would "
                      "refuse it; keep fewer runs (--keep) or record fewer samples per run. The file "
                      "was left as it was");
  return WriteFileAtomic(path, text);
}

int PruneBaseline(Baseline& baseline, int keep) {
  GPUGATE_CHECK(keep >= 1);
  int excess = static_cast<int>(baseline.runs.size()) - keep;
  if (excess <= 0) return 0;
  baseline.runs.erase(baseline.runs.begin(), baseline.runs.begin() + excess);
  return excess;
}

// A unit as compared: rates per second spelled /s ("ops/sec", "MB/second",
// "items per second" -> "ops/s", "MB/s", "items/s"); anything else as written
// (units are case-sensitive: MB is not Mb).
std::string UnitKey(std::string_view unit) {
  std::string u(unit);
  while (!u.empty() && u.back() == ' ') u.pop_back();
  while (!u.empty() && u.front() == ' ') u.erase(u.begin());
  for (std::string_view tail : {"/seconds", "/second", "/secs", "/sec", " per second", " per sec"})
    if (u.size() > tail.size() && u.compare(u.size() - tail.size(), tail.size(), tail) == 0) {
      u.resize(u.size() - tail.size());
      while (!u.empty() && u.back() == ' ') u.pop_back();
      u += "/s";
      break;
    }
  return u;
}

std::optional<std::string> UnitConflict(const std::vector<Results>& baseline, const Results& current) {
  // (workload, metric) -> unit of the newest baseline run holding it.
  std::map<std::pair<std::string, std::string>, std::string> stored;
  for (auto run = baseline.rbegin(); run != baseline.rend(); ++run)
    for (const WorkloadResult& w : run->workloads)
      if (w.status == WorkloadStatus::kOk) stored.emplace(std::pair{w.name, w.metric}, w.unit);
  for (const WorkloadResult& w : current.workloads) {
    if (w.status != WorkloadStatus::kOk) continue;
    auto it = stored.find({w.name, w.metric});
    if (it == stored.end() || UnitKey(it->second) == UnitKey(w.unit)) continue;
    return "the baseline stores " + QuoteInput(w.name) + " (" + QuoteInput(w.metric) + ") in " +
           QuoteInput(it->second) + " and this run in " + QuoteInput(w.unit) +
           ": one history holds one unit per workload, or its trend and noise mix both; write the "
           "value in the stored unit, or start another history (another --baseline file)";
  }
  return std::nullopt;
}

std::optional<std::string> DirectionConflict(const std::vector<Results>& baseline, const Results& current) {
  // Only a custom file's direction comes from the command line; a suite's
  // `bigger_is_better` is the suite's own (corrected there, it starts anew).
  if (current.run.source_format != "custom") return std::nullopt;
  // (workload, metric) -> lower_is_better of the newest baseline run holding it.
  std::map<std::pair<std::string, std::string>, bool> stored;
  for (auto run = baseline.rbegin(); run != baseline.rend(); ++run)
    for (const WorkloadResult& w : run->workloads) stored.emplace(std::pair{w.name, w.metric}, w.lower_is_better);
  std::vector<std::string> names;
  bool baseline_bigger = false;
  for (const WorkloadResult& w : current.workloads) {
    auto it = stored.find({w.name, w.metric});
    if (it == stored.end() || it->second == w.lower_is_better) continue;
    if (names.empty()) baseline_bigger = !it->second;
    names.push_back(w.name);
  }
  if (names.empty()) return std::nullopt;
  std::string listed;
  for (size_t i = 0; i < names.size() && i < 3; ++i) listed += (i ? ", " : "") + QuoteInput(names[i]);
  if (names.size() > 3) listed += ", ...";
  const std::string stored_text = baseline_bigger ? "bigger is better" : "smaller is better";
  const std::string read_text = baseline_bigger ? "smaller is better" : "bigger is better";
  return "the baseline stores " + stored_text + " for " + std::to_string(names.size()) + " workload" +
         (names.size() == 1 ? "" : "s") + " (" + listed + ") that this run reads as " + read_text + ": " +
         (baseline_bigger ? "give --bigger-is-better" : "leave out --bigger-is-better") +
         " so that both sides are read the same way";
}

namespace {

// Where a run of environment `key` goes instead of `file` (a history of
// another environment): a file of its own beside it, named by the key; when
// `file` already bears that name (a history begun under another class),
// the class has to be named apart.
std::string AnotherEnvironmentHint(const std::string& file, const std::string& suite, const std::string& key) {
  if (file.empty()) return "use a baseline per environment (" + BaselinePath("baselines", suite, key) + ") or pass --force";
  const std::string beside = (DirName(file) == "." ? std::string() : DirName(file) + "/") + key + ".json";
  if (beside != file) return "use a baseline per environment (" + beside + ") or pass --force";
  return "this file is named for environment '" + key +
         "' but holds another's runs: keep each environment's runs in a file of its own (give --baseline the "
         "folder, or name the class with --env-key as the history's runs did), or pass --force";
}

}  // namespace

Status AppendRun(Baseline& baseline, const Results& run, int keep, bool force_env, const std::string& file,
                 int* dropped_other_env,
                 std::vector<std::string>* notes) {
  if (keep < 1) return InputError("--keep must be at least 1, got " + std::to_string(keep));
  if (run.run.shard && run.run.shard->rfind("partial:", 0) == 0)
    return InputError("results are a partial merge (" + *run.run.shard + ") of run '" + run.run.run_id +
                      "': a baseline takes whole runs; merge every shard (without --allow-partial)");
  if (run.run.shard && !run.run.shard->empty())
    return InputError("results are shard " + *run.run.shard + " of run '" + run.run.run_id +
                      "'; join the shards with 'gpugate merge' before updating a baseline");
  if (run.run.suite.empty())
    return InputError("results of run '" + run.run.run_id + "' name no suite; a baseline keeps the history of one suite");
  // The history's suite: its own, or (a file without one) its runs'.
  const std::string& held = !baseline.suite.empty() || baseline.runs.empty() ? baseline.suite
                                                                            : baseline.runs.front().run.suite;
  if (!held.empty() && run.run.suite != held)
    return InputError("results are of suite '" + run.run.suite + "' but the baseline holds suite '" + held + "'");
  // A run that measured nothing (every workload skipped or failed: a GPU
  // suite on a runner without a device, a broken build) would take a slot of
  // the history and push out a run that did measure.
  int skipped = 0, failed = 0, empty = 0;
  for (const WorkloadResult& w : run.workloads) {
    skipped += w.status == WorkloadStatus::kSkipped;
    failed += w.status == WorkloadStatus::kFailed;
    // "ok" without a sample or a kernel measured nothing either.
    const bool no_sample = std::all_of(w.rounds.begin(), w.rounds.end(),
                                       [](const std::vector<double>& r) { return r.empty(); });
    empty += w.status == WorkloadStatus::kOk && no_sample && w.kernels.empty();
  }
  if (skipped + failed + empty == static_cast<int>(run.workloads.size()))
    return InputError("results of run '" + run.run.run_id + "' measured no workload (" +
                      std::to_string(skipped) + " skipped, " + std::to_string(failed) + " failed" +
                      (empty ? ", " + std::to_string(empty) + " without a sample" : std::string()) +
                      "): nothing to add to the history, which is left unchanged");
  for (const auto& old : baseline.runs)
    if (old.run.run_id == run.run.run_id)
      return InputError("run '" + run.run.run_id + "' is already in the baseline" +
                        (run.run.source_format == "gpugate"
                             ? std::string()
                             : "; a file of another tool is named by its content: if this is another "
                               "run whose values are the same, name it with --run-id"));

  if (std::optional<std::string> conflict = DirectionConflict(baseline.runs, run)) return InputError(*conflict);
  if (std::optional<std::string> conflict = UnitConflict(baseline.runs, run)) {
    if (!force_env)
      return InputError(*conflict + "; or pass --force to start that workload's history anew in the new unit");
    // Forced: each workload in a new unit starts its history anew; its older
    // values in another unit go (a run left with no workload goes too).
    std::map<std::pair<std::string, std::string>, std::string> unit;
    for (const WorkloadResult& w : run.workloads)
      if (w.status == WorkloadStatus::kOk) unit[{w.name, w.metric}] = UnitKey(w.unit);
    size_t values = 0;
    std::set<std::string> names;
    for (Results& old : baseline.runs)
      std::erase_if(old.workloads, [&](const WorkloadResult& w) {
        auto it = unit.find({w.name, w.metric});
        const bool other = it != unit.end() && w.status == WorkloadStatus::kOk && UnitKey(w.unit) != it->second;
        if (other) {
          ++values;
          names.insert(w.name);
        }
        return other;
      });
    std::erase_if(baseline.runs, [](const Results& old) { return old.workloads.empty(); });
    if (notes) {
      std::string listed;
      size_t i = 0;
      for (const std::string& n : names) {
        if (i == 3) {
          listed += ", ...";
          break;
        }
        listed += (i++ ? ", " : "") + QuoteInput(n);
      }
      notes->push_back(std::to_string(names.size()) + (names.size() == 1 ? " workload" : " workloads") + " (" +
                       listed + ") changed unit: " + std::to_string(values) +
                       " older values in the other unit were dropped, and its history starts anew (--force)");
    }
  }

  std::string key = EnvironmentKey(run.run.env);
  // The differences between two runs that make one history of them wrong.
  auto differences = [&](const Results& old) {
    std::vector<std::string> diffs = EnvironmentDifferences(old.run.env, run.run.env);
    for (const auto& [field, a, b] : RunFactDifferences(old.run, run.run))
      diffs.push_back(field + " '" + a + "' vs '" + b + "'");
    return diffs;
  };
  if (!baseline.runs.empty()) {
    std::vector<std::string> diffs = differences(baseline.runs.back());
    if (diffs.empty() && key != baseline.environment_key && !force_env)
      diffs.push_back("environment key '" + baseline.environment_key + "' vs '" + key + "'");
    if (!diffs.empty() && !force_env) {
      std::string what;
      for (const auto& d : diffs) what += (what.empty() ? "" : "; ") + d;
      return InputError("results come from another environment than the baseline (" + what +
                        "); " + AnotherEnvironmentHint(file, run.run.suite, key));
    }
  }
  if (baseline.suite.empty()) baseline.suite = run.run.suite;
  // --force re-keys the history to the new run's environment: the runs of
  // the other one would be compared with it as noise, and a change read
  // against them (even with the wrong sign), so they go.
  if (force_env) {
    const size_t before = baseline.runs.size();
    std::erase_if(baseline.runs, [&](const Results& old) { return !differences(old).empty(); });
    if (dropped_other_env) *dropped_other_env = static_cast<int>(before - baseline.runs.size());
  }
  baseline.environment_key = key;
  baseline.runs.push_back(run);
  PruneBaseline(baseline, keep);
  return Status::Ok();
}

}  // namespace gpugate
