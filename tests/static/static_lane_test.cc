// The static kernel lane end to end on real cubins (tests/data/cubins,
// heavy.cu built twice by nvcc 13.0, the second time with -maxrregcount=16 so
// that `heavy` spills): kind: static results, the judge (code unchanged,
// environments), the built-in static rules fired and kept silent, and the
// gate's skip_unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "compare/compare.h"
#include "config/policy.h"
#include "gate/gate.h"
#include "harness/static_runner.h"
#include "model/static_code.h"
#include "report/markdown.h"
#include "report/view.h"
#include "static/occupancy.h"
#include "static/cubin_data.h"

namespace gpugate {
namespace {

std::string Data(const std::string& file) { return testing::CubinDataPath(file); }

const char kHeavy[] = "heavy(float const*, float*, int)@sm_90";
const char kPlain[] = "plain_add@sm_90";

WorkloadSpec StaticSpec(const std::string& cubin, bool with_log) {
  WorkloadSpec s;
  s.name = "kernels";
  s.kind = WorkloadKind::kStatic;
  s.file = Data(cubin + ".cubin");
  if (with_log) s.ptxas_log = Data(cubin + ".ptxas.txt");
  return s;
}

Results Run(const std::vector<WorkloadResult>& workloads, const std::string& gpu = "") {
  Results r;
  r.run.run_id = "run";
  r.run.env.cpu_model = "Test CPU";
  if (!gpu.empty()) r.run.env.gpu.name = gpu;
  r.workloads = workloads;
  return r;
}

Results StaticRun(const std::string& cubin, bool with_log, const std::string& gpu = "") {
  return Run({RunStaticWorkload(StaticSpec(cubin, with_log))}, gpu);
}

const KernelResult* Kernel(const WorkloadResult& w, const std::string& name) {
  for (const KernelResult& k : w.kernels)
    if (k.name == name) return &k;
  ADD_FAILURE() << "no kernel " << name;
  return nullptr;
}

double Metric(const KernelResult& k, const std::string& name) {
  auto it = k.metrics.find(name);
  EXPECT_NE(it, k.metrics.end()) << k.name << ": " << name;
  return it == k.metrics.end() ? -1 : it->second;
}

Verdicts Judge(const Results& base, const Results& current) {
  CompareOptions options;
  options.today = "2026-11-26";
  return Compare({base}, current, DefaultPolicy(), options);
}

std::vector<const Suggestion*> Fired(const Verdicts& v, const std::string& rule) {
  std::vector<const Suggestion*> out;
  for (const Suggestion& s : v.suggestions)
    if (s.rule == rule) out.push_back(&s);
  return out;
}

const MetricVerdict* Primary(const Verdicts& v) {
  for (const MetricVerdict& m : v.metrics)
    if (m.workload == "kernels" && m.metric == "sass_instructions") return &m;
  ADD_FAILURE() << "no sass_instructions verdict";
  return nullptr;
}

// What ptxas -v printed for the two builds (tests/data/cubins/heavy_sm90*.ptxas.txt).
// "Code unchanged" covers what lies beside the kernels: the same -rdc
// source built in two folders (its internal device function's section name
// holds the folder's hash) is unchanged; a __constant__ loop bound of 10 or
// 1,000,000 (the same SASS and resources) is not.
TEST(StaticLane, CodeAndConstantDataBesideTheKernelsCountAndFolderHashesDoNot) {
  const WorkloadResult ws1 = RunStaticWorkload(StaticSpec("internal_fn_sm80_rdc_ws1", false));
  const WorkloadResult ws2 = RunStaticWorkload(StaticSpec("internal_fn_sm80_rdc_ws2", false));
  ASSERT_EQ(ws1.status, WorkloadStatus::kOk) << ws1.reason;
  ASSERT_EQ(ws2.status, WorkloadStatus::kOk) << ws2.reason;
  ASSERT_FALSE(ws1.kernels.empty());
  EXPECT_TRUE(ws1.kernels[0].attributes.count(kOtherCodeHashAttribute));
  EXPECT_TRUE(SameStaticCode(ws1, ws2));
  const WorkloadResult ten = RunStaticWorkload(StaticSpec("constant_bound_10_sm80", false));
  const WorkloadResult million = RunStaticWorkload(StaticSpec("constant_bound_1000000_sm80", false));
  ASSERT_EQ(ten.status, WorkloadStatus::kOk) << ten.reason;
  ASSERT_EQ(million.status, WorkloadStatus::kOk) << million.reason;
  ASSERT_EQ(ten.kernels.size(), 1u);
  EXPECT_EQ(ten.kernels[0].attributes.at(kSassHashAttribute), million.kernels[0].attributes.at(kSassHashAttribute));
  EXPECT_FALSE(SameStaticCode(ten, million));
  EXPECT_TRUE(SameStaticCode(ten, RunStaticWorkload(StaticSpec("constant_bound_10_sm80", false))));
}

// ptxas reports the spills of a device function the kernel calls (not
// inlined) under the function: they are the kernel's, so new-spill sees them.
TEST(StaticLane, TheSpillsOfTheDeviceFunctionsAKernelCallsAreItsOwn) {
  const WorkloadResult base = RunStaticWorkload(StaticSpec("callee_spill_sm80", true));
  const WorkloadResult head = RunStaticWorkload(StaticSpec("callee_spill_sm80_spill", true));
  ASSERT_EQ(base.status, WorkloadStatus::kOk) << base.reason;
  ASSERT_EQ(head.status, WorkloadStatus::kOk) << head.reason;
  ASSERT_EQ(base.kernels.size(), 1u);
  ASSERT_EQ(head.kernels.size(), 1u);
  EXPECT_EQ(Metric(base.kernels[0], "spill_store_bytes"), 0);
  EXPECT_EQ(Metric(head.kernels[0], "spill_store_bytes"), 848);
  EXPECT_EQ(Metric(head.kernels[0], "spill_load_bytes"), 904);
  EXPECT_EQ(Metric(head.kernels[0], "stack_frame_bytes"), 480);
  bool said = false;
  for (const std::string& n : head.notes) said = said || n.find("include those of the device functions it calls: _Z1fPKfi (848/904 bytes)") != std::string::npos;
  EXPECT_TRUE(said);
}

// A -rdc build for two archs: ptxas prints each arch's device functions
// before that arch's kernels, so a function's record belongs to the arch of
// its module's kernels, not to the arch the log named last (probe DE2).
TEST(StaticLane, ACalleesSpillsStayWithTheirArchInAMultiArchRdcLog) {
  WorkloadSpec s;
  s.name = "kernels";
  s.kind = WorkloadKind::kStatic;
  s.file = Data("callee_two_arch_rdc.o");
  s.ptxas_log = Data("callee_two_arch_rdc.ptxas.txt");
  const WorkloadResult w = RunStaticWorkload(s);
  ASSERT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
  ASSERT_EQ(w.kernels.size(), 2u);
  for (const KernelResult& k : w.kernels) {
    const bool sm90 = k.name.find("sm_90") != std::string::npos;
    EXPECT_EQ(Metric(k, "spill_store_bytes"), sm90 ? 240 : 0) << k.name;
    EXPECT_EQ(Metric(k, "spill_load_bytes"), sm90 ? 304 : 0) << k.name;
  }
}

TEST(StaticLane, ResultHoldsEveryKernelsResourcesFromTheBinaryAndTheLog) {
  const WorkloadResult w = RunStaticWorkload(StaticSpec("heavy_sm90", true));
  ASSERT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
  EXPECT_EQ(w.kind, "static");
  EXPECT_EQ(w.backend, "static");
  EXPECT_TRUE(w.deterministic);
  EXPECT_EQ(w.metric, "sass_instructions");
  ASSERT_EQ(w.rounds.size(), 1u);
  ASSERT_EQ(w.rounds[0].size(), 1u);
  ASSERT_EQ(w.kernels.size(), 2u);
  const KernelResult* heavy = Kernel(w, kHeavy);
  const KernelResult* plain = Kernel(w, kPlain);
  ASSERT_TRUE(heavy && plain);
  EXPECT_EQ(Metric(*heavy, "registers_per_thread"), 40);
  EXPECT_EQ(Metric(*heavy, "stack_frame_bytes"), 0);
  EXPECT_EQ(Metric(*heavy, "spill_store_bytes"), 0);
  EXPECT_EQ(Metric(*heavy, "spill_load_bytes"), 0);
  EXPECT_EQ(Metric(*plain, "registers_per_thread"), 12);
  EXPECT_EQ(Metric(*heavy, "arch"), 90);
  // The total is the sum of the kernels' instruction counts (SASS bytes / 16).
  EXPECT_EQ(w.rounds[0][0], Metric(*heavy, "sass_instructions") + Metric(*plain, "sass_instructions"));
  EXPECT_EQ(Metric(*heavy, "sass_instructions") * 16, Metric(*heavy, "sass_bytes"));
  EXPECT_EQ(heavy->attributes.at("mangled_name"), "_Z5heavyPKfPfi");
  EXPECT_EQ(heavy->attributes.at("arch"), "sm_90");
  EXPECT_EQ(heavy->attributes.at(kSassHashAttribute).size(), 18u);  // 0x + 16 hex digits
  EXPECT_EQ(heavy->count, 0);
  if (OccupancyCalculatorAvailable()) {
    // 40 registers: 1536 threads of 2048 per SM at the best block size.
    EXPECT_DOUBLE_EQ(Metric(*heavy, "theoretical_occupancy"), 0.75);
    EXPECT_EQ(heavy->attributes.at("occupancy_limiter"), "registers");
  }

  const WorkloadResult s = RunStaticWorkload(StaticSpec("heavy_sm90_spill", true));
  ASSERT_EQ(s.status, WorkloadStatus::kOk) << s.reason;
  const KernelResult* spilled = Kernel(s, kHeavy);
  ASSERT_TRUE(spilled);
  EXPECT_EQ(Metric(*spilled, "registers_per_thread"), 24);
  EXPECT_EQ(Metric(*spilled, "stack_frame_bytes"), 112);
  EXPECT_EQ(Metric(*spilled, "spill_store_bytes"), 104);
  EXPECT_EQ(Metric(*spilled, "spill_load_bytes"), 132);
  // plain_add compiles to the same SASS in both builds; heavy does not.
  EXPECT_EQ(Kernel(s, kPlain)->attributes.at(kSassHashAttribute), plain->attributes.at(kSassHashAttribute));
  EXPECT_NE(spilled->attributes.at(kSassHashAttribute), heavy->attributes.at(kSassHashAttribute));
  EXPECT_TRUE(SameStaticCode(w, RunStaticWorkload(StaticSpec("heavy_sm90", false))));
  EXPECT_FALSE(SameStaticCode(w, s));
  // The same SASS with other resources is not the same code: a static
  // shared array's size or a launch bound is not in the SASS.
  WorkloadResult more_shared = RunStaticWorkload(StaticSpec("heavy_sm90", false));
  for (KernelResult& k : more_shared.kernels) k.metrics["shared_mem_bytes"] += 44000;
  EXPECT_FALSE(SameStaticCode(w, more_shared));
  // Nor with other device functions linked apart from the kernels (-rdc).
  WorkloadResult other_callee = RunStaticWorkload(StaticSpec("heavy_sm90", false));
  for (KernelResult& k : other_callee.kernels) k.attributes[kOtherCodeHashAttribute] = "0x0123456789abcdef";
  EXPECT_FALSE(SameStaticCode(w, other_callee));
  // Code that was found but not read (a limit) may have changed.
  WorkloadResult partly = RunStaticWorkload(StaticSpec("heavy_sm90", false));
  partly.counters[kSassNotInspectedCounter] = 1;
  EXPECT_FALSE(SameStaticCode(w, partly));
  EXPECT_FALSE(SameStaticCode(partly, w));
}

// A kernel that requires its block size (.reqntid) reports it as its
// largest block, and its occupancy at that size.
TEST(StaticLane, ARequiredBlockSizeIsTheKernelsBlockBound) {
  const WorkloadResult w = RunStaticWorkload(StaticSpec("bounds_sm90", true));
  ASSERT_EQ(w.status, WorkloadStatus::kOk) << w.reason;
  const KernelResult* fixed = Kernel(w, "fixed32(float*)@sm_90");
  ASSERT_TRUE(fixed);
  EXPECT_EQ(Metric(*fixed, "max_threads_per_block"), 32);
  if (OccupancyCalculatorAvailable()) {
    EXPECT_EQ(Metric(*fixed, "occupancy_block_size"), 32);
    EXPECT_DOUBLE_EQ(Metric(*fixed, "theoretical_occupancy"), 0.5);
  }
}

TEST(StaticLane, UnreadableInputIsAFailedWorkloadWithTheReason) {
  struct Case {
    std::string file, log, reason;
  };
  const Case cases[] = {
      {Data("no_such_file.cubin"), "", "no_such_file.cubin"},
      {Data("heavy.cu"), "", "not a cubin, fatbin, ELF file or ar archive"},
      {"{bin}/k.cubin", "", "--bin"},
      {Data("heavy_sm90.cubin"), Data("no_such.log"), "ptxas_log"},
  };
  for (const Case& c : cases) {
    WorkloadSpec spec = StaticSpec("heavy_sm90", false);
    spec.file = c.file;
    spec.ptxas_log = c.log;
    const WorkloadResult r = RunStaticWorkload(spec);
    EXPECT_EQ(r.status, WorkloadStatus::kFailed) << c.file;
    EXPECT_NE(r.reason.find(c.reason), std::string::npos) << r.reason;
  }
}

TEST(StaticLane, SameBinaryIsCodeUnchangedAndPasses) {
  const Verdicts v = Judge(StaticRun("heavy_sm90", true), StaticRun("heavy_sm90", true));
  const MetricVerdict* m = Primary(v);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->verdict, Verdict::kUnchanged);
  EXPECT_EQ(m->reason, Reason::kCodeUnchanged);
  EXPECT_NE(m->sentence.find("code unchanged: all 2 kernels"), std::string::npos) << m->sentence;
  EXPECT_EQ(v.outcome, Outcome::kPass);
  EXPECT_TRUE(v.suggestions.empty());
  EXPECT_EQ(ExitCodeFor(v), 0);
}

// One library built in two workspaces (tests/data/cubins/same_name_*.a: two
// k.cu files whose static kernels differ only by their folders' hashes):
// every kernel meets its own baseline, so the code is unchanged.
TEST(StaticLane, ALibraryBuiltInAnotherWorkspaceIsCodeUnchanged) {
  auto run = [](const std::string& archive) {
    WorkloadSpec s = StaticSpec("unused", false);
    s.file = Data(archive);
    return gpugate::Run({RunStaticWorkload(s)});
  };
  const Verdicts v = Judge(run("same_name_sm80_rdc_ws1.a"), run("same_name_sm80_rdc_ws2.a"));
  const MetricVerdict* m = Primary(v);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->reason, Reason::kCodeUnchanged) << m->sentence;
  EXPECT_NE(m->sentence.find("code unchanged: all 4 kernels"), std::string::npos) << m->sentence;
  EXPECT_EQ(v.outcome, Outcome::kPass);
}

// SASS one binary holds but that was not read: never "code unchanged", and
// the sentence says why rather than "code changed in 0 of 2 kernels".
TEST(StaticLane, CodeNotReadIsNotKnownUnchanged) {
  Results partly = StaticRun("heavy_sm90", true);
  for (WorkloadResult& w : partly.workloads) w.counters[kSassNotInspectedCounter] = 2;
  const Verdicts v = Judge(StaticRun("heavy_sm90", true), partly);
  const MetricVerdict* m = Primary(v);
  ASSERT_TRUE(m);
  EXPECT_NE(m->reason, Reason::kCodeUnchanged);
  EXPECT_NE(m->sentence.find("the code is not known to be unchanged: 2 SASS entries of the binaries could not be read"),
            std::string::npos)
      << m->sentence;
}

// The static lane gates on CPU-only runners against a baseline read anywhere:
// another GPU (or none) does not make static results incomparable.
TEST(StaticLane, ComparesAcrossEnvironments) {
  const Verdicts v = Judge(StaticRun("heavy_sm90", true, "NVIDIA A100"), StaticRun("heavy_sm90_spill", true));
  EXPECT_FALSE(v.environment_matches);
  // Both environments are in the verdicts, field by field.
  bool gpu_row = false;
  for (const EnvField& e : v.environments)
    gpu_row = gpu_row || (e.field == "gpu.name" && e.baseline == EnvValue{std::string("NVIDIA A100")} &&
                          std::holds_alternative<std::monostate>(e.current));
  EXPECT_TRUE(gpu_row);
  const MetricVerdict* m = Primary(v);
  ASSERT_TRUE(m);
  EXPECT_NE(m->verdict, Verdict::kIncomparable);
  EXPECT_FALSE(Fired(v, "new-spill").empty());
}

TEST(StaticLane, NewSpillFailsTheGate) {
  const Verdicts v = Judge(StaticRun("heavy_sm90", true), StaticRun("heavy_sm90_spill", true));
  const std::vector<const Suggestion*> spill = Fired(v, "new-spill");
  ASSERT_EQ(spill.size(), 1u);  // heavy only; plain_add does not spill
  EXPECT_EQ(spill[0]->kernel, kHeavy);
  EXPECT_EQ(spill[0]->severity, "fail");
  EXPECT_EQ(spill[0]->priority, 0);
  EXPECT_NE(spill[0]->message.find("104 B stored and 132 B loaded per thread"), std::string::npos)
      << spill[0]->message;
  EXPECT_NE(spill[0]->evidence.find("kernel.spills = 236 B"), std::string::npos) << spill[0]->evidence;
  // The spill is the finding, not the stack frame it brings.
  EXPECT_TRUE(Fired(v, "new-local-memory").empty());
  const MetricVerdict* m = Primary(v);
  ASSERT_TRUE(m);
  EXPECT_NE(m->sentence.find("code changed in 1 of 2 kernels (heavy("), std::string::npos) << m->sentence;
  EXPECT_EQ(v.outcome, Outcome::kFail);
  EXPECT_EQ(ExitCodeFor(v), 1);
}

TEST(StaticLane, NewSpillStaysSilentWithoutALogOrWhenNothingChanged) {
  // Without the ptxas log spills are unknown: new-spill cannot fire, but the
  // new stack frame is seen.
  Verdicts v = Judge(StaticRun("heavy_sm90", false), StaticRun("heavy_sm90_spill", false));
  EXPECT_TRUE(Fired(v, "new-spill").empty());
  const std::vector<const Suggestion*> local = Fired(v, "new-local-memory");
  ASSERT_EQ(local.size(), 1u);
  EXPECT_EQ(local[0]->kernel, kHeavy);
  EXPECT_EQ(local[0]->severity, "warning");
  EXPECT_NE(local[0]->message.find("112 B stack frame"), std::string::npos) << local[0]->message;
  EXPECT_EQ(v.outcome, Outcome::kPass);  // a warning does not fail

  // A kernel that spilled in the baseline too is no new spill.
  v = Judge(StaticRun("heavy_sm90_spill", true), StaticRun("heavy_sm90_spill", true));
  EXPECT_TRUE(Fired(v, "new-spill").empty());
  EXPECT_TRUE(Fired(v, "new-local-memory").empty());
}

// The other way round: the build without -maxrregcount uses 16 more
// registers, and occupancy drops from 100% to 75%.
TEST(StaticLane, MoreRegistersAndOccupancyLostWarn) {
  const Verdicts v = Judge(StaticRun("heavy_sm90_spill", true), StaticRun("heavy_sm90", true));
  const std::vector<const Suggestion*> regs = Fired(v, "more-registers");
  ASSERT_EQ(regs.size(), 1u);
  EXPECT_EQ(regs[0]->kernel, kHeavy);
  EXPECT_EQ(regs[0]->severity, "warning");
  EXPECT_NE(regs[0]->message.find("uses 40 registers per thread, 16 more than the baseline's 24"),
            std::string::npos) << regs[0]->message;
  if (OccupancyCalculatorAvailable()) {
    const std::vector<const Suggestion*> occ = Fired(v, "occupancy-lost");
    ASSERT_EQ(occ.size(), 1u);
    EXPECT_EQ(occ[0]->kernel, kHeavy);
    EXPECT_NE(occ[0]->message.find("fell from 100% to 75%, now limited by registers"), std::string::npos)
        << occ[0]->message;
  }
  EXPECT_TRUE(Fired(v, "new-spill").empty());
  EXPECT_EQ(v.outcome, Outcome::kPass);

  // Fewer registers and more occupancy: silent.
  const Verdicts back = Judge(StaticRun("heavy_sm90", true), StaticRun("heavy_sm90_spill", true));
  EXPECT_TRUE(Fired(back, "more-registers").empty());
  EXPECT_TRUE(Fired(back, "occupancy-lost").empty());
}

// A kernel the baseline's binary did not have is new: no base values, so no
// static rule speaks about it.
TEST(StaticLane, NewKernelIsReportedAndTheRulesStaySilent) {
  Results base = StaticRun("heavy_sm90", true);
  base.workloads[0].kernels.erase(base.workloads[0].kernels.begin());  // heavy is new now
  const Verdicts v = Judge(base, StaticRun("heavy_sm90_spill", true));
  bool new_kernel = false;
  for (const MetricVerdict& m : v.metrics)
    new_kernel = new_kernel || (m.verdict == Verdict::kNew && m.reason == Reason::kNewKernel);
  EXPECT_TRUE(new_kernel);
  EXPECT_TRUE(Fired(v, "new-spill").empty());
}

// A kernel the head's binary no longer has is removed; a static kernel is
// never launched, and no report says it was not.
TEST(StaticLane, VanishedKernelIsNotCalledUnlaunched) {
  Results head = StaticRun("heavy_sm90_spill", true);
  head.workloads[0].kernels.erase(head.workloads[0].kernels.begin());
  const Verdicts v = Judge(StaticRun("heavy_sm90", true), head);
  const MetricVerdict* removed = nullptr;
  for (const MetricVerdict& m : v.metrics)
    if (m.verdict == Verdict::kRemoved && m.reason == Reason::kVanishedKernel) removed = &m;
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->sentence, "kernel in the baseline's binary but not in this one");
  EXPECT_EQ(NoteText(*removed), "kernel not in this run");
  const std::string markdown = RenderMarkdown(v);
  EXPECT_EQ(markdown.find("launched"), std::string::npos) << markdown;
}

// --- the gate's skip_unchanged ------------------------------------------------

// Static workloads are read from the cubin named by the fake runner's build
// folder; the timing workload gets one round of fixed samples.
struct FakeBuild {
  std::string cubin;  ///< heavy_sm90 or heavy_sm90_spill
  std::vector<std::string> measured;

  Results operator()(const std::vector<WorkloadSpec>& specs, const RunOptions&, ProgressSink*) {
    Results r = Run({});
    for (const WorkloadSpec& s : specs) {
      measured.push_back(s.name);
      if (s.kind == WorkloadKind::kStatic) {
        WorkloadSpec here = s;
        here.file = Data(cubin + ".cubin");
        here.ptxas_log = Data(cubin + ".ptxas.txt");
        r.workloads.push_back(RunStaticWorkload(here));
        continue;
      }
      WorkloadResult w;
      w.name = s.name;
      w.kind = "builtin";
      w.backend = "cpu";
      for (int round = 0; round < 10; ++round) w.rounds.push_back({1e-3 * (1 + 0.001 * round), 1e-3});
      r.workloads.push_back(std::move(w));
    }
    return r;
  }
};

// `all`: heavy-timing says skip_unchanged: true (the suite's one shared list
// of static workloads) instead of naming them.
std::vector<WorkloadSpec> SkipSuite(bool all = false) {
  WorkloadSpec timing;
  timing.name = "heavy-timing";
  timing.kind = WorkloadKind::kBuiltin;
  if (all)
    timing.skip_unchanged_all = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{"kernels"});
  else
    timing.skip_unchanged = {"kernels"};
  WorkloadSpec other;
  other.name = "other-timing";
  other.kind = WorkloadKind::kBuiltin;
  return {StaticSpec("heavy_sm90", true), timing, other};
}

GateOutcome Gate(FakeBuild& build, const Results& baseline, bool all = false) {
  GateOptions options;
  options.confirmations = 0;
  options.compare.today = "2026-11-26";
  const std::vector<WorkloadSpec> specs = SkipSuite(all);
  SuiteRunner runner = [&build](const std::vector<WorkloadSpec>& w, const RunOptions& o, ProgressSink* p) {
    return build(w, o, p);
  };
  return RunGate(specs, {baseline}, DefaultPolicy(), options, nullptr, runner);
}

TEST(StaticLane, GateSkipsTimingWorkloadsWhoseCodeIsUnchanged) {
  FakeBuild nightly{"heavy_sm90", {}};
  const Results baseline = nightly(SkipSuite(), RunOptions{}, nullptr);

  FakeBuild same{"heavy_sm90", {}};
  const GateOutcome out = Gate(same, baseline);
  EXPECT_EQ(same.measured, (std::vector<std::string>{"kernels", "other-timing"}));
  ASSERT_EQ(out.results.workloads.size(), 3u);  // suite order kept
  EXPECT_EQ(out.results.workloads[0].name, "kernels");
  const WorkloadResult& skipped = out.results.workloads[1];
  EXPECT_EQ(skipped.name, "heavy-timing");
  EXPECT_EQ(skipped.status, WorkloadStatus::kSkipped);
  EXPECT_TRUE(skipped.code_unchanged);
  EXPECT_NE(skipped.reason.find("kernels hold the baseline's SASS"), std::string::npos) << skipped.reason;
  bool verdict = false;
  for (const MetricVerdict& m : out.verdicts.metrics)
    if (m.workload == "heavy-timing") {
      EXPECT_EQ(m.verdict, Verdict::kSkipped);
      EXPECT_EQ(m.reason, Reason::kCodeUnchanged);
      verdict = true;
    }
  EXPECT_TRUE(verdict);
  EXPECT_EQ(out.verdicts.outcome, Outcome::kPass);

  // The code changed: the timing workload is measured again (and the new
  // spill fails the gate).
  FakeBuild changed{"heavy_sm90_spill", {}};
  const GateOutcome again = Gate(changed, baseline);
  EXPECT_EQ(changed.measured, (std::vector<std::string>{"kernels", "heavy-timing", "other-timing"}));
  EXPECT_EQ(again.results.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_FALSE(again.results.workloads[1].code_unchanged);
  EXPECT_EQ(again.verdicts.outcome, Outcome::kFail);
}

// skip_unchanged: true is one list shared by the workloads (not a copy of
// every static name in each): the gate reads it the same way.
TEST(StaticLane, GateSkipsWithTheSharedListOfSkipUnchangedTrue) {
  FakeBuild nightly{"heavy_sm90", {}};
  const Results baseline = nightly(SkipSuite(true), RunOptions{}, nullptr);
  FakeBuild same{"heavy_sm90", {}};
  const GateOutcome out = Gate(same, baseline, /*all=*/true);
  EXPECT_EQ(same.measured, (std::vector<std::string>{"kernels", "other-timing"}));
  const WorkloadResult& skipped = out.results.workloads[1];
  EXPECT_EQ(skipped.status, WorkloadStatus::kSkipped);
  EXPECT_NE(skipped.reason.find("(kernels hold the baseline's SASS"), std::string::npos) << skipped.reason;
  FakeBuild changed{"heavy_sm90_spill", {}};
  Gate(changed, baseline, /*all=*/true);
  EXPECT_EQ(changed.measured, (std::vector<std::string>{"kernels", "heavy-timing", "other-timing"}));
}

// A static result is deterministic: a re-run reads the same value, so a
// regression of it is not confirmed by reading the binary again.
TEST(StaticLane, GateDoesNotReRunAStaticWorkloadToConfirmIt) {
  FakeBuild nightly{"heavy_sm90", {}};
  const Results baseline = nightly(SkipSuite(), RunOptions{}, nullptr);
  FakeBuild changed{"heavy_sm90_spill", {}};
  GateOptions options;
  options.confirmations = 3;
  options.compare.today = "2026-11-26";
  // 800 -> 880 instructions against a 5% threshold: a regression.
  Result<Policy> policy = LoadPolicyFromString("version: 1\ndefaults:\n  thresholds:\n    sass_instructions: 5%\n", "p.yaml");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  SuiteRunner runner = [&changed](const std::vector<WorkloadSpec>& w, const RunOptions& o, ProgressSink* p) {
    return changed(w, o, p);
  };
  const GateOutcome out = RunGate(SkipSuite(), {baseline}, *policy, options, nullptr, runner);
  bool regression = false;
  for (const MetricVerdict& m : out.verdicts.metrics)
    regression = regression || (m.workload == "kernels" && m.verdict == Verdict::kRegression);
  EXPECT_TRUE(regression);
  EXPECT_EQ(std::count(changed.measured.begin(), changed.measured.end(), "kernels"), 1);
}

TEST(StaticLane, GateMeasuresWhatTheBaselineNeverMeasured) {
  FakeBuild nightly{"heavy_sm90", {}};
  Results baseline = nightly(SkipSuite(), RunOptions{}, nullptr);
  baseline.workloads.erase(baseline.workloads.begin() + 1);  // no heavy-timing in the baseline
  FakeBuild same{"heavy_sm90", {}};
  const GateOutcome out = Gate(same, baseline);
  EXPECT_EQ(same.measured, (std::vector<std::string>{"kernels", "heavy-timing", "other-timing"}));
  EXPECT_EQ(out.results.workloads[1].status, WorkloadStatus::kOk);
}

// Kernels the binary numbers (one static kernel name in two files) are
// paired with the baseline's by their code: an edit elsewhere in a file that
// swaps the numbers does not pair each with the other's baseline.
TEST(StaticLane, NumberedKernelsArePairedByTheirCode) {
  auto kernel = [](const std::string& name, const std::string& hash, double registers) {
    KernelResult k;
    k.name = name;
    k.attributes[kSassHashAttribute] = hash;
    k.metrics["registers_per_thread"] = registers;
    return k;
  };
  WorkloadResult base;
  base.name = "app";
  base.kind = kStaticKind;
  base.kernels = {kernel("init(float*, int)@sm_80", "0xaaaa", 32), kernel("init(float*, int)@sm_80 #2", "0xbbbb", 6),
                  kernel("other(float*)@sm_80", "0xcccc", 8)};
  WorkloadResult swapped = base;
  swapped.kernels = {kernel("init(float*, int)@sm_80", "0xbbbb", 6), kernel("init(float*, int)@sm_80 #2", "0xaaaa", 32),
                     kernel("other(float*)@sm_80", "0xcccc", 8)};
  EXPECT_TRUE(SameStaticCode(base, swapped));
  WorkloadResult paired = swapped;
  PairNumberedKernels(base, &paired);
  std::map<std::string, std::string> hash_of;
  for (const KernelResult& k : paired.kernels) hash_of[k.name] = k.attributes.at(kSassHashAttribute);
  EXPECT_EQ(hash_of.at("init(float*, int)@sm_80"), "0xaaaa");
  EXPECT_EQ(hash_of.at("init(float*, int)@sm_80 #2"), "0xbbbb");
  EXPECT_EQ(hash_of.at("other(float*)@sm_80"), "0xcccc");
  // One of them changed: the unchanged one keeps its pairing, the changed
  // one takes the name left; a third one gets a number of its own.
  WorkloadResult edited = swapped;
  edited.kernels[1].attributes[kSassHashAttribute] = "0xdddd";  // the 32-register one changed
  edited.kernels.push_back(kernel("init(float*, int)@sm_80 #3", "0xeeee", 4));
  PairNumberedKernels(base, &edited);
  hash_of.clear();
  for (const KernelResult& k : edited.kernels) hash_of[k.name] = k.attributes.at(kSassHashAttribute);
  EXPECT_EQ(hash_of.at("init(float*, int)@sm_80 #2"), "0xbbbb");
  EXPECT_EQ(hash_of.at("init(float*, int)@sm_80"), "0xdddd");
  EXPECT_EQ(hash_of.at("init(float*, int)@sm_80 #3"), "0xeeee");
  EXPECT_FALSE(SameStaticCode(base, edited));
  // One removed and the other changed in one commit: the masked mangled name
  // (its file's mark) pairs the changed one with its own baseline.
  WorkloadResult named = base;
  named.kernels[0].attributes[kStableMangledNameAttribute] = "_ZN40_GLOBAL__N__xxxxxxxx_9_kernel_cu_mul4kernEv";
  named.kernels[1].attributes[kStableMangledNameAttribute] = "_ZN40_GLOBAL__N__xxxxxxxx_9_kernel_cu_add4kernEv";
  WorkloadResult removed = named;
  removed.kernels.erase(removed.kernels.begin());  // "mul" (the first) is gone...
  removed.kernels[0].name = "init(float*, int)@sm_80";
  removed.kernels[0].attributes[kSassHashAttribute] = "0xffff";  // ...and "add" changed
  PairNumberedKernels(named, &removed);
  EXPECT_EQ(removed.kernels[0].name, "init(float*, int)@sm_80 #2");
  // Through the judge: the swapped run is code unchanged.
  Results b, c;
  b.run.run_id = "b";
  c.run.run_id = "c";
  b.workloads = {base};
  c.workloads = {swapped};
  for (WorkloadResult* w : {&b.workloads[0], &c.workloads[0]}) {
    w->metric = "sass_instructions";
    w->unit = "instructions";
    w->deterministic = true;
    w->rounds = {{100}};
  }
  Verdicts v = Compare({b}, c, DefaultPolicy(), CompareOptions{});
  ASSERT_FALSE(v.metrics.empty());
  EXPECT_EQ(v.metrics[0].reason, Reason::kCodeUnchanged);
}

}  // namespace
}  // namespace gpugate
