// libgpugate_inject.so: the CUPTI injection library. The CUDA driver loads
// the library named by CUDA_INJECTION64_PATH during cuInit and calls its
// InitializeInjection(); gpugate sets that variable (and GPUGATE_CUPTI_TRACE,
// the trace path) for `profile: cupti` workloads, so unmodified programs —
// PyTorch included — are traced. At exit the records are force-flushed and
// written as a Kineto-shaped Chrome trace (cupti/chrome_trace.h), atomically
// (temp file + rename). When tracing cannot start (another profiler holds
// CUPTI), the reason goes to "<trace>.error" and to stderr, and the program
// runs on untraced. NVTX reaches CUPTI only through the library named by
// NVTX_INJECTION64_PATH, which gpugate also points here:
// InitializeInjectionNvtx2 hands NVTX to libcupti's own entry, so the
// program's NVTX ranges become MARKER records. As soon as tracing starts,
// "<trace>.started" is written, so a program that ends without running its
// exit handlers (_exit, os._exit) is told apart from one that never
// initialised CUDA. Only InitializeInjection and InitializeInjectionNvtx2 are
// exported.
#include <cupti.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "cupti/chrome_trace.h"
#include "cupti/tracer.h"
#include "util/file_write.h"

namespace gpugate {
namespace {

CuptiTracer* g_tracer = nullptr;  // lives until exit (its records are written then)
std::string* g_trace_path = nullptr;

std::string ProgramName() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

void Report(const std::string& message) { std::fprintf(stderr, "gpugate cupti: %s\n", message.c_str()); }

void WriteTraceAtExit() {
  if (g_tracer == nullptr || g_trace_path == nullptr) return;
  TraceRecords records = g_tracer->TakeRecords();
  g_tracer->Stop();
  Status st = WriteFileAtomic(*g_trace_path, WriteChromeTrace(records, {ProgramName()}));
  if (!st.ok()) Report("cannot write the trace: " + st.error().message);
}

size_t BufferBytes() {
  const char* text = std::getenv(kCuptiBufferEnv);
  if (text == nullptr || *text == '\0') return TracerOptions{}.buffer_bytes;
  char* end = nullptr;
  const long mib = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || mib < 1 || mib > 256) {
    Report(std::string(kCuptiBufferEnv) + " must be a whole number of MiB from 1 to 256, got '" + text +
           "': using 8");
    return TracerOptions{}.buffer_bytes;
  }
  return static_cast<size_t>(mib) << 20;
}

int Initialize() {
  const char* path = std::getenv(kCuptiTraceEnv);
  if (path == nullptr || *path == '\0') {
    Report(std::string(kCuptiTraceEnv) + " is not set: not tracing");
    return 1;
  }
  g_trace_path = new std::string(path);
  TracerOptions options;
  options.buffer_bytes = BufferBytes();
  auto tracer = CuptiTracer::Start(options);
  if (!tracer.ok()) {
    Report(tracer.error().message);
    Status st = WriteFileAtomic(*g_trace_path + ".error", tracer.error().message + "\n");
    if (!st.ok()) Report(st.error().message);
    return 1;
  }
  g_tracer = tracer.value().release();
  std::atexit(WriteTraceAtExit);
  Status started = WriteFileAtomic(*g_trace_path + ".started", std::to_string(::getpid()) + "\n");
  if (!started.ok()) Report(started.error().message);
  return 1;
}

using NvtxEntry = int (*)(const void* (*)(uint32_t));

// libcupti's InitializeInjectionNvtx2: the CUPTI library this one is linked
// with, found through one of its functions, then asked for the entry by name.
NvtxEntry CuptiNvtxEntry() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 || info.dli_fname == nullptr) return nullptr;
  void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return nullptr;
  return reinterpret_cast<NvtxEntry>(dlsym(cupti, "InitializeInjectionNvtx2"));
}

}  // namespace
}  // namespace gpugate

/// Called once by the CUDA driver (CUDA_INJECTION64_PATH). Returns 1.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  static int result = 1;
  std::call_once(once, [] { result = gpugate::Initialize(); });
  return result;
}

/// Called once by NVTX (NVTX_INJECTION64_PATH) at the program's first NVTX
/// call. Hands NVTX to libcupti's entry; 0 (NVTX stays off) when libcupti
/// has none.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* (*get_export_table)(uint32_t)) {
  static const gpugate::NvtxEntry entry = gpugate::CuptiNvtxEntry();
  if (entry == nullptr || entry == &InitializeInjectionNvtx2) {
    gpugate::Report("libcupti has no InitializeInjectionNvtx2: NVTX ranges are not recorded");
    return 0;
  }
  return entry(get_export_table);
}
