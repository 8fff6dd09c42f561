// Tests that the trace analyses stay exact in bounded memory: GPU activities
// arriving out of start order (within the reorder window) give the same
// unions and idle split as ordered input, a long stream of short kernels sums
// exactly, and launch-delay quantiles beyond the exact cap stay within the
// documented 1% relative error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "trace/analysis.h"

namespace gpugate {
namespace {

TraceEvent Gpu(TraceCategory cat, const std::string& name, int64_t device, int64_t stream, int64_t ts,
               int64_t dur, int64_t correlation = -1) {
  TraceEvent e;
  e.ph = 'X';
  e.category = cat;
  e.name = name;
  e.has_ts = e.has_dur = true;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.device = device;
  e.stream = stream;
  e.correlation = correlation;
  return e;
}

TraceEvent Launch(int64_t ts, int64_t dur, int64_t correlation) {
  TraceEvent e;
  e.ph = 'X';
  e.category = TraceCategory::kCudaRuntime;
  e.name = "cudaLaunchKernel";
  e.has_ts = e.has_dur = true;
  e.ts_ns = ts;
  e.dur_ns = dur;
  e.pid_is_num = e.tid_is_num = true;
  e.pid_num = 1;
  e.tid_num = 2;
  e.pid_text = "1";
  e.tid_text = "2";
  e.correlation = correlation;
  return e;
}

TraceReport AnalyzeEvents(const std::vector<TraceEvent>& events, AnalysisOptions opt = {}) {
  TraceAnalyzer analyzer(opt);
  for (const TraceEvent& e : events) analyzer.OnEvent(e);
  return analyzer.Finish(TraceInfo{});
}

// Union length of [start, end) intervals by sorting (reference for the test).
int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  int64_t total = 0, cur_s = 0, cur_e = INT64_MIN;
  for (auto [s, e] : v) {
    if (s > cur_e) {
      if (cur_e != INT64_MIN) total += cur_e - cur_s;
      cur_s = s;
      cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e != INT64_MIN) total += cur_e - cur_s;
  return total;
}

TEST(TraceBoundedMemoryTest, ManyShortKernelsBusyIsTheSum) {
  // 300,000 kernels of 100 ns every 150 ns: far more than the 65,536-entry
  // reorder window, so most are swept while the trace streams.
  constexpr int64_t kN = 300000;
  TraceAnalyzer analyzer(AnalysisOptions{});
  for (int64_t i = 0; i < kN; ++i)
    analyzer.OnEvent(Gpu(TraceCategory::kKernel, "k", 0, 7, 1000 + 150 * i, 100));
  TraceReport r = analyzer.Finish(TraceInfo{});
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceStats& d = r.devices[0];
  EXPECT_EQ(d.kernel_count, kN);
  EXPECT_EQ(d.busy_ns, kN * 100);
  EXPECT_EQ(d.compute_ns, kN * 100);
  EXPECT_EQ(d.kernel_time_ns, kN * 100);
  EXPECT_EQ(r.SpanNs(), kN * 150 - 50);
  EXPECT_EQ(d.idle_ns, (kN - 1) * 50);
  // 50 ns gaps < the 30 us kernel-wait threshold, no launch known: "kernel wait".
  EXPECT_EQ(d.idle.kernel_wait_ns, (kN - 1) * 50);
  EXPECT_EQ(d.idle.host_wait_ns, 0);
  EXPECT_EQ(d.idle.other_ns, 0);
  ASSERT_EQ(d.streams.size(), 1u);
  EXPECT_EQ(d.streams[0].busy_ns, kN * 100);
  EXPECT_EQ(d.active_start_ns, 1000);
  EXPECT_EQ(d.active_end_ns, 1000 + 150 * (kN - 1) + 100);
  EXPECT_EQ(r.launch.gpu_ops_unmatched, kN);
}

TEST(TraceBoundedMemoryTest, DisorderWithinTheWindowGivesTheOrderedResult) {
  // Overlapping kernels, NCCL kernels, memcpys and memsets on two devices and
  // two streams, with launches for some of them, in start order.
  std::mt19937_64 rng(12345);
  std::vector<TraceEvent> ordered;
  std::vector<std::pair<int64_t, int64_t>> dev0;
  int64_t t = 5000;
  for (int i = 0; i < 4000; ++i) {
    t += static_cast<int64_t>(rng() % 400);  // sometimes overlapping, sometimes gaps
    int64_t dur = 1 + static_cast<int64_t>(rng() % 600);
    int64_t device = static_cast<int64_t>(rng() % 2);
    int64_t stream = 7 + static_cast<int64_t>(rng() % 2);
    int kind = static_cast<int>(rng() % 4);
    TraceCategory cat = kind == 2 ? TraceCategory::kGpuMemcpy
                        : kind == 3 ? TraceCategory::kGpuMemset
                                    : TraceCategory::kKernel;
    std::string name = kind == 1 ? "ncclAllReduce" : kind == 2 ? "Memcpy HtoD (Pinned -> Device)"
                                                  : kind == 3 ? "Memset (Device)" : "gemm";
    int64_t corr = i % 3 == 0 ? -1 : i;
    if (corr >= 0) ordered.push_back(Launch(t - 300 - static_cast<int64_t>(rng() % 2000), 100, corr));
    ordered.push_back(Gpu(cat, name, device, stream, t, dur, corr));
    if (device == 0) dev0.push_back({t, t + dur});
  }
  // The same events, shuffled inside consecutive blocks of 48: no event is
  // more than 48 events away from its ordered position, below the window 64.
  std::vector<TraceEvent> shuffled = ordered;
  for (size_t b = 0; b < shuffled.size(); b += 48)
    std::shuffle(shuffled.begin() + b, shuffled.begin() + std::min(b + 48, shuffled.size()), rng);
  AnalysisOptions opt;
  opt.gpu_reorder_window = 64;
  opt.launch_window = 256;
  TraceReport a = AnalyzeEvents(ordered, opt), b = AnalyzeEvents(shuffled, opt);
  AnalysisOptions big;  // everything fits in the default window
  TraceReport c = AnalyzeEvents(shuffled, big);
  ASSERT_EQ(a.devices.size(), 2u);
  ASSERT_EQ(b.devices.size(), 2u);
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(a.devices[0].busy_ns, UnionLength(dev0));
  for (const TraceReport* other : {&b, &c}) {
    for (size_t i = 0; i < 2; ++i) {
      const DeviceStats &x = a.devices[i], &y = other->devices[i];
      EXPECT_EQ(x.busy_ns, y.busy_ns);
      EXPECT_EQ(x.compute_ns, y.compute_ns);
      EXPECT_EQ(x.communication_ns, y.communication_ns);
      EXPECT_EQ(x.memcpy_ns, y.memcpy_ns);
      EXPECT_EQ(x.memset_ns, y.memset_ns);
      EXPECT_EQ(x.idle.host_wait_ns, y.idle.host_wait_ns);
      EXPECT_EQ(x.idle.kernel_wait_ns, y.idle.kernel_wait_ns);
      EXPECT_EQ(x.idle.other_ns, y.idle.other_ns);
      EXPECT_EQ(x.active_start_ns, y.active_start_ns);
      EXPECT_EQ(x.active_end_ns, y.active_end_ns);
      ASSERT_EQ(x.streams.size(), y.streams.size());
      for (const StreamStats& xs : x.streams) {  // listed in order of first arrival
        auto ys = std::find_if(y.streams.begin(), y.streams.end(),
                               [&](const StreamStats& st) { return st.stream == xs.stream; });
        ASSERT_NE(ys, y.streams.end());
        EXPECT_EQ(xs.busy_ns, ys->busy_ns);
        EXPECT_EQ(xs.idle.host_wait_ns, ys->idle.host_wait_ns);
        EXPECT_EQ(xs.idle.kernel_wait_ns, ys->idle.kernel_wait_ns);
        EXPECT_EQ(xs.idle.other_ns, ys->idle.other_ns);
        EXPECT_EQ(xs.first_ns, ys->first_ns);
        EXPECT_EQ(xs.last_ns, ys->last_ns);
      }
    }
    EXPECT_EQ(a.launch.gpu_ops_matched, other->launch.gpu_ops_matched);
    EXPECT_EQ(a.launch.delay_p50_ns, other->launch.delay_p50_ns);
    EXPECT_EQ(a.launch.delay_p95_ns, other->launch.delay_p95_ns);
  }
  // Every kernel/memcpy/memset met its launch (launches precede them closely).
  EXPECT_EQ(a.launch.gpu_ops_matched, 4000 - 1334);
  // The split adds up: busy + idle = span on each device.
  for (const DeviceStats& d : a.devices) EXPECT_EQ(d.busy_ns + d.idle_ns, a.SpanNs());
}

TEST(TraceBoundedMemoryTest, QuantilesExactBelowCapWithinOnePercentBeyond) {
  std::mt19937_64 rng(777);
  std::lognormal_distribution<double> dist(9.0, 1.5);  // ~8 us median, long tail
  detail::BoundedQuantiles small(1000), big(1000000);
  std::vector<int64_t> values;
  for (int i = 0; i < 200000; ++i) {
    int64_t v = static_cast<int64_t>(dist(rng));
    if (i % 50 == 0) v = -v;  // clock skew gives a few negative delays
    if (i % 97 == 0) v = 0;
    values.push_back(v);
    small.Add(v);
    big.Add(v);
  }
  EXPECT_FALSE(small.exact());
  EXPECT_TRUE(big.exact());
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (double q : {0.0, 0.01, 0.02, 0.25, 0.5, 0.9, 0.95, 0.99, 1.0}) {
    int64_t exact = sorted[static_cast<size_t>(q * (sorted.size() - 1) + 0.5)];
    EXPECT_EQ(big.Quantile(q), exact) << q;
    int64_t approx = small.Quantile(q);
    EXPECT_LE(std::abs(approx - exact), std::abs(exact) / 100) << q << ": " << approx << " vs " << exact;
  }
  EXPECT_EQ(small.min(), sorted.front());
  EXPECT_EQ(small.max(), sorted.back());
  EXPECT_EQ(small.count(), 200000);
}

TEST(TraceBoundedMemoryTest, LaunchDelaysBeyondTheExactCap) {
  // 150,000 launched kernels (more than the 100,000 exact values kept); delay
  // of kernel i is 1000 + (i * 7919 mod 50000) ns.
  constexpr int64_t kN = 150000;
  TraceAnalyzer analyzer(AnalysisOptions{});
  std::vector<int64_t> delays;
  for (int64_t i = 0; i < kN; ++i) {
    int64_t start = 100000 + 100000 * i;
    int64_t delay = 1000 + (i * 7919) % 50000;
    analyzer.OnEvent(Launch(start - delay, 500, i));
    analyzer.OnEvent(Gpu(TraceCategory::kKernel, "k", 0, 7, start, 2000, i));
    delays.push_back(delay);
  }
  TraceReport r = analyzer.Finish(TraceInfo{});
  std::sort(delays.begin(), delays.end());
  int64_t sum = 0;
  for (int64_t d : delays) sum += d;
  EXPECT_EQ(r.launch.kernels, kN);
  EXPECT_EQ(r.launch.gpu_ops_matched, kN);
  EXPECT_EQ(r.launch.delay_min_ns, delays.front());
  EXPECT_EQ(r.launch.delay_max_ns, delays.back());
  EXPECT_DOUBLE_EQ(r.launch.delay_mean_ns, static_cast<double>(sum) / kN);
  int64_t p50 = delays[static_cast<size_t>(0.5 * (kN - 1) + 0.5)];
  int64_t p95 = delays[static_cast<size_t>(0.95 * (kN - 1) + 0.5)];
  EXPECT_LE(std::abs(r.launch.delay_p50_ns - p50), p50 / 100);
  EXPECT_LE(std::abs(r.launch.delay_p95_ns - p95), p95 / 100);
  EXPECT_EQ(r.launch.launch_cost_ns, kN * 500);
  EXPECT_EQ(r.devices[0].idle.host_wait_ns + r.devices[0].idle.other_ns + r.devices[0].idle.kernel_wait_ns,
            r.devices[0].idle_ns);
}

// The groups behind the recurring-copy and identical-launch rules are capped:
// sizes and launch configurations beyond the caps are counted, not grouped.
TEST(TraceBoundedMemoryTest, CopySizeAndLaunchConfigGroupsAreCapped) {
  TraceAnalyzer a({});
  constexpr int kSizes = 4096 + 5;       // the copy-size cap, plus 5
  constexpr int kConfigs = 65536 + 3;    // the launch-configuration cap, plus 3
  int64_t t = 0;
  for (int i = 0; i < kSizes; ++i, t += 1000) {
    TraceEvent e = Gpu(TraceCategory::kGpuMemcpy, "Memcpy HtoD (Pinned -> Device)", 0, 7, t, 500);
    e.bytes = 1000 + i;
    a.OnEvent(e);
  }
  for (int i = 0; i < kConfigs; ++i, t += 1000) {
    TraceEvent e = Gpu(TraceCategory::kKernel, "k", 0, 7, t, 500);
    e.grid[0] = 1 + i;
    e.block[0] = 128;
    a.OnEvent(e);
  }
  TraceReport r = a.Finish(TraceInfo{});
  EXPECT_EQ(r.h2d_copies_untracked, 5);
  EXPECT_TRUE(r.repeated_h2d.empty());  // every size once: none recurs
  EXPECT_EQ(r.launches_untracked, 3);
  ASSERT_FALSE(r.identical_launches.empty());
  EXPECT_EQ(r.identical_launches[0].count, 1);
}

}  // namespace
}  // namespace gpugate
