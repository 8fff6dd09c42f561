// CPU calibration for the CPU backend (see calibrate.h): STREAM triad over
// arrays far larger than the last-level cache (McCalpin 1995; best of N
// passes, all threads), FMA chains on every core, and the cost of a timed
// empty call.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "harness/calibrate.h"
#include "harness/do_not_optimize.h"
#include "model/environment.h"
#include "util/fs.h"
#include "util/strings.h"

namespace gpugate {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Runs body(thread_index) on `threads` threads at once and returns the wall
// time from the common start to the last one's end. When a thread cannot be
// started (the system's thread or memory limits), the ones already running
// are joined and the failure is a ToolError: a joinable std::thread must
// never be destroyed (std::terminate).
template <class Body>
Result<double> TimeParallel(int threads, Body body) {
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(std::max(threads - 1, 0)));
  const auto start = Clock::now();
  std::string failure;
  for (int t = 1; t < threads && failure.empty(); ++t) {
    try {
      pool.emplace_back(body, t);
    } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for its state
      failure = "calibrate: cannot start thread " + std::to_string(t + 1) + " of " + std::to_string(threads) +
                " (" + e.what() + "); use fewer --threads";
    }
  }
  if (failure.empty()) body(0);
  for (std::thread& th : pool) th.join();
  if (!failure.empty()) return ToolError(failure);
  return Seconds(Clock::now() - start);
}

float FmaChainsPortable(int64_t iterations, float m, float a) {
  float x[kFmaLanes];
  for (int j = 0; j < kFmaLanes; ++j) x[j] = 1.0f + static_cast<float>(j) * 1e-3f;
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < kFmaLanes; ++j) x[j] = x[j] * m + a;
  float sum = 0;
  for (float v : x) sum += v;
  return sum;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
typedef float V8f __attribute__((vector_size(32)));

// Eight named vectors (64 lanes) so they stay in registers: eight
// independent FMAs per step cover the FMA latency on two ports.
__attribute__((target("avx2,fma"))) float FmaChainsAvx2(int64_t iterations, float m, float a) {
  static_assert(kFmaLanes == 64, "eight vectors of eight lanes");
  float init[kFmaLanes];
  for (int j = 0; j < kFmaLanes; ++j) init[j] = 1.0f + static_cast<float>(j) * 1e-3f;
  V8f x0, x1, x2, x3, x4, x5, x6, x7;
  std::memcpy(&x0, init + 0, sizeof x0);
  std::memcpy(&x1, init + 8, sizeof x1);
  std::memcpy(&x2, init + 16, sizeof x2);
  std::memcpy(&x3, init + 24, sizeof x3);
  std::memcpy(&x4, init + 32, sizeof x4);
  std::memcpy(&x5, init + 40, sizeof x5);
  std::memcpy(&x6, init + 48, sizeof x6);
  std::memcpy(&x7, init + 56, sizeof x7);
  const V8f mv = {m, m, m, m, m, m, m, m}, av = {a, a, a, a, a, a, a, a};
  for (int64_t i = 0; i < iterations; ++i) {
    x0 = x0 * mv + av;  // contracted to vfmadd
    x1 = x1 * mv + av;
    x2 = x2 * mv + av;
    x3 = x3 * mv + av;
    x4 = x4 * mv + av;
    x5 = x5 * mv + av;
    x6 = x6 * mv + av;
    x7 = x7 * mv + av;
  }
  float out[kFmaLanes];
  std::memcpy(out + 0, &x0, sizeof x0);
  std::memcpy(out + 8, &x1, sizeof x1);
  std::memcpy(out + 16, &x2, sizeof x2);
  std::memcpy(out + 24, &x3, sizeof x3);
  std::memcpy(out + 32, &x4, sizeof x4);
  std::memcpy(out + 40, &x5, sizeof x5);
  std::memcpy(out + 48, &x6, sizeof x6);
  std::memcpy(out + 56, &x7, sizeof x7);
  float sum = 0;
  for (float v : out) sum += v;
  return sum;
}
#endif

int ThreadsFor(const CpuCalibrationOptions& o) {
  if (o.threads > 0) return o.threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::string CpuModel() {
  Result<std::string> info = ReadFile("/proc/cpuinfo");
  std::string model = info.ok() ? CpuModelFromCpuinfo(*info) : "";
  return model.empty() ? "unknown CPU" : model;
}

}  // namespace

int MaxCalibrationThreads() { return 4 * std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

int64_t TriadArrayBytes(std::optional<int64_t> llc_bytes) {
  const int64_t llc = llc_bytes && *llc_bytes > 0 ? *llc_bytes : int64_t{32} << 20;
  return std::max<int64_t>(8 * llc, int64_t{64} << 20);
}

TriadArrays PlanTriadArrays(std::optional<int64_t> llc_bytes, std::optional<int64_t> available_bytes) {
  TriadArrays plan{TriadArrayBytes(llc_bytes), ""};
  if (plan.bytes > kMaxTriadArrayBytes) {
    plan.bytes = kMaxTriadArrayBytes;
    plan.capped_by = "capped at " + std::to_string(kMaxTriadArrayBytes >> 20) + " MiB each";
  }
  if (available_bytes && *available_bytes > 0) {
    // All three arrays in at most a quarter of what is available, as the GPU
    // path does with free device memory; at least 1 MiB each.
    const int64_t quarter = std::max<int64_t>(*available_bytes / 4 / 3, int64_t{1} << 20);
    if (plan.bytes > quarter) {
      plan.bytes = quarter;
      plan.capped_by = "capped at a quarter of the " + std::to_string(*available_bytes >> 20) +
                       " MiB of available memory";
    }
  }
  // Arrays that a cache can hold measure the cache, not DRAM: say so.
  const int64_t llc = llc_bytes && *llc_bytes > 0 ? *llc_bytes : 0;
  if (!plan.capped_by.empty() && llc > 0 && 3 * plan.bytes < 4 * llc)
    plan.capped_by += " (less than 4x the " + std::to_string(llc >> 20) +
                      " MiB last-level cache: the bandwidth may be the cache's, not DRAM's)";
  return plan;
}

std::optional<int64_t> MemAvailableFromMeminfo(std::string_view meminfo) {
  return ProcKibField(meminfo, "MemAvailable");
}

namespace {

std::optional<int64_t> CountIn(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty() || text.size() > 19) return std::nullopt;
  int64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

std::optional<int64_t> CgroupHeadroom(std::string_view limit_text, std::string_view usage_text,
                                      int64_t reclaimable) {
  const std::optional<int64_t> limit = CountIn(limit_text);
  // v1 writes "no limit" as the largest page-aligned int64.
  if (!limit || *limit >= (int64_t{1} << 60)) return std::nullopt;
  const int64_t usage = std::max<int64_t>(0, CountIn(usage_text).value_or(0) - std::max<int64_t>(0, reclaimable));
  return std::max<int64_t>(0, *limit - usage);
}

int64_t ReclaimableFromMemoryStat(std::string_view memory_stat) {
  for (size_t at = 0; at < memory_stat.size();) {
    size_t end = memory_stat.find('\n', at);
    if (end == std::string_view::npos) end = memory_stat.size();
    std::string_view line = memory_stat.substr(at, end - at);
    at = end + 1;
    for (std::string_view key : {std::string_view("inactive_file "), std::string_view("total_inactive_file ")}) {
      if (!line.starts_with(key)) continue;
      if (std::optional<int64_t> n = CountIn(line.substr(key.size()))) return *n;
    }
  }
  return 0;
}

std::optional<std::string> CgroupV2Path(std::string_view proc_self_cgroup) {
  for (size_t at = 0; at < proc_self_cgroup.size();) {
    size_t end = proc_self_cgroup.find('\n', at);
    if (end == std::string_view::npos) end = proc_self_cgroup.size();
    const std::string_view line = proc_self_cgroup.substr(at, end - at);
    at = end + 1;
    if (line.starts_with("0::/")) return std::string(line.substr(3));
  }
  return std::nullopt;
}

std::optional<int64_t> ReadAvailableMemoryBytes() {
  std::optional<int64_t> available;
  if (Result<std::string> meminfo = ReadFile("/proc/meminfo"); meminfo.ok())
    available = MemAvailableFromMeminfo(*meminfo);
  auto lower = [&available](std::optional<int64_t> bound) {
    if (bound && (!available || *bound < *available)) available = bound;
  };
  auto headroom = [](const std::string& limit_file, const std::string& usage_file,
                     const std::string& stat_file) -> std::optional<int64_t> {
    Result<std::string> limit = ReadFile(limit_file);
    if (!limit.ok()) return std::nullopt;
    Result<std::string> usage = ReadFile(usage_file);
    Result<std::string> stat = ReadFile(stat_file);
    return CgroupHeadroom(*limit, usage.ok() ? *usage : std::string(),
                          stat.ok() ? ReclaimableFromMemoryStat(*stat) : 0);
  };
  // A container's memory limit, which MemAvailable (the host's) does not see.
  if (Result<std::string> self = ReadFile("/proc/self/cgroup"); self.ok()) {
    if (std::optional<std::string> path = CgroupV2Path(*self)) {
      std::string dir = *path;
      for (int depth = 0; depth < 64; ++depth) {
        const std::string base = "/sys/fs/cgroup" + (dir == "/" ? std::string() : dir);
        lower(headroom(base + "/memory.max", base + "/memory.current", base + "/memory.stat"));
        if (dir == "/" || dir.empty()) break;
        const size_t slash = dir.rfind('/');
        dir = slash == 0 || slash == std::string::npos ? "/" : dir.substr(0, slash);
      }
    }
  }
  lower(headroom("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes",
                 "/sys/fs/cgroup/memory/memory.stat"));
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const int64_t as = static_cast<int64_t>(std::min<rlim_t>(limit.rlim_cur, rlim_t{1} << 62));
    if (!available || as < *available) available = as;
  }
  return available;
}

void TriadRange(double* a, const double* b, const double* c, double s, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
}

float FmaChains(int64_t iterations, float m, float a) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return FmaChainsAvx2(iterations, m, a);
#endif
  return FmaChainsPortable(iterations, m, a);
}

std::optional<int64_t> ReadLastLevelCacheBytes() {
  std::optional<int64_t> best;
  for (int index = 0; index < 8; ++index) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
    if (!in) continue;
    std::string text;
    in >> text;
    if (text.empty()) continue;
    int64_t value = 0;
    size_t i = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
    if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) value <<= 10;
    if (i < text.size() && text[i] == 'M') value <<= 20;
    if (value > 0 && (!best || value > *best)) best = value;
  }
  return best;
}

Result<DeviceProfile> CalibrateCpu(const CpuCalibrationOptions& options) {
  const int threads = ThreadsFor(options);
  const int reps = std::max(1, options.repetitions);
  const std::optional<int64_t> llc = options.llc_bytes ? options.llc_bytes : ReadLastLevelCacheBytes();
  const TriadArrays arrays =
      PlanTriadArrays(llc, options.available_bytes ? options.available_bytes : ReadAvailableMemoryBytes());
  const size_t n = static_cast<size_t>(arrays.bytes) / sizeof(double);

  // Triad: each thread first-touches and streams its own slice.
  std::unique_ptr<double[]> a(new (std::nothrow) double[n]), b(new (std::nothrow) double[n]),
      c(new (std::nothrow) double[n]);
  if (!a || !b || !c)
    return ToolError("calibrate: cannot allocate 3 x " + std::to_string(n * sizeof(double) >> 20) +
                     " MiB for the triad arrays");
  auto slice = [&](int t) {
    return std::pair{n * static_cast<size_t>(t) / static_cast<size_t>(threads),
                     n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads)};
  };
  Result<double> touched = TimeParallel(threads, [&](int t) {
    auto [lo, hi] = slice(t);
    for (size_t i = lo; i < hi; ++i) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  });
  if (!touched.ok()) return touched.error();
  double best_triad = 1e300;
  for (int r = 0; r < reps; ++r) {
    Result<double> pass = TimeParallel(threads, [&](int t) {
      auto [lo, hi] = slice(t);
      TriadRange(a.get(), b.get(), c.get(), 3.0, lo, hi);
    });
    if (!pass.ok()) return pass.error();
    best_triad = std::min(best_triad, *pass);
    DoNotOptimize(a[n / 2]);
  }
  const double triad_bytes = 3.0 * sizeof(double) * static_cast<double>(n);

  // FMA chains: ~60 ms per pass with AVX2 at 2.5 GHz (seconds with portable code).
  constexpr int64_t kIterations = 40000000;
  double best_fma = 1e300;
  std::vector<float> sinks(static_cast<size_t>(threads));
  for (int r = 0; r < reps; ++r) {
    Result<double> pass = TimeParallel(threads, [&](int t) {
      sinks[static_cast<size_t>(t)] = FmaChains(kIterations, 0.999999f, 1e-6f);
    });
    if (!pass.ok()) return pass.error();
    best_fma = std::min(best_fma, *pass);
    DoNotOptimize(sinks[0]);
  }
  const double fma_flops = 2.0 * kFmaLanes * static_cast<double>(kIterations) * threads;

  // One timed empty call: the clock read pair around nothing, best per call
  // over a batch (the CPU backend's fixed cost per sample).
  constexpr int kCalls = 10000;
  double best_call = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      auto t0 = Clock::now();
      DoNotOptimize(t0);
      auto t1 = Clock::now();
      DoNotOptimize(t1);
    }
    best_call = std::min(best_call, Seconds(Clock::now() - start) / kCalls);
  }

  DeviceProfile p;
  p.device_name = CpuModel();
  p.kind = "cpu";
  p.peak_bytes_per_second = triad_bytes / best_triad;
  p.peak_fp32_flops = fma_flops / best_fma;
  p.launch_overhead_s = best_call;
  char buf[384];
  const std::string cache = llc ? std::to_string(*llc >> 10) + " KiB" : "unknown, 32 MiB assumed";
  const std::string capped = arrays.capped_by.empty() ? "" : "; " + arrays.capped_by;
  std::snprintf(buf, sizeof buf,
                "CPU: triad over 3 x %zu MiB (last-level cache %s%s) and FP32 FMA chains on %d "
                "thread%s, best of %d; launch = one timed empty call",
                n * sizeof(double) >> 20, cache.c_str(), capped.c_str(), threads, threads == 1 ? "" : "s", reps);
  p.method = buf;
  p.measured_utc = UtcNowIso8601();
  p.tool_version = GPUGATE_VERSION;
  return p;
}

}  // namespace gpugate
