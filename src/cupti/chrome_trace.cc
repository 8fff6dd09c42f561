// Chrome trace writer for CUPTI records (see chrome_trace.h).
#include "cupti/chrome_trace.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "util/json_writer.h"
#include "util/time_text.h"

namespace gpugate {

namespace {

using JsonWriter = rapidjson::Writer<JsonStringBuffer>;

class TraceWriter {
 public:
  TraceWriter(const TraceRecords& r, const ChromeTraceOptions& options)
      : r_(r), options_(options), correlation_(r.apis) {}

  std::string Write() {
    w_.StartObject();
    w_.Key("schemaVersion");
    w_.Int(1);
    if (!options_.trace_name.empty()) WriteJsonField(w_, "traceName", options_.trace_name);
    WriteJsonField(w_, "displayTimeUnit", "ns");
    DeviceProperties();
    w_.Key("traceEvents");
    w_.StartArray();
    Metadata();
    CpuEvents();
    GpuEvents();
    SyncEvents();
    w_.EndArray();
    w_.Key("gpugate");
    w_.StartObject();
    WriteJsonField(w_, "source", "cupti");
    WriteJsonField(w_, "dropped_records", r_.dropped_records);
    WriteJsonField(w_, "untimed_records", r_.untimed_records);
    w_.EndObject();
    w_.EndObject();
    return std::string(buf_.GetString(), buf_.GetSize());
  }

 private:
  void Time(const char* key, int64_t ns) {
    const std::string text = NanosToMicrosText(ns);
    w_.Key(key);
    w_.RawValue(text.data(), text.size(), rapidjson::kNumberType);
  }

  // Starts an X event; the caller writes "args" and ends the object.
  void Complete(const char* cat, const std::string& name, int64_t pid, int64_t tid, int64_t start_ns,
                int64_t end_ns) {
    w_.StartObject();
    WriteJsonField(w_, "ph", "X");
    WriteJsonField(w_, "cat", cat);
    WriteJsonField(w_, "name", name);
    WriteJsonField(w_, "pid", pid);
    WriteJsonField(w_, "tid", tid);
    Time("ts", start_ns);
    Time("dur", std::max<int64_t>(0, end_ns - start_ns));
  }

  void Dims(const char* key, const int32_t (&d)[3]) {
    w_.Key(key);
    w_.StartArray();
    for (int32_t v : d) w_.Int(v);
    w_.EndArray();
  }

  void DeviceProperties() {
    w_.Key("deviceProperties");
    w_.StartArray();
    for (const DeviceRecord& d : r_.devices) {
      w_.StartObject();
      WriteJsonField(w_, "id", static_cast<int64_t>(d.id));
      WriteJsonField(w_, "name", d.name);
      WriteJsonField(w_, "totalGlobalMem", d.global_memory_bytes);
      WriteJsonField(w_, "computeMajor", d.compute_major);
      WriteJsonField(w_, "computeMinor", d.compute_minor);
      WriteJsonField(w_, "maxThreadsPerBlock", d.max_threads_per_block);
      WriteJsonField(w_, "maxThreadsPerMultiprocessor", d.max_warps_per_multiprocessor * d.threads_per_warp);
      WriteJsonField(w_, "regsPerBlock", d.max_registers_per_block);
      WriteJsonField(w_, "regsPerMultiprocessor", d.max_registers_per_multiprocessor);
      WriteJsonField(w_, "warpSize", d.threads_per_warp);
      WriteJsonField(w_, "sharedMemPerBlock", d.max_shared_per_block);
      WriteJsonField(w_, "sharedMemPerMultiprocessor", d.max_shared_per_multiprocessor);
      WriteJsonField(w_, "numSms", d.multiprocessors);
      WriteJsonField(w_, "l2CacheSize", d.l2_bytes);
      w_.EndObject();
    }
    w_.EndArray();
  }

  void NameEvent(const char* what, int64_t pid, int64_t tid, const std::string& name) {
    w_.StartObject();
    WriteJsonField(w_, "ph", "M");
    WriteJsonField(w_, "name", what);
    WriteJsonField(w_, "pid", pid);
    WriteJsonField(w_, "tid", tid);
    w_.Key("args");
    w_.StartObject();
    WriteJsonField(w_, "name", name);
    w_.EndObject();
    w_.EndObject();
  }

  // Process names for the CPU process and each GPU, thread names per stream.
  void Metadata() {
    std::set<uint32_t> devices;
    std::set<std::pair<uint32_t, uint32_t>> streams;
    for (const auto& k : r_.kernels) streams.insert({k.device, k.stream});
    for (const auto& m : r_.memcpys) streams.insert({m.device, m.stream});
    for (const auto& m : r_.memsets) streams.insert({m.device, m.stream});
    for (const auto& d : r_.devices) devices.insert(d.id);
    for (const auto& s : streams) devices.insert(s.first);
    NameEvent("process_name", r_.process_id, 0, "CPU process " + std::to_string(r_.process_id));
    for (uint32_t d : devices) NameEvent("process_name", d, 0, "GPU " + std::to_string(d));
    for (const auto& [d, s] : streams) NameEvent("thread_name", d, s, "stream " + std::to_string(s));
  }

  uint32_t Pid(uint32_t process) const { return process != 0 ? process : r_.process_id; }

  void CpuEvents() {
    std::vector<const ApiRecord*> apis;
    for (const ApiRecord& a : r_.apis) apis.push_back(&a);
    std::stable_sort(apis.begin(), apis.end(),
                     [](const ApiRecord* a, const ApiRecord* b) { return a->start_ns < b->start_ns; });
    for (const ApiRecord* a : apis) {
      Complete(a->domain == ApiDomain::kRuntime ? "cuda_runtime" : "cuda_driver", a->name, Pid(a->process),
               a->thread, a->start_ns, a->end_ns);
      w_.Key("args");
      w_.StartObject();
      WriteJsonField(w_, "cbid", static_cast<int64_t>(a->callback_id));
      WriteJsonField(w_, "correlation", static_cast<int64_t>(a->correlation));
      if (a->return_value != 0) WriteJsonField(w_, "return value", static_cast<int64_t>(a->return_value));
      w_.EndObject();
      w_.EndObject();
    }
    const int64_t trace_end = TraceSpan(r_).second;
    for (const NvtxRange& n : PairMarkers(r_.markers, trace_end)) {
      Complete("user_annotation", n.name, Pid(n.process), n.thread, n.start_ns, n.end_ns);
      w_.Key("args");
      w_.StartObject();
      if (!n.domain.empty()) WriteJsonField(w_, "domain", n.domain);
      w_.EndObject();
      w_.EndObject();
    }
    for (const OverheadRecord& o : r_.overheads) {
      Complete("overhead", o.kind, Pid(o.process), o.thread, o.start_ns, o.end_ns);
      w_.Key("args");
      w_.StartObject();
      w_.EndObject();
      w_.EndObject();
    }
  }

  void Common(uint32_t device, uint32_t context, uint32_t stream, uint32_t correlation) {
    WriteJsonField(w_, "device", static_cast<int64_t>(device));
    WriteJsonField(w_, "context", static_cast<int64_t>(context));
    WriteJsonField(w_, "stream", static_cast<int64_t>(stream));
    WriteJsonField(w_, "correlation", static_cast<int64_t>(correlation));
  }

  void Bandwidth(int64_t bytes, int64_t start_ns, int64_t end_ns) {
    WriteJsonField(w_, "bytes", bytes);
    const int64_t dur = end_ns - start_ns;
    // bytes per ns = GB/s (10^9 bytes per second).
    if (dur > 0) WriteJsonField(w_, "memory bandwidth (GB/s)", static_cast<double>(bytes) / static_cast<double>(dur));
  }

  // The ac2g flow from the launch call to the GPU activity, when the call is known.
  void Flow(uint32_t correlation, uint32_t device, uint32_t stream, int64_t gpu_start_ns) {
    const ApiRecord* launch = correlation_.Launch(correlation);
    if (launch == nullptr) return;
    for (int end = 0; end < 2; ++end) {
      w_.StartObject();
      WriteJsonField(w_, "ph", end ? "f" : "s");
      WriteJsonField(w_, "id", static_cast<int64_t>(correlation));
      WriteJsonField(w_, "pid", static_cast<int64_t>(end ? device : Pid(launch->process)));
      WriteJsonField(w_, "tid", static_cast<int64_t>(end ? stream : launch->thread));
      Time("ts", end ? gpu_start_ns : launch->start_ns);
      WriteJsonField(w_, "cat", "ac2g");
      WriteJsonField(w_, "name", "ac2g");
      if (end) WriteJsonField(w_, "bp", "e");
      w_.EndObject();
    }
  }

  void Kernel(const KernelRecord& k) {
    Complete("kernel", k.name, k.device, k.stream, k.start_ns, k.end_ns);
    w_.Key("args");
    w_.StartObject();
    Common(k.device, k.context, k.stream, k.correlation);
    WriteJsonField(w_, "registers per thread", static_cast<int64_t>(k.registers_per_thread));
    WriteJsonField(w_, "shared memory",
                   static_cast<int64_t>(k.static_shared_bytes) + static_cast<int64_t>(k.dynamic_shared_bytes));
    WriteJsonField(w_, "static shared memory", static_cast<int64_t>(k.static_shared_bytes));
    WriteJsonField(w_, "dynamic shared memory", static_cast<int64_t>(k.dynamic_shared_bytes));
    Dims("grid", k.grid);
    Dims("block", k.block);
    if (k.graph_node != 0) WriteJsonField(w_, "graph node", k.graph_node);
    w_.EndObject();
    w_.EndObject();
    Flow(k.correlation, k.device, k.stream, k.start_ns);
  }

  void Memcpy(const MemcpyRecord& m) {
    Complete("gpu_memcpy", MemcpyName(m), m.device, m.stream, m.start_ns, m.end_ns);
    w_.Key("args");
    w_.StartObject();
    Common(m.device, m.context, m.stream, m.correlation);
    Bandwidth(m.bytes, m.start_ns, m.end_ns);
    if (m.src_device) WriteJsonField(w_, "src device", static_cast<int64_t>(*m.src_device));
    if (m.dst_device) WriteJsonField(w_, "dst device", static_cast<int64_t>(*m.dst_device));
    w_.EndObject();
    w_.EndObject();
    Flow(m.correlation, m.device, m.stream, m.start_ns);
  }

  void Memset(const MemsetRecord& m) {
    Complete("gpu_memset", MemsetName(m), m.device, m.stream, m.start_ns, m.end_ns);
    w_.Key("args");
    w_.StartObject();
    Common(m.device, m.context, m.stream, m.correlation);
    Bandwidth(m.bytes, m.start_ns, m.end_ns);
    w_.EndObject();
    w_.EndObject();
    Flow(m.correlation, m.device, m.stream, m.start_ns);
  }

  // GPU activities of all kinds in start order (what analyze's reorder window expects).
  void GpuEvents() {
    std::vector<std::tuple<int64_t, int, size_t>> order;  // start, kind, index
    for (size_t i = 0; i < r_.kernels.size(); ++i) order.emplace_back(r_.kernels[i].start_ns, 0, i);
    for (size_t i = 0; i < r_.memcpys.size(); ++i) order.emplace_back(r_.memcpys[i].start_ns, 1, i);
    for (size_t i = 0; i < r_.memsets.size(); ++i) order.emplace_back(r_.memsets[i].start_ns, 2, i);
    std::stable_sort(order.begin(), order.end());
    for (const auto& [start, kind, i] : order) {
      if (kind == 0) Kernel(r_.kernels[i]);
      if (kind == 1) Memcpy(r_.memcpys[i]);
      if (kind == 2) Memset(r_.memsets[i]);
    }
  }

  // Synchronization on the GPU row of its context's device when known, else
  // on the CPU thread that made the call.
  void SyncEvents() {
    std::map<uint32_t, uint32_t> device_of_context;
    for (const auto& k : r_.kernels) device_of_context[k.context] = k.device;
    for (const auto& m : r_.memcpys) device_of_context[m.context] = m.device;
    for (const auto& m : r_.memsets) device_of_context[m.context] = m.device;
    for (const SyncRecord& s : r_.syncs) {
      auto dev = device_of_context.find(s.context);
      const ApiRecord* call = correlation_.Launch(s.correlation);
      int64_t pid = 0, tid = 0;
      if (dev != device_of_context.end()) {
        pid = dev->second;
        tid = s.stream.value_or(0);
      } else if (call != nullptr) {
        pid = Pid(call->process);
        tid = call->thread;
      } else {
        pid = r_.process_id;
      }
      Complete("cuda_sync", ToString(s.kind), pid, tid, s.start_ns, s.end_ns);
      w_.Key("args");
      w_.StartObject();
      if (dev != device_of_context.end()) WriteJsonField(w_, "device", static_cast<int64_t>(dev->second));
      WriteJsonField(w_, "context", static_cast<int64_t>(s.context));
      WriteJsonField(w_, "stream", s.stream ? static_cast<int64_t>(*s.stream) : int64_t{-1});
      WriteJsonField(w_, "correlation", static_cast<int64_t>(s.correlation));
      if (s.event) WriteJsonField(w_, "event", static_cast<int64_t>(*s.event));
      w_.EndObject();
      w_.EndObject();
    }
  }

  const TraceRecords& r_;
  const ChromeTraceOptions& options_;
  Correlation correlation_;
  JsonStringBuffer buf_;
  JsonWriter w_{buf_};
};

}  // namespace

std::string WriteChromeTrace(const TraceRecords& records, const ChromeTraceOptions& options) {
  return TraceWriter(records, options).Write();
}

}  // namespace gpugate
