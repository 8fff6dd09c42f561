// The profiler's CUDA parts (built with GPUGATE_PROFILER_CUDA=1): scopes
// timed with CUDA events on a stream, NVTX ranges around scopes and the
// device memory sampler. Host code only (no kernels), compiled as C++.
// Not verified on a device on the machine this was written on (no GPU):
// it compiles and links; tests that need a device carry the ctest label gpu.
#include <gpugate/profiler.h>

#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <iterator>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "profiler/profiler_internal.h"

namespace gpugate {
namespace detail {

struct CudaPending {
  Profiler* profiler = nullptr;
  CudaState* state = nullptr;
  OpSlot* slot = nullptr;
  ThreadBuffer* buffer = nullptr;
  cudaStream_t stream = nullptr;
  int device = 0;  ///< the stream's device: its events were created there
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  cudaError_t error_before = cudaSuccess;  ///< the thread's last error when the scope began
  uint64_t round = 0;
  size_t cap = 0;
};

// cuEventQuery, found through the runtime's driver entry point (the
// profiler does not link libcuda). The driver API leaves the runtime's last
// error alone; cudaEventQuery reports a scope still running as
// cudaErrorNotReady and keeps that as the thread's last error.
using EventQueryFn = CUresult (*)(CUevent);
EventQueryFn DriverEventQuery() {
  static const EventQueryFn fn = [] {
    const bool clean = cudaPeekAtLastError() == cudaSuccess;
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuEventQuery", &entry, 12000, cudaEnableDefault, &status);
    if (e != cudaSuccess && clean) cudaGetLastError();  // the lookup's own error
    return e == cudaSuccess && status == cudaDriverEntryPointSuccess ? reinterpret_cast<EventQueryFn>(entry)
                                                                     : nullptr;
  }();
  return fn;
}

// Whether `event` has completed, leaving the runtime's last error as the
// program left it: through the driver's cuEventQuery. Without that entry the
// runtime's query is used, its cudaErrorNotReady cleared; with an error of
// the program pending it is then not queried at all (the query would replace
// it), and the scope is read later (Synchronize).
bool EventDone(cudaEvent_t event) {
  if (EventQueryFn query = DriverEventQuery()) return query(event) == CUDA_SUCCESS;
  if (cudaPeekAtLastError() != cudaSuccess) return false;
  const cudaError_t got = cudaEventQuery(event);
  if (got != cudaSuccess) cudaGetLastError();  // the query's own error
  return got == cudaSuccess;
}

// The device of `stream`: cudaEventRecord needs the event and the stream on
// one device (context), and an event belongs to the device current when it
// was created. The legacy and per-thread default streams are the current
// device's.
cudaError_t StreamDevice(cudaStream_t stream, int* device) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return cudaGetDevice(device);
  return cudaStreamGetDevice(stream, device);  // CUDA 12.8 and later; gpugate builds with 13
}

// Scopes whose stop event is recorded but not yet read, and events to reuse,
// one pool per device.
struct CudaState {
  std::mutex mu;
  /// Stop recorded, not yet read: one queue per (device, stream), in the
  /// order the stream completes them, so that a scope still running on one
  /// stream does not hold back the finished scopes of the others.
  std::map<std::pair<int, cudaStream_t>, std::deque<CudaPending*>> queued;
  std::map<int, std::vector<cudaEvent_t>> free_events;

  ~CudaState() {
    for (auto& [stream, pending] : queued)
      for (CudaPending* p : pending) {
        cudaEventDestroy(p->start);
        cudaEventDestroy(p->stop);
        delete p;
      }
    for (auto& [device, events] : free_events)
      for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
  /// An event of `device`: a free one, or one created with `device` current
  /// (the caller's current device is restored).
  cudaError_t TakeEvent(int device, cudaEvent_t* event) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = free_events.find(device);
      if (it != free_events.end() && !it->second.empty()) {
        *event = it->second.back();
        it->second.pop_back();
        return cudaSuccess;
      }
    }
    int current = 0;
    cudaError_t err = cudaGetDevice(&current);
    if (err != cudaSuccess) return err;
    if (current == device) return cudaEventCreate(event);
    err = cudaSetDevice(device);
    if (err == cudaSuccess) err = cudaEventCreate(event);
    const cudaError_t back = cudaSetDevice(current);
    return err != cudaSuccess ? err : back;
  }
  void GiveBack(int device, cudaEvent_t event) {
    if (event == nullptr) return;
    std::lock_guard<std::mutex> lock(mu);
    free_events[device].push_back(event);
  }
  /// Records the pending scopes whose events completed (the completed front
  /// of each stream's queue); with `wait`, waits for all of them.
  void Drain(bool wait) {
    std::vector<CudaPending*> ready;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = queued.begin(); it != queued.end();) {
        std::deque<CudaPending*>& pending = it->second;
        while (!pending.empty() && (wait || EventDone(pending.front()->stop))) {
          ready.push_back(pending.front());
          pending.pop_front();
        }
        it = pending.empty() ? queued.erase(it) : std::next(it);
      }
    }
    for (CudaPending* p : ready) {
      float ms = 0;
      cudaError_t err = cudaEventSynchronize(p->stop);
      if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, p->start, p->stop);
      if (err == cudaSuccess && ms >= 0) {
        std::lock_guard<std::mutex> lock(p->buffer->mu);
        p->slot->Add(static_cast<double>(ms) * 1e-3, p->round, p->cap);
      }
      GiveBack(p->device, p->start);
      GiveBack(p->device, p->stop);
      delete p;
    }
  }
};

void DestroyCudaState(CudaState* state) { delete state; }

bool FinishCuda(CudaPending* pending) noexcept {
  // A launch in the scope that failed before it started left only the last
  // error (peeked, not cleared: it stays the program's to see); the events
  // would time nothing. An error the program had left before the scope
  // began is not the scope's.
  const cudaError_t now = cudaPeekAtLastError();
  const bool launch_failed = now != cudaSuccess && now != pending->error_before;
  if (launch_failed || cudaEventRecord(pending->stop, pending->stream) != cudaSuccess) {
    if (!launch_failed && now == cudaSuccess) cudaGetLastError();  // the record's own error
    pending->state->GiveBack(pending->device, pending->start);
    pending->state->GiveBack(pending->device, pending->stop);
    delete pending;
    return false;
  }
  std::lock_guard<std::mutex> lock(pending->state->mu);
  pending->state->queued[{pending->device, pending->stream}].push_back(pending);
  return true;
}

void NvtxPush(const char* name) noexcept { nvtxRangePushA(name); }
void NvtxPop() noexcept { nvtxRangePop(); }

}  // namespace detail

ProfileScope Profiler::BeginCuda(std::string_view name, CUstream_st* stream) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->cuda) state_->cuda.reset(new detail::CudaState());
  }
  detail::CudaState& cuda = *state_->cuda;
  cuda.Drain(/*wait=*/false);  // bounds the queue without waiting
  auto* pending = new detail::CudaPending();
  pending->profiler = this;
  pending->state = &cuda;
  pending->stream = stream;
  pending->round = round_.load(std::memory_order_relaxed);
  pending->cap = state_->options.max_samples_per_operation;
  pending->error_before = cudaPeekAtLastError();
  cudaError_t err = detail::StreamDevice(stream, &pending->device);
  if (err == cudaSuccess) err = cuda.TakeEvent(pending->device, &pending->start);
  if (err == cudaSuccess) err = cuda.TakeEvent(pending->device, &pending->stop);
  if (err == cudaSuccess) err = cudaEventRecord(pending->start, stream);
  if (err != cudaSuccess) {
    // Our call's error is cleared; one the program left is its to read.
    if (pending->error_before == cudaSuccess) cudaGetLastError();
    cuda.GiveBack(pending->device, pending->start);
    cuda.GiveBack(pending->device, pending->stop);
    delete pending;
    cuda_errors_.fetch_add(1, std::memory_order_relaxed);
    return ProfileScope{};
  }
  detail::ThreadBuffer& buffer = state_->Buffer();
  pending->slot = buffer.Slot(name, ProfileBackend::kCuda);
  pending->buffer = &buffer;
  ProfileScope scope;
  scope.profiler_ = this;
  scope.slot_ = pending->slot;
  scope.buffer_ = &buffer;
  scope.cuda_ = pending;
  if (state_->options.nvtx) detail::NvtxPush(pending->slot->name.c_str());
  return scope;
}

void Profiler::Synchronize() {
  detail::CudaState* cuda = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    cuda = state_->cuda.get();
  }
  if (cuda != nullptr) cuda->Drain(/*wait=*/true);
}

// ---- GpuMemorySampler --------------------------------------------------------

struct GpuMemorySampler::State {
  mutable std::mutex mu;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;
  std::vector<Reading> readings;
  int64_t peak = 0;
  int device = 0;
};

GpuMemorySampler::GpuMemorySampler() : state_(std::make_unique<State>()) {}
GpuMemorySampler::~GpuMemorySampler() { Stop(); }

namespace {
bool ReadUsed(int64_t* used) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return false;
  *used = static_cast<int64_t>(total_bytes - free_bytes);
  return true;
}
}  // namespace

bool GpuMemorySampler::Start(std::chrono::milliseconds interval, std::string* error) {
  State& s = *state_;
  if (s.thread.joinable()) {
    if (error != nullptr) *error = "the sampler already runs";
    return false;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (error != nullptr) *error = "no CUDA device";
    return false;
  }
  if (cudaGetDevice(&s.device) != cudaSuccess) {
    if (error != nullptr) *error = "no current CUDA device";
    return false;
  }
  s.stop = false;
  const auto start = std::chrono::steady_clock::now();
  s.thread = std::thread([&s, interval, start] {
    cudaSetDevice(s.device);
    std::unique_lock<std::mutex> lock(s.mu);
    for (;;) {
      // A reading every interval, and a last one after Stop().
      lock.unlock();
      int64_t used = 0;
      const bool ok = ReadUsed(&used);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      lock.lock();
      if (ok) {
        s.readings.push_back(Reading{t, used});
        s.peak = std::max(s.peak, used);
      }
      if (s.stop) return;
      s.wake.wait_for(lock, interval, [&s] { return s.stop; });
    }
  });
  return true;
}

void GpuMemorySampler::Stop() {
  State& s = *state_;
  if (!s.thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stop = true;
  }
  s.wake.notify_all();
  s.thread.join();
}

std::vector<GpuMemorySampler::Reading> GpuMemorySampler::Readings() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->readings;
}

int64_t GpuMemorySampler::PeakUsedBytes() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->peak;
}

void GpuMemorySampler::ExportTo(Profiler& profiler, std::string_view name) const {
  std::vector<int64_t> used;
  for (const Reading& r : Readings()) used.push_back(r.used_bytes);
  if (!used.empty()) profiler.RecordMemorySeries(name, used);
}

}  // namespace gpugate
