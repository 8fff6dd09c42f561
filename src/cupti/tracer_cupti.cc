// The CUPTI activity tracer (see tracer.h). CUPTI's buffer callbacks are plain
// functions without user data, so the one running tracer is reached through a
// process-wide pointer; CUPTI itself allows only one subscriber per process.
#include "cupti/tracer.h"

#include <cupti.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "cupti/activity_cupti.h"
#include "cupti/cupti_text.h"

namespace gpugate {

struct CuptiTracer::State {
  TracerOptions options;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mu;           // guards records
  TraceRecords records;
  bool running = false;
};

namespace {

std::atomic<CuptiTracer::State*> g_state{nullptr};

// The activity kinds gpugate converts. CONCURRENT_KERNEL keeps kernels
// concurrent (KIND_KERNEL would serialize them).
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,   CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_RUNTIME,  CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_MARKER,
    CUPTI_ACTIVITY_KIND_DEVICE,
};

uint64_t RealtimeNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string ApiName(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "";
  return name;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  CuptiTracer::State* s = g_state.load();
  const size_t bytes = s != nullptr ? s->options.buffer_bytes : size_t{8} << 20;
  // CUPTI wants 8-byte aligned buffers.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, (bytes + 7) / 8 * 8));
  *size = *buffer != nullptr ? bytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t /*size*/,
                              size_t valid_size) {
  CuptiTracer::State* s = g_state.load();
  if (s != nullptr && buffer != nullptr) {
    std::lock_guard<std::mutex> lock(s->mu);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS)
      AppendCuptiRecord(record, ApiName, s->records);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
      s->records.dropped_records += static_cast<int64_t>(dropped);
  }
  std::free(buffer);
}

// Flushes before CUPTI would lose records: the program stops the profiler,
// resets a device or destroys a context.
void CUPTIAPI OnCallback(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void* data) {
  bool flush = false;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    flush = cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    const bool entry = info != nullptr && info->callbackSite == CUPTI_API_ENTER;
    const bool exit = info != nullptr && info->callbackSite == CUPTI_API_EXIT;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      flush = (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && exit) ||
              (cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2 && entry);
    } else {
      flush = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 && entry;
    }
  }
  if (flush) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

}  // namespace

CuptiTracer::CuptiTracer(std::unique_ptr<State> state) : state_(std::move(state)) {}

CuptiTracer::~CuptiTracer() { Stop(); }

Result<std::unique_ptr<CuptiTracer>> CuptiTracer::Start(const TracerOptions& options) {
  auto state = std::make_unique<State>();
  state->options = options;
  state->records.process_id = static_cast<uint32_t>(::getpid());
  State* expected = nullptr;
  if (!g_state.compare_exchange_strong(expected, state.get()))
    return ToolError("a CUPTI tracer is already running in this process");

  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params = {};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = state->options.subscriber_name.c_str();
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN;
  CUptiResult r = cuptiSubscribe_v2(&state->subscriber, OnCallback, nullptr, &params);
  if (r != CUPTI_SUCCESS) {
    g_state.store(nullptr);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      const std::string who = holder[0] != '\0' ? "'" + std::string(holder) + "'" : "a tool CUPTI did not name";
      return ToolError("another profiler is attached to this process (" + who +
                       "; CUPTI allows one: Nsight Systems, Nsight Compute, cuda-gdb, compute-sanitizer "
                       "or a profiler the program starts itself): profile: cupti cannot record");
    }
    return ToolError("cannot subscribe to CUPTI: " + CuptiText(r));
  }
  auto fail = [&](const char* what, CUptiResult rc) -> Error {
    cuptiUnsubscribe(state->subscriber);
    g_state.store(nullptr);
    return ToolError(std::string(what) + ": " + CuptiText(rc));
  };
  cuptiActivityRegisterTimestampCallback(RealtimeNs);
  if ((r = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted)) != CUPTI_SUCCESS)
    return fail("cannot register CUPTI buffer callbacks", r);
  for (CUpti_ActivityKind kind : kKinds) {
    if ((r = cuptiActivityEnable(kind)) != CUPTI_SUCCESS) {
      // Some kinds do not exist on every device or driver; kernels must.
      if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return fail("cannot enable CUPTI kernel records", r);
    }
  }
  cuptiEnableCallback(1, state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  cuptiEnableCallback(1, state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2);
  cuptiEnableCallback(1, state->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  cuptiEnableCallback(1, state->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  state->running = true;
  return std::unique_ptr<CuptiTracer>(new CuptiTracer(std::move(state)));
}

void CuptiTracer::Flush() {
  if (state_ && state_->running) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

TraceRecords CuptiTracer::TakeRecords() {
  Flush();
  std::lock_guard<std::mutex> lock(state_->mu);
  TraceRecords out = std::move(state_->records);
  state_->records = TraceRecords{};
  state_->records.process_id = out.process_id;
  return out;
}

void CuptiTracer::Stop() {
  if (!state_ || !state_->running) return;
  Flush();
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
  cuptiUnsubscribe(state_->subscriber);
  state_->running = false;
  g_state.store(nullptr);
}

}  // namespace gpugate
