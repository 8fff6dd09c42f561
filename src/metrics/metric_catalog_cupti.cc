// Metric planning with the CUPTI Profiler Host API (cupti_profiler_host.h):
// no device and no driver are needed, only libcupti and a chip name.
#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "cupti/cupti_text.h"
#include "metrics/metric_catalog.h"
#include "util/strings.h"

namespace gpugate {

namespace {

Error CuptiError(const std::string& what, CUptiResult r) {
  return ToolError("CUPTI " + what + " failed: " + CuptiText(r));
}

const char* TypeName(CUpti_MetricType t) {
  switch (t) {
    case CUPTI_METRIC_TYPE_COUNTER: return "counter";
    case CUPTI_METRIC_TYPE_RATIO: return "ratio";
    case CUPTI_METRIC_TYPE_THROUGHPUT: return "throughput";
    default: return "unknown";
  }
}

/// One range-profiler host object; deinitialized when it goes out of scope.
/// A host object is spoiled by a rejected ConfigAddMetrics (later calls fail
/// with CUPTI_ERROR_UNKNOWN), so each check and each plan takes a fresh one.
class HostObject {
 public:
  HostObject() = default;
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  ~HostObject() {
    if (object_ == nullptr) return;
    auto p = Params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object_;
    (void)cuptiProfilerHostDeinitialize(&p);
  }

  CUptiResult Initialize(const std::string& chip) {
    auto p = Params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    const CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r == CUPTI_SUCCESS) object_ = p.pHostObject;
    return r;
  }

  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

class CuptiMetricCatalog final : public MetricCatalog {
 public:
  explicit CuptiMetricCatalog(std::string chip) : chip_(std::move(chip)) {}

  const std::string& chip() const override { return chip_; }

  Result<std::vector<BaseMetric>> BaseMetrics() override {
    HostObject host;
    if (CUptiResult r = host.Initialize(chip_); r != CUPTI_SUCCESS)
      return CuptiError("host initialization for chip " + chip_, r);
    std::vector<BaseMetric> out;
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; ++t) {
      auto p = Params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
      p.pHostObject = host.get();
      p.metricType = static_cast<CUpti_MetricType>(t);
      if (CUptiResult r = cuptiProfilerHostGetBaseMetrics(&p); r != CUPTI_SUCCESS)
        return CuptiError("base metric list for chip " + chip_, r);
      for (size_t i = 0; i < p.numMetrics; ++i)
        if (p.ppMetricNames[i] != nullptr)
          out.push_back(BaseMetric{p.ppMetricNames[i], TypeName(p.metricType)});
    }
    std::sort(out.begin(), out.end(), [](const BaseMetric& a, const BaseMetric& b) { return a.name < b.name; });
    return out;
  }

  Status Check(const std::string& name) override {
    HostObject host;
    if (CUptiResult r = host.Initialize(chip_); r != CUPTI_SUCCESS)
      return CuptiError("host initialization for chip " + chip_, r);
    const char* names[] = {name.c_str()};
    auto p = Params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.ppMetricNames = names;
    p.numMetrics = 1;
    const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&p);
    if (r == CUPTI_SUCCESS) return Status::Ok();
    if (r != CUPTI_ERROR_INVALID_PARAMETER && r != CUPTI_ERROR_INVALID_METRIC_NAME)
      return CuptiError("metric check of '" + name + "' on chip " + chip_, r);
    return InputError("unknown metric '" + name + "' for chip " + chip_ + Suggestion(name) + " (CUPTI: " +
                      CuptiText(r) + "); 'gpugate metrics --chip " + chip_ + "' lists its base metrics");
  }

  Result<MetricPlan> Plan(const std::vector<std::string>& names) override {
    MetricPlan plan;
    plan.chip = chip_;
    std::set<std::string> seen;
    for (const std::string& n : names) {
      if (!seen.insert(n).second) continue;
      if (Status st = Check(n); !st.ok()) return st.error();
      plan.metrics.push_back(n);
    }
    if (plan.metrics.empty()) return InputError("no metric names to plan");
    HostObject host;
    if (CUptiResult r = host.Initialize(chip_); r != CUPTI_SUCCESS)
      return CuptiError("host initialization for chip " + chip_, r);
    std::vector<const char*> ptrs;
    for (const std::string& n : plan.metrics) ptrs.push_back(n.c_str());
    auto add = Params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host.get();
    add.ppMetricNames = ptrs.data();
    add.numMetrics = ptrs.size();
    if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
      return CuptiError("adding the metrics to a configuration for chip " + chip_, r);
    auto size = Params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host.get();
    if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS)
      return CuptiError("configuration image size", r);
    std::vector<uint8_t> image(size.configImageSize);
    auto get = Params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = host.get();
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    if (CUptiResult r = cuptiProfilerHostGetConfigImage(&get); r != CUPTI_SUCCESS)
      return CuptiError("configuration image", r);
    auto passes = Params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = image.size();
    passes.pConfigImage = image.data();
    if (CUptiResult r = cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS)
      return CuptiError("pass count", r);
    plan.passes = passes.numOfPasses;
    plan.config_image_bytes = image.size();
    return plan;
  }

 private:
  // " (did you mean 'x'?)" from the chip's base metrics and, when the base
  // is known, its submetrics; "" when nothing is close or CUPTI fails.
  std::string Suggestion(const std::string& name) {
    if (base_names_.empty()) {
      Result<std::vector<BaseMetric>> base = BaseMetrics();
      if (!base.ok()) return "";
      for (const BaseMetric& b : *base) base_names_.push_back(b.name);
    }
    const std::string base = detail::MetricBaseName(name);
    std::vector<std::string> suffixes;
    if (std::binary_search(base_names_.begin(), base_names_.end(), base)) suffixes = SubMetrics(base);
    const std::string near = detail::SuggestMetric(name, base_names_, suffixes);
    return near.empty() || near == name ? "" : " (did you mean '" + near + "'?)";
  }

  std::vector<std::string> SubMetrics(const std::string& base) {
    HostObject host;
    if (host.Initialize(chip_) != CUPTI_SUCCESS) return {};
    auto props = Params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    props.pHostObject = host.get();
    props.pMetricName = base.c_str();
    if (cuptiProfilerHostGetMetricProperties(&props) != CUPTI_SUCCESS) return {};
    auto p = Params<CUpti_Profiler_Host_GetSubMetrics_Params>(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.metricType = props.metricType;
    p.pMetricName = base.c_str();
    if (cuptiProfilerHostGetSubMetrics(&p) != CUPTI_SUCCESS) return {};
    std::vector<std::string> out;
    for (size_t i = 0; i < p.numOfSubmetrics; ++i)
      if (p.ppSubMetrics[i] != nullptr) out.emplace_back(p.ppSubMetrics[i]);
    return out;
  }

  std::string chip_;
  std::vector<std::string> base_names_;  ///< sorted; filled on the first unknown name
};

}  // namespace

std::optional<std::string> MetricPlanningUnavailableReason() { return std::nullopt; }

namespace {

// CUPTI's chip list, split into the chips its host library initialises for
// and those it lists but refuses (CUDA 13 lists GV11B and answers
// CUPTI_ERROR_NOT_SUPPORTED): read once per process.
struct ChipLists {
  std::vector<std::string> usable;
  std::vector<std::pair<std::string, CUptiResult>> refused;
};

const Result<ChipLists>& ReadChipLists() {
  static const Result<ChipLists> lists = []() -> Result<ChipLists> {
    auto p = Params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
    if (CUptiResult r = cuptiProfilerHostGetSupportedChips(&p); r != CUPTI_SUCCESS)
      return CuptiError("supported chip list", r);
    ChipLists out;
    for (size_t i = 0; i < p.numChips; ++i) {
      if (p.ppChipNames[i] == nullptr) continue;
      const std::string chip = p.ppChipNames[i];
      HostObject host;
      if (CUptiResult r = host.Initialize(chip); r == CUPTI_SUCCESS) out.usable.push_back(chip);
      else out.refused.emplace_back(chip, r);
    }
    return out;
  }();
  return lists;
}

}  // namespace

Result<std::vector<std::string>> SupportedMetricChips() {
  const Result<ChipLists>& lists = ReadChipLists();
  if (!lists.ok()) return lists.error();
  return lists->usable;
}

Result<std::unique_ptr<MetricCatalog>> MetricCatalog::Open(const std::string& chip) {
  Result<std::vector<std::string>> chips = SupportedMetricChips();
  if (!chips.ok()) return chips.error();
  for (const auto& [refused, why] : ReadChipLists()->refused)
    if (refused == chip) {
      std::string list;
      for (const std::string& c : *chips) list += (list.empty() ? "" : ", ") + c;
      return InputError("chip '" + chip + "': CUPTI lists it, but its host library cannot plan metrics for it (" +
                        CuptiText(why) + "); the chips it can plan for: " + list);
    }
  if (std::find(chips->begin(), chips->end(), chip) == chips->end()) {
    std::string list;
    for (const std::string& c : *chips) list += (list.empty() ? "" : ", ") + c;
    // "gh100": the name in another case is the nearest chip, whatever the
    // edit distance says.
    auto folded = [](std::string_view text) {
      std::string out(text);
      for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return out;
    };
    for (const std::string& c : *chips)
      if (folded(c) == folded(chip))
        return InputError("unknown chip '" + chip + "' (did you mean '" + c +
                          "'? chip names are case-sensitive); CUPTI supports: " + list);
    return InputError("unknown chip '" + chip + "'" + DidYouMean(chip, *chips) +
                      "; CUPTI supports: " + list);
  }
  HostObject host;
  if (CUptiResult r = host.Initialize(chip); r != CUPTI_SUCCESS)
    return CuptiError("host initialization for chip " + chip, r);
  return std::unique_ptr<MetricCatalog>(std::make_unique<CuptiMetricCatalog>(chip));
}

}  // namespace gpugate
