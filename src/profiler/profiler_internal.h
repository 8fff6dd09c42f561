// The profiler's internal structures (per-thread buffers, operation slots),
// shared by profiler.cc, export.cc and the CUDA parts. Not installed API.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <gpugate/profiler.h>

namespace gpugate::detail {

/// Samples of one round of one operation, as one thread recorded them.
struct RoundSamples {
  uint64_t key = 0;  ///< scope rounds: the round number; Profile() rounds: kProfileRoundBit | sequence
  std::vector<double> samples;
};
inline constexpr uint64_t kProfileRoundBit = uint64_t{1} << 63;

/// Running statistics (Welford 1962) plus the samples kept for export.
struct OpStats {
  int64_t count = 0;
  double mean = 0, m2 = 0, total = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  void Add(double x) {
    ++count;
    total += x;
    const double delta = x - mean;
    mean += delta / static_cast<double>(count);
    m2 += delta * (x - mean);
    if (x < min) min = x;
    if (x > max) max = x;
  }
  /// Chan, Golub & LeVeque (1979): the pairwise combination of two Welford states.
  void Merge(const OpStats& o) {
    if (o.count == 0) return;
    if (count == 0) {
      *this = o;
      return;
    }
    const double n = static_cast<double>(count + o.count);
    const double delta = o.mean - mean;
    mean += delta * static_cast<double>(o.count) / n;
    m2 += o.m2 + delta * delta * static_cast<double>(count) * static_cast<double>(o.count) / n;
    count += o.count;
    total += o.total;
    if (o.min < min) min = o.min;
    if (o.max > max) max = o.max;
  }
};

/// One operation as one thread records it.
struct OpSlot {
  std::string name;
  ProfileBackend backend = ProfileBackend::kCpu;
  OpStats stats;
  int64_t kept = 0;
  int64_t refused = 0;  ///< values Record* was given that no results file holds
  int warmup = 0;
  std::vector<RoundSamples> rounds;
  std::vector<int64_t> memory;  ///< RecordMemorySeries readings
  bool is_memory = false;

  void Add(double seconds, uint64_t key, size_t cap) {
    stats.Add(seconds);
    if (static_cast<size_t>(kept) >= cap) return;
    if (rounds.empty() || rounds.back().key != key) rounds.push_back(RoundSamples{key, {}});
    rounds.back().samples.push_back(seconds);
    ++kept;
  }
  void Clear() {
    stats = OpStats{};
    kept = 0;
    refused = 0;
    warmup = 0;
    rounds.clear();
    memory.clear();
  }
};

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
struct NameEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept { return a == b; }
};
using SlotMap = std::unordered_map<std::string, std::unique_ptr<OpSlot>, NameHash, NameEq>;

/// One thread's operations in one profiler. Only the owning thread inserts
/// into the maps (under `mu`), so it may look up without the lock; every
/// change of a slot and every read by another thread holds `mu`.
struct ThreadBuffer {
  std::mutex mu;
  SlotMap cpu, cuda, memory;
  OpSlot* last = nullptr;  ///< the slot Slot() returned last (owner only): a loop's scope skips the hash

  SlotMap& Map(ProfileBackend backend) { return backend == ProfileBackend::kCuda ? cuda : cpu; }
  /// The slot of `name` (created under the lock on first use). Slots are
  /// never erased (Reset clears them), so pointers to them stay valid.
  OpSlot* Slot(std::string_view name, ProfileBackend backend) {
    if (last != nullptr && last->backend == backend && last->name == name) return last;
    SlotMap& map = Map(backend);
    if (auto it = map.find(name); it != map.end()) return last = it->second.get();
    auto slot = std::make_unique<OpSlot>();
    slot->name = std::string(name);
    slot->backend = backend;
    std::lock_guard<std::mutex> lock(mu);
    return last = map.emplace(slot->name, std::move(slot)).first->second.get();
  }
};

/// One operation merged over all threads (what summaries and exports read).
struct MergedOp {
  std::string name;
  ProfileBackend backend = ProfileBackend::kCpu;
  OpStats stats;
  int64_t kept = 0;
  int64_t refused = 0;
  int warmup = 0;
  std::vector<std::vector<double>> rounds;  ///< by round key
  bool is_memory = false;
  std::vector<int64_t> memory;
};

}  // namespace gpugate::detail

namespace gpugate {

namespace detail {
struct CudaState;  ///< pending CUDA scopes and an event pool (profiler_cuda.cc)
void DestroyCudaState(CudaState* state);
/// Records `pending`'s stop event on its stream and queues it
/// (profiler_cuda.cc). False, and the scope dropped, when a CUDA call failed:
/// recording the event, or a launch within the scope that failed before it
/// started (reported only as the runtime's last error).
bool FinishCuda(CudaPending* pending) noexcept;
/// NVTX range push/pop (nvtx_cuda.cc; no-ops without CUDA).
void NvtxPush(const char* name) noexcept;
void NvtxPop() noexcept;
}  // namespace detail

struct Profiler::State {
  ProfilerOptions options;
  uint64_t id = 0;  ///< unique per profiler in the process, never reused
  std::mutex mu;    ///< guards `buffers` and `by_thread`
  std::vector<std::unique_ptr<detail::ThreadBuffer>> buffers;
  std::unordered_map<std::thread::id, detail::ThreadBuffer*> by_thread;
  std::atomic<uint64_t> profile_rounds{0};
  std::unique_ptr<detail::CudaState, void (*)(detail::CudaState*)> cuda{nullptr, &detail::DestroyCudaState};

  /// This thread's buffer (a thread-local cache of the last few profilers).
  detail::ThreadBuffer& Buffer();
  /// Every operation merged over the threads, in no particular order.
  std::vector<detail::MergedOp> Merge();
};

}  // namespace gpugate
