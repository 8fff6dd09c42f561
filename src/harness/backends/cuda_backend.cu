// Backend "cuda": the builtin kernels on the device, timed with CUDA events.
// Per sample, as nvbench's measure_cold: (cold L2) a scratch buffer of 2x L2
// is written; a one-thread blocking kernel holds the stream while the host
// queues a clock stamp, the start event, the kernel `iterations` times (up to
// the launch queue's depth), the stop event and a second clock stamp, so the
// start event is not recorded before the launches are queued; then the host
// releases it. The stamps (clock64() and %globaltimer) give the SM clock over
// the sample; a sample below 75% of the default clock is throttled: dropped,
// counted, and measured again after a recovery pause (cuda_support.h). Each
// kept sample carries its clock, so the runner stores its cycle-space time.
// Before each round a one-thread kernel reads %globaltimer and clock64()
// around a ~1 ms spin as well; NVML (dlopen'ed, optional) adds temperature,
// power and throttle reasons. Work counts follow the CPU kernels' convention
// (cpu_kernels.h). Not verified on a device in this version (docs/harness.md).
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "config/builtin_kernels.h"
#include "harness/backends/cpu_kernels.h"
#include "harness/backends/cuda_backend.h"
#include "harness/backends/cuda_support.h"
#include "metrics/range_profiler.h"

namespace gpugate {

namespace {

// ---------------------------------------------------------------------------
// Errors and RAII

std::string CudaMessage(cudaError_t e, const char* what) {
  return std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e);
}

#define GPUGATE_CUDA_TRY(call)                                   \
  do {                                                           \
    cudaError_t gpugate_err_ = (call);                           \
    if (gpugate_err_ != cudaSuccess) return ToolError(CudaMessage(gpugate_err_, #call)); \
  } while (0)

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  Status Allocate(size_t bytes) {
    cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      return ToolError(CudaMessage(e, "cudaMalloc") + " (" + std::to_string(bytes) + " bytes)");
    }
    bytes_ = bytes;
    return Status::Ok();
  }
  float* f() const { return static_cast<float*>(ptr_); }
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Event {
 public:
  Event() { ok_ = cudaEventCreate(&e_) == cudaSuccess; }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (ok_) cudaEventDestroy(e_);
  }
  bool ok() const { return ok_; }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
  bool ok_ = false;
};

class Stream {
 public:
  Stream() { ok_ = cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking) == cudaSuccess; }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (ok_) cudaStreamDestroy(s_);
  }
  bool ok() const { return ok_; }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
  bool ok_ = false;
};

// ---------------------------------------------------------------------------
// Device kernels (same names and work as the CPU kernels)

__global__ void CopyKernel(const float* __restrict__ src, float* __restrict__ dst, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

__global__ void TriadKernel(float* __restrict__ a, const float* __restrict__ b,
                            const float* __restrict__ c, float s, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    a[i] = b[i] + s * c[i];
}

__global__ void SaxpyKernel(float a, const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

constexpr int kThreads = 256;

// Pass 1: each block sums a grid-stride slice into partials[blockIdx.x].
// Pass 2 (one block): sums the partials. Deterministic order on a device.
__global__ void ReducePartialKernel(const float* __restrict__ x, float* __restrict__ partials, int64_t n) {
  __shared__ float shared[kThreads];
  float acc = 0.0f;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    acc += x[i];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

__global__ void ReduceFinalKernel(const float* __restrict__ partials, float* __restrict__ out, int count) {
  __shared__ float shared[kThreads];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = shared[0];
}

// One thread per C element, k innermost (i-j-k); reads of A are broadcast
// within a warp, reads of B are coalesced across j.
__global__ void SgemmNaiveKernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ c, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[static_cast<int64_t>(i) * n + k] * b[static_cast<int64_t>(k) * n + j];
  c[static_cast<int64_t>(i) * n + j] = acc;
}

constexpr int kTile = 16;

// Shared-memory tiled: each block stages kTile x kTile tiles of A and B.
__global__ void SgemmBlockedKernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  const int j = blockIdx.x * kTile + threadIdx.x;
  const int i = blockIdx.y * kTile + threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (i < n && ka < n) ? a[static_cast<int64_t>(i) * n + ka] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = (kb < n && j < n) ? b[static_cast<int64_t>(kb) * n + j] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (i < n && j < n) c[static_cast<int64_t>(i) * n + j] = acc;
}

// Reads the SM cycle counter and the global nanosecond timer around a spin
// of `spin_ns`, on one thread.
__global__ void ClockProbeKernel(long long spin_ns, long long* out) {
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (static_cast<long long>(t1 - t0) < spin_ns);
  const long long c1 = clock64();
  out[0] = c1 - c0;
  out[1] = static_cast<long long>(t1 - t0);
}

// Holds the stream until the host sets *release (nvbench's blocking kernel),
// or until `timeout_ns` pass; then sets *timed_out.
__global__ void BlockingKernel(const volatile int* release, long long timeout_ns, volatile int* timed_out) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (static_cast<long long>(t - t0) > timeout_ns) {
      *timed_out = 1;
      break;
    }
  }
}

// Writes clock64() and %globaltimer from SM 0 only. clock64() counts the
// cycles of the SM it runs on, and SMs' counters are not synchronised: two
// stamps of one-block launches may come from two SMs and differ by anything.
// Launched with one one-thread block per SM (as nvbench does), so one of
// them runs on SM 0; the host zeroes `out` before, and a stamp no block
// wrote reads as an unknown clock.
__global__ void ClockStampKernel(long long* out) {
  unsigned int smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (smid != 0) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  // Two blocks that both run on SM 0 write readings of the same counters a
  // few nanoseconds apart: either pair stands.
  out[0] = clock64();
  out[1] = static_cast<long long>(t);
}

// Pinned host memory the device reads and writes (cudaHostAllocMapped).
class MappedInts {
 public:
  MappedInts() = default;
  MappedInts(const MappedInts&) = delete;
  MappedInts& operator=(const MappedInts&) = delete;
  ~MappedInts() {
    if (host_) cudaFreeHost(host_);
  }
  Status Allocate(size_t count) {
    cudaError_t e = cudaHostAlloc(reinterpret_cast<void**>(&host_), count * sizeof(long long), cudaHostAllocMapped);
    if (e != cudaSuccess) {
      host_ = nullptr;
      return ToolError(CudaMessage(e, "cudaHostAlloc"));
    }
    std::memset(host_, 0, count * sizeof(long long));
    e = cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0);
    if (e != cudaSuccess) return ToolError(CudaMessage(e, "cudaHostGetDevicePointer"));
    return Status::Ok();
  }
  long long* host() const { return host_; }
  long long* device() const { return device_; }

 private:
  long long* host_ = nullptr;
  long long* device_ = nullptr;
};

// ---------------------------------------------------------------------------
// NVML through dlopen (no nvml.h): the few entry points we use.

using NvmlDevice = void*;
using NvmlInitFn = int (*)();
using NvmlShutdownFn = int (*)();
using NvmlHandleByPciFn = int (*)(const char*, NvmlDevice*);
using NvmlUintFn = int (*)(NvmlDevice, unsigned int*);                    // power (mW)
using NvmlTemperatureFn = int (*)(NvmlDevice, int, unsigned int*);        // sensor 0 = GPU
using NvmlReasonsFn = int (*)(NvmlDevice, unsigned long long*);
using NvmlStringFn = int (*)(char*, unsigned int);                        // system driver version
using NvmlDeviceStringFn = int (*)(NvmlDevice, char*, unsigned int);      // UUID
using NvmlTwoUintFn = int (*)(NvmlDevice, unsigned int*, unsigned int*);  // MIG mode
using NvmlTwoIntFn = int (*)(NvmlDevice, int*, int*);                     // ECC mode
using NvmlClockFn = int (*)(NvmlDevice, int, unsigned int*);              // clock type, MHz
using NvmlIntFn = int (*)(NvmlDevice, int*);                              // persistence (enable state)

class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) return;
    init_ = Sym<NvmlInitFn>("nvmlInit_v2");
    shutdown_ = Sym<NvmlShutdownFn>("nvmlShutdown");
    by_pci_ = Sym<NvmlHandleByPciFn>("nvmlDeviceGetHandleByPciBusId_v2");
    power_ = Sym<NvmlUintFn>("nvmlDeviceGetPowerUsage");
    temperature_ = Sym<NvmlTemperatureFn>("nvmlDeviceGetTemperature");
    reasons_ = Sym<NvmlReasonsFn>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) reasons_ = Sym<NvmlReasonsFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
    driver_ = Sym<NvmlStringFn>("nvmlSystemGetDriverVersion");
    uuid_ = Sym<NvmlDeviceStringFn>("nvmlDeviceGetUUID");
    mig_ = Sym<NvmlTwoUintFn>("nvmlDeviceGetMigMode");
    ecc_ = Sym<NvmlTwoIntFn>("nvmlDeviceGetEccMode");
    max_clock_ = Sym<NvmlClockFn>("nvmlDeviceGetMaxClockInfo");
    persistence_ = Sym<NvmlIntFn>("nvmlDeviceGetPersistenceMode");
    power_limit_ = Sym<NvmlUintFn>("nvmlDeviceGetEnforcedPowerLimit");
    initialised_ = init_ && shutdown_ && init_() == 0;
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  ~Nvml() {
    if (initialised_) shutdown_();
    if (lib_) dlclose(lib_);
  }
  bool ok() const { return initialised_; }

  /// The NVML handle of a CUDA device, matched by PCI bus id.
  NvmlDevice DeviceFor(int cuda_device) const {
    if (!initialised_ || !by_pci_) return nullptr;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) return nullptr;
    NvmlDevice d = nullptr;
    return by_pci_(bus, &d) == 0 ? d : nullptr;
  }

  void Fill(NvmlDevice d, ClockReading& r) const {
    if (!d) return;
    unsigned int v = 0;
    if (temperature_ && temperature_(d, 0, &v) == 0) r.temperature_c = v;
    if (power_ && power_(d, &v) == 0) r.power_w = v / 1000.0;
    unsigned long long mask = 0;
    if (reasons_ && reasons_(d, &mask) == 0) r.throttle_reasons = detail::DescribeThrottleReasons(mask);
  }

  void Fill(NvmlDevice d, GpuInfo& g) const {
    char text[96] = {};
    if (driver_ && driver_(text, sizeof text) == 0) g.driver_version = std::string(text);
    if (!d) return;
    if (uuid_ && uuid_(d, text, sizeof text) == 0) g.uuid = std::string(text);
    unsigned int cur = 0, pending = 0;
    if (mig_ && mig_(d, &cur, &pending) == 0) g.mig_enabled = cur == 1;
    int ecc = 0, ecc_pending = 0;
    if (ecc_ && ecc_(d, &ecc, &ecc_pending) == 0) g.ecc_enabled = ecc == 1;
    // The clocks are CUDA's (the device's default, what a sample's clock is
    // judged against); NVML's maximum, the top of the clock curve that a
    // GPU under load does not hold, only where CUDA gave none, so one GPU
    // reads the same with and without NVML.
    unsigned int mhz = 0;
    if (!g.sm_clock_hz && max_clock_ && max_clock_(d, /*NVML_CLOCK_SM=*/1, &mhz) == 0 && mhz > 0)
      g.sm_clock_hz = mhz * 1e6;
    if (!g.mem_clock_hz && max_clock_ && max_clock_(d, /*NVML_CLOCK_MEM=*/2, &mhz) == 0 && mhz > 0)
      g.mem_clock_hz = mhz * 1e6;
    int persistence = 0;
    if (persistence_ && persistence_(d, &persistence) == 0) g.persistence_mode = persistence == 1;
    unsigned int milliwatts = 0;
    if (power_limit_ && power_limit_(d, &milliwatts) == 0 && milliwatts > 0) g.power_limit_w = milliwatts / 1000.0;
  }

 private:
  template <class F>
  F Sym(const char* name) {
    return reinterpret_cast<F>(dlsym(lib_, name));
  }
  void* lib_ = nullptr;
  bool initialised_ = false;
  NvmlInitFn init_ = nullptr;
  NvmlShutdownFn shutdown_ = nullptr;
  NvmlHandleByPciFn by_pci_ = nullptr;
  NvmlUintFn power_ = nullptr;
  NvmlTemperatureFn temperature_ = nullptr;
  NvmlReasonsFn reasons_ = nullptr;
  NvmlStringFn driver_ = nullptr;
  NvmlDeviceStringFn uuid_ = nullptr;
  NvmlTwoUintFn mig_ = nullptr;
  NvmlTwoIntFn ecc_ = nullptr;
  NvmlClockFn max_clock_ = nullptr;
  NvmlIntFn persistence_ = nullptr;
  NvmlUintFn power_limit_ = nullptr;
};

// ---------------------------------------------------------------------------
// Device probing

std::optional<std::string> ProbeDevice() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // reset the last-error slot so later calls do not report it
    return std::string("no CUDA device: ") + cudaGetErrorString(e);
  }
  if (count == 0) return std::string("no CUDA device: none found");
  return std::nullopt;
}

Result<GpuInfo> QueryInfo(int device, const Nvml* nvml) {
  cudaDeviceProp prop;
  GPUGATE_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  GpuInfo g;
  g.name = std::string(prop.name);
  g.device_index = device;
  g.compute_capability = detail::FormatComputeCapability(prop.major, prop.minor);
  g.sm_count = prop.multiProcessorCount;
  g.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  g.l2_bytes = prop.l2CacheSize;
  g.ecc_enabled = prop.ECCEnabled != 0;
  g.uuid = detail::FormatGpuUuid(reinterpret_cast<const unsigned char*>(prop.uuid.bytes));
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess && khz > 0)
    g.sm_clock_hz = khz * 1e3;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess && khz > 0)
    g.mem_clock_hz = khz * 1e3;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) g.cuda_version = detail::FormatCudaVersion(runtime);
  if (nvml && nvml->ok()) nvml->Fill(nvml->DeviceFor(device), g);  // what CUDA does not say
  return g;
}

// ---------------------------------------------------------------------------
// A prepared workload on the device

struct KernelShape {
  int64_t n = 0;
  bool gemm = false;
};

class CudaInstance final : public WorkloadInstance {
 public:
  CudaInstance(std::string kernel, KernelShape shape, bool l2_cold, int device, const GpuInfo& info,
               const Nvml* nvml)
      : kernel_(std::move(kernel)), shape_(shape), l2_cold_(l2_cold), device_(device),
        default_clock_hz_(DefaultClockHz(device)), throttle_(default_clock_hz_),
        l2_bytes_(info.l2_bytes.value_or(0)),
        sm_count_(info.sm_count.value_or(1)), nvml_(nvml),
        nvml_device_(nvml && nvml->ok() ? nvml->DeviceFor(device) : nullptr) {}

  Status Init() {
    GPUGATE_CUDA_TRY(cudaSetDevice(device_));
    // Load every kernel now. With lazy loading (CUDA's default since 12.2)
    // a kernel is loaded at its first launch, and a load waits for the
    // device to be idle: launched behind the spinning BlockingKernel, it
    // stalled until that kernel's 10 s timeout. cudaFuncGetAttributes loads
    // a kernel without launching it.
    {
      cudaFuncAttributes attr;
      const void* kernels[] = {
          reinterpret_cast<const void*>(&CopyKernel),         reinterpret_cast<const void*>(&TriadKernel),
          reinterpret_cast<const void*>(&SaxpyKernel),        reinterpret_cast<const void*>(&ReducePartialKernel),
          reinterpret_cast<const void*>(&ReduceFinalKernel),  reinterpret_cast<const void*>(&SgemmNaiveKernel),
          reinterpret_cast<const void*>(&SgemmBlockedKernel), reinterpret_cast<const void*>(&ClockProbeKernel),
          reinterpret_cast<const void*>(&BlockingKernel),     reinterpret_cast<const void*>(&ClockStampKernel)};
      for (const void* k : kernels) GPUGATE_CUDA_TRY(cudaFuncGetAttributes(&attr, k));
    }
    if (!stream_.ok() || !start_.ok() || !stop_.ok())
      return ToolError("CUDA error: cannot create a stream or events");
    const int64_t elems = shape_.gemm ? shape_.n * shape_.n : shape_.n;
    const size_t bytes = static_cast<size_t>(elems) * sizeof(float);
    host_a_.resize(static_cast<size_t>(elems));
    host_b_.resize(static_cast<size_t>(elems));
    detail::FillPseudoRandom(host_a_.data(), elems, 61, -1.0f, 1.0f);
    detail::FillPseudoRandom(host_b_.data(), elems, 62, -1.0f, 1.0f);
    if (kernel_ == "reduce") detail::FillPseudoRandom(host_a_.data(), elems, 63, 0.0f, 1.0f);
    for (DeviceBuffer* b : {&a_, &b_, &c_})
      if (Status st = b->Allocate(bytes); !st.ok()) return st;
    GPUGATE_CUDA_TRY(cudaMemcpy(a_.get(), host_a_.data(), bytes, cudaMemcpyHostToDevice));
    GPUGATE_CUDA_TRY(cudaMemcpy(b_.get(), host_b_.data(), bytes, cudaMemcpyHostToDevice));
    GPUGATE_CUDA_TRY(cudaMemcpy(c_.get(), host_b_.data(), bytes, cudaMemcpyHostToDevice));
    blocks_ = static_cast<int>(std::min<int64_t>((shape_.n + kThreads - 1) / kThreads,
                                                 static_cast<int64_t>(sm_count_) * 32));
    blocks_ = std::max(blocks_, 1);
    if (Status st = partials_.Allocate(sizeof(float) * (blocks_ + 1)); !st.ok()) return st;
    if (Status st = clock_out_.Allocate(2 * sizeof(long long)); !st.ok()) return st;
    // [0] release flag (an int in the first slot), [1] timed-out flag,
    // [2..3] start stamp, [4..5] stop stamp.
    if (Status st = mapped_.Allocate(6); !st.ok()) return st;
    if (l2_cold_) {
      if (Status st = scratch_.Allocate(static_cast<size_t>(detail::L2FlushBytes(l2_bytes_))); !st.ok())
        return st;
    }
    // Calibrate batching like the CPU backend, but only for hot-L2 samples:
    // a cold sample must run the kernel once right after the flush.
    if (!l2_cold_) {
      for (iterations_ = 1;; iterations_ *= 2) {
        auto s = TimeBatch(iterations_);
        if (!s.ok()) return s.error();
        if (*s >= 1e-3 || iterations_ >= (int64_t{1} << 20)) break;
      }
    }
    return Status::Ok();
  }

  void BeginRound(int round) override {
    ClockReading r;
    r.round = round;
    r.sm_clock_hz = MeasureSmClock();
    if (nvml_) nvml_->Fill(nvml_device_, r);
    clocks_.push_back(r);
  }

  Result<Sample> RunSample() override {
    while (true) {
      if (l2_cold_) {
        // Alternate the byte so the driver cannot skip an unchanged memset.
        flush_value_ ^= 0x5a;
        GPUGATE_CUDA_TRY(cudaMemsetAsync(scratch_.get(), flush_value_, scratch_.bytes(), stream_.get()));
      }
      auto s = TimeBatch(iterations_);
      if (!s.ok()) return s.error();
      const double clock_hz = SampleClockHz();
      if (throttle_.OnSample(clock_hz) == detail::SampleAction::kDiscardAndRecover) {
        std::this_thread::sleep_for(std::chrono::duration<double>(detail::kThrottleRecoverySeconds));
        continue;
      }
      Sample out;
      out.seconds = *s;
      if (clock_hz > 0) out.sm_clock_hz = clock_hz;
      return out;
    }
  }

  WorkCounts Work() const override {
    // Same counting convention as the CPU kernels (cpu_kernels.h).
    const int64_t n = shape_.n;
    const double dn = static_cast<double>(n);
    if (kernel_ == "copy") return WorkCounts{2 * n * 4, 0.0, n};
    if (kernel_ == "triad" || kernel_ == "saxpy") return WorkCounts{3 * n * 4, 2.0 * dn, n};
    if (kernel_ == "reduce") return WorkCounts{n * 4, dn, n};
    return WorkCounts{3 * n * n * 4, 2.0 * dn * dn * dn, n * n};
  }
  int64_t IterationsPerSample() const override { return iterations_; }

  /// Metrics (`metrics:`) to collect once the outputs are verified, for
  /// the chip the suite planned them for.
  void RequestMetrics(std::vector<std::string> metrics, std::string chip) {
    metrics_ = std::move(metrics);
    metrics_chip_ = std::move(chip);
  }

  Status Verify() override {
    Status st = VerifyOutputs();
    if (st.ok() && !metrics_.empty()) CollectMetrics();
    return st;
  }

  Status VerifyOutputs() {
    GPUGATE_CUDA_TRY(cudaStreamSynchronize(stream_.get()));
    const int64_t elems = shape_.gemm ? shape_.n * shape_.n : shape_.n;
    std::vector<float> out(static_cast<size_t>(elems));
    const double u = FLT_EPSILON / 2.0;
    auto gamma = [u](double k) { return k * u / (1.0 - k * u); };
    auto mismatch = [&](int64_t i, double got, double want) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s: output element %lld is %.9g, expected %.9g", kernel_.c_str(),
                    static_cast<long long>(i), got, want);
      return ToolError(buf);
    };
    if (kernel_ == "reduce") {
      float got = 0;
      GPUGATE_CUDA_TRY(cudaMemcpy(&got, partials_.f() + blocks_, sizeof(float), cudaMemcpyDeviceToHost));
      double want = 0, abs_sum = 0;
      for (float v : host_a_) want += v, abs_sum += std::fabs(v);
      // Probabilistic bound (Higham & Mary 2019), as for the CPU reduce; sqrt(n)
      // over-covers the per-thread slice plus the two tree passes.
      if (std::fabs(got - want) > 8.0 * std::sqrt(static_cast<double>(shape_.n) + 64) * u * abs_sum + 1e-30)
        return mismatch(0, got, want);
      return Status::Ok();
    }
    const DeviceBuffer* result = kernel_ == "copy" ? &b_ : &c_;
    GPUGATE_CUDA_TRY(cudaMemcpy(out.data(), result->get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const std::vector<float>& a = host_a_;
    const std::vector<float>& b = host_b_;
    if (kernel_ == "copy") {
      for (int64_t i = 0; i < elems; ++i)
        if (out[i] != a[i]) return mismatch(i, out[i], a[i]);
    } else if (kernel_ == "triad") {
      for (int64_t i = 0; i < elems; ++i) {
        double want = static_cast<double>(a[i]) + 3.0 * b[i];
        if (std::fabs(out[i] - want) > gamma(2) * (std::fabs(a[i]) + 3.0 * std::fabs(b[i])))
          return mismatch(i, out[i], want);
      }
    } else if (kernel_ == "saxpy") {
      const bool odd = saxpy_calls_ % 2 == 1;
      for (int64_t i = 0; i < elems; ++i) {
        double ax = 0.5 * a[i];
        double want = b[i] + (odd ? ax : 0.0);
        if (std::fabs(out[i] - want) > 1e-4 * (std::fabs(b[i]) + std::fabs(ax)) + 1e-30)
          return mismatch(i, out[i], want);
      }
    } else {  // sgemm: up to 256 sampled entries against a double dot product
      const int64_t n = shape_.n, total = n * n, checks = std::min<int64_t>(total, 256);
      for (int64_t t = 0; t < checks; ++t) {
        const int64_t idx = checks == total ? t : (t * 2654435761LL + 12345) % total;
        const int64_t i = idx / n, j = idx % n;
        double want = 0, abs_sum = 0;
        for (int64_t k = 0; k < n; ++k) {
          double p = static_cast<double>(a[i * n + k]) * b[k * n + j];
          want += p;
          abs_sum += std::fabs(p);
        }
        if (std::fabs(out[idx] - want) > gamma(static_cast<double>(n) + 1) * abs_sum + 1e-30)
          return mismatch(idx, out[idx], want);
      }
    }
    return Status::Ok();
  }

  void Annotate(WorkloadResult& result) const override {
    result.clocks = clocks_;
    result.throttled = detail::IsThrottled(clocks_, default_clock_hz_) || throttle_.kept_throttled() > 0;
    result.counters["throttled_samples_discarded"] = throttle_.discarded();
    if (throttle_.kept_throttled() > 0)
      result.counters["throttled_samples_kept"] = throttle_.kept_throttled();
    if (blocking_timeouts_ > 0) result.counters["blocking_kernel_timeouts"] = blocking_timeouts_;
    result.peak_memory_bytes = static_cast<int64_t>(a_.bytes() + b_.bytes() + c_.bytes() +
                                                    partials_.bytes() + scratch_.bytes());
    if (l2_cold_) result.counters["l2_flush_bytes"] = static_cast<double>(scratch_.bytes());
    if (!metrics_.empty()) {
      // Present whenever collection was attempted, so the run does not add
      // the "not collected" note of workloads that cannot collect.
      result.counters["metric_ranges"] = static_cast<double>(metric_ranges_);
      for (const auto& [name, value] : metric_counters_) result.counters[name] = value;
      if (!metric_note_.empty()) AppendNotes(result, {metric_note_});
    }
  }

 private:
  // Launches the kernel once on the stream (triad: c = a + 3 b; copy: b = a;
  // saxpy: c = +-0.5 a + c with c starting as host_b_; reduce: a -> result;
  // sgemm: c = a * b).
  void Launch() {
    cudaStream_t s = stream_.get();
    const int64_t n = shape_.n;
    if (kernel_ == "copy") {
      CopyKernel<<<blocks_, kThreads, 0, s>>>(a_.f(), b_.f(), n);
    } else if (kernel_ == "triad") {
      TriadKernel<<<blocks_, kThreads, 0, s>>>(c_.f(), a_.f(), b_.f(), 3.0f, n);
    } else if (kernel_ == "saxpy") {
      const float sign = (saxpy_calls_ % 2 == 0) ? 0.5f : -0.5f;
      SaxpyKernel<<<blocks_, kThreads, 0, s>>>(sign, a_.f(), c_.f(), n);
      ++saxpy_calls_;
    } else if (kernel_ == "reduce") {
      ReducePartialKernel<<<blocks_, kThreads, 0, s>>>(a_.f(), partials_.f(), n);
      ReduceFinalKernel<<<1, kThreads, 0, s>>>(partials_.f(), partials_.f() + blocks_, blocks_);
    } else {
      const int ni = static_cast<int>(n);
      dim3 block(kTile, kTile);
      dim3 grid(static_cast<unsigned>((ni + kTile - 1) / kTile), static_cast<unsigned>((ni + kTile - 1) / kTile));
      if (kernel_ == "sgemm_naive") {
        SgemmNaiveKernel<<<grid, block, 0, s>>>(a_.f(), b_.f(), c_.f(), ni);
      } else {
        SgemmBlockedKernel<<<grid, block, 0, s>>>(a_.f(), b_.f(), c_.f(), ni);
      }
    }
  }

  // Seconds for `iterations` back-to-back launches between two events, the
  // stream held by the blocking kernel until they are queued (or the launch
  // queue's depth is), with clock stamps just outside the events.
  Result<double> TimeBatch(int64_t iterations) {
    cudaStream_t s = stream_.get();
    int* release = reinterpret_cast<int*>(mapped_.host());
    __atomic_store_n(release, 0, __ATOMIC_SEQ_CST);
    mapped_.host()[1] = 0;
    for (int k = 2; k < 6; ++k) mapped_.host()[k] = 0;  // stamps: unknown until SM 0 writes them
    const unsigned stamp_blocks = static_cast<unsigned>(std::max(sm_count_, 1));
    BlockingKernel<<<1, 1, 0, s>>>(reinterpret_cast<const int*>(mapped_.device()), kBlockingTimeoutNs,
                                   reinterpret_cast<int*>(mapped_.device() + 1));
    ClockStampKernel<<<stamp_blocks, 1, 0, s>>>(mapped_.device() + 2);
    GPUGATE_CUDA_TRY(cudaEventRecord(start_.get(), s));
    const int64_t before = detail::LaunchesBeforeRelease(iterations, kQueuedLaunches);
    for (int64_t i = 0; i < before; ++i) Launch();
    if (before == iterations) {
      GPUGATE_CUDA_TRY(cudaEventRecord(stop_.get(), s));
      ClockStampKernel<<<stamp_blocks, 1, 0, s>>>(mapped_.device() + 4);
    }
    __atomic_store_n(release, 1, __ATOMIC_SEQ_CST);
    if (before < iterations) {
      for (int64_t i = before; i < iterations; ++i) Launch();
      GPUGATE_CUDA_TRY(cudaEventRecord(stop_.get(), s));
      ClockStampKernel<<<stamp_blocks, 1, 0, s>>>(mapped_.device() + 4);
    }
    GPUGATE_CUDA_TRY(cudaGetLastError());
    GPUGATE_CUDA_TRY(cudaStreamSynchronize(s));
    if (__atomic_load_n(reinterpret_cast<int*>(mapped_.host() + 1), __ATOMIC_SEQ_CST) != 0) ++blocking_timeouts_;
    float ms = 0;
    GPUGATE_CUDA_TRY(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return static_cast<double>(ms) * 1e-3;
  }

  // The SM clock over the last TimeBatch, from its two stamps; 0 if unknown.
  double SampleClockHz() const {
    const long long* m = mapped_.host();
    if (m[2] == 0 || m[3] == 0 || m[4] == 0 || m[5] == 0) return 0.0;  // SM 0 ran no stamp block
    return detail::ClockHzFromCounters(m[4] - m[2], m[5] - m[3]);
  }

  // The device's default SM clock (what nvbench compares against), 0 if unknown.
  static double DefaultClockHz(int device) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess || khz <= 0) return 0.0;
    return khz * 1e3;
  }

  // Launches queued behind the blocking kernel at most (CUDA's pending
  // launch queue holds about a thousand).
  static constexpr int64_t kQueuedLaunches = 256;
  // The blocking kernel gives up after this long (the host was descheduled).
  static constexpr long long kBlockingTimeoutNs = 10LL * 1000 * 1000 * 1000;

  double MeasureSmClock() {
    constexpr long long kSpinNs = 1000000;  // 1 ms: globaltimer ticks are <= 1 us
    ClockProbeKernel<<<1, 1, 0, stream_.get()>>>(kSpinNs, static_cast<long long*>(clock_out_.get()));
    long long out[2] = {0, 0};
    if (cudaMemcpyAsync(out, clock_out_.get(), sizeof out, cudaMemcpyDeviceToHost, stream_.get()) != cudaSuccess ||
        cudaStreamSynchronize(stream_.get()) != cudaSuccess)
      return 0.0;
    return detail::ClockHzFromCounters(out[0], out[1]);
  }

  // One profiled invocation under the CUPTI range profiler (kernel replay:
  // CUPTI replays each of its kernels for every pass). A failure, such as a
  // driver that restricts profiling to administrators, is a note: the
  // timings stand.
  void CollectMetrics() {
    Result<MetricCollection> got = CollectKernelMetrics(
        device_, metrics_,
        [this]() -> Status {
          Launch();
          if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return ToolError(CudaMessage(e, "launch"));
          return Status::Ok();
        },
        /*max_ranges=*/8);
    if (!got.ok()) {
      metric_note_ = "metrics not collected: " + got.error().message;
      return;
    }
    std::string mismatch = detail::ChipMismatch(metrics_chip_, got->chip);
    metric_ranges_ = got->ranges.size();
    metric_counters_ = detail::MetricCounters(got->ranges);
    metric_note_ = "metrics collected on " + got->chip + " with the CUPTI range profiler: " +
                   std::to_string(got->ranges.size()) + " kernel launch(es) of one invocation, " +
                   std::to_string(got->passes) + " replay pass(es) each";
    if (got->dropped_ranges > 0) metric_note_ += ", " + std::to_string(got->dropped_ranges) + " range(s) dropped";
    if (!mismatch.empty()) metric_note_ += "; " + mismatch;
  }

  std::vector<std::string> metrics_;
  std::string metrics_chip_;
  std::string metric_note_;
  size_t metric_ranges_ = 0;
  std::map<std::string, double> metric_counters_;
  std::string kernel_;
  KernelShape shape_;
  bool l2_cold_;
  int device_;
  double default_clock_hz_;  // cudaDevAttrClockRate, Hz (0: unknown)
  detail::ThrottleTracker throttle_;
  int blocking_timeouts_ = 0;
  int64_t l2_bytes_;
  int sm_count_;
  const Nvml* nvml_;
  NvmlDevice nvml_device_;
  Stream stream_;
  Event start_, stop_;
  DeviceBuffer a_, b_, c_, partials_, clock_out_, scratch_;
  MappedInts mapped_;
  std::vector<float> host_a_, host_b_;
  int blocks_ = 1;
  int64_t iterations_ = 1;
  int64_t saxpy_calls_ = 0;
  int flush_value_ = 0;
  std::vector<ClockReading> clocks_;
};

class CudaBackend final : public Backend {
 public:
  std::string Name() const override { return "cuda"; }

  std::optional<std::string> Unsupported(const WorkloadSpec& spec) const override {
    if (spec.kind != WorkloadKind::kBuiltin) return std::string("backend cuda runs only builtin kernels");
    if (auto why = DeviceProblem()) return why;
    const auto& names = CpuKernelNames();
    if (std::find(names.begin(), names.end(), spec.kernel) == names.end())
      return "kernel '" + spec.kernel + "' has no CUDA implementation";
    return std::nullopt;
  }

  Result<std::unique_ptr<WorkloadInstance>> Prepare(const WorkloadSpec& spec) override {
    if (auto why = Unsupported(spec)) return ToolError(*why);
    KernelShape shape;
    shape.gemm = spec.kernel == "sgemm_naive" || spec.kernel == "sgemm_blocked";
    shape.n = DefaultKernelSize(spec.kernel);
    if (auto it = spec.sizes.find("n"); it != spec.sizes.end()) shape.n = it->second;
    if (shape.n <= 0) return InputError("kernel " + spec.kernel + ": size n must be positive");
    // The limit of the CPU kernels and the suite reader (n*n of a gemm also
    // stays below 2^31 there, as the kernels' int indices need).
    if (std::optional<std::string> problem = BuiltinSizeProblem(spec.kernel, shape.n))
      return InputError("kernel " + spec.kernel + ": size " + *problem);
    if (!nvml_) nvml_ = std::make_unique<Nvml>();
    auto info = QueryInfo(kDevice, nvml_.get());
    if (!info.ok()) return info.error();
    auto inst = std::make_unique<CudaInstance>(spec.kernel, shape, spec.l2_cold, kDevice, info.value(), nvml_.get());
    if (Status st = inst->Init(); !st.ok()) return st.error();
    if (!spec.metrics.empty()) {
      std::vector<std::string> names;
      for (const MetricRequest& m : spec.metrics) names.push_back(m.name);
      inst->RequestMetrics(std::move(names), spec.chip);
    }
    return std::unique_ptr<WorkloadInstance>(std::move(inst));
  }

 private:
  static constexpr int kDevice = 0;

  std::optional<std::string> DeviceProblem() const {
    if (!probed_) {
      problem_ = ProbeDevice();
      probed_ = true;
    }
    return problem_;
  }

  mutable bool probed_ = false;
  mutable std::optional<std::string> problem_;
  std::unique_ptr<Nvml> nvml_;
};

}  // namespace

std::unique_ptr<Backend> MakeCudaBackend() { return std::make_unique<CudaBackend>(); }

std::optional<std::string> CudaUnavailableReason() { return ProbeDevice(); }

Result<GpuInfo> QueryCudaGpuInfo(int device_index) {
  if (auto why = ProbeDevice()) return ToolError(*why);
  Nvml nvml;
  return QueryInfo(device_index, &nvml);
}

}  // namespace gpugate

#undef GPUGATE_CUDA_TRY
