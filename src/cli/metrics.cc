// `gpugate metrics`: hardware-counter metric planning without a GPU, through
// the CUPTI Profiler Host API (metrics/metric_catalog.h): the supported
// chips, a chip's base metrics, or the check and replay-pass count of a set.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "metrics/metric_catalog.h"
#include "util/file_write.h"
#include "util/json_writer.h"
#include "util/text/escape.h"

namespace po = boost::program_options;

namespace gpugate {

namespace {

constexpr const char* kMetricsSchema = "gpugate/metrics/v1";

using JsonWriter = rapidjson::PrettyWriter<JsonStringBuffer>;

std::string Finish(JsonStringBuffer& sb) { return std::string(sb.GetString(), sb.GetSize()) + "\n"; }

void StartDocument(JsonWriter& w) {
  w.StartObject();
  w.Key("schema");
  w.String(kMetricsSchema);
}

std::string ChipsJson(const std::vector<std::string>& chips) {
  JsonStringBuffer sb;
  JsonWriter w(sb);
  StartDocument(w);
  w.Key("chips");
  w.StartArray();
  for (const std::string& c : chips) WriteJsonString(w, c);
  w.EndArray();
  w.EndObject();
  return Finish(sb);
}

std::string BaseMetricsJson(const std::string& chip, const std::vector<BaseMetric>& metrics) {
  JsonStringBuffer sb;
  JsonWriter w(sb);
  StartDocument(w);
  w.Key("chip");
  WriteJsonString(w, chip);
  w.Key("base_metrics");
  w.StartArray();
  for (const BaseMetric& m : metrics) {
    w.StartObject();
    w.Key("name");
    WriteJsonString(w, m.name);
    w.Key("type");
    WriteJsonString(w, m.type);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return Finish(sb);
}

std::string PlanJson(const MetricPlan& plan) {
  JsonStringBuffer sb;
  JsonWriter w(sb);
  StartDocument(w);
  w.Key("chip");
  WriteJsonString(w, plan.chip);
  w.Key("metrics");
  w.StartArray();
  for (const std::string& m : plan.metrics) WriteJsonString(w, m);
  w.EndArray();
  w.Key("passes");
  w.Uint64(plan.passes);
  w.Key("config_image_bytes");
  w.Uint64(plan.config_image_bytes);
  w.EndObject();
  return Finish(sb);
}

std::string ChipsText(const std::vector<std::string>& chips) {
  std::ostringstream out;
  out << chips.size() << " chips supported by the CUPTI Profiler Host API:\n";
  for (const std::string& c : chips) out << "  " << EscapeTerminal(c) << "\n";
  return out.str();
}

std::string BaseMetricsText(const std::string& chip, const std::vector<BaseMetric>& metrics) {
  std::ostringstream out;
  out << "chip " << EscapeTerminal(chip) << ": " << metrics.size()
      << " base metrics (a metric name adds a rollup: .sum, .avg, .max, .min, and for throughputs "
         ".avg.pct_of_peak_sustained_elapsed)\n";
  for (const BaseMetric& m : metrics) out << "  " << EscapeTerminal(m.name) << "  " << m.type << "\n";
  return out.str();
}

std::string PlanText(const MetricPlan& plan) {
  std::ostringstream out;
  out << "chip " << EscapeTerminal(plan.chip) << ": " << plan.metrics.size() << " metric"
      << (plan.metrics.size() == 1 ? "" : "s") << ", " << plan.passes << " replay pass"
      << (plan.passes == 1 ? "" : "es") << " (configuration image " << plan.config_image_bytes
      << " bytes)\n";
  for (const std::string& m : plan.metrics) out << "  " << EscapeTerminal(m) << "\n";
  return out.str();
}

// Text to stdout, or JSON to --json (then no text when it goes to stdout).
int Emit(const po::variables_map& vm, const std::string& text, const std::string& json) {
  const bool json_to_stdout = vm.count("json") && IsStdoutPath(vm["json"].as<std::string>());
  if (!json_to_stdout) std::cout << text;
  if (vm.count("json"))
    if (Status st = WriteFileAtomic(vm["json"].as<std::string>(), json); !st.ok()) return ReportError(st.error());
  return 0;
}

// Every name checked, each unknown one reported; then the plan of the set.
int PlanNames(MetricCatalog& catalog, const std::vector<std::string>& names, const po::variables_map& vm) {
  int code = 0;
  for (const std::string& n : names) {
    if (Status st = catalog.Check(n); !st.ok()) {
      const int c = ReportError(st.error());
      code = std::max(code, c);
    }
  }
  if (code != 0) return code;
  Result<MetricPlan> plan = catalog.Plan(names);
  if (!plan.ok()) return ReportError(plan.error());
  return Emit(vm, PlanText(*plan), PlanJson(*plan));
}

}  // namespace

int MetricsCommand(const CommandSpec& self, const Args& args) {
  po::options_description options("options");
  options.add_options()
      ("chip", po::value<std::string>(), "GPU chip the metrics are for (GA100, GH100, AD102, ...)")
      ("names", po::value<std::vector<std::string>>(),
       "metric names with their rollup (dram__bytes_read.sum): checked, then their replay passes counted")
      ("list-chips", "list the chips CUPTI supports")
      ("json", po::value<std::string>(), "write gpugate/metrics/v1 JSON to this file ('-' = stdout)");
  po::positional_options_description positional;
  positional.add("names", -1);
  po::variables_map vm;
  if (auto code = ParseCommandLine(self, args, options, positional, vm)) return *code;
  if (Status st = CheckOutputPaths(vm); !st.ok()) return ReportError(st.error());

  if (std::optional<std::string> reason = MetricPlanningUnavailableReason())
    return ReportError(InputError("metrics: " + *reason));
  if (vm.count("list-chips")) {
    if (vm.count("chip") || vm.count("names"))
      return ReportError(InputError("metrics: --list-chips takes no --chip and no metric names"));
    Result<std::vector<std::string>> chips = SupportedMetricChips();
    if (!chips.ok()) return ReportError(chips.error());
    return Emit(vm, ChipsText(*chips), ChipsJson(*chips));
  }
  if (!vm.count("chip"))
    return ReportError(InputError("metrics: --chip CHIP is required (or --list-chips); usage: " +
                                  std::string(self.usage)));
  Result<std::unique_ptr<MetricCatalog>> catalog = MetricCatalog::Open(vm["chip"].as<std::string>());
  if (!catalog.ok()) return ReportError(catalog.error().WithContext("metrics: --chip"));
  if (vm.count("names")) return PlanNames(**catalog, vm["names"].as<std::vector<std::string>>(), vm);
  Result<std::vector<BaseMetric>> base = (*catalog)->BaseMetrics();
  if (!base.ok()) return ReportError(base.error());
  return Emit(vm, BaseMetricsText((*catalog)->chip(), *base), BaseMetricsJson((*catalog)->chip(), *base));
}

}  // namespace gpugate
