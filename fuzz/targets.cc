// The fuzz targets (targets.h). Inputs name no real file: nvbench sample
// files are looked up under a folder that does not exist, so no input reaches
// a file on this machine (nor "../" out of it) and runs stay repeatable.
#include "targets.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "config/policy.h"
#include "config/suite.h"
#include "ingest/format.h"
#include "ingest/gbench.h"
#include "ingest/nvbench.h"
#include "model/baseline.h"
#include "model/merge.h"
#include "model/results_json.h"
#include "report/json.h"
#include "rules/expr.h"
#include "static/inspect.h"
#include "static/inspect_render.h"
#include "trace/analysis.h"
#include "trace/findings.h"
#include "trace/report_render.h"
#include "trace/to_results.h"
#include "trace/trace_reader.h"
#include "util/json.h"

namespace gpugate::fuzz {
namespace {

constexpr const char* kNoDir = "/nonexistent-gpugate-fuzz/dir";

std::string Text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

// A reader that rejects its input says why, with the exit code for bad input
// (2): exit 3 would say gpugate itself failed.
template <class T>
void CheckOutcome(const Result<T>& result) {
  if (result.ok()) return;
  Check(!result.error().message.empty(), "a rejection carries a message");
  Check(result.error().code == ExitCode::kInputError, "a rejected input is an input error (exit 2)");
}

// Suite YAML: the parser behind `run` and `gate` (LoadSuiteFile reads the file
// and calls LoadSuiteFromString).
void SuiteYaml(const uint8_t* data, size_t size) {
  CheckOutcome(LoadSuiteFromString(Text(data, size), "fuzz.yaml"));
}

// Policy YAML: the parser behind --policy.
void PolicyYaml(const uint8_t* data, size_t size) {
  CheckOutcome(LoadPolicyFromString(Text(data, size), "fuzz.yaml"));
}

// Results JSON (ReadResultsFile's parser). What the reader accepts, the
// writer writes back readably: merge and baseline update write what they read.
void ResultsJson(const uint8_t* data, size_t size) {
  Result<Results> results = ResultsFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(results);
  if (!results.ok()) return;
  Result<Results> again = ResultsFromJson(ResultsToJson(*results), "rewritten.json");
  Check(again.ok(), "results the reader accepted are read back after writing");
}

// Baseline history JSON (ReadBaselineFile's parser), with the write-back check.
void BaselineJson(const uint8_t* data, size_t size) {
  Result<Baseline> baseline = BaselineFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(baseline);
  if (!baseline.ok()) return;
  Result<Baseline> again = BaselineFromJson(BaselineToJson(*baseline), "rewritten.json");
  Check(again.ok(), "a baseline the reader accepted is read back after writing");
}

// Verdicts JSON (the reader of --json output), with the write-back check.
void VerdictsJson(const uint8_t* data, size_t size) {
  Result<Verdicts> verdicts = VerdictsFromJson(Text(data, size), "fuzz.json");
  CheckOutcome(verdicts);
  if (!verdicts.ok()) return;
  Result<Verdicts> again = VerdictsFromJson(RenderJson(*verdicts), "rewritten.json");
  Check(again.ok(), "verdicts the reader accepted are read back after rendering");
}

// Google Benchmark JSON (what IngestBenchmarkFile calls for gbench files).
void GbenchJson(const uint8_t* data, size_t size) {
  CheckOutcome(GbenchFromJson(Text(data, size), "fuzz.json"));
}

// nvbench JSON (what IngestBenchmarkFile calls for nvbench files).
void NvbenchJson(const uint8_t* data, size_t size) {
  CheckOutcome(NvbenchFromJson(Text(data, size), "fuzz.json", kNoDir));
}

// Any benchmark file as `compare` reads it: content detection, then the
// custom, pytest-benchmark, gbench or nvbench reader (IngestBenchmarkText,
// the body of IngestBenchmarkFile). Its corpus is custom and pytest JSON.
void BenchmarkFile(const uint8_t* data, size_t size) {
  IngestOptions options;
  options.bigger_is_better = size % 2 == 1;
  CheckOutcome(IngestBenchmarkText(Text(data, size), "fuzz.json", kNoDir, options));
}

// Chrome/Kineto traces (plain or gzip) as `analyze` and `compare` read them:
// the streaming reader feeding the analysis (flame graph, memory timeline and
// kernel samples on, small windows so short inputs reach the eviction
// paths), the console report, the conversion to results.
void Trace(const uint8_t* data, size_t size) {
  AnalysisOptions options;
  options.keep_kernel_samples = true;
  options.collect_flame = true;
  options.collect_memory_timeline = true;
  options.launch_window = 8;
  options.gpu_reorder_window = 8;
  TraceAnalyzer analyzer(options);
  Result<TraceInfo> info = ReadTraceFromString(Text(data, size), "fuzz.json", analyzer);
  CheckOutcome(info);
  if (!info.ok()) return;
  TraceReport report = analyzer.Finish(*info);
  TraceFindingSet findings;
  findings.items = TraceFindings(report, DefaultPolicy().expr_rules);
  (void)RenderTraceConsole(report, findings);
  if (!report.devices.empty()) (void)TraceReportToResults(report);
}

// `gpugate merge`: up to four shard files separated by a line
// "--- shard ---" (tests/data/fuzz_seeds/merge), each read by
// ResultsFromJson (the command stops at the first that does not parse), then
// MergeShards, whose output must read back after writing.
void Merge(const uint8_t* data, size_t size) {
  constexpr std::string_view kSeparator = "\n--- shard ---\n";
  const std::string text = Text(data, size);
  std::vector<Results> shards;
  std::vector<std::string> names;
  size_t begin = 0;
  while (shards.size() < 4) {
    size_t end = text.find(kSeparator, begin);
    std::string name = "shard" + std::to_string(shards.size() + 1) + ".json";
    Result<Results> shard = ResultsFromJson(
        text.substr(begin, end == std::string::npos ? std::string::npos : end - begin), name);
    CheckOutcome(shard);
    if (!shard.ok()) return;
    shards.push_back(std::move(shard).value());
    names.push_back(name);
    if (end == std::string::npos) break;
    begin = end + kSeparator.size();
  }
  MergeOptions options;
  options.allow_partial = size % 2 == 1;
  Result<Results> merged = MergeShards(shards, names, options);
  CheckOutcome(merged);
  if (!merged.ok()) return;
  Result<Results> again = ResultsFromJson(ResultsToJson(*merged), "merged.json");
  Check(again.ok(), "a merged run is read back after writing");
}

// Rule expressions and message templates of policy files (rules/expr.h):
// the same text goes through ParseExpr, ParseCondition and ParseTemplate
// against a fixed schema. Rejections are positioned input errors; an
// accepted expression evaluates, without throwing, to a value of its own
// type (or unknown) in a scope that knows every name, one that knows none
// and one whose values are hostile (NaN, infinities, wrong kinds).
class RuleFuzzScope : public rules::Scope {
 public:
  enum class Mode { kKnown, kNone, kHostile };
  explicit RuleFuzzScope(Mode mode) : mode_(mode) {}
  rules::Value Lookup(std::string_view name) const override {
    using rules::Value;
    if (mode_ == Mode::kNone) return {};
    if (mode_ == Mode::kHostile) {
      switch (name.size() % 4) {
        case 0: return Value::Number(std::numeric_limits<double>::quiet_NaN());
        case 1: return Value::Number(std::numeric_limits<double>::infinity());
        case 2: return Value::String(std::string(name));
        default: return Value::Bool(true);
      }
    }
    if (name == "kernel.name") return Value::String("gemm");
    if (name == "kernel.regime") return Value::String("memory-bound");
    if (name == "trace.available") return Value::Bool(true);
    return Value::Number(static_cast<double>(name.size()) * 1.5);
  }
  rules::Value Share(std::string_view) const override {
    return mode_ == Mode::kKnown ? rules::Value::Number(0.25) : rules::Value{};
  }
  rules::Value Count(std::string_view) const override {
    return mode_ == Mode::kHostile ? rules::Value::Number(-0.0) : rules::Value::Number(3);
  }

 private:
  Mode mode_;
};

const rules::Schema& RuleFuzzSchema() {
  using rules::Dim;
  using rules::Type;
  static const rules::Schema schema = {
      {"kernel.duration", {Type::kNumber, Dim::Time(), "", true, false, ""}},
      {"kernel.bytes", {Type::kNumber, Dim::Bytes(), "", true, false, ""}},
      {"kernel.throughput", {Type::kNumber, Dim::Rate(), "", false, false, ""}},
      {"kernel.grid_blocks", {Type::kNumber, Dim::Number(), "", false, false, ""}},
      {"kernel.name", {Type::kString, {}, "", false, false, ""}},
      {"kernel.regime", {Type::kString, {}, "", false, false, ""}},
      {"kernel", {Type::kNumber, Dim::Number(), "", false, true, ""}},
      {"device.sms", {Type::kNumber, Dim::Number(), "", false, false, ""}},
      {"workload.cv", {Type::kNumber, Dim::Number(), "", false, false, ""}},
      {"trace.available", {Type::kBool, {}, "", false, false, ""}},
      {"trace.gpu_idle_share", {Type::kNumber, Dim::Number(), "", false, false, ""}},
  };
  return schema;
}

template <class T>
void CheckRuleOutcome(const Result<T>& result) {
  CheckOutcome(result);
  if (!result.ok())
    Check(result.error().message.rfind("fuzz.yaml:", 0) == 0, "a rule error names its position");
}

void RuleExpr(const uint8_t* data, size_t size) {
  const std::string text = Text(data, size);
  const rules::Schema& schema = RuleFuzzSchema();
  const rules::SourcePos pos{"fuzz.yaml", 3, 11};
  const RuleFuzzScope scopes[] = {RuleFuzzScope(RuleFuzzScope::Mode::kKnown),
                                  RuleFuzzScope(RuleFuzzScope::Mode::kNone),
                                  RuleFuzzScope(RuleFuzzScope::Mode::kHostile)};

  Result<rules::Expr> expr = rules::ParseExpr(text, schema, pos);
  CheckRuleOutcome(expr);
  Result<rules::Expr> condition = rules::ParseCondition(text, schema, pos);
  CheckRuleOutcome(condition);
  Check(condition.ok() == (expr.ok() && expr->type() == rules::Type::kBool),
        "a condition is exactly an expression of type boolean");
  if (expr.ok()) {
    for (const std::string& name : rules::NamesUsed(*expr))
      Check(schema.count(name) == 1, "an expression uses only schema names");
    for (const RuleFuzzScope& scope : scopes) {
      const rules::Value v = rules::Evaluate(*expr, scope);
      using Kind = rules::Value::Kind;
      switch (expr->type()) {
        case rules::Type::kNumber:
          Check(v.kind == Kind::kUnknown || (v.kind == Kind::kNumber && v.dim == expr->dim() &&
                                             std::isfinite(v.number)),
                "a number expression evaluates to a finite number of its dimension or unknown");
          break;
        case rules::Type::kBool:
          Check(v.kind == Kind::kUnknown || v.kind == Kind::kBool,
                "a boolean expression evaluates to a boolean or unknown");
          break;
        case rules::Type::kString:
          Check(v.kind == Kind::kUnknown || v.kind == Kind::kString,
                "a string expression evaluates to a string or unknown");
          break;
      }
      // An empty string ("") is its own text; every other value formats to some.
      Check(v.kind == Kind::kString || !rules::FormatValue(v).empty(), "a value formats to text");
    }
  }
  Result<rules::Template> tmpl = rules::ParseTemplate(text, schema, pos);
  CheckRuleOutcome(tmpl);
  if (tmpl.ok())
    for (const RuleFuzzScope& scope : scopes) (void)rules::Render(*tmpl, scope);
}

// `gpugate inspect`: cubins, fatbins, ELF objects and ar archives, with a
// small decompression cap so zstd entries stay cheap. An inspected file
// renders to JSON that parses back.
void Inspect(const uint8_t* data, size_t size) {
  FatbinLimits limits;
  limits.max_decompressed = 1 << 20;
  limits.max_total_decompressed = 4 << 20;
  Result<InspectReport> report = InspectBytes(Text(data, size), "input.bin", limits);
  CheckOutcome(report);
  if (!report.ok()) return;
  Check(!report->format.empty(), "an inspected file has a format");
  Result<JsonValue> json = ParseJson(InspectToJson(*report), "inspect.json");
  Check(json.ok(), "inspect JSON parses back");
  (void)RenderInspectTable(*report);
}

}  // namespace

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"suite_yaml", SuiteYaml},       {"policy_yaml", PolicyYaml},
      {"results_json", ResultsJson},   {"baseline_json", BaselineJson},
      {"verdicts_json", VerdictsJson}, {"gbench_json", GbenchJson},
      {"nvbench_json", NvbenchJson},   {"benchmark_file", BenchmarkFile},
      {"trace", Trace},                {"merge", Merge},
      {"rule_expr", RuleExpr},
      {"inspect", Inspect},
  };
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const Target& t : Targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace gpugate::fuzz
