// kind: static workloads (see static_runner.h).
#include "harness/static_runner.h"

#include <utility>

#include "static/inspect_render.h"
#include "static/kernel_names.h"
#include "static/ptxas_log.h"
#include "stats/summary.h"
#include "util/fs.h"
#include "util/json.h"

namespace gpugate {

namespace {

int64_t Product(const std::array<int64_t, 3>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= std::max<int64_t>(1, x);
  return n;
}

KernelResult ToKernelResult(const KernelInfo& k, std::string name, const KernelExtras* x) {
  KernelResult r;
  r.name = std::move(name);
  auto& m = r.metrics;
  m["arch"] = k.arch;
  if (k.registers) m["registers_per_thread"] = *k.registers;
  if (k.stack_frame) m["stack_frame_bytes"] = static_cast<double>(*k.stack_frame);
  if (k.min_stack) m["min_stack_bytes"] = static_cast<double>(*k.min_stack);
  m["shared_mem_bytes"] = static_cast<double>(k.shared_bytes);
  if (k.param_bytes) m["param_bytes"] = static_cast<double>(*k.param_bytes);
  m["barriers"] = k.barriers;
  // The launch bound, else the block size the kernel requires (.reqntid).
  if (k.max_threads)
    m["max_threads_per_block"] = static_cast<double>(Product(*k.max_threads));
  else if (k.req_threads)
    m["max_threads_per_block"] = static_cast<double>(Product(*k.req_threads));
  m["sass_bytes"] = static_cast<double>(k.sass_bytes);
  if (k.instructions) m["sass_instructions"] = static_cast<double>(*k.instructions);
  r.attributes["arch"] = ArchText(k);
  r.attributes["mangled_name"] = k.name;
  // The mangled name without the folder hashes: what pairs numbered kernels
  // whose code changed (PairNumberedKernels).
  r.attributes[kStableMangledNameAttribute] = StableKernelName(k.name);
  r.attributes[kSassHashAttribute] = SassHashText(k.sass_hash);
  if (k.other_code_hash) r.attributes[kOtherCodeHashAttribute] = SassHashText(*k.other_code_hash);
  if (x != nullptr) {
    if (x->spill_stores) m["spill_store_bytes"] = static_cast<double>(*x->spill_stores);
    if (x->spill_loads) m["spill_load_bytes"] = static_cast<double>(*x->spill_loads);
    if (x->occupancy) {
      m["theoretical_occupancy"] = x->occupancy->fraction;
      m["occupancy_block_size"] = x->occupancy->block_size;
      r.attributes["occupancy_limiter"] = x->occupancy->limiter;
    }
  }
  return r;
}

WorkloadResult Describe(const WorkloadSpec& spec) {
  WorkloadResult w;
  w.name = spec.name;
  w.kind = ToString(spec.kind);
  w.backend = "static";
  w.params = spec.params;
  w.tags = spec.tags;
  w.deterministic = true;
  return w;
}

WorkloadResult Failed(const WorkloadSpec& spec, const std::string& reason) {
  WorkloadResult w = Describe(spec);
  w.status = WorkloadStatus::kFailed;
  w.reason = reason;
  return w;
}

}  // namespace

WorkloadResult StaticWorkloadResult(const WorkloadSpec& spec, const InspectReport& report) {
  WorkloadResult w = Describe(spec);
  bool all_counted = true;
  double instructions = 0, bytes = 0;
  // Names that do not depend on the binary's order nor on its folder, even
  // for kernels of one name (kernel_names.h).
  std::vector<std::vector<std::string>> names = ResultKernelNames(report);
  for (size_t ci = 0; ci < report.cubins.size(); ++ci) {
    const InspectedCubin& c = report.cubins[ci];
    for (size_t i = 0; i < c.cubin.kernels.size(); ++i) {
      const KernelInfo& k = c.cubin.kernels[i];
      KernelResult r = ToKernelResult(k, std::move(names[ci][i]), i < c.extras.size() ? &c.extras[i] : nullptr);
      if (i < c.extras.size() && !c.extras[i].occupancy && !c.extras[i].occupancy_note.empty())
        w.notes.push_back(r.name + ": no theoretical occupancy: " + c.extras[i].occupancy_note);
      all_counted = all_counted && k.instructions.has_value();
      instructions += static_cast<double>(k.instructions.value_or(0));
      bytes += static_cast<double>(k.sass_bytes);
      w.kernels.push_back(std::move(r));
    }
  }
  for (const InspectNote& n : report.notes) w.notes.push_back(n.source + ": " + n.message);
  // What run writes, compare and baseline update must read: a results file
  // holds at most kMaxJsonStringBytes of strings (util/json.h), and this
  // workload may take half of that.
  size_t text = 0;
  for (const KernelResult& k : w.kernels) {
    text += k.name.size();
    for (const auto& [key, value] : k.attributes) text += key.size() + value.size();
    for (const auto& [key, value] : k.metrics) text += key.size();
  }
  for (const std::string& n : w.notes) text += n.size();
  if (text > kMaxJsonStringBytes / 2) {
    const size_t kernels = w.kernels.size();
    w = Describe(spec);
    w.status = WorkloadStatus::kFailed;
    w.reason = report.file + ": its " + std::to_string(kernels) + " kernels' names and notes come to " +
               std::to_string(text >> 20) + " MiB of text, more than the " +
               std::to_string(kMaxJsonStringBytes >> 21) + " MiB a static result may hold (a results file holds " +
               std::to_string(kMaxJsonStringBytes >> 20) + " MiB)";
    return w;
  }
  // Code that was not read cannot be called unchanged (SameStaticCode).
  if (report.sass_not_inspected > 0)
    w.counters[kSassNotInspectedCounter] = static_cast<double>(report.sass_not_inspected);
  if (w.kernels.empty()) {
    w.status = WorkloadStatus::kFailed;
    w.reason = "no SASS kernels in " + report.file +
               (report.notes.empty() ? std::string() : " (" + report.notes.front().message + ")");
    return w;
  }
  if (all_counted) {
    w.metric = "sass_instructions";
    w.unit = "instructions";
    w.rounds = {{instructions}};
  } else {
    w.metric = "sass_bytes";
    w.unit = "bytes";
    w.rounds = {{bytes}};
  }
  w.summary = Summarize(w.rounds.front());
  return w;
}

WorkloadResult RunStaticWorkload(const WorkloadSpec& spec) {
  if (spec.file.rfind("{bin}", 0) == 0)
    return Failed(spec, "'file' uses {bin}: pass --bin DIR (its build folder)");
  Result<std::string> bytes = ReadWorkloadFile(spec.file);
  if (!bytes.ok()) return Failed(spec, bytes.error().message);
  Result<InspectReport> report = InspectBytes(*bytes, spec.file);
  if (!report.ok()) return Failed(spec, report.error().message);
  AddOccupancy(&*report);
  if (!spec.ptxas_log.empty()) {
    Result<std::string> text = ReadWorkloadFile(spec.ptxas_log);
    if (!text.ok()) return Failed(spec, "ptxas_log: " + text.error().message);
    Result<std::vector<PtxasKernel>> log = ParsePtxasLog(*text, spec.ptxas_log);
    if (!log.ok()) return Failed(spec, log.error().message);
    if (Status st = AddPtxasLog(&*report, *log, spec.ptxas_log); !st.ok()) return Failed(spec, st.error().message);
  }
  return StaticWorkloadResult(spec, *report);
}

}  // namespace gpugate
