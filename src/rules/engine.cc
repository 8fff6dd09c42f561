// Rule engine: builds the names of rules/engine.h's schema for each workload,
// kernel and trace of the current run, evaluates the policy's expression
// rules there, and turns what fires into suggestions with their evidence.
#include "rules/engine.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/static_code.h"
#include "rules/suggestions.h"
#include "static/occupancy.h"
#include "util/strings.h"

namespace gpugate {

namespace {

using rules::Dim;
using rules::NameInfo;
using rules::Type;
using rules::Value;

constexpr Dim kNumberDim{};
constexpr Dim kTimeDim{1, 0};
constexpr Dim kBytesDim{0, 1};
constexpr Dim kRateDim{-1, 1};

NameInfo Num(std::string doc, Dim dim = kNumberDim, bool aggregatable = false) {
  NameInfo n;
  n.type = Type::kNumber;
  n.dim = dim;
  n.doc = std::move(doc);
  n.aggregatable = aggregatable;
  return n;
}
NameInfo Str(std::string doc) {
  NameInfo n;
  n.type = Type::kString;
  n.doc = std::move(doc);
  return n;
}
NameInfo Bool(std::string doc) {
  NameInfo n;
  n.type = Type::kBool;
  n.doc = std::move(doc);
  return n;
}

Value NumberValue(double x, Dim dim = kNumberDim) {
  Value v;
  if (!std::isfinite(x)) return v;
  v.kind = Value::Kind::kNumber;
  v.number = x;
  v.dim = dim;
  return v;
}
Value BoolValue(bool b) {
  Value v;
  v.kind = Value::Kind::kBool;
  v.boolean = b;
  return v;
}
Value StringValue(std::string s) {
  Value v;
  v.kind = Value::Kind::kString;
  v.text = std::move(s);
  return v;
}

/// One evaluation scope: the names of a workload (and a kernel or trace) with
/// their values; names absent here are unknown.
class MapScope : public rules::Scope {
 public:
  void Set(const std::string& name, Value v) { values_[name] = std::move(v); }
  void SetTotal(const std::string& name, double total) { totals_[name] = total; }
  void SetCount(const std::string& name, double n) { counts_[name] = n; }

  Value Lookup(std::string_view name) const override {
    auto it = values_.find(name);
    return it == values_.end() ? Value{} : it->second;
  }
  Value Share(std::string_view name) const override {
    auto it = totals_.find(name);
    Value own = Lookup(name);
    if (it == totals_.end() || own.kind != Value::Kind::kNumber || own.at_least || it->second <= 0)
      return {};
    return NumberValue(own.number / it->second);
  }
  Value Count(std::string_view name) const override {
    auto it = counts_.find(name);
    return it == counts_.end() ? Value{} : NumberValue(it->second);
  }

 private:
  std::map<std::string, Value, std::less<>> values_;
  std::map<std::string, double, std::less<>> totals_;
  std::map<std::string, double, std::less<>> counts_;
};

std::optional<double> Counter(const WorkloadResult& w, const char* name) {
  auto it = w.counters.find(name);
  if (it == w.counters.end()) return std::nullopt;
  return it->second;
}

std::optional<double> KernelMetric(const KernelResult& k, const char* name) {
  auto it = k.metrics.find(name);
  if (it == k.metrics.end()) return std::nullopt;
  return it->second;
}

/// The verdicts by (workload, metric), built once per evaluation.
using VerdictIndex = std::map<std::pair<std::string, std::string>, const MetricVerdict*>;

VerdictIndex IndexVerdicts(const Verdicts* v) {
  VerdictIndex index;
  if (v != nullptr)
    for (const MetricVerdict& m : v->metrics) index.emplace(std::make_pair(m.workload, m.metric), &m);
  return index;
}

const MetricVerdict* FindVerdict(const VerdictIndex& index, const std::string& workload,
                                 const std::string& metric) {
  auto it = index.find(std::make_pair(workload, metric));
  return it == index.end() ? nullptr : it->second;
}

void SetVerdictNames(MapScope& s, const std::string& prefix, const MetricVerdict* m) {
  if (m == nullptr) return;
  if (m->ratio) s.Set(prefix + ".change", NumberValue(*m->ratio - 1.0));
  s.Set(prefix + ".regressed", BoolValue(m->verdict == Verdict::kRegression));
  if (m->mde) s.Set(prefix + ".mde", NumberValue(*m->mde));
}

/// The GPU a workload ran on: its own when it names one (a device of a
/// trace of several), else the run's.
const GpuInfo& GpuOf(const Results& r, const WorkloadResult* w) {
  return w && w->gpu ? *w->gpu : r.run.env.gpu;
}

void SetDeviceNames(MapScope& s, const Results& r, const WorkloadResult* w = nullptr) {
  const GpuInfo& g = GpuOf(r, w);
  if (g.sm_count) s.Set("device.sms", NumberValue(*g.sm_count));
  if (g.name) s.Set("device.name", StringValue(*g.name));
  if (g.compute_capability) {
    char* end = nullptr;
    const double cc = std::strtod(g.compute_capability->c_str(), &end);
    if (end != g.compute_capability->c_str()) s.Set("device.compute_capability", NumberValue(cc));
  }
  if (g.memory_bytes) s.Set("device.memory", NumberValue(static_cast<double>(*g.memory_bytes), kBytesDim));
  if (g.l2_bytes) s.Set("device.l2", NumberValue(static_cast<double>(*g.l2_bytes), kBytesDim));
  if (r.run.env.cpu_cores > 0) s.Set("device.cpu_cores", NumberValue(r.run.env.cpu_cores));
}

void SetWorkloadNames(MapScope& s, const WorkloadResult& w, const VerdictIndex& v) {
  s.Set("workload.name", StringValue(w.name));
  s.Set("workload.kind", StringValue(w.kind));
  s.Set("workload.backend", StringValue(w.backend));
  if (w.summary.n > 0) {
    if (w.metric == kTimeMetric) s.Set("workload.time", NumberValue(w.summary.median, kTimeDim));
    s.Set("workload.cv", NumberValue(w.summary.cv));
    s.Set("workload.samples", NumberValue(static_cast<double>(w.summary.n)));
  }
  const NoiseProfile n = MeasureNoise(w);
  s.Set("workload.rounds", NumberValue(n.rounds));
  if (n.within_measured) s.Set("workload.noise_within", NumberValue(n.within));
  if (n.rounds > 1) s.Set("workload.noise_between", NumberValue(n.between));
  if (w.peak_memory_bytes)
    s.Set("workload.peak_memory", NumberValue(static_cast<double>(*w.peak_memory_bytes), kBytesDim));
  s.Set("workload.throttled", BoolValue(w.throttled));
  if (w.work.bytes && w.work.flops && *w.work.bytes > 0)
    s.Set("workload.arithmetic_intensity", NumberValue(*w.work.flops / static_cast<double>(*w.work.bytes)));
  if (w.bytes_per_second) s.Set("workload.bytes_per_second", NumberValue(*w.bytes_per_second, kRateDim));
  if (w.regime) {
    s.Set("workload.regime", StringValue(w.regime->regime));
    s.Set("workload.roof_fraction", NumberValue(w.regime->roof_fraction));
  }
  s.SetCount("kernel", static_cast<double>(w.kernels.size()));
  const MetricVerdict* time = FindVerdict(v, w.name, kTimeMetric);
  SetVerdictNames(s, "workload", time);
  s.Set("workload.interleaved", BoolValue(time != nullptr && time->interleaved));
}

// Theoretical occupancy of the kernel's launch on `gpu` (static/occupancy.h,
// cuda_occupancy.h): needs the compute capability, the registers per thread
// and the block size of its main launch configuration; shared memory counts
// as static. Unknown (nullopt) when one is missing or implausible.
std::optional<Occupancy> LaunchOccupancy(const GpuInfo& gpu, const KernelResult& k, std::optional<double> block) {
  const auto regs = KernelMetric(k, "registers_per_thread");
  const auto& cc = gpu.compute_capability;
  // Values from traces are untrusted: only plausible ones reach the integer
  // casts (a kernel has at most 255 registers per thread and 1024 threads per block).
  if (!regs || !(*regs > 0 && *regs <= 1024) || !block || !(*block > 0 && *block <= 4096) || !cc) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(cc->c_str(), &end);
  if (end == cc->c_str() || !(v > 0 && v < 100)) return std::nullopt;
  const int sm = static_cast<int>(std::lround(v * 10));
  KernelResources res;
  res.registers = static_cast<int>(*regs);
  if (auto sh = KernelMetric(k, "shared_mem_bytes"); sh && *sh > 0) {
    if (!(*sh <= 1e9)) return std::nullopt;
    res.static_shared = static_cast<int64_t>(*sh);
  }
  Result<Occupancy> occ = TheoreticalOccupancy(sm, res, static_cast<int>(*block));
  if (!occ.ok()) return std::nullopt;  // an arch or launch the calculator does not know: unknown
  return *occ;
}

// The launch occupancy of the current kernel, and its waves: the grid over
// (SMs x resident blocks per SM); the tail fill is how full the last wave is
// (1 when the grid fills every wave).
void SetOccupancyNames(MapScope& s, const GpuInfo& gpu, const KernelResult& k,
                       std::optional<double> grid, std::optional<double> block) {
  const std::optional<Occupancy> occ = LaunchOccupancy(gpu, k, block);
  if (!occ) return;
  s.Set("kernel.theoretical_occupancy", NumberValue(occ->fraction));
  s.Set("kernel.occupancy_limiter", StringValue(occ->limiter));
  s.Set("kernel.blocks_per_sm", NumberValue(occ->blocks_per_sm));
  const auto& sms = gpu.sm_count;
  if (grid && *grid > 0 && sms && *sms > 0 && occ->blocks_per_sm > 0) {
    const double waves = *grid / (static_cast<double>(*sms) * occ->blocks_per_sm);
    const double frac = waves - std::floor(waves);
    s.Set("kernel.waves", NumberValue(waves));
    s.Set("kernel.tail_fill", NumberValue(frac == 0 ? 1.0 : frac));
  }
}

// A kernel's resources (from a trace, CUPTI or the static lane), under
// `prefix` ("kernel." for the current run, "kernel.base_" for the baseline's
// kernel of the same name).
void SetResourceNames(MapScope& s, const std::string& prefix, const KernelResult& k) {
  if (auto x = KernelMetric(k, "registers_per_thread"); x && *x > 0) s.Set(prefix + "registers", NumberValue(*x));
  if (auto x = KernelMetric(k, "shared_mem_bytes")) s.Set(prefix + "shared_memory", NumberValue(*x, kBytesDim));
  if (auto x = KernelMetric(k, "stack_frame_bytes")) s.Set(prefix + "stack_frame", NumberValue(*x, kBytesDim));
  const auto stores = KernelMetric(k, "spill_store_bytes");
  const auto loads = KernelMetric(k, "spill_load_bytes");
  if (stores) s.Set(prefix + "spill_stores", NumberValue(*stores, kBytesDim));
  if (loads) s.Set(prefix + "spill_loads", NumberValue(*loads, kBytesDim));
  if (stores && loads) s.Set(prefix + "spills", NumberValue(*stores + *loads, kBytesDim));
  if (auto x = KernelMetric(k, "sass_instructions")) s.Set(prefix + "sass_instructions", NumberValue(*x));
  // The static lane's occupancy: at the best block size within the launch
  // bound (a launch's own, from the trace, is SetOccupancyNames').
  if (auto x = KernelMetric(k, "theoretical_occupancy")) s.Set(prefix + "theoretical_occupancy", NumberValue(*x));
  if (auto it = k.attributes.find("occupancy_limiter"); it != k.attributes.end())
    s.Set(prefix + "occupancy_limiter", StringValue(it->second));
}

/// The baseline's workload of the same name: its run (for its GPU) and its
/// kernels by name.
struct BaseKernels {
  const Results* run = nullptr;
  const WorkloadResult* workload = nullptr;
  std::unordered_map<std::string, const KernelResult*> by_name;
};

/// The baseline's kernel under "kernel.base_": its resources, and the
/// occupancy of its own main launch configuration, the same way as the
/// current kernel's (the static lane's stored occupancy when it has no
/// launch configuration).
// The baseline kernel's occupancy is computed on the current run's GPU: what
// the change to the kernel (its registers, shared memory, block size) did to
// it. On the baseline's own GPU a kernel moved from a T4 (32 warps per SM) to
// an A100 (64) would read "fell from 100% to 50%" with nothing changed.
void SetBaseKernelNames(MapScope& s, const GpuInfo& gpu, const KernelResult& bk) {
  SetResourceNames(s, "kernel.base_", bk);
  const std::optional<Occupancy> occ = LaunchOccupancy(gpu, bk, KernelMetric(bk, "block_threads"));
  if (!occ) return;
  s.Set("kernel.base_theoretical_occupancy", NumberValue(occ->fraction));
  s.Set("kernel.base_occupancy_limiter", StringValue(occ->limiter));
}

/// Launches of `k` the host made one by one: all of them less those a CUDA
/// graph launch made (results that record none: all of them).
double HostLaunches(const KernelResult& k) {
  const double graph = std::clamp(KernelMetric(k, "graph_launches").value_or(0), 0.0, static_cast<double>(k.count));
  return static_cast<double>(k.count) - graph;
}

/// The workload's totals that share() divides by.
struct KernelTotals {
  double duration = 0, launches = 0, host_launches = 0;
};

void SetKernelNames(MapScope& s, const Results& r, const WorkloadResult& w, const KernelResult& k,
                    const KernelTotals& totals, const VerdictIndex& v, const BaseKernels& base) {
  s.Set("kernel.name", StringValue(k.name));
  s.Set("kernel.communication", BoolValue(IsCommunicationKernel(k.name)));
  // A static kernel is not launched: it has no time and no launches.
  if (!IsStaticResult(w)) {
    s.Set("kernel.duration", NumberValue(k.total_s, kTimeDim));
    s.Set("kernel.launches", NumberValue(static_cast<double>(k.count)));
    if (auto x = KernelMetric(k, "graph_launches")) s.Set("kernel.graph_launches", NumberValue(*x));
    s.Set("kernel.host_launches", NumberValue(HostLaunches(k)));
    if (k.count > 0) s.Set("kernel.mean_duration", NumberValue(k.total_s / k.count, kTimeDim));
    s.SetTotal("kernel.duration", totals.duration);
    s.SetTotal("kernel.launches", totals.launches);
    s.SetTotal("kernel.host_launches", totals.host_launches);
  }
  SetResourceNames(s, "kernel.", k);
  if (auto found = base.by_name.find(k.name); found != base.by_name.end()) {
    const KernelResult* bk = found->second;
    SetBaseKernelNames(s, GpuOf(r, &w), *bk);
    auto now = k.attributes.find(kSassHashAttribute);
    auto then = bk->attributes.find(kSassHashAttribute);
    if (now != k.attributes.end() && then != bk->attributes.end())
      s.Set("kernel.code_changed", BoolValue(now->second != then->second));
  }
  if (auto x = KernelMetric(k, "achieved_occupancy")) s.Set("kernel.achieved_occupancy", NumberValue(*x));
  const auto grid = KernelMetric(k, "grid_blocks");
  const auto block = KernelMetric(k, "block_threads");
  if (grid && *grid > 0) s.Set("kernel.grid_blocks", NumberValue(*grid));
  // The share of the kernel's time in that launch configuration (its main
  // one, from a trace or CUPTI); 1 when the producer gives one configuration.
  const auto config_share = KernelMetric(k, "launch_config_share");
  s.Set("kernel.config_share",
        NumberValue(config_share && *config_share >= 0 && *config_share <= 1 ? *config_share : 1.0));
  if (block && *block > 0) {
    s.Set("kernel.block_threads", NumberValue(*block));
    // Lanes of the block's warps that hold a thread: 100% for multiples of 32.
    s.Set("kernel.warp_fill", NumberValue(*block / (std::ceil(*block / 32.0) * 32.0)));
  }
  SetOccupancyNames(s, GpuOf(r, &w), k, grid, block);
  if (k.regime) {
    s.Set("kernel.regime", StringValue(k.regime->regime));
    s.Set("kernel.roof_fraction", NumberValue(k.regime->roof_fraction));
  }
  SetVerdictNames(s, "kernel", FindVerdict(v, w.name, "kernel:" + k.name));
}

void SetTraceNames(MapScope& s, const WorkloadResult& w) {
  struct Row {
    const char* name;
    const char* counter;
    Dim dim;
    /// A counter of the items the sum left out for want of a value (copies
    /// without a size): when it is above 0 the sum is a lower bound.
    const char* left_out = nullptr;
    /// The counter of all the items the sum is over (copies).
    const char* items = nullptr;
  };
  static const Row kRows[] = {
      {"trace.gpu_idle", "idle_fraction", kNumberDim},
      {"trace.compute", "compute_fraction", kNumberDim},
      {"trace.communication", "communication_fraction", kNumberDim},
      {"trace.host_wait", "idle_host_wait_fraction", kNumberDim},
      {"trace.window_idle", "window_idle_fraction", kNumberDim},
      {"trace.window_host_wait", "window_host_wait_fraction", kNumberDim},
      {"trace.kernels", "kernel_count", kNumberDim},
      {"trace.memcpys", "memcpy_count", kNumberDim},
      {"trace.memcpy_bytes", "memcpy_bytes", kBytesDim, "memcpy_unsized_count", "memcpy_count"},
      {"trace.pageable_memcpys", "pageable_memcpy_count", kNumberDim},
      {"trace.pageable_memcpy_bytes", "pageable_memcpy_bytes", kBytesDim, "pageable_memcpy_unsized_count",
       "pageable_memcpy_count"},
      {"trace.unsized_memcpys", "memcpy_unsized_count", kNumberDim},
      {"trace.unsized_pageable_memcpys", "pageable_memcpy_unsized_count", kNumberDim},
      {"trace.launches", "launches_matched", kNumberDim},
      {"trace.shorter_than_launch", "shorter_than_launch", kNumberDim},
      {"trace.span", "span_s", kTimeDim},
      {"trace.kernel_time", "kernel_time_s", kTimeDim},
      {"trace.profiler_steps", "profiler_steps", kNumberDim},
      {"trace.repeated_h2d_copies", "repeated_h2d_count", kNumberDim},
      {"trace.repeated_h2d_pinned_copies", "repeated_h2d_pinned_count", kNumberDim},
      {"trace.repeated_h2d_bytes", "repeated_h2d_bytes", kBytesDim},
      {"trace.repeated_h2d_time", "repeated_h2d_time_s", kTimeDim},
      {"trace.repeated_h2d_share", "repeated_h2d_busy_fraction", kNumberDim},
      {"trace.repeated_h2d_size", "repeated_h2d_size", kBytesDim},
      {"trace.repeated_h2d_size_copies", "repeated_h2d_size_count", kNumberDim},
      {"trace.memcpy_share", "memcpy_busy_fraction", kNumberDim},
      {"trace.communication_share", "communication_busy_fraction", kNumberDim},
      {"trace.identical_launches", "identical_launch_count", kNumberDim},
      {"trace.identical_launch_mean", "identical_launch_mean_s", kTimeDim},
      {"trace.identical_launch_time", "identical_launch_time_s", kTimeDim},
      {"trace.identical_launch_share", "identical_launch_busy_fraction", kNumberDim},
  };
  for (const Row& row : kRows)
    if (auto x = Counter(w, row.counter)) {
      Value v = NumberValue(*x, row.dim);
      if (row.left_out) {
        const std::optional<double> left_out = Counter(w, row.left_out);
        if (!left_out) {
          // A results file from before the count of items without a value
          // was written: its sum may have left some out. A bound when it
          // is above 0; a sum of 0 over items that exist says nothing.
          if (*x == 0 && Counter(w, row.items).value_or(0) > 0) continue;
          v.at_least = v.known() && *x > 0;
        } else {
          v.at_least = v.known() && *left_out > 0;
        }
      }
      s.Set(row.name, v);
    }
}

std::string Evidence(const ExprRule& rule, const rules::Scope& scope) {
  // share(NAME) shows the share the condition tests, not NAME's raw value.
  std::set<std::string> names = rules::TermsUsed(rule.when);
  std::string out;
  for (const std::string& n : names) {
    const Value v = rules::EvaluateTerm(n, scope);
    if (v.kind == Value::Kind::kUnknown) continue;
    // A false flag is a guard (`not kernel.communication`), not evidence.
    if (v.kind == Value::Kind::kBool && !v.boolean) continue;
    // A lower bound reads "name ≥ 976 KiB", not "name = ≥ 976 KiB".
    out += (out.empty() ? "" : ", ") + n + (v.at_least ? " " : " = ") + rules::FormatValue(v);
  }
  return out;
}

void Fire(const ExprRule& rule, const rules::Scope& scope, const std::string& workload,
          const std::string& kernel, std::vector<Suggestion>* out) {
  Value when = rules::Evaluate(rule.when, scope);
  if (when.kind != Value::Kind::kBool || !when.boolean) return;
  Suggestion s;
  s.workload = workload;
  s.kernel = kernel;
  s.rule = rule.id;
  s.priority = static_cast<int>(rule.priority);
  s.severity = rule.emit == RuleEmit::kFail      ? "fail"
               : rule.emit == RuleEmit::kWarning ? "warning"
                                                 : "suggestion";
  s.message = rules::Render(rule.message, scope);
  s.evidence = Evidence(rule, scope);
  if (rule.hint) s.hint = rules::Render(*rule.hint, scope);
  if (rule.speedup) {
    Value x = rules::Evaluate(*rule.speedup, scope);
    if (x.kind == Value::Kind::kNumber && !x.at_least && std::isfinite(x.number))
      s.estimated_speedup = std::clamp(x.number, 0.0, 1.0);
  }
  s.source = rule.source;
  out->push_back(std::move(s));
}

}  // namespace

const char* ToString(RuleEmit e) {
  switch (e) {
    case RuleEmit::kSuggestion: return "suggestion";
    case RuleEmit::kWarning: return "warning";
    case RuleEmit::kFail: return "fail";
    case RuleEmit::kOff: return "off";
  }
  return "suggestion";
}

const char* ToString(RulePriority p) {
  switch (p) {
    case RulePriority::kCritical: return "critical";
    case RulePriority::kHigh: return "high";
    case RulePriority::kMedium: return "medium";
    case RulePriority::kLow: return "low";
  }
  return "medium";
}

const char* ToString(RuleScope s) {
  switch (s) {
    case RuleScope::kWorkload: return "workload";
    case RuleScope::kKernel: return "kernel";
    case RuleScope::kTrace: return "trace";
  }
  return "workload";
}

const rules::Schema& RuleSchema() {
  static const rules::Schema kSchema = [] {
    rules::Schema s;
    s["device.sms"] = Num("streaming multiprocessors of the GPU the workload ran on");
    s["device.name"] = Str("the GPU's name");
    s["device.compute_capability"] = Num("compute capability as a number (8.6)");
    s["device.memory"] = Num("device memory", kBytesDim);
    s["device.l2"] = Num("L2 cache size", kBytesDim);
    s["device.cpu_cores"] = Num("logical CPUs of the machine that ran the suite");

    s["workload.name"] = Str("the workload's name");
    s["workload.kind"] = Str("builtin, command, gbench, nvbench, synthetic, trace, ...");
    s["workload.backend"] = Str("cpu, cuda, process, synthetic, ingest");
    s["workload.time"] = Num("median time per invocation (time workloads)", kTimeDim);
    s["workload.cv"] = Num("coefficient of variation of the samples (SD / mean)");
    s["workload.samples"] = Num("samples measured");
    s["workload.rounds"] = Num("rounds measured");
    s["workload.noise_within"] = Num("spread of samples within a round (log-scale SD, about a CV; unknown with one sample per round)");
    s["workload.noise_between"] = Num("spread of round medians (log-scale SD); needs 2 rounds");
    s["workload.peak_memory"] = Num("peak memory (max RSS of a process, or device peak)", kBytesDim);
    s["workload.throttled"] = Bool("the GPU throttled while the workload ran");
    s["workload.arithmetic_intensity"] = Num("FLOPs per byte, from the workload's work counts");
    s["workload.bytes_per_second"] = Num("achieved bandwidth, from the work counts", kRateDim);
    s["workload.regime"] = Str("overhead-bound, memory-bound or compute-bound (compare --device-profile)");
    s["workload.roof_fraction"] = Num("achieved / attainable on the device's roofline (compare --device-profile)");
    s["workload.change"] = Num("the time verdict's ratio - 1 (+0.2 = 20% slower)");
    s["workload.regressed"] = Bool("the time verdict is a regression");
    s["workload.mde"] = Num("the smallest slowdown the time comparison could have seen (90% power)");
    s["workload.interleaved"] = Bool("the workload was compared by interleaved A/B (gpugate ab); false otherwise");

    s["kernel.name"] = Str("the kernel's (demangled) name");
    s["kernel.communication"] = Bool("a communication (NCCL) kernel: its name holds 'nccl'");
    s["kernel.duration"] = Num("the kernel's total time in the workload (all launches)", kTimeDim, true);
    s["kernel.mean_duration"] = Num("time per launch", kTimeDim);
    s["kernel.launches"] = Num("launches in the workload", kNumberDim, true);
    s["kernel.graph_launches"] = Num("of those, launches a CUDA graph launch made (traces; unknown when the results record none)");
    s["kernel.host_launches"] = Num("launches the host made one by one: kernel.launches less kernel.graph_launches (all of them when the results record no graph launches)", kNumberDim, true);
    s["kernel.registers"] = Num("registers per thread");
    s["kernel.shared_memory"] = Num("shared memory per block (static + dynamic from a trace; static in the static lane)", kBytesDim);
    s["kernel.stack_frame"] = Num("stack frame per thread: local memory (static lane)", kBytesDim);
    s["kernel.spill_stores"] = Num("bytes of register spill stores per thread (static lane with ptxas_log)", kBytesDim);
    s["kernel.spill_loads"] = Num("bytes of register spill loads per thread (static lane with ptxas_log)", kBytesDim);
    s["kernel.spills"] = Num("spill stores + spill loads (static lane with ptxas_log)", kBytesDim);
    s["kernel.sass_instructions"] = Num("SASS instructions in the kernel's code (static lane)");
    s["kernel.code_changed"] = Bool("the kernel's SASS hash differs from the baseline's kernel of the same name (static lane)");
    s["kernel.grid_blocks"] = Num("blocks in the grid of the kernel's main launch configuration (the one that holds most of its time)");
    s["kernel.block_threads"] = Num("threads per block of that configuration");
    s["kernel.config_share"] = Num("share of the kernel's time in that configuration (1 when it has one)");
    s["kernel.warp_fill"] = Num("share of the block's warp lanes that hold a thread (1 for multiples of 32)");
    s["kernel.achieved_occupancy"] = Num("achieved occupancy reported by the trace");
    s["kernel.theoretical_occupancy"] = Num("theoretical occupancy (cuda_occupancy.h) of the launch on this GPU; in the static lane at the best block size for the kernel's arch");
    s["kernel.occupancy_limiter"] = Str("what limits it: registers, shared_memory, blocks, barriers or warps");
    s["kernel.blocks_per_sm"] = Num("resident blocks per SM at the launch's block size");
    s["kernel.waves"] = Num("grid blocks / (SMs x resident blocks per SM)");
    s["kernel.tail_fill"] = Num("how full the last wave is (1 when the grid fills every wave)");
    s["kernel.regime"] = Str("overhead-bound, memory-bound or compute-bound (compare --device-profile)");
    s["kernel.roof_fraction"] = Num("achieved / attainable on the roofline (compare --device-profile)");
    s["kernel.change"] = Num("the kernel verdict's ratio - 1");
    s["kernel.regressed"] = Bool("the kernel verdict is a regression");
    s["kernel.mde"] = Num("the smallest slowdown the kernel comparison could have seen");

    s["trace.gpu_idle"] = Num("share of the traced span with no GPU activity");
    s["trace.compute"] = Num("share of the span with a compute kernel running");
    s["trace.communication"] = Num("share of the span with only NCCL kernels running");
    s["trace.host_wait"] = Num("share of the idle time spent waiting for the host to launch work");
    s["trace.window_idle"] = Num("share of the GPU window (first to last GPU activity) with no GPU activity");
    s["trace.window_host_wait"] = Num("share of the GPU-window idle time spent waiting for the host to launch work");
    s["trace.kernels"] = Num("kernels launched on the device");
    s["trace.memcpys"] = Num("memory copies on the device");
    s["trace.memcpy_bytes"] = Num("bytes copied (a lower bound when some copies state no size)", kBytesDim);
    s["trace.pageable_memcpys"] = Num("copies from or to pageable host memory");
    s["trace.pageable_memcpy_bytes"] = Num("bytes in pageable copies (a lower bound when some state no size)", kBytesDim);
    s["trace.unsized_memcpys"] =
        Num("copies that state no size (trace.memcpy_bytes is then a lower bound, or unknown)");
    s["trace.unsized_pageable_memcpys"] = Num("pageable copies that state no size");
    s["trace.launches"] = Num("kernels whose launch call was found");
    s["trace.shorter_than_launch"] = Num("kernels that ran shorter than their launch call");
    s["trace.span"] = Num("the traced span", kTimeDim);
    s["trace.kernel_time"] = Num("sum of kernel durations", kTimeDim);
    s["trace.profiler_steps"] = Num("profiler steps in the trace: distinct ProfilerStep#N numbers (0 without a schedule)");
    s["trace.repeated_h2d_copies"] =
        Num("host-to-device copies whose byte size recurs through the trace (at least once per profiler step)");
    s["trace.repeated_h2d_pinned_copies"] = Num("of those copies, the ones from pinned host memory");
    s["trace.repeated_h2d_bytes"] = Num("bytes in those copies", kBytesDim);
    s["trace.repeated_h2d_time"] = Num("summed duration of those copies", kTimeDim);
    s["trace.repeated_h2d_share"] = Num("their summed duration over the device's GPU busy time");
    s["trace.repeated_h2d_size"] = Num("the recurring copy size with the most copies", kBytesDim);
    s["trace.repeated_h2d_size_copies"] = Num("copies of that size");
    s["trace.memcpy_share"] = Num("share of the GPU's busy time with only copies running (no kernel)");
    s["trace.communication_share"] =
        Num("share of the GPU's busy time with only NCCL kernels running (no compute kernel)");
    s["trace.identical_launches"] =
        Num("launches of the device's most launched kernel configuration (same name, grid and block)");
    s["trace.identical_launch_mean"] = Num("mean duration of those launches", kTimeDim);
    s["trace.identical_launch_time"] = Num("their summed duration", kTimeDim);
    s["trace.identical_launch_share"] = Num("their summed duration over the device's GPU busy time");

    // The baseline's kernel of the same name (compare only).
    for (const char* n : {"registers", "shared_memory", "stack_frame", "spill_stores", "spill_loads", "spills",
                          "sass_instructions", "theoretical_occupancy"}) {
      NameInfo base = s.at(std::string("kernel.") + n);
      base.doc = "kernel." + std::string(n) + " of the baseline's kernel of the same name";
      base.aggregatable = false;
      s[std::string("kernel.base_") + n] = base;
    }
    s["kernel.base_occupancy_limiter"] = Str("kernel.occupancy_limiter of the baseline's kernel of the same name");

    NameInfo kernel;
    kernel.type = Type::kNumber;
    kernel.doc = "the workload's kernels, for count(kernel)";
    kernel.countable = true;
    s["kernel"] = kernel;
    return s;
  }();
  return kSchema;
}

const rules::Schema& RuleSchemaFor(RuleScope scope) {
  auto without_kernels = [](const char* what) {
    rules::Schema s = RuleSchema();
    for (auto& [name, info] : s)
      if (StartsWith(name, "kernel."))
        info.unavailable = std::string("has no value in a ") + what +
                           " rule: its 'when' and 'speedup' name no kernel.* name, so it is not evaluated "
                           "per kernel (name one there, or remove this)";
    return s;
  };
  static const rules::Schema kWorkload = without_kernels("workload");
  static const rules::Schema kTrace = without_kernels("trace");
  switch (scope) {
    case RuleScope::kWorkload: return kWorkload;
    case RuleScope::kTrace: return kTrace;
    case RuleScope::kKernel: break;
  }
  return RuleSchema();
}

RuleScope InferScope(const rules::Expr& when, const std::optional<rules::Expr>& speedup) {
  std::set<std::string> names = rules::NamesUsed(when);
  if (speedup) {
    std::set<std::string> more = rules::NamesUsed(*speedup);
    names.insert(more.begin(), more.end());
  }
  bool trace = false;
  for (const std::string& n : names) {
    if (StartsWith(n, "kernel.")) return RuleScope::kKernel;
    trace = trace || StartsWith(n, "trace.");
  }
  return trace ? RuleScope::kTrace : RuleScope::kWorkload;
}

std::vector<Suggestion> EvaluateRules(const std::vector<ExprRule>& rules, const Results& current,
                                      const Verdicts* verdicts, const Results* baseline) {
  std::vector<Suggestion> out;
  const VerdictIndex index = IndexVerdicts(verdicts);
  const bool kernel_rules = std::any_of(rules.begin(), rules.end(), [](const ExprRule& r) {
    return r.emit != RuleEmit::kOff && r.scope == RuleScope::kKernel;
  });
  std::unordered_map<std::string, const WorkloadResult*> base_workloads;
  if (baseline != nullptr && kernel_rules)
    for (const WorkloadResult& b : baseline->workloads)
      if (b.status == WorkloadStatus::kOk) base_workloads.emplace(b.name, &b);
  for (const WorkloadResult& w : current.workloads) {
    if (w.status != WorkloadStatus::kOk) continue;
    MapScope base;
    SetDeviceNames(base, current, &w);
    SetWorkloadNames(base, w, index);
    const bool is_trace = w.kind == "trace";
    if (is_trace) SetTraceNames(base, w);
    // What each rule emits, kept per rule so the output order is the rules'
    // order whatever the loop order below.
    std::vector<std::vector<Suggestion>> fired(rules.size());
    for (size_t r = 0; r < rules.size(); ++r) {
      const ExprRule& rule = rules[r];
      if (rule.emit == RuleEmit::kOff) continue;
      if (rule.scope == RuleScope::kWorkload || (rule.scope == RuleScope::kTrace && is_trace))
        Fire(rule, base, w.name, "", &fired[r]);
    }
    // Kernel rules: one scope per kernel, built once for all kernel rules and
    // dropped before the next kernel's, so memory does not grow with the
    // number of kernels (a trace can name tens of thousands).
    if (kernel_rules) {
      BaseKernels base_kernels;
      if (auto b = base_workloads.find(w.name); b != base_workloads.end()) {
        base_kernels.run = baseline;
        base_kernels.workload = b->second;
        for (const KernelResult& bk : b->second->kernels) base_kernels.by_name.emplace(bk.name, &bk);
      }
      KernelTotals totals;
      for (const KernelResult& k : w.kernels) {
        totals.duration += k.total_s;
        totals.launches += static_cast<double>(k.count);
        totals.host_launches += HostLaunches(k);
      }
      for (const KernelResult& k : w.kernels) {
        MapScope scope = base;
        SetKernelNames(scope, current, w, k, totals, index, base_kernels);
        for (size_t r = 0; r < rules.size(); ++r)
          if (rules[r].emit != RuleEmit::kOff && rules[r].scope == RuleScope::kKernel)
            Fire(rules[r], scope, w.name, k.name, &fired[r]);
      }
    }
    for (std::vector<Suggestion>& f : fired)
      for (Suggestion& sg : f) out.push_back(std::move(sg));
  }
  std::stable_sort(out.begin(), out.end(), SuggestionBefore);
  return out;
}

}  // namespace gpugate
