// Input format detection: a key scanner over the head of a JSON file. It only
// tracks nesting depth and string boundaries, so a head cut in the middle of a
// value still yields the keys seen so far. IngestBenchmarkFile dispatches to
// the reader of the detected format.
#include "ingest/format.h"

#include <set>
#include <string>
#include <utility>

#include "ingest/custom.h"
#include "ingest/gbench.h"
#include "ingest/nvbench.h"
#include "ingest/pytest.h"
#include "model/limits.h"
#include "util/fs.h"
#include "util/strings.h"

namespace gpugate {
namespace {

// Keys seen in the head, by nesting depth (1 = members of the root object),
// plus the string value of the root's "schema" member when present.
struct HeadKeys {
  std::set<std::string> top;
  std::set<std::string> second;  // members of objects one level down
  std::set<std::string> deeper;  // any depth >= 3
  std::string schema;
  bool root_is_array = false;
  std::set<std::string> first_element;  // keys of the first element of a root array
};

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// Reads a JSON string starting at the opening quote; returns the index after
// the closing quote (s.size() when the head ends inside it). Escapes are kept
// undecoded except \" and \\, which is all key matching needs.
size_t ReadString(std::string_view s, size_t i, std::string* out) {
  ++i;  // opening quote
  while (i < s.size() && s[i] != '"') {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out->push_back(s[i + 1]);
      i += 2;
      continue;
    }
    out->push_back(s[i]);
    ++i;
  }
  return i < s.size() ? i + 1 : s.size();
}

HeadKeys ScanKeys(std::string_view s, size_t start) {
  HeadKeys keys;
  keys.root_is_array = s[start] == '[';
  int depth = 0;
  // In the array form of a Chrome trace, the first event is at depth 2 and
  // ends when depth drops back to 1.
  bool in_first_element = false;
  bool first_element_done = false;
  size_t i = start;
  while (i < s.size()) {
    char c = s[i];
    if (c == '{' || c == '[') {
      ++depth;
      if (keys.root_is_array && depth == 2 && !first_element_done) in_first_element = true;
      ++i;
    } else if (c == '}' || c == ']') {
      --depth;
      if (in_first_element && depth == 1) {
        in_first_element = false;
        first_element_done = true;
      }
      if (depth <= 0) break;
      ++i;
    } else if (c == '"') {
      std::string text;
      i = ReadString(s, i, &text);
      size_t j = SkipSpace(s, i);
      if (j >= s.size() || s[j] != ':') continue;  // a value, not a key
      if (keys.root_is_array) {
        if (in_first_element && depth == 2) keys.first_element.insert(text);
      } else if (depth == 1) {
        if (text == "schema") {
          size_t v = SkipSpace(s, j + 1);
          if (v < s.size() && s[v] == '"') {
            i = ReadString(s, v, &keys.schema);
            keys.top.insert(text);
            continue;
          }
        }
        keys.top.insert(text);
      } else if (depth == 2) {
        keys.second.insert(text);
      } else {
        keys.deeper.insert(text);
      }
      i = j + 1;
    } else {
      ++i;
    }
  }
  return keys;
}

bool Has(const std::set<std::string>& set, const char* key) { return set.count(key) > 0; }

}  // namespace

InputFormat SniffFormat(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return InputFormat::kChromeTrace;
  size_t i = 0;
  if (StartsWith(head, "\xEF\xBB\xBF")) i = 3;  // UTF-8 byte order mark
  i = SkipSpace(head, i);
  if (i >= head.size() || (head[i] != '{' && head[i] != '[')) return InputFormat::kUnknown;

  HeadKeys k = ScanKeys(head, i);
  if (k.root_is_array) {
    if (Has(k.first_element, "ph")) return InputFormat::kChromeTrace;
    // Custom JSON: {name, unit, value}; two of the three are enough to
    // read it as such, so the one missing is named at its entry (a first
    // entry that spells "Name" or "benchmark" is custom JSON without a name).
    const int custom_keys = Has(k.first_element, "name") + Has(k.first_element, "unit") + Has(k.first_element, "value");
    if (custom_keys >= 2) return InputFormat::kCustom;
    return InputFormat::kUnknown;
  }
  if (StartsWith(k.schema, "gpugate/results/")) return InputFormat::kGpugateResults;
  if (StartsWith(k.schema, "gpugate/baseline/")) return InputFormat::kGpugateBaseline;
  if (Has(k.top, "traceEvents") || (Has(k.top, "schemaVersion") && Has(k.top, "deviceProperties")))
    return InputFormat::kChromeTrace;
  if (Has(k.top, "machine_info") || Has(k.top, "commit_info")) return InputFormat::kPytest;
  if (Has(k.top, "context") &&
      (Has(k.top, "benchmarks") || Has(k.second, "num_cpus") || Has(k.second, "library_build_type") ||
       Has(k.second, "mhz_per_cpu")))
    return InputFormat::kGbench;
  if (Has(k.top, "benchmarks") && (Has(k.top, "devices") || Has(k.top, "meta")))
    return InputFormat::kNvbench;
  if (Has(k.top, "meta") && Has(k.deeper, "nvbench")) return InputFormat::kNvbench;
  if (Has(k.top, "devices") && Has(k.deeper, "sm_version")) return InputFormat::kNvbench;
  return InputFormat::kUnknown;
}

std::string SniffSchema(std::string_view head) {
  size_t i = 0;
  if (StartsWith(head, "\xEF\xBB\xBF")) i = 3;
  i = SkipSpace(head, i);
  if (i >= head.size() || head[i] != '{') return "";
  return ScanKeys(head, i).schema;
}

const char* ToString(InputFormat format) {
  switch (format) {
    case InputFormat::kGpugateResults: return "gpugate results";
    case InputFormat::kGpugateBaseline: return "gpugate baseline";
    case InputFormat::kGbench: return "Google Benchmark JSON";
    case InputFormat::kNvbench: return "nvbench JSON";
    case InputFormat::kCustom: return "custom benchmark JSON";
    case InputFormat::kPytest: return "pytest-benchmark JSON";
    case InputFormat::kChromeTrace: return "Chrome trace";
    case InputFormat::kUnknown: return "unknown";
  }
  return "unknown";
}

Result<Results> IngestBenchmarkFile(const std::string& path, const IngestOptions& options) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.error();
  return IngestBenchmarkText(*text, path, DirName(path), options);
}

Result<Results> IngestBenchmarkText(std::string_view text, const std::string& path,
                                    const IngestOptions& options) {
  return IngestBenchmarkText(text, path, DirName(path), options);
}

Result<Results> IngestBenchmarkText(std::string_view text, const std::string& name,
                                    const std::string& base_dir, const IngestOptions& options) {
  InputFormat format = SniffFormat(text.substr(0, kSniffBytes));
  // The telling keys may all come later (keys sorted, `jq -S`).
  if (format == InputFormat::kUnknown && text.size() > kSniffBytes) format = SniffFormat(text);
  // As many benchmarks as a results file holds workloads: each costs a few
  // kilobytes in the comparison and a row in every report.
  auto bounded = [&name](Result<Results> r) -> Result<Results> {
    if (r.ok() && r->workloads.size() > static_cast<size_t>(kMaxWorkloadsPerResult))
      return InputError(name + ": " + std::to_string(r->workloads.size()) + " benchmarks, more than the " +
                        std::to_string(kMaxWorkloadsPerResult) + " a run may hold; split the file");
    return r;
  };
  switch (format) {
    case InputFormat::kGbench: return bounded(GbenchFromJson(text, name));
    case InputFormat::kNvbench: return bounded(NvbenchFromJson(text, name, base_dir));
    case InputFormat::kCustom: return bounded(CustomFromJson(text, name, options.bigger_is_better));
    case InputFormat::kPytest: return bounded(PytestFromJson(text, name));
    case InputFormat::kUnknown:
      return InputError(name + ": not a recognised benchmark file (expected " +
                        kBenchmarkFormatsText + ")");
    default:
      return InputError(name + ": is a " + std::string(ToString(format)) +
                        ", not a benchmark file (" + kBenchmarkFormatsText + ")");
  }
}

}  // namespace gpugate
