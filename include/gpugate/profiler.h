// gpugate's in-process profiler: mark regions of your own code, get a
// per-operation summary and a gpugate results file (`gpugate/results/v1`)
// that `gpugate compare` judges. docs/profiler.md.
//
//   gpugate::Profiler profiler;
//   { auto s = profiler.Scope("matmul"); Matmul(a, b); }
//   profiler.Profile("fft", [&] { Fft(x); }, {.warmup = 3, .iterations = 20});
//   profiler.PrintSummary(std::cout);
//   profiler.WriteResults("profile.json");
//
// This header is self-contained: it includes only the standard library. The
// CMake target gpugate::profiler links a small static library (no yaml-cpp,
// no Boost) and defines GPUGATE_PROFILER_CUDA=1 when it was built with CUDA,
// which declares ScopeCuda() and GpuMemorySampler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifndef GPUGATE_PROFILER_CUDA
#define GPUGATE_PROFILER_CUDA 0
#endif

#if GPUGATE_PROFILER_CUDA
// cudaStream_t is `struct CUstream_st*`; declared here so that this header
// does not need the CUDA headers.
struct CUstream_st;
#endif

namespace gpugate {

/// What Profile() runs: `warmup` untimed calls, then `iterations` timed calls,
/// each one sample. One Profile() call is one round of the operation.
struct ProfileOptions {
  int warmup = 0;
  int iterations = 1;
};

struct ProfilerOptions {
  /// A disabled profiler's scopes are a branch on a flag: no clock read, no
  /// allocation, nothing recorded.
  bool enabled = true;
  /// Samples kept for export, per operation and thread; statistics (count,
  /// total, mean, min, max, stddev) include every sample regardless.
  size_t max_samples_per_operation = 100000;
  /// With CUDA (GPUGATE_PROFILER_CUDA): an NVTX range around every scope.
  bool nvtx = true;
  /// The results file's `run.suite`.
  std::string suite = "profile";
};

enum class ProfileBackend { kCpu, kCuda };

/// One operation's statistics over all its samples (all threads), seconds.
struct OperationStats {
  std::string name;            ///< as given to Scope() (raw, not escaped)
  ProfileBackend backend = ProfileBackend::kCpu;
  int64_t count = 0;
  double total = 0, mean = 0, min = 0, max = 0;
  double stddev = 0;           ///< sample standard deviation (n - 1); 0 for one sample
  int64_t samples_kept = 0;    ///< samples held for export (see max_samples_per_operation)
};

class Profiler;

namespace detail {
struct OpSlot;
struct ThreadBuffer;
struct CudaPending;
}  // namespace detail

/// RAII region: records the time from its creation to its destruction (or
/// Stop()) into its profiler. Inactive (records nothing) when the profiler
/// was disabled at creation. Movable, not copyable; the profiler must outlive it.
class ProfileScope {
 public:
  ProfileScope() noexcept = default;
  ProfileScope(ProfileScope&& other) noexcept
      : profiler_(std::exchange(other.profiler_, nullptr)),
        slot_(other.slot_),
        buffer_(other.buffer_),
        cuda_(other.cuda_),
        start_(other.start_) {}
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;
  ProfileScope& operator=(ProfileScope&&) = delete;
  ~ProfileScope() {
    if (profiler_ != nullptr) Finish();
  }
  /// Ends the region now; the destructor then records nothing.
  void Stop() noexcept {
    if (profiler_ != nullptr) Finish();
  }
  /// True when this scope will record a sample.
  bool active() const noexcept { return profiler_ != nullptr; }

 private:
  friend class Profiler;
  void Finish() noexcept;

  Profiler* profiler_ = nullptr;
  detail::OpSlot* slot_ = nullptr;
  detail::ThreadBuffer* buffer_ = nullptr;
  detail::CudaPending* cuda_ = nullptr;
  std::chrono::steady_clock::time_point start_{};
};

/// Collects timed samples per named operation. Thread safety: every member
/// function may be called from any thread at any time. Each thread records
/// into its own buffer (a mutex per buffer that only readers contend for);
/// Operations(), PrintSummary() and the exports merge the buffers.
class Profiler {
 public:
  Profiler() : Profiler(ProfilerOptions{}) {}
  explicit Profiler(ProfilerOptions options);
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  bool enabled() const noexcept { return enabled_.load(std::memory_order_relaxed); }
  /// Scopes created after the call follow the new state.
  void SetEnabled(bool enabled) noexcept { enabled_.store(enabled, std::memory_order_relaxed); }

  /// A scope timing the region until it is destroyed. `name` may be any text
  /// (it is escaped in every output); it is copied once per thread and name.
  [[nodiscard]] ProfileScope Scope(std::string_view name) {
    if (!enabled()) return ProfileScope{};
    return Begin(name);
  }

#if GPUGATE_PROFILER_CUDA
  /// A scope timed with CUDA events recorded on `stream` (a cudaStream_t;
  /// nullptr is the default stream): device time of the work enqueued on
  /// the stream inside the region. The host does not wait: samples are
  /// collected when the events complete (at the latest by Synchronize() and
  /// every read). A CUDA error (no device) leaves the scope inactive and is
  /// counted (cuda_errors()).
  [[nodiscard]] ProfileScope ScopeCuda(std::string_view name, CUstream_st* stream) {
    if (!enabled()) return ProfileScope{};
    return BeginCuda(name, stream);
  }
#endif

  /// Runs `fn` options.warmup times untimed, then options.iterations times,
  /// each call one sample; these samples form one new round of `name`.
  /// Disabled, `fn` still runs warmup + iterations times, untimed.
  template <class Fn>
  void Profile(std::string_view name, Fn&& fn, ProfileOptions options = {}) {
    for (int i = 0; i < options.warmup; ++i) fn();
    if (!enabled()) {
      for (int i = 0; i < options.iterations; ++i) fn();
      return;
    }
    std::vector<double> samples;
    samples.reserve(options.iterations > 0 ? static_cast<size_t>(options.iterations) : 0);
    for (int i = 0; i < options.iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      fn();
      const auto stop = std::chrono::steady_clock::now();
      samples.push_back(std::chrono::duration<double>(stop - start).count());
    }
    RecordRound(name, samples, options.warmup);
  }

  /// Adds one sample (seconds) to `name` in the current round.
  void Record(std::string_view name, double seconds, ProfileBackend backend = ProfileBackend::kCpu);
  /// Adds `samples` (seconds) to `name` as one new round.
  void RecordRound(std::string_view name, const std::vector<double>& samples, int warmup = 0,
                   ProfileBackend backend = ProfileBackend::kCpu);
  /// Adds a series of device memory readings (bytes in use, in time order)
  /// exported as a workload of metric "used_bytes" (GpuMemorySampler).
  void RecordMemorySeries(std::string_view name, const std::vector<int64_t>& used_bytes);

  /// Scope samples recorded after this call belong to a new round (e.g. one
  /// round per epoch or outer iteration). Without it, all scope samples of
  /// an operation are one round.
  void NextRound() noexcept { round_.fetch_add(1, std::memory_order_relaxed); }

  /// Waits for pending CUDA scopes and records them (no-op without CUDA).
  void Synchronize();

  /// Every operation, largest total time first (ties by name).
  std::vector<OperationStats> Operations();
  /// The `n` operations with the largest total time: the bottlenecks.
  std::vector<OperationStats> TopN(size_t n);
  /// A table of the top `top_n` operations (count, total, mean, min, max,
  /// stddev, share of all profiled time); names escaped for a terminal.
  void PrintSummary(std::ostream& out, size_t top_n = 10);

  /// The recorded operations as a gpugate results document: each operation a
  /// workload (kind "profiler", backend "cpu" or "cuda") whose rounds hold
  /// its samples.
  std::string ResultsJson();
  /// Writes ResultsJson() to `path` atomically (temp file + rename). On
  /// failure returns false and sets *error.
  bool WriteResults(const std::string& path, std::string* error = nullptr);

  /// Forgets every sample; scopes still open record into the cleared state.
  void Reset();

  /// CUDA calls of ScopeCuda that failed (e.g. no device).
  int64_t cuda_errors() const noexcept { return cuda_errors_.load(std::memory_order_relaxed); }

 private:
  friend class ProfileScope;
  struct State;
  ProfileScope Begin(std::string_view name);
#if GPUGATE_PROFILER_CUDA
  ProfileScope BeginCuda(std::string_view name, CUstream_st* stream);
#endif
  void FinishScope(ProfileScope& scope) noexcept;

  std::atomic<bool> enabled_;
  std::atomic<uint64_t> round_{0};
  std::atomic<int64_t> cuda_errors_{0};
  std::unique_ptr<State> state_;
};

inline void ProfileScope::Finish() noexcept { profiler_->FinishScope(*this); }

/// The process-wide profiler, created on first use from the environment:
/// GPUGATE_PROFILE=1 enables it (disabled otherwise); GPUGATE_PROFILE_OUTPUT=PATH
/// writes its results file at exit (atomically). Other values of
/// GPUGATE_PROFILE leave it disabled with a warning on stderr.
Profiler& GlobalProfiler();

#if GPUGATE_PROFILER_CUDA
/// Samples device memory in use (total - free from cudaMemGetInfo) on a
/// background thread. Needs a CUDA device; Start() fails without one.
class GpuMemorySampler {
 public:
  struct Reading {
    double seconds = 0;       ///< since Start()
    int64_t used_bytes = 0;
  };
  GpuMemorySampler();
  ~GpuMemorySampler();  ///< stops the thread
  GpuMemorySampler(const GpuMemorySampler&) = delete;
  GpuMemorySampler& operator=(const GpuMemorySampler&) = delete;

  /// Starts sampling every `interval` on the current device. False (and
  /// *error set) when there is no device or sampling already runs.
  bool Start(std::chrono::milliseconds interval = std::chrono::milliseconds(10),
             std::string* error = nullptr);
  /// Stops sampling (takes a last reading).
  void Stop();
  std::vector<Reading> Readings() const;
  /// Largest used_bytes seen; 0 before the first reading.
  int64_t PeakUsedBytes() const;
  /// Records the readings into `profiler` as RecordMemorySeries(name, ...).
  void ExportTo(Profiler& profiler, std::string_view name = "gpu-memory") const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};
#endif

}  // namespace gpugate
