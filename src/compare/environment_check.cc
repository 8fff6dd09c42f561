// Environment comparison between a baseline and the current run.
#include "compare/environment_check.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "model/baseline.h"
#include "model/environment.h"
#include "util/text/format.h"

namespace gpugate {

namespace {

bool HasBackend(const Results& r, const char* a, const char* b) {
  for (const auto& w : r.workloads)
    if (w.backend == a || w.backend == b) return true;
  return false;
}

bool UsesCpuTiming(const Results& r) {
  return r.run.source_format == "gbench" || r.run.source_format == "pytest" ||
         HasBackend(r, "cpu", "process");
}

bool UsesGpu(const Results& r) {
  return r.run.source_format == "nvbench" || HasBackend(r, "cuda", "cuda") ||
         r.run.env.gpu.name.has_value();
}

void CompareText(const char* field, const std::optional<std::string>& a,
                 const std::optional<std::string>& b, std::vector<EnvDifference>* out) {
  if (a && b && !a->empty() && !b->empty() && *a != *b) out->push_back({field, *a, *b});
}

void CompareClock(const char* field, const std::optional<double>& a, const std::optional<double>& b,
                  std::vector<EnvDifference>* out) {
  if (!a || !b || !(*a > 0) || !(*b > 0)) return;
  if (std::fabs(*a - *b) > kClockTolerance * std::max(*a, *b))
    out->push_back({field, FormatFrequency(*a), FormatFrequency(*b)});
}

void CompareCount(const char* field, const std::optional<int>& a, const std::optional<int>& b,
                  std::vector<EnvDifference>* out) {
  if (a && b && *a > 0 && *b > 0 && *a != *b) out->push_back({field, std::to_string(*a), std::to_string(*b)});
}

void CompareFlag(const char* field, const std::optional<bool>& a, const std::optional<bool>& b,
                 std::vector<EnvDifference>* out) {
  if (a && b && *a != *b) out->push_back({field, *a ? "on" : "off", *b ? "on" : "off"});
}

}  // namespace

bool IsCpuTimed(const Results& r) { return UsesCpuTiming(r); }

std::vector<EnvDifference> CompareEnvironments(const Results& baseline, const Results& current) {
  std::vector<EnvDifference> out;
  const Environment& a = baseline.run.env;
  const Environment& b = current.run.env;
  const bool one_class = SameRunnerClass(a, b);
  if (!one_class && a.runner_class && b.runner_class)
    out.push_back({"runner_class", *a.runner_class, *b.runner_class});
  if (!one_class && (UsesCpuTiming(baseline) || UsesCpuTiming(current)) && !a.cpu_model.empty() &&
      !b.cpu_model.empty() && a.cpu_model != b.cpu_model)
    out.push_back({"cpu_model", a.cpu_model, b.cpu_model});
  if (UsesCpuTiming(baseline) || UsesCpuTiming(current)) {
    // The same count of CPUs, as `baseline update` asks of one history.
    if (!one_class && a.cpu_cores > 0 && b.cpu_cores > 0 && a.cpu_cores != b.cpu_cores)
      out.push_back({"cpu_cores", std::to_string(a.cpu_cores), std::to_string(b.cpu_cores)});
    // Another build of Google Benchmark, another Python, another OS or
    // architecture: as `baseline update` decides (model/baseline.h).
    for (auto& [field, x, y] : RunFactDifferences(baseline.run, current.run)) out.push_back({field, x, y});
  }
  if (UsesGpu(baseline) || UsesGpu(current)) {
    // nvbench files and traces name every device they measured: each one
    // present on both sides must be the same device. With several on a side,
    // the environment's GPU fields join or pick devices, so the devices both
    // sides measured are compared one by one instead (a baseline of one GPU
    // against a run on two different GPUs compares device 0).
    auto devices = [](const Results& r) {
      int n = 0;
      for (const auto& [key, value] : r.run.source_context) n += key.rfind(kGpuDeviceContextPrefix, 0) == 0;
      return n;
    };
    const bool several = devices(baseline) > 1 || devices(current) > 1;
    std::vector<EnvDifference> by_device;
    bool shared_device = false;
    for (const auto& [key, fingerprint] : baseline.run.source_context) {
      if (!several || key.rfind(kGpuDeviceContextPrefix, 0) != 0) continue;
      auto other = current.run.source_context.find(key);
      if (other == current.run.source_context.end()) continue;
      shared_device = true;
      if (other->second != fingerprint && !fingerprint.empty() && !other->second.empty())
        by_device.push_back({"gpu[" + key.substr(std::string_view(kGpuDeviceContextPrefix).size()) + "]",
                             fingerprint, other->second});
    }
    if (!shared_device) {
      // (With one device on each side the gpu.* fields say it.)
      if (a.gpu.name.has_value() != b.gpu.name.has_value()) {
        out.push_back({"gpu.name", a.gpu.name.value_or("none"), b.gpu.name.value_or("none")});
      } else {
        CompareText("gpu.name", a.gpu.name, b.gpu.name, &out);
      }
    }
    CompareText("gpu.driver_version", a.gpu.driver_version, b.gpu.driver_version, &out);
    CompareText("gpu.cuda_version", a.gpu.cuda_version, b.gpu.cuda_version, &out);
    if (!shared_device) {
      CompareText("gpu.compute_capability", a.gpu.compute_capability, b.gpu.compute_capability, &out);
      CompareCount("gpu.sm_count", a.gpu.sm_count, b.gpu.sm_count, &out);
      CompareClock("gpu.sm_clock_hz", a.gpu.sm_clock_hz, b.gpu.sm_clock_hz, &out);
      CompareClock("gpu.mem_clock_hz", a.gpu.mem_clock_hz, b.gpu.mem_clock_hz, &out);
      CompareFlag("gpu.ecc_enabled", a.gpu.ecc_enabled, b.gpu.ecc_enabled, &out);
      CompareFlag("gpu.mig_enabled", a.gpu.mig_enabled, b.gpu.mig_enabled, &out);
    }
    out.insert(out.end(), by_device.begin(), by_device.end());
    // A power cap bounds the sustained clocks: like them, beyond 2% it differs.
    if (a.gpu.power_limit_w && b.gpu.power_limit_w && *a.gpu.power_limit_w > 0 && *b.gpu.power_limit_w > 0 &&
        std::fabs(*a.gpu.power_limit_w - *b.gpu.power_limit_w) >
            kClockTolerance * std::max(*a.gpu.power_limit_w, *b.gpu.power_limit_w))
      out.push_back({"gpu.power_limit_w", FormatValueInUnit(*a.gpu.power_limit_w, "W"), FormatValueInUnit(*b.gpu.power_limit_w, "W")});
  }
  return out;
}

namespace {

EnvValue Value(const std::string& v) { return v.empty() ? EnvValue{} : EnvValue{v}; }
EnvValue Value(const std::optional<std::string>& v) { return v ? Value(*v) : EnvValue{}; }
EnvValue Value(const std::optional<int>& v) { return v ? EnvValue{int64_t{*v}} : EnvValue{}; }
EnvValue Value(const std::optional<int64_t>& v) { return v ? EnvValue{*v} : EnvValue{}; }
EnvValue Value(const std::optional<double>& v) { return v ? EnvValue{*v} : EnvValue{}; }
EnvValue Value(const std::optional<bool>& v) { return v ? EnvValue{*v} : EnvValue{}; }

}  // namespace

std::vector<EnvField> DescribeEnvironments(const Results& baseline, const Results& current) {
  const Environment& a = baseline.run.env;
  const Environment& b = current.run.env;
  std::vector<EnvField> out;
  auto add = [&](const char* field, EnvValue x, EnvValue y) {
    if (!std::holds_alternative<std::monostate>(x) || !std::holds_alternative<std::monostate>(y))
      out.push_back({field, std::move(x), std::move(y)});
  };
  auto cores = [](int n) { return n > 0 ? EnvValue{int64_t{n}} : EnvValue{}; };
  add("runner_class", Value(a.runner_class), Value(b.runner_class));
  add("os", Value(a.os), Value(b.os));
  add("cpu_model", Value(a.cpu_model), Value(b.cpu_model));
  add("cpu_cores", cores(a.cpu_cores), cores(b.cpu_cores));
  add("cpu_governor", Value(a.cpu_governor), Value(b.cpu_governor));
  add("compiler", Value(a.compiler), Value(b.compiler));
  add("gpu.name", Value(a.gpu.name), Value(b.gpu.name));
  add("gpu.driver_version", Value(a.gpu.driver_version), Value(b.gpu.driver_version));
  add("gpu.cuda_version", Value(a.gpu.cuda_version), Value(b.gpu.cuda_version));
  add("gpu.compute_capability", Value(a.gpu.compute_capability), Value(b.gpu.compute_capability));
  add("gpu.sm_count", Value(a.gpu.sm_count), Value(b.gpu.sm_count));
  add("gpu.sm_clock_hz", Value(a.gpu.sm_clock_hz), Value(b.gpu.sm_clock_hz));
  add("gpu.mem_clock_hz", Value(a.gpu.mem_clock_hz), Value(b.gpu.mem_clock_hz));
  add("gpu.memory_bytes", Value(a.gpu.memory_bytes), Value(b.gpu.memory_bytes));
  add("gpu.l2_bytes", Value(a.gpu.l2_bytes), Value(b.gpu.l2_bytes));
  add("gpu.ecc_enabled", Value(a.gpu.ecc_enabled), Value(b.gpu.ecc_enabled));
  add("gpu.mig_enabled", Value(a.gpu.mig_enabled), Value(b.gpu.mig_enabled));
  add("gpu.persistence_mode", Value(a.gpu.persistence_mode), Value(b.gpu.persistence_mode));
  add("gpu.power_limit_w", Value(a.gpu.power_limit_w), Value(b.gpu.power_limit_w));
  return out;
}

}  // namespace gpugate
