// Pure steps on CUPTI records (see records.h).
#include "cupti/records.h"

#include "util/text/escape.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

namespace gpugate {

const char* ToString(MemcpyKind k) {
  switch (k) {
    case MemcpyKind::kHtoD: return "HtoD";
    case MemcpyKind::kDtoH: return "DtoH";
    case MemcpyKind::kHtoA: return "HtoA";
    case MemcpyKind::kAtoH: return "AtoH";
    case MemcpyKind::kAtoA: return "AtoA";
    case MemcpyKind::kAtoD: return "AtoD";
    case MemcpyKind::kDtoA: return "DtoA";
    case MemcpyKind::kDtoD: return "DtoD";
    case MemcpyKind::kHtoH: return "HtoH";
    case MemcpyKind::kPtoP: return "PtoP";
    case MemcpyKind::kUnknown: break;
  }
  return "Unknown";
}

const char* ToString(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kArray: return "Array";
    case MemoryKind::kManaged: return "Managed";
    case MemoryKind::kDeviceStatic: return "Device Static";
    case MemoryKind::kManagedStatic: return "Managed Static";
    case MemoryKind::kUnknown: break;
  }
  return "Unknown";
}

const char* ToString(SyncKind k) {
  switch (k) {
    case SyncKind::kEventSynchronize: return "Event Sync";
    case SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case SyncKind::kStreamSynchronize: return "Stream Sync";
    case SyncKind::kContextSynchronize: return "Context Sync";
    case SyncKind::kUnknown: break;
  }
  return "Unknown Sync";
}

std::string MemcpyName(const MemcpyRecord& m) {
  return std::string("Memcpy ") + ToString(m.kind) + " (" + ToString(m.src) + " -> " + ToString(m.dst) + ")";
}

std::string MemsetName(const MemsetRecord& m) { return std::string("Memset (") + ToString(m.memory) + ")"; }

namespace {
// The host side of a copy: the source of a copy from the host, the
// destination of a copy to the host.
std::optional<MemoryKind> HostSide(const MemcpyRecord& m) {
  switch (m.kind) {
    case MemcpyKind::kHtoD:
    case MemcpyKind::kHtoA: return m.src;
    case MemcpyKind::kDtoH:
    case MemcpyKind::kAtoH: return m.dst;
    default: return std::nullopt;
  }
}
}  // namespace

bool IsPageableCopy(const MemcpyRecord& m) {
  if (m.kind == MemcpyKind::kHtoH) return m.src == MemoryKind::kPageable || m.dst == MemoryKind::kPageable;
  return HostSide(m) == MemoryKind::kPageable;
}

bool IsPinnedCopy(const MemcpyRecord& m) {
  if (m.kind == MemcpyKind::kHtoH) return m.src == MemoryKind::kPinned && m.dst == MemoryKind::kPinned;
  return HostSide(m) == MemoryKind::kPinned;
}

std::string StripApiVersionSuffix(const std::string& name) {
  // CUPTI names versioned entry points "cudaMemcpy_v3020": "_v" then digits.
  const size_t pos = name.rfind("_v");
  if (pos == std::string::npos || pos + 2 >= name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  return name.substr(0, pos);
}

std::vector<NvtxRange> PairMarkers(const std::vector<MarkerRecord>& markers, int64_t open_end_ns) {
  std::vector<NvtxRange> out;
  std::map<uint32_t, size_t> open;  // marker id -> index in out
  for (const MarkerRecord& m : markers) {
    switch (m.phase) {
      case MarkerRecord::Phase::kInstant:
        out.push_back({m.name, m.domain, m.timestamp_ns, m.timestamp_ns, m.process, m.thread});
        break;
      case MarkerRecord::Phase::kStart:
        open[m.id] = out.size();
        // Closed at the end of the trace unless its end arrives.
        out.push_back({m.name, m.domain, m.timestamp_ns, std::max(m.timestamp_ns, open_end_ns), m.process,
                       m.thread});
        break;
      case MarkerRecord::Phase::kEnd: {
        auto it = open.find(m.id);
        if (it == open.end()) break;  // its start was never seen
        out[it->second].end_ns = std::max(out[it->second].start_ns, m.timestamp_ns);
        open.erase(it);
        break;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const NvtxRange& a, const NvtxRange& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.end_ns > b.end_ns;
  });
  return out;
}

Correlation::Correlation(const std::vector<ApiRecord>& apis) : apis_(&apis) {
  for (size_t i = 0; i < apis.size(); ++i)
    if (apis[i].correlation != 0) by_correlation_.emplace(apis[i].correlation, i);
}

const ApiRecord* Correlation::Launch(uint32_t correlation) const {
  if (correlation == 0) return nullptr;
  auto it = by_correlation_.find(correlation);
  return it == by_correlation_.end() ? nullptr : &(*apis_)[it->second];
}

std::pair<int64_t, int64_t> TraceSpan(const TraceRecords& r) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  auto add = [&](int64_t s, int64_t e) {
    lo = std::min(lo, s);
    hi = std::max(hi, std::max(s, e));
  };
  for (const auto& x : r.kernels) add(x.start_ns, x.end_ns);
  for (const auto& x : r.memcpys) add(x.start_ns, x.end_ns);
  for (const auto& x : r.memsets) add(x.start_ns, x.end_ns);
  for (const auto& x : r.apis) add(x.start_ns, x.end_ns);
  for (const auto& x : r.syncs) add(x.start_ns, x.end_ns);
  for (const auto& x : r.overheads) add(x.start_ns, x.end_ns);
  for (const auto& x : r.markers) add(x.timestamp_ns, x.timestamp_ns);
  if (lo > hi) return {0, 0};
  return {lo, hi};
}

std::vector<KernelResult> KernelResultsFromRecords(const TraceRecords& records) {
  std::vector<const KernelRecord*> sorted;
  sorted.reserve(records.kernels.size());
  for (const KernelRecord& k : records.kernels) sorted.push_back(&k);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const KernelRecord* a, const KernelRecord* b) { return a->start_ns < b->start_ns; });
  std::map<std::string, KernelResult> by_name;
  std::map<std::string, int64_t> total_ns;
  std::map<std::string, std::map<std::pair<double, double>, int64_t>> config_ns;
  for (const KernelRecord* k : sorted) {
    const std::string name = BoundedName(k->name);
    KernelResult& r = by_name[name];
    r.name = name;
    const int64_t dur = std::max<int64_t>(0, k->end_ns - k->start_ns);
    ++r.count;
    total_ns[name] += dur;
    r.durations_s.push_back(static_cast<double>(dur) * 1e-9);
    {
      const int grid[3] = {static_cast<int>(k->grid[0]), static_cast<int>(k->grid[1]), static_cast<int>(k->grid[2])};
      const int block[3] = {static_cast<int>(k->block[0]), static_cast<int>(k->block[1]), static_cast<int>(k->block[2])};
      r.launch_groups.push_back(LaunchGroupKey(grid, block));
    }
    r.metrics["registers_per_thread"] = k->registers_per_thread;
    r.metrics["shared_mem_bytes"] = static_cast<double>(k->static_shared_bytes) + k->dynamic_shared_bytes;
    // Time per launch configuration (blocks, threads per block).
    config_ns[name][{static_cast<double>(k->grid[0]) * k->grid[1] * k->grid[2],
                     static_cast<double>(k->block[0]) * k->block[1] * k->block[2]}] += dur;
  }
  std::vector<KernelResult> out;
  for (auto& [name, r] : by_name) {
    r.total_s = static_cast<double>(total_ns[name]) * 1e-9;
    // The main launch configuration: the one that holds most of the time
    // (the rules judge a kernel launched at several sizes by that one).
    const std::pair<double, double>* main = nullptr;
    int64_t main_ns = -1;
    for (const auto& [config, ns] : config_ns[name])
      if (ns > main_ns) main = &config, main_ns = ns;
    if (main) {
      r.metrics["grid_blocks"] = main->first;
      r.metrics["block_threads"] = main->second;
      if (total_ns[name] > 0)
        r.metrics["launch_config_share"] = static_cast<double>(main_ns) / static_cast<double>(total_ns[name]);
    }
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [&](const KernelResult& a, const KernelResult& b) {
    const int64_t ta = total_ns[a.name], tb = total_ns[b.name];
    return ta != tb ? ta > tb : a.name < b.name;
  });
  return out;
}

}  // namespace gpugate
