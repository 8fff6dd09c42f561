// One summary per kernel per run (see kernel_summary.h).
#include "compare/kernel_summary.h"

#include <cmath>
#include <map>
#include <vector>

#include "stats/summary.h"

namespace gpugate {

KernelStatistic ChooseKernelStatistic(std::span<const KernelResult* const> kernels) {
  bool groups = true;
  for (const KernelResult* k : kernels) {
    if (k->durations_s.empty()) return KernelStatistic::kMeanPerCall;
    groups = groups && k->launch_groups.size() == k->durations_s.size();
  }
  if (!groups) return KernelStatistic::kMedianPerCall;
  // Group medians compare runs whose calls fall into the same launch
  // configurations alike. Where the configurations themselves differ (a
  // change launches some calls with another grid, or shapes vary between
  // runs), the medians of other groups would move with no call's time: six
  // calls of unchanged durations, two of them given another grid, read
  // +10.6%. Every run then takes the plain median per call.
  // A run of more steps makes more calls of each: the same configurations,
  // each with a median of its own or pooled alike, keep the group medians.
  std::map<uint32_t, bool> first;  // configuration -> a group of its own
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::map<uint32_t, int64_t> calls;
    for (size_t j = 0; j < kernels[i]->durations_s.size(); ++j)
      if (std::isfinite(kernels[i]->durations_s[j]) && kernels[i]->durations_s[j] >= 0)
        ++calls[kernels[i]->launch_groups[j]];
    std::map<uint32_t, bool> shape;
    for (const auto& [key, n] : calls) shape[key] = n >= kMinGroupInstances;
    if (i == 0) first = std::move(shape);
    else if (shape != first) return KernelStatistic::kMedianPerCall;
  }
  return KernelStatistic::kGroupMedianPerCall;
}

double KernelClockStep(const KernelResult& k) {
  // The coarsest of 1 ms, 100 us, 10 us and 1 us that every call lies on (a
  // trace on a 10 us grid flips by 10 us, not 1).
  bool any = false;
  for (const double step : {1e-3, 1e-4, 1e-5, 1e-6}) {
    bool on_grid = true;
    for (double d : k.durations_s) {
      if (!std::isfinite(d) || d < 0) continue;
      any = true;
      // Within 1e-7 of the duration: whole microseconds stored as float32
      // seconds are off by up to 6e-8 of themselves, while a nanosecond
      // clock's 200,000.123 us is off a millisecond grid by 6e-7.
      const double steps = d / step;
      on_grid = on_grid && std::fabs(steps - std::round(steps)) <= 1e-7 * std::max(1.0, steps);
    }
    if (!any) return 0;
    if (on_grid) return step;
  }
  return 0;
}

double RunClockStep(const WorkloadResult& w) {
  // Kernels of several calls all on a grid show the clock: by chance a
  // nanosecond clock puts two calls on whole microseconds once in a million
  // kernels. Kernels of one call say little alone (one in a thousand does).
  double finest = 0, finest_single = 0;
  bool coarse = false, fine = false;
  int singles = 0, singles_on_grid = 0;
  auto finer = [](double a, double b) { return a == 0 || b < a ? b : a; };
  for (const KernelResult& k : w.kernels) {
    int calls = 0;
    for (double d : k.durations_s) calls += std::isfinite(d) && d >= 0;
    if (calls == 0) continue;
    const double step = KernelClockStep(k);
    if (calls >= 2) {
      (step > 0 ? coarse : fine) = true;
    } else {
      ++singles;
      singles_on_grid += step > 0;
    }
    if (step > 0) (calls >= 2 ? finest : finest_single) = finer(calls >= 2 ? finest : finest_single, step);
  }
  if (coarse) return finest_single > 0 ? finer(finest, finest_single) : finest;
  // No kernel of several calls on a grid: a finer clock when one shows it,
  // else (one call each) when most single calls lie on no grid.
  if (fine || 2 * singles_on_grid < singles) return 0.0;
  return finest_single;
}

std::optional<KernelRunSummary> SummarizeKernelRun(const KernelResult& k, KernelStatistic statistic) {
  std::vector<double> durations;
  // A call of 0 s is a real reading: shorter than the trace's resolution
  // (whole microseconds in older traces). Dropping it would raise the median.
  for (double d : k.durations_s)
    if (std::isfinite(d) && d >= 0) durations.push_back(d);
  KernelRunSummary s;
  s.clock_step_s = KernelClockStep(k);
  if (statistic == KernelStatistic::kGroupMedianPerCall && k.launch_groups.size() == k.durations_s.size()) {
    // A kernel called at several sizes: its median call is one size, and a
    // slowdown of the calls that hold most of its time would not move it.
    // Each size (launch configuration) at its median, weighted by its calls.
    // A size launched fewer than kMinGroupInstances times has no robust
    // median of its own (one stray slow call would be its value): such
    // instances are pooled into one group at their median, so a kernel
    // whose every call has another size (dynamic shapes) is the plain median.
    std::map<uint32_t, std::vector<double>> groups;
    for (size_t i = 0; i < k.durations_s.size(); ++i) {
      const double d = k.durations_s[i];
      if (std::isfinite(d) && d >= 0) groups[k.launch_groups[i]].push_back(d);
    }
    if (groups.empty()) return std::nullopt;
    std::vector<double> pooled;
    for (auto it = groups.begin(); it != groups.end();) {
      if (it->second.size() >= static_cast<size_t>(kMinGroupInstances)) {
        ++it;
        continue;
      }
      pooled.insert(pooled.end(), it->second.begin(), it->second.end());
      it = groups.erase(it);
    }
    double sum = 0;
    int64_t n = 0;
    auto add = [&](std::vector<double>& values) {
      sum += MedianInPlace(values) * static_cast<double>(values.size());
      n += static_cast<int64_t>(values.size());
    };
    for (auto& [key, values] : groups) add(values);
    if (!pooled.empty()) add(pooled);
    s.instances = n;
    s.value = sum / static_cast<double>(n);
  } else if (statistic != KernelStatistic::kMeanPerCall) {
    if (durations.empty()) return std::nullopt;
    s.instances = static_cast<int64_t>(durations.size());
    s.value = MedianInPlace(durations);
  } else {
    const int64_t count = k.count > 0 ? k.count : static_cast<int64_t>(k.durations_s.size());
    double total = k.total_s;
    if (!(total > 0))
      for (double d : durations) total += d;
    // A total of 0 is a time only when calls were seen reading 0 s.
    if (count <= 0 || !std::isfinite(total) || total < 0 || (total == 0 && durations.empty()))
      return std::nullopt;
    s.value = total / static_cast<double>(count);
    s.instances = count;
  }
  return std::isfinite(s.value) && s.value >= 0 ? std::optional(s) : std::nullopt;
}

}  // namespace gpugate
