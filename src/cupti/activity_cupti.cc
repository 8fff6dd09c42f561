// CUPTI activity structs -> plain records (see activity_cupti.h).
#include "cupti/activity_cupti.h"

#include "util/demangle.h"

namespace gpugate {

namespace {

std::string Text(const char* s) { return s != nullptr ? std::string(s) : std::string(); }

int64_t Ns(uint64_t t) { return static_cast<int64_t>(t); }

MemcpyKind ToMemcpyKind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return MemcpyKind::kHtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return MemcpyKind::kDtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return MemcpyKind::kHtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return MemcpyKind::kAtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return MemcpyKind::kAtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return MemcpyKind::kAtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return MemcpyKind::kDtoA;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return MemcpyKind::kDtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return MemcpyKind::kHtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return MemcpyKind::kPtoP;
    default: return MemcpyKind::kUnknown;
  }
}

MemoryKind ToMemoryKind(uint32_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemoryKind::kPageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemoryKind::kPinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MemoryKind::kDevice;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemoryKind::kArray;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return MemoryKind::kManaged;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return MemoryKind::kDeviceStatic;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemoryKind::kManagedStatic;
    default: return MemoryKind::kUnknown;
  }
}

SyncKind ToSyncKind(CUpti_ActivitySynchronizationType t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return SyncKind::kEventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return SyncKind::kStreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return SyncKind::kContextSynchronize;
    default: return SyncKind::kUnknown;
  }
}

std::string OverheadName(CUpti_ActivityOverheadKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "Driver compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "CUPTI resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "Runtime triggered module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "Lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "Command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "Activity buffer request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "UVM activity init";
    default: return "Unknown overhead";
  }
}

// CUPTI's "no stream / no event" value.
constexpr uint32_t kInvalid = 0xffffffffu;

// Both timestamps 0: CUPTI could not time the activity (counted, not kept).
bool Untimed(uint64_t start, uint64_t end, TraceRecords& out) {
  if (start != 0 || end != 0) return false;
  ++out.untimed_records;
  return true;
}

void AddKernel(const CUpti_ActivityKernel10& a, TraceRecords& out) {
  if (Untimed(a.start, a.end, out)) return;
  KernelRecord k;
  k.name = DemangleKernelName(a.name);
  k.start_ns = Ns(a.start);
  k.end_ns = Ns(a.end);
  k.device = a.deviceId;
  k.context = a.contextId;
  k.stream = a.streamId;
  k.correlation = a.correlationId;
  k.grid[0] = a.gridX;
  k.grid[1] = a.gridY;
  k.grid[2] = a.gridZ;
  k.block[0] = a.blockX;
  k.block[1] = a.blockY;
  k.block[2] = a.blockZ;
  k.registers_per_thread = a.registersPerThread;
  k.static_shared_bytes = a.staticSharedMemory;
  k.dynamic_shared_bytes = a.dynamicSharedMemory;
  k.graph_node = static_cast<int64_t>(a.graphNodeId);
  out.kernels.push_back(std::move(k));
}

void AddMemcpy(const CUpti_ActivityMemcpy6& a, TraceRecords& out) {
  if (Untimed(a.start, a.end, out)) return;
  MemcpyRecord m;
  m.kind = ToMemcpyKind(a.copyKind);
  m.src = ToMemoryKind(a.srcKind);
  m.dst = ToMemoryKind(a.dstKind);
  m.bytes = static_cast<int64_t>(a.bytes);
  m.start_ns = Ns(a.start);
  m.end_ns = Ns(a.end);
  m.device = a.deviceId;
  m.context = a.contextId;
  m.stream = a.streamId;
  m.correlation = a.correlationId;
  out.memcpys.push_back(m);
}

void AddPeerCopy(const CUpti_ActivityMemcpyPtoP4& a, TraceRecords& out) {
  if (Untimed(a.start, a.end, out)) return;
  MemcpyRecord m;
  m.kind = ToMemcpyKind(a.copyKind);
  m.src = ToMemoryKind(a.srcKind);
  m.dst = ToMemoryKind(a.dstKind);
  m.bytes = static_cast<int64_t>(a.bytes);
  m.start_ns = Ns(a.start);
  m.end_ns = Ns(a.end);
  m.device = a.deviceId;
  m.context = a.contextId;
  m.stream = a.streamId;
  m.correlation = a.correlationId;
  m.src_device = a.srcDeviceId;
  m.dst_device = a.dstDeviceId;
  out.memcpys.push_back(m);
}

void AddMemset(const CUpti_ActivityMemset4& a, TraceRecords& out) {
  if (Untimed(a.start, a.end, out)) return;
  MemsetRecord m;
  m.memory = ToMemoryKind(a.memoryKind);
  m.bytes = static_cast<int64_t>(a.bytes);
  m.value = a.value;
  m.start_ns = Ns(a.start);
  m.end_ns = Ns(a.end);
  m.device = a.deviceId;
  m.context = a.contextId;
  m.stream = a.streamId;
  m.correlation = a.correlationId;
  out.memsets.push_back(m);
}

void AddApi(const CUpti_ActivityAPI& a, ApiDomain domain, const ApiNameLookup& api_name, TraceRecords& out) {
  if (Untimed(a.start, a.end, out)) return;
  ApiRecord r;
  r.domain = domain;
  r.callback_id = a.cbid;
  const CUpti_CallbackDomain cb_domain =
      domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  std::string name = api_name ? api_name(cb_domain, a.cbid) : std::string();
  if (name.empty()) name = (domain == ApiDomain::kRuntime ? "runtime api " : "driver api ") + std::to_string(a.cbid);
  r.name = StripApiVersionSuffix(name);
  r.start_ns = Ns(a.start);
  r.end_ns = Ns(a.end);
  r.process = a.processId;
  r.thread = a.threadId;
  r.correlation = a.correlationId;
  r.return_value = a.returnValue;
  out.apis.push_back(std::move(r));
}

void AddSync(const CUpti_ActivitySynchronization2& a, TraceRecords& out) {
  SyncRecord s;
  s.kind = ToSyncKind(a.type);
  s.start_ns = Ns(a.start);
  s.end_ns = Ns(a.end);
  s.context = a.contextId;
  if (a.streamId != kInvalid) s.stream = a.streamId;
  if (a.cudaEventId != kInvalid) s.event = a.cudaEventId;
  s.correlation = a.correlationId;
  out.syncs.push_back(s);
}

void AddOverhead(const CUpti_ActivityOverhead3& a, TraceRecords& out) {
  OverheadRecord o;
  o.kind = OverheadName(a.overheadKind);
  o.start_ns = Ns(a.start);
  o.end_ns = Ns(a.end);
  if (a.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || a.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    o.process = a.objectId.pt.processId;
    o.thread = a.objectId.pt.threadId;
  }
  out.overheads.push_back(std::move(o));
}

void AddMarker(const CUpti_ActivityMarker2& a, TraceRecords& out) {
  MarkerRecord m;
  if (a.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    m.phase = MarkerRecord::Phase::kStart;
  } else if (a.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    m.phase = MarkerRecord::Phase::kEnd;
  } else {
    m.phase = MarkerRecord::Phase::kInstant;
  }
  m.id = a.id;
  m.timestamp_ns = Ns(a.timestamp);
  m.name = Text(a.name);
  m.domain = Text(a.domain);
  if (a.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || a.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    m.process = a.objectId.pt.processId;
    m.thread = a.objectId.pt.threadId;
  }
  out.markers.push_back(std::move(m));
}

void AddDevice(const CUpti_ActivityDevice5& a, TraceRecords& out) {
  DeviceRecord d;
  d.id = a.id;
  d.name = Text(a.name);
  d.global_memory_bytes = static_cast<int64_t>(a.globalMemorySize);
  d.compute_major = static_cast<int>(a.computeCapabilityMajor);
  d.compute_minor = static_cast<int>(a.computeCapabilityMinor);
  d.multiprocessors = static_cast<int>(a.numMultiprocessors);
  d.max_threads_per_block = static_cast<int>(a.maxThreadsPerBlock);
  d.max_warps_per_multiprocessor = static_cast<int>(a.maxWarpsPerMultiprocessor);
  d.threads_per_warp = static_cast<int>(a.numThreadsPerWarp);
  d.max_registers_per_block = static_cast<int>(a.maxRegistersPerBlock);
  d.max_registers_per_multiprocessor = static_cast<int>(a.maxRegistersPerMultiprocessor);
  d.max_shared_per_block = a.maxSharedMemoryPerBlock;
  d.max_shared_per_multiprocessor = a.maxSharedMemoryPerMultiprocessor;
  d.l2_bytes = a.l2CacheSize;
  out.devices.push_back(std::move(d));
}

}  // namespace

bool AppendCuptiRecord(const CUpti_Activity* record, const ApiNameLookup& api_name, TraceRecords& out) {
  if (record == nullptr) return false;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      AddKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      AddMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      AddPeerCopy(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      AddMemset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      AddApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), ApiDomain::kRuntime, api_name, out);
      return true;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      AddApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), ApiDomain::kDriver, api_name, out);
      return true;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      AddSync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      AddOverhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_MARKER:
      AddMarker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record), out);
      return true;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      AddDevice(*reinterpret_cast<const CUpti_ActivityDevice5*>(record), out);
      return true;
    default:
      return false;
  }
}

}  // namespace gpugate
