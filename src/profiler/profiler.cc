// The in-process profiler: per-thread buffers, scopes, merged statistics and
// the summary table (include/gpugate/profiler.h, docs/profiler.md).
#include <gpugate/profiler.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <ostream>
#include <tuple>

#include "model/limits.h"
#include "profiler/profiler_internal.h"
#include "util/text/escape.h"
#include "util/text/format.h"

namespace gpugate {
namespace {

std::atomic<uint64_t> g_next_profiler_id{1};

// The last few profilers this thread recorded into. Ids are never reused, so
// an entry of a destroyed profiler never matches a new one.
struct TlsEntry {
  uint64_t id = 0;
  detail::ThreadBuffer* buffer = nullptr;
};
constexpr int kTlsEntries = 4;
thread_local TlsEntry tls_cache[kTlsEntries];
thread_local int tls_next = 0;

}  // namespace

namespace detail {
#if !GPUGATE_PROFILER_CUDA
void DestroyCudaState(CudaState*) {}
bool FinishCuda(CudaPending*) noexcept { return true; }
void NvtxPush(const char*) noexcept {}
void NvtxPop() noexcept {}
#endif
}  // namespace detail

detail::ThreadBuffer& Profiler::State::Buffer() {
  for (const TlsEntry& e : tls_cache)
    if (e.id == id) return *e.buffer;
  detail::ThreadBuffer* buffer = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto [it, inserted] = by_thread.try_emplace(std::this_thread::get_id(), nullptr);
    if (inserted) {
      buffers.push_back(std::make_unique<detail::ThreadBuffer>());
      it->second = buffers.back().get();
    }
    buffer = it->second;
  }
  tls_cache[tls_next] = TlsEntry{id, buffer};
  tls_next = (tls_next + 1) % kTlsEntries;
  return *buffer;
}

std::vector<detail::MergedOp> Profiler::State::Merge() {
  // (backend or memory, name) -> merged operation; round key -> samples.
  std::map<std::tuple<int, std::string>, detail::MergedOp> ops;
  std::map<std::tuple<int, std::string>, std::map<uint64_t, std::vector<double>>> rounds;
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& buffer : buffers) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mu);
    for (const detail::SlotMap* map : {&buffer->cpu, &buffer->cuda, &buffer->memory}) {
      for (const auto& [name, slot] : *map) {
        const int kind = slot->is_memory ? 2 : static_cast<int>(slot->backend);
        const auto key = std::make_tuple(kind, name);
        detail::MergedOp& op = ops[key];
        op.name = name;
        op.backend = slot->backend;
        op.is_memory = slot->is_memory;
        op.stats.Merge(slot->stats);
        op.kept += slot->kept;
        op.refused += slot->refused;
        op.warmup = std::max(op.warmup, slot->warmup);
        op.memory.insert(op.memory.end(), slot->memory.begin(), slot->memory.end());
        auto& by_key = rounds[key];
        for (const detail::RoundSamples& r : slot->rounds) {
          auto& samples = by_key[r.key];
          samples.insert(samples.end(), r.samples.begin(), r.samples.end());
        }
      }
    }
  }
  std::vector<detail::MergedOp> out;
  out.reserve(ops.size());
  for (auto& [key, op] : ops) {
    if (op.stats.count == 0 && op.memory.empty()) continue;  // cleared by Reset()
    for (auto& [round_key, samples] : rounds[key])
      if (!samples.empty()) op.rounds.push_back(std::move(samples));
    out.push_back(std::move(op));
  }
  return out;
}

Profiler::Profiler(ProfilerOptions options)
    : enabled_(options.enabled), state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->id = g_next_profiler_id.fetch_add(1, std::memory_order_relaxed);
}

Profiler::~Profiler() = default;

ProfileScope Profiler::Begin(std::string_view name) {
  detail::ThreadBuffer& buffer = state_->Buffer();
  ProfileScope scope;
  scope.slot_ = buffer.Slot(name, ProfileBackend::kCpu);
  scope.buffer_ = &buffer;
  scope.profiler_ = this;
  if (GPUGATE_PROFILER_CUDA && state_->options.nvtx) detail::NvtxPush(scope.slot_->name.c_str());
  scope.start_ = std::chrono::steady_clock::now();
  return scope;
}

void Profiler::FinishScope(ProfileScope& scope) noexcept {
  if (scope.cuda_ != nullptr) {
    if (!detail::FinishCuda(scope.cuda_)) cuda_errors_.fetch_add(1, std::memory_order_relaxed);
  } else {
    const auto stop = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(stop - scope.start_).count();
    {
      std::lock_guard<std::mutex> lock(scope.buffer_->mu);
      scope.slot_->Add(seconds, round_.load(std::memory_order_relaxed),
                       state_->options.max_samples_per_operation);
    }
  }
  if (GPUGATE_PROFILER_CUDA && state_->options.nvtx) detail::NvtxPop();
  scope.profiler_ = nullptr;
  scope.cuda_ = nullptr;
}

namespace {

// A time a results file holds: finite, not negative and below 1e9 s (31
// years; nanoseconds passed as seconds reach it). Below 1e-15 s is raised
// when written (export.cc).
bool RecordableSeconds(double seconds) { return std::isfinite(seconds) && seconds >= 0 && seconds < kMaxTimeSeconds; }

}  // namespace

void Profiler::Record(std::string_view name, double seconds, ProfileBackend backend) {
  if (!enabled()) return;
  detail::ThreadBuffer& buffer = state_->Buffer();
  detail::OpSlot* slot = buffer.Slot(name, backend);
  std::lock_guard<std::mutex> lock(buffer.mu);
  if (!RecordableSeconds(seconds)) {
    ++slot->refused;
    return;
  }
  slot->Add(seconds, round_.load(std::memory_order_relaxed), state_->options.max_samples_per_operation);
}

void Profiler::RecordRound(std::string_view name, const std::vector<double>& samples, int warmup,
                           ProfileBackend backend) {
  if (!enabled()) return;
  const uint64_t key =
      detail::kProfileRoundBit | state_->profile_rounds.fetch_add(1, std::memory_order_relaxed);
  detail::ThreadBuffer& buffer = state_->Buffer();
  detail::OpSlot* slot = buffer.Slot(name, backend);
  std::lock_guard<std::mutex> lock(buffer.mu);
  slot->warmup = std::max(slot->warmup, warmup);
  for (double s : samples) {
    if (RecordableSeconds(s)) slot->Add(s, key, state_->options.max_samples_per_operation);
    else ++slot->refused;
  }
}

void Profiler::RecordMemorySeries(std::string_view name, const std::vector<int64_t>& used_bytes) {
  if (!enabled()) return;
  detail::ThreadBuffer& buffer = state_->Buffer();
  detail::OpSlot* slot = nullptr;
  if (auto it = buffer.memory.find(name); it != buffer.memory.end()) {
    slot = it->second.get();
  } else {
    auto fresh = std::make_unique<detail::OpSlot>();
    fresh->name = std::string(name);
    fresh->backend = ProfileBackend::kCuda;
    fresh->is_memory = true;
    std::lock_guard<std::mutex> lock(buffer.mu);
    slot = buffer.memory.emplace(fresh->name, std::move(fresh)).first->second.get();
  }
  std::lock_guard<std::mutex> lock(buffer.mu);
  for (int64_t b : used_bytes) {
    if (b >= 0 && static_cast<double>(b) < kMaxMetricValue) slot->memory.push_back(b);
    else ++slot->refused;
  }
}

#if !GPUGATE_PROFILER_CUDA
void Profiler::Synchronize() {}
#endif

std::vector<OperationStats> Profiler::Operations() {
  Synchronize();
  std::vector<OperationStats> out;
  for (const detail::MergedOp& op : state_->Merge()) {
    if (op.is_memory) continue;
    OperationStats s;
    s.name = op.name;
    s.backend = op.backend;
    s.count = op.stats.count;
    s.total = op.stats.total;
    s.mean = op.stats.mean;
    s.min = op.stats.min;
    s.max = op.stats.max;
    s.stddev = op.stats.count > 1 ? std::sqrt(op.stats.m2 / static_cast<double>(op.stats.count - 1)) : 0.0;
    s.samples_kept = op.kept;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const OperationStats& a, const OperationStats& b) {
    if (a.total != b.total) return a.total > b.total;
    if (a.name != b.name) return a.name < b.name;
    return a.backend < b.backend;
  });
  return out;
}

std::vector<OperationStats> Profiler::TopN(size_t n) {
  std::vector<OperationStats> ops = Operations();
  if (ops.size() > n) ops.resize(n);
  return ops;
}

void Profiler::PrintSummary(std::ostream& out, size_t top_n) {
  const std::vector<OperationStats> ops = Operations();
  double all = 0;
  for (const OperationStats& s : ops) all += s.total;
  // A scope inside another counts in both: the sum and the shares are of
  // the operations' totals, not of the wall time profiled.
  out << "gpugate profile: " << ops.size() << (ops.size() == 1 ? " operation, " : " operations, ")
      << FormatDuration(all) << " summed over their totals (nested scopes count in each)";
  if (ops.size() > top_n) out << "; the top " << top_n << " by total time";
  out << "\n";
  if (cuda_errors() > 0) out << "  " << cuda_errors() << " CUDA scopes failed (no device?)\n";
  if (ops.empty()) return;
  // Names are untrusted text: shortened, then escaped (one printable line).
  std::vector<std::string> names;
  int name_width = 9;
  for (size_t i = 0; i < ops.size() && i < top_n; ++i) {
    std::string name = EscapeTerminal(ShortenText(ops[i].name, 48));
    if (ops[i].backend == ProfileBackend::kCuda) name += " [cuda]";
    name_width = std::max(name_width, DisplayWidth(name));
    names.push_back(std::move(name));
  }
  auto cell = [&out](const std::string& text, int width) { out << "  " << PadText(text, width, true); };
  out << "  " << PadText("operation", name_width);
  for (const char* h : {"count", "total", "mean", "min", "max", "stddev", "share"}) cell(h, 10);
  out << "\n";
  for (size_t i = 0; i < names.size(); ++i) {
    const OperationStats& s = ops[i];
    out << "  " << PadText(names[i], name_width);
    cell(std::to_string(s.count), 10);
    for (double v : {s.total, s.mean, s.min, s.max, s.stddev}) cell(FormatDuration(v), 10);
    char share[32];
    std::snprintf(share, sizeof share, "%.1f%%", all > 0 ? 100.0 * s.total / all : 0.0);
    cell(share, 10);
    out << "\n";
  }
}

void Profiler::Reset() {
  Synchronize();
  std::lock_guard<std::mutex> lock(state_->mu);
  for (const auto& buffer : state_->buffers) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mu);
    for (detail::SlotMap* map : {&buffer->cpu, &buffer->cuda, &buffer->memory})
      for (auto& [name, slot] : *map) slot->Clear();
  }
}

// ---- The process-wide profiler ---------------------------------------------

namespace {

struct GlobalConfig {
  bool enabled = false;
  std::string output;
};

GlobalConfig ReadEnvironment() {
  GlobalConfig config;
  const char* profile = std::getenv("GPUGATE_PROFILE");
  const char* output = std::getenv("GPUGATE_PROFILE_OUTPUT");
  const std::string value = profile != nullptr ? profile : "";
  if (value == "1") {
    config.enabled = true;
  } else if (!value.empty() && value != "0") {
    std::fprintf(stderr, "gpugate: warning: GPUGATE_PROFILE=%s is not 0 or 1; profiling stays off\n",
                 EscapeTerminal(value).c_str());
  }
  if (output != nullptr && *output != '\0') {
    if (config.enabled) {
      // Where the program was started: it is written at exit, after any
      // chdir the program made.
      std::error_code ec;
      const std::filesystem::path absolute = std::filesystem::absolute(output, ec);
      config.output = ec ? std::string(output) : absolute.string();
    }
    else
      std::fprintf(stderr, "gpugate: warning: GPUGATE_PROFILE_OUTPUT is set but GPUGATE_PROFILE is not 1: "
                           "nothing is profiled or written\n");
  }
  return config;
}

std::string& GlobalOutput() {
  static std::string output;
  return output;
}

void WriteGlobalAtExit() {
  std::string error;
  if (!GlobalProfiler().WriteResults(GlobalOutput(), &error))
    std::fprintf(stderr, "gpugate: error: GPUGATE_PROFILE_OUTPUT: %s\n", EscapeTerminalLines(error).c_str());
}

}  // namespace

Profiler& GlobalProfiler() {
  // Never destroyed: scopes in static destructors and other threads may
  // still use it while the process exits.
  static Profiler* const profiler = [] {
    const GlobalConfig config = ReadEnvironment();
    ProfilerOptions options;
    options.enabled = config.enabled;
    auto* p = new Profiler(options);
    if (!config.output.empty()) {
      GlobalOutput() = config.output;
      std::atexit(&WriteGlobalAtExit);
    }
    return p;
  }();
  return *profiler;
}

}  // namespace gpugate
