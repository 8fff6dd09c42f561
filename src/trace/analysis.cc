// Streaming trace analyses. OnEvent keeps aggregates; GPU activities wait in a
// bounded min-heap by start time (the reorder window) and are then swept, in
// start order, into per-device and per-stream running interval unions that
// also classify the idle gaps (definitions in docs/trace.md; idle categories
// follow HolisticTraceAnalysis' idle_time_breakdown: host wait, kernel wait,
// other). Launch delays go to a bounded quantile sketch, so memory does not
// grow with the number of events.
#include "trace/analysis.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <deque>
#include <iterator>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "model/results.h"
#include "trace/trace_reader.h"
#include "util/text/escape.h"

namespace gpugate {

namespace {

/// "Device", "Device -> Device": every end of the route is device memory
/// ("Host -> Device" names no host memory kind: unknown).
bool OnlyDevices(std::string_view route) {
  bool any = false;
  while (!route.empty()) {
    const size_t arrow = route.find("->");
    std::string_view end = route.substr(0, arrow);
    while (!end.empty() && end.front() == ' ') end.remove_prefix(1);
    while (!end.empty() && end.back() == ' ') end.remove_suffix(1);
    if (end != "Device") return false;
    any = true;
    if (arrow == std::string_view::npos) break;
    route.remove_prefix(arrow + 2);
  }
  return any;
}

}  // namespace

MemcpyStats ClassifyMemcpy(std::string_view name) {
  MemcpyStats m;
  std::string_view rest = name;
  size_t sp = rest.find(' ');
  if (sp != std::string_view::npos) {
    std::string_view head = rest.substr(0, sp);
    rest.remove_prefix(sp + 1);
    size_t end = rest.find(' ');
    std::string_view kind = rest.substr(0, end);
    m.kind = head == "Memset" ? "Memset" : std::string(kind.empty() ? "unknown" : kind);
  } else {
    m.kind = std::string(name);
  }
  size_t open = name.find('('), close = name.rfind(')');
  if (open != std::string_view::npos && close != std::string_view::npos && close > open)
    m.route = std::string(name.substr(open + 1, close - open - 1));
  if (m.route.find("Pageable") != std::string::npos) m.memory = "pageable";
  else if (m.route.find("Pinned") != std::string::npos) m.memory = "pinned";
  else if (m.route.find("Managed") != std::string::npos) m.memory = "managed";
  else if (OnlyDevices(m.route)) m.memory = "device";
  else m.memory = "unknown";
  return m;
}

namespace {

enum class GpuKind : uint8_t { kCompute = 1, kCommunication = 2, kMemcpy = 3, kMemset = 4 };
constexpr int64_t kNoLaunch = INT64_MIN;

/// One launch configuration's launches: how many, their time, and the
/// resources they state. Launches of one grid and block that state
/// different registers or shared memory keep the largest, so the figures do
/// not depend on the order of the launches.
struct ConfigAgg {
  int64_t count = 0, total_ns = 0;
  int64_t graph_count = 0, graph_ns = 0;  ///< of them, launched by a CUDA graph launch
  std::optional<double> regs, smem;
  /// Shared memory per block of the launches (dynamic shared memory is sized
  /// per launch) and the time at each, at most kMaxSmemValues values (a
  /// space-saving count, Metwally et al. 2005): the configuration's `smem` is
  /// the one whose time is surest (SmemTime::Sure).
  struct SmemTime {
    double bytes;
    int64_t ns;          ///< time counted, at least the size's own
    int64_t error_ns;    ///< of it, inherited from the size it took the place of
    int64_t Sure() const { return ns - error_ns; }  ///< at most the size's own time
  };
  std::vector<SmemTime> smem_ns;
};

/// Distinct shared-memory sizes timed per launch configuration (a bounded
/// space-saving count: a size holding more than 1/16 of the time is kept,
/// and what any kept size inherited is at most 1/16 of the time).
constexpr size_t kMaxSmemValues = 16;

struct GpuRec {
  int64_t start, end;
  int64_t launch_ts = kNoLaunch;
  int64_t correlation = -1;
  uint64_t seq = 0;              ///< arrival order
  int64_t launch_dur = 0;
  uint32_t name;
  uint32_t thread = UINT32_MAX;  ///< launching CPU thread
  uint32_t stream;               ///< index into State::streams
  GpuKind kind;
  bool waiting = false;          ///< listed in State::waiting_gpu
  bool graph = false;            ///< launched by a CUDA graph launch call
  uint32_t launch_key = 0;       ///< LaunchGroupKey of its grid and block
  /// Its launch configuration's group (CountLaunch), null when untracked;
  /// the sweep adds it there when a graph launched it.
  ConfigAgg* config = nullptr;
};

/// Running state of one device's sweep over its start-ordered GPU activities.
struct DeviceSweep {
  bool started = false;
  int64_t last_start = INT64_MIN;  ///< latest start swept so far (order check)
  int64_t first_start = 0, first_launch_ts = kNoLaunch;  ///< for the leading gap
  /// front[k]: end of the union of activities of kind <= k (index 4: all).
  int64_t front[5] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
  int64_t unions[5] = {0, 0, 0, 0, 0};
  int64_t comm_front = INT64_MIN, comm_union = 0;  ///< NCCL kernels alone
  DeviceStats d;
  std::map<uint32_t, StreamStats> streams;
  std::map<uint32_t, int64_t> stream_front;
  std::map<uint32_t, KernelStats> kernels;
};

/// Adds [start, end) to a union kept as a frontier (the end of the union so
/// far); returns the newly covered length. Exact for start-ordered input; an
/// interval starting before the frontier is taken to overlap the union up to
/// the frontier, so only its part beyond the frontier is added.
inline int64_t Extend(int64_t& frontier, int64_t start, int64_t end) {
  if (end <= frontier) return 0;
  int64_t added = end - std::max(start, frontier);
  frontier = end;
  return added;
}

void ClassifyGap(IdleBreakdown& idle, int64_t gap_start, int64_t gap, int64_t next_launch_ts,
                 int64_t threshold) {
  if (gap <= 0) return;
  if (next_launch_ts != kNoLaunch && next_launch_ts > gap_start) idle.host_wait_ns += gap;
  else if (gap < threshold) idle.kernel_wait_ns += gap;
  else idle.other_ns += gap;
}

struct RuntimeRec {
  int64_t ts;
  int64_t dur;
  uint32_t thread;
  bool graph = false;    ///< a graph launch call
  bool matched = false;  ///< a GPU activity found it
};

/// cudaGraphLaunch, cuGraphLaunch, cudaGraphLaunch_v10000, ...
bool IsGraphLaunch(std::string_view name) { return name.find("GraphLaunch") != std::string_view::npos; }

/// "Torch-Compiled Region: 0/0" and the like (torch.compile).
bool IsCompiledRegion(std::string_view name) { return name.rfind("Torch-Compiled Region", 0) == 0; }
/// Distinct compiled-region names kept; further ones are not listed.
constexpr size_t kMaxCompiledRegions = 4096;
/// Forgotten, never-matched launch calls remembered to recognise a launch
/// window miss; beyond this a miss counts as a plain unmatched activity.
constexpr size_t kMaxForgotten = size_t{1} << 20;
/// GPU activities remembered after they stopped waiting for their launch
/// call, to recognise the call if it comes; a trace without launch calls
/// would otherwise remember every activity.
constexpr size_t kMaxGaveUp = size_t{1} << 16;

struct CpuFrame {
  int64_t start, end;
  uint32_t name;
  bool is_op;
};
struct LaterFirst {  // min-heap on start; at equal start the longer frame first
  bool operator()(const CpuFrame& a, const CpuFrame& b) const {
    return a.start != b.start ? a.start > b.start : a.end < b.end;
  }
};

struct OpAgg {
  int64_t count = 0, total = 0, self = 0;
};

struct KernelAttr {
  double occ_sum = 0;
  int64_t occ_n = 0;
  std::optional<double> regs, smem;
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
};

struct ThreadState {
  std::string label;
  std::priority_queue<CpuFrame, std::vector<CpuFrame>, LaterFirst> pending;
  std::deque<CpuFrame> run;  ///< frames that arrived in order (see State::run)
  size_t Pending() const { return pending.size() + run.size(); }
  /// Adds a frame to the nesting window.
  void Push(const CpuFrame& f) {
    if (run.empty() || LaterFirst{}(f, run.back())) run.push_back(f);
    else pending.push(f);
  }
  /// Takes the earliest frame out of the nesting window.
  CpuFrame PopEarliest() {
    if (!run.empty() && (pending.empty() || LaterFirst{}(pending.top(), run.front()))) {
      CpuFrame f = run.front();
      run.pop_front();
      return f;
    }
    CpuFrame f = pending.top();
    pending.pop();
    return f;
  }
  struct Open {
    CpuFrame f;
    int64_t child_ns;
  };
  std::vector<Open> stack;
  int64_t last_start = INT64_MIN;
  std::vector<CpuFrame> frames;  ///< every CPU frame (flame graph only)
};

constexpr size_t kReorderWindow = 4096;
/// Distinct (device, byte size) groups of HtoD copies tracked; copies of
/// further sizes are only counted (h2d_copies_untracked).
constexpr size_t kMaxCopySizes = 4096;
/// Distinct (device, kernel, grid, block) launch configurations tracked;
/// launches of further configurations are only counted (launches_untracked).
constexpr size_t kMaxLaunchConfigs = 65536;
/// Without profiler steps, a size recurs when copied at least this often.
constexpr int64_t kMinRepeatsWithoutSteps = 10;

}  // namespace

struct TraceAnalyzer::State {
  AnalysisOptions opt;
  int64_t span_start = INT64_MAX, span_end = INT64_MIN;

  // Interned names (kernels, memcpys, memsets, CPU frames).
  std::unordered_map<std::string, uint32_t> name_ids;
  std::vector<std::string> names;
  std::vector<bool> name_nccl;

  std::vector<std::pair<int64_t, int64_t>> streams;  // (device, stream)
  std::map<std::pair<int64_t, int64_t>, uint32_t> stream_ids;

  // GPU activities in the reorder window: records live in `pool` (freed slots
  // are reused), `heap` orders their slots by start, longest first at equal
  // start, then arrival.
  std::vector<GpuRec> pool;
  std::vector<uint32_t> free_slots;
  std::vector<uint32_t> heap;
  /// Activities that arrived in order (each after the previous by HeapLater's
  /// order) wait here instead of in the heap: most do, and a deque append and
  /// pop cost less than heap operations. The earliest pending activity is the
  /// earlier of run.front() and the heap's top.
  std::deque<uint32_t> run;
  uint64_t next_seq = 0;
  std::map<int64_t, DeviceSweep> sweeps;
  detail::BoundedQuantiles delays;
  LaunchStats launch;
  std::map<uint32_t, ShortKernel> short_by_name;
  std::vector<GpuRec> flame_gpu;  ///< swept activities (flame graph only)
  std::unordered_map<uint64_t, KernelAttr> kernel_attr;  // AttrKey(device, name)
  static uint64_t AttrKey(int64_t device, uint32_t name) {
    return (static_cast<uint64_t>(device) << 32) ^ name;
  }
  std::map<std::tuple<int64_t, std::string, std::string>, MemcpyStats> traffic;

  std::unordered_map<int64_t, RuntimeRec> runtime;
  std::deque<int64_t> runtime_order;
  std::unordered_multimap<int64_t, uint32_t> waiting_gpu;  // correlation -> pool slot
  std::deque<int64_t> waiting_order;
  std::unordered_set<int64_t> forgotten;  ///< evicted launch calls no GPU activity had found
  /// Correlations of GPU activities that stopped waiting for their launch
  /// call (the launch window evicted them, or the reorder window swept
  /// them first): a call that comes later is a late launch call.
  std::unordered_set<int64_t> gave_up;
  std::deque<int64_t> gave_up_order;  ///< oldest first; kMaxGaveUp are kept
  Approximations approx;
  CudaGraphStats graphs;
  std::map<uint32_t, KernelStats> graph_kernels;
  std::map<uint32_t, OpAgg> compiled;

  struct NumPairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& k) const {
      return std::hash<uint64_t>()(static_cast<uint64_t>(k.first) * 0x9E3779B97F4A7C15ULL ^
                                   static_cast<uint64_t>(k.second));
    }
  };
  // Keyed by both numbers: a pid and tid packed into 64 bits would collide
  // (Kineto's tids can be 64-bit pthread ids).
  std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, NumPairHash> thread_num_ids;
  std::map<std::pair<std::string, std::string>, uint32_t> thread_text_ids;
  std::vector<ThreadState> threads;
  std::unordered_map<uint32_t, OpAgg> ops;
  int64_t out_of_order = 0;

  std::map<std::pair<int64_t, int64_t>, MemoryPeak> memory;
  std::vector<MemorySample> memory_timeline;
  MemoryChartBuilder memory_chart;

  std::set<int64_t> other_devices;  // GPUs the device filter left out
  int64_t profiler_steps = 0;
  // Step numbers counted so far: a step that several threads (or profiler
  // instances) annotate is one step.
  std::unordered_set<int64_t> step_numbers;
  std::vector<ProfilerStep> steps;
  std::map<std::pair<int64_t, int64_t>, RepeatedCopy> h2d;  // (device, bytes)
  int64_t h2d_untracked = 0;
  // Compute-kernel launches per (device, name, grid, block): count, total ns.
  using LaunchConfig = std::tuple<int64_t, uint32_t, std::array<int, 6>>;
  struct LaunchConfigHash {
    size_t operator()(const LaunchConfig& k) const {
      uint64_t h = static_cast<uint64_t>(std::get<0>(k)) * 0x9E3779B97F4A7C15ULL ^ std::get<1>(k);
      for (int v : std::get<2>(k)) h = (h ^ static_cast<uint32_t>(v)) * 0x100000001B3ULL;
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<LaunchConfig, ConfigAgg, LaunchConfigHash> configs;
  int64_t configs_untracked = 0;

  /// Recently interned names by a cheap fingerprint (length, first and last
  /// bytes): a hit costs one comparison instead of hashing a long kernel name.
  struct InternSlot {
    uint32_t id = UINT32_MAX;
  };
  std::array<InternSlot, 1024> intern_cache{};
  uint32_t Intern(const std::string& name) {
    size_t fp = name.size() * 131;
    if (!name.empty()) fp += static_cast<unsigned char>(name.front()) * 31 + static_cast<unsigned char>(name.back()) +
                             static_cast<unsigned char>(name[name.size() / 2]) * 7;
    InternSlot& slot = intern_cache[fp & (intern_cache.size() - 1)];
    if (slot.id != UINT32_MAX && names[slot.id] == name) return slot.id;
    slot.id = InternSlow(name);
    return slot.id;
  }
  uint32_t InternSlow(const std::string& name) {
    auto it = name_ids.find(name);
    if (it != name_ids.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(names.size());
    // A name with invalid UTF-8 is kept as every later reader names it
    // (repaired, with a hash of its raw bytes: BoundedName), so that two
    // names differing only in invalid bytes are two rows in every report.
    names.push_back(ValidUtf8Prefix(name) == name.size() ? name : BoundedName(name));
    name_nccl.push_back(IsCommunicationKernel(name));
    name_ids.emplace(name, id);
    return id;
  }

  uint32_t StreamId(int64_t device, int64_t stream) {
    auto key = std::make_pair(device, stream);
    auto it = stream_ids.find(key);
    if (it != stream_ids.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(streams.size());
    streams.push_back(key);
    stream_ids.emplace(key, id);
    return id;
  }

  uint32_t ThreadId(const TraceEvent& e) {
    if (e.pid_is_num && e.tid_is_num) {
      const std::pair<int64_t, int64_t> key(e.pid_num, e.tid_num);
      auto it = thread_num_ids.find(key);
      if (it != thread_num_ids.end()) return it->second;
      uint32_t id = NewThread(e);
      thread_num_ids.emplace(key, id);
      return id;
    }
    auto key = std::make_pair(e.pid_text, e.tid_text);
    auto it = thread_text_ids.find(key);
    if (it != thread_text_ids.end()) return it->second;
    uint32_t id = NewThread(e);
    thread_text_ids.emplace(key, id);
    return id;
  }
  uint32_t NewThread(const TraceEvent& e) {
    threads.emplace_back();
    threads.back().label = "pid " + e.pid_text + " tid " + e.tid_text;
    return static_cast<uint32_t>(threads.size() - 1);
  }

  void OnGpu(const TraceEvent& e, GpuKind kind) {
    int64_t device = e.GpuDevice();
    if (opt.device && device != *opt.device) {
      if (other_devices.size() < TraceReport::kMaxOtherDevices) other_devices.insert(device);
      return;
    }
    GpuRec r;
    r.start = e.ts_ns;
    r.end = e.EndNs();
    r.name = Intern(e.name);
    if (kind == GpuKind::kCompute && name_nccl[r.name]) kind = GpuKind::kCommunication;
    r.kind = kind;
    r.stream = StreamId(device, e.GpuStream());
    r.seq = next_seq++;
    r.correlation = e.correlation;
    r.launch_key = LaunchGroupKey(e.grid, e.block);
    uint32_t index;
    if (!free_slots.empty()) {
      index = free_slots.back();
      free_slots.pop_back();
    } else {
      index = static_cast<uint32_t>(pool.size());
      pool.emplace_back();
    }
    if (e.correlation >= 0) {
      auto it = runtime.find(e.correlation);
      if (it != runtime.end()) {
        r.launch_ts = it->second.ts;
        r.launch_dur = it->second.dur;
        r.thread = it->second.thread;
        r.graph = it->second.graph;
        if (r.graph && !it->second.matched) launch.launch_cost_ns += it->second.dur;
        it->second.matched = true;
      } else if (!forgotten.empty() && forgotten.count(e.correlation)) {
        // Its launch call left the window before this activity arrived: the
        // window is too small for this trace's order. Widen it from now on.
        ++approx.launch_window_misses;
        opt.launch_window = std::min(opt.launch_window * 2, Approximations::kMaxLaunchWindow);
      } else {
        r.waiting = true;
        waiting_gpu.emplace(e.correlation, index);
        waiting_order.push_back(e.correlation);
        while (waiting_order.size() > opt.launch_window) {
          if (waiting_gpu.erase(waiting_order.front()) > 0) GiveUp(waiting_order.front());
          waiting_order.pop_front();
        }
      }
    }
    // Before the record can be swept (below), which needs its group.
    if (kind == GpuKind::kCompute) r.config = CountLaunch(device, r.name, e);
    pool[index] = r;
    if (run.empty() || HeapLater{this}(index, run.back())) {
      run.push_back(index);
    } else {
      heap.push_back(index);
      std::push_heap(heap.begin(), heap.end(), HeapLater{this});
    }
    if (run.size() + heap.size() > std::max<size_t>(opt.gpu_reorder_window, 1)) SweepEarliest();
    if (kind == GpuKind::kCompute || kind == GpuKind::kCommunication) {
      KernelAttr& a = kernel_attr[AttrKey(device, r.name)];
      if (e.occupancy_pct) {
        a.occ_sum += *e.occupancy_pct;
        ++a.occ_n;
      }
      if (e.registers_per_thread) a.regs = e.registers_per_thread;
      if (e.shared_memory) a.smem = e.shared_memory;
      if (e.grid[0]) std::copy(e.grid, e.grid + 3, a.grid);
      if (e.block[0]) std::copy(e.block, e.block + 3, a.block);
    } else {
      MemcpyStats c = ClassifyMemcpy(e.name);
      // The event's category decides copy or memset; a copy whose name
      // begins with "Memset" is a copy of unknown direction.
      if (kind == GpuKind::kMemset) c.kind = "Memset";
      else if (c.kind == "Memset") c.kind = "unknown";
      auto key = std::make_tuple(device, c.kind, c.route);
      auto it = traffic.find(key);
      if (it == traffic.end()) {
        c.device = device;
        it = traffic.emplace(key, std::move(c)).first;
      }
      ++it->second.count;
      it->second.bytes += e.bytes.value_or(0);
      it->second.total_ns += e.dur_ns;
      if (e.bytes) it->second.sized_ns += e.dur_ns;
      else ++it->second.without_bytes;
      if (kind == GpuKind::kMemcpy && it->second.kind == "HtoD" && e.bytes.value_or(0) > 0)
        CountHostToDevice(device, *e.bytes, e.ts_ns, e.dur_ns, it->second.memory == "pinned");
    }
  }

  /// One compute-kernel launch into its (device, name, grid, block) group,
  /// in bounded memory, with the registers and shared memory it states.
  ConfigAgg* CountLaunch(int64_t device, uint32_t name, const TraceEvent& e) {
    LaunchConfig key{device, name, {e.grid[0], e.grid[1], e.grid[2], e.block[0], e.block[1], e.block[2]}};
    auto it = configs.find(key);
    if (it == configs.end()) {
      if (configs.size() >= kMaxLaunchConfigs) {
        ++configs_untracked;
        return nullptr;
      }
      it = configs.emplace(key, ConfigAgg{}).first;
    }
    ConfigAgg& c = it->second;
    ++c.count;
    c.total_ns += e.dur_ns;
    // Registers are the compiled function's (the largest when records
    // differ); shared memory can be sized per launch, so the configuration
    // takes the size that holds most of its time (ties: the larger), not
    // one rare launch's.
    if (e.registers_per_thread) c.regs = std::max(c.regs.value_or(0), *e.registers_per_thread);
    if (e.shared_memory) CountSharedMemory(c, *e.shared_memory, e.dur_ns);
    return &c;  // nodes of an unordered_map stay where they are
  }

  /// One launch's shared memory and time into its configuration's count.
  /// Up to kMaxSmemValues sizes the times are exact. Past that, the size
  /// with the least time gives way and the new one inherits that time as
  /// its error (the space-saving count), so a size that holds more than
  /// 1/16 of the time is kept whatever came first, and no error exceeds
  /// 1/16 of the time. The pick is the size with the most time surely its
  /// own (time minus error), never an inherited count: it is the size that
  /// holds most of the time whenever that one leads every other by more
  /// than the least time kept (at most 1/16 of the time), in any order.
  static void CountSharedMemory(ConfigAgg& c, double bytes, int64_t dur_ns) {
    auto at = std::find_if(c.smem_ns.begin(), c.smem_ns.end(),
                           [&](const ConfigAgg::SmemTime& v) { return v.bytes == bytes; });
    if (at != c.smem_ns.end()) {
      at->ns += dur_ns;
    } else if (c.smem_ns.size() < kMaxSmemValues) {
      c.smem_ns.push_back({bytes, dur_ns, 0});
    } else {
      auto least = std::min_element(c.smem_ns.begin(), c.smem_ns.end(),
                                    [](const auto& a, const auto& b) { return a.ns < b.ns; });
      *least = {bytes, least->ns + dur_ns, least->ns};
    }
    auto most = std::max_element(c.smem_ns.begin(), c.smem_ns.end(), [](const auto& a, const auto& b) {
      return a.Sure() != b.Sure() ? a.Sure() < b.Sure() : a.bytes < b.bytes;
    });
    c.smem = most->bytes;
  }

  /// One HtoD copy into its (device, size) group, in bounded memory.
  void CountHostToDevice(int64_t device, int64_t bytes, int64_t start, int64_t dur, bool pinned) {
    auto key = std::make_pair(device, bytes);
    auto it = h2d.find(key);
    if (it == h2d.end()) {
      if (h2d.size() >= kMaxCopySizes) {
        ++h2d_untracked;
        return;
      }
      RepeatedCopy c;
      c.device = device;
      c.bytes = bytes;
      c.first_ns = c.last_ns = start;
      it = h2d.emplace(key, c).first;
    }
    RepeatedCopy& c = it->second;
    ++c.count;
    if (pinned) ++c.pinned;
    c.total_ns += dur;
    c.first_ns = std::min(c.first_ns, start);
    c.last_ns = std::max(c.last_ns, start);
  }

  void GiveUp(int64_t correlation) {
    if (!gave_up.insert(correlation).second) return;
    gave_up_order.push_back(correlation);
    if (gave_up_order.size() > kMaxGaveUp) {
      gave_up.erase(gave_up_order.front());
      gave_up_order.pop_front();
    }
  }

  void OnRuntime(const TraceEvent& e, uint32_t thread) {
    const bool graph = IsGraphLaunch(e.name);
    if (graph) ++graphs.launches;
    if (e.correlation < 0) return;
    RuntimeRec rr{e.ts_ns, e.dur_ns, thread, graph, false};
    auto range = waiting_gpu.equal_range(e.correlation);
    for (auto it = range.first; it != range.second; ++it) {
      GpuRec& g = pool[it->second];
      g.waiting = false;
      g.launch_ts = rr.ts;
      g.launch_dur = rr.dur;
      g.thread = thread;
      g.graph = graph;
      if (graph && !rr.matched) launch.launch_cost_ns += rr.dur;
      rr.matched = true;
    }
    waiting_gpu.erase(range.first, range.second);
    if (!rr.matched && !gave_up.empty() && gave_up.count(e.correlation) > 0) {
      gave_up.erase(e.correlation);  // its entry in gave_up_order is dropped in turn
      // Its GPU activity was already swept without it: the windows are too
      // small for this trace's order. Widen the launch window from now on.
      ++approx.late_launch_calls;
      opt.launch_window = std::min(opt.launch_window * 2, Approximations::kMaxLaunchWindow);
    }
    if (runtime.insert_or_assign(e.correlation, rr).second) {
      runtime_order.push_back(e.correlation);
      while (runtime_order.size() > opt.launch_window) {
        auto old = runtime.find(runtime_order.front());
        if (old != runtime.end() && !old->second.matched && forgotten.size() < kMaxForgotten)
          forgotten.insert(old->first);
        if (old != runtime.end()) runtime.erase(old);
        runtime_order.pop_front();
      }
    }
  }

  struct HeapLater {  // std heaps are max-heaps: "a after b" puts the earliest on top
    const State* s;
    bool operator()(uint32_t a, uint32_t b) const {
      const GpuRec &x = s->pool[a], &y = s->pool[b];
      if (x.start != y.start) return x.start > y.start;
      if (x.end != y.end) return x.end < y.end;
      return x.seq > y.seq;
    }
  };

  /// Takes the earliest activity out of the reorder window and sweeps it.
  void SweepEarliest() {
    uint32_t slot;
    if (!run.empty() && (heap.empty() || HeapLater{this}(heap.front(), run.front()))) {
      slot = run.front();
      run.pop_front();
    } else {
      std::pop_heap(heap.begin(), heap.end(), HeapLater{this});
      slot = heap.back();
      heap.pop_back();
    }
    GpuRec g = pool[slot];
    if (g.waiting) {  // its launch call can no longer be matched
      auto range = waiting_gpu.equal_range(g.correlation);
      for (auto it = range.first; it != range.second; ++it)
        if (it->second == slot) {
          waiting_gpu.erase(it);
          break;
        }
      GiveUp(g.correlation);
    }
    free_slots.push_back(slot);
    Sweep(g);
  }

  /// Adds one activity, in start order per device, to the running unions,
  /// idle classification, per-stream, per-kernel and launch statistics.
  void Sweep(const GpuRec& g) {
    (g.launch_ts != kNoLaunch ? launch.gpu_ops_matched : launch.gpu_ops_unmatched)++;
    if (opt.collect_flame) flame_gpu.push_back(g);
    const int64_t threshold = opt.kernel_wait_threshold_ns;
    DeviceSweep& w = sweeps[streams[g.stream].first];
    DeviceStats& d = w.d;
    if (!w.started) {
      w.started = true;
      w.first_start = g.start;
      w.first_launch_ts = g.launch_ts;
      d.device = streams[g.stream].first;
      d.active_start_ns = g.start;
      d.active_end_ns = g.end;  // not 0: every end may be before it
    } else if (g.start < w.last_start) {
      // Out of start order beyond the reorder window: the union treats its
      // part before the frontier as covered, which may be wrong. Count it,
      // bound the error and widen the window for the rest of the trace.
      ++approx.gpu_reorder_overruns;
      approx.gpu_reorder_uncertain_ns += std::max<int64_t>(0, std::min(g.end, w.front[4]) - g.start);
      opt.gpu_reorder_window = std::min(opt.gpu_reorder_window * 2, Approximations::kMaxReorderWindow);
    } else if (g.start > w.front[4]) {
      // Device idle gap before this record (front[4] is the union of everything).
      ClassifyGap(d.window_idle, w.front[4], g.start - w.front[4], g.launch_ts, threshold);
    }
    w.last_start = std::max(w.last_start, g.start);
    d.active_start_ns = std::min(d.active_start_ns, g.start);
    for (int k = static_cast<int>(g.kind); k <= 4; ++k) w.unions[k] += Extend(w.front[k], g.start, g.end);
    if (g.kind == GpuKind::kCommunication) w.comm_union += Extend(w.comm_front, g.start, g.end);
    d.active_end_ns = std::max(d.active_end_ns, g.end);

    StreamStats& st = w.streams[g.stream];
    auto [fit, fresh] = w.stream_front.try_emplace(g.stream, g.start);
    if (fresh) {
      st.device = d.device;
      st.stream = streams[g.stream].second;
      st.first_ns = g.start;
    } else if (g.start > fit->second) {
      ClassifyGap(st.idle, fit->second, g.start - fit->second, g.launch_ts, threshold);
    }
    st.first_ns = std::min(st.first_ns, g.start);
    st.busy_ns += Extend(fit->second, g.start, g.end);
    st.last_ns = std::max(st.last_ns, g.end);

    int64_t dur = g.end - g.start;
    if (g.graph) {
      graphs.gpu_ns += dur;
      if (g.kind == GpuKind::kCompute || g.kind == GpuKind::kCommunication) {
        ++graphs.kernels;
        KernelStats& gk = graph_kernels[g.name];
        if (gk.count == 0) gk.min_ns = gk.max_ns = dur;
        ++gk.count;
        gk.total_ns += dur;
        gk.min_ns = std::min(gk.min_ns, dur);
        gk.max_ns = std::max(gk.max_ns, dur);
      } else {
        ++graphs.copies;
      }
    }
    if (g.kind == GpuKind::kCompute || g.kind == GpuKind::kCommunication) {
      ++st.kernels;
      ++d.kernel_count;
      d.kernel_time_ns += dur;
      KernelStats& k = w.kernels[g.name];
      if (k.count == 0) k.min_ns = k.max_ns = dur;
      ++k.count;
      if (g.graph) {
        ++k.graph_count;
        if (g.config != nullptr) {
          ++g.config->graph_count;
          g.config->graph_ns += dur;
        }
      }
      k.total_ns += dur;
      k.min_ns = std::min(k.min_ns, dur);
      k.max_ns = std::max(k.max_ns, dur);
      if (opt.keep_kernel_samples) {
        k.durations_ns.push_back(dur);
        k.launch_keys.push_back(g.launch_key);
      }
      if (g.launch_ts != kNoLaunch) {
        ++launch.kernels;
        ++d.launches_matched;
        launch.kernel_runtime_ns += dur;
        // One graph launch call runs all of its graph's kernels: its cost
        // counts once (when it is matched), and a kernel of it is neither
        // delayed by nor shorter than a call that launched the others too.
        if (!g.graph) {
          delays.Add(g.start - g.launch_ts);
          launch.launch_cost_ns += g.launch_dur;
        }
        if (!g.graph && g.launch_dur > dur) {
          ++d.shorter_than_launch;
          ++launch.shorter_than_launch;
          ShortKernel& sk = short_by_name[g.name];
          ++sk.count;
          sk.launch_ns += g.launch_dur;
          sk.kernel_ns += dur;
        }
      }
    } else if (g.kind == GpuKind::kMemcpy) {
      ++st.memcpys;
      ++d.memcpy_count;
    } else {
      ++st.memsets;
      ++d.memset_count;
    }
  }

  void OnCpu(const TraceEvent& e, uint32_t thread, bool nests) {
    CpuFrame f{e.ts_ns, e.EndNs(), Intern(e.name), e.category == TraceCategory::kCpuOp};
    ThreadState& t = threads[thread];
    if (opt.collect_flame) t.frames.push_back(f);
    if (!nests) return;
    t.Push(f);
    if (t.Pending() > kReorderWindow) {
      CpuFrame next = t.PopEarliest();
      Nest(t, next);
    }
  }

  void Nest(ThreadState& t, const CpuFrame& f) {
    if (f.start < t.last_start) ++out_of_order;
    t.last_start = std::max(t.last_start, f.start);
    while (!t.stack.empty() && (t.stack.back().f.end <= f.start || f.end > t.stack.back().f.end))
      Close(t);
    t.stack.push_back({f, 0});
  }

  void Close(ThreadState& t) {
    ThreadState::Open o = t.stack.back();
    t.stack.pop_back();
    int64_t dur = o.f.end - o.f.start;
    if (!t.stack.empty()) t.stack.back().child_ns += dur;
    if (o.f.is_op) {
      OpAgg& a = ops[o.f.name];
      ++a.count;
      a.total += dur;
      a.self += std::max<int64_t>(0, dur - o.child_ns);
    }
  }

  void OnMemory(const TraceEvent& e) {
    MemorySample m;
    m.ts_ns = e.ts_ns;
    m.device_type = e.mem_device_type.value_or(-1);
    m.device_id = e.mem_device_id.value_or(-1);
    m.bytes = e.mem_bytes.value_or(0);
    m.total_allocated = e.mem_total_allocated;
    m.total_reserved = e.mem_total_reserved;
    MemoryPeak& p = memory[{m.device_type, m.device_id}];
    p.device_type = m.device_type;
    p.device_id = m.device_id;
    ++p.events;
    if (m.total_allocated && (!p.peak_allocated || *m.total_allocated > *p.peak_allocated)) {
      p.peak_allocated = m.total_allocated;
      p.peak_ts_ns = m.ts_ns;
    }
    if (m.total_reserved) p.peak_reserved = std::max(p.peak_reserved.value_or(0), *m.total_reserved);
    // The chart draws the events that state an allocated total (a reserved
    // total it does not state reads as the allocated one, its least); one
    // that states none draws nothing, not a fall to 0 B.
    if (m.total_allocated)
      memory_chart.Add(m.device_type, m.device_id, m.ts_ns, *m.total_allocated,
                       m.total_reserved.value_or(*m.total_allocated));
    if (opt.collect_memory_timeline) memory_timeline.push_back(m);
  }
  void OnCompiledRegion(const TraceEvent& e) {
    auto it = name_ids.find(e.name);
    if (compiled.size() >= kMaxCompiledRegions && (it == name_ids.end() || !compiled.count(it->second))) return;
    OpAgg& a = compiled[Intern(e.name)];
    ++a.count;
    a.total += e.dur_ns;
  }
  void OnStep(const TraceEvent& e) {
    ProfilerStep st;
    st.start_ns = e.ts_ns;
    st.end_ns = e.EndNs();
    std::string_view digits = std::string_view(e.name).substr(13);
    if (!digits.empty() && digits.size() <= 18 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      st.number = std::stoll(std::string(digits));
    // A number seen before is the same step annotated again; past the kept
    // steps' bound every record counts, as a step without a number does.
    if (st.number < 0 || step_numbers.size() >= TraceReport::kMaxSteps || step_numbers.insert(st.number).second)
      ++profiler_steps;
    if (steps.size() >= TraceReport::kMaxSteps) return;
    steps.push_back(st);
  }
  // The steps of TraceAnalyzer::Finish, in order.
  void DrainCpu(TraceReport& rep);
  void CloseDevices(TraceReport& rep);
  void SummarizeLaunches(TraceReport& rep);
  void CollectTrafficAndOps(TraceReport& rep);
  static void Summarize(TraceReport& rep);
  void CollectRecurringCopies(TraceReport& rep);
  void CollectIdenticalLaunches(TraceReport& rep);
  void BuildFlame(TraceReport& rep);
  void CollectGraphsAndRegions(TraceReport& rep);
  void Account(TraceReport& rep);
};

TraceAnalyzer::TraceAnalyzer(AnalysisOptions options) : s_(std::make_unique<State>()) {
  s_->opt = std::move(options);
}
TraceAnalyzer::~TraceAnalyzer() = default;

void TraceAnalyzer::OnEvent(const TraceEvent& e) {
  State& s = *s_;
  if (e.ph == 'M' || !e.has_ts) return;
  s.span_start = std::min(s.span_start, e.ts_ns);
  s.span_end = std::max(s.span_end, e.EndNs());
  if (e.ph == 'i' || e.ph == 'I') {
    if (e.name == "[memory]") s.OnMemory(e);
    return;
  }
  if (e.ph != 'X') return;
  switch (e.category) {
    case TraceCategory::kKernel: s.OnGpu(e, GpuKind::kCompute); break;
    case TraceCategory::kGpuMemcpy: s.OnGpu(e, GpuKind::kMemcpy); break;
    case TraceCategory::kGpuMemset: s.OnGpu(e, GpuKind::kMemset); break;
    case TraceCategory::kCudaRuntime:
    case TraceCategory::kCudaDriver: {
      uint32_t t = s.ThreadId(e);
      s.OnRuntime(e, t);
      s.OnCpu(e, t, false);
      break;
    }
    case TraceCategory::kCpuOp:
    case TraceCategory::kUserAnnotation:
      // Kineto marks each profiled step; older traces as a cpu_op.
      if (e.name.rfind("ProfilerStep#", 0) == 0) s.OnStep(e);
      if (IsCompiledRegion(e.name)) s.OnCompiledRegion(e);
      s.OnCpu(e, s.ThreadId(e), true);
      break;
    case TraceCategory::kPythonFunction: s.OnCpu(e, s.ThreadId(e), true); break;
    default: break;
  }
}

/// CPU nesting: drains the reorder windows and closes every open frame.
void TraceAnalyzer::State::DrainCpu(TraceReport& rep) {
  State& s = *this;
  for (ThreadState& t : s.threads) {
    while (t.Pending() > 0) {
      CpuFrame f = t.PopEarliest();
      s.Nest(t, f);
    }
    while (!t.stack.empty()) s.Close(t);
  }
  rep.cpu_nesting_out_of_order = s.out_of_order;
}

/// Drains the GPU reorder window, closes each device's sweep into its
/// DeviceStats, then merges the kernels of all devices into the top N.
void TraceAnalyzer::State::CloseDevices(TraceReport& rep) {
  State& s = *this;
  const int64_t span = rep.SpanNs();
  const int64_t threshold = s.opt.kernel_wait_threshold_ns;
  while (!s.heap.empty() || !s.run.empty()) s.SweepEarliest();
  rep.launch = std::move(s.launch);
  // Each kernel's main launch configuration: the grid and block that hold
  // most of its time, not the last one seen (a kernel launched at several
  // sizes is judged by the rules on the size that costs the most), with the
  // registers and shared memory of those launches.
  std::map<std::pair<int64_t, uint32_t>, std::pair<std::array<int, 6>, const ConfigAgg*>> main_config;
  for (const auto& [key, agg] : s.configs) {
    auto [it, fresh] = main_config.try_emplace({std::get<0>(key), std::get<1>(key)}, std::get<2>(key), &agg);
    const int64_t best = it->second.second->total_ns;
    if (!fresh && (agg.total_ns > best || (agg.total_ns == best && std::get<2>(key) < it->second.first)))
      it->second = {std::get<2>(key), &agg};
  }
  std::map<uint32_t, KernelStats> all_kernels;
  // Over all devices: each kernel's occupancy readings (sum, count), so the
  // merged kernel's mean is of all its launches, not of the first device's.
  std::map<uint32_t, std::pair<double, int64_t>> all_occupancy;
  for (auto& [device, w] : s.sweeps) {
    DeviceStats& d = w.d;
    d.span_ns = span;
    // Whole-trace idle: the gaps inside the GPU window, plus the leading gap
    // (from the start of the trace to the first GPU activity) and the
    // trailing one (nothing more was enqueued until the trace ended).
    d.idle = d.window_idle;
    if (w.first_start > s.span_start)
      ClassifyGap(d.idle, s.span_start, w.first_start - s.span_start, w.first_launch_ts, threshold);
    if (s.span_end > w.front[4]) d.idle.host_wait_ns += s.span_end - w.front[4];
    d.busy_ns = w.unions[4];
    d.window_idle_ns = d.WindowNs() - d.busy_ns;
    d.compute_ns = w.unions[1];
    d.communication_ns = w.unions[2] - w.unions[1];
    d.communication_total_ns = w.comm_union;
    d.comm_compute_overlap_ns = w.comm_union - d.communication_ns;
    d.memcpy_ns = w.unions[3] - w.unions[2];
    d.memset_ns = w.unions[4] - w.unions[3];
    d.idle_ns = span - d.busy_ns;
    for (auto& [name, k] : w.kernels) {
      k.name = s.names[name];
      k.communication = s.name_nccl[name];
      k.mean_ns = static_cast<double>(k.total_ns) / k.count;
      k.share = d.kernel_time_ns > 0 ? static_cast<double>(k.total_ns) / d.kernel_time_ns : 0;
      auto attr = s.kernel_attr.find(AttrKey(d.device, name));
      if (attr != s.kernel_attr.end()) {
        const KernelAttr& a = attr->second;
        if (a.occ_n) {
          k.mean_achieved_occupancy = a.occ_sum / a.occ_n / 100.0;  // the trace gives percent
          all_occupancy[name].first += a.occ_sum;
          all_occupancy[name].second += a.occ_n;
        }
        k.registers_per_thread = a.regs;
        k.shared_memory_bytes = a.smem;
        std::copy(a.grid, a.grid + 3, k.grid);
        std::copy(a.block, a.block + 3, k.block);
      }
      if (auto main = main_config.find({d.device, name}); main != main_config.end() && main->second.first[0] > 0) {
        std::copy(main->second.first.begin(), main->second.first.begin() + 3, k.grid);
        std::copy(main->second.first.begin() + 3, main->second.first.end(), k.block);
        const ConfigAgg& agg = *main->second.second;
        // Occupancy is of the main configuration: its own registers and
        // shared memory, not those of another launch of the kernel.
        k.registers_per_thread = agg.regs;
        k.shared_memory_bytes = agg.smem;
        if (k.total_ns > 0)
          k.config_share = std::min(1.0, static_cast<double>(agg.total_ns) / static_cast<double>(k.total_ns));
      }
      KernelStats& all = all_kernels[name];
      if (all.count == 0) {
        all = k;
        all.durations_ns.clear();
        all.launch_keys.clear();
      } else {
        all.count += k.count;
        all.graph_count += k.graph_count;
        all.total_ns += k.total_ns;
        all.min_ns = std::min(all.min_ns, k.min_ns);
        all.max_ns = std::max(all.max_ns, k.max_ns);
      }
      d.kernels.push_back(std::move(k));
    }
    std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelStats& a, const KernelStats& b) {
      return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
    });
    for (auto& [id, st] : w.streams) d.streams.push_back(st);
    rep.devices.push_back(std::move(d));
  }

  // Kernels over all devices, top N.
  int64_t kernel_time_all = 0;
  for (const DeviceStats& d : rep.devices) kernel_time_all += d.kernel_time_ns;
  for (auto& [name, k] : all_kernels) {
    k.mean_ns = static_cast<double>(k.total_ns) / k.count;
    k.share = kernel_time_all > 0 ? static_cast<double>(k.total_ns) / kernel_time_all : 0;
    if (auto occ = all_occupancy.find(name); occ != all_occupancy.end() && occ->second.second > 0)
      k.mean_achieved_occupancy = occ->second.first / static_cast<double>(occ->second.second) / 100.0;
    rep.top_kernels.push_back(std::move(k));
  }
  rep.distinct_kernels = static_cast<int64_t>(rep.top_kernels.size());
  std::sort(rep.top_kernels.begin(), rep.top_kernels.end(), [](const KernelStats& a, const KernelStats& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (rep.top_kernels.size() > static_cast<size_t>(s.opt.top_n)) rep.top_kernels.resize(s.opt.top_n);
}

/// Launch delay quantiles and the kernels that ran shorter than their launch
/// call.
void TraceAnalyzer::State::SummarizeLaunches(TraceReport& rep) {
  State& s = *this;
  LaunchStats& l = rep.launch;
  l.delays = static_cast<int64_t>(s.delays.count());
  if (s.delays.count() > 0) {
    l.delay_mean_ns = s.delays.mean();
    l.delay_min_ns = s.delays.min();
    l.delay_max_ns = s.delays.max();
    l.delay_p50_ns = s.delays.Quantile(0.5);
    l.delay_p95_ns = s.delays.Quantile(0.95);
  }
  for (auto& [name, sk] : s.short_by_name) {
    sk.name = s.names[name];
    l.short_kernels.push_back(sk);
  }
  std::sort(l.short_kernels.begin(), l.short_kernels.end(), [](const ShortKernel& a, const ShortKernel& b) {
    return a.count != b.count ? a.count > b.count : a.name < b.name;
  });
  if (l.short_kernels.size() > static_cast<size_t>(s.opt.top_n)) l.short_kernels.resize(s.opt.top_n);
}

/// Memory traffic (memcpys first, by bytes; memsets last) and CPU op hotspots
/// by self time.
void TraceAnalyzer::State::CollectTrafficAndOps(TraceReport& rep) {
  State& s = *this;
  // Memory traffic: memcpys first (by bytes), memsets last.
  for (auto& [key, m] : s.traffic) rep.memory_traffic.push_back(m);
  std::stable_sort(rep.memory_traffic.begin(), rep.memory_traffic.end(),
                   [](const MemcpyStats& a, const MemcpyStats& b) {
                     bool ma = a.kind == "Memset", mb = b.kind == "Memset";
                     if (ma != mb) return mb;
                     return a.bytes > b.bytes;
                   });

  // CPU op hotspots by self time.
  for (auto& [name, a] : s.ops) rep.cpu_ops.push_back(CpuOpStats{s.names[name], a.count, a.total, a.self});
  std::sort(rep.cpu_ops.begin(), rep.cpu_ops.end(), [](const CpuOpStats& a, const CpuOpStats& b) {
    return a.self_ns != b.self_ns ? a.self_ns > b.self_ns : a.name < b.name;
  });
  if (rep.cpu_ops.size() > static_cast<size_t>(s.opt.top_n)) rep.cpu_ops.resize(s.opt.top_n);
}

/// The summary shares (fractions) over all analysed devices.
void TraceAnalyzer::State::Summarize(TraceReport& rep) {
  // Summed as doubles: each device's figures fit 64-bit nanoseconds, their
  // sum over up to 4096 devices need not, and a share needs no more.
  double total_span = 0, idle = 0, compute = 0, comm = 0, memcpy_ns = 0, memset_ns = 0;
  double windows = 0, window_idle = 0;
  for (const DeviceStats& d : rep.devices) {
    windows += static_cast<double>(d.WindowNs());
    window_idle += static_cast<double>(d.window_idle_ns);
    total_span += static_cast<double>(d.span_ns);
    idle += static_cast<double>(d.idle_ns);
    compute += static_cast<double>(d.compute_ns);
    comm += static_cast<double>(d.communication_ns);
    memcpy_ns += static_cast<double>(d.memcpy_ns);
    memset_ns += static_cast<double>(d.memset_ns);
  }
  auto share = [&](double v) { return total_span > 0 ? v / total_span : 0.0; };
  rep.gpu_idle_share = rep.devices.empty() ? 1.0 : share(idle);
  rep.compute_share = share(compute);
  rep.communication_share = share(comm);
  rep.memcpy_share = share(memcpy_ns);
  rep.memset_share = share(memset_ns);
  auto wshare = [&](double v) { return windows > 0 ? v / windows : 0.0; };
  rep.window_idle_share = rep.devices.empty() ? 1.0 : wshare(window_idle);
  rep.window_compute_share = wshare(compute);
  rep.window_communication_share = wshare(comm);
  rep.window_memcpy_share = wshare(memcpy_ns);
  rep.window_memset_share = wshare(memset_ns);
}

/// Recurring HtoD copy sizes: copied at least once per profiler step (or
/// kMinRepeatsWithoutSteps times without steps), first and last copy at least
/// half the device's active span apart.
void TraceAnalyzer::State::CollectRecurringCopies(TraceReport& rep) {
  State& s = *this;
  rep.profiler_steps = s.profiler_steps;
  rep.other_devices.assign(s.other_devices.begin(), s.other_devices.end());
  rep.steps = std::move(s.steps);
  std::stable_sort(rep.steps.begin(), rep.steps.end(),
                   [](const ProfilerStep& a, const ProfilerStep& b) { return a.start_ns < b.start_ns; });
  rep.h2d_copies_untracked = s.h2d_untracked;
  const int64_t min_repeats = s.profiler_steps >= 2 ? s.profiler_steps : kMinRepeatsWithoutSteps;
  for (const auto& entry : s.h2d) {
    const RepeatedCopy& c = entry.second;
    auto dev = std::find_if(rep.devices.begin(), rep.devices.end(),
                            [&](const DeviceStats& d) { return d.device == c.device; });
    if (dev == rep.devices.end() || c.count < std::max<int64_t>(2, min_repeats)) continue;
    if ((c.last_ns - c.first_ns) * 2 < dev->active_end_ns - dev->active_start_ns) continue;
    rep.repeated_h2d.push_back(c);
  }
  std::sort(rep.repeated_h2d.begin(), rep.repeated_h2d.end(), [](const RepeatedCopy& a, const RepeatedCopy& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.device < b.device;
  });
}

/// Identical launches: per device the top N launch configurations.
void TraceAnalyzer::State::CollectIdenticalLaunches(TraceReport& rep) {
  State& s = *this;
  rep.launches_untracked = s.configs_untracked;
  std::vector<RepeatedLaunch> configs;
  for (const auto& [key, agg] : s.configs) {
    // Launches the host made one by one: a graph launch call runs all of
    // its graph's kernels, so they are not repeated calls.
    if (agg.count == agg.graph_count) continue;
    RepeatedLaunch l;
    l.device = std::get<0>(key);
    l.name = s.names[std::get<1>(key)];
    const std::array<int, 6>& shape = std::get<2>(key);
    std::copy(shape.begin(), shape.begin() + 3, l.grid);
    std::copy(shape.begin() + 3, shape.end(), l.block);
    l.count = agg.count - agg.graph_count;
    l.total_ns = agg.total_ns - agg.graph_ns;
    configs.push_back(std::move(l));
  }
  std::sort(configs.begin(), configs.end(), [](const RepeatedLaunch& a, const RepeatedLaunch& b) {
    if (a.device != b.device) return a.device < b.device;
    if (a.count != b.count) return a.count > b.count;
    if (a.total_ns != b.total_ns) return a.total_ns < b.total_ns;
    if (a.name != b.name) return a.name < b.name;
    if (!std::equal(a.grid, a.grid + 3, b.grid)) return std::lexicographical_compare(a.grid, a.grid + 3, b.grid, b.grid + 3);
    return std::lexicographical_compare(a.block, a.block + 3, b.block, b.block + 3);
  });
  for (size_t i = 0, kept = 0; i < configs.size(); ++i) {
    kept = i > 0 && configs[i].device == configs[i - 1].device ? kept + 1 : 0;
    if (kept < static_cast<size_t>(s.opt.top_n)) rep.identical_launches.push_back(std::move(configs[i]));
  }
}

/// Flame graph: nest each thread's CPU frames, then hang GPU time under the
/// innermost frame that contains its launch call.
void TraceAnalyzer::State::BuildFlame(TraceReport& rep) {
  State& s = *this;
  auto g = std::make_unique<FlameGraph>();
  // Frame names with a trailing "#<digits>" merged, once per distinct name.
  std::vector<std::string> frame_names(s.names.size());
  std::vector<bool> named(s.names.size(), false);
  auto frame_name = [&](uint32_t id) -> const std::string& {
    if (!named[id]) {
      frame_names[id] = MergedFrameName(s.names[id]);
      named[id] = true;
    }
    return frame_names[id];
  };
  std::vector<std::vector<std::pair<int64_t, int>>> frame_nodes(s.threads.size());
  std::vector<std::vector<int>> frame_parent(s.threads.size());
  std::vector<std::vector<int64_t>> frame_child(s.threads.size());
  std::vector<int> thread_node(s.threads.size(), -1);
  for (size_t t = 0; t < s.threads.size(); ++t) {
    ThreadState& th = s.threads[t];
    std::vector<CpuFrame>& fr = th.frames;
    std::sort(fr.begin(), fr.end(), [](const CpuFrame& a, const CpuFrame& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    thread_node[t] = g->Child(0, th.label);
    auto& nodes = frame_nodes[t];
    auto& parent = frame_parent[t];
    auto& child_ns = frame_child[t];
    nodes.resize(fr.size());
    parent.assign(fr.size(), -1);
    child_ns.assign(fr.size(), 0);
    std::vector<int> stack;
    for (size_t k = 0; k < fr.size(); ++k) {
      while (!stack.empty() && (fr[stack.back()].end <= fr[k].start || fr[k].end > fr[stack.back()].end))
        stack.pop_back();
      int p = stack.empty() ? -1 : stack.back();
      int pnode = p < 0 ? thread_node[t] : nodes[p].second;
      nodes[k] = {fr[k].start, g->Child(pnode, frame_name(fr[k].name))};
      parent[k] = p;
      int64_t dur = fr[k].end - fr[k].start;
      if (p >= 0) child_ns[p] += dur;
      stack.push_back(static_cast<int>(k));
    }
    for (size_t k = 0; k < fr.size(); ++k)
      g->nodes[nodes[k].second].self_ns += std::max<int64_t>(0, fr[k].end - fr[k].start - child_ns[k]);
  }
  std::sort(s.flame_gpu.begin(), s.flame_gpu.end(),
            [](const GpuRec& a, const GpuRec& b) { return a.seq < b.seq; });
  for (const GpuRec& r : s.flame_gpu) {
    int node = -1;
    if (r.thread != UINT32_MAX && r.thread < s.threads.size()) {
      const auto& fr = s.threads[r.thread].frames;
      const auto& nodes = frame_nodes[r.thread];
      auto it = std::upper_bound(fr.begin(), fr.end(), r.launch_ts,
                                 [](int64_t ts, const CpuFrame& f) { return ts < f.start; });
      int k = static_cast<int>(it - fr.begin()) - 1;
      while (k >= 0 && fr[k].end <= r.launch_ts) k = frame_parent[r.thread][k];
      node = k >= 0 ? nodes[k].second : thread_node[r.thread];
    } else {
      node = g->Child(0, "[gpu without launch]");
    }
    int leaf = g->Child(node, "[gpu] " + frame_name(r.name), /*gpu=*/true);
    g->nodes[leaf].self_ns += r.end - r.start;
  }
  rep.flame = std::move(g);
}

/// CUDA-graph work and torch.compile regions.
void TraceAnalyzer::State::CollectGraphsAndRegions(TraceReport& rep) {
  State& s = *this;
  rep.graphs = std::move(s.graphs);
  for (auto& [name, k] : s.graph_kernels) {
    k.name = s.names[name];
    k.communication = s.name_nccl[name];
    k.mean_ns = static_cast<double>(k.total_ns) / static_cast<double>(k.count);
    k.graph_count = k.count;
    k.share = rep.graphs.gpu_ns > 0 ? static_cast<double>(k.total_ns) / static_cast<double>(rep.graphs.gpu_ns) : 0;
    rep.graphs.top_kernels.push_back(std::move(k));
  }
  auto by_total = [](const auto& a, const auto& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  };
  std::sort(rep.graphs.top_kernels.begin(), rep.graphs.top_kernels.end(), by_total);
  if (rep.graphs.top_kernels.size() > static_cast<size_t>(s.opt.top_n)) rep.graphs.top_kernels.resize(s.opt.top_n);
  for (const auto& [name, a] : s.compiled) rep.compiled_regions.push_back(CpuOpStats{s.names[name], a.count, a.total, 0});
  std::sort(rep.compiled_regions.begin(), rep.compiled_regions.end(), by_total);
  if (rep.compiled_regions.size() > static_cast<size_t>(s.opt.top_n)) rep.compiled_regions.resize(s.opt.top_n);
}

/// The approximation counters, and for each group of figures whether it is
/// exact and why not (docs/trace.md, "Exactness").
void TraceAnalyzer::State::Account(TraceReport& rep) {
  State& s = *this;
  Approximations& a = rep.approximations;
  a = s.approx;
  a.gpu_reorder_window = static_cast<int64_t>(s.opt.gpu_reorder_window);
  a.launch_window = static_cast<int64_t>(s.opt.launch_window);
  a.unmatched_gpu_ops = rep.launch.gpu_ops_unmatched;
  a.cpu_nesting_out_of_order = rep.cpu_nesting_out_of_order;
  a.negative_durations = rep.info.negative_durations;
  a.delay_quantiles_exact = s.delays.exact();
  auto n = [](int64_t v) { return std::to_string(v); };
  auto add = [&](std::string figures, std::string why) {
    rep.exactness.push_back(FigureExactness{std::move(figures), why.empty(), std::move(why)});
  };
  std::string why;
  if (a.gpu_reorder_overruns > 0)
    why = n(a.gpu_reorder_overruns) + " GPU activities arrived out of start order beyond the reorder window (" +
          "widened to " + n(a.gpu_reorder_window) + "); up to " + n(a.gpu_reorder_uncertain_ns) +
          " ns of busy time may be misplaced";
  // Host-wait needs the next activity's launch call: one the trace holds but
  // the windows lost leaves the gap before it kernel-wait or other.
  if (const int64_t lost = a.launch_window_misses + a.late_launch_calls; lost > 0)
    why += (why.empty() ? "" : "; ") + n(lost) +
           " GPU activities were placed without the launch call the trace holds for them, so the idle gaps "
           "before them may be host-wait read as kernel-wait or other";
  add("device breakdown, idle classes and streams", why);
  why.clear();
  if (a.unmatched_gpu_ops > 0) {
    why = n(a.unmatched_gpu_ops) + " GPU activities have no matched launch call";
    std::string lost;
    if (a.launch_window_misses > 0)
      lost = n(a.launch_window_misses) + " of them because the launch window forgot the call";
    if (a.late_launch_calls > 0)
      lost += (lost.empty() ? "" : ", ") + n(a.late_launch_calls) +
              (lost.empty() ? " of them" : "") + " because their call came later in the trace than the analysis could wait";
    if (!lost.empty()) why += " (" + lost + "; the launch window widened to " + n(a.launch_window) + ")";
    why += "; launch figures cover the matched ones";
  }
  add("launch delay, launch cost and graph attribution", why);
  add("launch delay quantiles", a.delay_quantiles_exact ? "" : "more delays than kept exactly: quantiles within 1%");
  add("CPU op self and total time",
      a.cpu_nesting_out_of_order > 0
          ? n(a.cpu_nesting_out_of_order) + " CPU events arrived out of order beyond the nesting window; their nesting is approximate"
          : "");
  add("event durations", a.negative_durations > 0 ? n(a.negative_durations) + " negative durations read as 0" : "");
  why.clear();
  if (rep.h2d_copies_untracked > 0) why = n(rep.h2d_copies_untracked) + " host-to-device copies of sizes beyond the size cap";
  if (rep.launches_untracked > 0)
    why += (why.empty() ? "" : "; ") + n(rep.launches_untracked) + " launches of configurations beyond the cap";
  add("recurring copies and identical launches", why.empty() ? "" : why + " were only counted");
}

TraceReport TraceAnalyzer::Finish(const TraceInfo& info) {
  State& s = *s_;
  TraceReport rep;
  rep.info = info;
  rep.options = s.opt;
  if (s.span_start > s.span_end) s.span_start = s.span_end = 0;
  rep.span_start_ns = s.span_start;
  rep.span_end_ns = s.span_end;
  s.DrainCpu(rep);
  s.CloseDevices(rep);
  s.SummarizeLaunches(rep);
  s.CollectTrafficAndOps(rep);
  State::Summarize(rep);
  s.CollectRecurringCopies(rep);
  s.CollectIdenticalLaunches(rep);
  // [memory] events; each peak placed in its profiler step (rep.steps is
  // sorted by start).
  for (auto& [key, p] : s.memory) {
    if (p.peak_ts_ns) {
      const int64_t at = *p.peak_ts_ns;
      auto after = std::upper_bound(rep.steps.begin(), rep.steps.end(), at,
                                    [](int64_t ts, const ProfilerStep& st) { return ts < st.start_ns; });
      if (after != rep.steps.begin() && std::prev(after)->end_ns >= at && std::prev(after)->number >= 0)
        p.peak_step = std::prev(after)->number;
    }
    rep.memory.push_back(p);
  }
  rep.memory_timeline = std::move(s.memory_timeline);
  rep.memory_chart = s.memory_chart.Series();
  if (s.opt.collect_flame) s.BuildFlame(rep);
  s.CollectGraphsAndRegions(rep);
  s.Account(rep);
  return rep;
}

namespace detail {

BoundedQuantiles::BoundedQuantiles(size_t exact_cap) : exact_cap_(exact_cap) {}

int BoundedQuantiles::Bucket(int64_t magnitude) const {
  // magnitude >= 1; bucket i holds [1.01^i, 1.01^(i+1)), the last one also
  // everything larger.
  auto it = std::upper_bound(lower_.begin(), lower_.end(), static_cast<double>(magnitude));
  return std::clamp(static_cast<int>(it - lower_.begin()) - 1, 0, kBuckets - 1);
}

int64_t BoundedQuantiles::Representative(int bucket) const {
  // The integers of bucket b are ceil(lo) .. ceil(hi) - 1; pick the one
  // nearest the geometric middle.
  double lo = lower_[bucket], hi = lower_[bucket + 1];
  int64_t first = static_cast<int64_t>(std::ceil(lo));
  int64_t last = std::max(first, static_cast<int64_t>(std::ceil(hi)) - 1);
  return std::clamp(static_cast<int64_t>(std::llround(std::sqrt(lo * hi))), first, last);
}

void BoundedQuantiles::Spill() {
  histogram_ = true;
  lower_.resize(kBuckets + 1);
  for (int i = 0; i <= kBuckets; ++i) lower_[i] = std::pow(kBucketRatio, i);
  pos_.assign(kBuckets, 0);
  neg_.assign(kBuckets, 0);
  for (int64_t v : exact_) {
    if (v == 0) ++zero_;
    else if (v > 0) ++pos_[Bucket(v)];
    else ++neg_[Bucket(v == INT64_MIN ? INT64_MAX : -v)];
  }
  std::vector<int64_t>().swap(exact_);
}

void BoundedQuantiles::Add(int64_t v) {
  if (count_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  ++count_;
  if (!histogram_) {
    exact_.push_back(v);
    if (exact_.size() > exact_cap_) Spill();
    return;
  }
  if (v == 0) ++zero_;
  else if (v > 0) ++pos_[Bucket(v)];
  else ++neg_[Bucket(v == INT64_MIN ? INT64_MAX : -v)];
}

int64_t BoundedQuantiles::Quantile(double q) {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  int64_t k = static_cast<int64_t>(q * static_cast<double>(count_ - 1) + 0.5);
  if (!histogram_) {
    std::nth_element(exact_.begin(), exact_.begin() + k, exact_.end());
    return exact_[k];
  }
  int64_t seen = 0;
  for (int b = kBuckets - 1; b >= 0; --b) {  // most negative first
    seen += neg_[b];
    if (k < seen) return std::clamp(-Representative(b), min_, max_);
  }
  seen += zero_;
  if (k < seen) return std::clamp<int64_t>(0, min_, max_);
  for (int b = 0; b < kBuckets; ++b) {
    seen += pos_[b];
    if (k < seen) return std::clamp(Representative(b), min_, max_);
  }
  return max_;
}

}  // namespace detail

Result<TraceReport> AnalyzeTrace(const std::string& path, const AnalysisOptions& options) {
  TraceAnalyzer analyzer(options);
  auto info = ReadTrace(path, analyzer);
  if (!info.ok()) return info.error();
  return analyzer.Finish(*info);
}

Result<TraceReport> AnalyzeTraceText(std::string_view bytes, const std::string& name,
                                     const AnalysisOptions& options) {
  TraceAnalyzer analyzer(options);
  auto info = ReadTraceFromString(bytes, name, analyzer);
  if (!info.ok()) return info.error();
  return analyzer.Finish(*info);
}

}  // namespace gpugate
