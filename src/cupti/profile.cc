// `profile: cupti` on the gpugate side (see profile.h).
#include "cupti/profile.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

#include "cupti/tracer.h"
#include "trace/analysis.h"
#include "trace/to_results.h"
#include "util/fs.h"

#ifndef GPUGATE_INSTALL_LIBDIR
#define GPUGATE_INSTALL_LIBDIR "lib"
#endif

namespace gpugate {

bool CuptiProfileBuilt() {
#ifdef GPUGATE_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

Result<std::string> FindInjectionLibrary(const std::string& exe_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv(kCuptiLibraryEnv); env != nullptr && *env != '\0') {
    if (fs::is_regular_file(env, ec)) return std::string(env);
    return ToolError(std::string("profile: cupti: ") + kCuptiLibraryEnv + " names '" + env +
                     "', which is not a file");
  }
  fs::path exe = exe_path.empty() ? fs::read_symlink("/proc/self/exe", ec) : fs::path(exe_path);
  if (exe.empty()) return ToolError("profile: cupti: cannot tell where the gpugate executable is");
  const fs::path dir = exe.parent_path();
  const fs::path candidates[] = {dir / kInjectionLibraryName,
                                 dir / ".." / GPUGATE_INSTALL_LIBDIR / kInjectionLibraryName};
  std::string looked;
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c, ec)) return fs::weakly_canonical(c, ec).string();
    looked += (looked.empty() ? "" : ", ") + c.lexically_normal().string();
  }
  return ToolError(std::string("profile: cupti: the injection library ") + kInjectionLibraryName +
                   " is not installed (looked at " + looked + "; set " + kCuptiLibraryEnv +
                   " to its path)");
}

std::vector<std::pair<std::string, std::string>> CuptiExecutionEnvironment(const std::string& library,
                                                                          const std::string& trace_path) {
  return {{"CUDA_INJECTION64_PATH", library}, {"NVTX_INJECTION64_PATH", library}, {kCuptiTraceEnv, trace_path}};
}

Result<CuptiExecution> ReadCuptiExecution(const std::string& trace_path) {
  CuptiExecution out;
  if (IsRegularFile(trace_path + ".error")) {
    Result<std::string> why = ReadFile(trace_path + ".error");
    std::string text = why.ok() ? *why : "tracing could not start";
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return ToolError("profile: cupti: " + text);
  }
  if (!IsRegularFile(trace_path)) {
    // CUDA never initialised (nothing traced), or it did and the program
    // ended before the exit handler that writes the trace ran.
    out.unwritten = IsRegularFile(trace_path + ".started");
    return out;
  }
  out.traced = true;
  AnalysisOptions options;
  options.keep_kernel_samples = true;
  Result<TraceReport> report = AnalyzeTrace(trace_path, options);
  if (!report.ok())
    return ToolError("profile: cupti: the trace the injection library wrote is unreadable: " +
                     report.error().message);
  if (report->devices.empty()) return out;
  out.gpu_activity = true;
  // All devices' kernels merged by name (one workload, one process).
  Results results = TraceReportToResults(*report);
  for (WorkloadResult& w : results.workloads)
    for (KernelResult& k : w.kernels) out.kernels.push_back(std::move(k));
  return out;
}

namespace {
double KernelMetricOr(const KernelResult& k, const std::string& name) {
  auto it = k.metrics.find(name);
  return it == k.metrics.end() ? 0.0 : it->second;
}
}  // namespace

void CuptiKernelPool::Add(const CuptiExecution& e) {
  ++executions_;
  if (e.traced) ++traced_;
  if (e.unwritten) ++unwritten_;
  if (!e.gpu_activity) return;
  ++active_;
  for (const KernelResult& k : e.kernels) {
    auto it = std::find_if(kernels_.begin(), kernels_.end(), [&](const KernelResult& have) { return have.name == k.name; });
    if (it == kernels_.end()) {
      kernels_.push_back(k);
      largest_s_.push_back(k.total_s);
      continue;
    }
    double& largest = largest_s_[static_cast<size_t>(it - kernels_.begin())];
    it->count += k.count;
    it->total_s += k.total_s;
    // Launch groups stay only while every instance has one.
    const bool groups = it->launch_groups.size() == it->durations_s.size() &&
                        k.launch_groups.size() == k.durations_s.size();
    it->durations_s.insert(it->durations_s.end(), k.durations_s.begin(), k.durations_s.end());
    if (groups) it->launch_groups.insert(it->launch_groups.end(), k.launch_groups.begin(), k.launch_groups.end());
    else it->launch_groups.clear();
    // Counts add up: the launches a CUDA graph made, like `count`. The
    // launch configuration and resources are those of the execution in
    // which the kernel took the most time (its main configuration there),
    // whatever the order of the executions.
    const double graph = KernelMetricOr(*it, "graph_launches") + KernelMetricOr(k, "graph_launches");
    if (k.total_s > largest) {
      for (const auto& [m, v] : k.metrics) it->metrics[m] = v;
      largest = k.total_s;
    }
    if (graph > 0) it->metrics["graph_launches"] = graph;
    else it->metrics.erase("graph_launches");
  }
}

void CuptiKernelPool::Annotate(WorkloadResult& w, const std::string& scope) const {
  if (executions_ == 0) return;  // nothing measured (the workload failed first)
  w.counters["cupti_executions"] = executions_;
  w.counters["cupti_executions_with_gpu_activity"] = active_;
  const std::string n = std::to_string(executions_);
  // Executions that initialised CUDA but ended without running their exit
  // handlers (_exit, os._exit, a signal) left no trace: said, never taken
  // for a program without CUDA work.
  const std::string unwritten =
      unwritten_ == 0 ? ""
                      : std::to_string(unwritten_) + " of " + n +
                            " executions initialised CUDA but ended without running their exit handlers "
                            "(_exit, os._exit or a signal), so their traces were never written";
  if (active_ == 0) {
    std::string why;
    if (traced_ > 0)
      why = std::to_string(traced_) + " of " + n + " executions were traced but ran no kernel, copy or memset";
    if (!unwritten.empty()) why += (why.empty() ? "" : "; ") + unwritten;
    if (why.empty()) why = "the program never initialised CUDA in any of the " + n + " executions";
    w.notes.push_back("profile: cupti recorded no GPU activity (" + why +
                      (unwritten_ == 0 ? "; without a GPU or CUDA work there is nothing to record)" : ")"));
    return;
  }
  if (!unwritten.empty()) w.notes.push_back("profile: cupti: " + unwritten);
  std::vector<KernelResult> kernels = kernels_;
  std::sort(kernels.begin(), kernels.end(), [](const KernelResult& a, const KernelResult& b) {
    return a.total_s != b.total_s ? a.total_s > b.total_s : a.name < b.name;
  });
  w.kernels = std::move(kernels);
  std::string note = "profile: cupti: kernel instances of " + std::to_string(active_) + " of " + n +
                     " measured executions pooled (one trace per execution); timings include the "
                     "tracing overhead";
  if (!scope.empty()) note += "; " + scope;
  w.notes.push_back(std::move(note));
}

CuptiSession::CuptiSession(std::string library, std::string dir)
    : library_(std::move(library)), dir_(std::move(dir)) {}

CuptiSession::~CuptiSession() {
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

Result<std::unique_ptr<CuptiSession>> CuptiSession::Start() {
  Result<std::string> library = FindInjectionLibrary();
  if (!library.ok()) return library.error();
  std::error_code ec;
  std::string tmpl = (std::filesystem::temp_directory_path(ec) / "gpugate-cupti-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    return ToolError("profile: cupti: cannot create a folder for the traces in " +
                     std::filesystem::temp_directory_path(ec).string());
  return std::unique_ptr<CuptiSession>(new CuptiSession(*library, tmpl));
}

std::vector<std::pair<std::string, std::string>> CuptiSession::NextExecution() {
  trace_path_ = dir_ + "/trace-" + std::to_string(next_++) + ".json";
  return CuptiExecutionEnvironment(library_, trace_path_);
}

Status CuptiSession::FinishExecution(bool keep) {
  Result<CuptiExecution> e = ReadCuptiExecution(trace_path_);
  std::error_code ec;
  std::filesystem::remove(trace_path_, ec);
  std::filesystem::remove(trace_path_ + ".error", ec);
  std::filesystem::remove(trace_path_ + ".started", ec);
  if (!e.ok()) return e.error();
  if (keep) pool_.Add(*e);
  return Status::Ok();
}

}  // namespace gpugate
