// ScopeCuda's handling of the CUDA runtime (src/profiler/profiler_cuda.cc),
// checked on the CPU: the real profiler library linked against a stand-in
// for the few runtime calls it makes, which keeps the runtime's documented
// last-error rules (a failing call sets the thread's last error,
// cudaEventQuery's cudaErrorNotReady included; cudaGetLastError reads and
// resets it) and its device rules (an event belongs to the device current
// when it was made; cudaEventRecord needs the event and the stream on one
// device). No time is measured: what is checked is which scopes are kept,
// how many events are made, and what the program's last error is after.
// Usage: profiler_cuda_standin (exit 0 when every check holds).
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gpugate/profiler.h>

#include <cstdio>
#include <string>

struct CUevent_st {
  int device;
  bool recorded;
};
struct CUstream_st {
  int device;
};

namespace {

thread_local cudaError_t g_last = cudaSuccess;
thread_local int g_device = 0;
bool g_work_done = true;  // whether recorded events have completed
long g_made = 0, g_bad_records = 0;

cudaError_t Fails(cudaError_t e) {
  g_last = e;
  return e;
}

int DeviceOf(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ? g_device : s->device;
}

CUresult DriverEventQuery(CUevent e) {
  return !e->recorded || g_work_done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;  // no runtime error
}

}  // namespace

extern "C" {
cudaError_t cudaGetLastError(void) {
  const cudaError_t e = g_last;
  g_last = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return g_last; }
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 2;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  *d = g_device;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d > 1) return Fails(cudaErrorInvalidDevice);
  g_device = d;
  return cudaSuccess;
}
cudaError_t cudaStreamGetDevice(cudaStream_t s, int* d) {
  if (s->device < 0 || s->device > 1) return Fails(cudaErrorInvalidResourceHandle);
  *d = s->device;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new CUevent_st{g_device, false};
  ++g_made;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (e == nullptr || e->device != DeviceOf(s)) {
    ++g_bad_records;
    return Fails(cudaErrorInvalidResourceHandle);
  }
  e->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
  return !e->recorded || g_work_done ? cudaSuccess : Fails(cudaErrorNotReady);
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.5f;
  return cudaSuccess;
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  const bool known = std::string(symbol) == "cuEventQuery";
  *fn = known ? reinterpret_cast<void*>(&DriverEventQuery) : nullptr;
  *status = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  *free_bytes = 1;
  *total_bytes = 2;
  return cudaSuccess;
}
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    default: return "another error";
  }
}
const char* cudaGetErrorString(cudaError_t e) { return cudaGetErrorName(e); }
}  // extern "C"

namespace {

int g_failed = 0;

void Expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok:    " : "FAILED:", what.c_str());
  if (!ok) ++g_failed;
}

int64_t Count(gpugate::Profiler& p, const std::string& name) {
  for (const gpugate::OperationStats& op : p.Operations())
    if (op.name == name) return op.count;
  return 0;
}

std::string Last() { return cudaGetErrorName(cudaPeekAtLastError()); }

}  // namespace

int main() {
  gpugate::ProfilerOptions options;
  options.nvtx = false;
  {
    // Scopes still running when the next begins: their cudaErrorNotReady is
    // neither left for the program nor a reason to drop the next scope.
    gpugate::Profiler p(options);
    g_work_done = false;
    for (int i = 0; i < 3; ++i) gpugate::ProfileScope s = p.ScopeCuda("busy", nullptr);
    Expect(cudaPeekAtLastError() == cudaSuccess, "running scopes leave no error for the program: " + Last());
    Expect(p.cuda_errors() == 0, "no running scope dropped: " + std::to_string(p.cuda_errors()));
    g_work_done = true;
    p.Synchronize();
    Expect(Count(p, "busy") == 3, "3 running scopes timed: " + std::to_string(Count(p, "busy")));
  }
  {
    // The program left an error unread (it checked a return code itself):
    // completed scopes are still read as they complete, and the error stays.
    gpugate::Profiler p(options);
    cudaSetDevice(7);
    const long made = g_made;
    for (int i = 0; i < 10000; ++i) gpugate::ProfileScope s = p.ScopeCuda("done", nullptr);
    Expect(g_made - made <= 8, "with an unread error 10,000 completed scopes made " +
                                   std::to_string(g_made - made) + " events (their pool reuses them)");
    p.Synchronize();
    Expect(cudaPeekAtLastError() == cudaErrorInvalidDevice, "the program's error stays: " + Last());
    Expect(Count(p, "done") == 10000, "every scope timed: " + std::to_string(Count(p, "done")));
    cudaGetLastError();
  }
  {
    // Streams of two devices, and the default streams, whichever is current.
    gpugate::Profiler p(options);
    CUstream_st zero{0}, one{1};
    for (int i = 0; i < 40; ++i) {
      if (i == 20) cudaSetDevice(1);
      { gpugate::ProfileScope s = p.ScopeCuda("device0", &zero); }
      { gpugate::ProfileScope s = p.ScopeCuda("device1", &one); }
      { gpugate::ProfileScope s = p.ScopeCuda("legacy", cudaStreamLegacy); }
      { gpugate::ProfileScope s = p.ScopeCuda("per-thread", cudaStreamPerThread); }
    }
    p.Synchronize();
    int current = -1;
    cudaGetDevice(&current);
    Expect(g_bad_records == 0 && p.cuda_errors() == 0,
           "no event recorded on another device's stream: " + std::to_string(g_bad_records));
    Expect(current == 1, "the current device is left as it was: " + std::to_string(current));
    Expect(Count(p, "device0") == 40 && Count(p, "device1") == 40 && Count(p, "legacy") == 40 &&
               Count(p, "per-thread") == 40,
           "every scope of both devices timed");
    Expect(cudaPeekAtLastError() == cudaSuccess, "no error left: " + Last());
    cudaSetDevice(0);
  }
  return g_failed == 0 ? 0 : 1;
}
