// Roofline regimes (see regime.h).
#include "rules/regime.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "stats/summary.h"

namespace gpugate {

const char* ToString(Regime r) {
  switch (r) {
    case Regime::kOverheadBound: return "overhead-bound";
    case Regime::kMemoryBound: return "memory-bound";
    case Regime::kComputeBound: return "compute-bound";
  }
  return "";
}

std::optional<Placement> Place(const DeviceProfile& profile, const Work& work) {
  if (!(work.duration_s > 0) || !std::isfinite(work.duration_s)) return std::nullopt;
  const double bytes = work.bytes && *work.bytes > 0 ? *work.bytes : 0.0;
  const double flops = work.flops && *work.flops > 0 ? *work.flops : 0.0;
  if (bytes == 0 && flops == 0) return std::nullopt;
  const double peak_flops =
      work.fp16 && profile.peak_fp16_flops ? *profile.peak_fp16_flops : profile.peak_fp32_flops;
  const double peak_bw = profile.peak_bytes_per_second;
  if (!(peak_flops > 0) || !(peak_bw > 0)) return std::nullopt;
  Placement p;
  p.duration_s = work.duration_s;
  p.ridge = peak_flops / peak_bw;
  if (bytes > 0 && work.flops) p.arithmetic_intensity = flops / bytes;
  const double ai = bytes > 0 ? flops / bytes : std::numeric_limits<double>::infinity();
  // The time the roof allows: the slower of moving the bytes and doing the FLOPs.
  const double roof_time = std::max(flops / peak_flops, bytes / peak_bw);
  p.roof_fraction = roof_time / work.duration_s;
  if (work.duration_s <= kOverheadLaunches * profile.launch_overhead_s) {
    p.regime = Regime::kOverheadBound;
  } else {
    p.regime = ai < p.ridge ? Regime::kMemoryBound : Regime::kComputeBound;
  }
  return p;
}

std::optional<Placement> PlaceWorkload(const DeviceProfile& profile, const WorkloadResult& w) {
  if (w.status != WorkloadStatus::kOk || !HasTimeMetric(w)) return std::nullopt;
  std::vector<double> samples;
  for (double x : AllSamples(w))
    if (std::isfinite(x) && x > 0) samples.push_back(x);
  if (samples.empty()) return std::nullopt;
  Work work;
  work.duration_s = MedianInPlace(samples);
  if (w.work.bytes) work.bytes = static_cast<double>(*w.work.bytes);
  work.flops = w.work.flops;
  return Place(profile, work);
}

std::optional<Placement> PlaceKernel(const DeviceProfile& profile, const KernelResult& k) {
  auto metric = [&k](const char* key) -> std::optional<double> {
    auto it = k.metrics.find(key);
    if (it == k.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
    return it->second;
  };
  if (k.count <= 0 || !(k.total_s > 0)) return std::nullopt;
  Work work;
  work.duration_s = k.total_s / static_cast<double>(k.count);
  work.bytes = metric("bytes");
  work.flops = metric("flops");
  work.fp16 = metric("fp16").value_or(0) == 1;
  return Place(profile, work);
}

namespace {

RegimeInfo Info(const DeviceProfile& profile, const Placement& p) {
  RegimeInfo r;
  r.regime = ToString(p.regime);
  r.arithmetic_intensity = p.arithmetic_intensity;
  r.roof_fraction = p.roof_fraction;
  r.device = profile.device_name;
  return r;
}

}  // namespace

void AddRegimes(const DeviceProfile& profile, Results* results) {
  for (WorkloadResult& w : results->workloads) {
    if (auto p = PlaceWorkload(profile, w)) w.regime = Info(profile, *p);
    for (KernelResult& k : w.kernels)
      if (auto p = PlaceKernel(profile, k)) k.regime = Info(profile, *p);
  }
}

std::optional<std::string> ProfileKindMismatch(const DeviceProfile& profile, const Results& results) {
  for (const WorkloadResult& w : results.workloads) {
    // What ran on a GPU: the cuda backend, a trace's GPU workloads, nvbench
    // states; on the CPU: the cpu backend. Other workloads do not say.
    const bool gpu = w.backend == "cuda" || w.kind == "trace" || w.kind == "nvbench";
    if (!gpu && w.backend != "cpu") continue;
    if (gpu != (profile.kind == "gpu"))
      return "--device-profile describes a " + profile.kind + " (" + profile.device_name + ") but workload '" +
             w.name + "' ran on " + (gpu ? std::string("a GPU") : std::string("the CPU")) + " (" +
             (w.backend == "ingest" ? w.kind : w.backend) + "): its regime is placed under the wrong roofs";
  }
  return std::nullopt;
}

void AddRoofline(const DeviceProfile& profile, const Results& current, Verdicts* verdicts) {
  verdicts->device_profile = profile.device_name + (profile.kind == "cpu" ? " (CPU)" : "");
  for (const WorkloadResult& w : current.workloads) {
    if (auto p = PlaceWorkload(profile, w))
      verdicts->roofline.push_back({w.name, "", ToString(p->regime), p->arithmetic_intensity,
                                    p->roof_fraction, p->duration_s});
    for (const KernelResult& k : w.kernels)
      if (auto p = PlaceKernel(profile, k))
        verdicts->roofline.push_back({w.name, k.name, ToString(p->regime), p->arithmetic_intensity,
                                      p->roof_fraction, p->duration_s});
  }
}

}  // namespace gpugate
