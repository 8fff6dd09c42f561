// A Google Benchmark program whose only purpose is to be noisy the way real
// suites are: fast and slow, memory-bound and compute-bound, allocation-heavy,
// and one benchmark whose speed depends on a page size drawn once per process
// (bimodal across processes). scripts/real_noise/collect.sh runs it as many
// separate processes to build the real-noise corpus (docs/real-noise.md).
//
// Also the corpus's noisy neighbour: `--neighbour=SECONDS [--neighbour_mib=N]`
// streams through a large buffer and burns a core for SECONDS, then exits.
//
// Builds with Debian's libbenchmark alone:
//   c++ -O2 -std=c++17 noise_bench.cc -o noise_bench -lbenchmark -lpthread
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpugate {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t k2MiB = 2 * kMiB;
constexpr size_t kCacheLine = 64;
constexpr size_t kPage = 4096;

/// SplitMix64 (Steele, Lea & Flood 2014): the integer hash below and the
/// fixed-seed shuffles use it, so every process does identical work.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Anonymous memory aligned to 2 MiB (so a huge page can back it), with the
/// kernel told whether huge pages are wanted, then touched so that the
/// backing is decided before any timing. Never freed: lives for the process.
char* MapBuffer(size_t bytes, bool want_huge) {
  void* raw = mmap(nullptr, bytes + k2MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("noise_bench: mmap");
    std::exit(3);
  }
  auto* base = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + k2MiB - 1) & ~(k2MiB - 1));
  madvise(base, bytes, want_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(base, 1, bytes);
  return base;
}

/// A random cyclic pointer chain through `bytes` at `base` with one node per
/// `stride` bytes (Sattolo's algorithm gives a single cycle; fixed seed, so
/// every process walks the same order through its own buffer). With a page
/// stride the node sits at a different cache line of each page, so the nodes
/// spread over all cache sets instead of piling into the few that line 0 of
/// every page maps to.
void BuildChase(char* base, size_t bytes, size_t stride) {
  const size_t nodes = bytes / stride;
  std::vector<uint32_t> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  uint64_t state = 42;
  for (size_t i = nodes - 1; i > 0; --i) std::swap(order[i], order[SplitMix64(&state) % i]);
  auto node = [&](size_t k) {
    const size_t line = stride > kCacheLine ? (k * 37) % (stride / kCacheLine) : 0;
    return base + k * stride + line * kCacheLine;
  };
  for (size_t i = 0; i < nodes; ++i) {
    char* to = node(order[(i + 1) % nodes]);
    std::memcpy(node(order[i]), &to, sizeof to);
  }
}

/// AnonHugePages of this process in KiB (/proc/self/smaps_rollup), -1 when
/// the kernel does not provide it.
long AnonHugeKiB() {
  std::ifstream in("/proc/self/smaps_rollup");
  constexpr std::string_view kKey = "AnonHugePages:";
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, kKey.size(), kKey) == 0) return std::strtol(line.c_str() + kKey.size(), nullptr, 10);
  return -1;
}

// ---------------------------------------------------------------------------
// Compute-bound, tens to hundreds of nanoseconds.

/// Integer hashing: 64 SplitMix64 steps (multiply/xor/shift, no memory).
void BM_IntHash(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : state) {
    uint64_t acc = 0;
    for (int i = 0; i < 64; ++i) acc ^= SplitMix64(&seed);
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_IntHash);

/// A dependent chain of 64 fused multiply-adds (std::fma: glibc dispatches
/// to the hardware instruction where the CPU has one): latency-bound.
void BM_FmaChain(benchmark::State& state) {
  double x = 1.0, a = 0.999999, b = 1e-7;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    for (int i = 0; i < 64; ++i) x = std::fma(x, a, b);
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_FmaChain);

/// A dependent chain of 32 square roots and divisions (long-latency units).
void BM_SqrtDiv(benchmark::State& state) {
  double x = 2.0, d = 1.0000001;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d);
    for (int i = 0; i < 32; ++i) x = std::sqrt(x + 3.0) / d;
    benchmark::DoNotOptimize(x);
  }
}
BENCHMARK(BM_SqrtDiv);

// ---------------------------------------------------------------------------
// Allocation-heavy.

/// 16 malloc/free pairs of sizes from 16 B to 4 KiB (the allocator's fast paths).
void BM_MallocFree(benchmark::State& state) {
  void* blocks[16];
  for (auto _ : state) {
    for (int i = 0; i < 16; ++i) {
      blocks[i] = std::malloc(size_t{16} << (i % 9));
      benchmark::DoNotOptimize(blocks[i]);
    }
    for (int i = 15; i >= 0; --i) std::free(blocks[i]);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MallocFree);

/// Builds a ~600-byte string from 64 decimal numbers (reallocations, formatting).
void BM_StringBuild(benchmark::State& state) {
  for (auto _ : state) {
    std::string s;
    for (int i = 0; i < 64; ++i) {
      s += std::to_string(i * 7919);
      s += ',';
    }
    benchmark::DoNotOptimize(s.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_StringBuild);

/// 1000 inserts of pseudo-random keys into a std::map (node allocation, pointer chasing).
void BM_MapInsert(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t seed = 7;
    std::map<uint64_t, uint64_t> m;
    for (int i = 0; i < 1000; ++i) m.emplace(SplitMix64(&seed), i);
    benchmark::DoNotOptimize(m.size());
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_MapInsert);

/// 20000 inserts into a std::unordered_map (rehashing, scattered buckets).
void BM_UnorderedMapInsert(benchmark::State& state) {
  for (auto _ : state) {
    uint64_t seed = 11;
    std::unordered_map<uint64_t, uint64_t> m;
    for (int i = 0; i < 20000; ++i) m.emplace(SplitMix64(&seed), i);
    benchmark::DoNotOptimize(m.size());
  }
  state.SetItemsProcessed(state.iterations() * 20000);
}
BENCHMARK(BM_UnorderedMapInsert);

/// std::sort of 1M ints (a fresh copy of the same shuffled input each time;
/// the 4 MB copy is part of the measured time).
void BM_Sort1M(benchmark::State& state) {
  static const std::vector<int> input = [] {
    std::vector<int> v(1 << 20);
    uint64_t seed = 3;
    for (int& x : v) x = static_cast<int>(SplitMix64(&seed) >> 33);
    return v;
  }();
  std::vector<int> work(input.size());
  for (auto _ : state) {
    std::copy(input.begin(), input.end(), work.begin());
    std::sort(work.begin(), work.end());
    benchmark::DoNotOptimize(work.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(input.size()));
}
BENCHMARK(BM_Sort1M)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// Memory-bound, milliseconds. Buffers live for the process (allocated on first use).

constexpr size_t kStreamBytes = 64 * kMiB;

/// Copies 64 MiB into another 64 MiB buffer (streams through DRAM).
void BM_StreamCopy(benchmark::State& state) {
  static char* src = MapBuffer(kStreamBytes, false);
  static char* dst = MapBuffer(kStreamBytes, false);
  for (auto _ : state) {
    std::memcpy(dst, src, kStreamBytes);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(2 * kStreamBytes));
}
BENCHMARK(BM_StreamCopy)->Unit(benchmark::kMillisecond);

/// STREAM triad a = b + s*c over three arrays of 32 MiB (McCalpin's STREAM).
void BM_StreamTriad(benchmark::State& state) {
  constexpr size_t n = 32 * kMiB / sizeof(double);
  static auto* a = reinterpret_cast<double*>(MapBuffer(n * sizeof(double), false));
  static auto* b = reinterpret_cast<double*>(MapBuffer(n * sizeof(double), false));
  static auto* c = reinterpret_cast<double*>(MapBuffer(n * sizeof(double), false));
  double s = 1.5;
  for (auto _ : state) {
    benchmark::DoNotOptimize(s);
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    benchmark::DoNotOptimize(a);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(3 * n * sizeof(double)));
}
BENCHMARK(BM_StreamTriad)->Unit(benchmark::kMillisecond);

constexpr size_t kChaseBytes = 64 * kMiB;
constexpr int kChaseHops = 1 << 14;

/// 16384 dependent loads along a chain built by BuildChase: walks on from
/// where the previous iteration stopped.
void Chase(benchmark::State& state, char* start) {
  char* p = start;
  for (auto _ : state) {
    for (int i = 0; i < kChaseHops; ++i) std::memcpy(&p, p, sizeof p);
    benchmark::DoNotOptimize(p);
  }
}

/// Anonymous memory with the system's default backing (with transparent huge
/// pages in "madvise" or "never" mode: 4 KiB pages), touched.
char* MapDefault(size_t bytes) {
  void* raw = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    std::perror("noise_bench: mmap");
    std::exit(3);
  }
  std::memset(raw, 1, bytes);
  return static_cast<char*>(raw);
}

/// Random chase over every cache line of 64 MiB, default backing: each hop
/// misses the caches (a DRAM latency test).
void BM_PointerChase(benchmark::State& state) {
  static char* base = [] {
    char* b = MapDefault(kChaseBytes);
    BuildChase(b, kChaseBytes, kCacheLine);
    return b;
  }();
  Chase(state, base);
}
BENCHMARK(BM_PointerChase)->Unit(benchmark::kMillisecond);

/// Random chase over one cache line per 4 KiB page of 64 MiB, default
/// backing: 16384 lines (1 MiB) fit the caches, but with 4 KiB pages each hop
/// needs a translation the TLBs do not hold (a page-walk latency test).
void BM_TlbChase(benchmark::State& state) {
  static char* base = [] {
    char* b = MapDefault(kChaseBytes);
    BuildChase(b, kChaseBytes, kPage);
    return b;
  }();
  Chase(state, base);
}
BENCHMARK(BM_TlbChase)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------
// Bimodal across processes: the page-size lottery.
//
// BM_TlbChaseThpLottery is BM_TlbChase over a buffer whose backing is decided
// once per process, at start-up, by a coin drawn from the clock and the
// address ASLR gave a stack variable: heads asks for transparent huge pages
// (madvise MADV_HUGEPAGE), tails forbids them (MADV_NOHUGEPAGE). Nothing in
// the timed loop differs between the two. With 2 MiB pages the 64 MiB buffer
// needs 32 TLB entries, which the first-level data TLB holds; with 4 KiB
// pages it needs 16384, far more than the second-level TLB holds, so every
// hop walks the page table (under virtualization a two-dimensional walk
// through the guest's and the host's tables). The data touched (1 MiB) stays
// in the caches either way, so the walk is what the time measures. The
// process is the unit: all repetitions of one process share its backing, and
// within-process scatter says nothing of it.
// In real programs the same split comes from allocation history, memory
// fragmentation (the kernel finds no free 2 MiB page) or khugepaged timing;
// the coin makes it frequent enough to see in a corpus of 40 processes. The
// draw and the huge-page KiB the kernel actually granted are written into the
// JSON context ("thp_lottery", "anon_huge_kib").
// NOISE_BENCH_THP=huge|small overrides the coin (for checking the mechanism).

char* g_lottery = nullptr;

void BM_TlbChaseThpLottery(benchmark::State& state) { Chase(state, g_lottery); }
BENCHMARK(BM_TlbChaseThpLottery)->Unit(benchmark::kMillisecond);

bool DrawHugeCoin() {
  if (const char* force = std::getenv("NOISE_BENCH_THP")) return std::string_view(force) == "huge";
  int on_stack = 0;
  uint64_t state = static_cast<uint64_t>(
                       std::chrono::steady_clock::now().time_since_epoch().count()) ^
                   reinterpret_cast<uintptr_t>(&on_stack);
  return SplitMix64(&state) & 1;
}

void SetUpLottery() {
  const bool huge = DrawHugeCoin();
  const long before = AnonHugeKiB();
  g_lottery = MapBuffer(kChaseBytes, huge);
  BuildChase(g_lottery, kChaseBytes, kPage);
  const long after = AnonHugeKiB();
  benchmark::AddCustomContext("thp_lottery", huge ? "huge" : "small");
  benchmark::AddCustomContext("anon_huge_kib",
                              std::to_string(before < 0 || after < 0 ? -1 : after - before));
}

// ---------------------------------------------------------------------------
// The noisy neighbour: read-modify-write passes over a large buffer (memory
// bandwidth and last-level cache) with integer hashing in between (a busy
// core), until the time is up.

int RunNeighbour(double seconds, size_t mib) {
  const size_t n = mib * kMiB / sizeof(uint64_t);
  std::unique_ptr<uint64_t[]> buf(new uint64_t[n]());
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t seed = 5;
  while (std::chrono::steady_clock::now() < end) {
    for (size_t i = 0; i < n; i += 8) buf[i] += SplitMix64(&seed);
    benchmark::DoNotOptimize(buf.get());
  }
  return 0;
}

// Value of `--name=VALUE` in argv, or nullptr.
const char* FlagValue(int argc, char** argv, std::string_view name) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg(argv[i]);
    if (arg.size() > name.size() + 3 && arg.substr(0, 2) == "--" &&
        arg.substr(2, name.size()) == name && arg[2 + name.size()] == '=')
      return argv[i] + 3 + name.size();
  }
  return nullptr;
}

}  // namespace
}  // namespace gpugate

int main(int argc, char** argv) {
  if (const char* seconds = gpugate::FlagValue(argc, argv, "neighbour")) {
    const char* mib = gpugate::FlagValue(argc, argv, "neighbour_mib");
    return gpugate::RunNeighbour(std::atof(seconds), mib ? std::strtoul(mib, nullptr, 10) : 256);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gpugate::SetUpLottery();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
